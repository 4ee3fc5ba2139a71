package nvptx_test

import (
	"strings"
	"testing"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// TestScalarLocalPtrKeepsBuffer: a scalar pointer from local_ptr keeps its
// buffer alive until its last use, so an alloc made in between gets other
// bytes (it had offset 0 too, and the load read the second buffer).
func TestScalarLocalPtrKeepsBuffer(t *testing.T) {
	m := lowerTLE(t, `kernel k(o *i32) {
    tab := alloc([32], i32, init: arange(0, 32))
    p := local_ptr(tab, 1)
    tab2 := alloc([32], i32, init: arange(0, 32) * 2)
    store(o + arange(0, 32), load(tab2) + load(p))
}`)
	var offs []int64
	m.Funcs[0].Walk(func(op *ir.Op) {
		if op.Kind == ir.OpAlloc {
			offs = append(offs, op.Attrs.Int(gpu.AttrSmemOffset, -1))
		}
	})
	if len(offs) != 2 || offs[0] == offs[1] {
		t.Fatalf("the two buffers' offsets: %v", offs)
	}
}

// TestSharedAtomicBarrier: an atomic on shared memory waits for the plain
// stores before it (the buffer's init) and a plain load after it waits
// for the atomics: a barrier on each side.
func TestSharedAtomicBarrier(t *testing.T) {
	res := emitTLE(t, `kernel k(x *i32, o *i32) {
    r := arange(0, 128)
    h := alloc([16], i32, init: zeros([16], i32))
    atomic_add(local_ptr(h, load(x + r) % 16), 1)
    store(o + arange(0, 16), load(h))
}`)
	ll := res.LLVMIR
	at := strings.Index(ll, "atomicrmw")
	if at < 0 {
		at = strings.Index(ll, "atom.")
	}
	if at < 0 {
		t.Fatalf("no atomic:\n%s", ll)
	}
	if !strings.Contains(ll[:at], "@llvm.nvvm.barrier0") {
		t.Fatalf("no barrier between the init stores and the atomics:\n%s", ll)
	}
	if !strings.Contains(ll[at:], "@llvm.nvvm.barrier0") {
		t.Fatalf("no barrier between the atomics and the load:\n%s", ll)
	}
}

// TestRemoteSlot: a slot (and a transpose) of a remote view stays a
// cluster address: the load is ld.shared::cluster from the mapa address
// plus the slot's offset, not that address added to this CTA's shared
// base.
func TestRemoteSlot(t *testing.T) {
	res := emitTLE(t, `kernel k(x *f32, out *f32) {
    mesh := device_mesh(cluster_x: 2)
    rank := shard_id(mesh, "cluster_x")
    c := arange(0, 32)
    buf := alloc([2, 32], f32)
    store(local_ptr(buf.slot(1), c), load(x + c))
    distributed_barrier(mesh)
    store(out + c, load(local_ptr(remote(buf, 1 - rank, mesh).slot(1), c)))
}`)
	ll := res.LLVMIR
	if !strings.Contains(ll, `"ld.shared::cluster.f32 $0, [$1];", "=f,r,~{memory}"(i32 `) {
		t.Fatalf("the remote slot's load is not a cluster load of the i32 cluster address:\n%s", ll)
	}
}

package nvptx_test

import (
	"strings"
	"testing"

	"github.com/tlego/tle/tle"
)

// A persistent loop over items, each read through a shared buffer in a
// layout whose per-thread offsets the backend computes once (threadBase,
// atEntry).
const loopAddrSrc = `kernel persist(x *f32, out *f32, items i32) {
    buf := alloc([16, 64], f32)
    r := arange(0, 16)
    c := arange(0, 64)
    offs := r[:, None]*64 + c[None, :]
    for it := program_id(0); it < items; it += num_programs(0) {
        store(buf, load(x + it*1024 + offs))
        store(out + it*1024 + offs, load(buf.T).T * 2.0)
    }
}
`

// TestLoopAddresses: with tle.CompileOptions.LoopAddresses the thread
// index is read again at the top of the loop body (an inline asm LLVM
// cannot hoist) and the loop's per-thread values derive from it; without
// it, the kernel reads it once, at its entry.
func TestLoopAddresses(t *testing.T) {
	k := kernelOf(t, "p.tle", loopAddrSrc, "persist")
	const reread = `asm sideeffect "mov.u32 $0, %tid.x;"`
	for _, on := range []bool{false, true} {
		a, err := k.Build(tle.CompileOptions{NumWarps: 2, LoopAddresses: on}, tle.GPUOptions{}, "ll")
		if err != nil {
			t.Fatal(err)
		}
		ll := a.LLVMIR
		if got := strings.Count(ll, reread); got != map[bool]int{false: 0, true: 1}[on] {
			t.Fatalf("LoopAddresses %v: %d in-loop thread index reads:\n%s", on, got, ll)
		}
		if !on {
			continue
		}
		// the read is in the loop: after the loop header's compare
		if h, r := strings.Index(ll, "icmp slt"), strings.Index(ll, reread); h < 0 || r < h {
			t.Fatalf("the thread index is read before the loop header:\n%s", ll)
		}
	}
}

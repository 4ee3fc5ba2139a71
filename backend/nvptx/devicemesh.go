package nvptx

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/ir"
)

// Meshes across devices (device_mesh(device: n)): the device-mesh ABI
// (docs/distributed.md, "The GPU: the device-mesh ABI").
//
// A kernel whose body makes a device mesh of WORLD devices takes three
// hidden parameters after its own (and before the make_desc scratch, when
// it has one): rank (i32), heap_bases (WORLD i64 base addresses of every
// rank's symmetric heap, in rank order) and sync (this rank's device
// barrier area in its heap, at the same offset on every rank).

// HiddenParam names a parameter a kernel takes after Kernel.Params, which
// the launcher passes rather than the caller.
type HiddenParam string

const (
	// HiddenRank (i32) is this device's rank in the mesh, 0..WORLD-1:
	// shard_id(mesh, "device").
	HiddenRank HiddenParam = "rank"
	// HiddenHeapBases (a global pointer to WORLD i64s, on the launching
	// device) is every rank's symmetric heap base address, in rank order,
	// as this device addresses it; each base 16-byte aligned. remote(p, r,
	// mesh) of a global pointer is p + (heap_bases[r] - heap_bases[rank]).
	HiddenHeapBases HiddenParam = "heap_bases"
	// HiddenSync (a global pointer to u32) is the device barrier area,
	// DeviceSyncBytes(WORLD, programs) bytes in this rank's part of the
	// symmetric heap at the same offset on every rank, zeroed once when the
	// heap is made and never reset.
	HiddenSync HiddenParam = "sync"
	// HiddenScratch (a global pointer) is the make_desc scratch,
	// Kernel.ScratchBytes per program.
	HiddenScratch HiddenParam = "scratch"
)

// Bytes is the parameter's size in the kernel's argument buffer.
func (h HiddenParam) Bytes() int {
	if h == HiddenRank {
		return 4
	}
	return 8
}

// DeviceSyncBytes is the size of the sync area (HiddenSync) a launch of
// programs programs on a mesh of world devices needs: for each program p
// (its linear id x + y*nx + z*nx*ny), world u32 sent[p][r] then world u32
// recv[p][r], so 8*world*programs bytes. 0 when either is not positive.
func DeviceSyncBytes(world, programs int) int {
	if world <= 0 || programs <= 0 {
		return 0
	}
	return 8 * world * programs
}

// maxTableRanks is the largest mesh whose peers' offsets are computed
// once in the kernel's entry block (one register each); a larger mesh
// loads heap_bases[r] where remote needs it (one cached 8-byte load).
const maxTableRanks = 16

// meshState is a kernel's device mesh: its size and hidden parameters.
type meshState struct {
	world       int
	rank        *llvm.Param // i32
	bases, sync *llvm.Param // i64 addrspace(1)*, i32 addrspace(1)*
	mine        value.Value // heap_bases[rank], in the function's entry
	deltas      []value.Value
}

// deviceMeshOf is the device count of f's device mesh (0 without one); two
// device meshes of different sizes in one kernel are an error at the second.
func deviceMeshOf(f *ir.Func) (int, error) {
	world := 0
	var err error
	f.Walk(func(op *ir.Op) {
		if op.Kind != ir.OpDeviceMesh || err != nil {
			return
		}
		n, ok := op.Attrs["devices"].(int64)
		if !ok {
			return
		}
		if world != 0 && int(n) != world {
			err = ir.ErrorAt(op, "a second device mesh, of %d devices where the first has %d: a kernel runs on one mesh", n, world)
		}
		world = int(n)
	})
	return world, err
}

// meshParams adds the device-mesh ABI's hidden parameters to a kernel of
// world devices.
func (g *gen) meshParams(world int) []*llvm.Param {
	g.mesh = &meshState{world: world,
		rank:  llvm.NewParam("tle_rank", types.I32),
		bases: llvm.NewParam("tle_heap_bases", ptrTo(types.I64, asGlobal)),
		sync:  llvm.NewParam("tle_sync", ptrTo(types.I32, asGlobal)),
	}
	return []*llvm.Param{g.mesh.rank, g.mesh.bases, g.mesh.sync}
}

// needMesh is the kernel's mesh state, or an error at op.
func (g *gen) needMesh() *meshState {
	if g.mesh == nil {
		g.failf("internal: a device-level op in a kernel without a device mesh")
	}
	return g.mesh
}

// inFnEntry emits fn's code in the function's entry block (it dominates
// every use, roles included).
func (g *gen) inFnEntry(fn func()) {
	cur := g.cur
	g.cur = g.fnEntry
	fn()
	g.cur = cur
}

// heapBase loads heap_bases[i] (i an i32).
func (g *gen) heapBase(i value.Value) *llvm.InstLoad {
	ms := g.mesh
	var i64 value.Value = i64c(0)
	if c, ok := constInt(i); ok {
		i64 = i64c(c)
	} else {
		i64 = g.cur.NewSExt(i, types.I64)
	}
	p := g.cur.NewGetElementPtr(types.I64, ms.bases, i64)
	ld := g.cur.NewLoad(types.I64, p)
	ld.Align = 8
	return ld
}

// peerDelta is the byte distance from this rank's symmetric heap to rank's
// (i32), as an i64: heap_bases[rank] - heap_bases[me]. The bases are
// loaded once, in the function's entry: the whole table for a mesh of at
// most maxTableRanks (then a constant rank picks its register and a
// computed one selects among them), else this rank's base only, and the
// peer's where it is needed.
func (g *gen) peerDelta(rank value.Value) value.Value {
	ms := g.needMesh()
	if ms.mine == nil {
		g.inFnEntry(func() {
			ms.mine = g.heapBase(ms.rank)
			if ms.world <= maxTableRanks {
				for k := range ms.world {
					ms.deltas = append(ms.deltas, g.cur.NewSub(g.heapBase(i32c(int64(k))), ms.mine))
				}
			}
		})
	}
	if c, ok := constInt(rank); ok {
		if c < 0 || c >= int64(ms.world) {
			g.failf("rank %d is outside the mesh's %d devices", c, ms.world)
		}
		if ms.deltas != nil {
			return ms.deltas[c]
		}
	}
	if ms.deltas != nil {
		d := ms.deltas[0]
		for k := 1; k < ms.world; k++ {
			d = g.cur.NewSelect(g.cur.NewICmp(enum.IPredEQ, rank, i32c(int64(k))), ms.deltas[k], d)
		}
		return d
	}
	return g.cur.NewSub(g.heapBase(rank), ms.mine)
}

// offsetPtr is p (a global pointer) moved by delta bytes. It goes through
// an integer on purpose: the result points into another device's memory,
// not into p's object, so LLVM must not reason about it as p's.
func (g *gen) offsetPtr(p, delta value.Value) value.Value {
	i := g.cur.NewPtrToInt(p, types.I64)
	return g.cur.NewIntToPtr(g.cur.NewAdd(i, delta), p.Type())
}

// shardDevice is shard_id(mesh, "device"): the hidden rank parameter.
func (g *gen) shardDevice(op *ir.Op) {
	g.set(op.Results[0], &tval{s: g.needMesh().rank})
}

// remotePtr is remote(p, rank, mesh) of a global pointer or a tile of
// them: p + (heap_bases[rank] - heap_bases[me]) in every register (no call
// per access); loads and stores through it stay ordinary ld/st.global.
func (g *gen) remotePtr(op *ir.Op) {
	delta := g.peerDelta(g.index32(op.Operands[1]))
	in := g.val(op.Operands[0])
	if in.s != nil {
		g.set(op.Results[0], &tval{s: g.offsetPtr(in.s, delta)})
		return
	}
	g.force(in)
	out := g.newTile(op.Results[0].Type)
	for r := range out.regs {
		out.regs[r] = g.offsetPtr(regOf(in, r), delta)
	}
	g.set(op.Results[0], out)
}

// flagWord is the width and asm constraint of a flag of dtype d: the
// checker takes 32- and 64-bit integer flags only (atom.add has no
// narrower form); IR built by hand gets the error here.
func (g *gen) flagWord(d ir.DType) (bits int, cons string) {
	switch d.Bits() {
	case 32:
		return 32, "r"
	case 64:
		return 64, "l"
	}
	g.failf("%s: the flag is %s; on the GPU flags are 32- or 64-bit integers", g.curOp.Kind, d)
	return 0, ""
}

// aliasFence orders accesses made through different virtual addresses of
// one location (PTX ISA, memory consistency model, "Proxies"): the peers'
// heap_bases may map a rank's heap at addresses other than the ones its
// owner uses, so each thread that releases through such a mapping fences
// before, and each that acquires what came through one fences after.
const aliasFence = "fence.proxy.alias;"

// signal is signal(ptr, rank, mesh, value, op:): after a barrier of the
// threads running the code (so every thread's earlier writes precede it,
// by the cumulativity of the PTX model's causality order), the elected
// thread stores (set: st.release.sys) or adds (add: atom.add.release.sys)
// the value to the flag's copy on rank.
func (g *gen) signal(op *ir.Op) {
	d := ir.ElemDType(op.Operands[0].Type)
	bits, cons := g.flagWord(d)
	flag := g.scalar(op.Operands[0])
	peer := g.offsetPtr(flag, g.peerDelta(g.index32(op.Operands[1])))
	v := g.scalar(op.Operands[3])
	g.barrier()
	var ins string
	if op.Attrs.String("op") == "add" {
		ins = fmt.Sprintf("@%%p atom.add.release.sys.global.u%d %%old, [$0], $1;", bits)
	} else {
		ins = fmt.Sprintf("@%%p st.release.sys.global.b%d [$0], $1;", bits)
	}
	asm := fmt.Sprintf("{\n\t.reg .pred %%p;\n\t.reg .b%d %%old;\n\tsetp.ne.b32 %%p, $2, 0;\n\t@%%p %s\n\t%s\n}", bits, aliasFence, ins)
	a := g.md.inlineAsm(types.Void, []types.Type{peer.Type(), storageType(d), types.I32}, asm, "l,"+cons+",r,~{memory}", true)
	g.cur.NewCall(a, peer, v, g.predicate(g.firstThread()))
}

// loadAcquireSys is ld.acquire.sys of a 32- or 64-bit integer at p.
func (g *gen) loadAcquireSys(p value.Value, t types.Type, bits int, cons string) value.Value {
	a := g.md.inlineAsm(t, []types.Type{p.Type()}, fmt.Sprintf("ld.acquire.sys.global.b%d $0, [$1];", bits), "="+cons+",l,~{memory}", true)
	return g.cur.NewCall(a, p)
}

// flagPreds are signal_wait's comparisons (signed, unsigned).
var flagPreds = map[string][2]enum.IPred{
	"eq": {enum.IPredEQ, enum.IPredEQ}, "ne": {enum.IPredNE, enum.IPredNE},
	"lt": {enum.IPredSLT, enum.IPredULT}, "le": {enum.IPredSLE, enum.IPredULE},
	"gt": {enum.IPredSGT, enum.IPredUGT}, "ge": {enum.IPredSGE, enum.IPredUGE},
}

// signalWait is signal_wait(ptr, value, cmp:): the elected thread spins on
// ld.acquire.sys of the local flag until the comparison holds, then the
// threads running the code meet at a barrier (which carries the acquire to
// every one of them).
func (g *gen) signalWait(op *ir.Op) {
	d := ir.ElemDType(op.Operands[0].Type)
	bits, cons := g.flagWord(d)
	flag := g.scalar(op.Operands[0])
	want := g.scalar(op.Operands[1])
	preds, ok := flagPreds[op.Attrs.String("cmp")]
	if !ok {
		g.failf("signal_wait: unknown comparison %q", op.Attrs.String("cmp"))
	}
	pred := preds[0]
	if d.IsUnsigned() {
		pred = preds[1]
	}
	spin, got, done := g.newBlock(), g.newBlock(), g.newBlock()
	g.cur.NewCondBr(g.firstThread(), spin, done)
	g.cur = spin
	v := g.loadAcquireSys(flag, storageType(d), bits, cons)
	g.cur.NewCondBr(g.cur.NewICmp(pred, v, want), got, spin)
	g.cur = got
	g.cur.NewCall(g.md.inlineAsm(types.Void, nil, aliasFence, "~{memory}", true))
	g.cur.NewBr(done)
	g.cur = done
	g.barrier()
}

// clusterBarrier is barrier.cluster with release/acquire at cluster scope,
// every thread of the CTA.
func (g *gen) clusterBarrier() {
	g.convergentAsm("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;")
	g.sync = smemState{}
}

// meshHasCluster reports a mesh with a cluster of more than one CTA.
func meshHasCluster(m *ir.Mesh) bool { return m.Dims[0]*m.Dims[1]*m.Dims[2] > 1 }

// deviceBarrierCluster reports whether op (a distributed_barrier) needs
// barrier.cluster: on a mesh without devices, with axis "cluster", or with
// neither axis nor group restricting it to devices on a mesh whose cluster
// has more than one CTA.
func deviceBarrierCluster(op *ir.Op) bool {
	m, _ := op.Operands[0].Type.(*ir.Mesh)
	if m == nil || m.Devices == 0 {
		return true
	}
	switch op.Attrs.String("axis") {
	case "cluster":
		return true
	case "device":
		return false
	}
	return meshHasCluster(m)
}

// deviceBarrier is distributed_barrier on a device mesh (axis "device" or
// none; axis "cluster" is the cluster's barrier): a CTA barrier, then the
// handshake of this program with program p of every rank of its group,
// then a CTA barrier, then barrier.cluster when the cluster is included
// and has more than one CTA.
//
// The handshake (the sync area of DeviceSyncBytes): lane j of warp 0
// takes ranks r = base + j, base + j + 32, ... of the group
// [base, base + size); for each it increments sent[p][r] (its own
// counter, s) and adds 1 to recv[p][me] on rank r with
// atom.add.release.sys; then, for each, spins with ld.acquire.sys until
// recv[p][r] - s >= 0 (as signed 32-bit: counters only grow, so they may
// wrap). Every pair of ranks counts its own barriers, so groups of
// different sizes mix. The release comes after a CTA barrier and the
// acquire before one: by the transitivity of the PTX model's causality
// order (bar.sync synchronises with bar.sync), every thread's writes
// before the barrier are visible to every thread of the peers after it.
func (g *gen) deviceBarrier(op *ir.Op) {
	if g.role != nil {
		g.failf("distributed_barrier inside a warp role (it needs every thread of the CTA)")
	}
	ms := g.needMesh()
	size := ms.world
	if n, ok := op.Attrs["group"].(int64); ok && n > 0 {
		size = int(n)
	}
	g.barrier()
	base := value.Value(i32c(0))
	if size != ms.world {
		base = g.cur.NewMul(g.cur.NewUDiv(ms.rank, i32c(int64(size))), i32c(int64(size)))
	}
	// this program's block of the sync area: sent at area, recv at area + world
	area := g.cur.NewGetElementPtr(types.I32, ms.sync, g.cur.NewMul(g.linearProgram(), i64c(int64(2*ms.world))))
	sent := func(r value.Value) value.Value {
		return g.cur.NewGetElementPtr(types.I32, area, g.cur.NewSExt(r, types.I64))
	}
	recv := func(r value.Value) value.Value {
		return g.cur.NewGetElementPtr(types.I32, area, g.cur.NewAdd(g.cur.NewSExt(r, types.I64), i64c(int64(ms.world))))
	}
	arrive := g.md.inlineAsm(types.Void, []types.Type{ptrTo(types.I32, asGlobal)},
		"{\n\t.reg .b32 %old;\n\t"+aliasFence+"\n\tatom.add.release.sys.global.u32 %old, [$0], 1;\n}", "l,~{memory}", true)
	g.overGroup(size, base, func(r value.Value) {
		p := sent(r)
		s := g.cur.NewAdd(g.cur.NewLoad(types.I32, p), i32c(1))
		g.cur.NewStore(s, p)
		g.cur.NewCall(arrive, g.offsetPtr(recv(ms.rank), g.peerDelta(r)))
	})
	g.overGroup(size, base, func(r value.Value) {
		s := g.cur.NewLoad(types.I32, sent(r))
		spin, got := g.newBlock(), g.newBlock()
		g.cur.NewBr(spin)
		g.cur = spin
		v := g.loadAcquireSys(recv(r), types.I32, 32, "r")
		g.cur.NewCondBr(g.cur.NewICmp(enum.IPredSGE, g.cur.NewSub(v, s), i32c(0)), got, spin)
		g.cur = got
		g.cur.NewCall(g.md.inlineAsm(types.Void, nil, aliasFence, "~{memory}", true))
	})
	g.barrier()
	if deviceBarrierCluster(op) {
		g.clusterBarrier()
	}
}

// overGroup runs body (given the rank r, i32) in lane j of warp 0 for
// r = base + j, base + j + 32, ... below base + size: one guarded block
// when size is at most 32, else a loop.
func (g *gen) overGroup(size int, b value.Value, body func(r value.Value)) {
	tid := g.tid
	if size <= 32 {
		in, done := g.newBlock(), g.newBlock()
		g.cur.NewCondBr(g.cur.NewICmp(enum.IPredULT, tid, i32c(int64(size))), in, done)
		g.cur = in
		body(g.cur.NewAdd(b, tid))
		g.cur.NewBr(done)
		g.cur = done
		return
	}
	pre := g.cur
	head, in, done := g.newBlock(), g.newBlock(), g.newBlock()
	pre.NewCondBr(g.cur.NewICmp(enum.IPredULT, tid, i32c(32)), head, done)
	g.cur = head
	j := g.cur.NewPhi(llvm.NewIncoming(tid, pre))
	g.cur.NewCondBr(g.cur.NewICmp(enum.IPredULT, j, i32c(int64(size))), in, done)
	g.cur = in
	body(g.cur.NewAdd(b, j))
	j.Incs = append(j.Incs, llvm.NewIncoming(g.cur.NewAdd(j, i32c(32)), g.cur))
	g.cur.NewBr(head)
	g.cur = done
}

// linearProgram is this program's linear id x + y*nx + z*nx*ny as an i64.
func (g *gen) linearProgram() value.Value {
	sreg := func(name string) value.Value {
		return g.cur.NewZExt(g.cur.NewCall(g.md.intrinsic("llvm.nvvm.read.ptx.sreg."+name, true, types.I32)), types.I64)
	}
	x, y, z := sreg("ctaid.x"), sreg("ctaid.y"), sreg("ctaid.z")
	nx, ny := sreg("nctaid.x"), sreg("nctaid.y")
	return g.cur.NewAdd(x, g.cur.NewMul(nx, g.cur.NewAdd(y, g.cur.NewMul(ny, z))))
}

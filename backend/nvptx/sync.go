package nvptx

import (
	"fmt"
	"slices"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// Warp roles, mbarriers, pipes and clusters (see doc.go, "TLE extensions").

// roleCtx is the warp role being emitted.
type roleCtx struct {
	name    string
	barID   int // named barrier (bar.sync barID, threads) of the role's threads
	threads int // threads running the role's body
}

// pipeRef is a lowered pipe: its place in shared memory.
type pipeRef struct {
	off    int // byte offset of the pipe in global_smem
	p      *ir.Pipe
	lay    gpu.PipeLayout
	closes bool // some pipe_close uses it: commits write the slot's closed flag
}

// slotRef is a slot handle: the slot index i % capacity.
type slotRef struct {
	pipe *pipeRef
	slot value.Value // i32
}

// barRef is an mbarrier (or element 0 of an array of them).
type barRef struct {
	off value.Value // i32 byte offset in global_smem
}

// smemBase is the i32 shared-window address of global_smem, computed once
// in the function's entry block.
func (g *gen) smemBase() value.Value {
	if g.smemBase32 == nil {
		cur := g.cur
		g.cur = g.fnEntry
		g.smemBase32 = g.cur.NewPtrToInt(g.md.sharedBase(), types.I32)
		g.cur = cur
	}
	return g.smemBase32
}

// smemAddr is the i32 shared-window address of byte off of global_smem.
func (g *gen) smemAddr(off value.Value) value.Value { return g.add(g.smemBase(), off) }

// convergentAsm is side-effecting inline asm that every thread of a group
// must execute together (barriers, setmaxnreg): its calls are marked
// convergent so that LLVM neither duplicates nor sinks them into divergent
// code.
func (g *gen) convergentAsm(asm string) {
	a := g.md.inlineAsm(types.Void, nil, asm, "~{memory}", true)
	g.md.convergent[a] = true
	g.cur.NewCall(a)
}

func (g *gen) namedBarrier(id, threads int) {
	g.convergentAsm(fmt.Sprintf("bar.sync %d, %d;", id, threads))
}

// index32 is an integer scalar operand as i32.
func (g *gen) index32(v *ir.Value) value.Value {
	return g.cast(g.scalar(v), ir.ElemDType(v.Type), ir.I32)
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// ownEntry generates region r in a new block after entry, with entry as
// the block atEntry puts its values in (the per-thread values a warp role
// or a loop body computes once, from its own tid, lane and warp) and a
// fresh cache of them; g's own are restored after. g.cur is left at the
// end of r.
func (g *gen) ownEntry(entry *llvm.Block, tid, lane, warp value.Value, r *ir.Block) {
	saved := struct {
		entry           *llvm.Block
		tid, lane, warp value.Value
		bases           map[*gpu.LinearLayout][]value.Value
	}{g.entry, g.tid, g.lane, g.warp, g.bases}
	g.entry, g.tid, g.lane, g.warp = entry, tid, lane, warp
	g.bases = map[*gpu.LinearLayout][]value.Value{}
	body := g.newBlock()
	g.cur = body
	g.block(r)
	entry.NewBr(body)
	g.entry, g.tid, g.lane, g.warp, g.bases = saved.entry, saved.tid, saved.lane, saved.warp, saved.bases
}

// ---- mbarrier primitives (inline asm: the same text through llc and libNVVM)

// electedAsm runs asm lines (each given the operands $0 = i32 address, and
// $2... = extra i32 values) in the current code's elected thread (thread 0
// of the CTA, or of the role).
func (g *gen) electedAsm(addr value.Value, lines []string, extra ...value.Value) {
	var sb strings.Builder
	sb.WriteString("{\n\t.reg .pred %p;\n\t.reg .b64 %st;\n\t.reg .b32 %z;\n\tsetp.ne.b32 %p, $1, 0;\n\tmov.b32 %z, 0;\n")
	for _, l := range lines {
		sb.WriteString("\t@%p " + l + "\n")
	}
	sb.WriteString("}")
	ptys := []types.Type{types.I32, types.I32}
	cons := []string{"r", "r"}
	args := []value.Value{addr, g.predicate(g.firstThread())}
	for _, x := range extra {
		ptys = append(ptys, types.I32)
		cons = append(cons, "r")
		args = append(args, x)
	}
	cons = append(cons, "~{memory}")
	g.cur.NewCall(g.md.inlineAsm(types.Void, ptys, sb.String(), strings.Join(cons, ","), true), args...)
}

// initBarriers initialises n mbarriers at addr, 8 bytes apart, with count
// arrivals each, zeroes the words [addr+zeroFrom, addr+zeroTo) and makes the
// initialisation visible (fence.mbarrier_init, then a barrier of the
// threads running this code).
func (g *gen) initBarriers(addr value.Value, n, count, zeroFrom, zeroTo int) {
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf("mbarrier.init.shared::cta.b64 [%s], %d;", plusOff(8*i), count))
	}
	for o := zeroFrom; o < zeroTo; o += 4 {
		lines = append(lines, fmt.Sprintf("st.shared.u32 [%s], %%z;", plusOff(o)))
	}
	lines = append(lines, "fence.mbarrier_init.release.cluster;")
	g.electedAsm(addr, lines)
	g.barrier()
}

// arrive is one arrival on the mbarrier at addr by the code running now (a
// program or a role): a barrier of its threads, so that every thread's
// shared-memory accesses so far are done, then the elected thread arrives
// (release semantics at CTA scope); with txBytes, the arrival also expects
// that many bytes of copy traffic.
func (g *gen) arrive(addr value.Value, txBytes value.Value, pre ...string) {
	g.barrier()
	lines := append([]string(nil), pre...)
	if txBytes != nil {
		lines = append(lines, "mbarrier.arrive.expect_tx.shared::cta.b64 %st, [$0], $2;")
		g.electedAsm(addr, lines, txBytes)
		return
	}
	lines = append(lines, "mbarrier.arrive.shared::cta.b64 %st, [$0];")
	g.electedAsm(addr, lines)
}

// waitParity blocks every thread until the phase of the mbarrier at addr
// with the given parity (i32, 0 or 1) has completed: a try_wait.parity loop
// (acquire semantics at CTA scope).
func (g *gen) waitParity(addr, parity value.Value) {
	a := g.md.inlineAsm(types.I32, []types.Type{types.I32, types.I32},
		"{\n\t.reg .pred %p;\n\tmbarrier.try_wait.parity.shared::cta.b64 %p, [$1], $2;\n\tselp.u32 $0, 1, 0, %p;\n}",
		"=r,r,r,~{memory}", true)
	loop := g.newBlock()
	done := g.newBlock()
	g.cur.NewBr(loop)
	g.cur = loop
	ok := g.cur.NewCall(a, addr, parity)
	g.cur.NewCondBr(g.cur.NewICmp(enum.IPredNE, ok, i32c(0)), done, loop)
	g.cur = done
}

// ---- barriers

func (g *gen) barrierAlloc(op *ir.Op) {
	b, ok := op.Results[0].Type.(*ir.Barrier)
	if !ok {
		g.failf("result %s is not a barrier", op.Results[0].Type)
	}
	off := g.smemOffset()
	count := int(op.Attrs.Int("count", 1))
	if count < 1 || count >= 1<<20 {
		g.failf("barrier count %d out of range 1..2^20-1", count)
	}
	g.initBarriers(g.smemAddr(i32c(int64(off))), max(b.Slots, 1), count, 0, 0)
	g.set(op.Results[0], &tval{bar: &barRef{off: i32c(int64(off))}})
}

func (g *gen) barrierIndex(op *ir.Op) {
	b := g.val(op.Operands[0]).bar
	i := g.index32(op.Operands[1])
	g.set(op.Results[0], &tval{bar: &barRef{off: g.add(b.off, g.mul(i, i32c(8)))}})
}

func (g *gen) barrierArrive(op *ir.Op) {
	b := g.val(op.Operands[0]).bar
	var tx value.Value
	if op.Kind == ir.OpBarrierExpect {
		tx = g.index32(op.Operands[1])
	}
	if g.roleArriveNeedsProxyFence(op) {
		g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "fence.proxy.async.shared::cta;", "~{memory}", true))
	}
	g.arrive(g.smemAddr(b.off), tx)
}

func (g *gen) barrierWait(op *ir.Op) {
	b := g.val(op.Operands[0]).bar
	g.waitParity(g.smemAddr(b.off), g.and(g.index32(op.Operands[1]), i32c(1)))
}

// barrierPhase is the parity of the barrier's current (incomplete) phase:
// 0 when the phase of parity 1 has completed (mbarrier.test_wait.parity
// does not block; a fresh barrier counts its phase before 0 as completed
// with parity 1), else 1.
func (g *gen) barrierPhase(op *ir.Op) {
	b := g.val(op.Operands[0]).bar
	a := g.md.inlineAsm(types.I32, []types.Type{types.I32},
		"{\n\t.reg .pred %p;\n\tmbarrier.test_wait.parity.shared::cta.b64 %p, [$1], 1;\n\tselp.u32 $0, 0, 1, %p;\n}",
		"=r,r,~{memory}", true)
	g.set(op.Results[0], &tval{s: g.cur.NewCall(a, g.smemAddr(b.off))})
}

// ---- pipes

func (g *gen) pipeAlloc(op *ir.Op) {
	p := op.Results[0].Type.(*ir.Pipe)
	ref := &pipeRef{off: g.smemOffset(), p: p, lay: gpu.LayoutPipe(p)}
	for _, u := range g.users[op.Results[0]] {
		if u.Kind == ir.OpPipeClose {
			ref.closes = true
		}
	}
	c := p.Capacity
	zeroTo := 0
	if ref.closes {
		zeroTo = ref.lay.Closed + 4*c
	}
	// full[0..c) and empty[0..c) are contiguous: 2c barriers of count 1
	g.initBarriers(g.smemAddr(i32c(int64(ref.off))), 2*c, 1, ref.lay.Closed, zeroTo)
	g.set(op.Results[0], &tval{pipe: ref})
}

// slotPhase returns slot i % capacity and phase (i / capacity) % 2.
func (g *gen) slotPhase(p *pipeRef, iv *ir.Value) (slot, phase value.Value) {
	i := g.index32(iv)
	c := p.p.Capacity
	if isPow2(c) {
		return g.and(i, i32c(int64(c-1))), g.and(g.lshr(i, i32c(int64(log2(c)))), i32c(1))
	}
	cc := i32c(int64(c))
	if x, ok := constInt(i); ok {
		return i32c(x % int64(c)), i32c(x / int64(c) % 2)
	}
	return g.cur.NewURem(i, cc), g.and(g.cur.NewUDiv(i, cc), i32c(1))
}

// barAddr is the address of the full (or empty) barrier of a slot.
func (g *gen) pipeBarAddr(p *pipeRef, base int, slot value.Value) value.Value {
	return g.smemAddr(g.add(i32c(int64(p.off+base)), g.mul(slot, i32c(8))))
}

// pipeAcquireWait: acquire(i) waits until slot i%cap was released for
// i-cap (the empty barrier's phase parity ((i/cap)&1)^1, so the first round
// passes at once); wait(i) until it was committed for i (the full barrier,
// parity (i/cap)&1).
func (g *gen) pipeAcquireWait(op *ir.Op) {
	p := g.val(op.Operands[0]).pipe
	slot, phase := g.slotPhase(p, op.Operands[1])
	if op.Kind == ir.OpPipeAcquire {
		g.waitParity(g.pipeBarAddr(p, p.lay.Empty, slot), g.xor(phase, i32c(1)))
	} else {
		g.waitParity(g.pipeBarAddr(p, p.lay.Full, slot), phase)
	}
	g.set(op.Results[0], &tval{slot: &slotRef{pipe: p, slot: slot}})
}

// acquiredBefore reports whether op's block acquires the same pipe at the
// same index before op (pipe_close then needs no acquire of its own).
func acquiredBefore(op *ir.Op) bool {
	for _, o := range op.Parent.Ops {
		if o == op {
			return false
		}
		if o.Kind == ir.OpPipeAcquire && o.Operands[0] == op.Operands[0] && o.Operands[1] == op.Operands[1] {
			return true
		}
	}
	return false
}

// pipeCommit: commit(i) and close(i) publish slot i%cap: the writer's
// threads synchronise, then its elected thread writes the closed flag (when
// the pipe is ever closed) and arrives on the full barrier. close(i)
// without an acquire of i earlier in its block acquires the slot first, as
// the interpreter does.
func (g *gen) pipeCommit(op *ir.Op) {
	p := g.val(op.Operands[0]).pipe
	slot, phase := g.slotPhase(p, op.Operands[1])
	closed := op.Kind == ir.OpPipeClose
	if closed && !acquiredBefore(op) {
		g.waitParity(g.pipeBarAddr(p, p.lay.Empty, slot), g.xor(phase, i32c(1)))
	}
	full := g.pipeBarAddr(p, p.lay.Full, slot)
	if g.roleArriveNeedsProxyFence(op) {
		// generic stores into the slot that another role reads through the
		// async proxy (a TMA store of a field)
		g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "fence.proxy.async.shared::cta;", "~{memory}", true))
	}
	if !p.closes {
		g.arrive(full, nil)
		return
	}
	flag := g.smemAddr(g.add(i32c(int64(p.off+p.lay.Closed)), g.mul(slot, i32c(4))))
	g.barrier()
	v := int64(0)
	if closed {
		v = 1
	}
	a := g.md.inlineAsm(types.Void, []types.Type{types.I32, types.I32, types.I32},
		fmt.Sprintf("{\n\t.reg .pred %%p;\n\t.reg .b64 %%st;\n\t.reg .b32 %%flag;\n\tsetp.ne.b32 %%p, $1, 0;\n\tmov.b32 %%flag, %d;\n\t@%%p st.shared.u32 [$2], %%flag;\n\t@%%p mbarrier.arrive.shared::cta.b64 %%st, [$0];\n}", v),
		"r,r,r,~{memory}", true)
	g.cur.NewCall(a, full, g.predicate(g.firstThread()), flag)
}

// pipeRelease: the reader's threads synchronise (their reads of the slot
// are done), then its elected thread arrives on the empty barrier.
func (g *gen) pipeRelease(op *ir.Op) {
	p := g.val(op.Operands[0]).pipe
	slot, _ := g.slotPhase(p, op.Operands[1])
	g.arrive(g.pipeBarAddr(p, p.lay.Empty, slot), nil)
}

func (g *gen) slotField(op *ir.Op) {
	s := g.val(op.Operands[0]).slot
	name := op.Attrs.String("name")
	md := op.Results[0].Type.(*ir.MemDesc)
	for f, fd := range s.pipe.p.Fields {
		if fd.Name == name {
			off := g.add(i32c(int64(s.pipe.off+s.pipe.lay.Field[f])), g.mul(s.slot, i32c(int64(s.pipe.lay.SlotStride[f]))))
			g.set(op.Results[0], &tval{mem: &memRef{off: off, desc: md}})
			return
		}
	}
	g.failf("the pipe has no field %q", name)
}

func (g *gen) slotClosed(op *ir.Op) {
	s := g.val(op.Operands[0]).slot
	if !s.pipe.closes {
		g.set(op.Results[0], &tval{s: i1c(false)})
		return
	}
	off := g.add(i32c(int64(s.pipe.off+s.pipe.lay.Closed)), g.mul(s.slot, i32c(4)))
	w := g.plainLoad(g.smemPtr(off, types.I8), asShared, wordB32, 1)[0]
	g.set(op.Results[0], &tval{s: g.cur.NewICmp(enum.IPredNE, w, i32c(0))})
}

func i1c(b bool) value.Value {
	if b {
		return intConst(types.I1, 1)
	}
	return intConst(types.I1, 0)
}

// ---- warp roles

// usesSetmaxnreg reports kernels with a role giving regs.
func usesSetmaxnreg(f *ir.Func) bool {
	found := false
	f.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpRole && op.Attrs.Int("regs", 0) > 0 {
			found = true
		}
	})
	return found
}

// warpSpecialize runs each role on its own warps: role k occupies
// gpu.RoleWarps(op)[k] warps from the sum of the previous roles' and runs
// its body on the first gpu.RoleActiveWarps of them, with thread and
// warp ids relative to its first warp (its tiles are laid out over its own
// warps), its own named barrier (id k+1) wherever the CTA would use bar.sync
// 0, and the address computations the CTA hoists into the function's entry
// hoisted into the role's entry instead. The CTA synchronises before and
// after the roles.
func (g *gen) warpSpecialize(op *ir.Op) {
	if g.role != nil {
		g.failf("warp_specialize inside a warp role")
	}
	roles := gpu.Roles(op)
	if len(roles) > 15 {
		g.failf("%d roles: at most 15 (named barriers 1..15)", len(roles))
	}
	if g.wsNeedsProxyFence(op) {
		// generic writes before the roles (alloc with init: a wgmma's
		// operand) that async-proxy readers in the roles consume: every
		// thread that wrote fences them once here, rather than the
		// reading role's every wgmma (wgmmaNeedsProxyFence)
		g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "fence.proxy.async.shared::cta;", "~{memory}", true))
		g.barrier()
	} else if !g.justSynced() {
		g.barrier() // shared memory and barrier initialisation before the roles
	}
	join := g.newBlock()
	first := 0
	tid, warp := g.tid, g.warp
	occupied := gpu.RoleWarps(op)
	g.checkRoleRegisters(roles, occupied)
	for k, r := range roles {
		active, padded := gpu.RoleActiveWarps(r), occupied[k]
		var in value.Value = g.cur.NewICmp(enum.IPredULT, warp, i32c(int64(first+padded)))
		if first > 0 {
			in = g.and1(g.cur.NewICmp(enum.IPredUGE, warp, i32c(int64(first))), in)
		}
		roleB, next := g.newBlock(), g.newBlock()
		g.cur.NewCondBr(in, roleB, next)
		g.cur = roleB
		if regs := int(r.Attrs.Int("regs", 0)); regs > 0 {
			if g.arch != "" && g.arch != "sm_90a" {
				panic(genError{ir.ErrorAt(r, "%s: regs %d needs sm_90a (setmaxnreg); the target is %s", r.Attrs.String("name"), regs, g.arch)})
			}
			g.setmaxnreg(regs)
		}
		if active < padded {
			body := g.newBlock()
			g.cur.NewCondBr(g.cur.NewICmp(enum.IPredULT, warp, i32c(int64(first+active))), body, join)
			g.cur = body
		}
		// the role's own entry (for hoisted values) and body
		g.role = &roleCtx{name: r.Attrs.String("name"), barID: k + 1, threads: 32 * active}
		g.sync = smemState{}
		g.ownEntry(g.cur, g.sub(tid, i32c(int64(32*first))), g.lane, g.sub(warp, i32c(int64(first))), r.Regions[0])
		g.cur.NewBr(join)
		g.role = nil
		g.curOp = op
		g.cur = next
		first += padded
	}
	g.cur.NewBr(join)
	g.cur = join
	g.barrier() // every role is done
}

// checkRoleRegisters refuses roles whose regs: ask for more registers than
// the SM has (ir.RoleRegisters): a setmaxnreg.inc would wait forever.
func (g *gen) checkRoleRegisters(roles []*ir.Op, occupied []int) {
	regs := make([]int, len(roles))
	any := false
	for k, r := range roles {
		regs[k] = int(r.Attrs.Int("regs", 0))
		any = any || regs[k] > 0
	}
	if total := ir.RoleRegisters(occupied, regs, g.nw); any && total > ir.SMRegisters {
		g.failf(ir.RoleRegistersTooMany, total, ir.EntryRegisters(g.nw), ir.SMRegisters)
	}
}

// setmaxnreg moves the warpgroup's register allocation to regs per thread:
// .dec below the cap the kernel starts with (65536 registers over its
// threads in units of 8, at most 248: ptxas gives a kernel using setmaxnreg
// the whole cap its maxntid and minctasm allow), .inc above it.
func (g *gen) setmaxnreg(regs int) {
	if regs < 24 || regs > 256 || regs%8 != 0 {
		g.failf("regs: %d: setmaxnreg takes a multiple of 8 in 24..256", regs)
	}
	cap := ir.EntryRegisters(g.nw) // 255 registers at most, allocated in units of 8
	switch {
	case regs < cap:
		g.convergentAsm(fmt.Sprintf("setmaxnreg.dec.sync.aligned.u32 %d;", regs))
	case regs > cap:
		g.convergentAsm(fmt.Sprintf("setmaxnreg.inc.sync.aligned.u32 %d;", regs))
	}
}

// ---- clusters

// shardID is the CTA's coordinate along a mesh axis (%cluster_ctaid).
func (g *gen) shardID(op *ir.Op) {
	axis := op.Attrs.Int("axis", 0)
	if axis == 3 {
		g.shardDevice(op)
		return
	}
	a := g.md.inlineAsm(types.I32, nil, fmt.Sprintf("mov.u32 $0, %%cluster_ctaid.%c;", "xyz"[axis]), "=r", false)
	g.set(op.Results[0], &tval{s: g.cur.NewCall(a)})
}

// remote maps a buffer to the same buffer of CTA rank of the cluster (mapa):
// the view's addresses are i32 shared::cluster addresses.
func (g *gen) remote(op *ir.Op) {
	src := g.val(op.Operands[0]).mem
	if src.cluster {
		g.failf("remote of a remote view")
	}
	rank := g.index32(op.Operands[1])
	a := g.md.inlineAsm(types.I32, []types.Type{types.I32, types.I32}, "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r", false)
	addr := g.cur.NewCall(a, g.smemAddr(src.off), rank)
	g.set(op.Results[0], &tval{mem: &memRef{off: addr, desc: op.Results[0].Type.(*ir.MemDesc), cluster: true}})
}

// distributedBarrier synchronises every thread of every CTA of the
// cluster, with release/acquire semantics at cluster scope; on a device
// mesh, unless its axis is "cluster", it is a device barrier
// (deviceBarrier).
func (g *gen) distributedBarrier(op *ir.Op) {
	if m, ok := op.Operands[0].Type.(*ir.Mesh); ok && m.Devices > 0 && op.Attrs.String("axis") != "cluster" {
		g.deviceBarrier(op)
		return
	}
	if g.role != nil {
		g.failf("distributed_barrier inside a warp role (it needs every thread of the CTA)")
	}
	g.convergentAsm("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;")
	g.sync = smemState{}
}

// plusOff is the asm address $0 + off.
func plusOff(off int) string {
	if off == 0 {
		return "$0"
	}
	return fmt.Sprintf("$0+%d", off)
}

// clusterLoad reads n words at a shared::cluster address (i32).
func (g *gen) clusterLoad(addr value.Value, w word, n int) []value.Value {
	var regs, cons []string
	for i := 0; i < n; i++ {
		regs = append(regs, fmt.Sprintf("$%d", i))
		cons = append(cons, "="+w.cons)
	}
	dst, vs := vecOperand(regs)
	cons = append(cons, "r", "~{memory}")
	ret := asmRet(slices.Repeat([]types.Type{w.t}, n))
	a := g.md.inlineAsm(ret, []types.Type{types.I32}, fmt.Sprintf("ld.shared::cluster%s.%s %s, [$%d];", vs, w.ptx, dst, n), strings.Join(cons, ","), true)
	return g.asmOuts(g.cur.NewCall(a, addr), n)
}

// clusterStore writes words at a shared::cluster address (i32).
func (g *gen) clusterStore(addr value.Value, w word, vals []value.Value) {
	var regs []string
	cons := []string{"r"}
	ptys := []types.Type{types.I32}
	for i := range vals {
		regs = append(regs, fmt.Sprintf("$%d", i+1))
		cons = append(cons, w.cons)
		ptys = append(ptys, w.t)
	}
	src, vs := vecOperand(regs)
	cons = append(cons, "~{memory}")
	a := g.md.inlineAsm(types.Void, ptys, fmt.Sprintf("st.shared::cluster%s.%s [$0], %s;", vs, w.ptx, src), strings.Join(cons, ","), true)
	g.cur.NewCall(a, append([]value.Value{addr}, vals...)...)
}

// justSynced reports whether the current block's last instruction touching
// memory is a CTA barrier (outside roles), so a second one would be
// redundant.
func (g *gen) justSynced() bool {
	if g.role != nil || len(g.sync.reads)+len(g.sync.writes) > 0 {
		return false
	}
	for i := len(g.cur.Insts) - 1; i >= 0; i-- {
		switch in := g.cur.Insts[i].(type) {
		case *llvm.InstCall:
			if f, ok := in.Callee.(*llvm.Func); ok && f.Name() == "llvm.nvvm.barrier0" {
				return true
			}
			if !g.md.pure[in.Callee] {
				return false
			}
		case *llvm.InstLoad, *llvm.InstStore, *llvm.InstAtomicRMW, *llvm.InstCmpXchg, *llvm.InstFence:
			return false
		}
	}
	return false
}

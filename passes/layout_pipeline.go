package passes

import (
	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// PipelineLoops software-pipelines the dot operand loads of f's loops with
// cp.async over stages shared-memory slots (Triton's pipeliner, for the
// shape the layout pass produces): in a loop whose body loads a tile through
// a loop-carried pointer (advanced by a loop-invariant step, masked by a
// condition on the induction variable only, other = 0) and stages it for a
// dot (alloc + local_load) or a wgmma (alloc read by it), the load becomes an asynchronous copy issued
// stages-1 iterations ahead into a ring of buffers, and the body reads the
// slot of the current iteration after waiting for its copy group. One
// barrier per iteration remains. It runs after AssignLayouts and before
// AllocateShared; stages < 2 (or a kernel's num_stages attribute < 2) turns
// it off.
func PipelineLoops(m *ir.Module, stages int) error {
	for _, f := range m.Funcs {
		s := stages
		if v := f.Attrs.Int(gpu.AttrPipelineStages, 0); v > 0 {
			s = int(v)
		}
		if s < 2 {
			continue
		}
		var loops []*ir.Op
		f.Walk(func(op *ir.Op) {
			if op.Kind == ir.OpFor && layInnermost(op) {
				loops = append(loops, op)
			}
		})
		for _, l := range loops {
			ls := s
			if n, ok := l.Attrs["num_stages"].(int64); ok {
				ls = int(n) // range(..., num_stages: n)
			}
			if _, ok := l.Attrs["while"]; ok || ls < 2 {
				// a loop that may stop before its bound: copies of later
				// iterations could read past what the kernel reads
				continue
			}
			if laySyncsDevices(l) {
				// a copy issued an iteration early would read before the
				// signal_wait or device barrier that orders the read
				continue
			}
			pipelineLoop(f, l, ls)
		}
		DeadCode(f)
	}
	return nil
}

// laySyncsDevices reports a loop whose body waits for other devices (a
// signal_wait, or a distributed_barrier on a device mesh): its loads read
// what those order and cannot move to an earlier iteration.
func laySyncsDevices(loop *ir.Op) bool {
	found := false
	for _, r := range loop.Regions {
		r.Walk(func(o *ir.Op) {
			switch o.Kind {
			case ir.OpSignalWait:
				found = true
			case ir.OpDistributedBarrier:
				if m, ok := o.Operands[0].Type.(*ir.Mesh); ok && m.Devices > 0 {
					found = true
				}
			}
		})
	}
	return found
}

func layInnermost(op *ir.Op) bool {
	inner := true
	for _, r := range op.Regions {
		r.Walk(func(o *ir.Op) {
			if o.Kind == ir.OpFor {
				inner = false
			}
		})
	}
	return inner
}

type pipeCand struct {
	load, alloc *ir.Op
	arg         int       // iter arg index (in inits) of the pointer
	inc         *ir.Value // loop-invariant pointer step
	mask        *ir.Value
	buf         *ir.Value // the ring of slots
}

// layBlockWithin reports whether block blk is b or nested inside it.
func layBlockWithin(blk, b *ir.Block) bool {
	for blk != nil {
		if blk == b {
			return true
		}
		if blk.Parent == nil {
			return false
		}
		blk = blk.Parent.Parent
	}
	return false
}

// layDefinedIn reports whether v is defined (nested) inside block b: by an
// op there, or as the argument of a block there.
func layDefinedIn(v *ir.Value, b *ir.Block) bool {
	if v.Def != nil {
		return layBlockWithin(v.Def.Parent, b)
	}
	return layBlockWithin(v.Block, b)
}

// onlyFrom reports whether v is computed in body by pure region-free ops
// from iv and values defined outside body.
func layOnlyFrom(v, iv *ir.Value, body *ir.Block) bool {
	if v == iv || !layDefinedIn(v, body) {
		return true
	}
	if v.Def == nil || len(v.Def.Regions) > 0 || !(v.Def.Kind.IsPure() || v.Def.Kind == gpu.OpConvertLayout) {
		return false
	}
	for _, o := range v.Def.Operands {
		if !layOnlyFrom(o, iv, body) {
			return false
		}
	}
	return true
}

func layIsZeroConst(v *ir.Value) bool {
	if v.Def == nil || v.Def.Kind != ir.OpConstant {
		return false
	}
	switch x := v.Def.Attrs["value"].(type) {
	case int64:
		return x == 0
	case float64:
		return x == 0
	case bool:
		return !x
	}
	return false
}

// pipelineLoop pipelines the loads of one innermost loop that qualify (see
// PipelineLoops): the rings and the prologue's copies before the loop, a
// slot counter carried by it, and in the body the wait and the reads of the
// current slot, then the refill of the slot the previous iteration read.
func pipelineLoop(f *ir.Func, loop *ir.Op, stages int) {
	p := newPipeliner(f, loop, stages)
	p.findCandidates()
	if len(p.cands) == 0 {
		return
	}
	p.prologue()
	cnt := p.addSlotCounter()
	lastRead := p.readSlots(cnt)
	p.refillSlots(cnt, lastRead)
	// the old loads and stagings go; the counter advances
	for _, c := range p.cands {
		c.alloc.Remove()
		c.load.Remove()
	}
	p.advanceSlotCounter(cnt)
	// nothing may reuse the rings' bytes while copies are in flight
	drain := &ir.Op{Kind: gpu.OpAsyncWait, Attrs: ir.Attrs{"pending": int64(0)}, Pos: loop.Pos}
	layInsertAfter(loop, drain)
}

// pipeliner is the state of one loop's pipelining.
type pipeliner struct {
	f      *ir.Func
	loop   *ir.Op
	stages int
	body   *ir.Block
	iv     *ir.Value // the induction variable
	y      *ir.Op    // the body's yield
	uses   map[*ir.Value][]*ir.Op
	cands  []*pipeCand
}

func newPipeliner(f *ir.Func, loop *ir.Op, stages int) *pipeliner {
	body := loop.Regions[0]
	p := &pipeliner{f: f, loop: loop, stages: stages, body: body, iv: body.Args[0], y: body.Terminator(),
		uses: map[*ir.Value][]*ir.Op{}}
	f.Walk(func(op *ir.Op) {
		for _, v := range op.Operands {
			p.uses[v] = append(p.uses[v], op)
		}
	})
	return p
}

// findCandidates collects the body's loads that can become asynchronous
// copies into a ring.
func (p *pipeliner) findCandidates() {
	axes := gpu.AnalyzeAxes(p.f)
	for _, op := range p.body.Ops {
		if c := p.candidate(op, axes); c != nil {
			p.cands = append(p.cands, c)
		}
	}
}

// candidate describes the load op as a pipelining candidate, or is nil
// when it is not one: a tile load of global memory through a loop-carried
// or iv-computed pointer, staged into a buffer only local_load or a waited
// wgmma reads, masked by a condition on iv only, other = 0, in cp.async
// sized groups consecutive in the buffer.
func (p *pipeliner) candidate(op *ir.Op, axes *gpu.AxisAnalysis) *pipeCand {
	if op.Kind != ir.OpLoad || !layIsTile(op.Operands[0]) {
		return nil
	}
	if op.Attrs.String("cache_modifier") != "" || op.Attrs.String("eviction_policy") != "" || op.Attrs.Bool("volatile") {
		return nil // cp.async would drop the load's qualifiers
	}
	ptr := op.Operands[0]
	pt, ok := layTileOf(ptr).Elem.(*ir.Pointer)
	if !ok || pt.Space != ir.Global {
		return nil
	}
	arg, inc, ok := p.pointerStep(op)
	if !ok {
		return nil
	}
	alloc, md := p.stagingAlloc(op)
	if alloc == nil {
		return nil
	}
	var mask *ir.Value
	if len(op.Operands) > 1 {
		mask = op.Operands[1]
		if !layOnlyFrom(mask, p.iv, p.body) {
			return nil
		}
	}
	if len(op.Operands) > 2 && !layIsZeroConst(op.Operands[2]) {
		return nil
	}
	// cp.async moves 4, 8 or 16 bytes with one mask bit
	t := layTileOf(ptr)
	ll, err := gpu.Linear(t.Layout, t.Shape)
	if err != nil {
		return nil
	}
	eb := pt.Elem.Bytes()
	vec, dim := gpu.AccessVec(ll, axes.Info(ptr), eb)
	if vec*eb < 4 {
		return nil
	}
	// a copy moves vec elements along dim: they must be consecutive in
	// the buffer too (its fastest dimension)
	if sh, ok := md.Layout.(*gpu.Shared); ok && vec > 1 && len(sh.Order) > 0 && sh.Order[0] != dim {
		return nil
	}
	if mask != nil && axes.Info(mask).Const[dim] < vec {
		return nil
	}
	return &pipeCand{load: op, alloc: alloc, arg: arg, inc: inc, mask: mask}
}

// pointerStep tells how a copy finds the pointer of a later iteration's
// load: a loop-carried pointer (iter arg arg) advanced by a loop-invariant
// step inc and used by nothing else, or (arg -1) one computed from the
// induction variable, recomputed for the iteration a copy is issued for.
func (p *pipeliner) pointerStep(load *ir.Op) (arg int, inc *ir.Value, ok bool) {
	ptr := load.Operands[0]
	switch {
	case ptr.Def == nil && ptr.Block == p.body && ptr.Index > 0:
		arg = ptr.Index - 1
		next := p.y.Operands[arg]
		if next.Def == nil || next.Def.Kind != ir.OpAddPtr || next.Def.Operands[0] != ptr || !layOnlyFrom(next.Def.Operands[1], nil, p.body) {
			return 0, nil, false
		}
		for _, u := range p.uses[ptr] {
			if u != load && u != next.Def {
				return 0, nil, false
			}
		}
		return arg, next.Def.Operands[1], true
	case layOnlyFrom(ptr, p.iv, p.body):
		return -1, nil, true
	}
	return 0, nil, false
}

// stagingAlloc is the alloc in the body that stages load's tile, with its
// buffer type, when that is all the load feeds and the buffer is only read
// by local_load (mma.sync) or by wgmma as a or b with a wgmma_wait(0) in the
// body completing it (layWaitedInBody): the refill of a slot goes right
// after its last reader, which for an asynchronous wgmma must have finished
// by then. It is nil otherwise.
func (p *pipeliner) stagingAlloc(load *ir.Op) (*ir.Op, *ir.MemDesc) {
	if len(p.uses[load.Results[0]]) != 1 {
		return nil, nil
	}
	alloc := p.uses[load.Results[0]][0]
	if alloc.Kind != ir.OpAlloc || alloc.Parent != p.body || alloc.Attrs.Bool(gpu.AttrRoundTF32) {
		return nil, nil
	}
	md, ok := alloc.Results[0].Type.(*ir.MemDesc)
	if !ok || md.Layout == nil {
		return nil, nil
	}
	for _, u := range p.uses[alloc.Results[0]] {
		switch {
		case u.Kind == ir.OpLocalLoad:
		case u.Kind == ir.OpWgmma && u.Operands[2] != alloc.Results[0] && u.Parent == p.body && layWaitedInBody(p.body):
		default:
			return nil, nil
		}
	}
	return alloc, md
}

// opList collects new ops, at the loop's position, to be inserted
// together.
type opList struct {
	f   *ir.Func
	pos diag.Pos
	ops []*ir.Op
}

func (p *pipeliner) newOpList() *opList { return &opList{f: p.f, pos: p.loop.Pos} }

// emit appends an op and returns its result (nil for a type t of nil: no
// result).
func (l *opList) emit(kind ir.Kind, t ir.Type, attrs ir.Attrs, ops ...*ir.Value) *ir.Value {
	op := &ir.Op{Kind: kind, Operands: ops, Attrs: attrs, Pos: l.pos}
	if op.Attrs == nil {
		op.Attrs = ir.Attrs{}
	}
	if t != nil {
		op.Results = []*ir.Value{l.f.NewValue(t, "", op, nil, 0)}
	}
	l.ops = append(l.ops, op)
	if t != nil {
		return op.Results[0]
	}
	return nil
}

// i32 appends the i32 constant x.
func (l *opList) i32(x int64) *ir.Value {
	return l.emit(ir.OpConstant, ir.I32, ir.Attrs{"value": x})
}

// cloneAt appends to l a clone of v, computed from iv (and invariants),
// with iv := at.
func (p *pipeliner) cloneAt(v, at *ir.Value, l *opList) *ir.Value {
	memo := map[*ir.Value]*ir.Value{p.iv: at}
	var rec func(v *ir.Value) *ir.Value
	rec = func(v *ir.Value) *ir.Value {
		if r, ok := memo[v]; ok {
			return r
		}
		if !layDefinedIn(v, p.body) {
			return v
		}
		ops := make([]*ir.Value, len(v.Def.Operands))
		for i, o := range v.Def.Operands {
			ops[i] = rec(o)
		}
		attrs := ir.Attrs{}
		for k, a := range v.Def.Attrs {
			attrs[k] = a
		}
		r := l.emit(v.Def.Kind, v.Type, attrs, ops...)
		memo[v] = r
		return r
	}
	return rec(v)
}

// copyMask appends to l the mask of c's copy for the iteration at: the
// load's mask at iv = at, and at < ub.
func (p *pipeliner) copyMask(c *pipeCand, at *ir.Value, l *opList) *ir.Value {
	pt := layTileOf(c.load.Operands[0])
	mt := &ir.Tile{Shape: pt.Shape, Elem: ir.I1, Layout: pt.Layout}
	pred := "lt"
	valid := l.emit(ir.OpCmp, ir.I1, ir.Attrs{"pred": pred}, at, p.loop.Operands[1])
	vs := l.emit(ir.OpSplat, mt, nil, valid)
	if c.mask == nil {
		return vs
	}
	m := p.cloneAt(c.mask, at, l)
	if !SameLayout(layTileOf(m).Layout, mt.Layout, mt.Shape) {
		m = l.emit(gpu.OpConvertLayout, mt, nil, m)
	}
	return l.emit(ir.OpAnd, mt, nil, m, vs)
}

// prologue emits before the loop the rings (stages slots each) and the
// copies of the first stages-1 iterations, and starts the loop-carried
// pointers stages-1 steps ahead.
func (p *pipeliner) prologue() {
	loop, stages := p.loop, p.stages
	pre := p.newOpList()
	for _, c := range p.cands {
		md := c.alloc.Results[0].Type.(*ir.MemDesc)
		sh := md.Layout.(*gpu.Shared)
		order := []int{}
		for _, d := range sh.Order {
			order = append(order, d+1)
		}
		order = append(order, 0)
		ring := &ir.MemDesc{Shape: append([]int{stages}, md.Shape...), Elem: md.Elem, Order: order, Space: ir.Shared,
			Layout: &gpu.Shared{Vec: sh.Vec, PerPhase: sh.PerPhase, MaxPhase: sh.MaxPhase, Order: order, BlockCols: sh.BlockCols}}
		c.buf = pre.emit(ir.OpAlloc, ring, nil)
	}
	lb, step, ivT := loop.Operands[0], loop.Operands[2], p.iv.Type
	ptrs := make([]*ir.Value, len(p.cands))
	for i, c := range p.cands {
		if c.arg >= 0 {
			ptrs[i] = loop.Operands[3+c.arg]
		}
	}
	for s := 0; s < stages-1; s++ {
		at := pre.emit(ir.OpAdd, ivT, nil, lb, pre.emit(ir.OpMul, ivT, nil, step, pre.emit(ir.OpConstant, ivT, ir.Attrs{"value": int64(s)})))
		for i, c := range p.cands {
			view := pre.emit(ir.OpMemIndex, laySliceDesc(c.buf), nil, c.buf, pre.i32(int64(s)))
			if c.arg < 0 {
				pre.emit(gpu.OpAsyncCopy, nil, nil, p.cloneAt(c.load.Operands[0], at, pre), view, p.copyMask(c, at, pre))
				continue
			}
			pre.emit(gpu.OpAsyncCopy, nil, nil, ptrs[i], view, p.copyMask(c, at, pre))
			inc := p.cloneAt(c.inc, at, pre)
			ptrs[i] = pre.emit(ir.OpAddPtr, ptrs[i].Type, nil, ptrs[i], inc)
		}
		pre.emit(gpu.OpAsyncCommit, nil, nil)
	}
	for _, op := range pre.ops {
		layInsertBefore(loop, op)
	}
	for i, c := range p.cands {
		if c.arg >= 0 {
			loop.Operands[3+c.arg] = ptrs[i]
		}
	}
}

// addSlotCounter adds the loop-carried iteration counter, i % stages, the
// slot the iteration reads, starting at 0, and returns its block argument.
func (p *pipeliner) addSlotCounter() *ir.Value {
	f, loop := p.f, p.loop
	zero := &ir.Op{Kind: ir.OpConstant, Attrs: ir.Attrs{"value": int64(0)}, Pos: loop.Pos}
	zero.Results = []*ir.Value{f.NewValue(ir.I32, "", zero, nil, 0)}
	layInsertBefore(loop, zero)
	loop.Operands = append(loop.Operands, zero.Results[0])
	cnt := f.AddBlockArg(p.body, ir.I32, "slot")
	loop.Results = append(loop.Results, f.NewValue(ir.I32, "", loop, nil, len(loop.Results)))
	return cnt
}

// readSlots starts the body with the wait for the current slot's copy
// group and its views, which the stagings' readers now read, and returns
// the last of those reads (after the barrier that orders them behind the
// previous iteration's reads).
func (p *pipeliner) readSlots(cnt *ir.Value) *ir.Op {
	body := p.body
	head := p.newOpList()
	head.emit(gpu.OpAsyncWait, nil, ir.Attrs{"pending": int64(p.stages - 2)})
	rslot := cnt // the slot of this iteration, i % stages, carried
	for _, c := range p.cands {
		view := head.emit(ir.OpMemIndex, laySliceDesc(c.buf), nil, c.buf, rslot)
		for _, u := range p.uses[c.alloc.Results[0]] {
			for j, o := range u.Operands {
				if o == c.alloc.Results[0] {
					u.Operands[j] = view
				}
			}
		}
	}
	for i := len(head.ops) - 1; i >= 0; i-- {
		head.ops[i].Parent = body
		body.Ops = append([]*ir.Op{head.ops[i]}, body.Ops...)
	}
	lastRead := head.ops[len(head.ops)-1]
	for _, c := range p.cands {
		for _, u := range p.uses[c.alloc.Results[0]] {
			if u.Parent == body && layIndexOf(body, u) > layIndexOf(body, lastRead) {
				lastRead = u
			}
		}
	}
	return lastRead
}

// refillSlots issues, after lastRead, the copies of iteration i + stages - 1
// into the slot the previous iteration read, (i + stages - 1) % stages.
func (p *pipeliner) refillSlots(cnt *ir.Value, lastRead *ir.Op) {
	stages, ivT, step := p.stages, p.iv.Type, p.loop.Operands[2]
	tail := p.newOpList()
	te := tail.emit
	wslot := te(ir.OpSelect, ir.I32, nil, te(ir.OpCmp, ir.I1, ir.Attrs{"pred": "eq"}, cnt, tail.i32(0)),
		tail.i32(int64(stages-1)), te(ir.OpSub, ir.I32, nil, cnt, tail.i32(1)))
	at := te(ir.OpAdd, ivT, nil, p.iv, te(ir.OpMul, ivT, nil, step, te(ir.OpConstant, ivT, ir.Attrs{"value": int64(stages - 1)})))
	for _, c := range p.cands {
		view := te(ir.OpMemIndex, laySliceDesc(c.buf), nil, c.buf, wslot)
		src := c.load.Operands[0]
		if c.arg < 0 {
			src = p.cloneAt(src, at, tail)
		}
		te(gpu.OpAsyncCopy, nil, ir.Attrs{gpu.AttrRingCopy: true}, src, view, p.copyMask(c, at, tail))
	}
	te(gpu.OpAsyncCommit, nil, nil)
	anchor := lastRead
	for _, op := range tail.ops {
		layInsertAfter(anchor, op)
		anchor = op
	}
}

// advanceSlotCounter yields the next slot, (cnt + 1) % stages.
func (p *pipeliner) advanceSlotCounter(cnt *ir.Value) {
	adv := p.newOpList()
	ae := adv.emit
	n1 := ae(ir.OpAdd, ir.I32, nil, cnt, adv.i32(1))
	next := ae(ir.OpSelect, ir.I32, nil, ae(ir.OpCmp, ir.I1, ir.Attrs{"pred": "eq"}, n1, adv.i32(int64(p.stages))), adv.i32(0), n1)
	for _, op := range adv.ops {
		layInsertBefore(p.y, op)
	}
	p.y.Operands = append(p.y.Operands, next)
}

// layWaitedInBody reports whether a wgmma_wait(0) at the top of body
// completes a wgmma of the body in one iteration before the refill of the
// next, which goes right after the wgmma: a wait after it, or one before it
// (a product whose wait DotToWgmma deferred past its iteration: the next
// iteration's earlier wait completes it).
func layWaitedInBody(body *ir.Block) bool {
	for _, o := range body.Ops {
		if o.Kind == ir.OpWgmmaWait && o.Attrs.Int("pending", 0) == 0 {
			return true
		}
	}
	return false
}

func layIndexOf(b *ir.Block, op *ir.Op) int {
	for i, o := range b.Ops {
		if o == op {
			return i
		}
	}
	return -1
}

// sliceDesc is the view of one slot of a ring.
func laySliceDesc(buf *ir.Value) *ir.MemDesc {
	md := buf.Type.(*ir.MemDesc)
	c := &ir.MemDesc{Shape: md.Shape[1:], Elem: md.Elem, Space: md.Space}
	for _, d := range md.Order {
		if d != 0 {
			c.Order = append(c.Order, d-1)
		}
	}
	if sh, ok := md.Layout.(*gpu.Shared); ok {
		c.Layout = dropLeading(sh)
	}
	return c
}

func init() {
	// The GPU passes' own ops: Verify checks their structure and operand
	// dominance, the backend their meaning.
	for _, k := range []ir.Kind{gpu.OpConvertLayout, gpu.OpAsyncCopy, gpu.OpAsyncCommit, gpu.OpAsyncWait} {
		ir.RegisterKind(k, nil)
	}
}

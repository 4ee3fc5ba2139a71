package passes

import (
	"github.com/tlego/tle/tle/ir"
)

// Ops of the software pipeline (cp.async), created by PipelineLoops.
const (
	// OpAsyncCopy (ptrs, buf [, mask]) copies a tile of global memory into a
	// shared buffer view asynchronously (cp.async); masked-off elements are
	// zero-filled. It completes at an OpAsyncWait.
	OpAsyncCopy ir.Kind = "async_copy"
	// OpAsyncCommit () closes the group of copies issued since the last one.
	OpAsyncCommit ir.Kind = "async_commit"
	// OpAsyncWait () {pending} waits until at most pending groups of this
	// thread are in flight; the next shared read is preceded by a barrier.
	OpAsyncWait ir.Kind = "async_wait"
)

// AttrRingCopy (bool, on an async_copy in a pipelined loop's body) says the
// copy refills the slot the previous iteration read: a barrier in this
// iteration, before the copy, orders it after those reads (the backend adds
// one when none came first). Copies without it (the prologue's, async
// loads) wait like any shared-memory write for earlier reads of the bytes.
const AttrRingCopy = "ring_copy"

// AttrPipelineStages (int64, on a kernel) overrides the number of stages.
const AttrPipelineStages = "num_stages"

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
		if v := f.Attrs.Int(AttrPipelineStages, 0); v > 0 {
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
			pipelineLoop(f, l, s)
		}
		DeadCode(f)
	}
	return nil
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

// within reports whether op is (nested) inside block b.
func layWithin(op *ir.Op, b *ir.Block) bool {
	for blk := op.Parent; blk != nil; {
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

func layDefinedIn(v *ir.Value, b *ir.Block) bool {
	if v.Def != nil {
		return layWithin(v.Def, b)
	}
	for blk := v.Block; blk != nil; {
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

// onlyFrom reports whether v is computed in body by pure region-free ops
// from iv and values defined outside body.
func layOnlyFrom(v, iv *ir.Value, body *ir.Block) bool {
	if v == iv || !layDefinedIn(v, body) {
		return true
	}
	if v.Def == nil || len(v.Def.Regions) > 0 || !(v.Def.Kind.IsPure() || v.Def.Kind == OpConvertLayout) {
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

func pipelineLoop(f *ir.Func, loop *ir.Op, stages int) {
	body := loop.Regions[0]
	iv := body.Args[0]
	y := body.Terminator()
	uses := map[*ir.Value][]*ir.Op{}
	f.Walk(func(op *ir.Op) {
		for _, v := range op.Operands {
			uses[v] = append(uses[v], op)
		}
	})
	axes := AnalyzeAxes(f)
	var cands []*pipeCand
	for _, op := range body.Ops {
		if op.Kind != ir.OpLoad || !layIsTile(op.Operands[0]) {
			continue
		}
		p := op.Operands[0]
		pt, ok := layTileOf(p).Elem.(*ir.Pointer)
		if !ok || pt.Space != ir.Global {
			continue
		}
		arg := -1
		var inc *ir.Value
		switch {
		case p.Def == nil && p.Block == body && p.Index > 0:
			// a loop-carried pointer advanced by a loop-invariant step,
			// used by nothing else
			arg = p.Index - 1
			next := y.Operands[arg]
			if next.Def == nil || next.Def.Kind != ir.OpAddPtr || next.Def.Operands[0] != p || !layOnlyFrom(next.Def.Operands[1], nil, body) {
				continue
			}
			okUses := true
			for _, u := range uses[p] {
				if u != op && u != next.Def {
					okUses = false
				}
			}
			if !okUses {
				continue
			}
			inc = next.Def.Operands[1]
		case layOnlyFrom(p, iv, body):
			// a pointer computed from the induction variable: recomputed
			// for the iteration a copy is issued for
		default:
			continue
		}
		if len(uses[op.Results[0]]) != 1 {
			continue
		}
		alloc := uses[op.Results[0]][0]
		if alloc.Kind != ir.OpAlloc || alloc.Parent != body {
			continue
		}
		md, ok := alloc.Results[0].Type.(*ir.MemDesc)
		if !ok || md.Layout == nil {
			continue
		}
		// read by local_load (mma.sync), or by wgmma as a or b when a
		// wgmma_wait(0) later in the body completes it: the refill of a
		// slot goes right after its last reader, which for an asynchronous
		// wgmma must have finished by the next iteration's barrier
		allLL := true
		for _, u := range uses[alloc.Results[0]] {
			switch {
			case u.Kind == ir.OpLocalLoad:
			case u.Kind == ir.OpWgmma && u.Operands[2] != alloc.Results[0] && u.Parent == body && layWaitedInBody(body, u):
			default:
				allLL = false
			}
		}
		if !allLL {
			continue
		}
		var mask *ir.Value
		if len(op.Operands) > 1 {
			mask = op.Operands[1]
			if !layOnlyFrom(mask, iv, body) {
				continue
			}
		}
		if len(op.Operands) > 2 && !layIsZeroConst(op.Operands[2]) {
			continue
		}
		// cp.async moves 4, 8 or 16 bytes with one mask bit
		t := layTileOf(p)
		ll, err := Linear(t.Layout, t.Shape)
		if err != nil {
			continue
		}
		eb := pt.Elem.Bytes()
		vec, dim := AccessVec(ll, axes.Info(p), eb)
		if vec*eb < 4 {
			continue
		}
		// a copy moves vec elements along dim: they must be consecutive in
		// the buffer too (its fastest dimension)
		if sh, ok := md.Layout.(*Shared); ok && vec > 1 && len(sh.Order) > 0 && sh.Order[0] != dim {
			continue
		}
		if mask != nil && axes.Info(mask).Const[dim] < vec {
			continue
		}
		cands = append(cands, &pipeCand{load: op, alloc: alloc, arg: arg, inc: inc, mask: mask})
	}
	if len(cands) == 0 {
		return
	}

	b := &ir.Builder{Func: f, Block: loop.Parent}
	// emit before the loop: the rings and the prologue
	var pre []*ir.Op
	emit := func(kind ir.Kind, t ir.Type, attrs ir.Attrs, ops ...*ir.Value) *ir.Value {
		op := &ir.Op{Kind: kind, Operands: ops, Attrs: attrs, Pos: loop.Pos}
		if op.Attrs == nil {
			op.Attrs = ir.Attrs{}
		}
		if t != nil {
			op.Results = []*ir.Value{f.NewValue(t, "", op, nil, 0)}
		}
		pre = append(pre, op)
		if t != nil {
			return op.Results[0]
		}
		return nil
	}
	_ = b
	lb, ub, step := loop.Operands[0], loop.Operands[1], loop.Operands[2]
	ivT := iv.Type
	for _, c := range cands {
		md := c.alloc.Results[0].Type.(*ir.MemDesc)
		sh := md.Layout.(*Shared)
		order := []int{}
		for _, d := range sh.Order {
			order = append(order, d+1)
		}
		order = append(order, 0)
		ring := &ir.MemDesc{Shape: append([]int{stages}, md.Shape...), Elem: md.Elem, Order: order, Space: ir.Shared,
			Layout: &Shared{Vec: sh.Vec, PerPhase: sh.PerPhase, MaxPhase: sh.MaxPhase, Order: order, BlockCols: sh.BlockCols}}
		c.buf = emit(ir.OpAlloc, ring, nil)
	}
	// clone a value computed from iv (and invariants) with iv := at
	cloneAt := func(v, at *ir.Value, emitFn func(kind ir.Kind, t ir.Type, attrs ir.Attrs, ops ...*ir.Value) *ir.Value) *ir.Value {
		memo := map[*ir.Value]*ir.Value{iv: at}
		var rec func(v *ir.Value) *ir.Value
		rec = func(v *ir.Value) *ir.Value {
			if r, ok := memo[v]; ok {
				return r
			}
			if !layDefinedIn(v, body) {
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
			r := emitFn(v.Def.Kind, v.Type, attrs, ops...)
			memo[v] = r
			return r
		}
		return rec(v)
	}
	i32 := func(x int64, emitFn func(kind ir.Kind, t ir.Type, attrs ir.Attrs, ops ...*ir.Value) *ir.Value) *ir.Value {
		return emitFn(ir.OpConstant, ir.I32, ir.Attrs{"value": x})
	}
	// the mask of a copy: the load's mask at iv = at, and at < ub
	copyMask := func(c *pipeCand, at *ir.Value, emitFn func(kind ir.Kind, t ir.Type, attrs ir.Attrs, ops ...*ir.Value) *ir.Value) *ir.Value {
		pt := layTileOf(c.load.Operands[0])
		mt := &ir.Tile{Shape: pt.Shape, Elem: ir.I1, Layout: pt.Layout}
		pred := "lt"
		valid := emitFn(ir.OpCmp, ir.I1, ir.Attrs{"pred": pred}, at, ub)
		vs := emitFn(ir.OpSplat, mt, nil, valid)
		if c.mask == nil {
			return vs
		}
		m := cloneAt(c.mask, at, emitFn)
		if !SameLayout(layTileOf(m).Layout, mt.Layout, mt.Shape) {
			m = emitFn(OpConvertLayout, mt, nil, m)
		}
		return emitFn(ir.OpAnd, mt, nil, m, vs)
	}
	ptrs := make([]*ir.Value, len(cands))
	for i, c := range cands {
		if c.arg >= 0 {
			ptrs[i] = loop.Operands[3+c.arg]
		}
	}
	for s := 0; s < stages-1; s++ {
		at := emit(ir.OpAdd, ivT, nil, lb, emit(ir.OpMul, ivT, nil, step, emit(ir.OpConstant, ivT, ir.Attrs{"value": int64(s)})))
		for i, c := range cands {
			view := emit(ir.OpMemIndex, laySliceDesc(c.buf), nil, c.buf, i32(int64(s), emit))
			if c.arg < 0 {
				emit(OpAsyncCopy, nil, nil, cloneAt(c.load.Operands[0], at, emit), view, copyMask(c, at, emit))
				continue
			}
			emit(OpAsyncCopy, nil, nil, ptrs[i], view, copyMask(c, at, emit))
			inc := cloneAt(c.inc, at, emit)
			ptrs[i] = emit(ir.OpAddPtr, ptrs[i].Type, nil, ptrs[i], inc)
		}
		emit(OpAsyncCommit, nil, nil)
	}
	for _, op := range pre {
		layInsertBefore(loop, op)
	}
	for i, c := range cands {
		if c.arg >= 0 {
			loop.Operands[3+c.arg] = ptrs[i]
		}
	}
	// the iteration counter
	zero := &ir.Op{Kind: ir.OpConstant, Attrs: ir.Attrs{"value": int64(0)}, Pos: loop.Pos}
	zero.Results = []*ir.Value{f.NewValue(ir.I32, "", zero, nil, 0)}
	layInsertBefore(loop, zero)
	loop.Operands = append(loop.Operands, zero.Results[0])
	cnt := f.AddBlockArg(body, ir.I32, "slot")
	loop.Results = append(loop.Results, f.NewValue(ir.I32, "", loop, nil, len(loop.Results)))

	// the body: wait, read the current slot, issue the copy stages-1 ahead
	var head []*ir.Op
	emitIn := func(list *[]*ir.Op) func(kind ir.Kind, t ir.Type, attrs ir.Attrs, ops ...*ir.Value) *ir.Value {
		return func(kind ir.Kind, t ir.Type, attrs ir.Attrs, ops ...*ir.Value) *ir.Value {
			op := &ir.Op{Kind: kind, Operands: ops, Attrs: attrs, Pos: loop.Pos}
			if op.Attrs == nil {
				op.Attrs = ir.Attrs{}
			}
			if t != nil {
				op.Results = []*ir.Value{f.NewValue(t, "", op, nil, 0)}
			}
			*list = append(*list, op)
			if t != nil {
				return op.Results[0]
			}
			return nil
		}
	}
	he := emitIn(&head)
	he(OpAsyncWait, nil, ir.Attrs{"pending": int64(stages - 2)})
	rslot := cnt // the slot of this iteration, i % stages, carried
	for _, c := range cands {
		view := he(ir.OpMemIndex, laySliceDesc(c.buf), nil, c.buf, rslot)
		for _, u := range uses[c.alloc.Results[0]] {
			for j, o := range u.Operands {
				if o == c.alloc.Results[0] {
					u.Operands[j] = view
				}
			}
		}
	}
	for i := len(head) - 1; i >= 0; i-- {
		head[i].Parent = body
		body.Ops = append([]*ir.Op{head[i]}, body.Ops...)
	}
	// the copies go after the last local_load of the slots (after the
	// barrier that orders them behind the previous iteration's reads)
	lastRead := head[len(head)-1]
	for _, c := range cands {
		for _, u := range uses[c.alloc.Results[0]] {
			if u.Parent == body && layIndexOf(body, u) > layIndexOf(body, lastRead) {
				lastRead = u
			}
		}
	}
	var tail []*ir.Op
	te := emitIn(&tail)
	// (i + stages - 1) % stages, the slot the previous iteration read
	wslot := te(ir.OpSelect, ir.I32, nil, te(ir.OpCmp, ir.I1, ir.Attrs{"pred": "eq"}, cnt, i32(0, te)),
		i32(int64(stages-1), te), te(ir.OpSub, ir.I32, nil, cnt, i32(1, te)))
	at := te(ir.OpAdd, ivT, nil, iv, te(ir.OpMul, ivT, nil, step, te(ir.OpConstant, ivT, ir.Attrs{"value": int64(stages - 1)})))
	for _, c := range cands {
		view := te(ir.OpMemIndex, laySliceDesc(c.buf), nil, c.buf, wslot)
		src := c.load.Operands[0]
		if c.arg < 0 {
			src = cloneAt(src, at, te)
		}
		te(OpAsyncCopy, nil, ir.Attrs{AttrRingCopy: true}, src, view, copyMask(c, at, te))
	}
	te(OpAsyncCommit, nil, nil)
	anchor := lastRead
	for _, op := range tail {
		layInsertAfter(anchor, op)
		anchor = op
	}
	// the old loads and stagings go; the counter advances
	for _, c := range cands {
		c.alloc.Remove()
		c.load.Remove()
	}
	var adv []*ir.Op
	ae := emitIn(&adv)
	n1 := ae(ir.OpAdd, ir.I32, nil, cnt, i32(1, ae))
	next := ae(ir.OpSelect, ir.I32, nil, ae(ir.OpCmp, ir.I1, ir.Attrs{"pred": "eq"}, n1, i32(int64(stages), ae)), i32(0, ae), n1)
	for _, op := range adv {
		layInsertBefore(y, op)
	}
	y.Operands = append(y.Operands, next)
	// nothing may reuse the rings' bytes while copies are in flight
	drain := &ir.Op{Kind: OpAsyncWait, Attrs: ir.Attrs{"pending": int64(0)}, Pos: loop.Pos}
	layInsertAfter(loop, drain)
}

// layWaitedInBody reports whether a wgmma_wait(0) follows op in body.
func layWaitedInBody(body *ir.Block, op *ir.Op) bool {
	for _, o := range body.Ops[layIndexOf(body, op)+1:] {
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
	if sh, ok := md.Layout.(*Shared); ok {
		c.Layout = dropLeading(sh)
	}
	return c
}

// AccessVec is the number of consecutive registers of a pointer tile that
// one access may move: contiguous in the layout, in memory (axis info),
// aligned, and at most 16 bytes; dim is the dimension they run along. The
// backend's accesses and the passes' decisions (cp.async) both use it.
func AccessVec(ll *LinearLayout, info *AxisInfo, eb int) (vec, dim int) {
	if len(ll.Reg) == 0 {
		return 1, 0
	}
	for d, x := range ll.Reg[0] {
		if x != 0 {
			dim = d
		}
	}
	vec = ll.ContigRegs(dim)
	vec = layMinInt(vec, info.Contig[dim])
	vec = layMinInt(vec, layMaxInt(1, info.Div[dim]/eb))
	vec = layMinInt(vec, layMaxInt(1, 16/eb))
	p := 1
	for p*2 <= vec {
		p *= 2
	}
	return p, dim
}

func init() {
	// The GPU passes' own ops: Verify checks their structure and operand
	// dominance, the backend their meaning.
	for _, k := range []ir.Kind{OpConvertLayout, OpAsyncCopy, OpAsyncCommit, OpAsyncWait} {
		ir.RegisterKind(k, nil)
	}
}

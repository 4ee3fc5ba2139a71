package passes

import (
	"fmt"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// AsyncLoads makes `load(p, async: true)` asynchronous: it rewrites
//
//	%t = load(%ptrs [, %mask [, %other]]) {async = true}
//	... independent work ...
//	use(%t)
//
// into a copy into a compiler-managed staging buffer issued at the load and
// a wait placed right before the first use:
//
//	%buf = alloc                              (hoisted to the function entry)
//	async_copy(%ptrs, %buf [, %mask])         (at the load)
//	async_commit
//	... independent work, overlapping the copy ...
//	async_wait {pending = k}                  (before the first use)
//	%t = local_load(%buf)
//	[%t = select(%mask, %t, %other)]          (when other is not zero)
//	use(%t)
//
// The first use is looked for in the load's block; a use inside a nested
// region counts as a use by the op holding the region. k is the number of
// copy groups committed between the load and its first use (the groups
// complete in order); 0 when a region in between may commit groups.
//
// The staging buffer has the tile's shape and an unswizzled shared layout
// whose fastest dimension is the pointers' contiguous one, so that each
// thread's 4-, 8- or 16-byte cp.async chunk is one contiguous, aligned run
// of shared memory (each thread later reads back exactly the chunks it
// copied, so the row-major placement is free of bank conflicts for the
// coalesced layouts loads get). It is allocated at the function entry: its
// live range then covers everything before the load, so that AllocateShared
// never gives it bytes that an earlier buffer or scratch is still being read
// from (cp.async writes are not ordered behind other threads' reads by the
// backend).
//
// A load stays synchronous, with AttrAsyncFallback naming the reason, when
// cp.async cannot do it: a scalar load or one not from global memory;
// accesses narrower than 4 bytes (cp.async moves 4, 8 or 16 bytes: e.g. a
// gather of 2-byte elements, or pointers whose contiguity or alignment the
// axis analysis cannot prove); a mask that is not constant over each access
// (cp.async has one predicate per access); a load inside a warp role; or a
// load inside a loop whose layout gives one element to several threads
// (another thread could overwrite the buffer with the next iteration's data
// while one still reads this iteration's, with no barrier in between).
//
// It runs after PipelineLoops (which turns the dot operand loads of K loops
// into its own rings; an async load it takes is pipelined there instead) and
// before AllocateShared, which places the staging buffers.
func AsyncLoads(m *ir.Module) error {
	return eachFunc(m, asyncLoadsFunc)
}

type asyncCand struct {
	load   *ir.Op
	buf    *ir.Value
	commit *ir.Op
	use    *ir.Op // the op of the load's block before which the data is needed
}

func asyncLoadsFunc(f *ir.Func) error {
	var loads []*ir.Op
	f.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpLoad && op.Attrs.Bool("async") {
			loads = append(loads, op)
		}
	})
	if len(loads) == 0 {
		return nil
	}
	axes := gpu.AnalyzeAxes(f)
	var cands []*asyncCand
	for _, ld := range loads {
		if why := asyncFallbackReason(ld, axes); why != "" {
			ld.Attrs[gpu.AttrAsyncFallback] = why
			continue
		}
		use := asyncFirstUse(ld)
		if use == nil {
			continue // unused: dead code removes it
		}
		cands = append(cands, &asyncCand{load: ld, use: use})
	}
	// phase 1: the buffers and the copies
	copies := map[*ir.Op]*ir.Op{}
	for _, c := range cands {
		ld := c.load
		t := layTileOf(ld.Results[0])
		pt := layTileOf(ld.Operands[0]).Elem.(*ir.Pointer)
		ll, err := gpu.Linear(layTileOf(ld.Operands[0]).Layout, t.Shape)
		if err != nil {
			return err
		}
		_, dim := gpu.AccessVec(ll, axes.Info(ld.Operands[0]), pt.Elem.Bytes())
		order := []int{dim}
		for d := len(t.Shape) - 1; d >= 0; d-- {
			if d != dim {
				order = append(order, d)
			}
		}
		md := &ir.MemDesc{Shape: append([]int(nil), t.Shape...), Elem: pt.Elem, Order: order, Space: ir.Shared,
			Layout: &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: append([]int(nil), order...)}}
		alloc := &ir.Op{Kind: ir.OpAlloc, Attrs: ir.Attrs{}, Pos: ld.Pos}
		alloc.Results = []*ir.Value{f.NewValue(md, "", alloc, nil, 0)}
		f.Body.InsertAt(0, alloc)
		c.buf = alloc.Results[0]
		ops := []*ir.Value{ld.Operands[0], c.buf}
		if len(ld.Operands) > 1 {
			ops = append(ops, ld.Operands[1])
		}
		cp := &ir.Op{Kind: gpu.OpAsyncCopy, Operands: ops, Attrs: ir.Attrs{}, Pos: ld.Pos}
		layInsertBefore(ld, cp)
		copies[ld] = cp
		c.commit = &ir.Op{Kind: gpu.OpAsyncCommit, Attrs: ir.Attrs{}, Pos: ld.Pos}
		layInsertBefore(ld, c.commit)
	}
	// phase 2: the waits and reads before the first uses (a use by another
	// async load is a use by its copy, now ahead of it)
	for _, c := range cands {
		if cp, ok := copies[c.use]; ok {
			c.use = cp
		}
	}
	for _, c := range cands {
		ld := c.load
		b := ld.Parent
		pending := asyncPending(b, c.commit, c.use)
		wait := &ir.Op{Kind: gpu.OpAsyncWait, Attrs: ir.Attrs{"pending": int64(pending)}, Pos: ld.Pos}
		layInsertBefore(c.use, wait)
		t := layTileOf(ld.Results[0])
		rd := &ir.Op{Kind: ir.OpLocalLoad, Operands: []*ir.Value{c.buf}, Attrs: ir.Attrs{}, Pos: ld.Pos}
		rd.Results = []*ir.Value{f.NewValue(t, ld.Results[0].Name, rd, nil, 0)}
		layInsertBefore(c.use, rd)
		res := rd.Results[0]
		if len(ld.Operands) > 2 && !layIsZeroConst(ld.Operands[2]) {
			other := ld.Operands[2]
			if !layIsTile(other) {
				sp := &ir.Op{Kind: ir.OpSplat, Operands: []*ir.Value{other}, Attrs: ir.Attrs{}, Pos: ld.Pos}
				sp.Results = []*ir.Value{f.NewValue(t, "", sp, nil, 0)}
				layInsertBefore(c.use, sp)
				other = sp.Results[0]
			}
			sel := &ir.Op{Kind: ir.OpSelect, Operands: []*ir.Value{ld.Operands[1], res, other}, Attrs: ir.Attrs{}, Pos: ld.Pos}
			sel.Results = []*ir.Value{f.NewValue(t, "", sel, nil, 0)}
			layInsertBefore(c.use, sel)
			res = sel.Results[0]
		}
		f.ReplaceAllUses(ld.Results[0], res)
		ld.Remove()
	}
	return nil
}

// asyncFallbackReason is why ld cannot become a cp.async copy ("" if it can).
func asyncFallbackReason(ld *ir.Op, axes *gpu.AxisAnalysis) string {
	p := ld.Operands[0]
	if !layIsTile(p) || !layIsTile(ld.Results[0]) {
		return "scalar load"
	}
	pt, ok := layTileOf(p).Elem.(*ir.Pointer)
	if !ok || pt.Space != ir.Global {
		return "not a load from global memory"
	}
	for o := ld.Parent.Parent; o != nil; o = o.Parent.Parent {
		if o.Kind == ir.OpRole || o.Kind == ir.OpWarpSpecialize {
			return "inside a warp role"
		}
		if o.Parent == nil {
			break
		}
	}
	t := layTileOf(p)
	rt := layTileOf(ld.Results[0])
	if t.Layout == nil || !SameLayout(t.Layout, rt.Layout, t.Shape) {
		return "pointer and result layouts differ"
	}
	ll, err := gpu.Linear(t.Layout, t.Shape)
	if err != nil {
		return "no linear layout: " + err.Error()
	}
	eb := pt.Elem.Bytes()
	vec, dim := gpu.AccessVec(ll, axes.Info(p), eb)
	if vec*eb < 4 {
		return fmt.Sprintf("cp.async moves 4, 8 or 16 bytes; the pointers allow %d-byte accesses (contiguity %d, divisibility %d along dim %d)",
			vec*eb, axes.Info(p).Contig[dim], axes.Info(p).Div[dim], dim)
	}
	if len(ld.Operands) > 1 {
		m := ld.Operands[1]
		if !layIsTile(m) || !SameLayout(layTileOf(m).Layout, t.Layout, t.Shape) {
			return "mask layout differs from the pointers'"
		}
		if c := axes.Info(m).Const[dim]; c < vec {
			return fmt.Sprintf("the mask is constant over %d elements along dim %d, a %d-element cp.async has one predicate", c, dim, vec)
		}
	}
	if len(ld.Operands) > 2 && layIsTile(ld.Operands[2]) && !SameLayout(layTileOf(ld.Operands[2]).Layout, t.Layout, t.Shape) {
		return "other layout differs from the pointers'"
	}
	if ll.ZeroLaneMask() != 0 || ll.ZeroWarpMask() != 0 {
		for o := ld.Parent.Parent; o != nil; o = o.Parent.Parent {
			if o.Kind == ir.OpFor {
				return "inside a loop with a layout that replicates elements over threads (no barrier orders the next iteration's copy behind this one's reads)"
			}
			if o.Parent == nil {
				break
			}
		}
	}
	return ""
}

// asyncFirstUse is the first op after ld in ld's block that uses its result,
// itself or in a nested region.
func asyncFirstUse(ld *ir.Op) *ir.Op {
	b := ld.Parent
	v := ld.Results[0]
	i := b.IndexOf(ld)
	for _, op := range b.Ops[i+1:] {
		used := false
		check := func(o *ir.Op) {
			for _, x := range o.Operands {
				if x == v {
					used = true
				}
			}
		}
		check(op)
		for _, r := range op.Regions {
			r.Walk(check)
		}
		if used {
			return op
		}
	}
	return nil
}

// asyncPending is how many copy groups are committed after commit and before
// use in b (0 when an op in between holds regions with async ops).
func asyncPending(b *ir.Block, commit, use *ir.Op) int {
	n := 0
	for _, op := range b.Ops[b.IndexOf(commit)+1 : b.IndexOf(use)] {
		if op.Kind == gpu.OpAsyncCommit {
			n++
		}
		nested := false
		for _, r := range op.Regions {
			r.Walk(func(o *ir.Op) {
				if o.Kind == gpu.OpAsyncCommit || o.Kind == gpu.OpAsyncWait || o.Kind == gpu.OpAsyncCopy {
					nested = true
				}
			})
		}
		if nested {
			return 0
		}
	}
	return n
}

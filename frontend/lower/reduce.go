package lower

import "github.com/tlego/tle/ir"

// reduce lowers sum, max, min, argmax and argmin: over axis, or over every
// axis when it is omitted (innermost first; argmax and argmin flatten the
// tile row-major first, as Triton's axis=None). keep_dims keeps the reduced
// axes with size 1; max/min's return_indices gives (values, indices) as a
// list, which callMulti unpacks.
func (s *fn) reduce(a *args, kind string) *val {
	c := a.call
	x := s.valueArg(a, "x")
	shape := ir.ShapeOf(x.Type)
	if len(shape) == 0 {
		s.errorf(s.argPos(a, "x"), "%s needs a tile, not a scalar", kind)
	}
	axis, ok := s.axisArg(a, len(shape))
	keep := s.constIntArg(a, "keep_dims") != 0
	s.b.Pos = c.Pos()
	widen := !a.gave("dtype")
	if !widen {
		// Triton's sum(x, dtype=): x converted first, summed in dtype
		x = s.convert(x, ir.WithElem(x.Type, s.dtypeArg(a, "dtype")), c.Pos())
		s.b.Pos = c.Pos()
	}
	indices, left := kind == "argmax" || kind == "argmin", true
	switch kind {
	case "argmax", "argmin":
		left = s.constIntArg(a, "tie_break_left") != 0
		kind = kind[3:]
	case "max", "min":
		indices = s.constIntArg(a, "return_indices") != 0
		left = s.constIntArg(a, "return_indices_tie_break_left") != 0
	}
	var vals, idx *ir.Value
	switch {
	case indices && !ok:
		flat := s.b.Value(ir.OpReshape, ir.TileOf([]int{ir.NumElements(shape)}, ir.ElemDType(x.Type)), []*ir.Value{x}, nil)
		vals, idx = s.argReduce(flat, kind, 0, left)
	case indices:
		vals, idx = s.argReduce(x, kind, axis, left)
	case !ok:
		vals = x
		for len(ir.ShapeOf(vals.Type)) > 0 {
			vals = s.reduceIn(vals, kind, len(ir.ShapeOf(vals.Type))-1, widen)
		}
	default:
		vals = s.reduceIn(x, kind, axis, widen)
	}
	if keep {
		vals, idx = s.keepDims(vals, shape, axis, ok), s.keepDims(idx, shape, axis, ok)
	}
	switch {
	case a.b.Name == "argmax" || a.b.Name == "argmin":
		return &val{v: idx}
	case indices:
		return &val{list: []*val{{v: vals}, {v: idx}}}
	}
	return &val{v: vals}
}

// keepDims puts the reduced axis back with size 1 (every axis when all
// were reduced); nil stays nil.
func (s *fn) keepDims(r *ir.Value, shape []int, axis int, one bool) *ir.Value {
	if r == nil {
		return nil
	}
	dt := ir.ElemDType(r.Type)
	if one {
		kept := append(append(append([]int(nil), shape[:axis]...), 1), shape[axis+1:]...)
		return s.b.Value(ir.OpExpandDims, ir.TileOf(kept, dt), []*ir.Value{r}, ir.Attrs{"axis": int64(axis)})
	}
	ones := make([]int, len(shape))
	for i := range ones {
		ones[i] = 1
	}
	return s.b.Value(ir.OpSplat, ir.TileOf(ones, dt), []*ir.Value{r}, nil)
}

// argReduce gives the max (min) of x along axis and the i32 index of it:
// the values reduce as max/min do (NaNs ignored), then the indices of the
// elements equal to the result reduce with min (max with tie_break_left
// false), so ties go to the lowest (highest) index whatever the reduction
// order. Where the result is NaN (an all-NaN slice) every element counts as
// equal: the first (last) index.
func (s *fn) argReduce(x *ir.Value, kind string, axis int, left bool) (*ir.Value, *ir.Value) {
	shape := ir.ShapeOf(x.Type)
	n := shape[axis]
	m := s.reduceAxis(x, kind, axis)
	pos := s.b.Pos
	back := m
	if len(shape) > 1 {
		back = s.keepDims(m, shape, axis, true)
	}
	back = s.broadcastTo(back, shape, pos)
	i1 := ir.TileOf(shape, ir.I1)
	eq := s.b.Value(ir.OpCmp, i1, []*ir.Value{x, back}, ir.Attrs{"pred": "eq"})
	if ir.ElemDType(x.Type).IsFloat() {
		nan := s.b.Value(ir.OpCmp, i1, []*ir.Value{back, back}, ir.Attrs{"pred": "ne"})
		eq = s.b.Value(ir.OpOr, i1, []*ir.Value{eq, nan}, nil)
	}
	iota := s.b.Value(ir.OpArange, ir.TileOf([]int{n}, ir.I32), nil, ir.Attrs{"start": int64(0), "end": int64(n)})
	if len(shape) > 1 {
		line := make([]int, len(shape))
		for i := range line {
			line[i] = 1
		}
		line[axis] = n
		iota = s.b.Value(ir.OpReshape, ir.TileOf(line, ir.I32), []*ir.Value{iota}, nil)
		iota = s.broadcastTo(iota, shape, pos)
	}
	none, pick := int64(n), "min"
	if !left {
		none, pick = -1, "max"
	}
	it := ir.TileOf(shape, ir.I32)
	other := s.b.Value(ir.OpConstant, it, nil, ir.Attrs{"value": none})
	cand := s.b.Value(ir.OpSelect, it, []*ir.Value{eq, iota, other}, nil)
	return m, s.reduceAxis(cand, pick, axis)
}

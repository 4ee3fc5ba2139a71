package lower

import (
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/ir"
)

// The shape builtins of issue 35 on register tiles: join, split,
// interleave, cat, flip, expand_dims and broadcast(a, b). join, split and
// flip are IR ops of their own; interleave and cat are join followed by
// trans and reshape; expand_dims and broadcast are the ops x[:, None] and
// implicit broadcasting lower to.

// pairOperands lowers operands n1 and n2 of one element type (the checker
// saw to it: an untyped constant takes the other's; two constants take
// their promoted default), broadcast to one shape.
func (s *fn) pairOperands(a *args, n1, n2 string) (*ir.Value, *ir.Value, []int) {
	x, y := s.arg(a, n1), s.arg(a, n2)
	var elem ir.Type
	for _, v := range []*val{x, y} {
		if v.v != nil {
			elem = ir.Elem(v.v.Type)
			break
		}
	}
	if elem == nil {
		elem = defaultType(x.c)
		if d := defaultType(y.c); d == ir.F32 || x.c.dt == ir.Invalid && y.c.dt != ir.Invalid {
			elem = d
		}
	}
	shape, ok := ir.BroadcastShapes(valShape(x), valShape(y))
	if !ok {
		s.errorf(a.call.Pos(), "%s: cannot broadcast shapes %v and %v", a.b.Name, valShape(x), valShape(y))
	}
	t := ir.TileOf(shape, elem)
	return s.materialize(x, t, s.argPos(a, n1)), s.materialize(y, t, s.argPos(a, n2)), shape
}

// joinOf is join(x, y) of two values of one type; scalars join as [1]
// tiles whose [1, 2] join is reshaped to [2].
func (s *fn) joinOf(x, y *ir.Value, shape []int) *ir.Value {
	elem := ir.Elem(x.Type)
	if len(shape) == 0 {
		one := ir.TileOf([]int{1}, elem)
		x = s.b.Value(ir.OpSplat, one, []*ir.Value{x}, nil)
		y = s.b.Value(ir.OpSplat, one, []*ir.Value{y}, nil)
		j := s.b.Value(ir.OpJoin, ir.TileOf([]int{1, 2}, elem), []*ir.Value{x, y}, nil)
		return s.b.Value(ir.OpReshape, ir.TileOf([]int{2}, elem), []*ir.Value{j}, nil)
	}
	out := append(append([]int{}, shape...), 2)
	return s.b.Value(ir.OpJoin, ir.TileOf(out, elem), []*ir.Value{x, y}, nil)
}

func (s *fn) join(a *args) *val {
	x, y, shape := s.pairOperands(a, "a", "b")
	s.b.Pos = a.call.Pos()
	return &val{v: s.joinOf(x, y, shape)}
}

// interleave is join then reshape: [..., N, 2] becomes [..., 2N].
func (s *fn) interleave(a *args) *val {
	x, y, shape := s.pairOperands(a, "a", "b")
	s.b.Pos = a.call.Pos()
	j := s.joinOf(x, y, shape)
	if len(shape) == 0 {
		return &val{v: j} // two scalars: the [2] join
	}
	out := append([]int{}, shape...)
	out[len(out)-1] *= 2
	return &val{v: s.b.Value(ir.OpReshape, ir.TileOf(out, ir.Elem(x.Type)), []*ir.Value{j}, nil)}
}

func (s *fn) split(a *args) *val {
	x := s.valueArg(a, "a")
	shape := ir.ShapeOf(x.Type)
	if len(shape) < 1 || shape[len(shape)-1] != 2 {
		s.errorf(s.argPos(a, "a"), "split needs a tile whose last dimension is 2, got %s", x.Type)
	}
	s.b.Pos = a.call.Pos()
	elem := ir.Elem(x.Type)
	scalars := len(shape) == 1
	if scalars {
		// [2] into two scalars: split as [1, 2], then each [1] half
		// reduced to its element
		x = s.b.Value(ir.OpReshape, ir.TileOf([]int{1, 2}, elem), []*ir.Value{x}, nil)
		shape = []int{1, 2}
	}
	half := ir.TileOf(append([]int{}, shape[:len(shape)-1]...), elem)
	op := s.b.Create(ir.OpSplit, []ir.Type{half, half}, []*ir.Value{x}, nil)
	out := []*val{{v: op.Results[0]}, {v: op.Results[1]}}
	if scalars {
		for _, h := range out {
			h.v = s.onlyElement(h.v)
		}
	}
	return &val{list: out}
}

// onlyElement is the element of a [1] tile of numbers: a reduce whose
// combine, which never runs on one element, keeps its first operand, so
// that the element comes out bit for bit (a sum would turn -0 into +0, a
// max a NaN's payload into the canonical NaN).
func (s *fn) onlyElement(v *ir.Value) *ir.Value {
	dt := ir.ElemDType(v.Type)
	op := s.b.Create(ir.OpReduce, []ir.Type{dt}, []*ir.Value{v}, ir.Attrs{"axis": int64(0), "kind": "combine"})
	saved := s.b.Block
	blk := s.b.NewRegion(op)
	s.b.Block = blk
	first := s.f.AddBlockArg(blk, dt, "a")
	s.f.AddBlockArg(blk, dt, "b")
	s.b.Create(ir.OpYield, nil, []*ir.Value{first}, nil)
	s.b.Block = saved
	return op.Results[0]
}

// cat(x, y) along the first dimension, the order kept: join gives
// [S0, ..., 2], trans brings the pair first, [2, S0, ...], and reshape
// merges it into [2*S0, ...].
func (s *fn) cat(a *args) *val {
	x, y, shape := s.pairOperands(a, "input", "other")
	if len(shape) == 0 {
		s.errorf(a.call.Pos(), "cat needs tiles")
	}
	s.b.Pos = a.call.Pos()
	j := s.joinOf(x, y, shape)
	r := len(shape)
	perm := []int64{int64(r)}
	for i := 0; i < r; i++ {
		perm = append(perm, int64(i))
	}
	t := s.permute(j, perm, a.call.Pos())
	out := append([]int{}, shape...)
	out[0] *= 2
	return &val{v: s.b.Value(ir.OpReshape, ir.TileOf(out, ir.Elem(x.Type)), []*ir.Value{t}, nil)}
}

func (s *fn) flip(a *args) *val {
	x := s.valueArg(a, "x")
	shape := ir.ShapeOf(x.Type)
	axis := len(shape) - 1
	if a.has("dim") {
		axis = int(s.constIntArg(a, "dim"))
		if axis < 0 {
			axis += len(shape)
		}
	}
	if axis < 0 || axis >= len(shape) {
		s.errorf(s.argPos(a, "dim"), "flip: dim out of range for %s", x.Type)
	}
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpFlip, x.Type, []*ir.Value{x}, ir.Attrs{"axis": int64(axis)})}
}

func (s *fn) expandDimsCall(a *args) *val {
	x := s.materialize(s.arg(a, "x"), nil, s.argPos(a, "x"))
	av := s.constArg(a, "axis")
	var axes []int64
	if av.list != nil {
		for _, e := range av.list {
			if e.c == nil || !e.c.isInt() {
				s.errorf(s.argPos(a, "axis"), "expand_dims: axes must be compile-time integers")
			}
			axes = append(axes, e.c.i)
		}
	} else {
		axes = []int64{s.constIntArg(a, "axis")}
	}
	shape := ir.ShapeOf(x.Type)
	sorted, bad := check.ExpandAxes(axes, len(shape))
	if bad != "" {
		s.errorf(s.argPos(a, "axis"), "expand_dims: %s", bad)
	}
	s.b.Pos = a.call.Pos()
	elem := ir.Elem(x.Type)
	if len(shape) == 0 {
		// a scalar: a tile of ones
		ones := make([]int, len(sorted))
		for i := range ones {
			ones[i] = 1
		}
		return &val{v: s.b.Value(ir.OpSplat, ir.TileOf(ones, elem), []*ir.Value{x}, nil)}
	}
	for _, ax := range sorted {
		shape = append(shape[:ax:ax], append([]int{1}, shape[ax:]...)...)
		x = s.b.Value(ir.OpExpandDims, ir.TileOf(shape, elem), []*ir.Value{x}, ir.Attrs{"axis": int64(ax)})
	}
	return &val{v: x}
}

// broadcastPair is broadcast(input, other): each broadcast to the common
// shape, keeping its element type.
func (s *fn) broadcastPair(a *args) *val {
	x := s.materialize(s.arg(a, "input"), nil, s.argPos(a, "input"))
	y := s.materialize(s.arg(a, "other"), nil, s.argPos(a, "other"))
	shape, ok := ir.BroadcastShapes(ir.ShapeOf(x.Type), ir.ShapeOf(y.Type))
	if !ok {
		s.errorf(a.call.Pos(), "broadcast: cannot broadcast shapes %v and %v", ir.ShapeOf(x.Type), ir.ShapeOf(y.Type))
	}
	return &val{list: []*val{{v: s.broadcastTo(x, shape, a.call.Pos())}, {v: s.broadcastTo(y, shape, a.call.Pos())}}}
}

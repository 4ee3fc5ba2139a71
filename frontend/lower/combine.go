package lower

import (
	"slices"
	"strings"

	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/ir"
)

// combineOperands lowers reduce's and associative_scan's x: one tile, or
// the tiles of a list ([x, idx], Triton's tuple of tensors); list tells
// which.
func (s *fn) combineOperands(a *args) (xs []*ir.Value, list bool) {
	arg := a.named["x"]
	l, ok := unparenList(arg.Value)
	if !ok || l.Elem != nil {
		x := s.valueArg(a, "x")
		if len(ir.ShapeOf(x.Type)) == 0 {
			s.errorf(s.argPos(a, "x"), "%s needs a tile, not a scalar", a.b.Name)
		}
		return []*ir.Value{x}, false
	}
	for _, e := range l.Elems {
		x := s.value(s.expr(e), e.Pos())
		if len(ir.ShapeOf(x.Type)) == 0 {
			s.errorf(e.Pos(), "%s needs tiles, not a scalar", a.b.Name)
		}
		xs = append(xs, x)
	}
	if len(xs) == 0 {
		s.errorf(arg.Value.Pos(), "%s needs one or more tiles", a.b.Name)
	}
	return xs, true
}

// unparenList is x, or the expression inside its parentheses, as a list,
// if it is one (the checker takes a parenthesised list as well).
func unparenList(x ast.Expr) (*ast.ListExpr, bool) {
	for {
		q, ok := x.(*ast.ParenExpr)
		if !ok {
			break
		}
		x = q.X
	}
	l, ok := x.(*ast.ListExpr)
	return l, ok
}

// combineVal is the value of a reduce or scan over a list (one per tile)
// or over one tile.
func combineVal(rs []*ir.Value, list bool) *val {
	if !list || len(rs) == 1 {
		return &val{v: rs[0]}
	}
	v := &val{}
	for _, r := range rs {
		v.list = append(v.list, &val{v: r})
	}
	return v
}

// reduceCombine lowers reduce(x, axis, combine) as the other reductions,
// with kind combine: each reduce op carries the helper as its region. A
// list of tiles gives reduce ops of several operands and results.
func (s *fn) reduceCombine(a *args) *val {
	saved := s.combine
	s.combine = a.named["combine"].Value.(*ast.Ident).Name
	defer func() { s.combine = saved }()
	if l, ok := unparenList(a.named["x"].Value); !ok || l.Elem != nil {
		return s.reduce(a, "combine")
	}
	xs, _ := s.combineOperands(a)
	shape := ir.ShapeOf(xs[0].Type)
	axis, ok := s.axisArg(a, len(shape))
	keep := s.constIntArg(a, "keep_dims") != 0
	s.b.Pos = a.call.Pos()
	rs := slices.Clone(xs)
	if ok {
		rs = s.reduceCombineAxis(rs, axis)
	} else {
		for len(ir.ShapeOf(rs[0].Type)) > 0 {
			rs = s.reduceCombineAxis(rs, len(ir.ShapeOf(rs[0].Type))-1)
		}
	}
	if keep {
		for i := range rs {
			rs[i] = s.keepDims(rs[i], shape, axis, ok)
		}
	}
	return combineVal(rs, true)
}

// reduceCombineAxis is one reduce op of kind combine over the tiles xs
// (one shape) along axis: a result per tile.
func (s *fn) reduceCombineAxis(xs []*ir.Value, axis int) []*ir.Value {
	shape := ir.ShapeOf(xs[0].Type)
	out := append(append([]int(nil), shape[:axis]...), shape[axis+1:]...)
	var ts []ir.Type
	var ds []ir.DType
	for _, x := range xs {
		ds = append(ds, ir.ElemDType(x.Type))
		ts = append(ts, ir.TileOf(out, ds[len(ds)-1]))
	}
	op := s.b.Create(ir.OpReduce, ts, xs, ir.Attrs{"axis": int64(axis), "kind": "combine"})
	s.combineRegion(op, ds...)
	return slices.Clone(op.Results)
}

// scanCombine lowers associative_scan(x, axis, combine, reverse:) to a
// scan of kind combine carrying the helper as its region: one operand and
// result per tile of a list.
func (s *fn) scanCombine(a *args) *val {
	saved := s.combine
	s.combine = a.named["combine"].Value.(*ast.Ident).Name
	defer func() { s.combine = saved }()
	xs, list := s.combineOperands(a)
	shape := ir.ShapeOf(xs[0].Type)
	axis, _ := s.axisArg(a, len(shape))
	rev := s.constIntArg(a, "reverse") != 0
	s.b.Pos = a.call.Pos()
	var ts []ir.Type
	var ds []ir.DType
	for _, x := range xs {
		ts = append(ts, x.Type)
		ds = append(ds, ir.ElemDType(x.Type))
	}
	op := s.b.Create(ir.OpScan, ts, xs, ir.Attrs{"axis": int64(axis), "kind": "combine", "reverse": rev})
	s.combineRegion(op, ds...)
	return combineVal(slices.Clone(op.Results), list)
}

// combineRegion gives op (a reduce or scan of kind combine) its region:
// two scalar arguments of each dtype of ds (a0..an-1, b0..bn-1, Triton's
// order), a call of the combine helper (inlined later) and a yield of its
// results.
func (s *fn) combineRegion(op *ir.Op, ds ...ir.DType) {
	name := s.combine
	d := s.l.funcs[name]
	if d == nil {
		s.errorf(op.Pos, "combine: %s is not a func helper", name)
	}
	saved := s.b.Block
	blk := s.b.NewRegion(op)
	s.b.Block = blk
	defer func() { s.b.Block = saved }()
	var argv []*ir.Value
	var keys []string
	for _, side := range []string{"a", "b"} {
		for _, dt := range ds {
			argv = append(argv, s.f.AddBlockArg(blk, dt, side))
			keys = append(keys, dt.String())
		}
	}
	key := name + "(" + strings.Join(keys, ",") + ")"
	f := s.l.instances[key]
	if f == nil {
		for _, st := range s.l.stack {
			if st == name {
				s.errorf(op.Pos, "recursive call of %s: helpers are inlined and cannot recurse", name)
			}
		}
		f = s.l.instantiate(d, key, argv, map[string]*val{})
	}
	call := s.b.Create(ir.OpCall, f.Results, argv, ir.Attrs{"callee": f.Name})
	s.b.Create(ir.OpYield, nil, call.Results, nil)
}

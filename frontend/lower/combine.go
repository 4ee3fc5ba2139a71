package lower

import (
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/ir"
)

// reduceCombine lowers reduce(x, axis, combine) as the other reductions,
// with kind combine: each reduce op carries the helper as its region.
func (s *fn) reduceCombine(a *args) *val {
	saved := s.combine
	s.combine = a.named["combine"].Value.(*ast.Ident).Name
	defer func() { s.combine = saved }()
	return s.reduce(a, "combine")
}

// scanCombine lowers associative_scan(x, axis, combine, reverse:) to a
// scan of kind combine carrying the helper as its region.
func (s *fn) scanCombine(a *args) *val {
	saved := s.combine
	s.combine = a.named["combine"].Value.(*ast.Ident).Name
	defer func() { s.combine = saved }()
	x := s.valueArg(a, "x")
	shape := ir.ShapeOf(x.Type)
	if len(shape) == 0 {
		s.errorf(s.argPos(a, "x"), "associative_scan needs a tile, not a scalar")
	}
	axis, _ := s.axisArg(a, len(shape))
	rev := s.constIntArg(a, "reverse") != 0
	s.b.Pos = a.call.Pos()
	op := s.b.Create(ir.OpScan, []ir.Type{x.Type}, []*ir.Value{x}, ir.Attrs{"axis": int64(axis), "kind": "combine", "reverse": rev})
	s.combineRegion(op, ir.ElemDType(x.Type))
	return &val{v: op.Results[0]}
}

// combineRegion gives op (a reduce or scan of kind combine) its region: two
// scalar arguments of dtype dt, a call of the combine helper (inlined
// later) and a yield of its result.
func (s *fn) combineRegion(op *ir.Op, dt ir.DType) {
	name := s.combine
	d := s.l.funcs[name]
	if d == nil {
		s.errorf(op.Pos, "combine: %s is not a func helper", name)
	}
	saved := s.b.Block
	blk := s.b.NewRegion(op)
	s.b.Block = blk
	defer func() { s.b.Block = saved }()
	argv := []*ir.Value{s.f.AddBlockArg(blk, dt, "a"), s.f.AddBlockArg(blk, dt, "b")}
	key := name + "(" + dt.String() + "," + dt.String() + ")"
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

package lower

import "github.com/tlego/tle/ir"

// voteMask lowers the mask argument of ballot and prefix_count: a 1-D i1
// tile (the checker's rule, kept here for the concrete length it checks
// again).
func (s *fn) voteMask(a *args, name string) *ir.Value {
	m := s.valueArg(a, "mask")
	if t, ok := m.Type.(*ir.Tile); !ok || len(t.Shape) != 1 || ir.Elem(t) != ir.I1 {
		s.errorf(s.argPos(a, "mask"), "%s needs a 1-D i1 tile, not %s", name, m.Type)
	}
	return m
}

// ballot lowers ballot(mask) to the [N/32]u32 words of the mask.
func (s *fn) ballot(a *args) *val {
	m := s.voteMask(a, "ballot")
	n := ir.ShapeOf(m.Type)[0]
	if n%ir.BallotWord != 0 {
		s.errorf(s.argPos(a, "mask"), "ballot of %d elements: not a multiple of %d", n, ir.BallotWord)
	}
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpBallot, ir.TileOf([]int{n / ir.BallotWord}, ir.U32), []*ir.Value{m}, nil)}
}

// prefixCount lowers prefix_count(mask) to the exclusive count, [N]i32.
func (s *fn) prefixCount(a *args) *val {
	m := s.voteMask(a, "prefix_count")
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpPrefixCount, ir.WithElem(m.Type, ir.I32), []*ir.Value{m}, nil)}
}

// popc lowers popc(x), element-wise in x's dtype (an untyped constant takes
// its default type, as the checker gave it).
func (s *fn) popc(a *args) *val {
	arg := s.arg(a, "x")
	var want ir.Type
	if c := arg.c; c != nil && c.dt == ir.Invalid && c.isInt() {
		want = ir.I32 // the checker's default: i32, i64 when it does not fit
		if c.i != int64(int32(c.i)) {
			want = ir.I64
		}
	}
	x := s.materialize(arg, want, s.argPos(a, "x"))
	if d := ir.ElemDType(x.Type); !d.IsInt() || d == ir.I1 {
		s.errorf(s.argPos(a, "x"), "popc needs integers (not i1), not %s", x.Type)
	}
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpPopc, x.Type, []*ir.Value{x}, nil)}
}

package lower

import (
	"math"

	"github.com/tlego/tle/ir"
)

// The math builtins of issue 35 beyond the one-operand float functions.

func (s *fn) divRN(a *args) *val {
	ops, t := s.promoteOperands(a, ir.F32, "x", "y")
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpDivRN, t, ops, nil)}
}

// clamp is minimum(maximum(x, min), max), as Triton's clamp with its
// default propagate_nan=NONE: a NaN bound yields the other operand.
func (s *fn) clamp(a *args) *val {
	ops, t := s.promoteOperands(a, ir.F32, "x", "min", "max")
	s.b.Pos = a.call.Pos()
	lo := s.b.Value(ir.OpMax, t, []*ir.Value{ops[0], ops[1]}, nil)
	return &val{v: s.b.Value(ir.OpMin, t, []*ir.Value{lo, ops[2]}, nil)}
}

// binaryMath is atan2(y, x) or pow(x, y): floats, broadcast and promoted
// (f32 when both are untyped constants).
func (s *fn) binaryMath(a *args, kind ir.Kind) *val {
	names := []string{"x", "y"}
	if kind == ir.OpAtan2 {
		names = []string{"y", "x"}
	}
	ops, t := s.promoteOperands(a, ir.F32, names...)
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(kind, t, ops, nil)}
}

func (s *fn) umulhi(a *args) *val {
	ops, t := s.promoteOperands(a, ir.I32, "x", "y")
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpUMulHi, t, ops, nil)}
}

// floatClass is isnan (x != x, the unordered compare) or isinf
// (|x| == +inf), on x's own dtype.
func (s *fn) floatClass(a *args, nan bool) *val {
	x := s.arg(a, "x")
	v := s.value(x, s.argPos(a, "x"))
	if x.c != nil {
		v = s.materialize(x, ir.F32, s.argPos(a, "x"))
	}
	s.b.Pos = a.call.Pos()
	res := ir.WithElem(v.Type, ir.I1)
	if nan {
		return &val{v: s.b.Value(ir.OpCmp, res, []*ir.Value{v, v}, ir.Attrs{"pred": "ne"})}
	}
	abs := s.b.Value(ir.OpAbs, v.Type, []*ir.Value{v}, nil)
	inf := s.b.ConstFloat(math.Inf(1), v.Type)
	return &val{v: s.b.Value(ir.OpCmp, res, []*ir.Value{abs, inf}, ir.Attrs{"pred": "eq"})}
}

// softmax is Triton's: z = x - max(x, dim); exp(z) / sum(exp(z), dim), in
// x's dtype, dim 0 when omitted; ieee_rounding divides with div_rn. The
// result keeps x's shape whatever keep_dims says (Triton's keep_dims=False
// broadcasts the reduced tile against x, right only for dim 0).
func (s *fn) softmax(a *args) *val {
	x := s.valueArg(a, "x")
	shape := ir.ShapeOf(x.Type)
	dim := 0
	if a.has("dim") {
		if v := s.constArg(a, "dim"); v.c != nil {
			dim = int(s.constIntArg(a, "dim"))
			if dim < 0 {
				dim += len(shape)
			}
		}
	}
	if dim < 0 || dim >= len(shape) {
		s.errorf(s.argPos(a, "dim"), "dim %d is out of range for a tile of rank %d", dim, len(shape))
	}
	ieee := false
	if a.has("ieee_rounding") {
		if v := s.constArg(a, "ieee_rounding"); v.c != nil && v.c.kind == 'b' {
			ieee = v.c.b
		}
	}
	pos := a.call.Pos()
	s.b.Pos = pos
	back := func(r *ir.Value) *ir.Value {
		if len(shape) > 1 {
			kept := append(append(append([]int(nil), shape[:dim]...), 1), shape[dim+1:]...)
			r = s.b.Value(ir.OpExpandDims, ir.TileOf(kept, ir.ElemDType(r.Type)), []*ir.Value{r}, ir.Attrs{"axis": int64(dim)})
		}
		return s.broadcastTo(r, shape, pos)
	}
	z := s.b.Value(ir.OpSub, x.Type, []*ir.Value{x, back(s.reduceAxis(x, "max", dim))}, nil)
	e := s.b.Value(ir.OpExp, x.Type, []*ir.Value{z}, nil)
	div := ir.OpDiv
	if ieee {
		div = ir.OpDivRN
	}
	return &val{v: s.b.Value(div, x.Type, []*ir.Value{e, back(s.reduceAxis(e, "sum", dim))}, nil)}
}

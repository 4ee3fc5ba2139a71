package lower

import (
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/ir"
)

// dotScaled lowers Triton's dot_scaled as Triton emulates it where the
// hardware has no block-scaled MMA (Hopper's DecomposeScaledBlocked): each
// operand is upcast to the compute dtype (bf16, or f16 when either format
// is fp16), multiplied by its scales broadcast along K, and the two meet in
// an ordinary dot with f32 accumulation. Everything is existing IR ops
// (integer bit operations, select, bitcast, cast, expand_dims, broadcast,
// reshape, trans, mul, dot), so the interpreter runs it as it runs any
// kernel and the backend's dot paths compile the product; there is no
// dot_scaled op.
//
//   - e2m1: each byte is broadcast along a new axis after the packed one,
//     shifted by 0 and 4 (the first value is the low nibble), masked to its
//     nibble and decoded to bf16 bits (sign, exponent + 126, mantissa; the
//     subnormal 0.5 and the zeros apart), then the packed axis and the new
//     one merge;
//   - e4m3, e5m2, bf16, fp16: the tile (or its bits, bitcast from u8/u16)
//     is cast to the compute dtype, exactly but for bf16 -> f16;
//   - a scale byte e is the f32 2^(e-127): bits e << 23, with e = 0 the
//     subnormal 2^-127 (0x00400000) and e = 0xFF NaN (unless fast_math:,
//     where, as in Triton's emulation, the unchecked bits are +inf), cast
//     to the compute dtype (exact for bf16) and repeated 32 times along K;
//     the product with the value rounds to the compute dtype, a NaN scale
//     making the whole group NaN as Triton's where(scale == 0xFF, NaN, ...)
//     does.
func (s *fn) dotScaled(a *args) *val {
	c := a.call
	pos := c.Pos()
	lf, rf := *s.constArg(a, "lhs_format").str, *s.constArg(a, "rhs_format").str
	lkp := s.constIntArg(a, "lhs_k_pack") != 0
	rkp := s.constIntArg(a, "rhs_k_pack") != 0
	fast := s.constIntArg(a, "fast_math") != 0
	cd := ir.BF16
	if lf == "fp16" || rf == "fp16" {
		cd = ir.F16
	}
	x, y := s.valueArg(a, "lhs"), s.valueArg(a, "rhs")
	lsv, rsv := s.arg(a, "lhs_scale"), s.arg(a, "rhs_scale")
	s.b.Pos = pos
	r := len(ir.ShapeOf(x.Type))
	if r != 2 && r != 3 || len(ir.ShapeOf(y.Type)) != r {
		s.errorf(pos, "dot_scaled needs two 2-D (or batched 3-D) operands, got %v and %v", ir.ShapeOf(x.Type), ir.ShapeOf(y.Type))
	}
	// lhs [.., M, K] packs along K (axis r-1) or M (r-2); rhs [.., K, N]
	// along K (r-2) or N (r-1)
	lpack, rpack := r-1, r-2
	if !lkp {
		lpack = r - 2
	}
	if !rkp {
		rpack = r - 1
	}
	xa := s.msUpcast(x, lf, lpack, cd)
	yb := s.msUpcast(y, rf, rpack, cd)
	if !lsv.none {
		xa = s.msScale(xa, s.value(lsv, s.argPos(a, "lhs_scale")), false, cd, fast)
	}
	if !rsv.none {
		yb = s.msScale(yb, s.value(rsv, s.argPos(a, "rhs_scale")), true, cd, fast)
	}
	xs, ys := ir.ShapeOf(xa.Type), ir.ShapeOf(yb.Type)
	if xs[r-1] != ys[r-2] {
		s.errorf(pos, "dot_scaled: inner dimensions differ: %v x %v", xs, ys)
	}
	outShape := append(append([]int(nil), xs[:r-1]...), ys[r-1])
	accT := ir.TileOf(outShape, ir.F32)
	var acc *ir.Value
	if a.has("acc") {
		acc = s.materialize(s.arg(a, "acc"), accT, s.argPos(a, "acc"))
	} else {
		acc = s.materialize(&val{c: &constant{kind: 'i'}}, accT, pos)
	}
	s.b.Pos = pos
	return &val{v: s.b.Value(ir.OpDot, accT, []*ir.Value{xa, yb, acc}, nil)}
}

// msFormat is the dtype of each non-packed dot_scaled format.
var msFormat = map[string]ir.DType{"e4m3": ir.F8E4M3, "e5m2": ir.F8E5M2, "bf16": ir.BF16, "fp16": ir.F16}

// msUpcast is v's values in format f as a tile of dtype cd: e2m1 bytes
// unpacked along axis pack (the result twice as long there), the other
// formats cast (bitcast first when given as their bits).
func (s *fn) msUpcast(v *ir.Value, f string, pack int, cd ir.DType) *ir.Value {
	if f != "e2m1" {
		fd := msFormat[f]
		if ir.ElemDType(v.Type) != fd {
			v = s.b.Value(ir.OpBitcast, ir.WithElem(v.Type, fd), []*ir.Value{v}, nil)
		}
		if fd != cd {
			v = s.b.Value(ir.OpCast, ir.WithElem(v.Type, cd), []*ir.Value{v}, nil)
		}
		return v
	}
	shape := ir.ShapeOf(v.Type)
	axis := pack + 1
	full := insertDim(shape, axis, 2)
	vb := s.b.Value(ir.OpExpandDims, ir.TileOf(insertDim(shape, axis, 1), ir.U8), []*ir.Value{v}, ir.Attrs{"axis": int64(axis)})
	vb = s.b.Value(ir.OpBroadcast, ir.TileOf(full, ir.U8), []*ir.Value{vb}, nil)
	// shift amounts 0 and 4 along the new axis
	sh := s.b.Value(ir.OpArange, ir.TileOf([]int{2}, ir.I32), nil, ir.Attrs{"start": int64(0), "end": int64(2)})
	sh = s.b.Value(ir.OpCast, ir.TileOf([]int{2}, ir.U8), []*ir.Value{sh}, nil)
	sh = s.b.Value(ir.OpShl, ir.TileOf([]int{2}, ir.U8), []*ir.Value{sh, s.splatInt([]int{2}, ir.U8, 2)}, nil)
	have := []int{2}
	for d := range full {
		if d != axis {
			have = insertDim(have, d, 1)
			sh = s.b.Value(ir.OpExpandDims, ir.TileOf(have, ir.U8), []*ir.Value{sh}, ir.Attrs{"axis": int64(d)})
		}
	}
	sh = s.b.Value(ir.OpBroadcast, ir.TileOf(full, ir.U8), []*ir.Value{sh}, nil)
	u8 := ir.TileOf(full, ir.U8)
	nib := s.b.Value(ir.OpShr, u8, []*ir.Value{vb, sh}, nil)
	nib = s.b.Value(ir.OpAnd, u8, []*ir.Value{nib, s.splatInt(full, ir.U8, 15)}, nil)
	bits := s.fp4Bits(s.b.Value(ir.OpCast, ir.TileOf(full, ir.U16), []*ir.Value{nib}, nil))
	f16 := s.b.Value(ir.OpBitcast, ir.TileOf(full, ir.BF16), []*ir.Value{bits}, nil)
	if cd != ir.BF16 {
		f16 = s.b.Value(ir.OpCast, ir.TileOf(full, cd), []*ir.Value{f16}, nil)
	}
	merged := append([]int(nil), shape...)
	merged[pack] *= 2
	return s.b.Value(ir.OpReshape, ir.TileOf(merged, cd), []*ir.Value{f16}, nil)
}

// fp4Bits maps e2m1 codes (u16 tile, 0..15: sign, two exponent bits with
// bias 1, one mantissa bit) to the bf16 bit patterns of their values:
// 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives (-0 for 8).
func (s *fn) fp4Bits(code *ir.Value) *ir.Value {
	t := code.Type
	shape := ir.ShapeOf(t)
	k := func(n int64) *ir.Value { return s.splatInt(shape, ir.U16, n) }
	bin := func(kind ir.Kind, x, y *ir.Value) *ir.Value { return s.b.Value(kind, t, []*ir.Value{x, y}, nil) }
	cmp := func(pred string, x, y *ir.Value) *ir.Value {
		return s.b.Value(ir.OpCmp, ir.TileOf(shape, ir.I1), []*ir.Value{x, y}, ir.Attrs{"pred": pred})
	}
	sel := func(cnd, x, y *ir.Value) *ir.Value { return s.b.Value(ir.OpSelect, t, []*ir.Value{cnd, x, y}, nil) }
	sign := bin(ir.OpShl, bin(ir.OpAnd, code, k(8)), k(12))
	em := bin(ir.OpAnd, code, k(7))
	// a normal value (em >= 2): exponent e+126 and mantissa m of em = 2e+m
	// are bits 7.. and 6 of (em + 252) << 6
	normal := bin(ir.OpShl, bin(ir.OpAdd, em, k(252)), k(6))
	small := sel(cmp("eq", em, k(1)), k(0x3f00), k(0)) // 0.5, or zero
	mag := sel(cmp("lt", em, k(2)), small, normal)
	return bin(ir.OpOr, mag, sign)
}

// msScale multiplies v (dtype cd) by the e8m0 scales sc (u8 [.., R, K/32],
// R being v's M for lhs, its N for rhs: transposed first), each repeated
// along K.
func (s *fn) msScale(v, sc *ir.Value, rhs bool, cd ir.DType, fast bool) *ir.Value {
	ss := ir.ShapeOf(sc.Type)
	r := len(ss)
	u32 := ir.TileOf(ss, ir.U32)
	e := s.b.Value(ir.OpCast, u32, []*ir.Value{sc}, nil)
	eq := func(n int64) *ir.Value {
		return s.b.Value(ir.OpCmp, ir.TileOf(ss, ir.I1), []*ir.Value{e, s.splatInt(ss, ir.U32, n)}, ir.Attrs{"pred": "eq"})
	}
	bits := s.b.Value(ir.OpShl, u32, []*ir.Value{e, s.splatInt(ss, ir.U32, 23)}, nil)
	bits = s.b.Value(ir.OpSelect, u32, []*ir.Value{eq(0), s.splatInt(ss, ir.U32, 0x00400000), bits}, nil)
	if !fast {
		bits = s.b.Value(ir.OpSelect, u32, []*ir.Value{eq(0xff), s.splatInt(ss, ir.U32, 0x7fc00000), bits}, nil)
	}
	f := s.b.Value(ir.OpBitcast, ir.TileOf(ss, ir.F32), []*ir.Value{bits}, nil)
	f = s.b.Value(ir.OpCast, ir.TileOf(ss, cd), []*ir.Value{f}, nil)
	// repeat each scale along a new axis after the K/32 one, then merge
	kAxis := r - 1
	if rhs {
		perm := make([]int64, r)
		for i := range perm {
			perm[i] = int64(i)
		}
		perm[r-2], perm[r-1] = int64(r-1), int64(r-2)
		ts := append([]int(nil), ss...)
		ts[r-2], ts[r-1] = ss[r-1], ss[r-2]
		f = s.b.Value(ir.OpTrans, ir.TileOf(ts, cd), []*ir.Value{f}, ir.Attrs{"perm": perm})
		ss, kAxis = ts, r-2
	}
	f = s.b.Value(ir.OpExpandDims, ir.TileOf(insertDim(ss, kAxis+1, 1), cd), []*ir.Value{f}, ir.Attrs{"axis": int64(kAxis + 1)})
	f = s.b.Value(ir.OpBroadcast, ir.TileOf(insertDim(ss, kAxis+1, check.DotScaledGroup), cd), []*ir.Value{f}, nil)
	f = s.b.Value(ir.OpReshape, v.Type, []*ir.Value{f}, nil)
	return s.b.Value(ir.OpMul, v.Type, []*ir.Value{v, f}, nil)
}

// splatInt is a constant tile of shape filled with n, of integer dtype d.
func (s *fn) splatInt(shape []int, d ir.DType, n int64) *ir.Value {
	return s.b.Value(ir.OpConstant, ir.TileOf(shape, d), nil, ir.Attrs{"value": n})
}

// insertDim is shape with a dimension n inserted at axis.
func insertDim(shape []int, axis, n int) []int {
	out := append([]int(nil), shape[:axis]...)
	out = append(out, n)
	return append(out, shape[axis:]...)
}

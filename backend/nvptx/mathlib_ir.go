package nvptx

import (
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// irOps emits mathlib.go's algorithms as LLVM IR: D f64 values, I i64, B i1.
type irOps struct{ g *gen }

func (o irOps) c(x float64) value.Value { return constant.NewFloat(types.Double, x) }
func (o irOps) ic(x int64) value.Value  { return i64c(x) }
func (o irOps) add(a, b value.Value) value.Value {
	return o.g.cur.NewFAdd(a, b)
}
func (o irOps) sub(a, b value.Value) value.Value { return o.g.cur.NewFSub(a, b) }
func (o irOps) mul(a, b value.Value) value.Value { return o.g.cur.NewFMul(a, b) }
func (o irOps) div(a, b value.Value) value.Value { return o.g.cur.NewFDiv(a, b) }
func (o irOps) fma(a, b, c value.Value) value.Value {
	return o.g.fintr("llvm.fma.f64", a, b, c)
}
func (o irOps) sqrt(a value.Value) value.Value { return o.g.fintr("llvm.sqrt.f64", a) }
func (o irOps) rint(a value.Value) value.Value { return o.g.fintr("llvm.rint.f64", a) }
func (o irOps) abs(a value.Value) value.Value  { return o.g.fintr("llvm.fabs.f64", a) }
func (o irOps) copysign(a, b value.Value) value.Value {
	return o.g.fintr("llvm.copysign.f64", a, b)
}
func (o irOps) lt(a, b value.Value) value.Value { return o.g.cur.NewFCmp(enum.FPredOLT, a, b) }
func (o irOps) eq(a, b value.Value) value.Value { return o.g.cur.NewFCmp(enum.FPredOEQ, a, b) }
func (o irOps) ne(a, b value.Value) value.Value { return o.g.cur.NewFCmp(enum.FPredUNE, a, b) }
func (o irOps) isnan(a value.Value) value.Value {
	return o.g.cur.NewFCmp(enum.FPredUNO, a, a)
}
func (o irOps) and(a, b value.Value) value.Value { return o.g.cur.NewAnd(a, b) }
func (o irOps) or(a, b value.Value) value.Value  { return o.g.cur.NewOr(a, b) }
func (o irOps) not(a value.Value) value.Value {
	return o.g.cur.NewXor(a, constant.NewInt(types.I1, 1))
}
func (o irOps) sel(c, a, b value.Value) value.Value  { return o.g.cur.NewSelect(c, a, b) }
func (o irOps) seli(c, a, b value.Value) value.Value { return o.g.cur.NewSelect(c, a, b) }
func (o irOps) toI(a value.Value) value.Value        { return o.g.cur.NewFPToSI(a, types.I64) }
func (o irOps) toD(a value.Value) value.Value        { return o.g.cur.NewSIToFP(a, types.Double) }
func (o irOps) bits(a value.Value) value.Value       { return o.g.cur.NewBitCast(a, types.I64) }
func (o irOps) fromBits(a value.Value) value.Value   { return o.g.cur.NewBitCast(a, types.Double) }
func (o irOps) f32bits(a value.Value) value.Value {
	return o.g.cur.NewZExt(o.g.cur.NewBitCast(o.g.cur.NewFPTrunc(a, types.Float), types.I32), types.I64)
}
func (o irOps) iadd(a, b value.Value) value.Value { return o.g.cur.NewAdd(a, b) }
func (o irOps) isub(a, b value.Value) value.Value { return o.g.cur.NewSub(a, b) }
func (o irOps) imul(a, b value.Value) value.Value { return o.g.cur.NewMul(a, b) }
func (o irOps) iand(a, b value.Value) value.Value { return o.g.cur.NewAnd(a, b) }
func (o irOps) ior(a, b value.Value) value.Value  { return o.g.cur.NewOr(a, b) }
func (o irOps) ishl(a, b value.Value) value.Value { return o.g.cur.NewShl(a, b) }
func (o irOps) ishr(a, b value.Value) value.Value { return o.g.cur.NewLShr(a, b) }
func (o irOps) ineg(a value.Value) value.Value    { return o.g.cur.NewSub(i64c(0), a) }
func (o irOps) ieq(a, b value.Value) value.Value  { return o.g.cur.NewICmp(enum.IPredEQ, a, b) }
func (o irOps) beq(a, b value.Value) value.Value {
	return o.g.cur.NewICmp(enum.IPredEQ, a, b)
}

// invPio4 loads mlInvPio4[idx] from a constant table in global memory.
func (o irOps) invPio4(idx value.Value) value.Value {
	md := o.g.md
	if md.invPio4 == nil {
		elems := make([]constant.Constant, len(mlInvPio4))
		for i, v := range mlInvPio4 {
			elems[i] = constant.NewInt(types.I32, int64(v))
		}
		c := constant.NewArray(types.NewArray(uint64(len(elems)), types.I32), elems...)
		gl := md.m.NewGlobalDef("tle_inv_pio4", c)
		gl.AddrSpace = asGlobal
		gl.Immutable = true
		gl.Linkage = enum.LinkageInternal
		gl.Typ = nil
		md.invPio4 = gl
	}
	p := o.g.cur.NewGetElementPtr(md.invPio4.ContentType, md.invPio4, i64c(0), idx)
	return o.g.cur.NewZExt(o.g.cur.NewLoad(types.I32, p), types.I64)
}

var _ mathOps[value.Value, value.Value, value.Value] = irOps{}
var _ mathOps[float64, int64, bool] = goOps{}

// mathFn emits fn of f32 values (y only for atan2 and pow) as mathF64 in
// f64, rounded to f32 once.
func (g *gen) mathFn(fn MathFn, x, y value.Value) value.Value {
	ext := func(v value.Value) value.Value {
		if v == nil {
			return constant.NewFloat(types.Double, 0)
		}
		return g.cur.NewFPExt(v, types.Double)
	}
	r := mathF64[value.Value, value.Value, value.Value](irOps{g}, fn, ext(x), ext(y))
	return g.cur.NewFPTrunc(r, types.Float)
}

package nvptx

import (
	"math"
	"slices"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// elementwise lowers an element-wise op register by register.
func (g *gen) elementwise(op *ir.Op) {
	res := op.Results[0]
	ins := make([]*tval, len(op.Operands))
	for i, v := range op.Operands {
		ins[i] = g.val(v)
	}
	if _, ok := res.Type.(*ir.Tile); !ok {
		args := make([]value.Value, len(ins))
		for i, t := range ins {
			args[i] = t.s
		}
		g.set(res, &tval{s: g.scalarOp(op, args)})
		return
	}
	out := g.newTile(res.Type)
	if slices.ContainsFunc(ins, func(t *tval) bool { return len(t.lazy) > 0 }) {
		if passes.MatrixCopyLoad(res) != nil {
			// a lazy copy's partial tile (copyLazyOK)
			g.lazySelect(op, ins, out)
			g.set(res, out)
			return
		}
		for _, t := range ins {
			g.force(t)
		}
	}
	if op.Kind == ir.OpDiv && ir.ElemDType(res.Type) == ir.F32 && !g.preciseDiv && uniform(ins[1]) && !uniform(ins[0]) {
		// x / splat(s): one reciprocal per thread, then multiplies (the
		// same approximate-division accuracy class as div.full.f32)
		var rcp value.Value
		if ins[1].s != nil {
			rcp = g.fdiv(f32c(1), ins[1].s)
		} else {
			rcp = g.fdiv(f32c(1), ins[1].regs[0])
		}
		for r := range out.regs {
			out.regs[r] = g.cur.NewFMul(regOf(ins[0], r), rcp)
		}
		g.set(res, out)
		return
	}
	if op.Kind == ir.OpCast && g.unpackBF16(op, ins[0], out) {
		g.set(res, out)
		return
	}
	args := make([]value.Value, len(ins))
	for r := range out.regs {
		for i, t := range ins {
			if t.s != nil {
				args[i] = t.s
			} else {
				if len(t.regs) != len(out.regs) {
					g.failf("operand %d has %d registers, result %d (layouts differ)", i, len(t.regs), len(out.regs))
				}
				args[i] = t.regs[r]
			}
		}
		out.regs[r] = g.scalarOp(op, args)
	}
	if op.Kind == ir.OpCast {
		g.packedCast(op, ins[0], out)
	}
	g.set(res, out)
}

// packedCast gives an f32 -> bf16 / f16 cast its register pairs as well,
// each from one cvt.rn.bf16x2.f32 (f16x2): the packed form that dot
// operands and vector stores use, in one instruction instead of two
// conversions and three integer ops. The same rounding (to nearest even) as
// the per-register conversions, which stay for other users (and are
// deleted by LLVM when nothing reads them).
func (g *gen) packedCast(op *ir.Op, in, out *tval) {
	from, to := ir.ElemDType(op.Operands[0].Type), ir.ElemDType(op.Results[0].Type)
	if from != ir.F32 || in.s != nil || len(in.regs) < 2 || len(in.regs)%2 != 0 {
		return
	}
	if to.Bits() == 8 && to.IsFloat() {
		g.packedCast8(to, in, out)
		return
	}
	if to != ir.BF16 && to != ir.F16 {
		return
	}
	a := g.md.inlineAsm(types.I32, []types.Type{types.Float, types.Float}, "cvt.rn."+to.String()+"x2.f32 $0, $1, $2;", "=r,f,f", false)
	out.pairs = map[int]value.Value{}
	for r := 0; r < len(in.regs); r += 2 {
		// d = {hi: a, lo: b}: register r is the low half
		out.pairs[r] = g.cur.NewCall(a, in.regs[r+1], in.regs[r])
	}
}

// fp8x2 is the PTX name of a pair of d, an 8-bit float (e4m3x2, e5m2x2).
func fp8x2(d ir.DType) string {
	if d == ir.F8E5M2 {
		return "e5m2x2"
	}
	return "e4m3x2"
}

// packedCast8 is packedCast for f32 -> e4m3 / e5m2: one
// cvt.rn.satfinite.e4m3x2.f32 (e5m2x2) per register pair, whose two bytes
// (register r low) are the pair's registers, cut from the word (trunc,
// lshr): quad then packs four of them with one prmt.b32 of two words
// (prmtWord) where per-register conversions would take a conversion each
// and shifts and ors to pack (FP8 attention's P before its shuffle to
// wgmma's register a). The same rounding and saturation as fromCompute.
func (g *gen) packedCast8(to ir.DType, in, out *tval) {
	name := fp8x2(to)
	a := g.md.inlineAsm(types.I32, []types.Type{types.Float, types.Float},
		"{ .reg .b16 t; cvt.rn.satfinite."+name+".f32 t, $1, $2; cvt.u32.u16 $0, t; }", "=r,f,f", false)
	for r := 0; r < len(in.regs); r += 2 {
		w := g.cur.NewCall(a, in.regs[r+1], in.regs[r])
		out.regs[r] = g.cur.NewTrunc(w, types.I8)
		out.regs[r+1] = g.cur.NewTrunc(g.cur.NewLShr(w, i32c(8)), types.I8)
	}
	out.cut = true
}

// unpackBF16 lowers a bf16 -> f32 cast of a tile whose register pairs are
// packed (a packed f32 -> bf16 cast, an ldmatrix) from the packed words:
// the low half shifted up, the high half masked, two integer ops per pair
// where converting the registers would first narrow each half on its own
// (a second cvt.rn.bf16.f32 per element of an f32 -> bf16 -> f32 round
// trip, as in a hi/lo split). It reports false, doing nothing, for other
// casts and tiles without pairs.
func (g *gen) unpackBF16(op *ir.Op, in, out *tval) bool {
	from, to := ir.ElemDType(op.Operands[0].Type), ir.ElemDType(op.Results[0].Type)
	if from != ir.BF16 || to != ir.F32 || in.s != nil || len(in.regs)%2 != 0 || len(out.regs) != len(in.regs) {
		return false
	}
	for r := 0; r < len(in.regs); r += 2 {
		_, p := in.pairs[r]
		_, l := in.lazy[r]
		if !p && !l {
			return false
		}
	}
	for r := 0; r < len(in.regs); r += 2 {
		w := g.pair(in, r)
		out.regs[r] = g.cur.NewBitCast(g.shl(w, i32c(16)), types.Float)
		out.regs[r+1] = g.cur.NewBitCast(g.and(w, i32c(-65536)), types.Float)
	}
	return true
}

// uniform reports a tile whose registers are all one value (a splat).
func uniform(t *tval) bool {
	if t.s != nil {
		return true
	}
	for _, v := range t.regs {
		if v != t.regs[0] {
			return false
		}
	}
	return true
}

// computeType is the type arithmetic on dtype d happens in.
func computeType(d ir.DType) types.Type {
	switch {
	case d == ir.F64:
		return types.Double
	case d.IsFloat():
		return types.Float
	}
	return storageType(d)
}

// toCompute widens a stored 16-bit / 8-bit float to f32.
func (g *gen) toCompute(v value.Value, d ir.DType) value.Value {
	switch d {
	case ir.F16:
		h := g.cur.NewBitCast(v, types.Half)
		return g.cur.NewFPExt(h, types.Float)
	case ir.BF16:
		x := g.cur.NewZExt(v, types.I32)
		return g.cur.NewBitCast(g.cur.NewShl(x, i32c(16)), types.Float)
	case ir.F8E4M3, ir.F8E5M2:
		name := fp8x2(d)
		a := g.md.inlineAsm(types.I32, []types.Type{types.I16}, "cvt.rn.f16x2."+name+" $0, $1;", "=r,h", false)
		pair := g.cur.NewCall(a, g.cur.NewZExt(v, types.I16))
		lo := g.cur.NewTrunc(pair, types.I16)
		return g.cur.NewFPExt(g.cur.NewBitCast(lo, types.Half), types.Float)
	}
	return v
}

// fromCompute rounds an f32 (or f64) back to the storage of d.
func (g *gen) fromCompute(v value.Value, d ir.DType) value.Value {
	switch d {
	case ir.F16:
		if v.Type() == types.Double {
			v = g.cur.NewFPTrunc(v, types.Float)
		}
		return g.cur.NewBitCast(g.cur.NewFPTrunc(v, types.Half), types.I16)
	case ir.BF16:
		if v.Type() == types.Double {
			v = g.cur.NewFPTrunc(v, types.Float)
		}
		a := g.md.inlineAsm(types.I16, []types.Type{types.Float}, "cvt.rn.bf16.f32 $0, $1;", "=h,f", false)
		return g.cur.NewCall(a, v)
	case ir.F8E4M3, ir.F8E5M2:
		if v.Type() == types.Double {
			v = g.cur.NewFPTrunc(v, types.Float)
		}
		name := fp8x2(d)
		a := g.md.inlineAsm(types.I16, []types.Type{types.Float, types.Float},
			"cvt.rn.satfinite."+name+".f32 $0, $1, $2;", "=h,f,f", false)
		pair := g.cur.NewCall(a, f32c(0), v)
		return g.cur.NewTrunc(pair, types.I8)
	case ir.F32:
		if v.Type() == types.Double {
			return g.cur.NewFPTrunc(v, types.Float)
		}
	case ir.F64:
		if v.Type() == types.Float {
			return g.cur.NewFPExt(v, types.Double)
		}
	}
	return v
}

// cast converts a value between dtypes: floats round to nearest even (fp8
// saturating), float->int truncates toward zero, int->int wraps or extends by
// the source's signedness, anything->i1 tests for non-zero.
func (g *gen) cast(v value.Value, from, to ir.DType) value.Value {
	if from == to {
		return v
	}
	if c, ok := v.(*constant.Int); ok && from.IsInt() && c.X.IsInt64() {
		x := c.X.Int64()
		if from.IsUnsigned() && from != ir.I1 {
			x = int64(uint64(x) & (1<<uint(from.Bits()) - 1))
		} else if from == ir.I1 {
			x &= 1
		}
		return constOf(to, x)
	}
	switch {
	case to == ir.I1:
		if from.IsFloat() {
			f := g.toCompute(v, from)
			return g.cur.NewFCmp(enum.FPredUNE, f, constant.NewFloat(f.Type().(*types.FloatType), 0))
		}
		return g.cur.NewICmp(enum.IPredNE, v, intConst(v.Type(), 0))
	case from.IsInt() && to.IsInt():
		fb, tb := storageType(from).(*types.IntType).BitSize, storageType(to).(*types.IntType).BitSize
		switch {
		case fb == tb:
			return v
		case fb > tb:
			return g.cur.NewTrunc(v, storageType(to))
		case from.IsSigned():
			return g.cur.NewSExt(v, storageType(to))
		default:
			return g.cur.NewZExt(v, storageType(to))
		}
	case from.IsInt() && to.IsFloat():
		ct := computeType(to)
		if from.Bits() == 64 && to != ir.F64 {
			ct = types.Float
		}
		var f value.Value
		if from.IsSigned() {
			f = g.cur.NewSIToFP(v, ct)
		} else {
			f = g.cur.NewUIToFP(v, ct)
		}
		return g.fromCompute(f, to)
	case from.IsFloat() && to.IsInt():
		f := g.toCompute(v, from)
		if to.IsSigned() {
			return g.cur.NewFPToSI(f, storageType(to))
		}
		return g.cur.NewFPToUI(f, storageType(to))
	default: // float -> float
		f := g.toCompute(v, from)
		if to == ir.F64 && f.Type() == types.Float {
			return g.cur.NewFPExt(f, types.Double)
		}
		return g.fromCompute(f, to)
	}
}

// castRTZ converts a float to a narrower one (f64 to f32, f16 or bf16;
// f32 to f16 or bf16) rounding toward zero: cast's fp_downcast_rounding:
// "rtz" as PTX cvt.rz. An f64 goes to f32 first, which rounding toward zero
// twice keeps exact (each grid is a subset of the one before).
func (g *gen) castRTZ(v value.Value, from, to ir.DType) value.Value {
	if from == ir.F64 {
		a := g.md.inlineAsm(types.Float, []types.Type{types.Double}, "cvt.rz.f32.f64 $0, $1;", "=f,d", false)
		v = g.cur.NewCall(a, v)
		if to == ir.F32 {
			return v
		}
	}
	name := map[ir.DType]string{ir.F16: "f16", ir.BF16: "bf16"}[to]
	a := g.md.inlineAsm(types.I16, []types.Type{types.Float}, "cvt.rz."+name+".f32 $0, $1;", "=h,f", false)
	return g.cur.NewCall(a, v)
}

func fconst(t types.Type, x float64) value.Value {
	if t == types.Double {
		return constant.NewFloat(types.Double, x)
	}
	return f32c(x)
}

// scalarOp computes one element of an element-wise op.
func (g *gen) scalarOp(op *ir.Op, args []value.Value) value.Value {
	res := ir.ElemDType(op.Results[0].Type)
	switch op.Kind {
	case ir.OpCast:
		if op.Attrs.String("rounding") == "rtz" {
			return g.castRTZ(args[0], ir.ElemDType(op.Operands[0].Type), res)
		}
		return g.cast(args[0], ir.ElemDType(op.Operands[0].Type), res)
	case ir.OpBitcast:
		// the same bits in the result's storage type: 16-bit floats and
		// fp8 are held as integers of their width already
		if t := storageType(res); !t.Equal(args[0].Type()) {
			return g.cur.NewBitCast(args[0], t)
		}
		return args[0]
	case ir.OpAxisHint:
		return args[0] // multiple_of, max_contiguous, max_constancy: facts, no code
	case ir.OpPtrToInt:
		// the global address (addrspace 1) as an integer
		return g.cur.NewPtrToInt(args[0], types.I64)
	case ir.OpIntToPtr:
		pt := ir.Elem(op.Results[0].Type).(*ir.Pointer)
		return g.cur.NewIntToPtr(args[0], ptrTo(memType(pt.Elem), spaceOf(pt.Space)))
	case ir.OpAddPtr:
		off := args[1]
		od := ir.ElemDType(op.Operands[1].Type)
		if od.Bits() < 64 {
			off = g.cast(off, od, ir.I64)
			if od.IsUnsigned() {
				off = g.cast(args[1], od, ir.U64)
			}
		}
		pt := ir.Elem(op.Operands[0].Type).(*ir.Pointer)
		gep := g.cur.NewGetElementPtr(memType(pt.Elem), args[0], off)
		gep.InBounds = true
		return gep
	case ir.OpSelect:
		return g.cur.NewSelect(args[0], args[1], args[2])
	case ir.OpCmp:
		return g.cmp(op.Attrs.String("pred"), ir.ElemDType(op.Operands[0].Type), args[0], args[1])
	case ir.OpFMA:
		return g.fma(res, args)
	}
	d := ir.ElemDType(op.Operands[0].Type)
	if d.IsFloat() {
		xs := make([]value.Value, len(args))
		for i, a := range args {
			xs[i] = g.toCompute(a, d)
		}
		r := g.floatOp(op.Kind, xs)
		return g.fromCompute(r, d)
	}
	return g.intOp(op.Kind, d, args)
}

// fma is a*b + c rounded once to d, by the fused multiply-add of d itself
// on its storage values: llvm.fma (PTX fma.rn.f32, fma.rn.f64) for f32 and
// f64, fma.rn.f16 and fma.rn.bf16 (sm_53, sm_80; inline asm on the 16-bit
// patterns, as the backend's other bf16 instructions, which libNVVM's
// LLVM 7 IR has no type for) for f16 and bf16. The 16-bit formats are not
// widened to f32 as their other arithmetic is: an f32 fma rounded to 16 bits
// would round twice (ir.DType.FMA's tests show where that differs).
func (g *gen) fma(d ir.DType, args []value.Value) value.Value {
	// the operands one by one, as every other op passes them: a call keeps
	// the slice it is given, and elementwise reuses args for each element
	a, b, c := args[0], args[1], args[2]
	switch d {
	case ir.F32:
		return g.fintr("llvm.fma.f32", a, b, c)
	case ir.F64:
		return g.fintr("llvm.fma.f64", a, b, c)
	case ir.F16, ir.BF16:
		asm := g.md.inlineAsm(types.I16, []types.Type{types.I16, types.I16, types.I16}, "fma.rn."+d.String()+" $0, $1, $2, $3;", "=h,h,h,h", false)
		return g.cur.NewCall(asm, a, b, c)
	}
	g.failf("fma is not defined on %s", d)
	return nil
}

func (g *gen) cmp(pred string, d ir.DType, a, b value.Value) value.Value {
	if d.IsFloat() {
		x, y := g.toCompute(a, d), g.toCompute(b, d)
		p := map[string]enum.FPred{"lt": enum.FPredOLT, "le": enum.FPredOLE, "gt": enum.FPredOGT,
			"ge": enum.FPredOGE, "eq": enum.FPredOEQ, "ne": enum.FPredUNE}[pred]
		return g.cur.NewFCmp(p, x, y)
	}
	var p enum.IPred
	if d.IsSigned() {
		p = map[string]enum.IPred{"lt": enum.IPredSLT, "le": enum.IPredSLE, "gt": enum.IPredSGT,
			"ge": enum.IPredSGE, "eq": enum.IPredEQ, "ne": enum.IPredNE}[pred]
	} else {
		p = map[string]enum.IPred{"lt": enum.IPredULT, "le": enum.IPredULE, "gt": enum.IPredUGT,
			"ge": enum.IPredUGE, "eq": enum.IPredEQ, "ne": enum.IPredNE}[pred]
	}
	if p == 0 && pred != "eq" {
		g.failf("unknown comparison %q", pred)
	}
	return g.cur.NewICmp(p, a, b)
}

func (g *gen) fintr(name string, x ...value.Value) value.Value {
	t := x[0].Type()
	ps := make([]types.Type, len(x))
	for i := range x {
		ps[i] = t
	}
	return g.cur.NewCall(g.md.intrinsic(name, true, t, ps...), x...)
}

// floatOp computes on f32 (or f64) values.
func (g *gen) floatOp(k ir.Kind, x []value.Value) value.Value {
	t := x[0].Type()
	dbl := t == types.Double
	sfx := ".f32"
	if dbl {
		sfx = ".f64"
	}
	// f64 transcendental functions are computed in f32
	viaF32 := func(fn func(v value.Value) value.Value) value.Value {
		if !dbl {
			return fn(x[0])
		}
		return g.cur.NewFPExt(fn(g.cur.NewFPTrunc(x[0], types.Float)), types.Double)
	}
	switch k {
	case ir.OpAdd:
		return g.cur.NewFAdd(x[0], x[1])
	case ir.OpSub:
		return g.cur.NewFSub(x[0], x[1])
	case ir.OpMul:
		return g.cur.NewFMul(x[0], x[1])
	case ir.OpDiv:
		return g.fdiv(x[0], x[1])
	case ir.OpRem:
		return g.cur.NewFRem(x[0], x[1])
	case ir.OpMin:
		return g.fintr("llvm.minnum"+sfx, x[0], x[1])
	case ir.OpMax:
		return g.fintr("llvm.maxnum"+sfx, x[0], x[1])
	case ir.OpNeg:
		return g.cur.NewFSub(fconst(t, math.Copysign(0, -1)), x[0])
	case ir.OpAbs:
		return g.fintr("llvm.fabs"+sfx, x[0])
	case ir.OpSqrt:
		return g.fintr("llvm.sqrt"+sfx, x[0])
	case ir.OpRsqrt:
		if dbl {
			return g.cur.NewCall(g.md.intrinsic("llvm.nvvm.rsqrt.approx.d", true, types.Double, types.Double), x[0])
		}
		return g.cur.NewCall(g.md.intrinsic("llvm.nvvm.rsqrt.approx.f", true, types.Float, types.Float), x[0])
	case ir.OpExp:
		return viaF32(func(v value.Value) value.Value { return g.ex2(g.cur.NewFMul(v, f32c(math.Log2E))) })
	case ir.OpExp2:
		return viaF32(g.ex2)
	case ir.OpLog:
		return viaF32(func(v value.Value) value.Value { return g.cur.NewFMul(g.lg2(v), f32c(math.Ln2)) })
	case ir.OpLog2:
		return viaF32(g.lg2)
	case ir.OpSigmoid:
		return viaF32(func(v value.Value) value.Value {
			e := g.ex2(g.cur.NewFMul(v, f32c(-math.Log2E)))
			return g.recip1p(g.cur.NewFAdd(f32c(1), e))
		})
	case ir.OpTanh:
		return viaF32(func(v value.Value) value.Value {
			a := g.md.inlineAsm(types.Float, []types.Type{types.Float}, "tanh.approx.f32 $0, $1;", "=f,f", false)
			return g.cur.NewCall(a, v)
		})
	case ir.OpErf:
		return viaF32(g.erf)
	case ir.OpSin:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathSin, v, nil) })
	case ir.OpCos:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathCos, v, nil) })
	case ir.OpTan:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathTan, v, nil) })
	case ir.OpAsin:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathAsin, v, nil) })
	case ir.OpAcos:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathAcos, v, nil) })
	case ir.OpAtan:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathAtan, v, nil) })
	case ir.OpSinh:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathSinh, v, nil) })
	case ir.OpCosh:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathCosh, v, nil) })
	case ir.OpLog1p:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathLog1p, v, nil) })
	case ir.OpExpm1:
		return viaF32(func(v value.Value) value.Value { return g.mathFn(MathExpm1, v, nil) })
	case ir.OpAtan2, ir.OpPow:
		fn := map[ir.Kind]MathFn{ir.OpAtan2: MathAtan2, ir.OpPow: MathPow}[k]
		if !dbl {
			return g.mathFn(fn, x[0], x[1])
		}
		r := g.mathFn(fn, g.cur.NewFPTrunc(x[0], types.Float), g.cur.NewFPTrunc(x[1], types.Float))
		return g.cur.NewFPExt(r, types.Double)
	case ir.OpFloor:
		return g.cvtRound("floor", x[0])
	case ir.OpCeil:
		return g.cvtRound("ceil", x[0])
	case ir.OpTrunc:
		return g.cvtRound("trunc", x[0])
	case ir.OpRound:
		return g.roundAway(x[0])
	case ir.OpDivRN:
		return g.cur.NewFDiv(x[0], x[1])
	case ir.OpRoundTF32:
		if dbl {
			break
		}
		cvt := g.md.inlineAsm(types.I32, []types.Type{types.Float}, "cvt.rna.tf32.f32 $0, $1;", "=r,f", false)
		return g.cur.NewBitCast(g.cur.NewCall(cvt, x[0]), types.Float)
	}
	g.failf("%s is not defined on floats", k)
	return nil
}

// cvtRound rounds v to an integral value of its own type by the NVVM
// intrinsic llvm.nvvm.<mode>.f / .d, which is one PTX cvt.rmi / cvt.rpi /
// cvt.rzi (floor, ceil, trunc): exact, in f32 and f64 alike (NaN, the
// infinities and signed zeros kept). Both llc and libNVVM know the
// intrinsics; f16 and bf16 arrive widened to f32, where rounding to an
// integer and narrowing back is exact.
func (g *gen) cvtRound(mode string, v value.Value) value.Value {
	sfx := ".f"
	if v.Type() == types.Double {
		sfx = ".d"
	}
	return g.cur.NewCall(g.md.intrinsic("llvm.nvvm."+mode+sfx, true, v.Type(), v.Type()), v)
}

// roundAway is round: to the nearest integer, ties away from zero (C's
// roundf, libdevice's round, Go's math.Round), not PTX's cvt.rni (ties to
// even). t = trunc(v); |v - t| is the fraction, exact (t and v agree in
// sign and exponent down to the units); where it is at least 1/2, t moves
// one unit away from zero (exact below 2^23 (2^52), above which v is
// integral and the fraction 0). A select rather than t + 0 keeps -0 for
// v in (-1/2, -0]; NaN compares false and stays NaN, ±inf has a NaN
// fraction and stays itself.
func (g *gen) roundAway(v value.Value) value.Value {
	t := v.Type()
	tr := g.cvtRound("trunc", v)
	frac := g.fintr(map[bool]string{false: "llvm.fabs.f32", true: "llvm.fabs.f64"}[t == types.Double], g.cur.NewFSub(v, tr))
	one := g.cur.NewSelect(g.cur.NewFCmp(enum.FPredOLT, v, fconst(t, 0)), fconst(t, -1), fconst(t, 1))
	return g.cur.NewSelect(g.cur.NewFCmp(enum.FPredOGE, frac, fconst(t, 0.5)), g.cur.NewFAdd(tr, one), tr)
}

// fdiv divides like Triton: div.full.f32 (approximate, within 2 ulp, about
// 10x cheaper than IEEE div.rn) for f32 unless Options.PreciseDiv; f64
// division is IEEE.
func (g *gen) fdiv(a, b value.Value) value.Value {
	if a.Type() != types.Float || g.preciseDiv {
		return g.cur.NewFDiv(a, b)
	}
	asm := g.md.inlineAsm(types.Float, []types.Type{types.Float, types.Float}, "div.full.f32 $0, $1, $2;", "=f,f,f", false)
	return g.cur.NewCall(asm, a, b)
}

// recip1p is 1/d for a d of at least 1 (or +inf), as sigmoid's 1 + e^-x:
// rcp.approx.ftz.f32, one MUFU.RCP (within 1 ulp; the flush of subnormals
// cannot matter at d >= 1), where div.full.f32's range scaling around its
// reciprocal cost four more instructions and gives 2 ulp. Options.PreciseDiv
// keeps an IEEE division.
func (g *gen) recip1p(d value.Value) value.Value {
	if g.preciseDiv {
		return g.cur.NewFDiv(f32c(1), d)
	}
	// inline asm, as div.full.f32: libNVVM has no rcp.approx intrinsic
	a := g.md.inlineAsm(types.Float, []types.Type{types.Float}, "rcp.approx.ftz.f32 $0, $1;", "=f,f", false)
	return g.cur.NewCall(a, d)
}

// ex2 is 2^v in f32 by ex2.approx.ftz.f32: one MUFU.EX2. The form without
// .ftz also handles subnormal results (2^v for v < -126), with a compare
// and two predicated multiplies around the MUFU: four instructions, which
// in attention's softmax were a fifth of the loop.
func (g *gen) ex2(v value.Value) value.Value {
	return g.cur.NewCall(g.md.intrinsic("llvm.nvvm.ex2.approx.ftz.f", true, types.Float, types.Float), v)
}

func (g *gen) lg2(v value.Value) value.Value {
	return g.cur.NewCall(g.md.intrinsic("llvm.nvvm.lg2.approx.f", true, types.Float, types.Float), v)
}

func (g *gen) intOp(k ir.Kind, d ir.DType, x []value.Value) value.Value {
	signed := d.IsSigned()
	switch k {
	case ir.OpAdd:
		if d == ir.I1 {
			return g.xor(x[0], x[1])
		}
		return g.add(x[0], x[1])
	case ir.OpSub:
		if d == ir.I1 {
			return g.xor(x[0], x[1])
		}
		return g.sub(x[0], x[1])
	case ir.OpMul:
		if d == ir.I1 {
			return g.and(x[0], x[1])
		}
		return g.mul(x[0], x[1])
	case ir.OpDiv:
		if signed {
			return g.cur.NewSDiv(x[0], x[1])
		}
		return g.cur.NewUDiv(x[0], x[1])
	case ir.OpRem:
		if signed {
			return g.cur.NewSRem(x[0], x[1])
		}
		return g.cur.NewURem(x[0], x[1])
	case ir.OpMin, ir.OpMax:
		var p enum.IPred
		switch {
		case k == ir.OpMin && signed:
			p = enum.IPredSLT
		case k == ir.OpMin:
			p = enum.IPredULT
		case signed:
			p = enum.IPredSGT
		default:
			p = enum.IPredUGT
		}
		return g.cur.NewSelect(g.cur.NewICmp(p, x[0], x[1]), x[0], x[1])
	case ir.OpUMulHi:
		// llvm.nvvm.mulhi.ui / .ull: mul.hi.u32 / mul.hi.u64, the bits read
		// as unsigned whatever the dtype's sign (Triton's umulhi)
		if d.Bits() == 64 {
			return g.cur.NewCall(g.md.intrinsic("llvm.nvvm.mulhi.ull", true, types.I64, types.I64, types.I64), x[0], x[1])
		}
		return g.cur.NewCall(g.md.intrinsic("llvm.nvvm.mulhi.ui", true, types.I32, types.I32, types.I32), x[0], x[1])
	case ir.OpAnd:
		return g.and(x[0], x[1])
	case ir.OpOr:
		return g.or(x[0], x[1])
	case ir.OpXor:
		return g.xor(x[0], x[1])
	case ir.OpShl:
		return g.shl(x[0], x[1])
	case ir.OpShr:
		if signed {
			return g.cur.NewAShr(x[0], x[1])
		}
		return g.lshr(x[0], x[1])
	case ir.OpNeg:
		return g.sub(intConst(x[0].Type(), 0), x[0])
	case ir.OpNot:
		return g.xor(x[0], intConst(x[0].Type(), -1))
	case ir.OpPopc:
		return g.popcount(x[0])
	case ir.OpAbs:
		if !signed {
			return x[0]
		}
		neg := g.cur.NewICmp(enum.IPredSLT, x[0], intConst(x[0].Type(), 0))
		return g.cur.NewSelect(neg, g.sub(intConst(x[0].Type(), 0), x[0]), x[0])
	}
	g.failf("%s is not defined on integers", k)
	return nil
}

package interp

import (
	"math"
	"math/bits"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// asF returns v's elements as floats (converting integers).
func asF(v val, si *slotInfo) []float64 {
	if v.f != nil {
		return v.f
	}
	out := make([]float64, len(v.i))
	for k, x := range v.i {
		out[k] = intToFloat(si.dt, x)
	}
	return out
}

func (t *thread) binary(in *instr) error {
	op := in.op
	so := t.info(in.res[0])
	a, b := t.arg(in, 0), t.arg(in, 1)
	v := t.out(in, 0)
	n := so.n
	if so.float {
		if a.f == nil || b.f == nil {
			return t.errAt(op, "%s: float result from non-float operands", op.Kind)
		}
		if so.dt == ir.F32 && binaryF32(op.Kind, v.f, a.f, b.f) {
			return nil
		}
		dst, x, y := v.f, t.bcastF(a.f, n, 0), t.bcastF(b.f, n, 1)
		x, y = x[:len(dst)], y[:len(dst)]
		switch op.Kind {
		case ir.OpAdd, ir.OpSub, ir.OpMul:
			addSubMul(op.Kind, dst, x, y)
		case ir.OpDiv, ir.OpDivRN:
			for k := range dst {
				dst[k] = x[k] / y[k]
			}
		case ir.OpRem:
			for k := range dst {
				dst[k] = math.Mod(x[k], y[k])
			}
		case ir.OpAtan2:
			for k := range dst {
				dst[k] = math.Atan2(x[k], y[k])
			}
		case ir.OpPow:
			for k := range dst {
				dst[k] = math.Pow(x[k], y[k])
			}
		case ir.OpMin, ir.OpMax:
			// IEEE minNum and maxNum: a NaN operand yields the other one
			isMin := op.Kind == ir.OpMin
			for k := range dst {
				p, q := x[k], y[k]
				switch {
				case p != p:
					dst[k] = q
				case q != q:
					dst[k] = p
				case isMin:
					dst[k] = math.Min(p, q)
				default:
					dst[k] = math.Max(p, q)
				}
			}
		default:
			return t.errAt(op, "%s is not defined on %v", op.Kind, so.dt)
		}
		roundSlice(so.dt, dst)
		return nil
	}
	if a.i == nil || b.i == nil {
		return t.errAt(op, "%s: integer result from non-integer operands", op.Kind)
	}
	dst, x, y := v.i, t.bcastI(a.i, n, 0), t.bcastI(b.i, n, 1)
	x, y = x[:len(dst)], y[:len(dst)]
	unsigned := so.dt == ir.U64
	switch op.Kind {
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		addSubMul(op.Kind, dst, x, y)
	case ir.OpDiv, ir.OpRem:
		for k := range dst {
			if y[k] == 0 {
				return t.errAt(op, "integer %s by zero (element %d)", op.Kind, k)
			}
			switch {
			case unsigned && op.Kind == ir.OpDiv:
				dst[k] = int64(uint64(x[k]) / uint64(y[k]))
			case unsigned:
				dst[k] = int64(uint64(x[k]) % uint64(y[k]))
			case op.Kind == ir.OpDiv:
				dst[k] = x[k] / y[k]
			default:
				dst[k] = x[k] % y[k]
			}
		}
	case ir.OpMin, ir.OpMax:
		isMin := op.Kind == ir.OpMin
		for k := range dst {
			if less(x[k], y[k], unsigned) == isMin {
				dst[k] = x[k]
			} else {
				dst[k] = y[k]
			}
		}
	case ir.OpAnd:
		for k := range dst {
			dst[k] = x[k] & y[k]
		}
	case ir.OpOr:
		for k := range dst {
			dst[k] = x[k] | y[k]
		}
	case ir.OpXor:
		for k := range dst {
			dst[k] = x[k] ^ y[k]
		}
	case ir.OpShl:
		for k := range dst {
			dst[k] = x[k] << uint64(y[k])
		}
	case ir.OpShr:
		for k := range dst {
			if so.dt.IsUnsigned() {
				dst[k] = int64(uint64(x[k]) >> uint64(y[k]))
			} else {
				dst[k] = x[k] >> uint64(y[k])
			}
		}
	case ir.OpUMulHi:
		// the operands' bits read as unsigned, whatever the dtype's sign
		// (mul.hi.u32 / mul.hi.u64, as Triton's umulhi)
		if so.dt.Bits() == 64 {
			for k := range dst {
				hi, _ := bits.Mul64(uint64(x[k]), uint64(y[k]))
				dst[k] = int64(hi)
			}
			break
		}
		for k := range dst {
			dst[k] = int64((uint64(uint32(x[k])) * uint64(uint32(y[k]))) >> 32)
		}
	default:
		return t.errAt(op, "%s is not defined on %v", op.Kind, so.dt)
	}
	wrapSlice(so.dt, dst)
	if op.Kind == ir.OpAdd && so.dt.Bits() >= 32 && n > 0 {
		// the sum of consecutive and uniform integers is consecutive
		// after wrapping when its ends still are: wrapping subtracts a
		// multiple of 2^bits that grows with the value, the same at both
		// ends only if the same everywhere
		if f := seqSum(a, b); f != 0 && dst[n-1] == dst[0]+int64(n-1) {
			t.setFacts(in, 0, f)
		}
	}
	return nil
}

// binaryF32 computes dst = x k y rounded to f32 for k add, sub, mul or
// div in one pass, a scalar operand read without splatting it; it reports
// false (and does nothing) for another kind or operands of other lengths.
// Each element is the float64 result rounded to float32, as the general
// path's roundSlice does.
func binaryF32(k ir.Kind, dst, x, y []float64) bool {
	n := len(dst)
	switch {
	case len(x) == n && len(y) == n:
		x, y = x[:n], y[:n]
		switch k {
		case ir.OpAdd:
			for i := range dst {
				dst[i] = float64(float32(x[i] + y[i]))
			}
		case ir.OpSub:
			for i := range dst {
				dst[i] = float64(float32(x[i] - y[i]))
			}
		case ir.OpMul:
			for i := range dst {
				dst[i] = float64(float32(x[i] * y[i]))
			}
		case ir.OpDiv, ir.OpDivRN:
			for i := range dst {
				dst[i] = float64(float32(x[i] / y[i]))
			}
		default:
			return false
		}
	case len(x) == n && len(y) == 1:
		s := y[0]
		x = x[:n]
		switch k {
		case ir.OpAdd:
			for i := range dst {
				dst[i] = float64(float32(x[i] + s))
			}
		case ir.OpSub:
			for i := range dst {
				dst[i] = float64(float32(x[i] - s))
			}
		case ir.OpMul:
			for i := range dst {
				dst[i] = float64(float32(x[i] * s))
			}
		case ir.OpDiv, ir.OpDivRN:
			for i := range dst {
				dst[i] = float64(float32(x[i] / s))
			}
		default:
			return false
		}
	case len(x) == 1 && len(y) == n:
		s := x[0]
		y = y[:n]
		switch k {
		case ir.OpAdd:
			for i := range dst {
				dst[i] = float64(float32(s + y[i]))
			}
		case ir.OpSub:
			for i := range dst {
				dst[i] = float64(float32(s - y[i]))
			}
		case ir.OpMul:
			for i := range dst {
				dst[i] = float64(float32(s * y[i]))
			}
		case ir.OpDiv, ir.OpDivRN:
			for i := range dst {
				dst[i] = float64(float32(s / y[i]))
			}
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// addSubMul computes dst = x k y for k add, sub or mul, which read alike
// on floats and integers (the caller rounds or wraps dst).
func addSubMul[T float64 | int64](k ir.Kind, dst, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	switch k {
	case ir.OpAdd:
		for k := range dst {
			dst[k] = x[k] + y[k]
		}
	case ir.OpSub:
		for k := range dst {
			dst[k] = x[k] - y[k]
		}
	case ir.OpMul:
		for k := range dst {
			dst[k] = x[k] * y[k]
		}
	}
}

func less(a, b int64, unsigned bool) bool {
	if unsigned {
		return uint64(a) < uint64(b)
	}
	return a < b
}

func wrapSlice(d ir.DType, xs []int64) {
	switch d {
	case ir.I64, ir.U64:
	case ir.I32:
		for k, v := range xs {
			xs[k] = int64(int32(v))
		}
	default:
		for k, v := range xs {
			xs[k] = d.WrapInt(v)
		}
	}
}

func (t *thread) unary(in *instr) error {
	op := in.op
	so := t.info(in.res[0])
	a := t.arg(in, 0)
	v := t.out(in, 0)
	if so.float {
		if a.f == nil {
			return t.errAt(op, "%s: float result from a non-float operand", op.Kind)
		}
		dst, x := v.f, t.bcastF(a.f, so.n, 0)
		x = x[:len(dst)]
		var fn func(float64) float64
		switch op.Kind {
		case ir.OpNeg:
			for k := range dst {
				dst[k] = -x[k]
			}
		case ir.OpAbs:
			fn = math.Abs
		case ir.OpExp:
			fn = math.Exp
		case ir.OpExp2:
			fn = math.Exp2
		case ir.OpLog:
			fn = math.Log
		case ir.OpLog2:
			fn = math.Log2
		case ir.OpSqrt:
			fn = math.Sqrt
		case ir.OpRsqrt:
			fn = func(x float64) float64 { return 1 / math.Sqrt(x) }
		case ir.OpSigmoid:
			fn = func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
		case ir.OpTanh:
			fn = math.Tanh
		case ir.OpErf:
			fn = math.Erf
		case ir.OpSin:
			fn = math.Sin
		case ir.OpCos:
			fn = math.Cos
		case ir.OpTan:
			fn = math.Tan
		case ir.OpAsin:
			fn = math.Asin
		case ir.OpAcos:
			fn = math.Acos
		case ir.OpAtan:
			fn = math.Atan
		case ir.OpSinh:
			fn = math.Sinh
		case ir.OpCosh:
			fn = math.Cosh
		case ir.OpLog1p:
			fn = math.Log1p
		case ir.OpExpm1:
			fn = math.Expm1
		case ir.OpFloor:
			fn = math.Floor
		case ir.OpCeil:
			fn = math.Ceil
		case ir.OpTrunc:
			fn = math.Trunc
		case ir.OpRound:
			fn = math.Round
		case ir.OpRoundTF32:
			fn = floats.RoundTF32
		default:
			return t.errAt(op, "%s is not defined on %v", op.Kind, so.dt)
		}
		if fn != nil {
			for k := range dst {
				dst[k] = fn(x[k])
			}
		}
		roundSlice(so.dt, dst)
		return nil
	}
	if a.i == nil {
		return t.errAt(op, "%s: integer result from a non-integer operand", op.Kind)
	}
	dst, x := v.i, t.bcastI(a.i, so.n, 0)
	x = x[:len(dst)]
	switch op.Kind {
	case ir.OpNeg:
		for k := range dst {
			dst[k] = -x[k]
		}
	case ir.OpNot:
		for k := range dst {
			dst[k] = ^x[k]
		}
	case ir.OpAbs:
		for k := range dst {
			if x[k] < 0 && !so.dt.IsUnsigned() {
				dst[k] = -x[k]
			} else {
				dst[k] = x[k]
			}
		}
	default:
		return t.errAt(op, "%s is not defined on %v", op.Kind, so.dt)
	}
	wrapSlice(so.dt, dst)
	return nil
}

func (t *thread) cmp(in *instr) error {
	op := in.op
	sa := t.info(in.args[0])
	a, b := t.arg(in, 0), t.arg(in, 1)
	pred := op.Attrs.String("pred")
	if n := t.info(in.res[0]).n; in.lazy && n > 1 && pred == "lt" && a.i != nil && b.i != nil && sa.dt != ir.U64 &&
		a.facts&factSeq != 0 && a.facts&factLazy == 0 && len(a.i) == n && b.uniform() && a.i[0] <= a.i[n-1] && a.i[n-1] < b.i[0] {
		// consecutive lanes that do not wrap, the last under the bound:
		// every lane is on (cols < n_cols), and every user stretches a
		// scalar: one element, all on
		v := val{i: t.pool.getI(1), facts: factUni | factOn}
		v.i[0] = 1
		t.c.regs[in.res[0]] = v
		return nil
	}
	v := t.out(in, 0)
	dst := v.i
	n := len(dst)
	var ok bool
	if a.f != nil {
		if b.f == nil {
			return t.errAt(op, "cmp of a float with a non-float")
		}
		ok = compare(pred, dst, t.bcastF(a.f, n, 0)[:n], t.bcastF(b.f, n, 1)[:n])
	} else {
		if a.i == nil || b.i == nil {
			return t.errAt(op, "cmp of an integer with a non-integer")
		}
		x, y := t.bcastI(a.i, n, 0)[:n], t.bcastI(b.i, n, 1)[:n]
		if sa.dt == ir.U64 && !sa.ptr {
			// the unsigned order is the signed order with the sign bits flipped
			x, y = flipSign(&t.pool.scrI[0], x), flipSign(&t.pool.scrI[1], y)
		}
		ok = compare(pred, dst, x, y)
		if ok && pred == "lt" && sa.dt != ir.U64 && a.facts&factSeq != 0 && b.uniform() && n > 0 && x[0] <= x[n-1] && x[n-1] < y[0] {
			// consecutive lanes that do not wrap, the last under the
			// bound: every lane is (a mask all on, as cols < n_cols)
			t.setFacts(in, 0, factOn)
		}
	}
	if !ok {
		return t.errAt(op, "cmp: unknown predicate %q", pred)
	}
	return nil
}

// compare sets dst[k] to 1 where x[k] pred y[k] holds, else to 0; it
// reports false for an unknown pred.
func compare[T float64 | int64](pred string, dst []int64, x, y []T) bool {
	x, y = x[:len(dst)], y[:len(dst)]
	switch pred {
	case "lt":
		for k := range dst {
			dst[k] = b2i(x[k] < y[k])
		}
	case "le":
		for k := range dst {
			dst[k] = b2i(x[k] <= y[k])
		}
	case "gt":
		for k := range dst {
			dst[k] = b2i(x[k] > y[k])
		}
	case "ge":
		for k := range dst {
			dst[k] = b2i(x[k] >= y[k])
		}
	case "eq":
		for k := range dst {
			dst[k] = b2i(x[k] == y[k])
		}
	case "ne":
		for k := range dst {
			dst[k] = b2i(x[k] != y[k])
		}
	default:
		return false
	}
	return true
}

// flipSign returns x with every sign bit flipped, in the scratch array
// *scr (which x may be).
func flipSign(scr *[]int64, x []int64) []int64 {
	s := scratch(scr, len(x))
	for k, v := range x {
		s[k] = v ^ math.MinInt64
	}
	return s
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (t *thread) sel(in *instr) error {
	c, a, b := t.arg(in, 0), t.arg(in, 1), t.arg(in, 2)
	v := t.out(in, 0)
	n := t.info(in.res[0]).n
	if c.i == nil {
		return t.errAt(in.op, "select: condition is not i1")
	}
	if v.f != nil && (a.f == nil || b.f == nil) {
		return t.errAt(in.op, "select: operands do not match the float result")
	}
	if v.f == nil && (a.i == nil || b.i == nil) {
		return t.errAt(in.op, "select: operands do not match the integer result")
	}
	if len(c.i) == 1 && n > 1 {
		// a uniform condition (an unsplatted scalar, a mask all on): one
		// operand, whole
		x := b
		if c.i[0] != 0 {
			x = a
		}
		if v.f != nil {
			copy(v.f, t.bcastF(x.f, n, 0))
		} else {
			copy(v.i, t.bcastI(x.i, n, 0))
		}
		return nil
	}
	cond := t.bcastI(c.i, n, 2)[:n]
	if v.f != nil {
		choose(v.f, cond, t.bcastF(a.f, n, 0)[:n], t.bcastF(b.f, n, 1)[:n])
		return nil
	}
	choose(v.i, cond, t.bcastI(a.i, n, 0)[:n], t.bcastI(b.i, n, 1)[:n])
	return nil
}

// fma computes a*b + c exactly, rounded once to the dtype (ir.DType.FMA).
func (t *thread) fma(in *instr) error {
	so := t.info(in.res[0])
	a, b, c := t.arg(in, 0), t.arg(in, 1), t.arg(in, 2)
	v := t.out(in, 0)
	if !so.float || !so.dt.HasFMA() || a.f == nil || b.f == nil || c.f == nil {
		return t.errAt(in.op, "fma is not defined on %v", so.dt)
	}
	n := so.n
	x, y, z := t.bcastF(a.f, n, 0)[:n], t.bcastF(b.f, n, 1)[:n], t.bcastF(c.f, n, 2)[:n]
	for k := range v.f[:n] {
		v.f[k] = so.dt.FMA(x[k], y[k], z[k])
	}
	return nil
}

// choose sets dst[k] to x[k] where cond[k] is nonzero, else to y[k].
func choose[T float64 | int64](dst []T, cond []int64, x, y []T) {
	for k := range dst {
		if cond[k] != 0 {
			dst[k] = x[k]
		} else {
			dst[k] = y[k]
		}
	}
}

func (t *thread) cast(in *instr) error {
	si, so := t.info(in.args[0]), t.info(in.res[0])
	a := t.arg(in, 0)
	v := t.out(in, 0)
	n := so.n
	switch {
	case so.float && a.f != nil && in.op.Attrs.String("rounding") == "rtz":
		for k, x := range t.bcastF(a.f, n, 0)[:n] {
			v.f[k] = roundTowardZero(so.dt, x)
		}
	case so.float && a.f != nil:
		copy(v.f, t.bcastF(a.f, n, 0))
		roundSlice(so.dt, v.f)
	case so.float:
		x := t.bcastI(a.i, n, 0)
		for k := range v.f {
			v.f[k] = intToFloat(si.dt, x[k])
		}
		roundSlice(so.dt, v.f)
	case a.f != nil:
		x := t.bcastF(a.f, n, 0)
		for k := range v.i {
			v.i[k] = floatToInt(so.dt, x[k])
		}
	default:
		x := t.bcastI(a.i, n, 0)
		if so.ptr || si.ptr {
			copy(v.i, x)
			return nil
		}
		if so.dt == ir.I1 {
			for k := range v.i {
				v.i[k] = b2i(x[k] != 0)
			}
			return nil
		}
		copy(v.i, x)
		wrapSlice(so.dt, v.i)
	}
	return nil
}

func (t *thread) addptr(in *instr) error {
	a, b := t.arg(in, 0), t.arg(in, 1)
	if a.i == nil || b.i == nil {
		return t.errAt(in.op, "addptr needs a pointer and an integer offset")
	}
	if n := t.info(in.res[0]).n; in.lazy && n > 1 && seqSum(a, b) != 0 && a.facts&factLazy == 0 && b.facts&factLazy == 0 {
		// consecutive pointers that only loads and stores read: the
		// first one stands for all (factLazy)
		v := val{i: t.pool.getI(1), facts: factSeq | factLazy}
		v.i[0] = a.i[0] + b.i[0]
		t.c.regs[in.res[0]] = v
		return nil
	}
	v := t.out(in, 0)
	n := len(v.i)
	// a scalar operand is added without splatting it; a uniform one plus
	// consecutive ones stays consecutive (the fact loads and stores use)
	switch {
	case len(a.i) == 1 && len(b.i) == n:
		x := a.i[0]
		for k, y := range b.i {
			v.i[k] = x + y
		}
	case len(b.i) == 1 && len(a.i) == n:
		y := b.i[0]
		for k, x := range a.i {
			v.i[k] = x + y
		}
	default:
		x, y := t.bcastI(a.i, n, 0)[:n], t.bcastI(b.i, n, 1)[:n]
		for k := range v.i {
			v.i[k] = x[k] + y[k]
		}
	}
	t.setFacts(in, 0, seqSum(a, b))
	return nil
}

// seqSum is the facts of the elementwise sum of a and b (before any
// wrapping): consecutive when one is and the other is uniform.
func seqSum(a, b val) facts {
	if a.facts&factSeq != 0 && b.uniform() || b.facts&factSeq != 0 && a.uniform() {
		return factSeq
	}
	return 0
}

// ---- shapes

// gather writes dst in row-major order over shape, reading
// src[base + sum(idx[d] * strides[d])].
func gather[T float64 | int64](dst, src []T, shape, strides []int, base int) {
	switch len(shape) {
	case 0:
		dst[0] = src[base]
		return
	case 1:
		n, s := shape[0], strides[0]
		if s == 1 {
			copy(dst[:n], src[base:base+n])
			return
		}
		for k := 0; k < n; k++ {
			dst[k] = src[base+k*s]
		}
		return
	case 2:
		r, c, s0, s1 := shape[0], shape[1], strides[0], strides[1]
		for i := 0; i < r; i++ {
			row := dst[i*c : (i+1)*c]
			o := base + i*s0
			if s1 == 1 {
				copy(row, src[o:o+c])
				continue
			}
			for j := range row {
				row[j] = src[o+j*s1]
			}
		}
		return
	}
	stridedCopy(dst, src, shape, strides, base, true)
}

// scatter is gather's inverse: dst[base + sum(idx*strides)] = src[k].
func scatter[T float64 | int64](dst, src []T, shape, strides []int, base int) {
	if len(shape) == 0 {
		dst[base] = src[0]
		return
	}
	stridedCopy(src, dst, shape, strides, base, false)
}

// stridedCopy copies between dense, row-major over shape (rank 1 or more),
// and strided[base + sum(idx[d] * strides[d])]: into dense if gather, else
// out of it.
func stridedCopy[T float64 | int64](dense, strided []T, shape, strides []int, base int, gather bool) {
	idx := make([]int, len(shape))
	inner := len(shape) - 1
	n, s := shape[inner], strides[inner]
	for k := 0; k < len(dense); k += n {
		o := base
		for d := 0; d < inner; d++ {
			o += idx[d] * strides[d]
		}
		if gather {
			for j := 0; j < n; j++ {
				dense[k+j] = strided[o+j*s]
			}
		} else {
			for j := 0; j < n; j++ {
				strided[o+j*s] = dense[k+j]
			}
		}
		for d := inner - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

func rowMajorStrides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		st[d] = s
		s *= shape[d]
	}
	return st
}

func (t *thread) broadcast(in *instr) error {
	si, so := t.info(in.args[0]), t.info(in.res[0])
	a := t.arg(in, 0)
	v := t.out(in, 0)
	if si.n == 1 {
		if v.f != nil {
			copy(v.f, t.bcastF(a.f, so.n, 0))
		} else {
			copy(v.i, t.bcastI(a.i, so.n, 0))
		}
		return nil
	}
	src := si.shape
	if len(src) > len(so.shape) {
		return t.errAt(in.op, "broadcast from %v to %v", si.typ, so.typ)
	}
	// align trailing dimensions, NumPy style
	pad := len(so.shape) - len(src)
	full := make([]int, len(so.shape))
	for d := range full {
		full[d] = 1
		if d >= pad {
			full[d] = src[d-pad]
		}
	}
	rs := rowMajorStrides(full)
	strides := make([]int, len(full))
	for d := range full {
		switch {
		case full[d] == so.shape[d]:
			strides[d] = rs[d]
		case full[d] == 1:
			strides[d] = 0
		default:
			return t.errAt(in.op, "broadcast from %v to %v", si.typ, so.typ)
		}
	}
	if v.f != nil {
		gather(v.f, a.f, so.shape, strides, 0)
	} else {
		gather(v.i, a.i, so.shape, strides, 0)
	}
	return nil
}

func (t *thread) trans(in *instr) error {
	si, so := t.info(in.args[0]), t.info(in.res[0])
	perm := in.op.Attrs.Ints("perm")
	if len(perm) == 0 && len(si.shape) == 2 {
		perm = []int{1, 0}
	}
	if len(perm) != len(si.shape) {
		return t.errAt(in.op, "trans: permutation %v for a tile of rank %d", perm, len(si.shape))
	}
	rs := rowMajorStrides(si.shape)
	strides := make([]int, len(perm))
	for k, p := range perm {
		strides[k] = rs[p]
	}
	a := t.arg(in, 0)
	v := t.out(in, 0)
	if v.f != nil {
		gather(v.f, a.f, so.shape, strides, 0)
	} else {
		gather(v.i, a.i, so.shape, strides, 0)
	}
	return nil
}

// bitcast reinterprets the bits of each element as the result's dtype (of
// the same width; the verifier sees to it): a float's bits are its
// encoding (floatBits), bits become a float by decoding (bitsFloat), and
// integers of one width are the same bits wrapped to the other dtype.
func (t *thread) bitcast(in *instr) error {
	si, so := t.info(in.args[0]), t.info(in.res[0])
	if si.ptr || so.ptr || si.dt.Bits() != so.dt.Bits() {
		return t.errAt(in.op, "bitcast from %v to %v", si.typ, so.typ)
	}
	a := t.arg(in, 0)
	v := t.out(in, 0)
	n := so.n
	switch {
	case so.float && a.f != nil:
		x := t.bcastF(a.f, n, 0)
		for k := range v.f {
			v.f[k] = bitsFloat(so.dt, floatBits(si.dt, x[k]))
		}
	case so.float:
		x := t.bcastI(a.i, n, 0)
		for k := range v.f {
			v.f[k] = bitsFloat(so.dt, uint64(x[k]))
		}
	case a.f != nil:
		x := t.bcastF(a.f, n, 0)
		for k := range v.i {
			v.i[k] = int64(floatBits(si.dt, x[k]))
		}
		wrapSlice(so.dt, v.i)
	default:
		copy(v.i, t.bcastI(a.i, n, 0))
		wrapSlice(so.dt, v.i)
	}
	return nil
}

// A NaN of f32, f16, bf16 or fp8 is held as the float64 NaN with its sign
// and its mantissa in the top mantissa bits (what Go's float32 -> float64
// conversion gives a quiet f32 NaN, and how a bf16 buffer's NaN reads), so
// that bitsFloat and floatBits give back every NaN's bits, payload and
// signaling bit included. Other NaNs (math.NaN(), an f16 buffer's) encode
// as the dtype's stores do.

// floatBits is the bit pattern of x, a value of float dtype d (-0 keeps
// its sign).
func floatBits(d ir.DType, x float64) uint64 {
	if d == ir.F64 {
		return math.Float64bits(x)
	}
	if x != x {
		man, sign, exp := 23, uint64(1)<<31, uint64(0xff)<<23
		if f, ok := d.FloatFormat(); ok {
			inf, _ := floats.Inf(f)
			man, sign, exp = f.MantissaBits(), uint64(f.SignBit()), uint64(inf)
		}
		u := math.Float64bits(x)
		shift := uint(52 - man)
		if m := u >> shift & (1<<man - 1); m != 0 && u&(1<<shift-1) == 0 {
			b := exp | m
			if u>>63 != 0 {
				b |= sign
			}
			return b
		}
	}
	return encodeFloat(d, x)
}

// bitsFloat is the value of bit pattern u of float dtype d.
func bitsFloat(d ir.DType, u uint64) float64 {
	switch d {
	case ir.F64:
		return math.Float64frombits(u)
	case ir.F32:
		u &= 1<<32 - 1
		if u&0x7f800000 == 0x7f800000 && u&0x7fffff != 0 {
			return nanOf(u>>31, u&0x7fffff, 23)
		}
		return float64(math.Float32frombits(uint32(u)))
	}
	return decodeFloat(d, u)
}

// nanOf is the float64 NaN holding a NaN of a format with man mantissa
// bits: its sign bit and mantissa m (non-zero) in the top mantissa bits.
func nanOf(sign, m uint64, man int) float64 {
	return math.Float64frombits(sign<<63 | 0x7ff<<52 | m<<(52-man))
}

// ---- pointers as integers (pointer tables)

// The interpreter's address of a global pointer is its region id above
// offBits and its byte offset below: id<<offBits + offset*elemBytes, what
// ptrtoint gives and inttoptr takes. Regions are the buffers a launch
// hands out (its pointer arguments and the entries of PointerTable
// arguments), so an integer maps back to a buffer only when it is such an
// address; one from anywhere else is an error naming the inttoptr.

// address is the interpreter's integer address of element off of the
// buffer whose region id is id, for a pointee of elemBytes bytes.
func address(id int, off int64, elemBytes int) int64 { return pack(id, off*int64(elemBytes)) }

func (t *thread) ptrToInt(in *instr) error {
	si := t.info(in.args[0])
	a := t.arg(in, 0)
	v := t.out(in, 0)
	size := int64(si.dt.Bytes())
	for k, p := range t.bcastI(a.i, len(v.i), 0)[:len(v.i)] {
		id, off := unpack(p)
		v.i[k] = pack(id, off*size)
	}
	return nil
}

func (t *thread) intToPtr(in *instr) error {
	so := t.info(in.res[0])
	a := t.arg(in, 0)
	v := t.out(in, 0)
	size := int64(so.dt.Bytes())
	x := t.bcastI(a.i, len(v.i), 0)[:len(v.i)]
	lastID := -1
	for k, p := range x {
		id, b := unpack(p)
		if id != lastID {
			rg := t.c.l.reg.get(id)
			switch {
			case id == 0 || rg == nil || rg.shared || rg.guard != nil:
				return t.errAt(in.op, "inttoptr: %#x (element %d) is no address this launch handed out: an integer becomes a pointer only when it is one (a pointer argument's or a pointer table's, through ptrtoint or the table)", uint64(p), k)
			case rg.buf.dtype != so.dt:
				return t.errAt(in.op, "inttoptr: %#x (element %d) is an address into %s, a %v buffer, used as %v (a buffer's elements keep their dtype)", uint64(p), k, rg.name, rg.buf.dtype, so.typ)
			}
			lastID = id
		}
		if b%size != 0 {
			return t.errAt(in.op, "inttoptr: %#x (element %d) is byte %d of %s, not a multiple of %d (the size of %v)", uint64(p), k, b, t.c.l.reg.get(id).name, size, so.dt)
		}
		v.i[k] = pack(id, b/size)
	}
	return nil
}

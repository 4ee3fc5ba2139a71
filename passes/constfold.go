package passes

import (
	"math"
	"math/bits"

	"github.com/tlego/tle/ir"
)

// ConstFold evaluates ops whose operands are constants (scalars or splat
// tiles) and turns them into constant ops in place (keeping their result
// value, name and position):
//
//   - element-wise integer arithmetic, bitwise ops and shifts, with the
//     dtype's wrap-around (not: division or remainder by zero, shifts by
//     the bit width or more);
//   - float add, sub, mul, neg, abs, min, max, rounded to the dtype with
//     DType.Round, and fma, rounded once with DType.FMA (not: div and the
//     transcendental functions, which the GPU computes approximately);
//   - cmp (float: ordered, except ne, which is true on NaN), select on a
//     constant condition, casts with DType.Round (not: float-to-int casts
//     out of the target's range, int-to-float beyond 2^53);
//   - integer cmp that the operands' ranges decide for every element
//     (cfRange: constants and aranges through splat, broadcast, add, sub,
//     mul and widening casts), as arange(0, KP) < K with K = KP: the mask
//     of a head size that needs no padding;
//   - and / or of i1 with a constant operand (x & true is x, x | false is
//     x, x & false is false, x | true is true);
//   - splat, broadcast, expand_dims, reshape and trans of constants;
//   - if on a constant condition (the taken branch replaces the if), for
//     loops that run zero times (step > 0, lb >= ub: results are the inits)
//     and for loops that run once (their body replaces them).
//
// The constants it no longer needs are left for DCE.
func ConstFold(m *ir.Module, ctx *Context) error {
	for _, f := range m.Funcs {
		cf := &cfFolder{f: f}
		for range 16 {
			cf.changed = false
			cf.block(f.Body)
			if !cf.changed {
				break
			}
		}
	}
	return nil
}

type cfFolder struct {
	f       *ir.Func
	changed bool
}

// cfCval is a constant element: an integer (two's-complement bits, wrapped to
// its dtype) or a float.
type cfCval struct {
	i int64
	f float64
}

func cfDtypeOf(t ir.Type) ir.DType {
	d, _ := ir.Elem(t).(ir.DType)
	return d
}

// cfConstOf returns v's value when v is the result of a constant op.
func cfConstOf(v *ir.Value) (cfCval, ir.DType, bool) {
	if v.Def == nil || v.Def.Kind != ir.OpConstant {
		return cfCval{}, ir.Invalid, false
	}
	d := cfDtypeOf(v.Type)
	if d == ir.Invalid {
		return cfCval{}, d, false
	}
	switch x := v.Def.Attrs["value"].(type) {
	case int64:
		if d.IsFloat() {
			return cfCval{f: float64(x)}, d, true
		}
		return cfCval{i: x}, d, true
	case float64:
		if d.IsFloat() {
			return cfCval{f: x}, d, true
		}
	case bool:
		if !d.IsFloat() {
			if x {
				return cfCval{i: 1}, d, true
			}
			return cfCval{}, d, true
		}
	}
	return cfCval{}, ir.Invalid, false
}

// setConst turns op into a constant of its result type.
func (cf *cfFolder) setConst(op *ir.Op, d ir.DType, v cfCval) {
	op.Kind = ir.OpConstant
	op.Operands = nil
	op.Regions = nil
	switch {
	case d == ir.I1:
		op.Attrs = ir.Attrs{"value": v.i != 0}
	case d.IsFloat():
		op.Attrs = ir.Attrs{"value": d.Round(v.f)}
	default:
		op.Attrs = ir.Attrs{"value": d.WrapInt(v.i)}
	}
	cf.changed = true
}

func (cf *cfFolder) block(b *ir.Block) {
	for i := 0; i < len(b.Ops); i++ {
		op := b.Ops[i]
		switch op.Kind {
		case ir.OpIf:
			if c, _, ok := cfConstOf(op.Operands[0]); ok {
				cf.inlineIf(op, c.i != 0)
				i-- // the taken branch's ops now start at i
				continue
			}
		case ir.OpFor:
			if cf.zeroTrip(op) {
				for j, r := range op.Results {
					cf.f.ReplaceAllUses(r, op.Operands[3+j])
				}
				op.Remove()
				cf.changed = true
				i--
				continue
			}
			if cf.oneTrip(op) {
				cf.inlineOneTrip(op)
				i-- // the body's ops now start at i
				continue
			}
		case ir.OpAnd, ir.OpOr:
			if cf.foldLogic(op) {
				op.Remove()
				i--
				continue
			}
			cf.fold(op)
		case ir.OpSelect:
			if c, _, ok := cfConstOf(op.Operands[0]); ok {
				pick := op.Operands[2]
				if c.i != 0 {
					pick = op.Operands[1]
				}
				cf.f.ReplaceAllUses(op.Results[0], pick)
				op.Remove()
				cf.changed = true
				i--
				continue
			}
		default:
			cf.fold(op)
		}
		for _, rg := range op.Regions {
			cf.block(rg)
		}
	}
}

func (cf *cfFolder) inlineIf(op *ir.Op, cond bool) {
	var taken *ir.Block
	if cond {
		taken = op.Regions[0]
	} else if len(op.Regions) > 1 {
		taken = op.Regions[1]
	}
	if taken != nil {
		if y := ir.MoveOpsBefore(op, taken); y != nil {
			for j, r := range op.Results {
				cf.f.ReplaceAllUses(r, y.Operands[j])
			}
		}
	}
	op.Remove()
	cf.changed = true
}

func (cf *cfFolder) zeroTrip(op *ir.Op) bool {
	lb, d, ok1 := cfConstOf(op.Operands[0])
	ub, _, ok2 := cfConstOf(op.Operands[1])
	st, _, ok3 := cfConstOf(op.Operands[2])
	if !ok1 || !ok2 || !ok3 || d.IsFloat() {
		return false
	}
	return cfLess(d, 0, st.i) && !cfLess(d, lb.i, ub.i)
}

// oneTrip reports a for loop with constant bounds that runs exactly once
// (step > 0, lb < ub <= lb + step).
func (cf *cfFolder) oneTrip(op *ir.Op) bool {
	if _, ok := op.Attrs["while"]; ok {
		return false // its one iteration runs only while its flag holds
	}
	lb, d, ok1 := cfConstOf(op.Operands[0])
	ub, _, ok2 := cfConstOf(op.Operands[1])
	st, _, ok3 := cfConstOf(op.Operands[2])
	if !ok1 || !ok2 || !ok3 || d.IsFloat() || !cfLess(d, 0, st.i) || !cfLess(d, lb.i, ub.i) {
		return false
	}
	if d != ir.U64 && (lb.i > math.MaxInt64-st.i) {
		return false
	}
	return !cfLess(d, lb.i+st.i, ub.i)
}

// inlineOneTrip replaces a loop that runs once by its body: the induction
// variable is the lower bound, the carried values their initial ones, the
// results the values the body yields.
func (cf *cfFolder) inlineOneTrip(op *ir.Op) {
	body := op.Regions[0]
	body.ReplaceAllUsesIn(body.Args[0], op.Operands[0])
	for j, a := range body.Args[1:] {
		body.ReplaceAllUsesIn(a, op.Operands[3+j])
	}
	if y := ir.MoveOpsBefore(op, body); y != nil {
		for j, r := range op.Results {
			cf.f.ReplaceAllUses(r, y.Operands[j])
		}
	}
	op.Remove()
	cf.changed = true
}

// cfLess compares integers of dtype d (unsigned 64-bit values are bit patterns).
func cfLess(d ir.DType, a, b int64) bool {
	if d == ir.U64 {
		return uint64(a) < uint64(b)
	}
	return a < b
}

func (cf *cfFolder) fold(op *ir.Op) {
	if len(op.Results) != 1 || len(op.Operands) == 0 {
		return
	}
	if cf.foldByRange(op) {
		return
	}
	vals := make([]cfCval, len(op.Operands))
	var src ir.DType
	for i, x := range op.Operands {
		c, d, ok := cfConstOf(x)
		if !ok {
			return
		}
		vals[i], src = c, d
	}
	res := op.Results[0]
	d := cfDtypeOf(res.Type)
	if d == ir.Invalid {
		return
	}
	switch op.Kind {
	case ir.OpSplat, ir.OpBroadcast, ir.OpExpandDims, ir.OpReshape, ir.OpTrans:
		cf.setConst(op, d, vals[0])
	case ir.OpCast:
		if op.Attrs.String("rounding") != "" {
			return // rounds toward zero: left to the device (cfCastConst rounds to nearest)
		}
		if v, ok := cfCastConst(src, d, vals[0]); ok {
			cf.setConst(op, d, v)
		}
	case ir.OpCmp:
		if r, ok := cfCompare(src, op.Attrs.String("pred"), vals[0], vals[1]); ok {
			v := cfCval{}
			if r {
				v.i = 1
			}
			cf.setConst(op, d, v)
		}
	case ir.OpNeg, ir.OpNot, ir.OpAbs, ir.OpPopc:
		if v, ok := cfUnary(op.Kind, d, vals[0]); ok {
			cf.setConst(op, d, v)
		}
	case ir.OpFMA:
		if d.HasFMA() && src == d {
			cf.setConst(op, d, cfCval{f: d.FMA(vals[0].f, vals[1].f, vals[2].f)})
		}
	default:
		if !op.Kind.IsElementwise() || len(vals) != 2 || src != d {
			return
		}
		var v cfCval
		var ok bool
		if d.IsFloat() {
			v, ok = cfBinaryFloat(op.Kind, d, vals[0].f, vals[1].f)
		} else {
			v, ok = cfBinaryInt(op.Kind, d, vals[0].i, vals[1].i)
		}
		if ok {
			cf.setConst(op, d, v)
		}
	}
}

func cfCastConst(s, d ir.DType, v cfCval) (cfCval, bool) {
	switch {
	case s.IsFloat() && d.IsFloat():
		return cfCval{f: d.Round(v.f)}, true
	case s.IsFloat():
		if d == ir.I1 {
			return cfCval{i: int64(d.Round(v.f))}, true
		}
		t := math.Trunc(v.f)
		if math.IsNaN(t) || t < cfMinInt(d) || t > cfMaxInt(d) {
			return cfCval{}, false // out of range: no portable answer
		}
		if d == ir.U64 {
			return cfCval{i: int64(uint64(t))}, true
		}
		return cfCval{i: int64(t)}, true
	case d.IsFloat():
		x := float64(v.i)
		if s == ir.U64 {
			x = float64(uint64(v.i))
		}
		if math.Abs(x) > 1<<53 {
			return cfCval{}, false // float64 would round before the dtype does
		}
		return cfCval{f: d.Round(x)}, true
	case d == ir.I1:
		if v.i != 0 {
			return cfCval{i: 1}, true
		}
		return cfCval{}, true
	}
	return cfCval{i: d.WrapInt(v.i)}, true
}

func cfMinInt(d ir.DType) float64 {
	if d.IsUnsigned() {
		return 0
	}
	return -math.Ldexp(1, d.Bits()-1)
}

func cfMaxInt(d ir.DType) float64 {
	if d.IsUnsigned() {
		return math.Ldexp(1, d.Bits()) - 1
	}
	return math.Ldexp(1, d.Bits()-1) - 1
}

func cfCompare(d ir.DType, pred string, a, b cfCval) (bool, bool) {
	if d.IsFloat() {
		x, y := a.f, b.f
		switch pred {
		case "lt":
			return x < y, true
		case "le":
			return x <= y, true
		case "gt":
			return x > y, true
		case "ge":
			return x >= y, true
		case "eq":
			return x == y, true
		case "ne":
			return x != y, true
		}
		return false, false
	}
	switch pred {
	case "lt":
		return cfLess(d, a.i, b.i), true
	case "le":
		return !cfLess(d, b.i, a.i), true
	case "gt":
		return cfLess(d, b.i, a.i), true
	case "ge":
		return !cfLess(d, a.i, b.i), true
	case "eq":
		return a.i == b.i, true
	case "ne":
		return a.i != b.i, true
	}
	return false, false
}

func cfUnary(k ir.Kind, d ir.DType, v cfCval) (cfCval, bool) {
	if d.IsFloat() {
		switch k {
		case ir.OpNeg:
			return cfCval{f: -v.f}, true
		case ir.OpAbs:
			return cfCval{f: math.Abs(v.f)}, true
		}
		return cfCval{}, false
	}
	switch k {
	case ir.OpNeg:
		return cfCval{i: d.WrapInt(-v.i)}, true
	case ir.OpNot:
		return cfCval{i: d.WrapInt(^v.i)}, true
	case ir.OpAbs:
		if d.IsSigned() && v.i < 0 {
			return cfCval{i: d.WrapInt(-v.i)}, true
		}
		return v, true
	case ir.OpPopc:
		u := uint64(v.i)
		if w := d.Bits(); w < 64 {
			u &= 1<<w - 1
		}
		return cfCval{i: int64(bits.OnesCount64(u))}, true
	}
	return cfCval{}, false
}

// cfArith folds add, sub or mul (k), which ints and floats share; the
// caller wraps or rounds the result to the dtype.
func cfArith[T int64 | float64](k ir.Kind, a, b T) T {
	switch k {
	case ir.OpAdd:
		return a + b
	case ir.OpSub:
		return a - b
	}
	return a * b
}

func cfBinaryFloat(k ir.Kind, d ir.DType, a, b float64) (cfCval, bool) {
	var r float64
	switch k {
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		r = cfArith(k, a, b)
	case ir.OpMin, ir.OpMax:
		switch {
		case math.IsNaN(a):
			r = b
		case math.IsNaN(b):
			r = a
		case a == 0 && b == 0 && math.Signbit(a) != math.Signbit(b):
			return cfCval{}, false // the sign of a zero result is not portable
		case k == ir.OpMin:
			r = math.Min(a, b)
		default:
			r = math.Max(a, b)
		}
	default:
		return cfCval{}, false
	}
	return cfCval{f: d.Round(r)}, true
}

func cfBinaryInt(k ir.Kind, d ir.DType, a, b int64) (cfCval, bool) {
	u64 := d == ir.U64
	var r int64
	switch k {
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		r = cfArith(k, a, b)
	case ir.OpDiv, ir.OpRem:
		if b == 0 {
			return cfCval{}, false
		}
		switch {
		case u64 && k == ir.OpDiv:
			r = int64(uint64(a) / uint64(b))
		case u64:
			r = int64(uint64(a) % uint64(b))
		case k == ir.OpDiv:
			r = a / b
		default:
			r = a % b
		}
	case ir.OpMin:
		r = a
		if cfLess(d, b, a) {
			r = b
		}
	case ir.OpMax:
		r = a
		if cfLess(d, a, b) {
			r = b
		}
	case ir.OpAnd:
		r = a & b
	case ir.OpOr:
		r = a | b
	case ir.OpXor:
		r = a ^ b
	case ir.OpShl, ir.OpShr:
		if b < 0 || b >= int64(d.Bits()) {
			return cfCval{}, false
		}
		switch {
		case k == ir.OpShl:
			r = a << uint(b)
		case d.IsUnsigned():
			r = int64(uint64(a) >> uint(b))
		default:
			r = a >> uint(b)
		}
	default:
		return cfCval{}, false
	}
	return cfCval{i: d.WrapInt(r)}, true
}

// cfRangeLimit bounds the magnitude of the values cfRange tracks, so that
// sums and products of two of them cannot overflow int64.
const cfRangeLimit = 1 << 31

// cfRange is the interval [lo, hi] every element of the integer value v
// lies in, when constants and aranges decide it (through splat,
// broadcast, expand_dims, reshape, trans, add, sub, mul and casts that keep
// the values); ok is false otherwise, and for values beyond cfRangeLimit or
// that would wrap in their dtype.
func cfRange(v *ir.Value, depth int) (lo, hi int64, ok bool) {
	d := cfDtypeOf(v.Type)
	if d == ir.Invalid || !d.IsInt() || d == ir.I1 || depth > 8 || v.Def == nil {
		return 0, 0, false
	}
	op := v.Def
	fits := func(lo, hi int64) (int64, int64, bool) {
		if lo < -cfRangeLimit || hi > cfRangeLimit || float64(lo) < cfMinInt(d) || float64(hi) > cfMaxInt(d) {
			return 0, 0, false
		}
		return lo, hi, true
	}
	switch op.Kind {
	case ir.OpConstant:
		if c, _, ok := cfConstOf(v); ok {
			if d.IsUnsigned() && c.i < 0 {
				return 0, 0, false
			}
			return fits(c.i, c.i)
		}
	case ir.OpArange:
		s, e := op.Attrs.Int("start", 0), op.Attrs.Int("end", 0)
		if e > s {
			return fits(s, e-1)
		}
	case ir.OpSplat, ir.OpBroadcast, ir.OpExpandDims, ir.OpReshape, ir.OpTrans:
		lo, hi, ok := cfRange(op.Operands[0], depth+1)
		if ok {
			return fits(lo, hi)
		}
	case ir.OpCast:
		// an integer cast that keeps every value of the range
		if sd := cfDtypeOf(op.Operands[0].Type); sd.IsInt() && sd != ir.I1 {
			if lo, hi, ok := cfRange(op.Operands[0], depth+1); ok {
				return fits(lo, hi)
			}
		}
	case ir.OpAdd, ir.OpSub, ir.OpMul:
		if len(op.Operands) != 2 || cfDtypeOf(op.Operands[0].Type) != d || cfDtypeOf(op.Operands[1].Type) != d {
			return 0, 0, false
		}
		alo, ahi, ok1 := cfRange(op.Operands[0], depth+1)
		blo, bhi, ok2 := cfRange(op.Operands[1], depth+1)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		switch op.Kind {
		case ir.OpAdd:
			return fits(alo+blo, ahi+bhi)
		case ir.OpSub:
			return fits(alo-bhi, ahi-blo)
		default:
			p := []int64{alo * blo, alo * bhi, ahi * blo, ahi * bhi}
			return fits(min(p[0], p[1], p[2], p[3]), max(p[0], p[1], p[2], p[3]))
		}
	}
	return 0, 0, false
}

// foldByRange turns an integer cmp that the operands' ranges decide into a
// constant.
func (cf *cfFolder) foldByRange(op *ir.Op) bool {
	if op.Kind != ir.OpCmp || len(op.Operands) != 2 {
		return false
	}
	if _, _, ok := cfConstOf(op.Operands[0]); ok {
		if _, _, ok := cfConstOf(op.Operands[1]); ok {
			return false // both constant: fold's own compare
		}
	}
	alo, ahi, ok1 := cfRange(op.Operands[0], 0)
	blo, bhi, ok2 := cfRange(op.Operands[1], 0)
	if !ok1 || !ok2 {
		return false
	}
	var r, known bool
	switch op.Attrs.String("pred") {
	case "lt":
		r, known = ahi < blo, ahi < blo || alo >= bhi
	case "le":
		r, known = ahi <= blo, ahi <= blo || alo > bhi
	case "gt":
		r, known = alo > bhi, alo > bhi || ahi <= blo
	case "ge":
		r, known = alo >= bhi, alo >= bhi || ahi < blo
	case "eq":
		r, known = false, ahi < blo || alo > bhi
		if alo == ahi && blo == bhi && alo == blo {
			r, known = true, true
		}
	case "ne":
		r, known = true, ahi < blo || alo > bhi
		if alo == ahi && blo == bhi && alo == blo {
			r, known = false, true
		}
	}
	if !known {
		return false
	}
	v := cfCval{}
	if r {
		v.i = 1
	}
	cf.setConst(op, ir.I1, v)
	return true
}

// foldLogic simplifies and / or of i1 values with a constant operand: when
// the constant is the identity (true for and, false for or) the uses of the
// result take the other operand and it reports true (the caller removes
// op); when it absorbs, op becomes that constant.
func (cf *cfFolder) foldLogic(op *ir.Op) bool {
	if (op.Kind != ir.OpAnd && op.Kind != ir.OpOr) || len(op.Operands) != 2 || cfDtypeOf(op.Results[0].Type) != ir.I1 {
		return false
	}
	for i, x := range op.Operands {
		c, _, ok := cfConstOf(x)
		if !ok {
			continue
		}
		other := op.Operands[1-i]
		if _, _, ok := cfConstOf(other); ok {
			return false // both constant: fold's own arithmetic
		}
		identity := (op.Kind == ir.OpAnd) == (c.i != 0)
		if !identity {
			cf.setConst(op, ir.I1, c)
			return false
		}
		if other.Type.String() != op.Results[0].Type.String() {
			return false
		}
		cf.f.ReplaceAllUses(op.Results[0], other)
		cf.changed = true
		return true
	}
	return false
}

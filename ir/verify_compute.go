package ir

import (
	"fmt"
	"slices"
	"strings"
)

// The checks of the computing kinds: constants and indices, shapes,
// element-wise arithmetic and math, dot and reductions. Each runs after
// the table's counts and up-front attributes passed (checkOp).

func (v *verifier) checkConstant(op, _ *Op) bool {
	d := elemDType(op.rt())
	if d == Invalid {
		v.errf(op, "result type %s is not a scalar or tile of scalars", typeString(op.rt()))
		return false
	}
	switch op.Attrs["value"].(type) {
	case int64:
	case float64:
		if !d.IsFloat() {
			v.errf(op, "float value for a %s constant", d)
		}
	case bool:
		if d != I1 {
			v.errf(op, "bool value for a %s constant", d)
		}
	default:
		v.errf(op, "needs a value attribute (int64, float64 or bool)")
	}
	return true
}

// checkGridIndex checks program_id and num_programs.
func (v *verifier) checkGridIndex(op, _ *Op) bool {
	if ax, ok := op.Attrs["axis"].(int64); ok && (ax < 0 || ax > 2) {
		v.errf(op, "axis %d out of range 0..2", ax)
	}
	v.sameType(op, "result", op.rt(), I32)
	return true
}

func (v *verifier) checkArange(op, _ *Op) bool {
	s, ok1 := op.Attrs["start"].(int64)
	e, ok2 := op.Attrs["end"].(int64)
	if ok1 && ok2 {
		if e <= s {
			v.errf(op, "end %d <= start %d", e, s)
			return false
		}
		v.sameType(op, "result", op.rt(), &Tile{Shape: []int{int(e - s)}, Elem: I32})
	}
	return true
}

func (v *verifier) checkSplat(op, _ *Op) bool {
	if _, ok := op.ot(0).(*Tile); ok {
		v.errf(op, "operand is a tile %s, want a scalar", typeString(op.ot(0)))
		return false
	}
	rtile, ok := op.rt().(*Tile)
	if !ok {
		v.errf(op, "result type %s is not a tile", typeString(op.rt()))
		return false
	}
	v.sameType(op, "result element", rtile.Elem, op.ot(0))
	return true
}

func (v *verifier) checkBroadcast(op, _ *Op) bool {
	in, ok1 := op.ot(0).(*Tile)
	out, ok2 := op.rt().(*Tile)
	if !ok1 || !ok2 {
		v.errf(op, "operand and result must be tiles, have %s and %s", typeString(op.ot(0)), typeString(op.rt()))
		return false
	}
	v.sameType(op, "result element", out.Elem, in.Elem)
	if len(in.Shape) != len(out.Shape) {
		v.errf(op, "rank changes from %d to %d", len(in.Shape), len(out.Shape))
		return false
	}
	for i := range in.Shape {
		if in.Shape[i] != out.Shape[i] && in.Shape[i] != 1 {
			v.errf(op, "cannot broadcast %s to %s (dim %d)", shapeStr(in.Shape), shapeStr(out.Shape), i)
			return false
		}
	}
	return true
}

func (v *verifier) checkExpandDims(op, _ *Op) bool {
	in := tileShape(op.ot(0))
	ax, ok := op.Attrs["axis"].(int64)
	if !ok {
		return false
	}
	if ax < 0 || int(ax) > len(in) {
		v.errf(op, "axis %d out of range 0..%d", ax, len(in))
		return false
	}
	want := slices.Insert(slices.Clone(in), int(ax), 1)
	v.sameType(op, "result", op.rt(), &Tile{Shape: want, Elem: Elem(op.ot(0))})
	return true
}

func (v *verifier) checkReshape(op, _ *Op) bool {
	v.sameType(op, "result element", Elem(op.rt()), Elem(op.ot(0)))
	if a, b := NumElements(tileShape(op.ot(0))), NumElements(tileShape(op.rt())); a != b {
		v.errf(op, "reshape from %d to %d elements", a, b)
	}
	return true
}

func (v *verifier) checkTrans(op, _ *Op) bool {
	in := tileShape(op.ot(0))
	perm := v.checkPerm(op, len(in))
	if perm == nil {
		return false
	}
	want := make([]int, len(in))
	for i, p := range perm {
		want[i] = in[p]
	}
	v.sameType(op, "result", op.rt(), &Tile{Shape: want, Elem: Elem(op.ot(0))})
	return true
}

// checkGather: src and index tiles of one rank, index of integers and of
// src's shape but along axis; the result of index's shape, src's dtype.
func (v *verifier) checkGather(op, _ *Op) bool {
	src, idx := tileShape(op.ot(0)), tileShape(op.ot(1))
	ax, ok := v.reductionAxis(op)
	if !ok {
		return false
	}
	if len(idx) != len(src) {
		v.errf(op, "index %s and source %s differ in rank", typeString(op.ot(1)), typeString(op.ot(0)))
		return false
	}
	for d := range src {
		if d != ax && idx[d] != src[d] {
			v.errf(op, "index %s and source %s differ in dimension %d (only axis %d may)", typeString(op.ot(1)), typeString(op.ot(0)), d, ax)
			return false
		}
	}
	if !elemDType(op.ot(1)).IsInt() {
		v.errf(op, "index must be integers, not %s", typeString(op.ot(1)))
		return false
	}
	v.sameType(op, "result", op.rt(), &Tile{Shape: idx, Elem: Elem(op.ot(0))})
	return true
}

// checkButterfly: the axis' size a power of two, mask in (0, size); the
// result of the operand's type.
func (v *verifier) checkButterfly(op, _ *Op) bool {
	ax, ok := v.reductionAxis(op)
	if !ok {
		return false
	}
	n := tileShape(op.ot(0))[ax]
	m, _ := op.Attrs["mask"].(int64)
	if n&(n-1) != 0 || m <= 0 || m >= int64(n) {
		v.errf(op, "mask %d along axis %d of size %d: the size must be a power of two and the mask in [1, %d)", m, ax, n, n)
		return false
	}
	v.sameType(op, "result", op.rt(), op.ot(0))
	return true
}

// checkJoin: two tiles of one type (a rank 1 or more) make a tile of their
// shape with a last dimension of 2 appended.
func (v *verifier) checkJoin(op, _ *Op) bool {
	if _, ok := op.ot(0).(*Tile); !ok {
		v.errf(op, "operand 0 has type %s, want a tile", typeString(op.ot(0)))
		return false
	}
	if !v.sameType(op, "operand 1", op.ot(1), op.ot(0)) {
		return false
	}
	want := append(slices.Clone(tileShape(op.ot(0))), 2)
	v.sameType(op, "result", op.rt(), &Tile{Shape: want, Elem: Elem(op.ot(0))})
	return true
}

// checkSplit: a tile whose last dimension is 2 (of rank 2 or more) splits
// into two tiles without it.
func (v *verifier) checkSplit(op, _ *Op) bool {
	in := tileShape(op.ot(0))
	if len(in) < 2 || in[len(in)-1] != 2 {
		v.errf(op, "operand has type %s, want a tile of rank 2 or more whose last dimension is 2", typeString(op.ot(0)))
		return false
	}
	want := &Tile{Shape: slices.Clone(in[:len(in)-1]), Elem: Elem(op.ot(0))}
	for i, r := range op.Results {
		v.sameType(op, fmt.Sprintf("result %d", i), r.Type, want)
	}
	return true
}

// checkFlip: the result has the operand's type; the axis is one of its
// dimensions, of a power-of-two size (the GPU reverses an index by xor).
func (v *verifier) checkFlip(op, _ *Op) bool {
	in := tileShape(op.ot(0))
	ax, ok := op.Attrs["axis"].(int64)
	if !ok {
		return false
	}
	if _, isTile := op.ot(0).(*Tile); !isTile || ax < 0 || int(ax) >= len(in) {
		v.errf(op, "axis %d out of range for %s", ax, typeString(op.ot(0)))
		return false
	}
	if n := in[ax]; n&(n-1) != 0 {
		v.errf(op, "dimension %d of %s is %d, not a power of two", ax, typeString(op.ot(0)), n)
	}
	v.sameType(op, "result", op.rt(), op.ot(0))
	return true
}

// checkExtractSlice: a tile of the operand's rank and element whose every
// dimension, from its start, lies inside the operand's.
func (v *verifier) checkExtractSlice(op, _ *Op) bool {
	in, out := tileShape(op.ot(0)), tileShape(op.rt())
	if _, ok := op.ot(0).(*Tile); !ok || len(in) != len(out) {
		v.errf(op, "operand %s and result %s are not tiles of one rank", typeString(op.ot(0)), typeString(op.rt()))
		return false
	}
	v.sameType(op, "result element", Elem(op.rt()), Elem(op.ot(0)))
	starts, ok := op.Attrs["starts"].([]int64)
	if !ok || len(starts) != len(in) {
		v.errf(op, "starts %v for a tile of rank %d", op.Attrs["starts"], len(in))
		return false
	}
	for d, st := range starts {
		if st < 0 || st+int64(out[d]) > int64(in[d]) {
			v.errf(op, "dimension %d: %d elements from %d do not fit %s", d, out[d], st, typeString(op.ot(0)))
		}
	}
	return true
}

// binary checks the operands and result of an element-wise binary op:
// one type, of numbers, of integers when intOnly.
func (v *verifier) binary(op *Op, intOnly bool) bool {
	if !v.sameType(op, "operand 1", op.ot(1), op.ot(0)) || !v.sameType(op, "result", op.rt(), op.ot(0)) {
		return false
	}
	d := elemDType(op.ot(0))
	switch {
	case d == Invalid:
		v.errf(op, "operands of type %s are not numbers", typeString(op.ot(0)))
	case !d.IsInt() && intOnly:
		v.errf(op, "needs integer operands, has %s", typeString(op.ot(0)))
	}
	return true
}

// checkArith checks add, sub, mul, div, rem, min and max.
func (v *verifier) checkArith(op, _ *Op) bool { return v.binary(op, false) }

// checkBitwise checks and, or, xor, shl and shr.
func (v *verifier) checkBitwise(op, _ *Op) bool { return v.binary(op, true) }

// checkFloatBinary checks div_rn: two float operands and a result of one type.
func (v *verifier) checkFloatBinary(op, _ *Op) bool {
	if !v.binary(op, false) {
		return false
	}
	if d := elemDType(op.ot(0)); d != Invalid && !d.IsFloat() {
		v.errf(op, "needs float operands, has %s", typeString(op.ot(0)))
	}
	return true
}

// checkIntBinary checks umulhi: two 32- or 64-bit integer operands and a
// result of one type.
func (v *verifier) checkIntBinary(op, _ *Op) bool {
	if !v.binary(op, true) {
		return false
	}
	if d := elemDType(op.ot(0)); d.IsInt() && d.Bits() != 32 && d.Bits() != 64 {
		v.errf(op, "needs 32- or 64-bit integer operands, has %s", typeString(op.ot(0)))
	}
	return true
}

// unaryTakes is what the operand of an element-wise unary op may hold.
type unaryTakes int

const (
	takesNumbers unaryTakes = iota
	takesIntegers
	takesFloats
)

func (v *verifier) unary(op *Op, takes unaryTakes) bool {
	if !v.sameType(op, "result", op.rt(), op.ot(0)) {
		return false
	}
	d := elemDType(op.ot(0))
	switch {
	case d == Invalid:
		v.errf(op, "operand of type %s is not a number", typeString(op.ot(0)))
	case takes == takesIntegers && !d.IsInt():
		v.errf(op, "needs an integer operand, has %s", typeString(op.ot(0)))
	case takes == takesFloats && !d.IsFloat():
		v.errf(op, "needs a float operand, has %s", typeString(op.ot(0)))
	}
	return true
}

// checkNumberUnary checks neg and abs.
func (v *verifier) checkNumberUnary(op, _ *Op) bool { return v.unary(op, takesNumbers) }

// checkIntUnary checks not.
func (v *verifier) checkIntUnary(op, _ *Op) bool { return v.unary(op, takesIntegers) }

// checkFloatUnary checks the math ops: exp, exp2, log, log2, sqrt, rsqrt,
// sigmoid, tanh, erf.
func (v *verifier) checkFloatUnary(op, _ *Op) bool { return v.unary(op, takesFloats) }

// checkRoundTF32 checks round_tf32: an f32 operand, a result of its type.
func (v *verifier) checkRoundTF32(op, _ *Op) bool {
	v.sameType(op, "result", op.rt(), op.ot(0))
	if d := elemDType(op.ot(0)); d != F32 {
		v.errf(op, "rounds f32 values to tf32, not %s", typeString(op.ot(0)))
	}
	return true
}

// checkFMA checks fma: three operands and a result of one type, of a float
// dtype with a fused multiply-add on every device (not fp8).
func (v *verifier) checkFMA(op, _ *Op) bool {
	v.sameType(op, "operand 1", op.ot(1), op.ot(0))
	v.sameType(op, "operand 2", op.ot(2), op.ot(0))
	v.sameType(op, "result", op.rt(), op.ot(0))
	if d := elemDType(op.ot(0)); !d.HasFMA() {
		v.errf(op, "needs f16, bf16, f32 or f64 operands, has %s", typeString(op.ot(0)))
	}
	return true
}

func (v *verifier) checkCmp(op, _ *Op) bool {
	if !v.sameType(op, "operand 1", op.ot(1), op.ot(0)) {
		return false
	}
	v.deferredString(op, "pred")
	v.sameType(op, "result", op.rt(), WithElem(StripLayout(op.ot(0)), I1))
	return true
}

func (v *verifier) checkSelect(op, _ *Op) bool {
	v.sameType(op, "condition", op.ot(0), WithElem(StripLayout(op.ot(1)), I1))
	v.sameType(op, "operand 2", op.ot(2), op.ot(1))
	v.sameType(op, "result", op.rt(), op.ot(1))
	return true
}

func (v *verifier) checkCast(op, _ *Op) bool {
	_, t0 := op.ot(0).(*Tile)
	_, t1 := op.rt().(*Tile)
	if !slices.Equal(tileShape(op.ot(0)), tileShape(op.rt())) || t0 != t1 {
		v.errf(op, "changes the shape: %s to %s", typeString(op.ot(0)), typeString(op.rt()))
	}
	if r, ok := op.Attrs["rounding"]; ok && op.Kind == OpCast {
		// fp_downcast_rounding: "rtz", a float downcast the GPU has
		from, to := elemDType(op.ot(0)), elemDType(op.rt())
		switch {
		case r != "rtz":
			v.errf(op, "rounding %v: want \"rtz\" (round to nearest even is the cast without it)", r)
		case !from.IsFloat() || !to.IsFloat() || from.Bits() <= to.Bits() || to.Bits() == 8:
			v.errf(op, "rounding \"rtz\" from %s to %s: want a float downcast to f32, f16 or bf16", from, to)
		}
	}
	return true
}

// checkBitcast: a cast that keeps the shape and reinterprets the bits of
// one element dtype as another of the same width (pointers and i1 have no
// bits to reinterpret).
func (v *verifier) checkBitcast(op, _ *Op) bool {
	v.checkCast(op, nil)
	from, to := elemDType(op.ot(0)), elemDType(op.rt())
	for _, t := range []Type{op.ot(0), op.rt()} {
		if d := elemDType(t); d == Invalid || d == I1 {
			v.errf(op, "cannot reinterpret the bits of %s", typeString(t))
			return true
		}
	}
	if from.Bits() != to.Bits() {
		v.errf(op, "from %s (%d bits) to %s (%d bits): the widths differ", from, from.Bits(), to, to.Bits())
	}
	return true
}

// checkAxisHint: an integer or global pointer operand of the result's type,
// and at least one of divisibility, contiguity and constancy, each with a
// positive value per axis (contiguity and constancy powers of two).
func (v *verifier) checkAxisHint(op, _ *Op) bool {
	if !Equal(StripLayout(op.ot(0)), StripLayout(op.rt())) {
		v.errf(op, "result %s, want the operand's type %s", typeString(op.rt()), typeString(op.ot(0)))
	}
	switch e := Elem(op.ot(0)).(type) {
	case *Pointer:
		if e.Space != 0 && e.Space != Global {
			v.errf(op, "operand %s, want integers or global pointers", typeString(op.ot(0)))
		}
	case DType:
		if !e.IsInt() || e == I1 {
			v.errf(op, "operand %s, want integers or global pointers", typeString(op.ot(0)))
		}
	}
	rank := max(1, len(tileShape(op.ot(0))))
	n := 0
	for _, k := range []string{"divisibility", "contiguity", "constancy"} {
		if _, ok := op.Attrs[k]; !ok {
			continue
		}
		n++
		xs := op.Attrs.Ints(k)
		if len(xs) != rank {
			v.errf(op, "%s %v: want %d values, one per axis", k, xs, rank)
		}
		for _, x := range xs {
			if x <= 0 || k != "divisibility" && x&(x-1) != 0 {
				v.errf(op, "%s %v: want positive values (powers of two but for divisibility)", k, xs)
				break
			}
		}
	}
	if n == 0 {
		v.errf(op, "no divisibility, contiguity or constancy")
	}
	return true
}

// checkPtrInt: ptrtoint takes a global pointer to an i64 or u64, inttoptr
// an i64 or u64 to a global pointer, keeping the shape.
func (v *verifier) checkPtrInt(op, _ *Op) bool {
	v.checkCast(op, nil)
	ptr, num := op.ot(0), op.rt()
	if op.Kind == OpIntToPtr {
		ptr, num = num, ptr
	}
	if p, ok := Elem(ptr).(*Pointer); !ok || (p.Space != 0 && p.Space != Global) {
		v.errf(op, "%s, want a global pointer or a tile of them", typeString(ptr))
	}
	if d := elemDType(num); d != I64 && d != U64 {
		v.errf(op, "%s, want i64 or u64", typeString(num))
	}
	return true
}

func (v *verifier) checkAddPtr(op, _ *Op) bool {
	if _, ok := Elem(op.ot(0)).(*Pointer); !ok {
		v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(op.ot(0)))
		return false
	}
	if d := elemDType(op.ot(1)); !d.IsInt() || !slices.Equal(tileShape(op.ot(1)), tileShape(op.ot(0))) {
		v.errf(op, "offset has type %s, want integers of shape %s", typeString(op.ot(1)), shapeStr(tileShape(op.ot(0))))
	}
	v.sameType(op, "result", op.rt(), op.ot(0))
	return true
}

func (v *verifier) checkDot(op, _ *Op) bool {
	a, b, c := tileShape(op.ot(0)), tileShape(op.ot(1)), tileShape(op.ot(2))
	if len(a) == 3 && len(b) == 3 && len(c) == 3 && a[0] == b[0] && a[0] == c[0] {
		a, b, c = a[1:], b[1:], c[1:] // batched: [B,M,K] x [B,K,N] + [B,M,N]
	}
	if len(a) != 2 || len(b) != 2 || len(c) != 2 || a[1] != b[0] || c[0] != a[0] || c[1] != b[1] {
		v.errf(op, "shapes %s x %s + %s do not make [M,K] x [K,N] + [M,N] (or batched [B,M,K] x [B,K,N] + [B,M,N])", shapeStr(a), shapeStr(b), shapeStr(c))
	}
	switch p := op.Attrs.String("input_precision"); p {
	case "", "ieee", "tf32x3":
	default:
		v.errf(op, "input_precision %q: want ieee or tf32x3 (none: tf32)", p)
	}
	if elemDType(op.ot(0)) == Invalid || elemDType(op.ot(1)) == Invalid {
		v.errf(op, "operands must be tiles of numbers")
	}
	v.sameType(op, "result", op.rt(), op.ot(2))
	return true
}

// reductionAxis is the axis of a reduce or scan, when its attribute is
// there and in range for the operand.
func (v *verifier) reductionAxis(op *Op) (int, bool) {
	in := tileShape(op.ot(0))
	ax, ok := op.Attrs["axis"].(int64)
	if !ok {
		return 0, false
	}
	if len(in) == 0 || ax < 0 || int(ax) >= len(in) {
		v.errf(op, "axis %d out of range for %s", ax, typeString(op.ot(0)))
		return 0, false
	}
	return int(ax), true
}

func (v *verifier) checkReduce(op, _ *Op) bool {
	ax, ok := v.reductionAxis(op)
	if !ok || !v.checkOperandsN(op) {
		return false
	}
	out := slices.Delete(slices.Clone(tileShape(op.ot(0))), ax, ax+1)
	for i, r := range op.Results {
		v.sameType(op, resultName(op, i), r.Type, TileOf(out, Elem(op.ot(i))))
	}
	if k := op.Attrs.String("kind"); (k == "or" || k == "xor") && !ElemDType(op.ot(0)).IsInt() {
		v.errf(op, "kind %s reduces integers, not %s", k, typeString(op.ot(0)))
	}
	v.checkCombine(op)
	return true
}

// resultName names result i in messages: "result" when it is the only one.
func resultName(op *Op, i int) string {
	if len(op.Results) == 1 {
		return "result"
	}
	return fmt.Sprintf("result %d", i)
}

// checkOperandsN checks the operand and result counts of a reduce or scan:
// one of each, or for kind combine n same-shape operands and n results.
func (v *verifier) checkOperandsN(op *Op) bool {
	n := len(op.Operands)
	if n != len(op.Results) {
		v.errf(op, "has %d operands and %d results: want as many results as operands", n, len(op.Results))
		return false
	}
	if n == 1 {
		return true
	}
	if k := op.Attrs.String("kind"); k != "combine" {
		v.errf(op, "kind %s takes one operand, not %d (only kind combine takes several)", k, n)
		return false
	}
	for i := 1; i < n; i++ {
		if !slices.Equal(tileShape(op.ot(i)), tileShape(op.ot(0))) {
			v.errf(op, "operand %d has type %s: the shape of operand 0 (%s) is wanted", i, typeString(op.ot(i)), typeString(op.ot(0)))
			return false
		}
	}
	return true
}

// checkCombine checks the region of a reduce or scan: kind combine has one,
// with two scalar arguments of each operand's dtype (a0..an-1, b0..bn-1),
// yielding one of each; the other kinds have none.
func (v *verifier) checkCombine(op *Op) {
	if op.Attrs.String("kind") != "combine" {
		if len(op.Regions) != 0 {
			v.errf(op, "has %d regions, want 0 (only kind combine has one)", len(op.Regions))
		}
		return
	}
	if len(op.Regions) != 1 {
		v.errf(op, "has %d regions, kind combine wants 1", len(op.Regions))
		return
	}
	n := len(op.Operands)
	ds := make([]Type, n)
	var names []string
	for i := range ds {
		ds[i] = Elem(op.ot(i))
		names = append(names, typeString(ds[i]))
	}
	rg := op.Regions[0]
	good := len(rg.Args) == 2*n
	for i := 0; good && i < 2*n; i++ {
		good = EqualIgnoringLayout(rg.Args[i].Type, ds[i%n])
	}
	if !good {
		all := strings.Join(names, ", ")
		v.errf(op, "combine region must take two sets of scalars (%s), (%s)", all, all)
		return
	}
	v.yieldTypes(op, rg, ds, "combine")
}

func (v *verifier) checkScan(op, _ *Op) bool {
	if _, ok := v.reductionAxis(op); !ok {
		return false
	}
	if !v.checkOperandsN(op) {
		return false
	}
	for i, r := range op.Results {
		v.sameType(op, resultName(op, i), r.Type, op.ot(i))
	}
	v.checkCombine(op)
	return false // a scan's result has its operand's (tile) type: no memdesc to check
}

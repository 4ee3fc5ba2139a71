package lower

import (
	"fmt"
	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/ir"
	"os"
	"strings"
)

// lowering builds the IR of one builtin from its bound arguments.
type lowering func(s *fn, a *args) *val

// lowerings holds the IR building of every row of the builtin table
// (check.Builtins), keyed by loweringKey: the arguments come bound from the
// row (bindArgs), so only the IR building is per builtin here.
var lowerings map[string]lowering

func init() {
	lowerings = map[string]lowering{
		"program_id":       with((*fn).axisOp, ir.OpProgramID),
		"num_programs":     with((*fn).axisOp, ir.OpNumPrograms),
		"arange":           (*fn).arange,
		"zeros":            with((*fn).full, false),
		"full":             with((*fn).full, true),
		"zeros_like":       with((*fn).fullLike, false),
		"full_like":        with((*fn).fullLike, true),
		"make_block_ptr":   (*fn).makeBlockPtr,
		"advance":          (*fn).advance,
		"load":             (*fn).load,
		"store":            (*fn).store,
		"atomic_add":       with((*fn).atomic, "add"),
		"atomic_max":       with((*fn).atomic, "max"),
		"atomic_min":       with((*fn).atomic, "min"),
		"atomic_xchg":      with((*fn).atomic, "xchg"),
		"atomic_cas":       (*fn).atomicCAS,
		"atomic_and":       with((*fn).atomic, "and"),
		"atomic_or":        with((*fn).atomic, "or"),
		"atomic_xor":       with((*fn).atomic, "xor"),
		"dot":              with((*fn).dot, ir.OpDot),
		"wgmma":            with((*fn).dot, ir.OpWgmma),
		"dot_scaled":       (*fn).dotScaled,
		"where":            (*fn).where,
		"cast":             (*fn).cast,
		"sum":              with((*fn).reduce, "sum"),
		"max":              with((*fn).reduce, "max"),
		"min":              with((*fn).reduce, "min"),
		"argmax":           with((*fn).reduce, "argmax"),
		"argmin":           with((*fn).reduce, "argmin"),
		"reduce_or":        with((*fn).reduce, "or"),
		"xor_sum":          with((*fn).reduce, "xor"),
		"reduce":           (*fn).reduceCombine,
		"associative_scan": (*fn).scanCombine,
		"sort":             with((*fn).sortLike, "sort"),
		"topk":             with((*fn).sortLike, "topk"),
		"bitonic_merge":    with((*fn).sortLike, "merge"),
		"gather":           (*fn).gather,
		"histogram":        (*fn).histogram,
		"cumsum":           with((*fn).cumsum, "sum"),
		"cumprod":          with((*fn).cumsum, "prod"),
		"exp":              with((*fn).math, ir.OpExp),
		"exp2":             with((*fn).math, ir.OpExp2),
		"log":              with((*fn).math, ir.OpLog),
		"log2":             with((*fn).math, ir.OpLog2),
		"sqrt":             with((*fn).math, ir.OpSqrt),
		"rsqrt":            with((*fn).math, ir.OpRsqrt),
		"sigmoid":          with((*fn).math, ir.OpSigmoid),
		"tanh":             with((*fn).math, ir.OpTanh),
		"erf":              with((*fn).math, ir.OpErf),
		"sin":              with((*fn).math, ir.OpSin),
		"cos":              with((*fn).math, ir.OpCos),
		"tan":              with((*fn).math, ir.OpTan),
		"asin":             with((*fn).math, ir.OpAsin),
		"acos":             with((*fn).math, ir.OpAcos),
		"atan":             with((*fn).math, ir.OpAtan),
		"sinh":             with((*fn).math, ir.OpSinh),
		"cosh":             with((*fn).math, ir.OpCosh),
		"log1p":            with((*fn).math, ir.OpLog1p),
		"expm1":            with((*fn).math, ir.OpExpm1),
		"atan2":            with((*fn).binaryMath, ir.OpAtan2),
		"pow":              with((*fn).binaryMath, ir.OpPow),
		"abs":              with((*fn).math, ir.OpAbs),
		"floor":            with((*fn).math, ir.OpFloor),
		"ceil":             with((*fn).math, ir.OpCeil),
		"trunc":            with((*fn).math, ir.OpTrunc),
		"round":            with((*fn).math, ir.OpRound),
		"sqrt_rn":          with((*fn).math, ir.OpSqrt),
		"div_rn":           (*fn).divRN,
		"clamp":            (*fn).clamp,
		"umulhi":           (*fn).umulhi,
		"randint":          (*fn).randint,
		"randint4x":        (*fn).randint4xVal,
		"rand":             (*fn).rand,
		"rand4x":           (*fn).rand4x,
		"randn":            (*fn).randn,
		"randn4x":          (*fn).randn4x,
		"isnan":            with((*fn).floatClass, true),
		"isinf":            with((*fn).floatClass, false),
		"softmax":          (*fn).softmax,
		"minimum":          with((*fn).minmax, ir.OpMin),
		"maximum":          with((*fn).minmax, ir.OpMax),
		"fma":              (*fn).fma,
		"cdiv":             (*fn).cdiv,
		"reshape":          (*fn).reshape,
		"broadcast_to":     (*fn).broadcastToCall,
		"trans":            (*fn).transCall,
		"permute":          (*fn).transCall,
		"join":             (*fn).join,
		"split":            (*fn).split,
		"interleave":       (*fn).interleave,
		"cat":              (*fn).cat,
		"flip":             (*fn).flip,
		"expand_dims":      (*fn).expandDimsCall,
		"broadcast":        (*fn).broadcastPair,
		"print":            (*fn).print,
		"static_assert":    (*fn).staticAssert,
		"static_range":     (*fn).staticRangeCall,
		"static_print":     (*fn).staticPrint,
		"assert":           (*fn).assert,
		"assume":           (*fn).assume,
		"multiple_of":      (*fn).axisHint,
		"max_contiguous":   (*fn).axisHint,
		"max_constancy":    (*fn).axisHint,
		"make_desc":        (*fn).makeDesc,
		"alloc":            (*fn).alloc,
		"local_ptr":        (*fn).localPtr,
		"copy":             (*fn).copyCall,
		"barrier":          (*fn).barrier,
		"arrive":           with((*fn).barrierOp, ir.OpBarrierArrive),
		"wait":             with((*fn).barrierOp, ir.OpBarrierWait),
		"expect":           with((*fn).barrierOp, ir.OpBarrierExpect),
		"pipe":             (*fn).pipe,
		"pp.acquire":       with((*fn).pipeOp, ir.OpPipeAcquire),
		"pp.commit":        with((*fn).pipeOp, ir.OpPipeCommit),
		"pp.close":         with((*fn).pipeOp, ir.OpPipeClose),
		"pp.wait":          with((*fn).pipeOp, ir.OpPipeWait),
		"pp.release":       with((*fn).pipeOp, ir.OpPipeRelease),
		"buf.slot":         (*fn).memSlot,
		"bars.slot":        (*fn).barrierSlot,
		"desc.load":        (*fn).descLoad,
		"desc.store":       (*fn).descStore,
		"wgmma_wait":       (*fn).wgmmaWait,
		"device_mesh":      (*fn).deviceMesh,
		"shard_id":         (*fn).shardID,
		"remote":           (*fn).remote,
		"asm":              (*fn).asm,
		"role_index":       (*fn).roleIndexCall,

		"distributed_barrier": (*fn).distributedBarrier,
		"signal":              (*fn).signal,
		"signal_wait":         (*fn).signalWait,

		// programmatic dependent launch (pdl.go)
		"grid_dependency_wait": with((*fn).noValues, ir.OpGridDepWait),
		"debug_barrier":        with((*fn).noValues, ir.OpDebugBarrier),
		"launch_dependents":    with((*fn).noValues, ir.OpLaunchDependents),

		// warp votes and prefix counts (votes.go)
		"ballot":       (*fn).ballot,
		"popc":         (*fn).popc,
		"prefix_count": (*fn).prefixCount,

		// Triton's random pieces (random.go)
		"philox":                 (*fn).philox,
		"uint_to_uniform_float":  (*fn).uintToUniform,
		"pair_uniform_to_normal": (*fn).pairUniformToNormal,
	}
}

// with gives a lowering shared by several builtins the argument that tells
// them apart (an op kind).
func with[K any](lower func(*fn, *args, K) *val, kind K) lowering {
	return func(s *fn, a *args) *val { return lower(s, a, kind) }
}

// loweringKey is how lowerings knows a row: by the builtin's CallName, or,
// for an alias (x.to), by the builtin it is the same as (cast).
func loweringKey(b *check.Builtin) string {
	if b.Alias != "" {
		return b.Alias
	}
	return b.CallName()
}

// IsBuiltin reports whether name is a builtin function the lowering knows.
func IsBuiltin(name string) bool {
	b := check.LookupBuiltin(name)
	return b != nil && lowerings[loweringKey(b)] != nil
}

// builtinCall binds call's arguments from b's row (recv: a method's
// receiver, lowered) and builds its IR.
func (s *fn) builtinCall(b *check.Builtin, call *ast.CallExpr, recv *val) *val {
	lower := lowerings[loweringKey(b)]
	if lower == nil {
		s.errorf(call.Pos(), "the lowering does not know the builtin %s", b.CallName())
	}
	return lower(s, s.bindArgs(call, b, recv))
}

func (s *fn) axisOp(a *args, kind ir.Kind) *val {
	axis := s.constIntArg(a, "axis")
	if axis < 0 || axis > 2 {
		s.errorf(s.argPos(a, "axis"), "axis must be 0, 1 or 2")
	}
	return &val{v: s.b.Value(kind, ir.I32, nil, ir.Attrs{"axis": axis})}
}

func (s *fn) arange(a *args) *val {
	c := a.call
	lo, hi := s.constIntArg(a, "start"), s.constIntArg(a, "end")
	if hi <= lo {
		s.errorf(c.Pos(), "arange(%d, %d) is empty", lo, hi)
	}
	return &val{v: s.b.Value(ir.OpArange, ir.TileOf([]int{int(hi - lo)}, ir.I32), nil, ir.Attrs{"start": lo, "end": hi})}
}

// fullLike lowers zeros_like(x, dtype:) and full_like(x, value, dtype:):
// a tile of x's shape, of dtype (x's dtype when it is left out).
func (s *fn) fullLike(a *args, withValue bool) *val {
	c := a.call
	x := s.value(s.arg(a, "x"), s.argPos(a, "x"))
	dt := ir.ElemDType(x.Type)
	if a.has("dtype") {
		dt = s.dtypeArg(a, "dtype")
	}
	v := &val{c: &constant{kind: 'i'}}
	if withValue {
		v = s.arg(a, "value")
	}
	return &val{v: s.materialize(v, ir.TileOf(ir.ShapeOf(x.Type), dt), c.Pos())}
}

func (s *fn) full(a *args, withValue bool) *val {
	c := a.call
	shape := s.shapeArg(a, "shape")
	dt := s.dtypeArg(a, "dtype")
	v := &val{c: &constant{kind: 'i'}}
	if withValue {
		v = s.arg(a, "value")
	}
	return &val{v: s.materialize(v, ir.TileOf(shape, dt), c.Pos())}
}

// pointee returns the type a load through p produces.
func pointee(p *ir.Value) ir.Type {
	ptr := ir.Elem(p.Type).(*ir.Pointer)
	return ir.TileOf(ir.ShapeOf(p.Type), ptr.Elem)
}

// bufferArg evaluates argument name and reports whether it is a
// shared-memory view (rather than pointers). The value is cached in the
// args so that a later ptrArg does not evaluate it twice.
func (s *fn) bufferArg(a *args, name string) (*ir.Value, bool) {
	v := s.valueArg(a, name)
	a.cache(name, v)
	_, ok := v.Type.(*ir.MemDesc)
	return v, ok
}

func (s *fn) ptrArg(a *args, name string) *ir.Value {
	v := s.valueArg(a, name)
	if _, ok := ir.Elem(v.Type).(*ir.Pointer); !ok {
		s.errorf(s.argPos(a, name), "%s must be a pointer or a tile of pointers, not %s", name, v.Type)
	}
	return v
}

func (s *fn) mask(a *args, shape []int) *ir.Value {
	return s.argAs(a, "mask", ir.TileOf(shape, ir.I1))
}

// ptrOps lowers the operands of a store or an atomic through pointers: ptr,
// the values names (of its pointee type) and, when given, mask.
func (s *fn) ptrOps(a *args, names ...string) (*ir.Value, []*ir.Value) {
	p := s.ptrArg(a, "ptr")
	ops := []*ir.Value{p}
	for _, name := range names {
		ops = append(ops, s.argAs(a, name, pointee(p)))
	}
	if a.has("mask") {
		ops = append(ops, s.mask(a, ir.ShapeOf(p.Type)))
	}
	s.b.Pos = a.call.Pos()
	return p, ops
}

func (s *fn) load(a *args) *val {
	c := a.call
	if pv := s.arg(a, "ptr"); pv.bp != nil {
		return s.blockLoad(a, pv.bp)
	} else {
		a.values["ptr"] = pv // lowered once
	}
	if buf, ok := s.bufferArg(a, "ptr"); ok {
		// load(buf): the whole shared-memory view into registers.
		s.b.Pos = c.Pos()
		return &val{v: s.localLoad(buf)}
	}
	p := s.ptrArg(a, "ptr")
	shape := ir.ShapeOf(p.Type)
	ops := []*ir.Value{p}
	if a.has("mask") {
		ops = append(ops, s.mask(a, shape))
	}
	if a.has("other") && a.has("mask") {
		// Without a mask no lane is masked off, so other: has no effect.
		ops = append(ops, s.argAs(a, "other", pointee(p)))
	}
	attrs := ir.Attrs{}
	if s.constIntArg(a, "async") != 0 {
		attrs["async"] = true
	}
	s.memHints(a, attrs)
	if a.has("volatile") && s.constIntArg(a, "volatile") != 0 {
		attrs["volatile"] = true
	}
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(ir.OpLoad, pointee(p), ops, attrs)}
}

// localLoad loads the whole shared-memory view buf into registers.
func (s *fn) localLoad(buf *ir.Value) *ir.Value {
	md := buf.Type.(*ir.MemDesc)
	return s.b.Value(ir.OpLocalLoad, ir.TileOf(md.Shape, md.Elem), []*ir.Value{buf}, nil)
}

func (s *fn) store(a *args) *val {
	c := a.call
	if pv := s.arg(a, "ptr"); pv.bp != nil {
		return s.blockStore(a, pv.bp)
	} else {
		a.values["ptr"] = pv // lowered once
	}
	if buf, ok := s.bufferArg(a, "ptr"); ok {
		// store(buf, v): a whole tile into the shared-memory view.
		md := buf.Type.(*ir.MemDesc)
		v := s.argAs(a, "value", ir.TileOf(md.Shape, md.Elem))
		s.b.Pos = c.Pos()
		s.b.Create(ir.OpLocalStore, nil, []*ir.Value{buf, v}, nil)
		return &val{}
	}
	_, ops := s.ptrOps(a, "value")
	var attrs ir.Attrs
	if h := s.memHints(a, ir.Attrs{}); len(h) > 0 {
		attrs = h
	}
	s.b.Create(ir.OpStore, nil, ops, attrs)
	return &val{}
}

// memHints writes load's and store's cache_modifier: and eviction_policy:
// into attrs under those names, only when given and not "" (the default,
// no qualifier), so an access without them prints as before; it returns
// attrs.
func (s *fn) memHints(a *args, attrs ir.Attrs) ir.Attrs {
	for _, k := range []string{"cache_modifier", "eviction_policy"} {
		if a.has(k) {
			if v := s.constArg(a, k); v.str != nil && *v.str != "" {
				attrs[k] = *v.str
			}
		}
	}
	return attrs
}

func (s *fn) atomic(a *args, kind string) *val {
	p, ops := s.ptrOps(a, "value")
	attrs := s.atomicOrder(a)
	attrs["kind"] = kind
	return &val{v: s.b.Value(ir.OpAtomicRMW, pointee(p), ops, attrs)}
}

func (s *fn) atomicCAS(a *args) *val {
	p, ops := s.ptrOps(a, "cmp", "value")
	return &val{v: s.b.Value(ir.OpAtomicCAS, pointee(p), ops, s.atomicOrder(a))}
}

// atomicOrder reads an atomic's sem: and scope: (Triton's defaults acq_rel
// and gpu) into the attributes sem and scope, always written: an op
// without them is relaxed at gpu scope.
func (s *fn) atomicOrder(a *args) ir.Attrs {
	attrs := ir.Attrs{"sem": "acq_rel", "scope": "gpu"}
	for _, k := range []string{"sem", "scope"} {
		if a.has(k) {
			if v := s.constArg(a, k); v.str != nil {
				attrs[k] = *v.str
			}
		}
	}
	return attrs
}

// dot lowers dot(a, b, acc) and wgmma(a, b, acc, trans_a:, trans_b:). The
// operands may be tiles or shared-memory buffers.
func (s *fn) dot(a *args, kind ir.Kind) *val {
	c := a.call
	x := s.valueArg(a, "a")
	y := s.valueArg(a, "b")
	xs, ys := ir.ShapeOf(x.Type), ir.ShapeOf(y.Type)
	attrs := ir.Attrs{}
	ta, tb := false, false
	if kind == ir.OpWgmma {
		ta = s.constIntArg(a, "trans_a") != 0
		tb = s.constIntArg(a, "trans_b") != 0
		attrs["trans_a"], attrs["trans_b"] = ta, tb
	}
	var batch []int
	if kind == ir.OpDot && len(xs) == 3 && len(ys) == 3 && xs[0] == ys[0] {
		batch, xs, ys = xs[:1], xs[1:], ys[1:]
	}
	if len(xs) != 2 || len(ys) != 2 {
		s.errorf(c.Pos(), "%s needs 2-D operands, got %v and %v", kind, xs, ys)
	}
	m, k := xs[0], xs[1]
	if ta {
		m, k = k, m
	}
	k2, n := ys[0], ys[1]
	if tb {
		k2, n = n, k2
	}
	if k != k2 {
		s.errorf(c.Pos(), "%s: inner dimensions differ: [%d, %d] x [%d, %d]", kind, m, k, k2, n)
	}
	outShape := append(append([]int(nil), batch...), m, n)
	accT := ir.TileOf(outShape, ir.F32)
	if ir.ElemDType(x.Type).IsInt() {
		accT = ir.TileOf(outShape, ir.I32)
	}
	// out_dtype f16: the product accumulates in f32 (an f16 acc widened)
	// and rounds once to f16
	var outDT ir.DType
	if kind == ir.OpDot {
		outDT = s.dotOptions(a, ir.ElemDType(x.Type), attrs)
	}
	var acc *ir.Value
	if a.has("acc") {
		av := s.arg(a, "acc")
		if av.v != nil && outDT == ir.Invalid {
			if dt := ir.ElemDType(av.v.Type); dt.IsFloat() || dt.IsInt() {
				accT = ir.TileOf(outShape, dt)
			}
		}
		acc = s.materialize(av, accT, s.argPos(a, "acc"))
	} else {
		acc = s.materialize(&val{c: &constant{kind: 'i'}}, accT, c.Pos())
	}
	s.b.Pos = c.Pos()
	var r *ir.Value
	if attrs.String("input_precision") == "tf32x3" {
		r = s.dotTF32x3(x, y, acc, accT)
	} else {
		r = s.b.Value(kind, accT, []*ir.Value{x, y, acc}, attrs)
	}
	if outDT != ir.Invalid && outDT != ir.ElemDType(accT) {
		r = s.b.Value(ir.OpCast, ir.TileOf(outShape, outDT), []*ir.Value{r}, nil)
	}
	return &val{v: r}
}

// dotOptions reads dot's input_precision (or allow_tf32), out_dtype and
// max_num_imprecise_acc. A precision other than the default tf32 is the
// attribute input_precision, on f32 operands only (the others multiply
// exactly whatever it says); it returns the out_dtype, ir.Invalid when it
// is left out.
func (s *fn) dotOptions(a *args, operand ir.DType, attrs ir.Attrs) ir.DType {
	prec := "tf32"
	if a.has("input_precision") {
		if v := s.constArg(a, "input_precision"); v.str != nil {
			prec = *v.str
		}
	}
	if a.has("allow_tf32") && s.constIntArg(a, "allow_tf32") == 0 {
		prec = "ieee"
	}
	if prec != "tf32" && operand == ir.F32 {
		attrs["input_precision"] = prec
	}
	// max_num_imprecise_acc: accepted; every product accumulates in the
	// f32 accumulator (docs/triton.md)
	if a.has("out_dtype") {
		return s.dtypeArg(a, "out_dtype")
	}
	return ir.Invalid
}

// dotTF32x3 lowers an f32 dot with input_precision "tf32x3" as Triton
// does: each operand splits into big = tf32(x) and small = x - big, and
// three tf32 products accumulate small*big, big*small, then big*big; the
// dropped small*small is below f32's precision. big and small are exact
// tf32 and f32 values (round_tf32 then an exact subtraction), so each dot
// rounds its operands to tf32 as usual.
func (s *fn) dotTF32x3(x, y, acc *ir.Value, accT ir.Type) *ir.Value {
	split := func(v *ir.Value) (big, small *ir.Value) {
		big = s.b.Value(ir.OpRoundTF32, v.Type, []*ir.Value{v}, nil)
		return big, s.b.Value(ir.OpSub, v.Type, []*ir.Value{v, big}, nil)
	}
	xb, xs := split(x)
	yb, ys := split(y)
	acc = s.b.Value(ir.OpDot, accT, []*ir.Value{xs, yb, acc}, nil)
	acc = s.b.Value(ir.OpDot, accT, []*ir.Value{xb, ys, acc}, nil)
	return s.b.Value(ir.OpDot, accT, []*ir.Value{xb, yb, acc}, nil)
}

func (s *fn) where(a *args) *val {
	c := a.call
	cond, x, y := s.arg(a, "cond"), s.arg(a, "x"), s.arg(a, "y")
	if x.c != nil && y.c != nil {
		y = &val{v: s.value(y, s.argPos(a, "y"))}
	}
	dt := s.promote(x, y)
	shape, ok := ir.BroadcastShapes(valShape(x), valShape(y))
	if ok {
		shape, ok = ir.BroadcastShapes(shape, valShape(cond))
	}
	if !ok {
		s.errorf(c.Pos(), "where: cannot broadcast shapes %v, %v and %v", valShape(cond), valShape(x), valShape(y))
	}
	t := ir.TileOf(shape, dt)
	cv := s.materialize(cond, ir.TileOf(shape, ir.I1), s.argPos(a, "cond"))
	xv := s.materialize(x, t, s.argPos(a, "x"))
	yv := s.materialize(y, t, s.argPos(a, "y"))
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(ir.OpSelect, t, []*ir.Value{cv, xv, yv}, nil)}
}

func (s *fn) cast(a *args) *val {
	c := a.call
	if v := s.pointerCast(a); v != nil {
		return v
	}
	if a.has("bitcast") && s.constIntArg(a, "bitcast") != 0 {
		return s.bitcastTo(s.arg(a, "x"), s.dtypeArg(a, "dtype"), c.Pos())
	}
	if a.has("fp_downcast_rounding") {
		if v := s.constArg(a, "fp_downcast_rounding"); v.str != nil && *v.str == "rtz" {
			return s.castRTZ(s.arg(a, "x"), s.dtypeArg(a, "dtype"), c.Pos())
		}
	}
	return s.castTo(s.arg(a, "x"), s.dtypeArg(a, "dtype"), c.Pos())
}

// pointerCast lowers a cast with a pointer on either side (nil when there
// is none): an i64 or u64 to a pointer type is inttoptr, a pointer to i64
// or u64 ptrtoint, a pointer to its own type nothing (the checker allows
// no other).
func (s *fn) pointerCast(a *args) *val {
	to := s.constArg(a, "dtype")
	x := s.arg(a, "x")
	a.values["x"] = x // lowered once, whichever cast reads it
	var from *ir.Pointer
	if x.v != nil {
		from, _ = ir.Elem(x.v.Type).(*ir.Pointer)
	}
	if to.ptrType == nil && from == nil {
		return nil
	}
	pos := a.call.Pos()
	v := s.value(x, pos)
	s.b.Pos = pos
	switch {
	case to.ptrType != nil && from != nil:
		return &val{v: v}
	case to.ptrType != nil:
		return &val{v: s.b.Value(ir.OpIntToPtr, ir.WithElem(v.Type, to.ptrType), []*ir.Value{v}, nil)}
	}
	return &val{v: s.b.Value(ir.OpPtrToInt, ir.WithElem(v.Type, to.dtype), []*ir.Value{v}, nil)}
}

// castRTZ converts x to the narrower float dtype dt rounding toward zero
// (fp_downcast_rounding: "rtz"; the checker has seen to a float
// downcast): a cast op with attribute rounding = "rtz", a compile-time x
// materialized first so that no fold rounds it to nearest. Round to
// nearest even stays the cast without the attribute.
func (s *fn) castRTZ(x *val, dt ir.DType, pos diag.Pos) *val {
	v := s.value(x, pos)
	if ir.ElemDType(v.Type) == dt {
		return &val{v: v}
	}
	s.b.Pos = pos
	return &val{v: s.b.Value(ir.OpCast, ir.WithElem(v.Type, dt), []*ir.Value{v}, ir.Attrs{"rounding": "rtz"})}
}

// bitcastTo reinterprets the bits of x as dtype dt (the checker has made
// the widths equal); a compile-time x is materialized first.
func (s *fn) bitcastTo(x *val, dt ir.DType, pos diag.Pos) *val {
	v := s.value(x, pos)
	if ir.ElemDType(v.Type) == dt {
		return &val{v: v}
	}
	s.b.Pos = pos
	return &val{v: s.b.Value(ir.OpBitcast, ir.WithElem(v.Type, dt), []*ir.Value{v}, nil)}
}

func (s *fn) castTo(x *val, dt ir.DType, pos diag.Pos) *val {
	if x.c != nil {
		return &val{c: x.c.convert(dt)}
	}
	v := s.value(x, pos)
	if _, ok := ir.Elem(v.Type).(*ir.Pointer); ok {
		s.errorf(pos, "cannot cast a pointer")
	}
	s.b.Pos = pos
	return &val{v: s.convert(v, ir.WithElem(v.Type, dt), pos)}
}

func (s *fn) axisArg(a *args, rank int) (int, bool) {
	if !a.has("axis") {
		return 0, false
	}
	axis := int(s.constIntArg(a, "axis"))
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		s.errorf(s.argPos(a, "axis"), "axis %d is out of range for a tile of rank %d", axis, rank)
	}
	return axis, true
}

func (s *fn) reduceAxis(x *ir.Value, kind string, axis int) *ir.Value {
	return s.reduceIn(x, kind, axis, true)
}

// reduceIn is reduceAxis; widen false keeps a small integer sum in its
// dtype (sum's dtype: given).
func (s *fn) reduceIn(x *ir.Value, kind string, axis int, widen bool) *ir.Value {
	shape := ir.ShapeOf(x.Type)
	out := append(append([]int(nil), shape[:axis]...), shape[axis+1:]...)
	if widen {
		x = s.widenForSum(x, kind)
	}
	dt := ir.ElemDType(x.Type)
	op := s.b.Create(ir.OpReduce, []ir.Type{ir.TileOf(out, dt)}, []*ir.Value{x}, ir.Attrs{"axis": int64(axis), "kind": kind})
	if kind == "combine" {
		s.combineRegion(op, dt)
	}
	return op.Results[0]
}

// widenForSum gives sums of integers narrower than 32 bits (and of i1) a
// 32-bit accumulator, as the checker types them: i32, or u32 for unsigned.
func (s *fn) widenForSum(x *ir.Value, kind string) *ir.Value {
	dt := ir.ElemDType(x.Type)
	if kind != "sum" || !dt.IsInt() || dt.Bits() >= 32 {
		return x
	}
	to := ir.I32
	if dt.IsUnsigned() && dt != ir.I1 {
		to = ir.U32
	}
	return s.convert(x, ir.WithElem(x.Type, to), s.b.Pos)
}

// cumsum lowers cumsum (kind sum) and cumprod (kind prod) to a scan.
func (s *fn) cumsum(a *args, kind string) *val {
	c := a.call
	x := s.valueArg(a, "x")
	shape := ir.ShapeOf(x.Type)
	if len(shape) == 0 {
		s.errorf(s.argPos(a, "x"), "cum%s needs a tile, not a scalar", kind)
	}
	axis, _ := s.axisArg(a, len(shape))
	rev := s.constIntArg(a, "reverse") != 0
	s.b.Pos = c.Pos()
	if a.gave("dtype") {
		x = s.convert(x, ir.WithElem(x.Type, s.dtypeArg(a, "dtype")), c.Pos())
	} else {
		x = s.widenForSum(x, "sum")
	}
	return &val{v: s.b.Value(ir.OpScan, x.Type, []*ir.Value{x}, ir.Attrs{"axis": int64(axis), "kind": kind, "reverse": rev})}
}

func (s *fn) math(a *args, kind ir.Kind) *val {
	c := a.call
	x := s.arg(a, "x")
	v := s.value(x, s.argPos(a, "x"))
	if x.c != nil && kind != ir.OpAbs {
		v = s.materialize(x, ir.F32, s.argPos(a, "x"))
	}
	dt := ir.ElemDType(v.Type)
	if kind != ir.OpAbs && !dt.IsFloat() {
		v = s.convert(v, ir.WithElem(v.Type, ir.F32), c.Pos())
	}
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(kind, v.Type, []*ir.Value{v}, nil)}
}

func (s *fn) minmax(a *args, kind ir.Kind) *val {
	c := a.call
	x, y := s.arg(a, "x"), s.arg(a, "y")
	if x.c != nil && y.c != nil {
		if (x.c.float() < y.c.float()) == (kind == ir.OpMin) {
			return x
		}
		return y
	}
	dt := s.promote(x, y)
	shape, ok := ir.BroadcastShapes(valShape(x), valShape(y))
	if !ok {
		s.errorf(c.Pos(), "cannot broadcast shapes %v and %v", valShape(x), valShape(y))
	}
	t := ir.TileOf(shape, dt)
	xv, yv := s.materialize(x, t, s.argPos(a, "x")), s.materialize(y, t, s.argPos(a, "y"))
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(kind, t, []*ir.Value{xv, yv}, nil)}
}

// fma promotes as the checker does: the typed operands' dtypes pairwise
// from the left (the untyped constants adopt it), f32 when every operand is
// an untyped constant; the checker rejected integer and fp8 dtypes.
func (s *fn) fma(a *args) *val {
	ops, t := s.promoteOperands(a, ir.F32, "a", "b", "c")
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpFMA, t, ops, nil)}
}

// promoteOperands materializes the named arguments in one type: their
// shapes broadcast, their dtypes promoted pairwise from the left (untyped
// constants adopt it), def when every operand is an untyped constant.
func (s *fn) promoteOperands(a *args, def ir.DType, names ...string) ([]*ir.Value, ir.Type) {
	c := a.call
	xs := make([]*val, len(names))
	dt := ir.Invalid
	var shape []int
	ok := true
	for i, name := range names {
		x := s.arg(a, name)
		xs[i] = x
		d := ir.Invalid
		switch {
		case x.v != nil:
			d = ir.ElemDType(x.v.Type)
		case x.c != nil:
			d = x.c.dt
		}
		switch {
		case d == ir.Invalid:
		case dt == ir.Invalid:
			dt = d
		default:
			dt = ir.Promote(dt, d)
		}
		if i == 0 {
			shape = valShape(x)
		} else if ok {
			shape, ok = ir.BroadcastShapes(shape, valShape(x))
		}
	}
	if !ok {
		s.errorf(c.Pos(), "%s: cannot broadcast the shapes of its operands", a.b.Name)
	}
	if dt == ir.Invalid {
		dt = def
	}
	t := ir.TileOf(shape, dt)
	ops := make([]*ir.Value, len(xs))
	for i, x := range xs {
		ops[i] = s.materialize(x, t, s.argPos(a, names[i]))
	}
	return ops, t
}

func (s *fn) cdiv(a *args) *val {
	c := a.call
	x, y := s.arg(a, "a"), s.arg(a, "b")
	one := &val{c: &constant{kind: 'i', i: 1}}
	return s.binary("/", s.binary("-", s.binary("+", x, y, c.Pos()), one, c.Pos()), y, c.Pos())
}

func (s *fn) reshape(a *args) *val {
	c := a.call
	x := s.valueArg(a, "x")
	shape := s.shapeArg(a, "shape")
	if ir.NumElements(shape) != ir.NumElements(ir.ShapeOf(x.Type)) {
		s.errorf(c.Pos(), "cannot reshape %v to %v", ir.ShapeOf(x.Type), shape)
	}
	s.b.Pos = c.Pos()
	if md, ok := x.Type.(*ir.MemDesc); ok {
		// a view of the same bytes (memdesc_reshape); the checker allowed
		// row-major views with the innermost dimension kept only
		if e := ir.MemReshapeError(md.Shape, md.Order, shape); e != "" {
			s.errorf(c.Pos(), "%s", e)
		}
		t := &ir.MemDesc{Shape: shape, Elem: md.Elem, Order: ir.RowMajor(len(shape)), Space: md.Space}
		return &val{v: s.b.Value(ir.OpMemReshape, t, []*ir.Value{x}, nil)}
	}
	return &val{v: s.b.Value(ir.OpReshape, ir.TileOf(shape, ir.Elem(x.Type)), []*ir.Value{x}, nil)}
}

func (s *fn) broadcastToCall(a *args) *val {
	c := a.call
	x := s.valueArg(a, "x")
	shape := s.shapeArg(a, "shape")
	return &val{v: s.broadcastTo(x, shape, c.Pos())}
}

// transCall lowers trans(x) and permute(x, d0, d1, ...), on tiles and on
// shared-memory views (a view needs no data movement).
func (s *fn) transCall(a *args) *val {
	c := a.call
	x := s.valueArg(a, "x")
	var perm []int64
	for _, d := range a.rest {
		v := s.expr(d.Value)
		if v.c == nil || !v.c.isInt() {
			s.errorf(d.Pos(), "permute dimensions must be compile-time integers")
		}
		perm = append(perm, v.c.i)
	}
	return &val{v: s.permute(x, perm, c.Pos())}
}

func (s *fn) permute(x *ir.Value, perm []int64, pos diag.Pos) *ir.Value {
	shape := ir.ShapeOf(x.Type)
	if perm == nil {
		for i := len(shape) - 1; i >= 0; i-- {
			perm = append(perm, int64(i))
		}
	}
	if len(perm) != len(shape) {
		s.errorf(pos, "permutation %v does not match rank %d", perm, len(shape))
	}
	out := make([]int, len(shape))
	seen := map[int64]bool{}
	for i, p := range perm {
		if p < 0 || int(p) >= len(shape) || seen[p] {
			s.errorf(pos, "%v is not a permutation of the dimensions", perm)
		}
		seen[p] = true
		out[i] = shape[p]
	}
	s.b.Pos = pos
	if md, ok := x.Type.(*ir.MemDesc); ok {
		order := make([]int, len(md.Order))
		inv := make([]int, len(perm))
		for i, p := range perm {
			inv[p] = i
		}
		for i, d := range md.Order {
			order[i] = inv[d]
		}
		t := &ir.MemDesc{Shape: out, Elem: md.Elem, Order: order, Space: md.Space}
		return s.b.Value(ir.OpMemTrans, t, []*ir.Value{x}, ir.Attrs{"perm": perm})
	}
	return s.b.Value(ir.OpTrans, ir.TileOf(out, ir.Elem(x.Type)), []*ir.Value{x}, ir.Attrs{"perm": perm})
}

func (s *fn) print(a *args) *val {
	c := a.call
	var ops []*ir.Value
	prefix := ""
	for _, arg := range a.rest {
		v := s.expr(arg.Value)
		if v.str != nil {
			// Text anywhere in the call is printed before the values.
			prefix += *v.str
			continue
		}
		ops = append(ops, s.value(v, arg.Pos()))
	}
	s.b.Pos = c.Pos()
	s.b.Create(ir.OpPrint, nil, ops, ir.Attrs{"prefix": prefix})
	return &val{}
}

// staticRangeCall is static_range outside a loop's range (the checker
// reports it first).
func (s *fn) staticRangeCall(a *args) *val {
	s.errorf(a.call.Pos(), "static_range is a for loop's range: for i := range static_range(n)")
	return nil
}

// staticAssert lowers static_assert(cond, msg): a false cond is an error
// at the call; nothing is emitted.
func (s *fn) staticAssert(a *args) *val {
	c := a.call
	cond := s.constArg(a, "cond")
	if cond.c == nil {
		s.errorf(s.argPos(a, "cond"), "static_assert needs a compile-time condition")
	}
	if cond.c.float() == 0 {
		msg := ""
		if a.has("msg") {
			if m := s.constArg(a, "msg"); m.str != nil {
				msg = *m.str
			}
		}
		if msg == "" {
			msg = string(s.l.file.File.Src[a.named["cond"].Value.Pos():a.named["cond"].Value.End()])
		}
		s.errorf(c.Pos(), "static_assert failed: %s", msg)
	}
	return &val{}
}

// staticPrint lowers static_print(args...): it writes the values, as the
// kernel is specialised, to Options.StaticPrint (standard error when nil),
// after the call's position; nothing is emitted.
func (s *fn) staticPrint(a *args) *val {
	var parts []string
	for _, arg := range a.rest {
		parts = append(parts, s.expr(arg.Value).compileTimeString())
	}
	w := s.l.opts.StaticPrint
	if w == nil {
		w = os.Stderr
	}
	p := s.l.file.File.Position(a.call.Pos())
	fmt.Fprintf(w, "%s: static_print: %s\n", p, strings.Join(parts, " "))
	return &val{}
}

// compileTimeString is a compile-time value as static_print shows it.
func (x *val) compileTimeString() string {
	switch {
	case x.str != nil:
		return *x.str
	case x.c != nil:
		return x.c.String()
	case x.dtype != ir.Invalid:
		return x.dtype.String()
	case x.ptrType != nil:
		return "*" + x.ptrType.Elem.String()
	case x.tile != nil:
		return x.tile.String()
	case x.list != nil:
		var parts []string
		for _, e := range x.list {
			parts = append(parts, e.compileTimeString())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return x.describe()
}

func (s *fn) assert(a *args) *val {
	c := a.call
	cond := s.valueArg(a, "cond")
	msg := "assertion failed"
	if a.has("msg") {
		m := s.constArg(a, "msg")
		if m.str == nil {
			s.errorf(s.argPos(a, "msg"), "the assert message must be a string")
		}
		msg = *m.str
	}
	cond = s.convert(cond, ir.WithElem(cond.Type, ir.I1), c.Pos())
	s.b.Pos = c.Pos()
	s.b.Create(ir.OpAssert, nil, []*ir.Value{cond}, ir.Attrs{"msg": msg})
	return &val{}
}

// hintAttrs are the axis_hint attributes of multiple_of, max_contiguous
// and max_constancy.
var hintAttrs = map[string]string{"multiple_of": "divisibility", "max_contiguous": "contiguity", "max_constancy": "constancy"}

// axisHint lowers multiple_of, max_contiguous and max_constancy to an
// axis_hint op: x unchanged, a fact for the axis analysis.
func (s *fn) axisHint(a *args) *val {
	x := s.valueArg(a, "x")
	vals := s.shapeArg(a, "values")
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpAxisHint, x.Type, []*ir.Value{x}, ir.Attrs{hintAttrs[a.b.Name]: ints64(vals)})}
}

// assume lowers assume(cond) to an assume op (the checker has made cond a
// scalar i1; a known true one needs none).
func (s *fn) assume(a *args) *val {
	v := s.arg(a, "cond")
	if v.c != nil {
		return &val{}
	}
	cond := s.value(v, s.argPos(a, "cond"))
	s.b.Pos = a.call.Pos()
	s.b.Create(ir.OpAssume, nil, []*ir.Value{cond}, nil)
	return &val{}
}

func (s *fn) makeDesc(a *args) *val {
	c := a.call
	p := s.ptrArg(a, "ptr")
	ptr, _ := p.Type.(*ir.Pointer)
	if ptr == nil {
		s.errorf(s.argPos(a, "ptr"), "make_desc needs a scalar pointer")
	}
	block := s.shapeArg(a, "block")
	shape := s.arg(a, "shape")
	strides := s.arg(a, "strides")
	if len(shape.list) != len(block) || len(strides.list) != len(block) {
		s.errorf(c.Pos(), "make_desc: shape:, strides: and block: need %d entries each", len(block))
	}
	ops := []*ir.Value{p}
	for _, d := range append(append([]*val(nil), shape.list...), strides.list...) {
		ops = append(ops, s.materialize(d, ir.I64, c.Pos()))
	}
	blk := make([]int64, len(block))
	for i, b := range block {
		blk[i] = int64(b)
	}
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(ir.OpMakeDesc, &ir.Desc{Elem: ptr.Elem, Block: block}, ops, ir.Attrs{"block": blk})}
}

func (s *fn) alloc(a *args) *val {
	c := a.call
	shape := s.shapeArg(a, "shape")
	dt := s.dtypeArg(a, "dtype")
	if scope := a.named["scope"]; scope != nil {
		if id, ok := scope.Value.(*ast.Ident); !ok || id.Name != "smem" {
			s.errorf(s.argPos(a, "scope"), "scope: must be smem")
		}
	}
	t := &ir.MemDesc{Shape: shape, Elem: dt, Order: ir.RowMajor(len(shape)), Space: ir.Shared}
	var ops []*ir.Value
	if a.has("init") {
		ops = append(ops, s.argAs(a, "init", ir.TileOf(shape, dt)))
	}
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(ir.OpAlloc, t, ops, nil)}
}

func (s *fn) memArg(a *args, name string) *ir.Value {
	v := s.valueArg(a, name)
	if _, ok := v.Type.(*ir.MemDesc); !ok {
		s.errorf(s.argPos(a, name), "%s must be a shared-memory buffer, not %s", name, v.Type)
	}
	return v
}

func (s *fn) localPtr(a *args) *val {
	c := a.call
	buf := s.memArg(a, "buf")
	md := buf.Type.(*ir.MemDesc)
	if len(a.rest) != len(md.Shape) {
		s.errorf(c.Pos(), "local_ptr needs %d index tiles for a buffer of shape %v, got %d", len(md.Shape), md.Shape, len(a.rest))
	}
	var idx []*val
	var shape []int
	for _, r := range a.rest {
		v := s.expr(r.Value)
		sh, ok := ir.BroadcastShapes(shape, valShape(v))
		if !ok {
			s.errorf(r.Pos(), "local_ptr: index shapes %v and %v do not broadcast", shape, valShape(v))
		}
		shape = sh
		idx = append(idx, v)
	}
	ops := []*ir.Value{buf}
	for i, v := range idx {
		ops = append(ops, s.materialize(v, ir.TileOf(shape, ir.I32), a.rest[i].Pos()))
	}
	s.b.Pos = c.Pos()
	ptr := &ir.Pointer{Elem: md.Elem, Space: md.Space}
	return &val{v: s.b.Value(ir.OpLocalPtr, ir.TileOf(shape, ptr), ops, nil)}
}

func (s *fn) copyCall(a *args) *val {
	c := a.call
	src := s.valueArg(a, "src")
	dst := s.valueArg(a, "dst")
	ops := []*ir.Value{src, dst}
	var desc *ir.Desc
	if d, ok := src.Type.(*ir.Desc); ok {
		desc = d
	} else if d, ok := dst.Type.(*ir.Desc); ok {
		desc = d
	} else {
		// Between equal-shaped buffers and pointer tiles: a load and a store.
		s.b.Pos = c.Pos()
		var tile *ir.Value
		if _, ok := src.Type.(*ir.MemDesc); ok {
			tile = s.localLoad(src)
		} else {
			tile = s.b.Value(ir.OpLoad, pointee(src), []*ir.Value{src}, nil)
		}
		if _, ok := dst.Type.(*ir.MemDesc); ok {
			s.b.Create(ir.OpLocalStore, nil, []*ir.Value{dst, tile}, nil)
		} else {
			s.b.Create(ir.OpStore, nil, []*ir.Value{dst, tile}, nil)
		}
		return &val{}
	}
	if len(a.rest) != len(desc.Block) {
		s.errorf(c.Pos(), "copy needs %d offsets for a rank-%d descriptor, got %d", len(desc.Block), len(desc.Block), len(a.rest))
	}
	for _, o := range a.rest {
		ops = append(ops, s.materialize(s.expr(o.Value), ir.I32, o.Pos()))
	}
	attrs := ir.Attrs{"has_barrier": false}
	if a.has("barrier") {
		b := s.valueArg(a, "barrier")
		ops = append(ops, b)
		attrs["has_barrier"] = true
	}
	s.b.Pos = c.Pos()
	s.b.Create(ir.OpCopy, nil, ops, attrs)
	return &val{}
}

func (s *fn) barrier(a *args) *val {
	c := a.call
	n := s.constIntArg(a, "count")
	slots := int64(0)
	if a.has("slots") {
		slots = s.constIntArg(a, "slots")
	}
	if slots < 0 {
		s.errorf(s.argPos(a, "slots"), "slots must be positive")
	}
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(ir.OpBarrierAlloc, &ir.Barrier{Slots: int(slots)}, nil, ir.Attrs{"count": n})}
}

// barrierOp lowers arrive(bar), wait(bar, phase) and expect(bar, bytes):
// the value after the barrier, where the row has one, is an i32.
func (s *fn) barrierOp(a *args, kind ir.Kind) *val {
	c := a.call
	b := s.valueArg(a, "bar")
	if _, ok := b.Type.(*ir.Barrier); !ok {
		s.errorf(s.argPos(a, "bar"), "expected a barrier, not %s", b.Type)
	}
	ops := []*ir.Value{b}
	if len(a.b.Params) > 1 {
		second := a.b.Params[1].Name
		ops = append(ops, s.argAs(a, second, ir.I32))
	}
	s.b.Pos = c.Pos()
	s.b.Create(kind, nil, ops, nil)
	return &val{}
}

func (s *fn) pipe(a *args) *val {
	if !a.has("capacity") {
		s.errorf(a.call.Pos(), "pipe needs capacity:")
	}
	v := s.constArg(a, "capacity")
	if v.c == nil || !v.c.isInt() || v.c.i <= 0 {
		s.errorf(s.argPos(a, "capacity"), "capacity must be a positive compile-time integer")
	}
	p := &ir.Pipe{Capacity: int(v.c.i)}
	for _, f := range a.fields {
		fv := s.expr(f.Value)
		if fv.tile == nil {
			s.errorf(f.Value.Pos(), "pipe field %s needs a tile type such as [16, 128]bf16", f.Name.Name)
		}
		p.Fields = append(p.Fields, ir.PipeField{Name: f.Name.Name, Shape: fv.tile.Shape, Elem: fv.tile.Elem.(ir.DType)})
	}
	return &val{v: s.b.Value(ir.OpPipeAlloc, p, nil, nil)}
}

func (s *fn) wgmmaWait(a *args) *val {
	s.b.Create(ir.OpWgmmaWait, nil, nil, ir.Attrs{"pending": s.constIntArg(a, "n")})
	return &val{}
}

func (s *fn) deviceMesh(a *args) *val {
	dims := []int64{1, 1, 1}
	for i, ax := range check.MeshAxes {
		dims[i] = s.constIntArg(a, ax)
		if dims[i] <= 0 {
			s.errorf(s.argPos(a, ax), "%s must be positive", ax)
		}
	}
	t := &ir.Mesh{Dims: [3]int{int(dims[0]), int(dims[1]), int(dims[2])}}
	attrs := ir.Attrs{"dims": dims}
	if a.has("device") {
		n := s.constIntArg(a, "device")
		if n <= 0 {
			s.errorf(s.argPos(a, "device"), "device must be positive, got %d", n)
		}
		t.Devices = int(n)
		attrs["devices"] = n
	}
	return &val{v: s.b.Value(ir.OpDeviceMesh, t, nil, attrs)}
}

func (s *fn) shardID(a *args) *val {
	m := s.valueArg(a, "mesh")
	ax := s.constArg(a, "axis")
	if ax.str == nil {
		s.errorf(s.argPos(a, "axis"), `the axis is a string such as "cluster_x"`)
	}
	for i, name := range check.MeshAxes {
		if *ax.str == name {
			return &val{v: s.b.Value(ir.OpShardID, ir.I32, []*ir.Value{m}, ir.Attrs{"axis": int64(i)})}
		}
	}
	if *ax.str == "device" {
		s.needDeviceMesh(a, m)
		return &val{v: s.b.Value(ir.OpShardID, ir.I32, []*ir.Value{m}, ir.Attrs{"axis": int64(3)})}
	}
	s.errorf(s.argPos(a, "axis"), "unknown mesh axis %q", *ax.str)
	return nil
}

func (s *fn) remote(a *args) *val {
	c := a.call
	if v, isBuf := s.bufferArg(a, "buf"); !isBuf {
		return s.remotePtr(a, v)
	}
	buf := s.memArg(a, "buf")
	rank := s.argAs(a, "rank", ir.I32)
	m := s.valueArg(a, "mesh")
	md := *buf.Type.(*ir.MemDesc)
	md.Space = ir.Cluster
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(ir.OpRemote, &md, []*ir.Value{buf, rank, m}, nil)}
}

func (s *fn) distributedBarrier(a *args) *val {
	m := s.valueArg(a, "mesh")
	s.b.Create(ir.OpDistributedBarrier, nil, []*ir.Value{m}, s.subMesh(a, m))
	return &val{}
}

func (s *fn) asm(a *args) *val {
	c := a.call
	t := s.constArg(a, "template")
	if t.str == nil {
		s.errorf(s.argPos(a, "template"), "asm takes its PTX template as a string")
	}
	var ops []*ir.Value
	for _, r := range a.rest {
		ops = append(ops, s.value(s.expr(r.Value), r.Pos()))
	}
	attrs := ir.Attrs{"template": *t.str}
	var results []ir.Type
	if a.has("out") {
		v := s.constArg(a, "out")
		switch {
		case v.dtype != ir.Invalid:
			results = []ir.Type{v.dtype}
		case v.tile != nil:
			results = []ir.Type{v.tile}
		default:
			s.errorf(s.argPos(a, "out"), "out: must be a type")
		}
	}
	s.b.Pos = c.Pos()
	op := s.b.Create(ir.OpAsm, results, ops, attrs)
	if len(results) == 0 {
		return &val{}
	}
	return &val{v: op.Results[0]}
}

// method lowers x.name(args): conversions, buffer views and pipe operations.
// A method of values (x.to) takes its receiver as it is, so that a constant
// stays one; the others take it lowered, and are found by its type.
func (s *fn) method(sel *ast.SelectorExpr, c *ast.CallExpr) *val {
	x := s.expr(sel.X)
	name := sel.Sel.Name
	s.b.Pos = c.Pos()
	b := check.LookupMethod("value", name)
	if b == nil {
		v := s.value(x, sel.X.Pos())
		if b = check.LookupMethod(recvKind(v.Type), name); b == nil {
			s.errorf(sel.Sel.Pos(), "%s has no method %s", v.Type, name)
		}
		x = &val{v: v}
	}
	return s.builtinCall(b, c, x)
}

// recvKind is the receiver kind (check.Builtin.Recv) of methods on t.
func recvKind(t ir.Type) string {
	switch t := t.(type) {
	case *ir.Pipe:
		return "pipe"
	case *ir.MemDesc:
		return "memdesc"
	case *ir.Desc:
		return "desc"
	case *ir.Barrier:
		if t.Slots > 0 {
			return "barriers"
		}
	}
	return ""
}

// recvIndex gives a slot or pipe method's receiver and its index i, an i32.
func (s *fn) recvIndex(a *args) (recv, i *ir.Value) {
	recv = s.arg(a, a.b.Params[0].Name).v
	i = s.argAs(a, "i", ir.I32)
	s.b.Pos = a.call.Pos()
	return recv, i
}

func (s *fn) memSlot(a *args) *val {
	v, i := s.recvIndex(a)
	t := v.Type.(*ir.MemDesc)
	md := &ir.MemDesc{Shape: t.Shape[1:], Elem: t.Elem, Order: dropLeading(t.Order), Space: t.Space}
	return &val{v: s.b.Value(ir.OpMemIndex, md, []*ir.Value{v, i}, nil)}
}

func (s *fn) barrierSlot(a *args) *val {
	v, i := s.recvIndex(a)
	return &val{v: s.b.Value(ir.OpBarrierIndex, &ir.Barrier{}, []*ir.Value{v, i}, nil)}
}

// pipeOp lowers pp.acquire(i), pp.wait(i) (which give a slot) and pp.commit,
// pp.close, pp.release.
func (s *fn) pipeOp(a *args, k ir.Kind) *val {
	v, i := s.recvIndex(a)
	t := v.Type.(*ir.Pipe)
	switch k {
	case ir.OpPipeAcquire:
		return &val{v: s.b.Value(k, &ir.Slot{Pipe: t, Writer: true}, []*ir.Value{v, i}, nil)}
	case ir.OpPipeWait:
		return &val{v: s.b.Value(k, &ir.Slot{Pipe: t}, []*ir.Value{v, i}, nil)}
	}
	s.b.Create(k, nil, []*ir.Value{v, i}, nil)
	return &val{}
}

// dropLeading removes dimension 0 from an order and renumbers the rest.
func dropLeading(order []int) []int {
	var out []int
	for _, d := range order {
		if d != 0 {
			out = append(out, d-1)
		}
	}
	return out
}

// selector lowers x.T, slot fields and s.closed.
func (s *fn) selector(e *ast.SelectorExpr) *val {
	x := s.expr(e.X)
	name := e.Sel.Name
	if r := s.introspect(x, name, e); r != nil {
		return r
	}
	v := s.value(x, e.X.Pos())
	s.b.Pos = e.Sel.Pos()
	if name == "T" {
		if len(ir.ShapeOf(v.Type)) < 2 {
			s.errorf(e.Sel.Pos(), ".T needs a tile or buffer of rank 2 or more, not %s", v.Type)
		}
		return &val{v: s.permute(v, nil, e.Sel.Pos())} // reverses every axis
	}
	if sl, ok := v.Type.(*ir.Slot); ok {
		if name == "closed" {
			return &val{v: s.b.Value(ir.OpSlotClosed, ir.I1, []*ir.Value{v}, nil)}
		}
		for _, f := range sl.Pipe.Fields {
			if f.Name == name {
				md := &ir.MemDesc{Shape: f.Shape, Elem: f.Elem, Order: ir.RowMajor(len(f.Shape)), Space: ir.Shared}
				return &val{v: s.b.Value(ir.OpSlotField, md, []*ir.Value{v}, ir.Attrs{"name": name})}
			}
		}
	}
	s.errorf(e.Sel.Pos(), "%s has no field %s", v.Type, name)
	return nil
}

// introspect lowers x.dtype, x.shape and p.dtype.element_ty to the
// compile-time values they are (nil when name is none of them).
func (s *fn) introspect(x *val, name string, e *ast.SelectorExpr) *val {
	if name == "element_ty" && x.ptrType != nil {
		return &val{dtype: x.ptrType.Elem}
	}
	if name != "dtype" && name != "shape" {
		return nil
	}
	var t ir.Type
	switch {
	case x.v != nil:
		t = x.v.Type
	case x.c != nil:
		t = defaultType(x.c)
	default:
		return nil
	}
	if name == "shape" {
		if _, ok := t.(*ir.MemDesc); !ok {
			if _, ok := t.(*ir.Tile); !ok {
				return nil
			}
		}
		l := &val{}
		for _, d := range ir.ShapeOf(t) {
			l.list = append(l.list, &val{c: &constant{kind: 'i', i: int64(d)}})
		}
		return l
	}
	switch el := ir.Elem(t).(type) {
	case ir.DType:
		return &val{dtype: el}
	case *ir.Pointer:
		return &val{ptrType: &ir.Pointer{Elem: el.Elem, Space: el.Space}}
	}
	if md, ok := t.(*ir.MemDesc); ok {
		return &val{dtype: md.Elem}
	}
	return nil
}

func ints64(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

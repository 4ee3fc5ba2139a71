package nvptx

import (
	"fmt"
	"slices"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// word is how a group of elements moves between registers and memory: as
// n words of one PTX register kind.
type word struct {
	t     types.Type // LLVM type of one word
	cons  string     // inline asm constraint letter
	ptx   string     // PTX type suffix (f32, b32, b64, f64, b16, u8)
	bytes int
}

var (
	wordF32 = word{types.Float, "f", "f32", 4}
	wordB32 = word{types.I32, "r", "b32", 4}
	wordF64 = word{types.Double, "d", "f64", 8}
	wordB64 = word{types.I64, "l", "b64", 8}
	wordB16 = word{types.I16, "h", "b16", 2}
	wordU8  = word{types.I16, "h", "u8", 1}
)

// wordsFor picks the words moving vec elements of dtype d.
func wordsFor(d ir.DType, vec int) (word, int) {
	eb := d.Bytes()
	total := eb * vec
	switch {
	case d == ir.F32:
		return wordF32, vec
	case d == ir.F64:
		return wordF64, vec
	case eb == 8:
		return wordB64, vec
	case total >= 4:
		return wordB32, total / 4
	case eb == 2:
		return wordB16, vec
	}
	return wordU8, vec
}

// packWords packs elements (in their storage types) into words.
func (g *gen) packWords(elems []value.Value, d ir.DType, w word, n int) []value.Value {
	if len(elems) == n {
		out := make([]value.Value, n)
		for i, e := range elems {
			out[i] = g.toMem(e, d)
			if w == wordU8 {
				out[i] = g.cur.NewZExt(out[i], types.I16)
			}
		}
		return out
	}
	per := len(elems) / n
	bits := 32 / per
	out := make([]value.Value, n)
	for i := range out {
		if per == 2 {
			if p := g.packedConversion(elems[2*i], elems[2*i+1], d); p != nil {
				out[i] = p
				continue
			}
		}
		var acc value.Value = i32c(0)
		for j := 0; j < per; j++ {
			e := g.toMem(elems[i*per+j], d)
			x := value.Value(g.cur.NewZExt(e, types.I32))
			if c, ok := e.(*constant.Int); ok && c.X.IsInt64() {
				x = i32c(c.X.Int64() & (1<<uint(bits) - 1))
			}
			acc = g.or(acc, g.shl(x, i32c(int64(j*bits))))
		}
		out[i] = acc
	}
	return out
}

// packedConversion packs two 16-bit floats that were both just converted
// from f32 (fromCompute's cvt.rn.bf16.f32 / f16 truncation) with one
// cvt.rn.bf16x2.f32 (f16x2) of the two f32 values; nil when they were not.
func (g *gen) packedConversion(lo, hi value.Value, d ir.DType) value.Value {
	if d != ir.BF16 && d != ir.F16 {
		return nil
	}
	src := func(v value.Value) value.Value {
		switch x := v.(type) {
		case *llvm.InstCall:
			if a, ok := x.Callee.(*llvm.InlineAsm); ok && d == ir.BF16 && a.Asm == "cvt.rn.bf16.f32 $0, $1;" && len(x.Args) == 1 {
				return x.Args[0]
			}
		case *llvm.InstBitCast:
			if t, ok := x.From.(*llvm.InstFPTrunc); ok && d == ir.F16 && t.From.Type() == types.Float {
				return t.From
			}
		}
		return nil
	}
	a, b := src(lo), src(hi)
	if a == nil || b == nil {
		return nil
	}
	asm := g.md.inlineAsm(types.I32, []types.Type{types.Float, types.Float}, "cvt.rn."+d.String()+"x2.f32 $0, $1, $2;", "=r,f,f", false)
	return g.cur.NewCall(asm, b, a)
}

// unpackWords splits words into count elements of dtype d (storage types).
func (g *gen) unpackWords(words []value.Value, d ir.DType, w word, count int) []value.Value {
	if len(words) == count {
		out := make([]value.Value, count)
		for i, x := range words {
			if w == wordU8 {
				x = g.cur.NewTrunc(x, types.I8)
			}
			out[i] = g.fromMem(x, d)
		}
		return out
	}
	per := count / len(words)
	bits := 32 / per
	mt := memType(d)
	out := make([]value.Value, 0, count)
	for _, x := range words {
		for j := 0; j < per; j++ {
			e := g.cur.NewTrunc(g.lshr(x, i32c(int64(j*bits))), mt)
			out = append(out, g.fromMem(e, d))
		}
	}
	return out
}

// toMem / fromMem convert between a register's storage type and memory's
// (only i1 differs: a byte in memory).
func (g *gen) toMem(v value.Value, d ir.DType) value.Value {
	if d == ir.I1 {
		return g.cur.NewZExt(v, types.I8)
	}
	return v
}

func (g *gen) fromMem(v value.Value, d ir.DType) value.Value {
	if d == ir.I1 {
		return g.cur.NewICmp(enum.IPredNE, v, intConst(types.I8, 0))
	}
	return v
}

// firstThread is an i1 true in thread 0 of the CTA only.
func (g *gen) firstThread() value.Value {
	var c value.Value
	g.atEntry(func() { c = g.cur.NewICmp(enum.IPredEQ, g.tid, i32c(0)) })
	return c
}

func spaceName(s int) string {
	switch s {
	case asShared:
		return "shared"
	case asCluster:
		return "shared::cluster"
	}
	return "global"
}

// addrCons is the inline asm constraint of an address: "r" for 32-bit
// (cluster) addresses, "l" for pointers.
func addrCons(addr value.Value) string {
	if addr.Type() == types.I32 {
		return "r"
	}
	return "l"
}

// predicate returns an i32 that is non-zero when p (an i1, nil = true) holds,
// for inline asm that tests it with setp.
func (g *gen) predicate(p value.Value) value.Value {
	if p == nil {
		return i32c(1)
	}
	return g.cur.NewZExt(p, types.I32)
}

// vecOperand is the asm operand of the registers an access moves ($i, or
// {$i, $j, ...}) and the access's vector suffix ("", or .vN).
func vecOperand(regs []string) (operand, suffix string) {
	if len(regs) > 1 {
		return "{" + strings.Join(regs, ", ") + "}", fmt.Sprintf(".v%d", len(regs))
	}
	return regs[0], ""
}

// asmLoad emits `@p ld.<space>[.vN].<w> {outs}, [addr]` with default values
// for the lanes where p is false.
func (g *gen) asmLoad(addr value.Value, space int, w word, n int, pred value.Value, defaults []value.Value) []value.Value {
	var sb strings.Builder
	var outs, regs []string
	for i := 0; i < n; i++ {
		outs = append(outs, "="+w.cons)
		regs = append(regs, fmt.Sprintf("$%d", i))
	}
	cons := append([]string{}, outs...)
	cons = append(cons, addrCons(addr), "r")
	sb.WriteString("{\n\t.reg .pred %p;\n\tsetp.ne.b32 %p, $" + fmt.Sprint(n+1) + ", 0;\n")
	args := []value.Value{addr, g.predicate(pred)}
	ptys := []types.Type{addr.Type(), types.I32}
	movType := w.ptx
	if w == wordU8 {
		movType = "b16"
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "\tmov.%s $%d, $%d;\n", movType, i, n+2+i)
		cons = append(cons, w.cons)
		args = append(args, defaults[i])
		ptys = append(ptys, w.t)
	}
	dst, vs := vecOperand(regs)
	fmt.Fprintf(&sb, "\t@%%p ld%s.%s%s%s.%s %s, [$%d];\n}", g.memPre, spaceName(space), g.memPost, vs, w.ptx, dst, n)
	a := g.md.inlineAsm(asmRet(slices.Repeat([]types.Type{w.t}, n)), ptys, sb.String(), strings.Join(cons, ","), true)
	return g.asmOuts(g.cur.NewCall(a, args...), n)
}

// asmStore emits `@p st.<space>[.vN].<w> [addr], {vals}`.
func (g *gen) asmStore(addr value.Value, space int, w word, vals []value.Value, pred value.Value) {
	var regs []string
	cons := []string{addrCons(addr), "r"}
	args := []value.Value{addr, g.predicate(pred)}
	ptys := []types.Type{addr.Type(), types.I32}
	for i, v := range vals {
		regs = append(regs, fmt.Sprintf("$%d", i+2))
		cons = append(cons, w.cons)
		args = append(args, v)
		ptys = append(ptys, w.t)
	}
	src, vs := vecOperand(regs)
	asm := fmt.Sprintf("{\n\t.reg .pred %%p;\n\tsetp.ne.b32 %%p, $1, 0;\n\t@%%p st.%s%s%s.%s [$0], %s;\n}", spaceName(space), g.memPost, vs, w.ptx, src)
	a := g.md.inlineAsm(types.Void, ptys, asm, strings.Join(cons, ","), true)
	g.cur.NewCall(a, args...)
}

// plainLoad loads n words through an ordinary LLVM load (vector when n > 1).
func (g *gen) plainLoad(ptr value.Value, space int, w word, n int) []value.Value {
	if space == asCluster {
		return g.clusterLoad(ptr, w, n)
	}
	if w == wordU8 && n == 1 {
		p := g.cur.NewBitCast(ptr, ptrTo(types.I8, space))
		l := g.cur.NewLoad(types.I8, p)
		l.Align = 1
		return []value.Value{g.cur.NewZExt(l, types.I16)}
	}
	if w == wordU8 {
		// two bytes (ld.v2.u8), each widened to its 16-bit register as
		// a single byte is (this once loaded the first byte alone)
		vt := types.NewVector(uint64(n), types.I8)
		l := g.cur.NewLoad(vt, g.cur.NewBitCast(ptr, ptrTo(vt, space)))
		l.Align = llvm.Align(n)
		out := make([]value.Value, n)
		for i := range out {
			out[i] = g.cur.NewZExt(g.cur.NewExtractElement(l, i32c(int64(i))), types.I16)
		}
		return out
	}
	if n == 1 {
		p := g.cur.NewBitCast(ptr, ptrTo(w.t, space))
		l := g.cur.NewLoad(w.t, p)
		l.Align = llvm.Align(w.bytes)
		return []value.Value{l}
	}
	vt := types.NewVector(uint64(n), w.t)
	p := g.cur.NewBitCast(ptr, ptrTo(vt, space))
	l := g.cur.NewLoad(vt, p)
	l.Align = llvm.Align(n * w.bytes)
	out := make([]value.Value, n)
	for i := range out {
		out[i] = g.cur.NewExtractElement(l, i32c(int64(i)))
	}
	return out
}

func (g *gen) plainStore(ptr value.Value, space int, w word, vals []value.Value) {
	if space == asCluster {
		g.clusterStore(ptr, w, vals)
		return
	}
	if w == wordU8 && len(vals) == 1 {
		p := g.cur.NewBitCast(ptr, ptrTo(types.I8, space))
		s := g.cur.NewStore(g.cur.NewTrunc(vals[0], types.I8), p)
		s.Align = 1
		return
	}
	if w == wordU8 {
		// two bytes (st.v2.u8; this once stored the first byte alone)
		vt := types.NewVector(uint64(len(vals)), types.I8)
		var vec value.Value = constant.NewUndef(vt)
		for i, v := range vals {
			vec = g.cur.NewInsertElement(vec, g.cur.NewTrunc(v, types.I8), i32c(int64(i)))
		}
		s := g.cur.NewStore(vec, g.cur.NewBitCast(ptr, ptrTo(vt, space)))
		s.Align = llvm.Align(len(vals))
		return
	}
	if len(vals) == 1 {
		p := g.cur.NewBitCast(ptr, ptrTo(w.t, space))
		s := g.cur.NewStore(vals[0], p)
		s.Align = llvm.Align(w.bytes)
		return
	}
	vt := types.NewVector(uint64(len(vals)), w.t)
	var vec value.Value = constant.NewUndef(vt)
	for i, v := range vals {
		vec = g.cur.NewInsertElement(vec, v, i32c(int64(i)))
	}
	p := g.cur.NewBitCast(ptr, ptrTo(vt, space))
	s := g.cur.NewStore(vec, p)
	s.Align = llvm.Align(len(vals) * w.bytes)
}

// ptrRange is the shared bytes the pointers p may point to: their
// alloc's for local_ptr's (span), else all of shared memory.
func ptrRange(p *tval) rng {
	if p.span.hi > 0 {
		return p.span
	}
	return fullRange
}

func ptrSpace(t ir.Type) int {
	if p, ok := ir.Elem(t).(*ir.Pointer); ok {
		return spaceOf(p.Space)
	}
	return asGeneric
}

// memQuals sets g.memPre and g.memPost from a load's or store's
// attributes cache_modifier (".cg": ld.global.cg), eviction_policy
// ("evict_last": ld.global.L1::evict_last) and volatile (ld.volatile.global),
// the qualifiers Triton's lowering writes; it returns the function that
// clears them. An access with any of them goes through inline asm
// (asmLoad, asmStore) even when unmasked.
func (g *gen) memQuals(op *ir.Op) func() {
	if op.Attrs.Bool("volatile") {
		g.memPre = ".volatile"
	}
	if c := op.Attrs.String("cache_modifier"); c != "" {
		g.memPost = c
	}
	if e := op.Attrs.String("eviction_policy"); e != "" {
		g.memPost += ".L1::" + e
	}
	return func() { g.memPre, g.memPost = "", "" }
}

// load lowers load(ptr [, mask [, other]]).
func (g *gen) load(op *ir.Op) {
	defer g.memQuals(op)()
	res := op.Results[0]
	d := ir.ElemDType(res.Type)
	space := ptrSpace(op.Operands[0].Type)
	if space == asShared {
		g.beforeSharedReadR(ptrRange(g.val(op.Operands[0])))
	}
	var mask, other *tval
	if len(op.Operands) > 1 {
		mask = g.val(op.Operands[1])
	}
	if len(op.Operands) > 2 {
		other = g.val(op.Operands[2])
	}
	pt := g.val(op.Operands[0])
	if pt.s != nil { // scalar load
		var m, o value.Value
		if mask != nil {
			m = mask.s
		}
		if other != nil {
			o = other.s
		}
		g.set(res, &tval{s: g.loadGroup([]value.Value{pt.s}, space, d, 1, []value.Value{m}, true, []value.Value{o})[0]})
		return
	}
	out := &tval{ll: pt.ll, regs: make([]value.Value, len(pt.regs))}
	vec, maskUniform := g.accessGroups(op, pt, mask, 1, d)
	for r := 0; r < len(pt.regs); r += vec {
		ms := make([]value.Value, vec)
		os := make([]value.Value, vec)
		for i := 0; i < vec; i++ {
			if mask != nil {
				ms[i] = regOf(mask, r+i)
			}
			if other != nil {
				os[i] = regOf(other, r+i)
			}
		}
		vals := g.loadGroup(pt.regs[r:r+vec], space, d, vec, ms, maskUniform, os)
		copy(out.regs[r:], vals)
	}
	g.set(res, out)
}

// accessGroups is how many consecutive registers of op's pointer tile pt
// (operand 0) one access moves (gpu.AccessVec), and whether the mask,
// operand maskAt when mask is not nil, is the same within each group.
func (g *gen) accessGroups(op *ir.Op, pt, mask *tval, maskAt int, d ir.DType) (vec int, uniform bool) {
	vec, dim := gpu.AccessVec(pt.ll, g.axes.Info(op.Operands[0]), d.Bytes())
	uniform = true
	if mask != nil && mask.s == nil && vec > 1 {
		uniform = g.axes.Info(op.Operands[maskAt]).Const[dim] >= vec
	}
	return vec, uniform
}

// anyMasked reports whether an element of a group has a mask.
func anyMasked(masks []value.Value) bool {
	return slices.ContainsFunc(masks, func(m value.Value) bool { return m != nil })
}

// allMasks is the and of a group's masks (nil when none is set).
func (g *gen) allMasks(masks []value.Value) value.Value {
	var all value.Value
	for _, m := range masks {
		all = g.and1(all, m)
	}
	return all
}

func regOf(t *tval, r int) value.Value {
	if t.s != nil {
		return t.s
	}
	t.ready(r)
	return t.regs[r]
}

// loadGroup loads vec consecutive elements whose pointers are ptrs (only the
// first is used for vector accesses). masks[i] (nil: unmasked) guards
// element i; uniform says all masks of the group are equal.
func (g *gen) loadGroup(ptrs []value.Value, space int, d ir.DType, vec int, masks []value.Value, uniform bool, others []value.Value) []value.Value {
	w, n := wordsFor(d, vec)
	defaults := func(os []value.Value, w word, n int) []value.Value {
		es := make([]value.Value, len(os))
		for i, o := range os {
			if o == nil {
				o = constOf(d, int64(0))
			}
			es[i] = o
		}
		return g.packWords(es, d, w, n)
	}
	if !anyMasked(masks) && g.memPre+g.memPost == "" {
		return g.unpackWords(g.plainLoad(ptrs[0], space, w, n), d, w, vec)
	}
	if uniform || vec == 1 {
		words := g.asmLoad(ptrs[0], space, w, n, masks[0], defaults(others, w, n))
		return g.unpackWords(words, d, w, vec)
	}
	// masks differ inside the group (a tail the analysis could not rule
	// out): a vector access when the whole group is in, element accesses
	// otherwise
	all := g.allMasks(masks)
	vecVals := g.unpackWords(g.asmLoad(ptrs[0], space, w, n, all, defaults(others, w, n)), d, w, vec)
	notAll := g.cur.NewXor(all, constant.NewBool(true))
	sw, _ := wordsFor(d, 1)
	out := make([]value.Value, vec)
	for i := 0; i < vec; i++ {
		p := g.and1(masks[i], notAll)
		one := g.unpackWords(g.asmLoad(ptrs[i], space, sw, 1, p, defaults(others[i:i+1], sw, 1)), d, sw, 1)[0]
		out[i] = g.cur.NewSelect(all, vecVals[i], one)
	}
	return out
}

// store lowers store(ptr, value [, mask]); replicated elements are stored by
// their owning thread only.
func (g *gen) store(op *ir.Op) {
	defer g.memQuals(op)()
	d := ir.ElemDType(op.Operands[1].Type)
	space := ptrSpace(op.Operands[0].Type)
	if space == asShared {
		g.beforeSharedWriteR(ptrRange(g.val(op.Operands[0])))
	}
	pt, vt := g.val(op.Operands[0]), g.val(op.Operands[1])
	var mask *tval
	if len(op.Operands) > 2 {
		mask = g.val(op.Operands[2])
	}
	if pt.s != nil {
		// a program stores a scalar once: thread 0 does it
		m := g.firstThread()
		if mask != nil {
			m = g.and1(mask.s, m)
		}
		g.storeGroup([]value.Value{pt.s}, space, d, []value.Value{vt.s}, []value.Value{m}, true)
		return
	}
	own := g.canonical(pt.ll)
	vec, uniform := g.accessGroups(op, pt, mask, 2, d)
	for r := 0; r < len(pt.regs); r += vec {
		ms := make([]value.Value, vec)
		vs := make([]value.Value, vec)
		for i := 0; i < vec; i++ {
			var m value.Value
			if mask != nil {
				m = regOf(mask, r+i)
			}
			ms[i] = g.and1(m, own)
			vs[i] = regOf(vt, r+i)
		}
		g.storeGroup(pt.regs[r:r+vec], space, d, vs, ms, uniform)
	}
}

func (g *gen) storeGroup(ptrs []value.Value, space int, d ir.DType, vals, masks []value.Value, uniform bool) {
	vec := len(vals)
	w, n := wordsFor(d, vec)
	words := g.packWords(vals, d, w, n)
	if !anyMasked(masks) && g.memPost == "" {
		g.plainStore(ptrs[0], space, w, words)
		return
	}
	if uniform || vec == 1 {
		g.asmStore(ptrs[0], space, w, words, masks[0])
		return
	}
	all := g.allMasks(masks)
	g.asmStore(ptrs[0], space, w, words, all)
	notAll := g.cur.NewXor(all, constant.NewBool(true))
	sw, _ := wordsFor(d, 1)
	for i := 0; i < vec; i++ {
		g.asmStore(ptrs[i], space, sw, g.packWords(vals[i:i+1], d, sw, 1), g.and1(masks[i], notAll))
	}
}

// atomic lowers atomic_rmw / atomic_cas element by element, with the op's
// sem and scope (atomPrefix); replicated elements are updated by their
// owner only, and the other copies receive no old value.
func (g *gen) atomic(op *ir.Op) {
	res := op.Results[0]
	d := ir.ElemDType(res.Type)
	space := ptrSpace(op.Operands[0].Type)
	pt := g.val(op.Operands[0])
	if space == asShared {
		g.beforeSharedAtomicR(ptrRange(pt))
	}
	nval := 1
	if op.Kind == ir.OpAtomicCAS {
		nval = 2
	}
	vals := make([]*tval, nval)
	for i := range vals {
		vals[i] = g.val(op.Operands[1+i])
	}
	var mask *tval
	if len(op.Operands) > 1+nval {
		mask = g.val(op.Operands[1+nval])
	}
	pre := atomPrefix(op, space)
	one := func(ptr value.Value, vs []value.Value, m value.Value) value.Value {
		if op.Kind == ir.OpAtomicCAS {
			return g.atomCAS(pre, d, ptr, vs[0], vs[1], m)
		}
		return g.atomRMW(pre, op.Attrs.String("kind"), ptr, d, vs[0], m)
	}
	if pt.s != nil {
		// a program updates a scalar once: thread 0 does it and hands the
		// old value to the others through the op's scratch word
		m := g.firstThread()
		if mask != nil {
			m = g.and1(mask.s, m)
		}
		vs := make([]value.Value, nval)
		for i, v := range vals {
			vs[i] = v.s
		}
		old := one(pt.s, vs, m)
		scratch := g.scratchRange(8)
		g.beforeSharedWriteR(scratch)
		w, _ := wordsFor(d, 1)
		g.asmStore(g.smemPtr(i32c(int64(scratch.lo)), types.I8), asShared, w, g.packWords([]value.Value{old}, d, w, 1), g.firstThread())
		g.beforeSharedReadR(scratch)
		g.set(res, &tval{s: g.unpackWords(g.plainLoad(g.smemPtr(i32c(int64(scratch.lo)), types.I8), asShared, w, 1), d, w, 1)[0]})
		return
	}
	own := g.canonical(pt.ll)
	out := &tval{ll: pt.ll, regs: make([]value.Value, len(pt.regs))}
	for r := range pt.regs {
		var m value.Value
		if mask != nil {
			m = regOf(mask, r)
		}
		vs := make([]value.Value, nval)
		for i, v := range vals {
			vs[i] = regOf(v, r)
		}
		out.regs[r] = one(pt.regs[r], vs, g.and1(m, own))
	}
	g.set(res, out)
}

// atomPrefix is the PTX instruction's head, atom{.sem}{.scope}.space: PTX's
// atom without .sem is .relaxed and without .scope .gpu, so a relaxed
// gpu-scope atomic (and an op without the attributes) stays the plain
// atom.space that the atomics were before sem: and scope: existed.
func atomPrefix(op *ir.Op, space int) string {
	sem, scope := op.Attrs.String("sem"), op.Attrs.String("scope")
	if sem == "" {
		sem = "relaxed"
	}
	if scope == "" {
		scope = "gpu"
	}
	if sem == "relaxed" && scope == "gpu" {
		return "atom." + spaceName(space)
	}
	return "atom." + sem + "." + scope + "." + spaceName(space)
}

func atomType(d ir.DType, kind string) (string, word) {
	switch {
	case d == ir.F32:
		return "f32", wordF32
	case d == ir.F64:
		return "f64", wordF64
	case d == ir.F16:
		return "noftz.f16", wordB16
	case d == ir.BF16:
		return "noftz.bf16", wordB16
	}
	bits := d.Bits()
	w := wordB32
	if bits == 64 {
		w = wordB64
	}
	switch kind {
	case "add", "max", "min":
		if d.IsSigned() && kind != "add" {
			return fmt.Sprintf("s%d", bits), w
		}
		if d.IsSigned() && kind == "add" {
			return fmt.Sprintf("u%d", bits), w
		}
		return fmt.Sprintf("u%d", bits), w
	}
	return fmt.Sprintf("b%d", bits), w
}

func (g *gen) atomAsm(instr string, w word, ptr value.Value, args []value.Value, m value.Value) value.Value {
	cons := []string{"=" + w.cons, addrCons(ptr), "r"}
	ptys := []types.Type{ptr.Type(), types.I32}
	all := []value.Value{ptr, g.predicate(m)}
	ops := ""
	for i, a := range args {
		cons = append(cons, w.cons)
		ptys = append(ptys, w.t)
		all = append(all, a)
		ops += fmt.Sprintf(", $%d", 3+i)
	}
	asm := fmt.Sprintf("{\n\t.reg .pred %%p;\n\tsetp.ne.b32 %%p, $2, 0;\n\tmov.%s $0, 0;\n\t@%%p %s $0, [$1]%s;\n}", movOf(w), instr, ops)
	if strings.HasPrefix(instr, "atom.acq") || strings.HasPrefix(instr, "atom.release") {
		// an acquire or release orders the thread's other memory accesses:
		// LLVM must not move them across it either
		cons = append(cons, "~{memory}")
	}
	a := g.md.inlineAsm(w.t, ptys, asm, strings.Join(cons, ","), true)
	return g.cur.NewCall(a, all...)
}

func movOf(w word) string {
	if w.bytes == 8 {
		return "b64"
	}
	if w.bytes == 2 {
		return "b16"
	}
	return "b32"
}

func (g *gen) atomRMW(pre, kind string, ptr value.Value, d ir.DType, v, m value.Value) value.Value {
	ptxKind := map[string]string{"add": "add", "max": "max", "min": "min", "xchg": "exch", "and": "and", "or": "or", "xor": "xor"}[kind]
	if ptxKind == "" {
		g.failf("unknown atomic kind %q", kind)
	}
	if d == ir.I1 || d.Bits() == 8 {
		g.failf("atomics on %s are not supported", d)
	}
	if d.IsFloat() && (kind == "max" || kind == "min") {
		if d != ir.F32 {
			g.failf("atomic %s on %s is not supported", kind, d)
		}
		// Triton's trick: ordered as signed ints when v >= 0, as unsigned
		// ints (reversed) when v < 0
		bits := g.cur.NewBitCast(v, types.I32)
		pos := g.cur.NewFCmp(enum.FPredOGE, v, f32c(0))
		neg := g.cur.NewXor(pos, constant.NewBool(true))
		posOp, negOp := "max.s32", "min.u32"
		if kind == "min" {
			posOp, negOp = "min.s32", "max.u32"
		}
		a := g.atomAsm(pre+"."+posOp, wordB32, ptr, []value.Value{bits}, g.and1(m, pos))
		b := g.atomAsm(pre+"."+negOp, wordB32, ptr, []value.Value{bits}, g.and1(m, neg))
		return g.cur.NewBitCast(g.cur.NewSelect(pos, a, b), types.Float)
	}
	if d.IsFloat() && kind != "add" && kind != "xchg" {
		g.failf("atomic %s on %s is not supported", kind, d)
	}
	ty, w := atomType(d, kind)
	if kind == "xchg" || kind == "and" || kind == "or" || kind == "xor" {
		ty = fmt.Sprintf("b%d", d.Bits())
		if d.Bits() == 16 {
			g.failf("atomic %s on 16-bit values is not supported", kind)
		}
		w = wordB32
		if d.Bits() == 64 {
			w = wordB64
		}
		if d == ir.F32 {
			w = wordF32
		}
		if d == ir.F64 {
			w = wordF64
		}
	}
	return g.atomAsm(pre+"."+ptxKind+"."+ty, w, ptr, []value.Value{v}, m)
}

func (g *gen) atomCAS(pre string, d ir.DType, ptr, cmp, v, m value.Value) value.Value {
	w := wordB32
	switch d.Bits() {
	case 64:
		w = wordB64
	case 32:
	case 16:
		w = wordB16
	default:
		g.failf("atomic_cas on %s is not supported", d)
	}
	if d == ir.F32 {
		w = wordF32
	}
	if d == ir.F64 {
		w = wordF64
	}
	return g.atomAsm(fmt.Sprintf("%s.cas.b%d", pre, d.Bits()), w, ptr, []value.Value{cmp, v}, m)
}

package nvptx

import (
	"fmt"
	"slices"

	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// regGather builds the registers of a tile in layout dst from src when every
// thread already holds what it needs: mapc maps a coordinate vector of the
// result to the source's (a linear map: dropping, zeroing or permuting
// dimensions). It reports false when threads would need others' data.
func (g *gen) regGather(src *tval, dst *gpu.LinearLayout, mapc func([]int) []int) ([]value.Value, bool) {
	idx, ok := g.regSources(src, dst, mapc)
	if !ok {
		return nil, false
	}
	out := make([]value.Value, len(idx))
	for r, sr := range idx {
		out[r] = src.regs[sr]
	}
	return out, true
}

// gatherRegs is the tile of layout dst whose register r is src's register
// idx[r] (regSources); a source register still lazy stays lazy: the
// result's register runs its emission, then takes what it made.
func gatherRegs(src *tval, dst *gpu.LinearLayout, idx []int) *tval {
	out := &tval{ll: dst, regs: make([]value.Value, len(idx))}
	for r, sr := range idx {
		th, ok := src.lazy[sr]
		if !ok {
			out.regs[r] = src.regs[sr]
			continue
		}
		if out.lazy == nil {
			out.lazy = map[int]func(){}
		}
		out.lazy[r] = func() {
			th()
			out.regs[r] = src.regs[sr]
		}
	}
	return out
}

// regSources is, for each register of layout dst, the register of src
// holding the element mapc maps it to, when no element crosses lanes or
// warps; false otherwise.
func (g *gen) regSources(src *tval, dst *gpu.LinearLayout, mapc func([]int) []int) ([]int, bool) {
	if len(src.ll.Lane) != len(dst.Lane) || len(src.ll.Warp) != len(dst.Warp) {
		return nil, false
	}
	for j := range dst.Lane {
		if !slices.Equal(mapc(dst.Lane[j]), src.ll.Lane[j]) {
			return nil, false
		}
	}
	for j := range dst.Warp {
		if !slices.Equal(mapc(dst.Warp[j]), src.ll.Warp[j]) {
			return nil, false
		}
	}
	out := make([]int, dst.NumRegs())
	for r, c := range g.coordsOf(dst) {
		sr := g.regAt(src.ll, mapc(c))
		if sr < 0 {
			return nil, false
		}
		out[r] = sr
	}
	return out, true
}

// broadcastLike lowers broadcast and expand_dims: pure register selection,
// since the layout passes give operand and result matching layouts.
func (g *gen) broadcastLike(op *ir.Op) {
	res := op.Results[0]
	src := g.val(op.Operands[0])
	dst := g.layoutOf(res.Type)
	if src.s != nil {
		t := &tval{ll: dst, regs: make([]value.Value, dst.NumRegs())}
		for i := range t.regs {
			t.regs[i] = src.s
		}
		g.set(res, t)
		return
	}
	inShape := ir.ShapeOf(op.Operands[0].Type)
	outShape := ir.ShapeOf(res.Type)
	var mapc func([]int) []int
	if op.Kind == ir.OpBroadcast {
		mapc = func(c []int) []int {
			o := make([]int, len(c))
			for d := range c {
				if inShape[d] == outShape[d] {
					o[d] = c[d]
				}
			}
			return o
		}
	} else {
		axis := int(op.Attrs.Int("axis", 0))
		mapc = func(c []int) []int {
			o := append([]int(nil), c[:axis]...)
			return append(o, c[axis+1:]...)
		}
	}
	regs, ok := g.regGather(src, dst, mapc)
	if !ok {
		g.failf("operand type %s and result type %s have mismatched layouts", op.Operands[0].Type, res.Type)
	}
	g.set(res, &tval{ll: dst, regs: regs})
}

// convertLayout moves a tile to another layout: within threads when
// possible, else within warps by shuffles when both layouts have the same
// warp bases and a verified plan is cheaper (shuffle.go), else through the op's shared scratch (padded rows, vector
// accesses on both sides).
func (g *gen) convertLayout(op *ir.Op) {
	res := op.Results[0]
	src := g.val(op.Operands[0])
	dst := g.layoutOf(res.Type)
	if src.s != nil {
		g.set(res, &tval{s: src.s})
		return
	}
	if regs, ok := g.regGather(src, dst, func(c []int) []int { return c }); ok {
		out := &tval{ll: dst, regs: regs}
		if src.pairs != nil && slices.EqualFunc(src.ll.Reg, dst.Reg, slices.Equal[[]int]) {
			out.pairs = src.pairs
		}
		g.set(res, out)
		return
	}
	shape := ir.ShapeOf(res.Type)
	elem := ir.Elem(res.Type)
	d, toD, fromD := g.scratchType(elem)
	eb := d.Bytes()
	if p := planShuffle(src.ll, dst, eb); p != nil {
		g.set(res, &tval{ll: dst, regs: g.emitShuffle(p, src, dst, toD, fromD, d), cut: eb == 1})
		return
	}
	strides, size := gpu.ConvertScratch(shape, src.ll, dst, eb)
	off := g.smemOffset()
	scratch := g.scratchRange(size)
	addr := func(ll *gpu.LinearLayout) (value.Value, [][]int) {
		base := g.threadBase(ll)
		var acc value.Value = i32c(0)
		g.atEntry(func() {
			for dd, b := range base {
				acc = g.add(acc, g.mul(b, i32c(int64(strides[dd]))))
			}
		})
		var p value.Value
		g.atEntry(func() { p = g.smemByteBase(off, acc, eb) })
		return p, g.coordsOf(ll)
	}
	constOff := func(c []int) int {
		o := 0
		for dd, x := range c {
			o += x * strides[dd]
		}
		return o * eb
	}
	// write
	g.beforeSharedWriteR(scratch)
	vs := gpu.VecWidth(src.ll, eb)
	wp, wc := addr(src.ll)
	w, n := wordsFor(d, vs)
	for r := 0; r < len(src.regs); r += vs {
		elems := make([]value.Value, vs)
		for i := range elems {
			elems[i] = toD(src.regs[r+i])
		}
		g.plainStore(g.gepBytes(wp, constOff(wc[r])), asShared, w, g.packWords(elems, d, w, n))
	}
	// read
	g.beforeSharedReadR(scratch)
	vd := gpu.VecWidth(dst, eb)
	rp, rc := addr(dst)
	w, n = wordsFor(d, vd)
	out := &tval{ll: dst, regs: make([]value.Value, dst.NumRegs())}
	for r := 0; r < len(out.regs); r += vd {
		vals := g.unpackWords(g.plainLoad(g.gepBytes(rp, constOff(rc[r])), asShared, w, n), d, w, vd)
		for i, v := range vals {
			out.regs[r+i] = fromD(v)
		}
	}
	g.set(res, out)
}

// scratchType is the dtype a tile element goes through shared memory as
// (pointers as i64), with the conversions to and from it.
func (g *gen) scratchType(elem ir.Type) (ir.DType, func(value.Value) value.Value, func(value.Value) value.Value) {
	id := func(v value.Value) value.Value { return v }
	switch e := elem.(type) {
	case ir.DType:
		return e, id, id
	case *ir.Pointer:
		if e.Space == ir.Cluster {
			return ir.I32, id, id
		}
		pt := ptrTo(memType(e.Elem), spaceOf(e.Space))
		return ir.I64, func(v value.Value) value.Value { return g.cur.NewPtrToInt(v, types.I64) },
			func(v value.Value) value.Value { return g.cur.NewIntToPtr(v, pt) }
	}
	g.failf("no scratch type for %s", elem)
	return 0, nil, nil
}

// smemOffset is the op's shared-memory offset chosen by the allocator.
func (g *gen) smemOffset() int {
	v, ok := g.curOp.Attrs[gpu.AttrSmemOffset].(int64)
	if !ok {
		g.failf("no shared memory was allocated for it (run passes.AllocateShared)")
	}
	return int(v)
}

// smemByteBase returns an i8 shared pointer to byte off + elems*eb.
func (g *gen) smemByteBase(off int, elems value.Value, eb int) value.Value {
	return g.smemPtr(g.add(i32c(int64(off)), g.mul(elems, i32c(int64(eb)))), types.I8)
}

// sharedAddr returns an i8 pointer to element idx() of a buffer. idx must
// depend only on the thread id and constants: it is computed in the entry
// block (hoisted out of loops), together with the whole address when the
// buffer's offset is a constant.
func (g *gen) sharedAddr(ref *memRef, idx func() value.Value, eb int) value.Value {
	if _, ok := constInt(ref.off); ok {
		var p value.Value
		g.atEntry(func() { p = g.smemPtr(g.add(ref.off, g.mul(idx(), i32c(int64(eb)))), types.I8) })
		return p
	}
	var rel value.Value
	g.atEntry(func() { rel = g.mul(idx(), i32c(int64(eb))) })
	return g.smemPtr(g.add(ref.off, rel), types.I8)
}

// sharedAddr32 is sharedAddr as a 32-bit shared-window address, for inline
// asm (ldmatrix, cp.async) taking "r" operands: no 64-bit address math.
func (g *gen) sharedAddr32(ref *memRef, idx func() value.Value, eb int) value.Value {
	g.smemBase()
	if _, ok := constInt(ref.off); ok {
		var p value.Value
		g.atEntry(func() { p = g.add(g.smemBase32, g.add(ref.off, g.mul(idx(), i32c(int64(eb))))) })
		return p
	}
	var rel value.Value
	g.atEntry(func() { rel = g.add(g.smemBase32, g.mul(idx(), i32c(int64(eb)))) })
	return g.add(rel, ref.off)
}

// gepBytes offsets an i8 pointer by a constant number of bytes.
func (g *gen) gepBytes(p value.Value, bytes int) value.Value {
	if bytes == 0 {
		return p
	}
	gep := g.cur.NewGetElementPtr(types.I8, p, i32c(int64(bytes)))
	gep.InBounds = true
	return gep
}

// ---- trans / reshape

func (g *gen) reshapeLike(op *ir.Op) {
	res := op.Results[0]
	src := g.val(op.Operands[0])
	dst := g.layoutOf(res.Type)
	inShape, outShape := ir.ShapeOf(op.Operands[0].Type), ir.ShapeOf(res.Type)
	if src.s != nil {
		g.set(res, &tval{s: src.s})
		return
	}
	if passes.JoinReshape(op) != "" {
		// interleave's and cat's reshapes of a join: registers renamed
		// where every thread keeps its elements (the layout pass's aim)
		if regs, ok := gpu.ReshapeRegs(src.ll, dst); ok {
			g.force(src)
			out := &tval{ll: dst, regs: make([]value.Value, len(regs))}
			for r, sr := range regs {
				out.regs[r] = src.regs[sr]
			}
			g.set(res, out)
			return
		}
	}
	var mapc func([]int) []int // result coords -> source coords
	if op.Kind == ir.OpTrans {
		perm := op.Attrs.Ints("perm")
		mapc = func(c []int) []int {
			o := make([]int, len(c))
			for i, p := range perm {
				o[p] = c[i]
			}
			return o
		}
		if idx, ok := g.regSources(src, dst, mapc); ok {
			g.set(res, gatherRegs(src, dst, idx))
			return
		}
	} else {
		mapc = func(c []int) []int { return unlinear(linear(c, outShape), inShape) }
		if regs, ok := g.regGather(src, dst, mapc); ok && isIdentityReshape(inShape, outShape) {
			g.set(res, &tval{ll: dst, regs: regs})
			return
		}
	}
	// through shared memory, row-major in the source's shape: the result
	// element's linear index in it
	g.force(src)
	g.readBack(res, src, inShape, func(_ int, coords []value.Value) value.Value {
		var idx value.Value = i32c(0)
		if op.Kind == ir.OpTrans {
			perm := op.Attrs.Ints("perm")
			sc := make([]value.Value, len(inShape))
			for i, p := range perm {
				sc[p] = coords[i]
			}
			stride := 1
			for dd := len(inShape) - 1; dd >= 0; dd-- {
				idx = g.add(idx, g.mul(sc[dd], i32c(int64(stride))))
				stride *= inShape[dd]
			}
		} else {
			stride := 1
			for dd := len(outShape) - 1; dd >= 0; dd-- {
				idx = g.add(idx, g.mul(coords[dd], i32c(int64(stride))))
				stride *= outShape[dd]
			}
		}
		return idx
	})
}

// spillRowMajor stores src's registers (each converted by toD to d) into
// shared memory at byte offset off, row-major in shape, after the barrier
// that earlier reads of that memory need.
func (g *gen) spillRowMajor(src *tval, shape []int, d ir.DType, toD func(value.Value) value.Value, off int) {
	eb := d.Bytes()
	g.beforeSharedWrite()
	sb := g.threadBase(src.ll)
	for r, c := range g.coordsOf(src.ll) {
		var idx value.Value = i32c(0)
		stride := 1
		for dd := len(shape) - 1; dd >= 0; dd-- {
			idx = g.add(idx, g.mul(g.add(sb[dd], i32c(int64(c[dd]))), i32c(int64(stride))))
			stride *= shape[dd]
		}
		g.plainStore(g.smemByteBase(off, idx, eb), asShared, wordOne(d), g.packWords([]value.Value{toD(src.regs[r])}, d, wordOne(d), 1))
	}
}

func wordOne(d ir.DType) word { w, _ := wordsFor(d, 1); return w }

func linear(c, shape []int) int {
	idx := 0
	for d := range shape {
		idx = idx*shape[d] + c[d]
	}
	return idx
}

func unlinear(idx int, shape []int) []int {
	c := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		c[d] = idx % shape[d]
		idx /= shape[d]
	}
	return c
}

// isIdentityReshape: only size-1 dimensions are added or removed.
func isIdentityReshape(a, b []int) bool {
	var x, y []int
	for _, d := range a {
		if d != 1 {
			x = append(x, d)
		}
	}
	for _, d := range b {
		if d != 1 {
			y = append(y, d)
		}
	}
	return slices.Equal(x, y)
}

// ---- shared buffers

func (g *gen) alloc(op *ir.Op) {
	md, ok := op.Results[0].Type.(*ir.MemDesc)
	if !ok {
		g.failf("alloc of %s is not supported", op.Results[0].Type)
	}
	off := g.smemOffset()
	ref := &memRef{off: i32c(int64(off)), desc: md, span: viewBytes(off, md)}
	g.set(op.Results[0], &tval{mem: ref})
	if len(op.Operands) > 0 {
		t := g.val(op.Operands[0])
		if op.Attrs.Bool(gpu.AttrRoundTF32) {
			t = g.roundTF32(t, ir.ElemDType(op.Operands[0].Type))
		}
		g.storeShared(ref, t)
	}
}

// roundTF32 is the f32 tile t rounded to tf32 (cvt.rna.tf32.f32, as
// floats.RoundTF32), each register still an f32 (gpu.AttrRoundTF32).
func (g *gen) roundTF32(t *tval, d ir.DType) *tval {
	if d != ir.F32 || t.ll == nil {
		g.failf("tf32 rounding of a %s value: only f32 tiles round to tf32", d)
	}
	cvt := g.md.inlineAsm(types.I32, []types.Type{types.Float}, "cvt.rna.tf32.f32 $0, $1;", "=r,f", false)
	out := &tval{ll: t.ll, regs: make([]value.Value, len(t.regs))}
	for r, v := range t.regs {
		out.regs[r] = g.cur.NewBitCast(g.cur.NewCall(cvt, v), types.Float)
	}
	return out
}

func (g *gen) memIndex(op *ir.Op) {
	src := g.val(op.Operands[0])
	md := op.Results[0].Type.(*ir.MemDesc)
	i := g.scalar(op.Operands[1])
	if sh, ok := op.Operands[0].Type.(*ir.MemDesc); ok {
		if l, ok := sh.Layout.(*gpu.Shared); ok && l.Blocked(sh.Shape) && len(l.Order) > 2 && (l.Order[0] == 0 || l.Order[1] == 0) {
			g.failf("slot of a column-blocked buffer (%s) along one of its two fastest dimensions is not supported", l)
		}
		if l, ok := sh.Layout.(*gpu.Shared); ok && l.Blocked(sh.Shape) && len(l.Order) <= 2 {
			g.failf("slot of a 2-D column-blocked buffer (%s) is not supported", l)
		}
	}
	sliceBytes := ir.NumElements(md.Shape) * md.Elem.Bytes()
	off := g.add(src.mem.off, g.mul(g.cast(i, ir.ElemDType(op.Operands[1].Type), ir.I32), i32c(int64(sliceBytes))))
	g.set(op.Results[0], &tval{mem: &memRef{off: off, desc: md, cluster: src.mem.cluster, span: src.mem.span}})
}

func (g *gen) memTrans(op *ir.Op) {
	src := g.val(op.Operands[0])
	g.set(op.Results[0], &tval{mem: &memRef{off: src.mem.off, desc: op.Results[0].Type.(*ir.MemDesc), cluster: src.mem.cluster, span: src.mem.span}})
}

// memReshape lowers a view reshape (memdesc_reshape): the view starts
// where its source does, and its shared layout must describe the same
// bytes in its shape (gpu.ReshapeShared of the source's), which the layout
// pass derived; a wgmma reading the view then builds its descriptors from
// the view's shape and layout (one instruction over merged slots).
func (g *gen) memReshape(op *ir.Op) {
	src := g.val(op.Operands[0])
	md := op.Results[0].Type.(*ir.MemDesc)
	from := op.Operands[0].Type.(*ir.MemDesc)
	want, err := gpu.ReshapeShared(sharedLayoutOf(from), from.Shape, md.Shape)
	if err != nil {
		g.failf("reshape of a shared-memory view: %v", err)
	}
	if got := sharedLayoutOf(md); got.String() != want.String() {
		g.failf("reshape of a shared-memory view %v to %v: its layout %s is not the source's %s seen in the new shape (%s)",
			from.Shape, md.Shape, got, sharedLayoutOf(from), want)
	}
	g.set(op.Results[0], &tval{mem: &memRef{off: src.mem.off, desc: md, cluster: src.mem.cluster, span: src.mem.span}})
}

func sharedLayoutOf(md *ir.MemDesc) *gpu.Shared {
	if sh, ok := md.Layout.(*gpu.Shared); ok {
		return sh
	}
	order := md.Order
	if len(order) == 0 {
		order = ir.RowMajor(len(md.Shape))
	}
	return &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: order}
}

// sharedIndex computes the element offset of coords in a buffer (the
// swizzle of gpu.SharedOffset, on values).
func (g *gen) sharedIndex(md *ir.MemDesc, coords []value.Value) value.Value {
	sh := sharedLayoutOf(md)
	var off value.Value = i32c(0)
	stride := 1
	for i, d := range sh.Order {
		c := coords[d]
		if i == 0 && len(sh.Order) > 1 {
			if sh.Blocked(md.Shape) {
				// column block c / BlockCols, stored after the earlier ones
				bc := sh.BlockCols
				if bc&(bc-1) != 0 || md.Shape[d]%bc != 0 {
					g.failf("shared layout %s: column blocks of %d elements must be a power of two dividing %d", sh, bc, md.Shape[d])
				}
				blk := g.lshr(c, i32c(int64(log2(bc))))
				off = g.add(off, g.mul(blk, i32c(int64(bc*md.Shape[sh.Order[1]]))))
				c = g.and(c, i32c(int64(bc-1)))
			}
			if sh.MaxPhase > 1 {
				row := coords[sh.Order[1]]
				phase := g.and(g.lshr(row, i32c(int64(log2(sh.PerPhase)))), i32c(int64(sh.MaxPhase-1)))
				chunk := g.xor(g.lshr(c, i32c(int64(log2(sh.Vec)))), phase)
				c = g.or(g.shl(chunk, i32c(int64(log2(sh.Vec)))), g.and(c, i32c(int64(sh.Vec-1))))
			}
			off = g.add(off, c)
			stride = sh.RowElems(md.Shape)
			continue
		}
		off = g.add(off, g.mul(c, i32c(int64(stride))))
		if i == 1 {
			stride = md.Shape[sh.Order[0]] * md.Shape[d]
		} else {
			stride *= md.Shape[d]
		}
	}
	return off
}

// sharedVec is how many consecutive registers of ll move as one access to a
// buffer: contiguous in registers along its fastest dimension, within a
// swizzle chunk, at most 16 bytes.
func sharedVec(ll *gpu.LinearLayout, sh *gpu.Shared, eb int) int {
	v := ll.ContigRegs(sh.Order[0])
	if len(sh.Order) > 1 && sh.MaxPhase > 1 && sh.Vec < v {
		v = sh.Vec
	}
	if sh.BlockCols > 0 && sh.BlockCols < v {
		v = sh.BlockCols // a run stays inside its column block
	}
	if m := max(1, 16/eb); v > m {
		v = m
	}
	return v
}

func (g *gen) elemCoords(ll *gpu.LinearLayout, r int) []value.Value {
	base := g.threadBase(ll)
	c := g.coordsOf(ll)[r]
	out := make([]value.Value, len(c))
	for d := range c {
		out[d] = g.add(base[d], i32c(int64(c[d])))
	}
	return out
}

// sharedAccess is how the registers of a tile in layout ll move to or from
// a buffer: vec at a time (sharedVec), as n words w.
type sharedAccess struct {
	ref     *memRef
	ll      *gpu.LinearLayout
	d       ir.DType
	eb, vec int
	w       word
	n       int
}

func newSharedAccess(ref *memRef, ll *gpu.LinearLayout) *sharedAccess {
	a := &sharedAccess{ref: ref, ll: ll, d: ref.desc.Elem, eb: ref.desc.Elem.Bytes()}
	a.vec = sharedVec(ll, sharedLayoutOf(ref.desc), a.eb)
	a.w, a.n = wordsFor(a.d, a.vec)
	return a
}

// groupAddr is the i8 pointer to the element of register r (the first of
// its group) in the buffer.
func (g *gen) groupAddr(a *sharedAccess, r int) value.Value {
	return g.sharedAddr(a.ref, func() value.Value { return g.sharedIndex(a.ref.desc, g.elemCoords(a.ll, r)) }, a.eb)
}

// storeShared writes a tile into a buffer (each thread its registers;
// replicated copies write equal values).
func (g *gen) storeShared(ref *memRef, t *tval) {
	if ref.cluster {
		g.failf("writing a whole remote view is not supported: store through local_ptr")
	}
	if g.matrixStore(ref, t) {
		return
	}
	g.force(t)
	g.beforeSharedWriteR(refRange(ref))
	a := newSharedAccess(ref, t.ll)
	for r := 0; r < len(t.regs); r += a.vec {
		p := g.groupAddr(a, r)
		var words []value.Value
		if t.pairs != nil && a.n*2 == a.vec && a.d.Bits() == 16 {
			for i := 0; i < a.n; i++ {
				if p, ok := t.pairs[r+2*i]; ok {
					words = append(words, p)
				}
			}
		}
		if len(words) != a.n {
			words = g.packWords(t.regs[r:r+a.vec], a.d, a.w, a.n)
		}
		g.plainStore(p, asShared, a.w, words)
	}
}

func (g *gen) localStore(op *ir.Op) {
	g.storeShared(g.val(op.Operands[0]).mem, g.val(op.Operands[1]))
}

func (g *gen) localLoad(op *ir.Op) {
	ref := g.val(op.Operands[0]).mem
	res := op.Results[0]
	tt := res.Type.(*ir.Tile)
	if ref.cluster {
		g.failf("reading a whole remote view is not supported: load through local_ptr")
	}
	if dl, ok := tt.Layout.(*gpu.DotOperand); ok && ref.desc.Elem.Bits() == 16 {
		if t := g.ldmatrix(ref, dl, tt.Shape, g.lazyOK(op)); t != nil {
			g.set(res, t)
			return
		}
	}
	ll := g.layoutOf(res.Type)
	if t := g.matrixLoad(ref, ll, g.copyLazyOK(op)); t != nil {
		g.set(res, t)
		return
	}
	g.beforeSharedReadR(refRange(ref))
	a := newSharedAccess(ref, ll)
	out := &tval{ll: ll, regs: make([]value.Value, ll.NumRegs())}
	for r := 0; r < len(out.regs); r += a.vec {
		words := g.plainLoad(g.groupAddr(a, r), asShared, a.w, a.n)
		copy(out.regs[r:], g.unpackWords(words, a.d, a.w, a.vec))
		if a.d.Bits() == 16 && a.n*2 == a.vec {
			if out.pairs == nil {
				out.pairs = map[int]value.Value{}
			}
			for i := 0; i < a.n; i++ {
				out.pairs[r+2*i] = words[i]
			}
		}
	}
	g.set(res, out)
}

func (g *gen) localPtr(op *ir.Op) {
	ref := g.val(op.Operands[0]).mem
	res := op.Results[0]
	var out *tval
	if _, ok := res.Type.(*ir.Tile); ok {
		out = g.newTile(res.Type)
	} else {
		out = &tval{regs: make([]value.Value, 1)}
	}
	idx := make([]*tval, len(op.Operands)-1)
	for i := range idx {
		idx[i] = g.val(op.Operands[1+i])
	}
	eb := ref.desc.Elem.Bytes()
	et := memType(ref.desc.Elem)
	for r := range out.regs {
		coords := make([]value.Value, len(idx))
		for i, t := range idx {
			coords[i] = g.cast(regOf(t, r), ir.ElemDType(op.Operands[1+i].Type), ir.I32)
		}
		e := g.sharedIndex(ref.desc, coords)
		if ref.cluster {
			out.regs[r] = g.add(ref.off, g.mul(e, i32c(int64(eb))))
			continue
		}
		out.regs[r] = g.smemPtr(g.add(ref.off, g.mul(e, i32c(int64(eb)))), et)
	}
	if !ref.cluster {
		out.span = ref.span
	}
	if _, ok := res.Type.(*ir.Tile); !ok {
		g.set(res, &tval{s: out.regs[0], span: out.span})
		return
	}
	g.set(res, out)
}

// asyncCopy lowers async_copy(ptrs, view [, mask]) to cp.async: each vector
// group of the pointer tile (4, 8 or 16 bytes) goes to its swizzled place in
// the view; a false mask copies zero bytes (zero fill). The pipeliner
// guarantees the slot is no longer read, so no barrier precedes it.
func (g *gen) asyncCopy(op *ir.Op) {
	pt := g.val(op.Operands[0])
	ref := g.val(op.Operands[1]).mem
	var mask *tval
	if len(op.Operands) > 2 {
		mask = g.val(op.Operands[2])
	}
	md := ref.desc
	eb := md.Elem.Bytes()
	vec, _ := gpu.AccessVec(pt.ll, g.axes.Info(op.Operands[0]), eb)
	bytes := vec * eb
	if bytes < 4 {
		g.failf("cp.async needs 4-byte groups, the tile allows %d bytes", bytes)
	}
	cache := "ca"
	if bytes == 16 {
		cache = "cg"
	}
	// write-after-read: earlier reads of these bytes by other threads must
	// be over (a ring refill only needs a barrier since the loop's top)
	if op.Attrs.Bool(gpu.AttrRingCopy) {
		if !g.barrierInLoop {
			g.barrier()
		}
	} else {
		g.beforeSharedWriteR(refRange(ref))
	}
	asm := g.md.inlineAsm(types.Void, []types.Type{types.I32, pt.regs[0].Type(), types.I32},
		fmt.Sprintf("cp.async.%s.shared.global [$0], [$1], %d, $2;", cache, bytes), "r,l,r,~{memory}", true)
	for r := 0; r < len(pt.regs); r += vec {
		dst := g.sharedAddr32(ref, func() value.Value { return g.sharedIndex(md, g.elemCoords(pt.ll, r)) }, eb)
		var n value.Value = i32c(int64(bytes))
		if mask != nil {
			n = g.cur.NewSelect(regOf(mask, r), i32c(int64(bytes)), i32c(0))
		}
		g.cur.NewCall(asm, dst, pt.regs[r], n)
	}
	g.sync.writes = append(g.sync.writes, fullRange)
}

// lazyOK reports whether a local_load may be emitted at its use: its only
// user is a dot later in the same block, and nothing in between writes
// shared memory (cp.async of the pipeliner writes other slots).
func (g *gen) lazyOK(op *ir.Op) bool {
	us := g.users[op.Results[0]]
	return len(us) == 1 && us[0].Kind == ir.OpDot && g.quietBetween(op, us[0])
}

// quietBetween reports whether to follows from in the same block with
// nothing in between that writes shared memory (cp.async of the
// pipeliner writes other slots) or may use it as scratch; skip are ops of
// the chain from from to to that the caller vouches for.
func (g *gen) quietBetween(from, to *ir.Op, skip ...*ir.Op) bool {
	ops := from.Parent.Ops
	if to.Parent != from.Parent || slices.Index(ops, to) < slices.Index(ops, from) {
		return false
	}
	for _, o := range opsBetween(from, to) {
		switch o.Kind {
		case ir.OpLocalLoad, gpu.OpAsyncCopy, gpu.OpAsyncCommit, ir.OpMemIndex, ir.OpConstant:
		default:
			if slices.Contains(skip, o) {
				continue
			}
			if len(o.Regions) > 0 || !o.Kind.IsPure() || o.Kind == ir.OpTrans || o.Kind == ir.OpReshape ||
				o.Kind == ir.OpReduce || o.Kind == ir.OpScan || o.Kind == ir.OpGather || o.Kind == ir.OpButterfly {
				return false
			}
		}
	}
	return true
}

// opsBetween is the ops of from's block strictly between from and to (to
// after from in the same block).
func opsBetween(from, to *ir.Op) []*ir.Op {
	ops := from.Parent.Ops
	i := slices.Index(ops, from)
	j := slices.Index(ops, to)
	if i < 0 || j < i {
		return nil
	}
	return ops[i+1 : j]
}

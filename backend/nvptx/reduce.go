package nvptx

import (
	"slices"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// accumulator arithmetic of reductions and scans: floats in f32 (f64 for
// f64), integers in i32 (i64 for 64-bit), extended by signedness. A combine
// over several operands accumulates in an LLVM struct of one field per
// operand (parts: each field's arithmetic), shuffled, stored and selected
// field by field.
type accum struct {
	g     *gen
	d     ir.DType
	kind  string
	body  *ir.Block // kind combine: the op's region, (a, b) -> yield
	parts []accum   // several operands: one accumulator per operand
}

// accumOf is the accumulator of a reduce or scan op.
func (g *gen) accumOf(op *ir.Op, kind string) accum {
	a := accum{g: g, d: ir.ElemDType(op.Operands[0].Type), kind: kind}
	if kind == "combine" {
		n := len(op.Operands)
		if len(op.Regions) != 1 || len(op.Regions[0].Args) != 2*n || len(op.Results) != n {
			g.failf("%s combine without its region", op.Kind)
		}
		a.body = op.Regions[0]
		if n > 1 {
			for _, x := range op.Operands {
				a.parts = append(a.parts, accum{g: g, d: ir.ElemDType(x.Type), kind: kind})
			}
		}
	} else if len(op.Operands) != 1 {
		g.failf("%s %s of %d operands: only kind combine takes several", op.Kind, kind, len(op.Operands))
	}
	return a
}

// combineBody emits the combine region on x and y (accumulator values):
// its ops run on the dtype's scalars, once per combination.
func (a accum) combineBody(x, y value.Value) value.Value {
	g := a.g
	if a.parts != nil {
		return a.combineParts(x, y)
	}
	g.set(a.body.Args[0], &tval{s: a.from(x)})
	g.set(a.body.Args[1], &tval{s: a.from(y)})
	cur := g.curOp
	g.block(a.body)
	g.curOp = cur
	return a.to(g.scalar(a.body.Terminator().Operands[0]))
}

// combineParts is combineBody over several operands: the region's
// arguments a0..an-1 are x's fields, b0..bn-1 y's; its n results make the
// struct returned.
func (a accum) combineParts(x, y value.Value) value.Value {
	g := a.g
	n := len(a.parts)
	for k, p := range a.parts {
		g.set(a.body.Args[k], &tval{s: p.from(g.cur.NewExtractValue(x, uint64(k)))})
		g.set(a.body.Args[n+k], &tval{s: p.from(g.cur.NewExtractValue(y, uint64(k)))})
	}
	cur := g.curOp
	g.block(a.body)
	g.curOp = cur
	vs := make([]value.Value, n)
	for k := range vs {
		vs[k] = g.scalar(a.body.Terminator().Operands[k])
	}
	return a.toN(vs)
}

// toN is the accumulator of the operands' values vs (one per operand; one
// value: to).
func (a accum) toN(vs []value.Value) value.Value {
	if a.parts == nil {
		return a.to(vs[0])
	}
	var r value.Value = constant.NewUndef(a.typ().(*types.StructType))
	for k, p := range a.parts {
		r = a.g.cur.NewInsertValue(r, p.to(vs[k]), uint64(k))
	}
	return r
}

// fromN is the operands' values of the accumulator v (from for one).
func (a accum) fromN(v value.Value) []value.Value {
	if a.parts == nil {
		return []value.Value{a.from(v)}
	}
	vs := make([]value.Value, len(a.parts))
	for k, p := range a.parts {
		vs[k] = p.from(a.g.cur.NewExtractValue(v, uint64(k)))
	}
	return vs
}

// regsAt is the accumulator of register r of the tiles xs (the operands).
func (a accum) regsAt(xs []*tval, r int) value.Value {
	vs := make([]value.Value, len(xs))
	for k, x := range xs {
		vs[k] = x.regs[r]
	}
	return a.toN(vs)
}

// dtypes is the operands' dtypes.
func (a accum) dtypes() []ir.DType {
	if a.parts == nil {
		return []ir.DType{a.d}
	}
	var ds []ir.DType
	for _, p := range a.parts {
		ds = append(ds, p.d)
	}
	return ds
}

// bytes is the size of one slot of the accumulator in shared memory.
func (a accum) bytes() int { return gpu.AccBytesOf(a.dtypes()...) }

// operandTiles is the tiles of op's operands, which share one layout.
func (g *gen) operandTiles(op *ir.Op) []*tval {
	xs := make([]*tval, len(op.Operands))
	for k, x := range op.Operands {
		xs[k] = g.val(x)
		if !xs[k].ll.Equal(xs[0].ll) || len(xs[k].regs) != len(xs[0].regs) {
			g.failf("%s: operand %d's layout differs from operand 0's", op.Kind, k)
		}
	}
	return xs
}

func (a accum) typ() types.Type {
	if a.parts != nil {
		var fs []types.Type
		for _, p := range a.parts {
			fs = append(fs, p.typ())
		}
		return types.NewStruct(fs...)
	}
	switch {
	case a.d == ir.F64:
		return types.Double
	case a.d.IsFloat():
		return types.Float
	case a.d.Bits() == 64:
		return types.I64
	}
	return types.I32
}

func (a accum) to(v value.Value) value.Value {
	if a.d.IsFloat() {
		return a.g.toCompute(v, a.d)
	}
	to := ir.I32
	if a.d.Bits() == 64 {
		return v
	}
	if a.d.IsSigned() {
		return a.g.cast(v, a.d, to)
	}
	return a.g.cast(v, a.d, ir.U32)
}

func (a accum) from(v value.Value) value.Value {
	if a.d.IsFloat() {
		return a.g.fromCompute(v, a.d)
	}
	if a.d.Bits() == 64 {
		return v
	}
	if a.d == ir.I1 {
		return a.g.cur.NewICmp(enum.IPredNE, v, i32c(0))
	}
	return a.g.cast(v, ir.I32, a.d)
}

func (a accum) combine(x, y value.Value) value.Value {
	g := a.g
	if a.kind == "combine" {
		return a.combineBody(x, y)
	}
	if a.d.IsFloat() {
		sfx := ".f32"
		if a.d == ir.F64 {
			sfx = ".f64"
		}
		switch a.kind {
		case "sum":
			return g.cur.NewFAdd(x, y)
		case "prod":
			return g.cur.NewFMul(x, y)
		case "max":
			return g.fintr("llvm.maxnum"+sfx, x, y)
		case "min":
			return g.fintr("llvm.minnum"+sfx, x, y)
		}
	} else {
		signed := a.d.IsSigned()
		switch a.kind {
		case "sum":
			return g.add(x, y)
		case "prod":
			return g.cur.NewMul(x, y)
		case "or":
			return g.cur.NewOr(x, y)
		case "xor":
			return g.cur.NewXor(x, y)
		case "max", "min":
			p := map[[2]bool]enum.IPred{{true, true}: enum.IPredSGT, {true, false}: enum.IPredUGT,
				{false, true}: enum.IPredSLT, {false, false}: enum.IPredULT}[[2]bool{a.kind == "max", signed}]
			return g.cur.NewSelect(g.cur.NewICmp(p, x, y), x, y)
		}
	}
	g.failf("unknown reduction %q", a.kind)
	return nil
}

// store writes v (in the accumulator type) to the shared i8 pointer p;
// several operands' fields go to p + k * (the widest field's bytes).
func (a accum) store(v, p value.Value) {
	if a.parts != nil {
		w := int64(a.bytes() / len(a.parts))
		for k, q := range a.parts {
			q.store(a.g.cur.NewExtractValue(v, uint64(k)), a.g.cur.NewGetElementPtr(types.I8, p, i32c(int64(k)*w)))
		}
		return
	}
	st := a.g.cur.NewStore(v, a.g.cur.NewBitCast(p, ptrTo(a.typ(), asShared)))
	st.Align = 4
}

// load reads a value of the accumulator type at the shared i8 pointer p
// (several operands: as store writes them).
func (a accum) load(p value.Value) value.Value {
	if a.parts != nil {
		w := int64(a.bytes() / len(a.parts))
		var r value.Value = constant.NewUndef(a.typ().(*types.StructType))
		for k, q := range a.parts {
			r = a.g.cur.NewInsertValue(r, q.load(a.g.cur.NewGetElementPtr(types.I8, p, i32c(int64(k)*w))), uint64(k))
		}
		return r
	}
	l := a.g.cur.NewLoad(a.typ(), a.g.cur.NewBitCast(p, ptrTo(a.typ(), asShared)))
	l.Align = 4
	return l
}

// shfl exchanges a 32- or 64-bit value across lanes (mode bfly, up or idx);
// a struct (a combine's accumulator of several operands) field by field.
func (g *gen) shfl(mode string, v value.Value, b value.Value, c int64) value.Value {
	t := v.Type()
	if st, ok := t.(*types.StructType); ok {
		var r value.Value = constant.NewUndef(st)
		for k := range st.Fields {
			r = g.cur.NewInsertValue(r, g.shfl(mode, g.cur.NewExtractValue(v, uint64(k)), b, c), uint64(k))
		}
		return r
	}
	switch t {
	case types.Float:
		f := g.md.intrinsic("llvm.nvvm.shfl.sync."+mode+".f32", true, types.Float, types.I32, types.Float, types.I32, types.I32)
		return g.cur.NewCall(f, i32c(-1), v, b, i32c(c))
	case types.I32:
		f := g.md.intrinsic("llvm.nvvm.shfl.sync."+mode+".i32", true, types.I32, types.I32, types.I32, types.I32, types.I32)
		return g.cur.NewCall(f, i32c(-1), v, b, i32c(c))
	case types.Double, types.I64:
		x := v
		if t == types.Double {
			x = g.cur.NewBitCast(v, types.I64)
		}
		lo := g.shfl(mode, g.cur.NewTrunc(x, types.I32), b, c)
		hi := g.shfl(mode, g.cur.NewTrunc(g.cur.NewLShr(x, i64c(32)), types.I32), b, c)
		r := g.cur.NewOr(g.cur.NewZExt(lo, types.I64), g.cur.NewShl(g.cur.NewZExt(hi, types.I64), i64c(32)))
		if t == types.Double {
			return g.cur.NewBitCast(r, types.Double)
		}
		return r
	}
	g.failf("cannot shuffle %s", t)
	return nil
}

// bitsOf compresses the bits of x selected by sel (a list of bit positions)
// into a dense index, at compile time.
func compress(x int, sel []int) int {
	o := 0
	for i, b := range sel {
		if x>>b&1 != 0 {
			o |= 1 << i
		}
	}
	return o
}

// idBits compresses the bits of an id value selected by sel, at run time.
func (g *gen) idBits(id value.Value, sel []int) value.Value {
	var acc value.Value = i32c(0)
	for i, b := range sel {
		acc = g.or(acc, g.shl(g.and(g.lshr(id, i32c(int64(b))), i32c(1)), i32c(int64(i))))
	}
	return acc
}

// axisBits lists the bases (by bit position) that move along axis when
// along is set, else those that move along other dimensions only (not the
// zero bases of broadcast copies).
func axisBits(bases [][]int, axis int, along bool) []int {
	nonZero := func(x int) bool { return x != 0 }
	var sel []int
	for b, v := range bases {
		if (v[axis] != 0) == along && (along || slices.ContainsFunc(v, nonZero)) {
			sel = append(sel, b)
		}
	}
	return sel
}

func dropDim(c []int, axis int) []int {
	o := append([]int(nil), c[:axis]...)
	return append(o, c[axis+1:]...)
}

// sliceIndex is the row-major index, in shape without its dimension axis,
// of the element at base + c (base: the thread's coordinates, c a
// register's).
func (g *gen) sliceIndex(shape []int, axis int, base []value.Value, c []int) value.Value {
	var idx value.Value = i32c(0)
	for dd := range shape {
		if dd == axis {
			continue
		}
		idx = g.add(g.mul(idx, i32c(int64(shape[dd]))), g.add(base[dd], i32c(int64(c[dd]))))
	}
	return idx
}

// reduce lowers reduce(x) {axis, kind}: registers first, then butterfly
// shuffles across the lanes along the axis, then partials of the warps along
// the axis through shared memory.
func (g *gen) reduce(op *ir.Op) {
	xs := g.operandTiles(op)
	x := xs[0]
	ll := x.ll
	axis := int(op.Attrs.Int("axis", 0))
	a := g.accumOf(op, op.Attrs.String("kind"))
	keep := axisBits(ll.Reg, axis, false)
	// registers with the same non-axis bits reduce into one output
	nOut := 1 << len(keep)
	acc := make([]value.Value, nOut)
	rep := make([]int, nOut) // a representative input register
	for r := range x.regs {
		o := compress(r, keep)
		v := a.regsAt(xs, r)
		if acc[o] == nil {
			acc[o], rep[o] = v, r
		} else {
			acc[o] = a.combine(acc[o], v)
		}
	}
	for j, b := range ll.Lane {
		if b[axis] == 0 {
			continue
		}
		for o := range acc {
			acc[o] = a.combine(acc[o], g.shfl("bfly", acc[o], i32c(1<<j), 0x1f))
		}
	}
	inShape := ir.ShapeOf(op.Operands[0].Type)
	outShape := dropDim(inShape, axis)
	if wsel := axisBits(ll.Warp, axis, true); len(wsel) > 0 {
		nw := 1 << len(wsel)
		nElems := ir.NumElements(outShape)
		ab := a.bytes()
		base := g.threadBase(ll)
		outIdx := make([]value.Value, nOut)
		for o := range acc {
			outIdx[o] = g.sliceIndex(inShape, axis, base, g.coordsOf(ll)[rep[o]])
		}
		off := g.smemOffset()
		scratch := g.scratchRange(nw * nElems * ab)
		widx := g.idBits(g.warp, wsel)
		g.beforeSharedWriteR(scratch)
		for o := range acc {
			slot := g.add(g.mul(widx, i32c(int64(nElems))), outIdx[o])
			a.store(acc[o], g.smemByteBase(off, slot, ab))
		}
		g.beforeSharedReadR(scratch)
		if nElems == 1 && nw <= 32 {
			// one result: lane i reads warp i's partial, and a butterfly
			// over the low lanes combines them (every lane gets the same
			// bits: the combines are commutative)
			r := a.load(g.smemByteBase(off, g.and(g.lane, i32c(int64(nw-1))), ab))
			for b := 1; b < nw; b <<= 1 {
				r = a.combine(r, g.shfl("bfly", r, i32c(int64(b)), 0x1f))
			}
			acc[0] = r
		}
		for o := range acc {
			if nElems == 1 && nw <= 32 {
				break
			}
			var r value.Value
			for w := 0; w < nw; w++ {
				l := a.load(g.smemByteBase(off, g.add(i32c(int64(w*nElems)), outIdx[o]), ab))
				if r == nil {
					r = l
				} else {
					r = a.combine(r, l)
				}
			}
			acc[o] = r
		}
	}
	if _, ok := op.Results[0].Type.(*ir.Tile); !ok {
		for k, v := range a.fromN(acc[0]) {
			g.set(op.Results[k], &tval{s: v})
		}
		return
	}
	outs := make([]*tval, len(op.Results))
	for k, res := range op.Results {
		outs[k] = g.newTile(res.Type)
		if len(outs[k].regs) != nOut {
			g.failf("result layout holds %d registers, the reduction produces %d", len(outs[k].regs), nOut)
		}
	}
	for o := range acc {
		c := dropDim(g.coordsOf(ll)[rep[o]], axis)
		r := g.regAt(outs[0].ll, c)
		if r < 0 {
			g.failf("result layout does not match the slice of the operand's")
		}
		for k, v := range a.fromN(acc[o]) {
			if g.regAt(outs[k].ll, c) != r {
				g.failf("the results' layouts differ")
			}
			outs[k].regs[r] = v
		}
	}
	for k, res := range op.Results {
		g.set(res, outs[k])
	}
}

// scan lowers scan(x) {axis, kind: sum, reverse} on a blocked layout whose
// fastest dimension is the axis: sequential within threads, shfl.up across
// lanes, shared memory across warps and repetitions.
func (g *gen) scan(op *ir.Op) {
	s := g.newScanLowering(op)
	s.withinWarps()
	s.acrossWarps()
	if s.a.kind == "combine" {
		for k, out := range s.resultCombine(op.Results) {
			g.set(op.Results[k], out)
		}
		return
	}
	g.set(op.Results[0], s.result(op.Results[0].Type))
}

// scanLowering is the state of one scan's lowering. The registers of a
// thread are indexed by (col, chunk, i): col the bits not along the axis,
// chunk those along it above the lanes and warps (repetitions), i those
// along it within a thread's run.
type scanLowering struct {
	g       *gen
	a       accum
	ll      *gpu.LinearLayout
	shape   []int
	axis    int
	reverse bool

	low, high, other   []int // register bits: within a run, of chunks, of columns
	laneSel, wsel      []int // lane and warp bits along the axis
	nLow, nHigh, nCols int
	nLanes, nw         int
	vals               []value.Value // the operand's registers in the accumulator type
	zero               value.Value
	incl               []value.Value   // per register: the inclusive scan within its thread
	threadExcl         [][]value.Value // per (col, chunk): the lanes' before this thread
	warpTotal          [][]value.Value // per (col, chunk): the whole warp's
	warpPrefix         [][]value.Value // per (col, chunk): the warps' before this one
	chunkTotal         [][]value.Value // per (col, chunk): all warps'
	// kind combine, which has no identity: whether this thread has lanes
	// (warps) before it along the axis; nil when none ever has
	threadHas, warpHas value.Value
}

// newScanLowering checks the scan, classifies its layout's bits and brings
// its operand to the accumulator type.
func (g *gen) newScanLowering(op *ir.Op) *scanLowering {
	xs := g.operandTiles(op)
	x := xs[0]
	s := &scanLowering{g: g, ll: x.ll, shape: ir.ShapeOf(op.Operands[0].Type),
		axis: int(op.Attrs.Int("axis", 0)), reverse: op.Attrs.Bool("reverse")}
	kind := op.Attrs.String("kind")
	if kind == "" {
		kind = "sum"
	}
	if kind != "sum" && kind != "prod" && kind != "combine" {
		g.failf("scan %q is not supported (only sum, prod and combine)", kind)
	}
	s.a = g.accumOf(op, kind)
	s.classifyBits()
	s.vals = make([]value.Value, len(x.regs))
	for r := range x.regs {
		s.vals[r] = s.a.regsAt(xs, r)
	}
	if s.a.parts != nil {
		return s // kind combine: no identity
	}
	s.zero = s.a.to(constOf(s.a.d, int64(0)))
	if kind == "prod" {
		s.zero = s.a.to(constOf(s.a.d, int64(1))) // the identity
	}
	return s
}

// classifyBits sorts the register bits along the axis into low (within a
// thread's run) and high (repetitions above the lanes and warps), the
// others into other, and finds the lane and warp bits along the axis.
func (s *scanLowering) classifyBits() {
	ll, axis := s.ll, s.axis
	top := 0
	for _, bs := range [][][]int{ll.Lane, ll.Warp} {
		for _, b := range bs {
			if b[axis] > top {
				top = b[axis]
			}
		}
	}
	for b, v := range ll.Reg {
		switch {
		case v[axis] == 0:
			s.other = append(s.other, b)
		case v[axis] > top && top > 0:
			s.high = append(s.high, b)
		default:
			// below the lanes and warps, or the whole axis in the
			// thread (no lane or warp along it): one sequential run
			s.low = append(s.low, b)
		}
	}
	s.laneSel = axisBits(ll.Lane, axis, true)
	for i, b := range s.laneSel {
		if b != i {
			s.g.failf("scan layout: lanes along the axis must be the low lane bits")
		}
	}
	s.wsel = axisBits(ll.Warp, axis, true)
	s.nLow, s.nHigh, s.nCols = 1<<len(s.low), 1<<len(s.high), 1<<len(s.other)
	s.nLanes, s.nw = 1<<len(s.laneSel), 1<<len(s.wsel)
}

// reg is the register of element i of chunk chunk of column col.
func (s *scanLowering) reg(col, chunk, i int) int {
	r := 0
	for k, b := range s.other {
		if col>>k&1 != 0 {
			r |= 1 << b
		}
	}
	for k, b := range s.high {
		if chunk>>k&1 != 0 {
			r |= 1 << b
		}
	}
	for k, b := range s.low {
		if i>>k&1 != 0 {
			r |= 1 << b
		}
	}
	return r
}

// withinWarps scans each (col, chunk) inclusively within the thread, then
// the thread totals across the lanes, and takes the warp's total.
func (s *scanLowering) withinWarps() {
	g := s.g
	laneIdx := g.idBits(g.lane, s.laneSel)
	s.incl = make([]value.Value, len(s.vals))
	s.threadExcl = make([][]value.Value, s.nCols)
	s.warpTotal = make([][]value.Value, s.nCols)
	for col := 0; col < s.nCols; col++ {
		s.threadExcl[col] = make([]value.Value, s.nHigh)
		s.warpTotal[col] = make([]value.Value, s.nHigh)
		for chunk := 0; chunk < s.nHigh; chunk++ {
			t := s.threadRun(col, chunk)
			if s.nLanes == 1 {
				// no lane before this thread: its run is the warp's
				s.warpTotal[col][chunk] = t
				continue
			}
			incl := s.acrossLanes(t, laneIdx)
			s.threadExcl[col][chunk] = s.exclusive(incl, t, laneIdx)
			s.warpTotal[col][chunk] = s.warpTotalOf(incl)
		}
	}
}

// threadRun scans the thread's run of (col, chunk) in registers (into
// incl) and returns its total.
func (s *scanLowering) threadRun(col, chunk int) value.Value {
	var run value.Value
	for i := 0; i < s.nLow; i++ {
		r := s.reg(col, chunk, i)
		if s.reverse {
			r = s.reg(col, chunk, s.nLow-1-i)
		}
		if run == nil {
			run = s.vals[r]
		} else {
			run = s.a.combine(run, s.vals[r])
		}
		s.incl[r] = run
	}
	return run
}

// acrossLanes is the inclusive scan of the thread totals t across the lanes
// along the axis (shfl.up, or shfl.down when reversed).
func (s *scanLowering) acrossLanes(t, laneIdx value.Value) value.Value {
	g := s.g
	incl := t
	for k := 0; k < len(s.laneSel); k++ {
		delta := int64(1 << k)
		mode, cmpPred, bound := "up", enum.IPredUGE, i32c(delta)
		var y value.Value
		if s.reverse {
			mode = "down"
			y = g.shfl(mode, incl, i32c(delta), 0x1f)
			cmpPred, bound = enum.IPredULT, i32c(int64(s.nLanes)-delta)
		} else {
			y = g.shfl(mode, incl, i32c(delta), 0)
		}
		in := g.cur.NewICmp(cmpPred, laneIdx, bound)
		if s.a.kind == "combine" {
			// the earlier lanes' first: the combine need not commute
			incl = g.cur.NewSelect(in, s.a.combine(y, incl), incl)
			continue
		}
		incl = g.cur.NewSelect(in, s.a.combine(incl, y), incl)
	}
	return incl
}

// warpTotalOf is the warp's total along the axis: the inclusive scan of
// its last lane along it (the first when reversed).
func (s *scanLowering) warpTotalOf(incl value.Value) value.Value {
	g := s.g
	last := g.or(g.and(g.lane, i32c(int64(^(s.nLanes-1)&31))), i32c(int64(s.nLanes-1)))
	if s.reverse {
		last = g.and(g.lane, i32c(int64(^(s.nLanes-1)&31)))
	}
	if s.nLanes > 1 {
		return g.shfl("idx", incl, last, 0x1f)
	}
	return incl
}

// acrossWarps finds, per (col, chunk), the prefix of the warps before this
// one and the total of all, through shared memory when there are several
// warps along the axis.
func (s *scanLowering) acrossWarps() {
	s.warpPrefix = make([][]value.Value, s.nCols)
	s.chunkTotal = make([][]value.Value, s.nCols)
	for col := range s.warpPrefix {
		s.warpPrefix[col] = make([]value.Value, s.nHigh) // nil: no warp before
		s.chunkTotal[col] = make([]value.Value, s.nHigh)
		for chunk := range s.warpPrefix[col] {
			s.chunkTotal[col][chunk] = s.warpTotal[col][chunk]
		}
	}
	if s.nw > 1 {
		s.warpsThroughShared()
	}
}

// warpsThroughShared writes each warp's totals to the op's scratch, slot
// (warp, chunk, column), and reads back those of all warps.
func (s *scanLowering) warpsThroughShared() {
	g, a := s.g, s.a
	off := g.smemOffset()
	ab := a.bytes()
	widx := g.idBits(g.warp, s.wsel)
	base := g.threadBase(s.ll)
	nAllCols := ir.NumElements(s.shape) / s.shape[s.axis]
	colIdx := func(col int) value.Value {
		return g.sliceIndex(s.shape, s.axis, base, g.coordsOf(s.ll)[s.reg(col, 0, 0)])
	}
	slot := func(w value.Value, chunk int, ci value.Value) value.Value {
		return g.add(g.mul(g.add(g.mul(w, i32c(int64(s.nHigh))), i32c(int64(chunk))), i32c(int64(nAllCols))), ci)
	}
	scratch := g.scratchRange(gpu.ScanScratchBytes(s.ll, s.axis, a.dtypes()...))
	g.beforeSharedWriteR(scratch)
	for col := 0; col < s.nCols; col++ {
		ci := colIdx(col)
		for chunk := 0; chunk < s.nHigh; chunk++ {
			a.store(s.warpTotal[col][chunk], g.smemByteBase(off, slot(widx, chunk, ci), ab))
		}
	}
	g.beforeSharedReadR(scratch)
	if a.kind == "combine" {
		s.warpsCombine(widx, func(w, chunk, col int) value.Value {
			return a.load(g.smemByteBase(off, slot(i32c(int64(w)), chunk, colIdx(col)), ab))
		})
		return
	}
	for col := 0; col < s.nCols; col++ {
		ci := colIdx(col)
		for chunk := 0; chunk < s.nHigh; chunk++ {
			pre, tot := s.zero, value.Value(nil)
			for w := 0; w < s.nw; w++ {
				l := a.load(g.smemByteBase(off, slot(i32c(int64(w)), chunk, ci), ab))
				before := g.cur.NewICmp(enum.IPredULT, i32c(int64(w)), widx)
				if s.reverse {
					before = g.cur.NewICmp(enum.IPredUGT, i32c(int64(w)), widx)
				}
				if w == 0 {
					pre = g.cur.NewSelect(before, l, pre) // no 0 + l
				} else {
					pre = g.cur.NewSelect(before, a.combine(pre, l), pre)
				}
				if tot == nil {
					tot = l
				} else {
					tot = a.combine(tot, l)
				}
			}
			s.warpPrefix[col][chunk] = pre
			s.chunkTotal[col][chunk] = tot
		}
	}
}

// warpsCombine is warpsThroughShared's reading for kind combine: the
// warps' totals (load(w, chunk, col)) in scan order, the prefix valid where
// warpHas (a warp before this one along the axis).
func (s *scanLowering) warpsCombine(widx value.Value, load func(w, chunk, col int) value.Value) {
	g, a := s.g, s.a
	order := make([]int, s.nw)
	for i := range order {
		order[i] = i
		if s.reverse {
			order[i] = s.nw - 1 - i
		}
	}
	s.warpHas = g.cur.NewICmp(enum.IPredUGT, widx, i32c(0))
	if s.reverse {
		s.warpHas = g.cur.NewICmp(enum.IPredULT, widx, i32c(int64(s.nw-1)))
	}
	for col := 0; col < s.nCols; col++ {
		for chunk := 0; chunk < s.nHigh; chunk++ {
			var pre, tot value.Value
			for _, w := range order {
				l := load(w, chunk, col)
				before := g.cur.NewICmp(enum.IPredULT, i32c(int64(w)), widx)
				if s.reverse {
					before = g.cur.NewICmp(enum.IPredUGT, i32c(int64(w)), widx)
				}
				if tot == nil {
					pre, tot = l, l
					continue
				}
				pre = g.cur.NewSelect(before, a.combine(pre, l), pre)
				tot = a.combine(tot, l)
			}
			s.warpPrefix[col][chunk] = pre
			s.chunkTotal[col][chunk] = tot
		}
	}
}

// resultCombine is result for kind combine: each register's inclusive
// scan within its thread gets the prefixes of the lanes and warps (where
// there are some) and chunks before it, each combined on its left.
func (s *scanLowering) resultCombine(res []*ir.Value) []*tval {
	g, a := s.g, s.a
	outs := make([]*tval, len(res))
	for k, r := range res {
		outs[k] = g.newTile(r.Type)
	}
	before := func(p, has, v value.Value) value.Value {
		if p == nil {
			return v
		}
		if has == nil {
			return a.combine(p, v)
		}
		return g.cur.NewSelect(has, a.combine(p, v), v)
	}
	for col := 0; col < s.nCols; col++ {
		var chunkPrefix value.Value
		for i := 0; i < s.nHigh; i++ {
			chunk := i
			if s.reverse {
				chunk = s.nHigh - 1 - i
			}
			for i := 0; i < s.nLow; i++ {
				r := s.reg(col, chunk, i)
				v := before(s.threadExcl[col][chunk], s.threadHas, s.incl[r])
				v = before(s.warpPrefix[col][chunk], s.warpHas, v)
				for k, x := range a.fromN(before(chunkPrefix, nil, v)) {
					outs[k].regs[r] = x
				}
			}
			if chunkPrefix == nil {
				chunkPrefix = s.chunkTotal[col][chunk]
			} else {
				chunkPrefix = a.combine(chunkPrefix, s.chunkTotal[col][chunk])
			}
		}
	}
	return outs
}

// result adds to each register's inclusive scan within its thread the
// prefixes of the lanes, warps and chunks before it. A prefix known to be
// empty (the first lane, warp or chunk along the axis for every thread:
// none along it) is left out rather than added as a zero, which a float
// sum could not drop (x + 0 is not x for x = -0).
func (s *scanLowering) result(t ir.Type) *tval {
	a := s.a
	out := s.g.newTile(t)
	plus := func(x, y value.Value) value.Value {
		switch {
		case x == nil:
			return y
		case y == nil:
			return x
		}
		return a.combine(x, y)
	}
	for col := 0; col < s.nCols; col++ {
		var chunkPrefix value.Value
		order := make([]int, s.nHigh)
		for i := range order {
			order[i] = i
			if s.reverse {
				order[i] = s.nHigh - 1 - i
			}
		}
		for _, chunk := range order {
			add := plus(plus(s.threadExcl[col][chunk], s.warpPrefix[col][chunk]), chunkPrefix)
			for i := 0; i < s.nLow; i++ {
				r := s.reg(col, chunk, i)
				out.regs[r] = a.from(plus(s.incl[r], add))
			}
			chunkPrefix = plus(chunkPrefix, s.chunkTotal[col][chunk])
		}
	}
	return out
}

// exclusive is the lanes' prefix before this thread from the inclusive
// scan incl of the thread totals t: incl - t for sums (the timed kernels'
// code), the neighbour lane's inclusive value for products (a division
// would round), the identity 1 in the first lane.
func (s *scanLowering) exclusive(incl, t, laneIdx value.Value) value.Value {
	g := s.g
	if s.a.kind == "sum" {
		return g.sub2(s.a, incl, t)
	}
	if s.reverse {
		y := g.shfl("down", incl, i32c(1), 0x1f)
		has := g.cur.NewICmp(enum.IPredULT, laneIdx, i32c(int64(s.nLanes-1)))
		if s.a.kind == "combine" {
			s.threadHas = has
			return y
		}
		return g.cur.NewSelect(has, y, s.zero)
	}
	y := g.shfl("up", incl, i32c(1), 0)
	has := g.cur.NewICmp(enum.IPredUGE, laneIdx, i32c(1))
	if s.a.kind == "combine" {
		s.threadHas = has
		return y
	}
	return g.cur.NewSelect(has, y, s.zero)
}

// sub2 is x - y in the accumulator type.
func (g *gen) sub2(a accum, x, y value.Value) value.Value {
	if a.d.IsFloat() {
		return g.cur.NewFSub(x, y)
	}
	return g.sub(x, y)
}

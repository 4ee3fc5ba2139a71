package nvptx

import (
	"slices"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/tlego/tle/passes"
	"github.com/tlego/tle/tle/ir"
)

// accumulator arithmetic of reductions and scans: floats in f32 (f64 for
// f64), integers in i32 (i64 for 64-bit), extended by signedness.
type accum struct {
	g    *gen
	d    ir.DType
	kind string
}

func (a accum) typ() types.Type {
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
	if a.d.IsFloat() {
		sfx := ".f32"
		if a.d == ir.F64 {
			sfx = ".f64"
		}
		switch a.kind {
		case "sum":
			return g.cur.NewFAdd(x, y)
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
		case "max", "min":
			p := map[[2]bool]enum.IPred{{true, true}: enum.IPredSGT, {true, false}: enum.IPredUGT,
				{false, true}: enum.IPredSLT, {false, false}: enum.IPredULT}[[2]bool{a.kind == "max", signed}]
			return g.cur.NewSelect(g.cur.NewICmp(p, x, y), x, y)
		}
	}
	g.failf("unknown reduction %q", a.kind)
	return nil
}

// shfl exchanges a 32- or 64-bit value across lanes (mode bfly, up or idx).
func (g *gen) shfl(mode string, v value.Value, b value.Value, c int64) value.Value {
	t := v.Type()
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

// reduce lowers reduce(x) {axis, kind}: registers first, then butterfly
// shuffles across the lanes along the axis, then partials of the warps along
// the axis through shared memory.
func (g *gen) reduce(op *ir.Op) {
	x := g.val(op.Operands[0])
	ll := x.ll
	axis := int(op.Attrs.Int("axis", 0))
	a := accum{g: g, d: ir.ElemDType(op.Operands[0].Type), kind: op.Attrs.String("kind")}
	keep := axisBits(ll.Reg, axis, false)
	// registers with the same non-axis bits reduce into one output
	nOut := 1 << len(keep)
	acc := make([]value.Value, nOut)
	rep := make([]int, nOut) // a representative input register
	for r := range x.regs {
		o := compress(r, keep)
		v := a.to(x.regs[r])
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
		ab := passes.AccBytes(a.d)
		base := g.threadBase(ll)
		outIdx := make([]value.Value, nOut)
		for o := range acc {
			c := g.coordsOf(ll)[rep[o]]
			var idx value.Value = i32c(0)
			for dd := range inShape {
				if dd == axis {
					continue
				}
				idx = g.add(g.mul(idx, i32c(int64(inShape[dd]))), g.add(base[dd], i32c(int64(c[dd]))))
			}
			outIdx[o] = idx
		}
		off := g.smemOffset()
		scratch := g.scratchRange(nw * nElems * ab)
		widx := g.idBits(g.warp, wsel)
		g.beforeSharedWriteR(scratch)
		for o := range acc {
			slot := g.add(g.mul(widx, i32c(int64(nElems))), outIdx[o])
			p := g.smemByteBase(off, slot, ab)
			st := g.cur.NewStore(acc[o], g.cur.NewBitCast(p, ptrTo(a.typ(), asShared)))
			st.Align = 4
		}
		g.beforeSharedReadR(scratch)
		if nElems == 1 && nw <= 32 {
			// one result: lane i reads warp i's partial, and a butterfly
			// over the low lanes combines them (every lane gets the same
			// bits: the combines are commutative)
			p := g.smemByteBase(off, g.and(g.lane, i32c(int64(nw-1))), ab)
			var r value.Value = g.cur.NewLoad(a.typ(), g.cur.NewBitCast(p, ptrTo(a.typ(), asShared)))
			r.(*llvm.InstLoad).Align = 4
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
				p := g.smemByteBase(off, g.add(i32c(int64(w*nElems)), outIdx[o]), ab)
				l := g.cur.NewLoad(a.typ(), g.cur.NewBitCast(p, ptrTo(a.typ(), asShared)))
				l.Align = 4
				if r == nil {
					r = l
				} else {
					r = a.combine(r, l)
				}
			}
			acc[o] = r
		}
	}
	res := op.Results[0]
	if _, ok := res.Type.(*ir.Tile); !ok {
		g.set(res, &tval{s: a.from(acc[0])})
		return
	}
	out := g.newTile(res.Type)
	if len(out.regs) != nOut {
		g.failf("result layout holds %d registers, the reduction produces %d", len(out.regs), nOut)
	}
	for o := range acc {
		c := dropDim(g.coordsOf(ll)[rep[o]], axis)
		r := g.regAt(out.ll, c)
		if r < 0 {
			g.failf("result layout does not match the slice of the operand's")
		}
		out.regs[r] = a.from(acc[o])
	}
	g.set(res, out)
}

// scan lowers scan(x) {axis, kind: sum, reverse} on a blocked layout whose
// fastest dimension is the axis: sequential within threads, shfl.up across
// lanes, shared memory across warps and repetitions.
func (g *gen) scan(op *ir.Op) {
	x := g.val(op.Operands[0])
	ll := x.ll
	axis := int(op.Attrs.Int("axis", 0))
	reverse := op.Attrs.Bool("reverse")
	kind := op.Attrs.String("kind")
	if kind == "" {
		kind = "sum"
	}
	if kind != "sum" {
		g.failf("scan %q is not supported (only sum)", kind)
	}
	a := accum{g: g, d: ir.ElemDType(op.Operands[0].Type), kind: "sum"}
	shape := ir.ShapeOf(op.Operands[0].Type)
	// classify register bits along the axis: low (within a thread's run)
	// and high (repetitions above the lanes and warps)
	top := 0
	for _, bs := range [][][]int{ll.Lane, ll.Warp} {
		for _, b := range bs {
			if b[axis] > top {
				top = b[axis]
			}
		}
	}
	var low, high, other []int
	for b, v := range ll.Reg {
		switch {
		case v[axis] == 0:
			other = append(other, b)
		case v[axis] > top:
			high = append(high, b)
		default:
			low = append(low, b)
		}
	}
	laneSel := axisBits(ll.Lane, axis, true)
	for i, b := range laneSel {
		if b != i {
			g.failf("scan layout: lanes along the axis must be the low lane bits")
		}
	}
	nLow, nHigh, nCols := 1<<len(low), 1<<len(high), 1<<len(other)
	regOf3 := func(col, chunk, i int) int {
		r := 0
		for k, b := range other {
			if col>>k&1 != 0 {
				r |= 1 << b
			}
		}
		for k, b := range high {
			if chunk>>k&1 != 0 {
				r |= 1 << b
			}
		}
		for k, b := range low {
			if i>>k&1 != 0 {
				r |= 1 << b
			}
		}
		return r
	}
	vals := make([]value.Value, len(x.regs))
	for r := range x.regs {
		vals[r] = a.to(x.regs[r])
	}
	zero := a.to(constOf(a.d, int64(0)))
	laneIdx := g.idBits(g.lane, laneSel)
	nLanes := 1 << len(laneSel)
	wsel := axisBits(ll.Warp, axis, true)
	nw := 1 << len(wsel)
	// per (col, chunk): inclusive within the thread, then across lanes
	incl := make([]value.Value, len(x.regs))
	threadExcl := make([][]value.Value, nCols)
	warpTotal := make([][]value.Value, nCols)
	for col := 0; col < nCols; col++ {
		threadExcl[col] = make([]value.Value, nHigh)
		warpTotal[col] = make([]value.Value, nHigh)
		for chunk := 0; chunk < nHigh; chunk++ {
			var run value.Value
			for i := 0; i < nLow; i++ {
				r := regOf3(col, chunk, i)
				if reverse {
					r = regOf3(col, chunk, nLow-1-i)
				}
				if run == nil {
					run = vals[r]
				} else {
					run = a.combine(run, vals[r])
				}
				incl[r] = run
			}
			t := run
			// inclusive scan of thread totals across lanes
			s := t
			for k := 0; k < len(laneSel); k++ {
				delta := int64(1 << k)
				mode, cmpPred, bound := "up", enum.IPredUGE, i32c(delta)
				var y value.Value
				if reverse {
					mode = "down"
					y = g.shfl(mode, s, i32c(delta), 0x1f)
					cmpPred, bound = enum.IPredULT, i32c(int64(nLanes)-delta)
				} else {
					y = g.shfl(mode, s, i32c(delta), 0)
				}
				in := g.cur.NewICmp(cmpPred, laneIdx, bound)
				s = g.cur.NewSelect(in, a.combine(s, y), s)
			}
			threadExcl[col][chunk] = g.sub2(a, s, t)
			// the warp's total along the axis: the last lane's inclusive
			last := g.or(g.and(g.lane, i32c(int64(^(nLanes-1)&31))), i32c(int64(nLanes-1)))
			if reverse {
				last = g.and(g.lane, i32c(int64(^(nLanes-1)&31)))
			}
			if nLanes > 1 {
				warpTotal[col][chunk] = g.shfl("idx", s, last, 0x1f)
			} else {
				warpTotal[col][chunk] = s
			}
		}
	}
	// prefix of the warps before this one, and of the chunks before this one
	warpPrefix := make([][]value.Value, nCols)
	chunkTotal := make([][]value.Value, nCols)
	for col := range warpPrefix {
		warpPrefix[col] = make([]value.Value, nHigh)
		chunkTotal[col] = make([]value.Value, nHigh)
		for chunk := range warpPrefix[col] {
			warpPrefix[col][chunk] = zero
			chunkTotal[col][chunk] = warpTotal[col][chunk]
		}
	}
	if nw > 1 {
		off := g.smemOffset()
		ab := passes.AccBytes(a.d)
		widx := g.idBits(g.warp, wsel)
		base := g.threadBase(ll)
		nAllCols := ir.NumElements(shape) / shape[axis]
		colIdx := func(col int) value.Value {
			c := g.coordsOf(ll)[regOf3(col, 0, 0)]
			var idx value.Value = i32c(0)
			for dd := range shape {
				if dd == axis {
					continue
				}
				idx = g.add(g.mul(idx, i32c(int64(shape[dd]))), g.add(base[dd], i32c(int64(c[dd]))))
			}
			return idx
		}
		slot := func(w value.Value, chunk int, ci value.Value) value.Value {
			return g.add(g.mul(g.add(g.mul(w, i32c(int64(nHigh))), i32c(int64(chunk))), i32c(int64(nAllCols))), ci)
		}
		scratch := g.scratchRange(passes.ScanScratchBytes(ll, axis, a.d))
		g.beforeSharedWriteR(scratch)
		for col := 0; col < nCols; col++ {
			ci := colIdx(col)
			for chunk := 0; chunk < nHigh; chunk++ {
				p := g.smemByteBase(off, slot(widx, chunk, ci), ab)
				st := g.cur.NewStore(warpTotal[col][chunk], g.cur.NewBitCast(p, ptrTo(a.typ(), asShared)))
				st.Align = 4
			}
		}
		g.beforeSharedReadR(scratch)
		for col := 0; col < nCols; col++ {
			ci := colIdx(col)
			for chunk := 0; chunk < nHigh; chunk++ {
				pre, tot := zero, value.Value(nil)
				for w := 0; w < nw; w++ {
					p := g.smemByteBase(off, slot(i32c(int64(w)), chunk, ci), ab)
					l := g.cur.NewLoad(a.typ(), g.cur.NewBitCast(p, ptrTo(a.typ(), asShared)))
					l.Align = 4
					before := g.cur.NewICmp(enum.IPredULT, i32c(int64(w)), widx)
					if reverse {
						before = g.cur.NewICmp(enum.IPredUGT, i32c(int64(w)), widx)
					}
					pre = g.cur.NewSelect(before, a.combine(pre, l), pre)
					if tot == nil {
						tot = l
					} else {
						tot = a.combine(tot, l)
					}
				}
				warpPrefix[col][chunk] = pre
				chunkTotal[col][chunk] = tot
			}
		}
	}
	res := op.Results[0]
	out := g.newTile(res.Type)
	for col := 0; col < nCols; col++ {
		var chunkPrefix value.Value = zero
		order := make([]int, nHigh)
		for i := range order {
			order[i] = i
			if reverse {
				order[i] = nHigh - 1 - i
			}
		}
		for _, chunk := range order {
			add := a.combine(a.combine(threadExcl[col][chunk], warpPrefix[col][chunk]), chunkPrefix)
			for i := 0; i < nLow; i++ {
				r := regOf3(col, chunk, i)
				out.regs[r] = a.from(a.combine(incl[r], add))
			}
			chunkPrefix = a.combine(chunkPrefix, chunkTotal[col][chunk])
		}
	}
	g.set(res, out)
}

// sub2 is x - y in the accumulator type.
func (g *gen) sub2(a accum, x, y value.Value) value.Value {
	if a.d.IsFloat() {
		return g.cur.NewFSub(x, y)
	}
	return g.sub(x, y)
}

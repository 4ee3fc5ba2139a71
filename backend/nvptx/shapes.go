package nvptx

import (
	"slices"

	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// join, split and flip: the shape builtins of issue 35 that move elements.
// The layout pass (passes.JoinBlocked, SplitBlocked) gives join's result and
// split's operand a layout in which every thread holds the pair of the last
// dimension in two registers, so both are register selections here, as in
// Triton; an operand laid out otherwise was converted before them (shuffles
// or shared memory: convert_layout). flip keeps its operand's layout and
// moves elements by XOR masks (gpu.LinearLayout.XorMasks): registers only,
// lane shuffles, or shared memory when warps hold the other half.

// pairThreads reports whether the lane and warp bases of whole (a layout
// with a last dimension of 2) are those of half (its layout without it) with
// a zero last coordinate: each thread holds both elements of every pair it
// holds one of, at the same coordinates half gives it.
func pairThreads(whole, half *gpu.LinearLayout) bool {
	last := len(whole.Shape) - 1
	same := func(w, h [][]int) bool {
		if len(w) != len(h) {
			return false
		}
		for j := range w {
			if w[j][last] != 0 || !slices.Equal(w[j][:last], h[j]) {
				return false
			}
		}
		return true
	}
	return same(whole.Lane, half.Lane) && same(whole.Warp, half.Warp)
}

// join lowers join(a, b): register (c, k) of the result is a's (k = 0) or
// b's (k = 1) register at c.
func (g *gen) join(op *ir.Op) {
	res := op.Results[0]
	dst := g.layoutOf(res.Type)
	srcs := []*tval{g.val(op.Operands[0]), g.val(op.Operands[1])}
	last := len(dst.Shape) - 1
	out := &tval{ll: dst, regs: make([]value.Value, dst.NumRegs())}
	for k, t := range srcs {
		if t.s != nil {
			continue
		}
		g.force(t)
		if !pairThreads(dst, t.ll) {
			g.failf("join: operand %d's layout does not match the result's with the pair in one thread", k)
		}
	}
	for r, c := range g.coordsOf(dst) {
		t := srcs[c[last]]
		if t.s != nil {
			out.regs[r] = t.s
			continue
		}
		sr := g.regAt(t.ll, c[:last])
		if sr < 0 {
			g.failf("join: operand %d holds no register at %v", c[last], c[:last])
		}
		out.regs[r] = t.regs[sr]
	}
	g.set(res, out)
}

// split lowers split(x): result k's register at c is x's register at
// (c, k).
func (g *gen) split(op *ir.Op) {
	src := g.val(op.Operands[0])
	dst := g.layoutOf(op.Results[0].Type)
	if src.s != nil {
		g.set(op.Results[0], &tval{s: src.s})
		g.set(op.Results[1], &tval{s: src.s})
		return
	}
	g.force(src)
	if !pairThreads(src.ll, dst) {
		g.failf("split: the operand's layout does not hold each pair in one thread")
	}
	for k, res := range op.Results {
		out := &tval{ll: dst, regs: make([]value.Value, dst.NumRegs())}
		for r, c := range g.coordsOf(dst) {
			sr := g.regAt(src.ll, append(slices.Clone(c), k))
			if sr < 0 {
				g.failf("split: the operand holds no register at %v", append(slices.Clone(c), k))
			}
			out.regs[r] = src.regs[sr]
		}
		g.set(res, out)
	}
}

// flip lowers flip(x) {axis}: element c reads x at c with its axis
// coordinate XORed with size-1 (the size is a power of two), which is
// register r^reg of lane^lane of warp^warp (XorMasks): a register
// permutation, then shfl.bfly when lanes differ, or shared memory when
// warps do.
func (g *gen) flip(op *ir.Op) {
	res := op.Results[0]
	src := g.val(op.Operands[0])
	if src.s != nil {
		g.set(res, &tval{s: src.s})
		return
	}
	g.force(src)
	dst := g.layoutOf(res.Type)
	axis := int(op.Attrs.Int("axis", 0))
	shape := ir.ShapeOf(res.Type)
	x := make([]int, len(shape))
	x[axis] = shape[axis] - 1
	if !src.ll.Equal(dst) {
		g.failf("flip: operand and result layouts differ")
	}
	reg, lane, warp, ok := dst.XorMasks(x)
	if !ok {
		g.failf("flip: the layout cannot reverse axis %d", axis)
	}
	if warp != 0 {
		g.flipShared(op, src, dst, axis)
		return
	}
	out := &tval{ll: dst, regs: make([]value.Value, len(src.regs))}
	if lane == 0 {
		for r := range out.regs {
			out.regs[r] = src.regs[r^reg]
		}
		g.set(res, out)
		return
	}
	_, toD, fromD := g.scratchType(ir.Elem(res.Type))
	for r := range out.regs {
		out.regs[r] = fromD(g.shflXor(toD(src.regs[r^reg]), lane))
	}
	g.set(res, out)
}

// shflXor is v of the lane whose id is this lane's XOR mask (shfl.bfly);
// values narrower than 32 bits travel zero-extended.
func (g *gen) shflXor(v value.Value, mask int) value.Value {
	if it, ok := v.Type().(*types.IntType); ok && it.BitSize < 32 {
		w := g.shfl("bfly", g.cur.NewZExt(v, types.I32), i32c(int64(mask)), 0x1f)
		return g.cur.NewTrunc(w, it)
	}
	return g.shfl("bfly", v, i32c(int64(mask)), 0x1f)
}

// flipShared reverses axis through the op's shared scratch (viaShared).
func (g *gen) flipShared(op *ir.Op, src *tval, dst *gpu.LinearLayout, axis int) {
	shape := ir.ShapeOf(op.Results[0].Type)
	g.set(op.Results[0], g.viaShared(src, shape, dst, ir.Elem(op.Results[0].Type), func(cs []value.Value) {
		cs[axis] = g.sub(i32c(int64(shape[axis]-1)), cs[axis])
	}))
}

// extractSlice lowers x[lo:hi]: a register selection where every thread
// holds the elements of its slice already (gpu.SliceRegs), else through
// the op's shared scratch: the tile written row-major, each element read
// back from its coordinates plus the starts.
func (g *gen) extractSlice(op *ir.Op) {
	res := op.Results[0]
	src := g.val(op.Operands[0])
	if src.s != nil {
		g.set(res, &tval{s: src.s})
		return
	}
	g.force(src)
	dst := g.layoutOf(res.Type)
	starts := op.Attrs.Ints("starts")
	if regs, ok := gpu.SliceRegs(src.ll, dst, starts); ok {
		out := &tval{ll: dst, regs: make([]value.Value, len(regs))}
		for r, sr := range regs {
			out.regs[r] = src.regs[sr]
		}
		g.set(res, out)
		return
	}
	g.set(res, g.viaShared(src, ir.ShapeOf(op.Operands[0].Type), dst, ir.Elem(res.Type), func(cs []value.Value) {
		for d, st := range starts {
			cs[d] = g.add(cs[d], i32c(int64(st)))
		}
	}))
}

// viaShared writes src (of shape inShape) row-major into the op's shared
// scratch and reads the tile of layout dst back, each element from the
// source coordinates move makes of its own (in place).
func (g *gen) viaShared(src *tval, inShape []int, dst *gpu.LinearLayout, elem ir.Type, move func([]value.Value)) *tval {
	d, toD, fromD := g.scratchType(elem)
	eb := d.Bytes()
	off := g.smemOffset()
	w := wordOne(d)
	index := func(coords []value.Value) value.Value {
		var idx value.Value = i32c(0)
		stride := 1
		for dd := len(inShape) - 1; dd >= 0; dd-- {
			idx = g.add(idx, g.mul(coords[dd], i32c(int64(stride))))
			stride *= inShape[dd]
		}
		return idx
	}
	coords := func(ll *gpu.LinearLayout, c []int) []value.Value {
		b := g.threadBase(ll)
		out := make([]value.Value, len(c))
		for dd := range c {
			out[dd] = g.add(b[dd], i32c(int64(c[dd])))
		}
		return out
	}
	g.beforeSharedWrite()
	for r, c := range g.coordsOf(src.ll) {
		g.plainStore(g.smemByteBase(off, index(coords(src.ll, c)), eb), asShared, w, g.packWords([]value.Value{toD(src.regs[r])}, d, w, 1))
	}
	g.beforeSharedRead()
	out := &tval{ll: dst, regs: make([]value.Value, dst.NumRegs())}
	for r, c := range g.coordsOf(dst) {
		cs := coords(dst, c)
		move(cs)
		v := g.unpackWords(g.plainLoad(g.smemByteBase(off, index(cs), eb), asShared, w, 1), d, w, 1)[0]
		out.regs[r] = fromD(v)
	}
	return out
}

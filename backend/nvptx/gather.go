package nvptx

import (
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// gather lowers gather(src, index) {axis} (Triton's tl.gather): the source
// goes to shared memory row-major, as reshape's does, and each thread reads
// its result elements where their indices point (the index tile is in the
// result's layout, one index a register). An index out of range reads
// element 0 of its line rather than outside the scratch (the interpreter
// reports it).
func (g *gen) gather(op *ir.Op) {
	src, idx := g.val(op.Operands[0]), g.val(op.Operands[1])
	g.force(src)
	g.force(idx)
	if !idx.ll.Equal(g.layoutOf(op.Results[0].Type)) {
		g.failf("gather: the index is not in the result's layout (the layout pass puts it there)")
	}
	axis := int(op.Attrs.Int("axis", 0))
	inShape := ir.ShapeOf(op.Operands[0].Type)
	id := ir.ElemDType(op.Operands[1].Type)
	n := int64(inShape[axis])
	g.throughShared(op, src, func(r int, coords []value.Value) value.Value {
		j := g.cast(idx.regs[r], id, ir.I64)
		in := g.cur.NewICmp(enum.IPredULT, j, i64c(n))
		return g.cur.NewTrunc(g.cur.NewSelect(in, j, i64c(0)), types.I32)
	})
}

// butterfly lowers butterfly(x) {axis, mask}: element i along axis takes
// element i^mask. Where the mask's bits are register or lane bits of the
// layout (gpu.ButterflyMasks) it is a register renaming and one shfl.bfly
// a register; otherwise it goes through shared memory (scratch given by
// passes.ScratchBytes on the same test).
func (g *gen) butterfly(op *ir.Op) {
	x := g.val(op.Operands[0])
	g.force(x)
	axis := int(op.Attrs.Int("axis", 0))
	mask := int(op.Attrs.Int("mask", 0))
	regMask, laneMask, ok := gpu.ButterflyMasks(x.ll, axis, mask)
	if !ok {
		g.throughShared(op, x, func(_ int, coords []value.Value) value.Value {
			return g.xor(coords[axis], i32c(int64(mask)))
		})
		return
	}
	out := &tval{ll: x.ll, regs: make([]value.Value, len(x.regs))}
	for r := range out.regs {
		v := x.regs[r^regMask]
		if laneMask != 0 {
			v = g.shflBits(v, laneMask)
		}
		out.regs[r] = v
	}
	g.set(op.Results[0], out)
}

// shflBits is v from lane ^ laneMask (shfl.sync.bfly), any register type:
// narrow integers (16-bit floats and fp8 are i16 and i8 registers) travel
// as the low bits of an i32.
func (g *gen) shflBits(v value.Value, laneMask int) value.Value {
	b := i32c(int64(laneMask))
	switch t := v.Type().(type) {
	case *types.FloatType:
		if t.Kind == types.FloatKindFloat || t.Kind == types.FloatKindDouble {
			return g.shfl("bfly", v, b, 0x1f)
		}
	case *types.IntType:
		switch {
		case t == types.I32 || t == types.I64:
			return g.shfl("bfly", v, b, 0x1f)
		case t.BitSize < 32:
			return g.cur.NewTrunc(g.shfl("bfly", g.cur.NewZExt(v, types.I32), b, 0x1f), t)
		}
	}
	g.failf("cannot exchange a %s register across lanes", v.Type())
	return nil
}

// throughShared writes the tile src to the op's shared scratch row-major
// and reads the result (of the op's result type, in its layout) back: the
// result's register r at coordinates coords (per dimension) reads the
// source element at coords with its axis coordinate replaced by
// along(r, coords) (an i32).
func (g *gen) throughShared(op *ir.Op, src *tval, along func(r int, coords []value.Value) value.Value) {
	axis := int(op.Attrs.Int("axis", 0))
	inShape := ir.ShapeOf(op.Operands[0].Type)
	g.readBack(op.Results[0], src, inShape, func(r int, coords []value.Value) value.Value {
		var idx value.Value = i32c(0)
		stride := 1
		for dd := len(inShape) - 1; dd >= 0; dd-- {
			cd := coords[dd]
			if dd == axis {
				cd = along(r, coords)
			}
			idx = g.add(idx, g.mul(cd, i32c(int64(stride))))
			stride *= inShape[dd]
		}
		return idx
	})
}

// readBack spills src to the op's shared scratch row-major in inShape and
// reads res (its type, in its layout) back: the result's register r at
// coordinates coords (per dimension, i32) reads the scratch element at
// index(r, coords), a linear index in inShape.
func (g *gen) readBack(res *ir.Value, src *tval, inShape []int, index func(r int, coords []value.Value) value.Value) {
	dst := g.layoutOf(res.Type)
	outShape := ir.ShapeOf(res.Type)
	d, toD, fromD := g.scratchType(ir.Elem(res.Type))
	eb := d.Bytes()
	off := g.smemOffset()
	g.spillRowMajor(src, inShape, d, toD, off)
	g.beforeSharedRead()
	db := g.threadBase(dst)
	out := &tval{ll: dst, regs: make([]value.Value, dst.NumRegs())}
	for r, c := range g.coordsOf(dst) {
		coords := make([]value.Value, len(outShape))
		for dd := range outShape {
			coords[dd] = g.add(db[dd], i32c(int64(c[dd])))
		}
		idx := index(r, coords)
		v := g.unpackWords(g.plainLoad(g.smemByteBase(off, idx, eb), asShared, wordOne(d), 1), d, wordOne(d), 1)[0]
		out.regs[r] = fromD(v)
	}
	g.set(res, out)
}

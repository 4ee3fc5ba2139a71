package nvptx

import (
	"fmt"

	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// pair returns the i32 holding registers r and r+1 of a 16-bit tile.
func (g *gen) pair(t *tval, r int) value.Value {
	t.ready(r)
	if p, ok := t.pairs[r]; ok {
		return p
	}
	lo := g.cur.NewZExt(t.regs[r], types.I32)
	hi := g.cur.NewZExt(t.regs[r+1], types.I32)
	return g.or(lo, g.shl(hi, i32c(16)))
}

// quad packs the 8-bit registers r..r+3 of t into one i32, r in the low
// byte (wgmma's 8-bit register operand): for a tile read by ldmatrix
// (matrixLoad; in row pairs, see matrix.go) the word they were all cut
// from or one prmt.b32 of the two words they were cut from, else shifts
// and ors.
func (g *gen) quad(t *tval, r int) value.Value {
	for i := 0; i < 4; i++ {
		t.ready(r + i)
	}
	if t.cut {
		if w := g.prmtWord(t.regs[r:r+4], 8); w != nil {
			return w
		}
	}
	var out value.Value
	for i := 0; i < 4; i++ {
		b := g.cur.NewZExt(t.regs[r+i], types.I32)
		if i == 0 {
			out = b
		} else {
			out = g.or(out, g.shl(b, i32c(int64(8*i))))
		}
	}
	return out
}

// to16 converts a tile of 8-bit floats to f16 registers for the f16 mma.
func (g *gen) to16(t *tval, d ir.DType) *tval {
	out := &tval{ll: t.ll, regs: make([]value.Value, len(t.regs))}
	for r, v := range t.regs {
		out.regs[r] = g.fromCompute(g.toCompute(v, d), ir.F16)
	}
	return out
}

// dot lowers dot(a, b, acc) to mma.sync.m16n8k16 with f32 accumulation:
// for each 16x8 accumulator tile of the warp and each k16 step, one mma
// whose fragments are registers of the dot-operand layouts.
func (g *gen) dot(op *ir.Op) {
	a, b, c := g.val(op.Operands[0]), g.val(op.Operands[1]), g.val(op.Operands[2])
	res := op.Results[0]
	rt := res.Type.(*ir.Tile)
	mma, ok := rt.Layout.(*gpu.MMA)
	if !ok {
		g.failf("dot result has layout %v, want mma", rt.Layout)
	}
	da, db := ir.ElemDType(op.Operands[0].Type), ir.ElemDType(op.Operands[1].Type)
	dc := ir.ElemDType(op.Operands[2].Type)
	if da == ir.F32 && db == ir.F32 {
		g.dotTF32(op, a, b, c, mma)
		return
	}
	if da.Bits() == 8 && da.IsFloat() {
		a, da = g.to16(a, da), ir.F16
	}
	if db.Bits() == 8 && db.IsFloat() {
		b, db = g.to16(b, db), ir.F16
	}
	if da != db || (da != ir.F16 && da != ir.BF16) {
		g.failf("dot of %s x %s: mma.sync needs f16, bf16, fp8 or f32 (tf32) operands", da, db)
	}
	ty := da.String()
	M, N := rt.Shape[0], rt.Shape[1]
	K := ir.ShapeOf(op.Operands[0].Type)[1]
	if M < 16 || N < 8 || K < 16 || K%16 != 0 {
		g.failf("dot shape %dx%dx%d: mma.sync needs M >= 16, N >= 8, K a multiple of 16", M, N, K)
	}
	wm, wn := mma.WarpsPerCTA[0], mma.WarpsPerCTA[1]
	mStep, nStep := 16*wm, 8*wn
	mReps, nReps := max(1, M/mStep), max(1, N/nStep)
	out := &tval{ll: g.layoutOf(res.Type), regs: make([]value.Value, len(c.regs))}
	for r, v := range c.regs {
		out.regs[r] = g.toCompute(v, dc)
	}
	asm := g.md.inlineAsm(types.NewStruct(types.Float, types.Float, types.Float, types.Float),
		[]types.Type{types.I32, types.I32, types.I32, types.I32, types.I32, types.I32, types.Float, types.Float, types.Float, types.Float},
		fmt.Sprintf("mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", ty, ty),
		"=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", false)
	reg := func(t *tval, c0, c1 int) int { return g.fragReg(t, c0, c1) }
	for k := 0; k < K; k += 16 {
		for mi := 0; mi < mReps; mi++ {
			m := mi * mStep
			af := []value.Value{
				g.pair(a, reg(a, m, k)), g.pair(a, reg(a, m+8, k)),
				g.pair(a, reg(a, m, k+8)), g.pair(a, reg(a, m+8, k+8)),
			}
			for ni := 0; ni < nReps; ni++ {
				n := ni * nStep
				bf := []value.Value{g.pair(b, reg(b, k, n)), g.pair(b, reg(b, k+8, n))}
				cr := []int{reg(out, m, n), reg(out, m, n+1), reg(out, m+8, n), reg(out, m+8, n+1)}
				args := append(append(af, bf...), out.regs[cr[0]], out.regs[cr[1]], out.regs[cr[2]], out.regs[cr[3]])
				call := g.cur.NewCall(asm, args...)
				for i, r := range cr {
					out.regs[r] = g.cur.NewExtractValue(call, uint64(i))
				}
			}
		}
	}
	for r, v := range out.regs {
		out.regs[r] = g.fromCompute(v, dc)
	}
	g.set(res, out)
}

// dotTF32 lowers a dot of f32 tiles to mma.sync.m16n8k8 tf32 with f32
// accumulation: each operand register is converted once with
// cvt.rna.tf32.f32 (round to nearest, ties away from zero: what the
// interpreter does with floats.RoundTF32), then, for each 16x8 accumulator
// tile of the warp and each k8 step, one mma on the fragments of the
// KWidth-1 dot-operand layouts (gpu.DotKWidth).
func (g *gen) dotTF32(op *ir.Op, a, b, c *tval, mma *gpu.MMA) {
	res := op.Results[0]
	rt := res.Type.(*ir.Tile)
	if dc := ir.ElemDType(op.Operands[2].Type); dc != ir.F32 {
		g.failf("tf32 dot accumulates in f32, not %s", dc)
	}
	M, N := rt.Shape[0], rt.Shape[1]
	K := ir.ShapeOf(op.Operands[0].Type)[1]
	if M < 16 || N < 8 || K < 8 || K%8 != 0 {
		g.failf("tf32 dot shape %dx%dx%d: mma.sync needs M >= 16, N >= 8, K a multiple of 8", M, N, K)
	}
	for _, t := range []*tval{a, b} {
		if t.ll == nil || len(t.regs) != t.ll.NumRegs() {
			g.failf("tf32 dot operand is not a register tile in a dot-operand layout")
		}
	}
	wm, wn := mma.WarpsPerCTA[0], mma.WarpsPerCTA[1]
	mStep, nStep := 16*wm, 8*wn
	mReps, nReps := max(1, M/mStep), max(1, N/nStep)
	out := &tval{ll: g.layoutOf(res.Type), regs: append([]value.Value(nil), c.regs...)}
	cvt := g.md.inlineAsm(types.I32, []types.Type{types.Float}, "cvt.rna.tf32.f32 $0, $1;", "=r,f", false)
	asm := g.md.inlineAsm(types.NewStruct(types.Float, types.Float, types.Float, types.Float),
		[]types.Type{types.I32, types.I32, types.I32, types.I32, types.I32, types.I32, types.Float, types.Float, types.Float, types.Float},
		"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
		"=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", false)
	tf32 := map[*tval]map[int]value.Value{a: {}, b: {}}
	frag := func(t *tval, c0, c1 int) value.Value {
		r := g.fragReg(t, c0, c1)
		v, ok := tf32[t][r]
		if !ok {
			v = g.cur.NewCall(cvt, t.regs[r])
			tf32[t][r] = v
		}
		return v
	}
	reg := func(c0, c1 int) int { return g.fragReg(out, c0, c1) }
	for k := 0; k < K; k += 8 {
		for mi := 0; mi < mReps; mi++ {
			m := mi * mStep
			af := []value.Value{frag(a, m, k), frag(a, m+8, k), frag(a, m, k+4), frag(a, m+8, k+4)}
			for ni := 0; ni < nReps; ni++ {
				n := ni * nStep
				cr := []int{reg(m, n), reg(m, n+1), reg(m+8, n), reg(m+8, n+1)}
				args := append(append(append([]value.Value(nil), af...), frag(b, k, n), frag(b, k+4, n)),
					out.regs[cr[0]], out.regs[cr[1]], out.regs[cr[2]], out.regs[cr[3]])
				call := g.cur.NewCall(asm, args...)
				for i, r := range cr {
					out.regs[r] = g.cur.NewExtractValue(call, uint64(i))
				}
			}
		}
	}
	g.set(res, out)
}

// warpBase returns, per dimension, the coordinate a warp's id contributes in
// ll (lanes excluded).
func (g *gen) warpBase(ll *gpu.LinearLayout) []value.Value {
	out := make([]value.Value, len(ll.Shape))
	g.atEntry(func() {
		for d := range ll.Shape {
			var acc value.Value = i32c(0)
			for k, b := range ll.Warp {
				if b[d] != 0 {
					acc = g.or(acc, g.shl(g.and(g.lshr(g.warp, i32c(int64(k))), i32c(1)), i32c(int64(log2(b[d])))))
				}
			}
			out[d] = acc
		}
	})
	return out
}

// ldmatrix loads a 16-bit dot operand from a shared buffer with
// ldmatrix.x4 (.trans when the buffer's contiguous dimension is not K for A
// / is N for B). It returns nil when the buffer's layout does not allow it.
//
// With lazy set, the ldmatrix are emitted where the dot first needs their
// registers (interleaved with the mma of each k step); the caller
// guarantees nothing writes the buffer in between.
func (g *gen) ldmatrix(ref *memRef, dl *gpu.DotOperand, shape []int, lazy bool) *tval {
	md := ref.desc
	sh := sharedLayoutOf(md)
	if len(md.Shape) != 2 || !(sh.Vec >= 8 || sh.MaxPhase == 1) || md.Shape[sh.Order[0]]*2%16 != 0 {
		return nil
	}
	ll := gpu.MustLinear(dl, shape)
	wm, wn := dl.Parent.WarpsPerCTA[0], dl.Parent.WarpsPerCTA[1]
	contig := sh.Order[0]
	wb := g.warpBase(ll)
	rr := refRange(ref)
	g.beforeSharedReadR(rr)
	out := &tval{ll: ll, regs: make([]value.Value, ll.NumRegs()), pairs: map[int]value.Value{}}
	var lanePart [2]value.Value
	var trans bool
	var step [2]int // coordinate offset of matrices 2,3 (A: k+8; B: n+nStep)
	g.atEntry(func() {
		l := g.lane
		lo8 := g.and(l, i32c(7))
		bit3 := g.shl(g.and(g.lshr(l, i32c(3)), i32c(1)), i32c(3)) // 8*((l>>3)&1)
		hi := g.lshr(l, i32c(4))                                   // matrix pair index (l>>4)
		if dl.OpIdx == 0 {
			// matrices: i%2 -> m+8, i/2 -> k+8
			trans = contig == 0
			if !trans {
				lanePart = [2]value.Value{g.and(l, i32c(15)), g.shl(hi, i32c(3))}
			} else {
				lanePart = [2]value.Value{bit3, g.or(g.shl(hi, i32c(3)), lo8)}
			}
		} else {
			// matrices: i%2 -> k+8, i/2 -> next n tile (n + 8*wn)
			trans = contig == 1
			nOff := g.mul(hi, i32c(int64(8*wn)))
			if trans {
				lanePart = [2]value.Value{g.and(l, i32c(15)), nOff}
			} else {
				lanePart = [2]value.Value{bit3, g.add(nOff, lo8)}
			}
		}
		for d := 0; d < 2; d++ {
			lanePart[d] = g.add(lanePart[d], wb[d])
		}
	})
	_ = step
	ld := func(c0, c1 int, x4 bool) []value.Value {
		p := g.sharedAddr32(ref, func() value.Value {
			return g.sharedIndex(md, []value.Value{g.add(lanePart[0], i32c(int64(c0))), g.add(lanePart[1], i32c(int64(c1)))})
		}, 2)
		n := 2
		if x4 {
			n = 4
		}
		tr := ""
		if trans {
			tr = ".trans"
		}
		regs, outs := "", ""
		fs := make([]types.Type, n)
		for i := 0; i < n; i++ {
			if i > 0 {
				regs += ", "
				outs += ","
			}
			regs += fmt.Sprintf("$%d", i)
			outs += "=r"
			fs[i] = types.I32
		}
		asm := g.md.inlineAsm(types.NewStruct(fs...), []types.Type{p.Type()},
			fmt.Sprintf("ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {%s}, [$%d];", n, tr, regs, n), outs+",r,~{memory}", true)
		call := g.cur.NewCall(asm, p)
		res := make([]value.Value, n)
		for i := range res {
			res[i] = g.cur.NewExtractValue(call, uint64(i))
		}
		return res
	}
	setPair := func(c0, c1 int, v value.Value) {
		r := g.regAt(ll, []int{c0, c1})
		if r < 0 || r%2 != 0 {
			g.failf("dot operand layout: no register pair at (%d, %d)", c0, c1)
		}
		out.pairs[r] = v
		out.regs[r] = g.cur.NewTrunc(v, types.I16)
		out.regs[r+1] = g.cur.NewTrunc(g.cur.NewLShr(v, i32c(16)), types.I16)
	}
	// group emits one ldmatrix at (c0, c1) filling the register pairs at
	// the given coordinates
	group := func(c0, c1 int, x4 bool, at [][2]int) {
		emit := func() {
			d := ld(c0, c1, x4)
			for i, c := range at {
				setPair(c[0], c[1], d[i])
			}
		}
		if !lazy {
			emit()
			return
		}
		th := once(func() {
			g.readingShared(rr)
			emit()
		})
		if out.lazy == nil {
			out.lazy = map[int]func(){}
		}
		for _, c := range at {
			if r := g.regAt(ll, []int{c[0], c[1]}); r >= 0 {
				out.lazy[r] = th
			}
		}
	}
	if dl.OpIdx == 0 {
		M, K := shape[0], shape[1]
		for m := 0; m < max(1, M/(16*wm)); m++ {
			for k := 0; k < K; k += 16 {
				mo := m * 16 * wm
				group(mo, k, true, [][2]int{{mo, k}, {mo + 8, k}, {mo, k + 8}, {mo + 8, k + 8}})
			}
		}
	} else {
		K, N := shape[0], shape[1]
		nReps := max(1, N/(8*wn))
		for k := 0; k < K; k += 16 {
			for n := 0; n < nReps; n += 2 {
				no := n * 8 * wn
				if n+1 < nReps {
					group(k, no, true, [][2]int{{k, no}, {k + 8, no}, {k, no + 8*wn}, {k + 8, no + 8*wn}})
				} else {
					group(k, no, false, [][2]int{{k, no}, {k + 8, no}})
				}
			}
		}
	}
	for r, v := range out.regs {
		if _, pending := out.lazy[r&^1]; v == nil && !pending {
			g.failf("ldmatrix left register %d of the dot operand unset", r)
		}
	}
	return out
}

// fragReg is the register of t that holds element (c0, c1) of an
// mma.sync fragment; a layout without it is an internal error.
func (g *gen) fragReg(t *tval, c0, c1 int) int {
	r := g.regAt(t.ll, []int{c0, c1})
	if r < 0 {
		g.failf("operand layout %v lacks element (%d, %d) of the fragment", t.ll, c0, c1)
	}
	return r
}

package passes

import (
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// DotToWgmma turns the dots of f that Hopper's warpgroup MMA can run into
// wgmma on shared-memory operands and returns how many it turned: a and b
// are stored into buffers (alloc, given the wgmma swizzle by the layout
// pass), read by wgmma, and a wgmma_wait(0) follows, so that the product
// is complete where the dot's result was. The cp.async pipeliner then
// streams such buffers like the ones it stages for mma.sync.
//
// A dot qualifies when f has no warp roles, its warps are a multiple of 4
// (whole warpgroups), a and b are bf16, f16 or f32 tiles loaded from global
// memory (mma.sync would stage those through shared memory too), of one
// dtype, M is a
// multiple of 64, N a multiple of 8 up to 256, K a multiple of 16 (8 for
// f32), and the row-major buffers fit a wgmma swizzle (rows of 32, 64 or
// 128 bytes, or a multiple of 128). An f32 dot runs as tf32 wgmma, which
// reads only K-major operands: b's buffer is K-major ([K, N] with K
// contiguous), and both buffers round the values to tf32 as they are stored
// (gpu.AttrRoundTF32: the products are the interpreter's), so they are
// filled from registers, not by cp.async. The others stay dots (mma.sync). A dot whose a is
// computed in registers (a chained product's accumulator) could run as
// wgmma with a in registers (the RS form the backend has), but its b must
// then be staged in shared memory each time and every product waited for:
// on the H200 that made the KDA recurrence (BV = 64) 1.6x slower than
// mma.sync (docs/perf.md, run 11), so such dots stay on mma.sync.
func DotToWgmma(f *ir.Func, numWarps int) int {
	if nw := f.Attrs.Int(gpu.AttrNumWarps, 0); nw > 0 {
		numWarps = int(nw)
	}
	if numWarps <= 0 || numWarps%4 != 0 || gpu.SpecializedWarps(f) > 0 {
		return 0
	}
	var dots []*ir.Op
	f.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpDot && wgmmaShapesOK(op) {
			dots = append(dots, op)
		}
	})
	for _, op := range dots {
		tf32 := ir.ElemDType(op.Operands[0].Type) == ir.F32
		stage := func(v *ir.Value, order []int) *ir.Value {
			t := layTileOf(v)
			md := &ir.MemDesc{Shape: append([]int(nil), t.Shape...), Elem: ir.ElemDType(t.Elem), Order: order, Space: ir.Shared}
			attrs := ir.Attrs{gpu.AttrOrderFromInit: true}
			if tf32 {
				// K-major, whatever order the tile arrives in, and
				// rounded to tf32 as it is stored
				attrs = ir.Attrs{gpu.AttrRoundTF32: true}
			}
			a := &ir.Op{Kind: ir.OpAlloc, Operands: []*ir.Value{v}, Attrs: attrs, Pos: op.Pos}
			a.Results = []*ir.Value{f.NewValue(md, "", a, nil, 0)}
			layInsertBefore(op, a)
			return a.Results[0]
		}
		sa, sb := stage(op.Operands[0], ir.RowMajor(2)), stage(op.Operands[1], wgmmaOrderB(tf32))
		w := &ir.Op{Kind: ir.OpWgmma, Operands: []*ir.Value{sa, sb, op.Operands[2]},
			Attrs: ir.Attrs{"trans_a": false, "trans_b": false}, Pos: op.Pos}
		w.Results = []*ir.Value{f.NewValue(op.Results[0].Type, op.Results[0].Name, w, nil, 0)}
		layInsertBefore(op, w)
		wait := &ir.Op{Kind: ir.OpWgmmaWait, Attrs: ir.Attrs{"pending": int64(0)}, Pos: op.Pos}
		layInsertBefore(op, wait)
		f.ReplaceAllUses(op.Results[0], w.Results[0])
		op.Remove()
	}
	return len(dots)
}

// wgmmaShapesOK reports whether dot op has operands and shapes wgmma runs
// from row-major shared buffers (see DotToWgmma).
func wgmmaShapesOK(op *ir.Op) bool {
	a, b, c := op.Operands[0], op.Operands[1], op.Operands[2]
	if !layIsTile(a) || !layIsTile(b) || !layIsTile(c) {
		return false
	}
	if !loadedFromGlobal(a) || !loadedFromGlobal(b) {
		return false
	}
	da, db := ir.ElemDType(a.Type), ir.ElemDType(b.Type)
	if da != db || (da != ir.BF16 && da != ir.F16 && da != ir.F32) || ir.ElemDType(c.Type) != ir.F32 {
		return false
	}
	tf32 := da == ir.F32
	as, bs := layTileOf(a).Shape, layTileOf(b).Shape
	if len(as) != 2 || len(bs) != 2 {
		return false
	}
	m, k, n := as[0], as[1], bs[1]
	kStep := 16
	if tf32 {
		kStep = 8
	}
	if m%64 != 0 || k%kStep != 0 || n%8 != 0 || n > 256 || bs[0] != k {
		return false
	}
	if _, err := gpu.WgmmaSharedLayout(as, da.Bytes(), []int{1, 0}); err != nil {
		return false
	}
	_, err := gpu.WgmmaSharedLayout(bs, da.Bytes(), wgmmaOrderB(tf32))
	return err == nil
}

// wgmmaOrderB is the order of b's staging buffer [K, N]: row-major (N
// contiguous, MN-major; the tile's own order when it fits, AttrOrderFromInit),
// or for tf32, whose wgmma reads only K-major operands, K contiguous.
func wgmmaOrderB(tf32 bool) []int {
	if tf32 {
		return []int{0, 1}
	}
	return ir.RowMajor(2)
}

// loadedFromGlobal reports whether tile v is the result of a global load.
func loadedFromGlobal(v *ir.Value) bool {
	return v.Def != nil && v.Def.Kind == ir.OpLoad
}

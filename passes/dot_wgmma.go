package passes

import (
	"slices"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// DotToWgmma turns the dots of f that Hopper's warpgroup MMA can run into
// wgmma and returns how many it turned. An operand loaded from global
// memory is stored into a buffer (alloc, given the wgmma swizzle by the
// layout pass) that wgmma reads; a wgmma_wait(0) follows, so that the
// product is complete where the dot's result was. The cp.async pipeliner
// then streams such buffers like the ones it stages for mma.sync.
//
// A dot qualifies when f has no warp roles, its warps are a multiple of 4
// (whole warpgroups), its operands are bf16 or f16 of one dtype, M is a
// multiple of 64, N a multiple of 8 up to 256, K a multiple of 16, and:
//   - b is a tile loaded from global memory, [K, N], or the transpose of
//     one loaded [N, K] (b.T of a loaded tile, as attention's s := dot(q,
//     k.T)): staged as loaded, with trans_b for the transposed form (wgmma
//     reads a K-major b, no data moves);
//   - a is likewise loaded ([M, K], or [K, M] transposed: trans_a), or is
//     computed in registers (a chained product's P) and N is at least 64:
//     wgmma's register-A form reads it from registers with no staging;
//   - the buffers fit a wgmma swizzle (rows of 32, 64 or 128 bytes, or a
//     multiple of 128).
//
// An f32 dot (both operands loaded, untransposed; K a multiple of 8) runs
// as tf32 wgmma, which reads only K-major operands: b's buffer is K-major
// ([K, N] with K contiguous), and both buffers round the values to tf32 as
// they are stored (gpu.AttrRoundTF32: the products are the interpreter's),
// so they are filled from registers, not by cp.async.
//
// A loaded operand defined outside the dot's block (a loop-invariant q
// tile) is staged once, right after its load, not in every iteration, and
// the one buffer serves every dot that reads it (attention's two loops).
// A dot whose b is computed in registers stays on mma.sync: b would be
// staged in shared memory each time and every product waited for; on the
// H200 that made the KDA recurrence (BV = 64) slower than on mma.sync
// (docs/perf-log.md). So do register-A products narrower than 64 (the
// recurrence's N = 16 and 32): each is waited for, and at small N the wait
// costs more than the instruction saves; attention's are 64 to 256 wide.
func DotToWgmma(f *ir.Func, numWarps int) int {
	if nw := f.Attrs.Int(gpu.AttrNumWarps, 0); nw > 0 {
		numWarps = int(nw)
	}
	if numWarps <= 0 || numWarps%4 != 0 || gpu.SpecializedWarps(f) > 0 {
		return 0
	}
	type plan struct {
		op   *ir.Op
		a, b wgmmaOperand
		regA bool
	}
	var plans []plan
	f.Walk(func(op *ir.Op) {
		if op.Kind != ir.OpDot {
			return
		}
		a, aok := wgmmaSource(op.Operands[0])
		b, bok := wgmmaSource(op.Operands[1])
		if !bok {
			return
		}
		regA := !aok
		if regA && !layIsTile(op.Operands[0]) {
			return
		}
		if wgmmaShapesOK(op, a, b, regA) {
			plans = append(plans, plan{op: op, a: a, b: b, regA: regA})
		}
	})
	hoisted := map[*ir.Value]*ir.Value{} // loop-invariant tiles staged once, for every dot reading them
	var waits [][2]*ir.Op                // each wgmma and the wgmma_wait(0) after it
	for _, pl := range plans {
		op := pl.op
		tf32 := ir.ElemDType(op.Operands[0].Type) == ir.F32
		stage := func(v *ir.Value, order []int) *ir.Value {
			if buf := hoisted[v]; buf != nil && !tf32 {
				return buf // (a tf32 buffer's order depends on the operand)
			}
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
			if v.Def.Parent != op.Parent {
				layInsertAfter(v.Def, a) // loop-invariant: staged once
				hoisted[v] = a.Results[0]
			} else {
				layInsertBefore(op, a)
			}
			return a.Results[0]
		}
		sa := op.Operands[0]
		if !pl.regA {
			sa = stage(pl.a.tile, ir.RowMajor(2))
		}
		sb := stage(pl.b.tile, wgmmaOrderB(tf32))
		w := &ir.Op{Kind: ir.OpWgmma, Operands: []*ir.Value{sa, sb, op.Operands[2]},
			Attrs: ir.Attrs{"trans_a": pl.a.trans, "trans_b": pl.b.trans}, Pos: op.Pos}
		w.Results = []*ir.Value{f.NewValue(op.Results[0].Type, op.Results[0].Name, w, nil, 0)}
		layInsertBefore(op, w)
		wait := &ir.Op{Kind: ir.OpWgmmaWait, Attrs: ir.Attrs{"pending": int64(0)}, Pos: op.Pos}
		layInsertBefore(op, wait)
		f.ReplaceAllUses(op.Results[0], w.Results[0])
		op.Remove()
		waits = append(waits, [2]*ir.Op{w, wait})
	}
	deferLoopWaits(f, waits)
	return len(plans)
}

// deferLoopWaits lets a loop's accumulating product run past the end of
// its iteration, as matmul_tma's LAG does by hand: for a wgmma w whose
// result only the loop carries (acc = wgmma(.., acc) in an online
// softmax's P V), the wgmma_wait(0) after it goes when another
// wgmma_wait(0) at the top of the body (the q k^T product's) precedes every
// use of the carried value and every store into w's staged buffers: that
// wait completes w of the previous iteration, and the product overlaps the
// next iteration's loads, barrier and first product's issue instead of
// stalling the warps. One wgmma_wait(0) after the loop completes the last
// iteration's.
func deferLoopWaits(f *ir.Func, waits [][2]*ir.Op) {
	drained := map[*ir.Op]*ir.Op{} // loop -> the wgmma_wait(0) after it
	for _, ww := range waits {
		w, wait := ww[0], ww[1]
		body := w.Parent
		loop := body.Parent
		if loop == nil || loop.Kind != ir.OpFor || wait.Parent != body {
			continue
		}
		carried := loopCarriedOnly(f, body, w.Results[0])
		if carried == nil {
			continue
		}
		// the earliest point that must be after an earlier wait: the
		// first use of the carried value, and the stores staging w's
		// operands in the body
		first := len(body.Ops)
		for i, o := range body.Ops {
			if usesValue(o, carried) {
				first = min(first, i)
			}
		}
		for _, v := range w.Operands[:2] {
			if v.Def != nil && v.Def.Kind == ir.OpAlloc && v.Def.Parent == body {
				first = min(first, body.IndexOf(v.Def))
			}
		}
		var earlier *ir.Op
		for _, o := range body.Ops[:first] {
			if o != wait && o.Kind == ir.OpWgmmaWait && o.Attrs.Int("pending", 0) == 0 && body.IndexOf(o) < body.IndexOf(w) {
				earlier = o
			}
		}
		if earlier == nil {
			continue
		}
		wait.Remove()
		// the waits that now complete w thread its registers: the
		// earlier one the carried value, one after the loop its result
		threadThrough(f, earlier, carried)
		out := &ir.Op{Kind: ir.OpWgmmaWait, Attrs: ir.Attrs{"pending": int64(0)}, Pos: w.Pos}
		if drained[loop] != nil {
			out = drained[loop]
		} else {
			drained[loop] = out
			layInsertAfter(loop, out)
		}
		threadThrough(f, out, loop.Results[carried.Index-1])
	}
}

// threadThrough makes wait a use of v with a result that every later use
// of v reads instead (wgmma_wait's operands and results: the backend ties
// the registers of a product in flight through the wait, so that nothing
// reads them before it).
func threadThrough(f *ir.Func, wait *ir.Op, v *ir.Value) {
	r := f.NewValue(v.Type, v.Name, wait, nil, len(wait.Results))
	f.ReplaceAllUses(v, r)
	wait.Operands = append(wait.Operands, v)
	wait.Results = append(wait.Results, r)
}

// loopCarriedOnly is the block argument of body that carries r to the next
// iteration when the body's yield is r's only use, else nil.
func loopCarriedOnly(f *ir.Func, body *ir.Block, r *ir.Value) *ir.Value {
	y := body.Terminator()
	k := -1
	uses := 0
	f.Walk(func(o *ir.Op) {
		for i, v := range o.Operands {
			if v == r {
				uses++
				if o == y {
					k = i
				}
			}
		}
	})
	if uses != 1 || k < 0 {
		return nil
	}
	return body.Args[1+k]
}

// usesValue reports whether op or an op nested in it reads v.
func usesValue(op *ir.Op, v *ir.Value) bool {
	found := false
	var visit func(o *ir.Op)
	visit = func(o *ir.Op) {
		if slices.Contains(o.Operands, v) {
			found = true
		}
		for _, r := range o.Regions {
			for _, n := range r.Ops {
				visit(n)
			}
		}
	}
	visit(op)
	return found
}

// wgmmaOperand is a dot operand wgmma can read from a staged buffer: the
// loaded tile to stage, and whether the dot reads its transpose.
type wgmmaOperand struct {
	tile  *ir.Value
	trans bool
}

// wgmmaSource is v as a staged wgmma operand: v itself when it is a 2-D
// tile loaded from global memory, the loaded tile when v is its transpose
// (trans with perm [1, 0]); ok is false otherwise.
func wgmmaSource(v *ir.Value) (wgmmaOperand, bool) {
	if loadedFromGlobal(v) {
		return wgmmaOperand{tile: v}, true
	}
	if v.Def != nil && v.Def.Kind == ir.OpTrans && loadedFromGlobal(v.Def.Operands[0]) {
		if p := v.Def.Attrs.Ints("perm"); len(p) != 2 || p[0] != 1 || p[1] != 0 {
			return wgmmaOperand{}, false
		}
		return wgmmaOperand{tile: v.Def.Operands[0], trans: true}, true
	}
	return wgmmaOperand{}, false
}

// wgmmaShapesOK reports whether dot op, with operands staged as a and b
// (a in registers when regA), has the dtypes and shapes wgmma runs (see
// DotToWgmma).
func wgmmaShapesOK(op *ir.Op, a, b wgmmaOperand, regA bool) bool {
	c := op.Operands[2]
	if !layIsTile(c) || ir.ElemDType(c.Type) != ir.F32 {
		return false
	}
	da, db := ir.ElemDType(op.Operands[0].Type), ir.ElemDType(op.Operands[1].Type)
	tf32 := da == ir.F32 && !regA && !a.trans && !b.trans
	if da != db || (da != ir.BF16 && da != ir.F16 && !tf32) {
		return false
	}
	as, bs := layTileOf(op.Operands[0]).Shape, layTileOf(op.Operands[1]).Shape // the dot's [M, K] and [K, N]
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
	if regA && n < 64 {
		return false // see DotToWgmma: small register-A products stay on mma.sync
	}
	if !regA {
		if _, err := gpu.WgmmaSharedLayout(layTileOf(a.tile).Shape, da.Bytes(), []int{1, 0}); err != nil {
			return false
		}
	}
	_, err := gpu.WgmmaSharedLayout(layTileOf(b.tile).Shape, da.Bytes(), wgmmaOrderB(tf32))
	return err == nil
}

// wgmmaOrderB is the order of b's staging buffer: row-major (the tile's
// own order when it fits, AttrOrderFromInit), or for tf32, whose wgmma
// reads only K-major operands, K contiguous in b's [K, N].
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

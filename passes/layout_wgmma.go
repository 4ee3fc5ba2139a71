package passes

import (
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// Layouts for wgmma (warpgroup MMA, sm_90a).
//
//   - The accumulator (operand acc and the result) is MMAv3{[numWarps, 1]}:
//     one warpgroup per 64 rows of M. With more warps than 64-row blocks
//     (8 warps, M = 64) the extra warpgroups hold copies and compute them too;
//     with fewer (4 warps, M = 128) each warpgroup loops over its 64-row
//     blocks (registers j*N/2 ... of block j).
//   - Operands in shared memory are read through matrix descriptors, which
//     describe a buffer whose contiguous dimension is exactly one swizzle
//     span: 128, 64 or 32 bytes (64, 32 or 16 bf16 elements), swizzled with
//     the matching 128B / 64B / 32B pattern. The buffer a wgmma operand
//     comes from (its alloc, through slot / transpose views) gets that
//     layout here (WgmmaSharedLayout), so that every store into it (store,
//     local_ptr, cp.async, TMA) writes the swizzled address; AllocateShared
//     aligns it to WgmmaAlign bytes, so that the XOR pattern of the layout is
//     the hardware's (which swizzles address bits, not buffer offsets).
//   - A register operand a is stored into such a buffer right before the
//     wgmma (stageWgmmaA).
//   - An 8-bit a loaded straight from a shared view contiguous along M
//     (wgmma(load(v.T), ...), FP8 attention's V^T from the V stage) is read
//     into registers with ldmatrix.trans and byte permutes, no store back:
//     a and the accumulator get the row-paired layouts (DotOperand and
//     MMAv3 with PairRows, pairedLoad), in which a thread's two rows r
//     and r+8 of the fragment are the two adjacent rows that a 16-bit
//     piece of ldmatrix.trans holds; the view's buffer gets the wgmma
//     swizzle (pairedSharedLayouts) so that ldmatrix's rows fall in
//     different banks.

// wgmmaAcc is the accumulator layout of a wgmma at op.
func (s *assigner) wgmmaAcc(op *ir.Op) ir.Layout {
	nw := s.nwAt(op)
	if nw < 4 || nw%4 != 0 {
		s.fail(op, "wgmma runs on whole warpgroups: it needs a multiple of 4 warps, the code here has %d", nw)
	}
	return &gpu.MMAv3{WarpsPerCTA: []int{nw, 1}, PairRows: s.pairedLoad(op) != nil}
}

// pairedLoad is the local_load (used by op only) of a 2-D shared view
// contiguous along M from which the wgmma op reads its 8-bit register a,
// or nil: when there is one, a and the accumulator are laid out in row
// pairs.
func (s *assigner) pairedLoad(op *ir.Op) *ir.Op {
	if op.Kind != ir.OpWgmma || op.Attrs.Bool("trans_a") || !layIsTile(op.Operands[0]) {
		return nil
	}
	a := op.Operands[0]
	ld := a.Def
	if ld == nil || ld.Kind != ir.OpLocalLoad || ir.ElemDType(a.Type).Bits() != 8 || len(s.users[a]) != 1 {
		return nil
	}
	src, ok := ld.Operands[0].Type.(*ir.MemDesc)
	if !ok || len(src.Shape) != 2 || viewContig(src) != 0 || src.Shape[0]%64 != 0 || src.Shape[1]%32 != 0 {
		return nil
	}
	return ld
}

// wgmmaRegA is the register layout of wgmma's operand a when it comes from
// registers (the RS form: 16-bit or 8-bit a, not transposed), or nil when a
// must be staged in shared memory. Per warp and k16 step wgmma reads the
// fragment mma.sync.m16n8k16 reads (8-bit: per k32 step, that fragment
// with each element pair widened to four), and warp w of the warpgroups holds rows 16w of
// each 64-row block as in the accumulator's MMAv3: the dot-operand layout
// of an mma accumulator with all warps along M.
func (s *assigner) wgmmaRegA(op *ir.Op) ir.Layout {
	a := op.Operands[0]
	if !layIsTile(a) || op.Attrs.Bool("trans_a") {
		return nil
	}
	kw := 2
	switch ir.ElemDType(a.Type) {
	case ir.BF16, ir.F16:
	case ir.F8E4M3, ir.F8E5M2:
		kw = 4
	default:
		return nil
	}
	acc, ok := s.wgmmaAcc(op).(*gpu.MMAv3)
	if !ok {
		return nil
	}
	return &gpu.DotOperand{OpIdx: 0, Parent: &gpu.MMA{WarpsPerCTA: acc.WarpsPerCTA}, KWidth: kw, PairRows: acc.PairRows}
}

// stageWgmmaA stores wgmma's register operand a into a shared buffer (laid
// out by wgmmaSharedLayouts) right before the wgmma, which reads it from
// there.
func (s *assigner) stageWgmmaA(op *ir.Op) {
	v := op.Operands[0]
	t := layTileOf(v)
	md := &ir.MemDesc{Shape: append([]int(nil), t.Shape...), Elem: ir.ElemDType(t.Elem), Order: ir.RowMajor(len(t.Shape)), Space: ir.Shared}
	alloc := &ir.Op{Kind: ir.OpAlloc, Operands: []*ir.Value{v}, Attrs: ir.Attrs{}, Pos: op.Pos}
	alloc.Results = []*ir.Value{s.f.NewValue(md, "", alloc, nil, 0)}
	layInsertBefore(op, alloc)
	op.Operands[0] = alloc.Results[0]
	s.users[v] = append(s.users[v], alloc)
	s.users[alloc.Results[0]] = append(s.users[alloc.Results[0]], op)
}

// isSmemView reports whether k makes a view of its operand 0's buffer
// (slot, transpose, reshape).
func isSmemView(k ir.Kind) bool {
	return k == ir.OpMemIndex || k == ir.OpMemTrans || k == ir.OpMemReshape
}

// wgmmaRoot follows a memdesc through slot, transpose and reshape views to
// the value it views.
func wgmmaRoot(v *ir.Value) *ir.Value {
	for v.Def != nil && isSmemView(v.Def.Kind) {
		v = v.Def.Operands[0]
	}
	return v
}

// viaReshape reports whether the view v is reached from its root through a
// memdesc_reshape.
func viaReshape(v *ir.Value) bool {
	for ; v.Def != nil && isSmemView(v.Def.Kind); v = v.Def.Operands[0] {
		if v.Def.Kind == ir.OpMemReshape {
			return true
		}
	}
	return false
}

// wgmmaWish is the shared layout of the root of the view v (a wgmma
// operand) under which v itself has the wgmma layout of its own shape
// (gpu.WgmmaSharedLayout): that wish carried back through the views, a
// slot adding the leading dimension, a transpose permuting the order back,
// a reshape giving the same bytes the source's shape (gpu.ReshapeShared;
// an error when no swizzle of the source describes them).
func wgmmaWish(v *ir.Value) (*gpu.Shared, error) {
	md := v.Type.(*ir.MemDesc)
	order := md.Order
	if len(order) == 0 {
		order = ir.RowMajor(len(md.Shape))
	}
	sh, err := gpu.WgmmaSharedLayout(md.Shape, md.Elem.Bytes(), order)
	if err != nil {
		return nil, err
	}
	for v.Def != nil && isSmemView(v.Def.Kind) {
		view := v.Type.(*ir.MemDesc)
		src, ok := v.Def.Operands[0].Type.(*ir.MemDesc)
		if !ok {
			break
		}
		n := *sh
		switch v.Def.Kind {
		case ir.OpMemTrans:
			perm := v.Def.Attrs.Ints("perm")
			n.Order = make([]int, len(sh.Order))
			for i, d := range sh.Order {
				n.Order[i] = perm[d]
			}
		case ir.OpMemIndex:
			n.Order = nil
			for _, d := range sh.Order {
				n.Order = append(n.Order, d+1)
			}
			n.Order = append(n.Order, 0)
		case ir.OpMemReshape:
			r, err := gpu.ReshapeShared(sh, view.Shape, src.Shape)
			if err != nil {
				return nil, err
			}
			n = *r
		}
		sh = &n
		v = v.Def.Operands[0]
	}
	return sh, nil
}

// wgmmaSharedLayouts gives the buffers wgmma operands come from the wgmma
// swizzle (before sharedLayouts derives their views' layouts).
func (s *assigner) wgmmaSharedLayouts() {
	s.f.Walk(func(op *ir.Op) {
		if op.Kind != ir.OpWgmma {
			return
		}
		for j := 0; j < 2; j++ {
			if _, ok := op.Operands[j].Type.(*ir.MemDesc); !ok {
				continue
			}
			root := wgmmaRoot(op.Operands[j])
			md, ok := root.Type.(*ir.MemDesc)
			if !ok || md.Layout != nil || root.Def == nil || root.Def.Kind != ir.OpAlloc {
				continue // laid out elsewhere; the backend checks it fits
			}
			if viaReshape(op.Operands[j]) {
				// the wgmma reads a reshaped view (consecutive slots as one
				// operand): the buffer gets the layout under which that view
				// has the wgmma swizzle of its own shape
				sh, err := wgmmaWish(op.Operands[j])
				if err != nil {
					s.fail(op, "operand %c (a reshaped shared-memory view): %v", "ab"[j], err)
				}
				c := *md
				c.Layout, c.Order = sh, append([]int(nil), sh.Order...)
				root.Type = &c
				continue
			}
			order := md.Order
			if len(order) == 0 {
				order = ir.RowMajor(len(md.Shape))
			}
			if root.Def.Attrs.Bool(gpu.AttrOrderFromInit) && len(root.Def.Operands) > 0 {
				// a staged tile keeps the order it arrives in (a
				// transposed load stays contiguous along its fast
				// dimension, so cp.async can fill the buffer)
				if b, ok := s.current(root.Def.Operands[0]).(*gpu.Blocked); ok {
					if _, err := gpu.WgmmaSharedLayout(md.Shape, md.Elem.Bytes(), b.Order); err == nil {
						order = append([]int(nil), b.Order...)
					}
				}
			}
			sh, err := gpu.WgmmaSharedLayout(md.Shape, md.Elem.Bytes(), order)
			if err != nil {
				s.fail(op, "operand %c: %v", "ab"[j], err)
			}
			c := *md
			c.Layout, c.Order = sh, order
			root.Type = &c
		}
	})
}

// wgmmaReads reports whether the buffer allocated by alloc (followed
// through its views) is read by a wgmma.
func wgmmaReads(alloc *ir.Op, users map[*ir.Value][]*ir.Op) bool {
	seen := map[*ir.Value]bool{}
	var visit func(v *ir.Value) bool
	visit = func(v *ir.Value) bool {
		if seen[v] {
			return false
		}
		seen[v] = true
		for _, u := range users[v] {
			if u.Kind == ir.OpWgmma && (u.Operands[0] == v || u.Operands[1] == v) {
				return true
			}
			if isSmemView(u.Kind) {
				if visit(u.Results[0]) {
					return true
				}
			}
		}
		return false
	}
	return len(alloc.Results) == 1 && visit(alloc.Results[0])
}

// insertAfterWgmmaWait places op, a layout conversion reading v, right
// after the wgmma_wait that completes v when v is a wgmma result (its
// registers hold the product only from then on); false when v is not one or
// no wait of its block completes it.
func (s *assigner) insertAfterWgmmaWait(v *ir.Value, op *ir.Op) bool {
	if v.Def == nil || v.Def.Kind != ir.OpWgmma {
		return false
	}
	w := wgmmaCompletion(v.Def)
	if w == nil {
		return false
	}
	layInsertAfter(w, op)
	return true
}

// wgmmaCompletion is the wgmma_wait that completes mma: the first
// wgmma_wait(n) of its block with at least n wgmma ops issued after mma
// before it (nil when the block has none).
func wgmmaCompletion(mma *ir.Op) *ir.Op {
	b := mma.Parent
	i := 0
	for i < len(b.Ops) && b.Ops[i] != mma {
		i++
	}
	newer := 0
	for i++; i < len(b.Ops); i++ {
		o := b.Ops[i]
		if o.Kind == ir.OpWgmma {
			newer++
		}
		if o.Kind == ir.OpWgmmaWait && int(o.Attrs.Int("pending", 0)) <= newer {
			return o
		}
	}
	return nil
}

// pairedSharedLayouts gives the buffer a paired register a is loaded from
// (pairedLoad; its alloc, through slot and transpose views) the wgmma
// swizzle of its contiguous dimension, unless it has a layout already or
// is used otherwise than through views, local_load, local_store,
// local_ptr and TMA copies (which all address it through its layout).
// ldmatrix.trans then reads eight 16-byte rows in different banks.
func (s *assigner) pairedSharedLayouts() {
	s.f.Walk(func(op *ir.Op) {
		ld := s.pairedLoad(op)
		if ld == nil {
			return
		}
		root := wgmmaRoot(ld.Operands[0])
		md, ok := root.Type.(*ir.MemDesc)
		if !ok || md.Layout != nil || root.Def == nil || root.Def.Kind != ir.OpAlloc || len(root.Def.Operands) != 0 ||
			viaReshape(ld.Operands[0]) {
			return
		}
		fits := true
		var visit func(v *ir.Value)
		visit = func(v *ir.Value) {
			for _, u := range s.users[v] {
				switch {
				case isSmemView(u.Kind):
					visit(u.Results[0])
				case u.Kind == ir.OpLocalLoad, u.Kind == ir.OpLocalPtr && u.Operands[0] == v,
					u.Kind == ir.OpLocalStore && u.Operands[0] == v:
				case u.Kind == ir.OpCopy && len(u.Operands) >= 2 && (isDesc(u.Operands[0]) || isDesc(u.Operands[1])):
				default:
					fits = false
				}
			}
		}
		visit(root)
		if !fits {
			return
		}
		order := md.Order
		if len(order) == 0 {
			order = ir.RowMajor(len(md.Shape))
		}
		sh, err := gpu.WgmmaSharedLayout(md.Shape, md.Elem.Bytes(), order)
		if err != nil {
			return
		}
		c := *md
		c.Layout, c.Order = sh, append([]int(nil), order...)
		root.Type = &c
	})
}

// threadInFlightWaits threads a loop's product still in flight at its back
// edge through the wgmma_wait that completes it: for a body whose yield
// carries a wgmma result that no wait of the iteration completes (the
// source's own overlap, as in acc = acc*a + pv; ...; pv = wgmma(..) with
// wgmma_wait(1) after the next iteration's first product), the block
// argument becomes an operand of the first wait of the body that completes
// it, and the loop's result one of the first wait after the loop that does,
// when nothing reads them before. Their later uses read the waits' results
// (threadThrough): a layout conversion of the carried product then goes
// after the wait (insertAfterDef), not at the top of the body where it would
// read the registers of a product still running, and the backend ties the
// registers through the wait.
func threadInFlightWaits(f *ir.Func) {
	var loops []*ir.Op
	f.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpFor {
			loops = append(loops, op)
		}
	})
	for _, loop := range loops {
		body := loop.Regions[0]
		y := body.Terminator()
		if y == nil || y.Kind != ir.OpYield {
			continue
		}
		for j, v := range y.Operands {
			if v.Def == nil || v.Def.Kind != ir.OpWgmma || v.Def.Parent != body || wgmmaCompletion(v.Def) != nil {
				continue
			}
			if 1+j >= len(body.Args) || j >= len(loop.Results) {
				continue
			}
			// the wgmma ops issued after v's in the iteration; one inside a
			// region (an if, a loop) may not run, so the count would be a
			// guess: leave v alone
			newer, known := 0, true
			for _, o := range body.Ops[body.IndexOf(v.Def)+1:] {
				if o.Kind == ir.OpWgmma {
					newer++
				} else if countWgmma(o) > 0 {
					known = false
				}
			}
			if !known {
				continue
			}
			if w := completingWait(body.Ops, 0, newer, body.Args[1+j]); w != nil {
				threadThrough(f, w, body.Args[1+j])
			}
			if p := loop.Parent; p != nil {
				if w := completingWait(p.Ops, p.IndexOf(loop)+1, newer, loop.Results[j]); w != nil {
					threadThrough(f, w, loop.Results[j])
				}
			}
		}
	}
}

// completingWait is the first wgmma_wait of ops from index from on that
// completes a product with newer wgmma ops issued after it before ops[from],
// or nil when there is none or an op up to it reads v (v is threaded
// through a wait already, or read in flight) or issues a wgmma inside a
// region (the count is then unknown).
func completingWait(ops []*ir.Op, from, newer int, v *ir.Value) *ir.Op {
	for _, o := range ops[from:] {
		if usesValue(o, v) || o.Kind != ir.OpWgmma && countWgmma(o) > 0 {
			return nil // read before (or threaded through a wait already)
		}
		if o.Kind == ir.OpWgmmaWait && int(o.Attrs.Int("pending", 0)) <= newer {
			return o
		}
		if o.Kind == ir.OpWgmma {
			newer++
		}
	}
	return nil
}

// countWgmma is the number of wgmma ops op is or holds.
func countWgmma(op *ir.Op) int {
	n := 0
	if op.Kind == ir.OpWgmma {
		n++
	}
	for _, r := range op.Regions {
		r.Walk(func(o *ir.Op) {
			if o.Kind == ir.OpWgmma {
				n++
			}
		})
	}
	return n
}

package passes

import (
	"slices"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// matrixCopy is the layout of a tile that a local_load reads from one
// shared view only to store into others contiguous along another
// dimension: store(dst, load(src.T)), store(dst, load(src).T) (the trans
// of the loaded tile), or alloc(..., init: load(src.T)), or any of these
// selected against a constant (a partial tile, where(m, load(src.T), 0):
// maskedCopy). Such a transpose
// between buffers gets the layout MatrixCopyLayout, in which the backend
// reads src with ldmatrix.trans and writes dst with stmatrix, no data
// crossing lanes (backend/nvptx/matrix.go); nil when the pattern or the
// dtype (8 or 16 bits) does not match.
func (s *assigner) matrixCopy(ld *ir.Op) ir.Layout {
	res := ld.Results[0]
	t := layTileOf(res)
	src, ok := ld.Operands[0].Type.(*ir.MemDesc)
	dt, isD := t.Elem.(ir.DType)
	if !ok || !isD || len(t.Shape) != 2 || (dt.Bits() != 8 && dt.Bits() != 16) {
		return nil
	}
	perm := []int{0, 1}
	chain, v, us := MatrixCopyUses(ld, func(x *ir.Value) []*ir.Op { return s.users[x] })
	if len(chain) > 0 && chain[0].Kind == ir.OpTrans {
		perm = chain[0].Attrs.Ints("perm")
	}
	b := -1
	for _, u := range us {
		var dst *ir.MemDesc
		switch {
		case u.Kind == ir.OpLocalStore && len(u.Operands) == 2 && u.Operands[1] == v && u.Operands[0] != v:
			dst, _ = u.Operands[0].Type.(*ir.MemDesc)
		case u.Kind == ir.OpAlloc && len(u.Operands) == 1 && u.Operands[0] == v:
			dst, _ = u.Results[0].Type.(*ir.MemDesc)
		}
		if dst == nil || len(perm) != 2 {
			return nil
		}
		c := perm[viewContig(dst)]
		if b >= 0 && c != b {
			return nil
		}
		b = c
	}
	a := viewContig(src)
	if b < 0 || a == b {
		return nil
	}
	return MatrixCopyLayout(t.Shape, a, b, dt.Bits(), s.nwAt(ld))
}

// MatrixCopyUses follows the tile a local_load ld reads through the
// register ops a matrix copy allows between the load and its stores (one
// trans, then one select against a constant, each the only user of the
// value before it): it returns those ops, the value the stores would
// write, and that value's users (users gives an IR value's).
func MatrixCopyUses(ld *ir.Op, users func(*ir.Value) []*ir.Op) (chain []*ir.Op, v *ir.Value, us []*ir.Op) {
	v = ld.Results[0]
	us = users(v)
	if len(us) == 1 && us[0].Kind == ir.OpTrans {
		chain, v = append(chain, us[0]), us[0].Results[0]
		us = users(v)
	}
	if len(us) == 1 && maskedCopy(us[0], v) {
		chain, v = append(chain, us[0]), us[0].Results[0]
		us = users(v)
	}
	return chain, v, us
}

// MatrixCopyLoad is the local_load whose tile a store of v writes into
// another buffer as a matrix copy (matrixCopy): v is the load's result or
// its trans, or a select of either against a constant (a partial tile,
// store(dst, where(m, load(src.T), 0))); nil otherwise.
func MatrixCopyLoad(v *ir.Value) *ir.Op {
	if d := v.Def; d != nil && d.Kind == ir.OpSelect && len(d.Operands) == 3 {
		switch {
		case maskedCopy(d, d.Operands[1]):
			v = d.Operands[1]
		case maskedCopy(d, d.Operands[2]):
			v = d.Operands[2]
		default:
			return nil
		}
	}
	d := v.Def
	if d != nil && d.Kind == ir.OpTrans {
		d = d.Operands[0].Def
	}
	if d != nil && d.Kind == ir.OpLocalLoad {
		return d
	}
	return nil
}

// maskedCopy reports whether op selects between v and a constant.
func maskedCopy(op *ir.Op, v *ir.Value) bool {
	if op.Kind != ir.OpSelect || len(op.Operands) != 3 {
		return false
	}
	isConst := func(x *ir.Value) bool { return x.Def != nil && x.Def.Kind == ir.OpConstant }
	return (op.Operands[1] == v && isConst(op.Operands[2])) || (op.Operands[2] == v && isConst(op.Operands[1]))
}

// viewContig is the contiguous dimension of a shared view.
func viewContig(md *ir.MemDesc) int {
	if sh, ok := md.Layout.(*gpu.Shared); ok && len(sh.Order) > 0 {
		return sh.Order[0]
	}
	if len(md.Order) > 0 {
		return md.Order[0]
	}
	return len(md.Shape) - 1
}

// MatrixCopyLayout is the register layout of a 2-D tile of shape moving
// from a buffer contiguous along a to one contiguous along b (a != b) by
// ldmatrix.trans and stmatrix: blocked, order [b, a], with lanes
// [4 along b, 8 along a] over per-thread blocks of [2 along b] (16-bit)
// or [4 along b, 2 along a] (8-bit), warps along b first; nil when the
// tile is smaller than one warp's 8x8 (16x16 for 8 bits) matrices.
func MatrixCopyLayout(shape []int, a, b, bits, numWarps int) *gpu.Blocked {
	sa, sb := 1, 2
	if bits == 8 {
		sa, sb = 2, 4
	}
	if len(shape) != 2 || a == b || shape[a]%(8*sa) != 0 || shape[b]%(4*sb) != 0 {
		return nil
	}
	l := &gpu.Blocked{SizePerThread: make([]int, 2), ThreadsPerWarp: make([]int, 2), WarpsPerCTA: make([]int, 2), Order: []int{b, a}}
	l.SizePerThread[a], l.SizePerThread[b] = sa, sb
	l.ThreadsPerWarp[a], l.ThreadsPerWarp[b] = 8, 4
	wb := min(numWarps, shape[b]/(4*sb))
	l.WarpsPerCTA[b], l.WarpsPerCTA[a] = wb, numWarps/wb
	return l
}

// matrixSharedLayouts gives the buffers that a matrix copy (matrixCopy)
// reads or writes, and that nothing else needs unswizzled, the swizzled
// layout of gpu.WgmmaSharedLayout: ldmatrix and stmatrix then touch eight
// 16-byte rows in different banks, and a TMA copy in or out uses the
// hardware swizzle of the same pattern. A buffer used otherwise than by
// local_load, local_store, its own init, a transposed view or a TMA copy
// keeps the default layout, and so does one that a wgmma reads (laid out
// before, by wgmmaSharedLayouts).
func (s *assigner) matrixSharedLayouts() {
	matrixVal := func(v *ir.Value) bool {
		d := MatrixCopyLoad(v)
		return d != nil && s.isMatrixCopy(d)
	}
	s.f.Walk(func(op *ir.Op) {
		if op.Kind != ir.OpAlloc || len(op.Results) != 1 {
			return
		}
		md, ok := op.Results[0].Type.(*ir.MemDesc)
		if !ok || md.Layout != nil || len(md.Shape) != 2 {
			return
		}
		touched := len(op.Operands) == 1 && matrixVal(op.Operands[0])
		fits := true
		var visit func(v *ir.Value)
		visit = func(v *ir.Value) {
			for _, u := range s.users[v] {
				switch {
				case u.Kind == ir.OpMemTrans:
					visit(u.Results[0])
				case u.Kind == ir.OpLocalLoad:
					touched = touched || s.isMatrixCopy(u)
				case u.Kind == ir.OpLocalStore && u.Operands[0] == v:
					touched = touched || matrixVal(u.Operands[1])
				case u.Kind == ir.OpCopy && len(u.Operands) >= 2 && (isDesc(u.Operands[0]) || isDesc(u.Operands[1])):
				default:
					fits = false
				}
			}
		}
		visit(op.Results[0])
		if !touched || !fits {
			return
		}
		order := md.Order
		if len(order) == 0 {
			order = ir.RowMajor(2)
		}
		sh, err := gpu.WgmmaSharedLayout(md.Shape, md.Elem.Bytes(), order)
		if err != nil {
			return
		}
		c := *md
		c.Layout, c.Order = sh, append([]int(nil), order...)
		op.Results[0].Type = &c
	})
}

// dotSharedLayouts gives a 16-bit 2-D buffer (or 3-D, used through its
// slots) that is only written with local_store and read, directly or
// through transposed views, as dot operands (a kernel's own staging of its
// products' operands) the swizzled layout the layout pass stages dot
// operands in itself (DotSharedLayout): the ldmatrix reads of its rows, 16
// bytes from each of eight rows, then hit distinct banks, where a plain
// row-major buffer of 32-byte or longer rows puts them in the same ones.
func (s *assigner) dotSharedLayouts() {
	s.f.Walk(func(op *ir.Op) {
		if op.Kind != ir.OpAlloc || len(op.Results) != 1 || len(op.Operands) != 0 {
			return
		}
		md, ok := op.Results[0].Type.(*ir.MemDesc)
		if !ok || md.Layout != nil || (len(md.Shape) != 2 && len(md.Shape) != 3) || md.Elem.Bytes() != 2 {
			return
		}
		if len(md.Order) != 0 && !slices.Equal(md.Order, ir.RowMajor(len(md.Shape))) && len(md.Shape) == 3 {
			return
		}
		read, fits := false, true
		var visit func(v *ir.Value, rank int)
		visit = func(v *ir.Value, rank int) {
			for _, u := range s.users[v] {
				switch {
				case rank == 3:
					if u.Kind != ir.OpMemIndex || u.Operands[0] != v {
						fits = false
						continue
					}
					visit(u.Results[0], 2)
				case u.Kind == ir.OpMemTrans:
					visit(u.Results[0], rank)
				case u.Kind == ir.OpLocalStore && u.Operands[0] == v:
				case u.Kind == ir.OpLocalLoad:
					if _, isDot := layTileOf(u.Results[0]).Layout.(*gpu.DotOperand); isDot {
						read = true
					} else {
						fits = false
					}
				default:
					fits = false
				}
			}
		}
		visit(op.Results[0], len(md.Shape))
		if !read || !fits {
			return
		}
		order := md.Order
		if len(order) == 0 {
			order = ir.RowMajor(len(md.Shape))
		}
		sh := DotSharedLayout(md.Shape[len(md.Shape)-2:], 2, order[len(order)-2:])
		if len(md.Shape) == 3 {
			// the slots one after the other, each swizzled as a 2-D buffer
			// (sharedLayouts gives a slot the layout without the leading dim)
			sh.Order = []int{2, 1, 0}
		}
		c := *md
		c.Layout, c.Order = sh, append([]int(nil), order...)
		op.Results[0].Type = &c
	})
}

// isMatrixCopy reports whether the local_load ld got its matrixCopy
// layout.
func (s *assigner) isMatrixCopy(ld *ir.Op) bool {
	l := s.matrixCopy(ld)
	return l != nil && SameLayout(l, layTileOf(ld.Results[0]).Layout, layTileOf(ld.Results[0]).Shape)
}

func isDesc(v *ir.Value) bool { _, ok := v.Type.(*ir.Desc); return ok }

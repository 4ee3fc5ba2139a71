package ir

import "slices"

// The checks of the GPU passes' kinds, from what their producers (the
// layout passes, the pipeliner, AsyncLoads) make and the backend's
// lowering reads. Layouts themselves are the passes' business: the checks
// look at shapes, element types and address spaces only.

// checkConvertLayout: only the layout changes (a scalar passes through).
func (v *verifier) checkConvertLayout(op, _ *Op) bool {
	v.sameType(op, "result", op.rt(), op.ot(0))
	return true
}

// checkAsyncCopy: async_copy(ptrs, buf [, mask]) copies a tile of global
// pointers' elements into a shared buffer (view) of the same shape, each
// thread its vector groups (cp.async), masked-off elements zero-filled.
func (v *verifier) checkAsyncCopy(op, _ *Op) bool {
	pt, ok := op.ot(0).(*Tile)
	var ptr *Pointer
	if ok {
		ptr, ok = pt.Elem.(*Pointer)
	}
	if !ok || ptr.Space != 0 && ptr.Space != Global {
		v.errf(op, "operand 0 has type %s, want a tile of global pointers", typeString(op.ot(0)))
		return false
	}
	md, ok := op.ot(1).(*MemDesc)
	if !ok || md.Space != 0 && md.Space != Shared {
		v.errf(op, "operand 1 has type %s, want a !smem of this CTA", typeString(op.ot(1)))
		return false
	}
	if !slices.Equal(md.Shape, pt.Shape) || md.Elem != ptr.Elem {
		v.errf(op, "buffer %s does not hold the tile %s points at", typeString(op.ot(1)), typeString(op.ot(0)))
	}
	if len(op.Operands) > 2 {
		v.sameType(op, "mask", op.ot(2), WithElem(StripLayout(op.ot(0)), I1))
	}
	return true
}

// checkAsyncWait: cp.async.wait_group takes a count of groups (0 when
// pending is left out).
func (v *verifier) checkAsyncWait(op, _ *Op) bool {
	if _, set := op.Attrs["pending"]; set {
		if n, ok := v.intAttr(op, "pending"); ok && n < 0 {
			v.errf(op, "pending = %d, want >= 0", n)
		}
	}
	return true
}

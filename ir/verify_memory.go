package ir

import (
	"fmt"
	"slices"
)

// The checks of the memory kinds: global loads, stores and atomics, shared
// buffers and their views, mbarriers, pipes, TMA copies and descriptors,
// wgmma, clusters. Each runs after the table's counts and up-front
// attributes passed (checkOp).

func (v *verifier) checkLoad(op, _ *Op) bool {
	ptr, ok := Elem(op.ot(0)).(*Pointer)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(op.ot(0)))
		return false
	}
	want := WithElem(StripLayout(op.ot(0)), ptr.Elem)
	v.sameType(op, "result", op.rt(), want)
	if len(op.Operands) > 1 {
		v.sameType(op, "mask", op.ot(1), WithElem(StripLayout(op.ot(0)), I1))
	}
	if len(op.Operands) > 2 {
		v.sameType(op, "other", op.ot(2), want)
	}
	return true
}

func (v *verifier) checkStore(op, _ *Op) bool {
	ptr, ok := Elem(op.ot(0)).(*Pointer)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(op.ot(0)))
		return false
	}
	v.sameType(op, "value", op.ot(1), WithElem(StripLayout(op.ot(0)), ptr.Elem))
	if len(op.Operands) > 2 {
		v.sameType(op, "mask", op.ot(2), WithElem(StripLayout(op.ot(0)), I1))
	}
	return true
}

// atomicPointee is the type the pointer operand of an atomic points at
// (its shape, the pointee element), or nil when it is no pointer.
func (v *verifier) atomicPointee(op *Op) Type {
	ptr, ok := Elem(op.ot(0)).(*Pointer)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(op.ot(0)))
		return nil
	}
	return WithElem(StripLayout(op.ot(0)), ptr.Elem)
}

func (v *verifier) checkAtomicRMW(op, _ *Op) bool {
	want := v.atomicPointee(op)
	if want == nil {
		return false
	}
	v.deferredString(op, "kind")
	v.atomicOrder(op)
	v.sameType(op, "value", op.ot(1), want)
	if len(op.Operands) > 2 {
		v.sameType(op, "mask", op.ot(2), WithElem(StripLayout(op.ot(0)), I1))
	}
	v.sameType(op, "result", op.rt(), want)
	return true
}

// atomicOrder checks an atomic's optional sem and scope attributes.
func (v *verifier) atomicOrder(op *Op) {
	if _, ok := op.Attrs["sem"]; ok {
		v.strAttr(op, "sem", AtomicSems)
	}
	if _, ok := op.Attrs["scope"]; ok {
		v.strAttr(op, "scope", AtomicScopes)
	}
}

func (v *verifier) checkAtomicCAS(op, _ *Op) bool {
	want := v.atomicPointee(op)
	if want == nil {
		return false
	}
	v.atomicOrder(op)
	v.sameType(op, "cmp", op.ot(1), want)
	v.sameType(op, "value", op.ot(2), want)
	if len(op.Operands) > 3 {
		v.sameType(op, "mask", op.ot(3), WithElem(StripLayout(op.ot(0)), I1))
	}
	v.sameType(op, "result", op.rt(), want)
	return true
}

// checkAlloc checks the buffer type (its order first) and the initial value.
func (v *verifier) checkAlloc(op, _ *Op) bool {
	md, ok := op.rt().(*MemDesc)
	if !ok {
		v.errf(op, "result type %s is not a !smem", typeString(op.rt()))
		return false
	}
	v.checkMemDesc(op, md)
	if len(op.Operands) == 1 {
		v.sameType(op, "initial value", op.ot(0), &Tile{Shape: md.Shape, Elem: md.Elem})
	}
	return false // the result's memdesc is checked
}

func (v *verifier) checkMemIndex(op, _ *Op) bool {
	md, ok := op.ot(0).(*MemDesc)
	if !ok || len(md.Shape) < 2 {
		v.errf(op, "operand 0 has type %s, want a !smem of rank >= 2", typeString(op.ot(0)))
		return false
	}
	if !isIntScalar(op.ot(1)) {
		v.errf(op, "index has type %s, want an integer scalar", typeString(op.ot(1)))
	}
	out, ok := op.rt().(*MemDesc)
	if !ok {
		v.errf(op, "result type %s is not a !smem", typeString(op.rt()))
		return false
	}
	if !slices.Equal(out.Shape, md.Shape[1:]) || out.Elem != md.Elem {
		v.errf(op, "result %s is not a slot of %s", typeString(op.rt()), typeString(op.ot(0)))
	}
	return true
}

func (v *verifier) checkMemTrans(op, _ *Op) bool {
	md, ok1 := op.ot(0).(*MemDesc)
	out, ok2 := op.rt().(*MemDesc)
	if !ok1 || !ok2 {
		v.errf(op, "operand and result must be !smem, have %s and %s", typeString(op.ot(0)), typeString(op.rt()))
		return false
	}
	perm := v.checkPerm(op, len(md.Shape))
	if perm == nil {
		return false
	}
	inv := make([]int, len(perm))
	want := make([]int, len(perm))
	for i, p := range perm {
		want[i] = md.Shape[p]
		inv[p] = i
	}
	inOrder, outOrder := md.Order, out.Order
	if inOrder == nil {
		inOrder = RowMajor(len(md.Shape))
	}
	if outOrder == nil {
		outOrder = RowMajor(len(out.Shape))
	}
	order := make([]int, len(inOrder))
	for i, d := range inOrder {
		if d >= 0 && d < len(inv) {
			order[i] = inv[d]
		}
	}
	if !slices.Equal(out.Shape, want) || out.Elem != md.Elem || !slices.Equal(outOrder, order) {
		v.errf(op, "result %s is not the view of %s permuted by %v (want shape %s, order %v)", typeString(op.rt()), typeString(op.ot(0)), perm, shapeStr(want), order)
	}
	return true
}

// checkMemReshape checks a view reshape: a row-major view of the same
// elements whose innermost dimension is the operand's (only the leading
// dimensions merge or split), both of rank 2 or more and row-major.
func (v *verifier) checkMemReshape(op, _ *Op) bool {
	md, ok1 := op.ot(0).(*MemDesc)
	out, ok2 := op.rt().(*MemDesc)
	if !ok1 || !ok2 {
		v.errf(op, "operand and result must be !smem, have %s and %s", typeString(op.ot(0)), typeString(op.rt()))
		return false
	}
	if err := MemReshapeError(md.Shape, md.Order, out.Shape); err != "" {
		v.errf(op, "%s", err)
		return true
	}
	if out.Elem != md.Elem || !isRowMajor(out.Order) || out.Space != md.Space {
		v.errf(op, "result %s is not a row-major view of %s", typeString(op.rt()), typeString(op.ot(0)))
	}
	return true
}

// MemReshapeError is why a shared-memory view of shape from (with order,
// nil for row-major) cannot be viewed with shape to, or "" when it can: the
// view must be row-major, both shapes of rank 2 or more with the same
// innermost extent and the same number of elements (a merge or split of the
// leading dimensions, as Triton's memdesc_reshape on a contiguous view).
func MemReshapeError(from, order, to []int) string {
	switch {
	case !isRowMajor(order):
		return fmt.Sprintf("cannot reshape a shared-memory view that is not row-major (order %v): reshape the buffer, then transpose", order)
	case len(from) < 2 || len(to) < 2:
		return fmt.Sprintf("cannot reshape shared-memory view [%s] to [%s]: both shapes need rank 2 or more", shapeString(from), shapeString(to))
	case from[len(from)-1] != to[len(to)-1]:
		return fmt.Sprintf("cannot reshape shared-memory view [%s] to [%s]: only the leading dimensions may merge or split, the innermost (%d) must stay", shapeString(from), shapeString(to), from[len(from)-1])
	case NumElements(from) != NumElements(to):
		return fmt.Sprintf("cannot reshape shared-memory view [%s] to [%s]: element counts differ", shapeString(from), shapeString(to))
	}
	return ""
}

func (v *verifier) checkLocalPtr(op, _ *Op) bool {
	md, ok := op.ot(0).(*MemDesc)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a !smem", typeString(op.ot(0)))
		return false
	}
	if len(op.Operands)-1 != len(md.Shape) {
		v.errf(op, "has %d indices for a rank-%d buffer", len(op.Operands)-1, len(md.Shape))
		return false
	}
	var ishape []int
	for i := 1; i < len(op.Operands); i++ {
		if !elemDType(op.ot(i)).IsInt() || i > 1 && !slices.Equal(tileShape(op.ot(i)), ishape) {
			v.errf(op, "index %d has type %s; indices must be integers of one shape", i-1, typeString(op.ot(i)))
			return false
		}
		ishape = tileShape(op.ot(i))
	}
	space := md.Space
	if space == 0 {
		space = Shared
	}
	v.sameType(op, "result", op.rt(), TileOf(ishape, &Pointer{Elem: md.Elem, Space: space}))
	return true
}

func (v *verifier) checkLocalLoad(op, _ *Op) bool {
	md, ok := op.ot(0).(*MemDesc)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a !smem", typeString(op.ot(0)))
		return false
	}
	v.sameType(op, "result", op.rt(), &Tile{Shape: md.Shape, Elem: md.Elem})
	return true
}

func (v *verifier) checkLocalStore(op, _ *Op) bool {
	md, ok := op.ot(0).(*MemDesc)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a !smem", typeString(op.ot(0)))
		return false
	}
	v.sameType(op, "value", op.ot(1), &Tile{Shape: md.Shape, Elem: md.Elem})
	return true
}

func (v *verifier) checkBarrierAlloc(op, _ *Op) bool {
	if _, ok := op.rt().(*Barrier); !ok {
		v.errf(op, "result type %s is not a !barrier", typeString(op.rt()))
	}
	return true
}

func (v *verifier) checkBarrierIndex(op, _ *Op) bool {
	if b, ok := op.ot(0).(*Barrier); !ok || b.Slots == 0 {
		v.errf(op, "operand 0 has type %s, want a barrier array !barrier<N>", typeString(op.ot(0)))
	}
	if !isIntScalar(op.ot(1)) {
		v.errf(op, "operand 1 has type %s, want an integer scalar", typeString(op.ot(1)))
	}
	v.sameType(op, "result", op.rt(), &Barrier{})
	return true
}

func (v *verifier) checkBarrierArrive(op, _ *Op) bool {
	v.sameType(op, "operand 0", op.ot(0), &Barrier{})
	return true
}

// checkBarrierPhase checks barrier_wait (b, phase) and barrier_expect (b,
// bytes).
func (v *verifier) checkBarrierPhase(op, _ *Op) bool {
	v.sameType(op, "operand 0", op.ot(0), &Barrier{})
	if !isIntScalar(op.ot(1)) {
		v.errf(op, "operand 1 has type %s, want an integer scalar", typeString(op.ot(1)))
	}
	return true
}

func (v *verifier) checkBarrierParity(op, _ *Op) bool {
	v.sameType(op, "operand 0", op.ot(0), &Barrier{})
	v.sameType(op, "result", op.rt(), I32)
	return true
}

func (v *verifier) checkPipeAlloc(op, _ *Op) bool {
	if p, ok := op.rt().(*Pipe); !ok || p.Capacity < 1 {
		v.errf(op, "result type %s is not a !pipe of capacity >= 1", typeString(op.rt()))
	}
	return true
}

// pipeIndex checks the (pipe, i) operands of a pipe op; it returns the
// pipe, or nil when operand 0 is none.
func (v *verifier) pipeIndex(op *Op) *Pipe {
	p, ok := op.ot(0).(*Pipe)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a !pipe", typeString(op.ot(0)))
		return nil
	}
	if !isIntScalar(op.ot(1)) {
		v.errf(op, "index has type %s, want an integer scalar", typeString(op.ot(1)))
	}
	return p
}

// checkPipeSlot checks pipe_acquire (a writer slot) and pipe_wait (a
// reader slot).
func (v *verifier) checkPipeSlot(op, _ *Op) bool {
	p := v.pipeIndex(op)
	if p == nil {
		return false
	}
	v.sameType(op, "result", op.rt(), &Slot{Pipe: p, Writer: op.Kind == OpPipeAcquire})
	return true
}

// checkPipeIndex checks pipe_commit, pipe_close and pipe_release.
func (v *verifier) checkPipeIndex(op, _ *Op) bool {
	return v.pipeIndex(op) != nil
}

func (v *verifier) checkSlotField(op, _ *Op) bool {
	s, ok := op.ot(0).(*Slot)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a !slot", typeString(op.ot(0)))
		return false
	}
	name, ok := v.deferredString(op, "name")
	if !ok {
		return false
	}
	for _, f := range s.Pipe.Fields {
		if f.Name == name {
			v.sameType(op, "result", StripLayout(op.rt()), &MemDesc{Shape: f.Shape, Elem: f.Elem, Order: RowMajor(len(f.Shape)), Space: Shared})
			return false // the result is compared with the field's row-major view
		}
	}
	v.errf(op, "the pipe has no field %q", name)
	return true
}

func (v *verifier) checkSlotClosed(op, _ *Op) bool {
	if _, ok := op.ot(0).(*Slot); !ok {
		v.errf(op, "operand 0 has type %s, want a !slot", typeString(op.ot(0)))
	}
	v.sameType(op, "result", op.rt(), I1)
	return true
}

// checkCopy checks a TMA copy between a descriptor and a buffer: one
// integer offset per descriptor dim, then the barrier when has_barrier.
func (v *verifier) checkCopy(op, _ *Op) bool {
	n := len(op.Operands)
	if op.Attrs.Bool("has_barrier") {
		n--
		if _, ok := op.Operands[n].Type.(*Barrier); !ok {
			v.errf(op, "has_barrier but the last operand has type %s, not !barrier", typeString(op.Operands[n].Type))
			return false
		}
	}
	var d *Desc
	var md *MemDesc
	if dd, ok := op.ot(0).(*Desc); ok {
		d = dd
		md, _ = op.ot(1).(*MemDesc)
	} else if dd, ok := op.ot(1).(*Desc); ok {
		d = dd
		md, _ = op.ot(0).(*MemDesc)
	}
	if d == nil || md == nil {
		v.errf(op, "copies %s to %s; want !desc to !smem or !smem to !desc", typeString(op.ot(0)), typeString(op.ot(1)))
		return false
	}
	if n-2 != len(d.Block) {
		v.errf(op, "has %d offsets for a rank-%d descriptor", n-2, len(d.Block))
		return false
	}
	for i := 2; i < n; i++ {
		if !isIntScalar(op.ot(i)) {
			v.errf(op, "offset %d has type %s, want an integer scalar", i-2, typeString(op.ot(i)))
		}
	}
	if _, ok := BlockViewDims(d.Block, md.Shape); md.Elem != d.Elem || !ok {
		v.errf(op, "buffer %s does not hold a block of %s (its shape must be the block's, less any of its dimensions of extent 1)", typeString(md), typeString(d))
	}
	return true
}

func (v *verifier) checkMakeDesc(op, _ *Op) bool {
	block := op.Attrs.Ints("block")
	if _, ok := op.Attrs["block"].([]int64); !ok || len(block) == 0 {
		v.errf(op, "needs a block attribute")
		return false
	}
	p, ok := op.ot(0).(*Pointer)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a pointer", typeString(op.ot(0)))
		return false
	}
	if len(op.Operands) != 1+2*len(block) {
		v.errf(op, "has %d operands, want the pointer, %d sizes and %d strides", len(op.Operands), len(block), len(block))
		return false
	}
	for i := 1; i < len(op.Operands); i++ {
		if !isIntScalar(op.ot(i)) {
			v.errf(op, "operand %d has type %s, want an integer scalar", i, typeString(op.ot(i)))
		}
	}
	v.sameType(op, "result", op.rt(), &Desc{Elem: p.Elem, Block: block})
	return true
}

func (v *verifier) checkWgmma(op, _ *Op) bool {
	a, b, c := ShapeOf(op.ot(0)), ShapeOf(op.ot(1)), tileShape(op.ot(2))
	if _, ok := op.ot(1).(*MemDesc); !ok {
		v.errf(op, "operand b has type %s, want a !smem", typeString(op.ot(1)))
		return false
	}
	if len(a) != 2 || len(b) != 2 || len(c) != 2 {
		v.errf(op, "operands must have rank 2, have %s, %s, %s", shapeStr(a), shapeStr(b), shapeStr(c))
		return false
	}
	if op.Attrs.Bool("trans_a") {
		a = []int{a[1], a[0]}
	}
	if op.Attrs.Bool("trans_b") {
		b = []int{b[1], b[0]}
	}
	if a[1] != b[0] || c[0] != a[0] || c[1] != b[1] {
		v.errf(op, "shapes %s x %s + %s (after trans flags) do not make [M,K] x [K,N] + [M,N]", shapeStr(a), shapeStr(b), shapeStr(c))
	}
	v.sameType(op, "result", op.rt(), op.ot(2))
	return true
}

// checkWgmmaWait checks that each result passes its operand through.
func (v *verifier) checkWgmmaWait(op, _ *Op) bool {
	for i := range op.Operands {
		v.sameType(op, fmt.Sprintf("result %d", i), op.Results[i].Type, op.ot(i))
	}
	return true
}

func (v *verifier) checkDeviceMesh(op, _ *Op) bool {
	dims := op.Attrs.Ints("dims")
	if len(dims) != 3 {
		v.errf(op, "needs dims = [x, y, z]")
		return false
	}
	want := &Mesh{Dims: [3]int{dims[0], dims[1], dims[2]}}
	if d, ok := op.Attrs["devices"]; ok {
		n, _ := d.(int64)
		if n < 1 {
			v.errf(op, "devices %v must be a positive integer", d)
		}
		want.Devices = int(n)
	}
	v.sameType(op, "result", op.rt(), want)
	return true
}

func (v *verifier) checkShardID(op, _ *Op) bool {
	if _, ok := op.ot(0).(*Mesh); !ok {
		v.errf(op, "operand 0 has type %s, want a !mesh", typeString(op.ot(0)))
	}
	if ax, ok := v.intAttr(op, "axis"); ok && (ax < 0 || ax > 3) {
		v.errf(op, "axis %d out of range 0..3", ax)
	} else if m, ok := op.ot(0).(*Mesh); ok && ax == 3 && m.Devices < 1 {
		v.errf(op, "axis 3 (device) of a mesh without a device axis")
	}
	v.sameType(op, "result", op.rt(), I32)
	return true
}

func (v *verifier) checkRemote(op, _ *Op) bool {
	md, ok := op.ot(0).(*MemDesc)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a !smem", typeString(op.ot(0)))
		return false
	}
	if !isIntScalar(op.ot(1)) {
		v.errf(op, "rank has type %s, want an integer scalar", typeString(op.ot(1)))
	}
	if _, ok := op.ot(2).(*Mesh); !ok {
		v.errf(op, "operand 2 has type %s, want a !mesh", typeString(op.ot(2)))
	}
	out, ok := op.rt().(*MemDesc)
	if !ok || out.Space != Cluster || !slices.Equal(out.Shape, md.Shape) || out.Elem != md.Elem {
		v.errf(op, "result %s is not the cluster view of %s", typeString(op.rt()), typeString(op.ot(0)))
	}
	return true
}

func (v *verifier) checkDistributedBarrier(op, _ *Op) bool {
	if _, ok := op.ot(0).(*Mesh); !ok {
		v.errf(op, "operand 0 has type %s, want a !mesh", typeString(op.ot(0)))
	}
	v.checkDistributedBarrierAttrs(op)
	return true
}

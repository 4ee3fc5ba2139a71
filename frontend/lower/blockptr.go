package lower

import (
	"math"
	"strconv"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/ir"
)

// Block pointers (make_block_ptr, advance; load and store through one) are
// no IR type: a block pointer is its parts, i64 scalars but the base, and a
// load or store through it is a load or store through the pointer tile
//
//	base + sum over d of (offsets[d] + arange(0, block[d])) * strides[d]
//
// (each term broadcast over the other dims), masked by
// 0 <= offsets[d] + arange(0, block[d]) < shape[d] for the dims of
// boundary_check:. So the passes, the interpreter and the backend see only
// ops they already know. order: is a layout hint and is dropped.
//
// A variable holding a block pointer keeps its parts in hidden variables
// (partName), each an ordinary IR value, so loops and ifs carry them like
// any other variable (assignedOuter expands the name into them); the
// variable's own binding keeps the static part (parts nil).
type blockPtr struct {
	elem  ir.DType
	block []int
	// parts: base, then shape, strides and offsets, rank entries each
	parts []*ir.Value
}

func (b *blockPtr) rank() int              { return len(b.block) }
func (b *blockPtr) nparts() int            { return 1 + 3*b.rank() }
func (b *blockPtr) shape(d int) *ir.Value  { return b.parts[1+d] }
func (b *blockPtr) stride(d int) *ir.Value { return b.parts[1+b.rank()+d] }
func (b *blockPtr) offset(d int) *ir.Value { return b.parts[1+2*b.rank()+d] }
func (b *blockPtr) withParts(p []*ir.Value) *val {
	return &val{bp: &blockPtr{elem: b.elem, block: b.block, parts: p}}
}

// partName is the hidden variable (not an identifier) holding part i of
// the block pointer in variable name.
func partName(name string, i int) string { return name + "$bp" + strconv.Itoa(i) }

// setBlockPtr binds variable name, in scope sc, to the block pointer v.
func setBlockPtr(sc *scope, name string, v *val) {
	sc.vars[name] = &val{bp: &blockPtr{elem: v.bp.elem, block: v.bp.block}}
	for i, p := range v.bp.parts {
		sc.vars[partName(name, i)] = &val{v: p}
	}
}

// readBlockPtr reads the block pointer of variable name (bound to v, its
// static part) from its hidden variables.
func (s *fn) readBlockPtr(name string, v *val) *val {
	parts := make([]*ir.Value, v.bp.nparts())
	for i := range parts {
		p, _ := s.scope.lookup(partName(name, i))
		parts[i] = p.v
	}
	return v.bp.withParts(parts)
}

// expandBlockPtrs replaces, in names of carried variables, each that holds
// a block pointer by its hidden parts.
func (s *fn) expandBlockPtrs(names []string) []string {
	var out []string
	for _, n := range names {
		v, _ := s.scope.lookup(n)
		if v == nil || v.bp == nil {
			out = append(out, n)
			continue
		}
		for i := range v.bp.nparts() {
			out = append(out, partName(n, i))
		}
	}
	return out
}

func (s *fn) i64s(l *val, n int, pos diag.Pos) []*ir.Value {
	if len(l.list) != n {
		s.errorf(pos, "expected a list of %d integers", n)
	}
	out := make([]*ir.Value, n)
	for i, x := range l.list {
		out[i] = s.materialize(x, ir.I64, pos)
	}
	return out
}

func (s *fn) makeBlockPtr(a *args) *val {
	c := a.call
	base := s.ptrArg(a, "base")
	ptr, _ := base.Type.(*ir.Pointer)
	if ptr == nil {
		s.errorf(s.argPos(a, "base"), "make_block_ptr needs a scalar pointer")
	}
	block := s.shapeArg(a, "block_shape")
	s.constArg(a, "order") // a layout hint
	s.b.Pos = c.Pos()
	parts := []*ir.Value{base}
	for _, name := range []string{"shape", "strides", "offsets"} {
		parts = append(parts, s.i64s(s.arg(a, name), len(block), s.argPos(a, name))...)
	}
	return (&blockPtr{elem: ptr.Elem, block: block}).withParts(parts)
}

func (s *fn) blockPtrArg(a *args, name string) *blockPtr {
	v := s.arg(a, name)
	if v.bp == nil {
		s.errorf(s.argPos(a, name), "%s must be a block pointer", name)
	}
	return v.bp
}

func (s *fn) advance(a *args) *val {
	bp := s.blockPtrArg(a, "base")
	delta := s.i64s(s.arg(a, "offsets"), bp.rank(), s.argPos(a, "offsets"))
	s.b.Pos = a.call.Pos()
	parts := append([]*ir.Value(nil), bp.parts...)
	for d := range bp.rank() {
		parts[1+2*bp.rank()+d] = s.b.Value(ir.OpAdd, ir.I64, []*ir.Value{bp.offset(d), delta[d]}, nil)
	}
	return bp.withParts(parts)
}

// blockIndex is offsets[d] + arange(0, block[d]) as i64, shaped to the
// block's rank with extent 1 in the other dims.
func (s *fn) blockIndex(bp *blockPtr, d int) *ir.Value {
	n := bp.block[d]
	v := s.b.Value(ir.OpArange, ir.TileOf([]int{n}, ir.I32), nil, ir.Attrs{"start": int64(0), "end": int64(n)})
	v = s.b.Value(ir.OpCast, ir.TileOf([]int{n}, ir.I64), []*ir.Value{v}, nil)
	shape := []int{n}
	for i := d - 1; i >= 0; i-- {
		shape = append([]int{1}, shape...)
		v = s.b.Value(ir.OpExpandDims, ir.TileOf(shape, ir.I64), []*ir.Value{v}, ir.Attrs{"axis": int64(0)})
	}
	for len(shape) < bp.rank() {
		shape = append(shape, 1)
		v = s.b.Value(ir.OpExpandDims, ir.TileOf(shape, ir.I64), []*ir.Value{v}, ir.Attrs{"axis": int64(len(shape) - 1)})
	}
	off := s.b.Value(ir.OpSplat, ir.TileOf(shape, ir.I64), []*ir.Value{bp.offset(d)}, nil)
	return s.b.Value(ir.OpAdd, v.Type, []*ir.Value{v, off}, nil)
}

// blockAccess is the pointer tile of bp and, when boundary_check: is
// given, its mask (nil otherwise).
func (s *fn) blockAccess(a *args, bp *blockPtr) (ptrs, mask *ir.Value) {
	pos := a.call.Pos()
	checked := map[int]bool{}
	if a.has("boundary_check") {
		bc := s.constArg(a, "boundary_check")
		items := bc.list
		if items == nil {
			items = []*val{bc}
		}
		for _, x := range items {
			if x.c == nil || !x.c.isInt() {
				s.errorf(s.argPos(a, "boundary_check"), "boundary_check: needs compile-time dimensions")
			}
			checked[int(x.c.i)] = true
		}
	}
	s.b.Pos = pos
	var off, m *val
	for d := range bp.rank() {
		idx := &val{v: s.blockIndex(bp, d)}
		term := s.binary("*", idx, &val{v: bp.stride(d)}, pos)
		if off == nil {
			off = term
		} else {
			off = s.binary("+", off, term, pos)
		}
		if !checked[d] {
			continue
		}
		zero := &val{c: &constant{kind: 'i'}}
		in := s.binary("&", s.binary(">=", idx, zero, pos), s.binary("<", idx, &val{v: bp.shape(d)}, pos), pos)
		if m == nil {
			m = in
		} else {
			m = s.binary("&", m, in, pos)
		}
	}
	full := bp.block
	ptrs = s.binary("+", &val{v: bp.parts[0]}, &val{v: s.broadcastTo(off.v, full, pos)}, pos).v
	if m != nil {
		mask = s.broadcastTo(m.v, full, pos)
	}
	return ptrs, mask
}

// blockLoad is load(bp, boundary_check:, padding_option:): out-of-bounds
// elements of the checked dims read 0 (padding_option "zero", the default)
// or NaN ("nan").
func (s *fn) blockLoad(a *args, bp *blockPtr) *val {
	ptrs, mask := s.blockAccess(a, bp)
	t := ir.TileOf(bp.block, bp.elem)
	ops := []*ir.Value{ptrs}
	if mask != nil {
		pad := &val{c: &constant{kind: 'i'}}
		if a.has("padding_option") {
			if v := s.constArg(a, "padding_option"); v.str != nil && *v.str == "nan" {
				pad = &val{c: &constant{kind: 'f', f: math.NaN()}}
			}
		}
		ops = append(ops, mask, s.materialize(pad, t, a.call.Pos()))
	}
	attrs := ir.Attrs{}
	if s.constIntArg(a, "async") != 0 {
		attrs["async"] = true
	}
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpLoad, t, ops, attrs)}
}

// blockStore is store(bp, value, boundary_check:): out-of-bounds elements
// of the checked dims are not stored.
func (s *fn) blockStore(a *args, bp *blockPtr) *val {
	ptrs, mask := s.blockAccess(a, bp)
	ops := []*ir.Value{ptrs, s.argAs(a, "value", ir.TileOf(bp.block, bp.elem))}
	if mask != nil {
		ops = append(ops, mask)
	}
	s.b.Pos = a.call.Pos()
	s.b.Create(ir.OpStore, nil, ops, nil)
	return &val{}
}

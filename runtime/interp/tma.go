package interp

import (
	"github.com/tlego/tle/ir"
)

// descVal is a tensor descriptor: a global tensor (shape and strides in
// elements, outermost first) at element base of a buffer, copied in blocks.
type descVal struct {
	rg      *region
	base    int
	shape   []int
	strides []int
	block   []int
	dt      ir.DType
	name    string
}

func (t *thread) makeDesc(in *instr) error {
	op := in.op
	dt, ok := t.info(in.res[0]).typ.(*ir.Desc)
	if !ok {
		return t.errAt(op, "make_desc must give a !desc")
	}
	rank := len(dt.Block)
	if len(in.args) != 1+2*rank {
		return t.errAt(op, "make_desc of rank %d needs a pointer, %d sizes and %d strides; got %d operands", rank, rank, rank, len(in.args))
	}
	p := t.arg(in, 0)
	if p.i == nil || len(p.i) != 1 {
		return t.errAt(op, "make_desc needs a scalar pointer")
	}
	id, off := unpack(p.i[0])
	rg := t.c.l.reg.get(id)
	if rg == nil {
		return t.errAt(op, "make_desc of an invalid pointer")
	}
	d := &descVal{rg: rg, base: int(off), block: dt.Block, dt: dt.Elem, name: rg.name,
		shape: make([]int, rank), strides: make([]int, rank)}
	hi := int(off)
	for k := 0; k < rank; k++ {
		d.shape[k] = int(t.argInt(in, 1+k))
		d.strides[k] = int(t.argInt(in, 1+rank+k))
		if d.shape[k] < 0 || d.strides[k] < 0 {
			return t.errAt(op, "make_desc: negative shape %v or strides %v", d.shape, d.strides)
		}
		hi += (d.shape[k] - 1) * d.strides[k]
	}
	if ir.NumElements(d.shape) > 0 && (int(off) < rg.lo || hi >= rg.hi) {
		return t.errAt(op, "make_desc: a tensor of shape %v and strides %v at element %d of %s reaches element %d, outside [0, %d)",
			d.shape, d.strides, off-int64(rg.lo), rg.name, hi-rg.lo, rg.hi-rg.lo)
	}
	// what TMA needs of a map (the GPU cannot report it): rows of
	// contiguous elements, 16-byte aligned
	eb := dt.Elem.Bytes()
	if rank > 0 && d.strides[rank-1] != 1 {
		return t.errAt(op, "make_desc: the innermost stride must be 1 (TMA moves contiguous rows), got %d", d.strides[rank-1])
	}
	for k := 0; k < rank-1; k++ {
		if d.strides[k]*eb%16 != 0 {
			return t.errAt(op, "make_desc: the stride of dimension %d is %d elements (%d bytes), not a multiple of 16 bytes as TMA needs", k, d.strides[k], d.strides[k]*eb)
		}
	}
	if (int(off)-rg.lo)*eb%16 != 0 {
		return t.errAt(op, "make_desc: the tensor starts at element %d of %s, not on a 16-byte boundary as TMA needs", int(off)-rg.lo, rg.name)
	}
	t.setRef(in, 0, d)
	return nil
}

// copyOp runs a bulk copy: desc -> shared (TMA load: out-of-bounds elements
// read as zero), shared -> desc (TMA store: clipped to the tensor), or shared
// -> shared. With a barrier, the copy completes its bytes on it.
func (t *thread) copyOp(in *instr) error {
	op := in.op
	args := in.args
	regs := t.c.regs
	var bar *barrierState
	if len(args) > 2 {
		if b, ok := regs[args[len(args)-1]].ref.(*barrierState); ok {
			bar, args = b, args[:len(args)-1]
		}
	}
	if len(args) < 2 {
		return t.errAt(op, "copy needs a source and a destination")
	}
	offs := make([]int, len(args)-2)
	for k, s := range args[2:] {
		offs[k] = int(intOf(regs[s]))
	}
	var bytes int
	switch src := regs[args[0]].ref.(type) {
	case *descVal:
		dst, ok := regs[args[1]].ref.(*view)
		if !ok {
			return t.errAt(op, "copy from a descriptor needs a shared-memory destination")
		}
		if err := t.checkView(op, dst, true); err != nil {
			return err
		}
		n, err := t.checkBlock(op, src, dst, offs)
		if err != nil {
			return err
		}
		// with a barrier the bytes are the copy engine's, published by
		// the barrier (tmaClock); a copy without one (IR built by hand) is
		// the thread's own write
		gid, vc := t.gid, t.vc
		if bar != nil {
			t.tmaClock()
			gid, vc = t.agid, t.avc
		}
		if src.rg.buf.dtype.IsFloat() {
			err = tmaCopyIn(t, op, src, dst, offs, n, &floatMem, dst.buf.f, roundSlice, gid, vc)
		} else {
			err = tmaCopyIn(t, op, src, dst, offs, n, &intMem, dst.buf.i, wrapSlice, gid, vc)
		}
		if err != nil {
			return err
		}
		bytes = n * dst.buf.dtype.Bytes()
	case *view:
		if err := t.checkView(op, src, false); err != nil {
			return err
		}
		if err := t.raceAccess(op, src.buf, src, nil, false); err != nil {
			return err
		}
		switch dst := regs[args[1]].ref.(type) {
		case *descVal:
			n, err := t.checkBlock(op, dst, src, offs)
			if err != nil {
				return err
			}
			if to := dst.rg.buf; src.buf.f != nil && floatMem.kind(to) {
				tmaStore(to, &floatMem, copyOfView(src, n, src.buf.f, roundSlice, to.dtype), dst, offs)
			} else if src.buf.i != nil && intMem.kind(to) {
				tmaStore(to, &intMem, copyOfView(src, n, src.buf.i, wrapSlice, to.dtype), dst, offs)
			} else {
				return t.errAt(op, "copy of %s (%v) to %s (%v)", src.name, src.buf.dtype, dst.name, dst.dt)
			}
			bytes = n * dst.dt.Bytes()
		case *view:
			if err := t.checkView(op, dst, true); err != nil {
				return err
			}
			n := ir.NumElements(src.shape)
			if n != ir.NumElements(dst.shape) {
				return t.errAt(op, "copy of %s %v into %s %v", src.name, src.shape, dst.name, dst.shape)
			}
			lo, hi := dst.span()
			if err := t.checkWgmmaReads(op, dst.buf, lo, hi); err != nil {
				return err
			}
			if err := t.raceAccess(op, dst.buf, dst, nil, true); err != nil {
				return err
			}
			if src.buf.f != nil && dst.buf.f != nil {
				scatter(dst.buf.f, copyOfView(src, n, src.buf.f, roundSlice, dst.buf.dtype), dst.shape, dst.strides, dst.off)
			} else if src.buf.i != nil && dst.buf.i != nil {
				scatter(dst.buf.i, copyOfView(src, n, src.buf.i, wrapSlice, dst.buf.dtype), dst.shape, dst.strides, dst.off)
			} else {
				return t.errAt(op, "copy between %v and %v buffers", src.buf.dtype, dst.buf.dtype)
			}
			bytes = n * dst.buf.dtype.Bytes()
		default:
			return t.errAt(op, "copy destination must be a descriptor or a shared buffer")
		}
	default:
		return t.errAt(op, "copy source must be a descriptor or a shared buffer")
	}
	if bar != nil {
		bar.completeTx(t, int64(bytes))
	}
	return nil
}

// tmaCopyIn is a TMA load of the block at offs of src into dst: from
// reaches src's elements of one kind, to is dst's storage of that kind,
// fix converts to dst's dtype (not called when src's buffer has it: its
// elements are already exact in it); the race check records the write as
// goroutine gid with clock vc.
func tmaCopyIn[T float64 | int64](t *thread, op *ir.Op, src *descVal, dst *view, offs []int, n int, from *elemMem[T], to []T, fix func(ir.DType, []T), gid int, vc vclock) error {
	if to == nil {
		return t.errAt(op, "copy of %v into %s, a buffer of %v", src.dt, dst.name, dst.buf.dtype)
	}
	lo, hi := dst.span()
	if err := t.checkWgmmaReads(op, dst.buf, lo, hi); err != nil {
		return err
	}
	if err := t.raceAccessAs(op, dst.buf, dst, nil, raceWrite, gid, vc); err != nil {
		return err
	}
	same := src.rg.buf.dtype == dst.buf.dtype
	if same && denseView(dst.shape, dst.strides) {
		// the box's row-major order is the view's, which holds it in
		// [off, off+n): straight in, with nothing to convert
		tmaLoad(to[dst.off:dst.off+n], src.rg.buf, from, src, offs)
		return nil
	}
	tmp := make([]T, n)
	tmaLoad(tmp, src.rg.buf, from, src, offs)
	if !same {
		fix(dst.buf.dtype, tmp)
	}
	scatter(to, tmp, dst.shape, dst.strides, dst.off)
	return nil
}

// denseView reports whether a view of shape and strides holds its
// elements one after another in row-major order (dimensions of extent 1
// aside).
func denseView(shape, strides []int) bool {
	want := 1
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] == 1 {
			continue
		}
		if strides[d] != want {
			return false
		}
		want *= shape[d]
	}
	return true
}

// copyOfView returns a fresh copy of the n elements of v, row-major, from
// mem, v's buffer's storage of their kind, converted by fix to dtype d.
func copyOfView[T float64 | int64](v *view, n int, mem []T, fix func(ir.DType, []T), d ir.DType) []T {
	tmp := make([]T, n)
	gather(tmp, mem, v.shape, v.strides, v.off)
	fix(d, tmp)
	return tmp
}

func (t *thread) checkBlock(op *ir.Op, d *descVal, v *view, offs []int) (int, error) {
	if len(offs) != len(d.block) {
		return 0, t.errAt(op, "copy through %s needs %d offsets, got %d", d.name, len(d.block), len(offs))
	}
	// the view is the block less any of its unit dimensions (a [1, 1, 64,
	// 128] block into a [64, 128] view): the same elements in the same
	// row-major order, so the copy gathers and scatters them in order
	if _, ok := ir.BlockViewDims(d.block, v.shape); !ok {
		return 0, t.errAt(op, "copy of a %v block of %s and %s of shape %v (the view must be the block less any of its dimensions of extent 1)", d.block, d.name, v.name, v.shape)
	}
	// the hardware's rule (run 68: an illegal instruction on the GPU
	// otherwise): the box starts on a 16-byte boundary in its innermost
	// dimension; out-of-bounds offsets are fine, misaligned ones are not
	if eb, in := d.dt.Bytes(), offs[len(offs)-1]; in*eb%16 != 0 {
		return 0, t.errAt(op, "copy through %s at offsets %v: the innermost offset %d is %d bytes, not a multiple of 16 as TMA needs (on the GPU, an illegal instruction)", d.name, offs, in, in*eb)
	}
	return ir.NumElements(d.block), nil
}

// tmaLoad reads the block at offs (row-major) from a descriptor's tensor
// in buffer b (m reaching its elements); elements outside the tensor read
// as zero. It goes a row of the block at a time: one copy (or one read)
// of the row's part inside the tensor.
func tmaLoad[T float64 | int64](dst []T, b *Buffer, m *elemMem[T], d *descVal, offs []int) {
	src := m.wide(b)
	w, s := blockRow(d)
	blockRows(d, offs, func(k, addr, lo, hi int) {
		row := dst[k : k+w]
		clear(row[:lo])
		clear(row[hi:])
		switch {
		case s == 1 && src != nil:
			copy(row[lo:hi], src[addr+lo:addr+hi])
		case s == 1:
			m.read(b, row[lo:hi], addr+lo)
		default:
			for j := lo; j < hi; j++ {
				row[j] = m.get(b, addr+j*s)
			}
		}
	})
}

// tmaStore writes a block at offs of buffer b (m reaching its elements),
// dropping elements outside the tensor; src holds values of b's dtype.
func tmaStore[T float64 | int64](b *Buffer, m *elemMem[T], src []T, d *descVal, offs []int) {
	dst := m.wide(b)
	w, s := blockRow(d)
	blockRows(d, offs, func(k, addr, lo, hi int) {
		row := src[k : k+w]
		switch {
		case s == 1 && dst != nil:
			copy(dst[addr+lo:addr+hi], row[lo:hi])
		case s == 1:
			m.write(b, addr+lo, row[lo:hi])
		default:
			for j := lo; j < hi; j++ {
				m.set(b, addr+j*s, row[j])
			}
		}
	})
}

// blockRow is the length of a row of d's block (its last dimension) and
// the row's stride in the tensor (1 and 1 for a block of rank 0).
func blockRow(d *descVal) (w, s int) {
	if r := len(d.block); r > 0 {
		return d.block[r-1], d.strides[r-1]
	}
	return 1, 1
}

// blockRows calls fn(k, addr, lo, hi) for each row of the block at offs,
// in row-major order: k is the row's first element in the block, and its
// elements lo <= j < hi lie inside the tensor, at buffer index addr + j*s
// (s: blockRow's), the others outside it (all of them when lo == hi, and
// then addr is 0).
func blockRows(d *descVal, offs []int, fn func(k, addr, lo, hi int)) {
	rank := len(d.block)
	if rank == 0 {
		fn(0, d.base, 0, 1)
		return
	}
	inner := rank - 1
	w, g0 := d.block[inner], offs[inner]
	a := min(max(-g0, 0), w)
	b := max(min(d.shape[inner]-g0, w), a)
	idx := make([]int, inner)
	n := ir.NumElements(d.block)
	for k := 0; k < n; k += w {
		addr := d.base + g0*d.strides[inner]
		in := a < b
		for r := 0; in && r < inner; r++ {
			g := offs[r] + idx[r]
			if g < 0 || g >= d.shape[r] {
				in = false
				break
			}
			addr += g * d.strides[r]
		}
		if in {
			fn(k, addr, a, b)
		} else {
			fn(k, 0, 0, 0)
		}
		for r := inner - 1; r >= 0; r-- {
			idx[r]++
			if idx[r] < d.block[r] {
				break
			}
			idx[r] = 0
		}
	}
}

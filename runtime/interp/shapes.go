package interp

// join, split and flip: the shape builtins of issue 35 that move elements.

// join: out[k, 0] = a[k], out[k, 1] = b[k] (row-major, the pair last).
func (t *thread) join(in *instr) error {
	sa, sb, so := t.info(in.args[0]), t.info(in.args[1]), t.info(in.res[0])
	if sa.n != sb.n || so.n != 2*sa.n || sa.float != so.float || sb.float != so.float {
		return t.errAt(in.op, "join of %v and %v into %v", sa.typ, sb.typ, so.typ)
	}
	a, b := t.arg(in, 0), t.arg(in, 1)
	v := t.out(in, 0)
	if v.f != nil {
		interleaveInto(v.f, a.f, b.f)
	} else {
		interleaveInto(v.i, a.i, b.i)
	}
	return nil
}

func interleaveInto[T float64 | int64](dst, a, b []T) {
	for k := range a {
		dst[2*k] = a[k]
		dst[2*k+1] = b[k]
	}
}

// split: out0[k] = x[k, 0], out1[k] = x[k, 1].
func (t *thread) split(in *instr) error {
	sx, s0, s1 := t.info(in.args[0]), t.info(in.res[0]), t.info(in.res[1])
	if sx.n != 2*s0.n || s0.n != s1.n || sx.float != s0.float || sx.float != s1.float {
		return t.errAt(in.op, "split of %v into %v and %v", sx.typ, s0.typ, s1.typ)
	}
	x := t.arg(in, 0)
	v0, v1 := t.out(in, 0), t.out(in, 1)
	if x.f != nil {
		deinterleave(v0.f, v1.f, x.f)
	} else {
		deinterleave(v0.i, v1.i, x.i)
	}
	return nil
}

func deinterleave[T float64 | int64](d0, d1, x []T) {
	for k := range d0 {
		d0[k] = x[2*k]
		d1[k] = x[2*k+1]
	}
}

// flip reverses the tile along axis: a gather starting at the axis's last
// element with a negative stride there.
func (t *thread) flip(in *instr) error {
	si, so := t.info(in.args[0]), t.info(in.res[0])
	axis := int(in.op.Attrs.Int("axis", 0))
	if axis < 0 || axis >= len(si.shape) || si.n != so.n {
		return t.errAt(in.op, "flip of %v along axis %d", si.typ, axis)
	}
	strides := rowMajorStrides(si.shape)
	base := (si.shape[axis] - 1) * strides[axis]
	strides[axis] = -strides[axis]
	a := t.arg(in, 0)
	v := t.out(in, 0)
	if v.f != nil {
		gather(v.f, a.f, so.shape, strides, base)
	} else {
		gather(v.i, a.i, so.shape, strides, base)
	}
	return nil
}

// extractSlice copies the sub-tile at starts: a gather from the operand's
// row-major strides, starting at the first element of the slice.
func (t *thread) extractSlice(in *instr) error {
	si, so := t.info(in.args[0]), t.info(in.res[0])
	starts := in.op.Attrs.Ints("starts")
	if len(starts) != len(si.shape) || len(so.shape) != len(si.shape) {
		return t.errAt(in.op, "extract_slice of %v at %v into %v", si.typ, starts, so.typ)
	}
	strides := rowMajorStrides(si.shape)
	base := 0
	for d, st := range starts {
		if st < 0 || st+so.shape[d] > si.shape[d] {
			return t.errAt(in.op, "extract_slice of %v at %v into %v", si.typ, starts, so.typ)
		}
		base += st * strides[d]
	}
	a := t.arg(in, 0)
	v := t.out(in, 0)
	if v.f != nil {
		gather(v.f, a.f, so.shape, strides, base)
	} else {
		gather(v.i, a.i, so.shape, strides, base)
	}
	return nil
}

package interp

import (
	"fmt"
)

// gatherOp runs gather (Triton's tl.gather): out[..., i, ...] =
// src[..., index[..., i, ...], ...] along axis. An index outside the source's
// extent along axis is an error naming the element and its value.
func (t *thread) gatherOp(in *instr) error {
	si, ii, so := t.info(in.args[0]), t.info(in.args[1]), t.info(in.res[0])
	axis := int(in.op.Attrs.Int("axis", 0))
	if axis < 0 || axis >= len(si.shape) || len(ii.shape) != len(si.shape) {
		return t.errAt(in.op, "gather: axis %d of %v indexed by %v", axis, si.typ, ii.typ)
	}
	src, idx := t.arg(in, 0), t.arg(in, 1)
	v := t.out(in, 0)
	ss, os := rowMajorStrides(si.shape), rowMajorStrides(so.shape)
	n := si.shape[axis]
	for k := range so.n {
		j := idx.i[k]
		if j < 0 || j >= int64(n) {
			return t.errAt(in.op, "gather: index %d at %s is out of range [0, %d) along axis %d of %v", j, coordString(k, so.shape), n, axis, si.typ)
		}
		s, r := 0, k
		for d := range so.shape {
			c := r / os[d]
			r %= os[d]
			if d == axis {
				c = int(j)
			}
			s += c * ss[d]
		}
		if v.f != nil {
			v.f[k] = src.f[s]
		} else {
			v.i[k] = src.i[s]
		}
	}
	return nil
}

// butterfly runs butterfly: out[..., i, ...] = x[..., i^mask, ...] along
// axis.
func (t *thread) butterfly(in *instr) error {
	si := t.info(in.args[0])
	axis := int(in.op.Attrs.Int("axis", 0))
	mask := int(in.op.Attrs.Int("mask", 0))
	if axis < 0 || axis >= len(si.shape) || mask <= 0 || mask >= si.shape[axis] || si.shape[axis]&(si.shape[axis]-1) != 0 {
		return t.errAt(in.op, "butterfly: mask %d along axis %d of %v", mask, axis, si.typ)
	}
	x := t.arg(in, 0)
	v := t.out(in, 0)
	st := rowMajorStrides(si.shape)[axis]
	n := si.shape[axis]
	for k := range si.n {
		c := k / st % n
		p := k + ((c^mask)-c)*st
		if v.f != nil {
			v.f[k] = x.f[p]
		} else {
			v.i[k] = x.i[p]
		}
	}
	return nil
}

// coordString is the coordinates of row-major element k of shape: [1, 2].
func coordString(k int, shape []int) string {
	c := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		c[d] = k % shape[d]
		k /= shape[d]
	}
	return fmt.Sprint(c)
}

package interp

import (
	"fmt"
	"strings"
)

// The compiler hints (multiple_of, max_contiguous, max_constancy: the
// axis_hint op; assume) are facts the GPU compiler takes on trust: a
// kernel that states a false one would be miscompiled there (a vector
// access that is not aligned, a run that is not consecutive). The
// interpreter checks each one every time it runs and reports a false one
// at the hint's position.
//
// What is checked is the axis analysis's reading of the facts
// (gpu.AxisInfo), along each axis d of the value (a scalar has one):
//   - contiguity c: in every run of c elements along d that starts at an
//     index multiple of c, each element is the one before plus 1 (a
//     pointer: the next element of its buffer);
//   - constancy c: in every such run the elements are equal;
//   - divisibility n: the first element of every run of consecutive
//     values along d is a multiple of n (a pointer: its byte offset in its
//     buffer, whose base the launch aligns). The runs are the longest
//     aligned ones the data has along d (a power of two, T_d); when T_d is
//     1 the elements checked are those that start a run along the other
//     axes, as Triton's multiple_of(ptrs, [16, 16]) of a row-major tile
//     means.

// axisHint checks an axis_hint op's facts on its operand and passes the
// operand through.
func (t *thread) axisHint(in *instr) error {
	si := t.info(in.args[0])
	a := t.arg(in, 0)
	n := si.n
	x := t.bcastI(a.i, n, 0)[:n]
	shape := si.shape
	if len(shape) == 0 {
		shape = []int{1}
	}
	strides := make([]int, len(shape))
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = s
		s *= shape[d]
	}
	h := hintCheck{t: t, in: in, x: x, shape: shape, strides: strides, ptr: si.ptr, eb: int64(si.dt.Bytes())}
	for _, c := range []struct {
		attr string
		run  func(d int, v int64) error
	}{
		{"contiguity", func(d int, v int64) error { return h.runs(d, v, "max_contiguous", true) }},
		{"constancy", func(d int, v int64) error { return h.runs(d, v, "max_constancy", false) }},
		{"divisibility", h.divisible},
	} {
		for d, v := range in.op.Attrs.Ints(c.attr) {
			if d < len(shape) {
				if err := c.run(d, int64(v)); err != nil {
					return err
				}
			}
		}
	}
	out := t.out(in, 0)
	copy(out.i, x)
	return nil
}

type hintCheck struct {
	t       *thread
	in      *instr
	x       []int64
	shape   []int
	strides []int
	ptr     bool
	eb      int64
}

// index is the multi-index of flat element k.
func (h *hintCheck) index(k int) []int {
	idx := make([]int, len(h.shape))
	for d, s := range h.strides {
		idx[d] = k / s % h.shape[d]
	}
	return idx
}

func (h *hintCheck) where(k int) string {
	if len(h.x) == 1 {
		return "the value"
	}
	parts := make([]string, len(h.shape))
	for d, i := range h.index(k) {
		parts[d] = fmt.Sprint(i)
	}
	return "element (" + strings.Join(parts, ", ") + ")"
}

func (h *hintCheck) show(k int) string {
	if h.ptr {
		id, off := unpack(h.x[k])
		name := "?"
		if rg := h.t.c.l.reg.get(id); rg != nil {
			name = rg.name
		}
		return fmt.Sprintf("a pointer to element %d of %s", off, name)
	}
	return fmt.Sprint(h.x[k])
}

// step reports whether element k continues element k - stride along d
// (the next value, consecutive, or the same one).
func (h *hintCheck) step(k, stride int, consecutive bool) bool {
	if consecutive {
		return h.x[k] == h.x[k-stride]+1
	}
	return h.x[k] == h.x[k-stride]
}

// runs checks max_contiguous (consecutive) or max_constancy: aligned runs
// of c elements along d (of at most the axis's length).
func (h *hintCheck) runs(d int, c int64, name string, consecutive bool) error {
	what := "equal"
	if consecutive {
		what = "consecutive"
	}
	for k := range h.x {
		i := h.index(k)[d]
		if int64(i)%c != 0 && !h.step(k, h.strides[d], consecutive) {
			return h.t.errAt(h.in.op, "%s(x, %d) along axis %d is false: %s is %s and the one before it %s, in a run of %d that should be %s (a false hint is miscompiled on the GPU)",
				name, c, d, h.where(k), h.show(k), h.show(k-h.strides[d]), c, what)
		}
	}
	return nil
}

// runLen is T_d: the longest power-of-two run length, aligned, of
// consecutive values along d.
func (h *hintCheck) runLen(d int) int {
	t := 1
	for t*2 <= h.shape[d] {
		t *= 2
	}
	for k := range h.x {
		i := h.index(k)[d]
		if i%t != 0 && !h.step(k, h.strides[d], true) {
			for i%t != 0 {
				t /= 2
			}
		}
	}
	return t
}

// divisible checks multiple_of(x, n) along d.
func (h *hintCheck) divisible(d int, n int64) error {
	runs := make([]int, len(h.shape))
	for e := range h.shape {
		runs[e] = h.runLen(e)
	}
	for k := range h.x {
		idx := h.index(k)
		if idx[d]%runs[d] != 0 {
			continue
		}
		start := true
		for e, i := range idx {
			if e != d && runs[d] == 1 && i%runs[e] != 0 {
				start = false
			}
		}
		if !start {
			continue
		}
		v := h.x[k]
		if h.ptr {
			_, off := unpack(v)
			v = off * h.eb
		}
		if v%n != 0 {
			unit := ""
			if h.ptr {
				unit = fmt.Sprintf(" (byte offset %d)", v)
			}
			return h.t.errAt(h.in.op, "multiple_of(x, %d) along axis %d is false: %s, which starts a run, is %s%s, not a multiple of %d (a false hint is miscompiled on the GPU)",
				n, d, h.where(k), h.show(k), unit, n)
		}
	}
	return nil
}

// assume checks assume(cond).
func (t *thread) assume(in *instr) error {
	c := t.arg(in, 0)
	if len(c.i) > 0 && c.i[0] == 0 {
		return t.errAt(in.op, "assume: the condition is false (the GPU compiles the kernel as if it held)")
	}
	return nil
}

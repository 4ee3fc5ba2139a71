package interp

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// ---- dot

func (t *thread) dotOp(in *instr) error {
	ia, ib, so := t.info(in.args[0]), t.info(in.args[1]), t.info(in.res[0])
	r := len(so.shape)
	if r != 2 && r != 3 || len(ia.shape) != r || len(ib.shape) != r {
		return t.errAt(in.op, "dot needs 2-d (or batched 3-d) tiles, got %v x %v -> %v", ia.typ, ib.typ, so.typ)
	}
	B := 1
	if r == 3 {
		B = so.shape[0]
		if ia.shape[0] != B || ib.shape[0] != B {
			return t.errAt(in.op, "dot batch dimensions do not match: %v x %v -> %v", ia.typ, ib.typ, so.typ)
		}
	}
	M, K, N := ia.shape[r-2], ia.shape[r-1], ib.shape[r-1]
	if ib.shape[r-2] != K || so.shape[r-2] != M || so.shape[r-1] != N {
		return t.errAt(in.op, "dot shapes do not match: %v x %v -> %v", ia.typ, ib.typ, so.typ)
	}
	a, b := t.arg(in, 0), t.arg(in, 1)
	if so.float {
		if a.f == nil || b.f == nil {
			return t.errAt(in.op, "float dot of non-float operands")
		}
		if in.op.Attrs.String("input_precision") == "ieee" {
			// the f32 values as they are: the products exact, their sum
			// rounded once (an ideal f32 dot)
			return t.dotF(in, a.f, b.f, B, M, K, N)
		}
		return t.dotF(in, t.tf32Operand(in, 0, a.f), t.tf32Operand(in, 1, b.f), B, M, K, N)
	}
	if a.i == nil || b.i == nil {
		return t.errAt(in.op, "integer dot of non-integer operands")
	}
	v := t.out(in, 0)
	var acc []int64
	if len(in.args) > 2 {
		acc = t.bcastI(t.arg(in, 2).i, B*M*N, 0)
	}
	for bi := 0; bi < B; bi++ {
		ai, bb, o := a.i[bi*M*K:], b.i[bi*K*N:], bi*M*N
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				var s int64
				if acc != nil {
					s = acc[o+i*N+j]
				}
				for k := 0; k < K; k++ {
					s += ai[i*K+k] * bb[k*N+j]
				}
				v.i[o+i*N+j] = s
			}
		}
	}
	wrapSlice(so.dt, v.i)
	return nil
}

// tf32Operand is operand k's values as the tensor cores read them: an f32
// operand rounded to tf32 (floats.RoundTF32, cvt.rna.tf32.f32) in a
// scratch copy, any other operand as it is.
func (t *thread) tf32Operand(in *instr, k int, xs []float64) []float64 {
	if ir.ElemDType(in.op.Operands[k].Type) != ir.F32 {
		return xs
	}
	out := scratch(&t.pool.scrF[4+k], len(xs))
	for i, x := range xs {
		out[i] = floats.RoundTF32(x)
	}
	return out
}

// dotF computes acc + a[M,K] x b[K,N]: the inputs hold values of their
// dtypes already (f32 operands rounded to tf32 by tf32Operand), each
// output's products are summed in float64 (exact for the products of
// 16-bit and 8-bit floats and of tf32 values), added to the accumulator and
// rounded once to the result dtype.
func (t *thread) dotF(in *instr, a, b []float64, B, M, K, N int) error {
	so := t.info(in.res[0])
	var acc []float64
	if len(in.args) > 2 {
		x := t.arg(in, 2)
		if x.f == nil {
			return t.errAt(in.op, "dot accumulator is not a float tile")
		}
		acc = t.bcastF(x.f, B*M*N, 2)
	}
	v := t.out(in, 0)
	if len(a) < B*M*K || len(b) < B*K*N {
		return t.errAt(in.op, "dot operands are too small for %dx%dx%dx%d", B, M, K, N)
	}
	all, allAcc, allOut := a, acc, v.f
	for bi := 0; bi < B; bi++ {
		a, b := all[bi*M*K:(bi+1)*M*K], b[bi*K*N:(bi+1)*K*N]
		if allAcc != nil {
			acc = allAcc[bi*M*N : (bi+1)*M*N]
		}
		if err := t.dotF1(a, b, acc, allOut[bi*M*N:(bi+1)*M*N], M, K, N); err != nil {
			return err
		}
	}
	roundSlice(so.dt, v.f)
	return nil
}

// dotF1 is one product of dotF: out = acc + a[M,K] x b[K,N], in float64.
// Rows go two at a time so each loaded row of b serves both; every output
// element still sums its products in the same order (k in fours, then the
// rest), so the result does not depend on the pairing.
func (t *thread) dotF1(a, b, acc, vf []float64, M, K, N int) error {
	buf := scratch(&t.pool.scrF[3], 2*N)
	t0, t1 := buf[:N], buf[N:2*N]
	i := 0
	for ; i+2 <= M; i += 2 {
		clear(t0)
		clear(t1)
		r0, r1 := a[i*K:(i+1)*K], a[(i+1)*K:(i+2)*K]
		k := 0
		for ; k+4 <= K; k += 4 {
			b0 := b[k*N : k*N+N][:len(t0)]
			b1 := b[(k+1)*N : (k+1)*N+N][:len(t0)]
			b2 := b[(k+2)*N : (k+2)*N+N][:len(t0)]
			b3 := b[(k+3)*N : (k+3)*N+N][:len(t0)]
			a0, a1, a2, a3 := r0[k], r0[k+1], r0[k+2], r0[k+3]
			c0, c1, c2, c3 := r1[k], r1[k+1], r1[k+2], r1[k+3]
			t1 := t1[:len(t0)]
			for j := range t0 {
				x0, x1, x2, x3 := b0[j], b1[j], b2[j], b3[j]
				t0[j] += a0*x0 + a1*x1 + a2*x2 + a3*x3
				t1[j] += c0*x0 + c1*x1 + c2*x2 + c3*x3
			}
		}
		for ; k < K; k++ {
			b0 := b[k*N : k*N+N][:len(t0)]
			a0, c0 := r0[k], r1[k]
			t1 := t1[:len(t0)]
			for j := range t0 {
				t0[j] += a0 * b0[j]
				t1[j] += c0 * b0[j]
			}
		}
		dotRow(vf[i*N:(i+1)*N], acc, i*N, t0)
		dotRow(vf[(i+1)*N:(i+2)*N], acc, (i+1)*N, t1)
	}
	for ; i < M; i++ {
		clear(t0)
		arow := a[i*K : (i+1)*K]
		k := 0
		for ; k+4 <= K; k += 4 {
			a0, a1, a2, a3 := arow[k], arow[k+1], arow[k+2], arow[k+3]
			b0 := b[k*N : k*N+N][:len(t0)]
			b1 := b[(k+1)*N : (k+1)*N+N][:len(t0)]
			b2 := b[(k+2)*N : (k+2)*N+N][:len(t0)]
			b3 := b[(k+3)*N : (k+3)*N+N][:len(t0)]
			for j := range t0 {
				t0[j] += a0*b0[j] + a1*b1[j] + a2*b2[j] + a3*b3[j]
			}
		}
		for ; k < K; k++ {
			a0 := arow[k]
			b0 := b[k*N : k*N+N][:len(t0)]
			for j := range t0 {
				t0[j] += a0 * b0[j]
			}
		}
		dotRow(vf[i*N:(i+1)*N], acc, i*N, t0)
	}
	return nil
}

// dotRow writes one row of dotF1's result: acc's row at off plus the
// products, or the products alone without acc.
func dotRow(out, acc []float64, off int, tmp []float64) {
	if acc == nil {
		copy(out, tmp)
		return
	}
	arow := acc[off : off+len(out)]
	tmp = tmp[:len(out)]
	for j := range out {
		out[j] = arow[j] + tmp[j]
	}
}

// wgmma is dot with operands in shared memory (or A in registers);
// trans_a / trans_b say an operand is stored [K, M] / [N, K].
func (t *thread) wgmma(in *instr) error {
	so := t.info(in.res[0])
	if len(so.shape) != 2 || !so.float {
		return t.errAt(in.op, "wgmma needs a 2-d float accumulator, got %v", so.typ)
	}
	M, N := so.shape[0], so.shape[1]
	operand := func(k int, trans bool) ([]float64, []int, error) {
		x := t.arg(in, k)
		if v, ok := x.ref.(*view); ok {
			if len(v.shape) != 2 {
				return nil, nil, t.errAt(in.op, "wgmma operand %s is not 2-d", v.name)
			}
			w := *v
			if trans {
				w.shape = []int{v.shape[1], v.shape[0]}
				w.strides = []int{v.strides[1], v.strides[0]}
			}
			d, err := t.readViewF(in.op, &w, k)
			return d, w.shape, err
		}
		si := t.info(in.args[k])
		if x.f == nil || len(si.shape) != 2 {
			return nil, nil, t.errAt(in.op, "wgmma operand %d must be a 2-d float tile or a shared buffer", k)
		}
		if !trans {
			return x.f, si.shape, nil
		}
		shape := []int{si.shape[1], si.shape[0]}
		d := make([]float64, len(x.f))
		gather(d, x.f, shape, []int{1, si.shape[1]}, 0)
		return d, shape, nil
	}
	a, sa, err := operand(0, in.op.Attrs.Bool("trans_a"))
	if err != nil {
		return err
	}
	b, sb, err := operand(1, in.op.Attrs.Bool("trans_b"))
	if err != nil {
		return err
	}
	if sa[0] != M || sb[1] != N || sa[1] != sb[0] {
		return t.errAt(in.op, "wgmma shapes do not match: %v x %v -> %v", sa, sb, so.shape)
	}
	va, _ := t.arg(in, 0).ref.(*view)
	vb, _ := t.arg(in, 1).ref.(*view)
	t.wgmmaIssued(in.op, va, vb)
	return t.dotF(in, t.tf32Operand(in, 0, a), t.tf32Operand(in, 1, b), 1, M, sa[1], N)
}

// ---- reductions

func (t *thread) reduce(in *instr) error { return t.fold(in, false) }
func (t *thread) scan(in *instr) error   { return t.fold(in, true) }

// fold runs reduce (scan=false) or scan along an axis, accumulating in the
// result dtype: every step is rounded to it.
func (t *thread) fold(in *instr, scan bool) error {
	op := in.op
	si, so := t.info(in.args[0]), t.info(in.res[0])
	shape := si.shape
	if len(shape) == 0 {
		shape = []int{1}
	}
	axis := int(op.Attrs.Int("axis", 0))
	if axis < 0 {
		axis += len(shape)
	}
	if axis < 0 || axis >= len(shape) {
		return t.errAt(op, "%s: axis %d of a rank-%d tile", op.Kind, axis, len(shape))
	}
	outer, inner := 1, 1
	for d := 0; d < axis; d++ {
		outer *= shape[d]
	}
	for d := axis + 1; d < len(shape); d++ {
		inner *= shape[d]
	}
	r := shape[axis]
	kind := op.Attrs.String("kind")
	if kind == "" {
		kind = "sum"
	}
	if kind != "sum" && kind != "max" && kind != "min" && kind != "prod" && kind != "combine" && (scan || kind != "or" && kind != "xor") {
		return t.errAt(op, "%s: unknown kind %q", op.Kind, kind)
	}
	reverse := scan && op.Attrs.Bool("reverse")
	if kind == "combine" {
		return t.foldCombine(in, [3]int{outer, r, inner}, scan, reverse)
	}
	x := t.arg(in, 0)
	v := t.out(in, 0)
	if so.float {
		src := asF(x, si)
		dst := v.f
		dt := so.dt
		step := func(acc, y float64) float64 {
			switch kind {
			case "sum":
				return roundOne(dt, acc+y)
			case "prod":
				return roundOne(dt, acc*y)
			case "max":
				if y > acc || acc != acc {
					return y
				}
			case "min":
				if y < acc || acc != acc {
					return y
				}
			}
			return acc
		}
		if kind == "sum" && !scan && inner == 1 && dt == ir.F32 && si.dt == ir.F32 && len(src) >= outer*r && r > 0 {
			// the common row sum of f32 into f32: step's arithmetic in
			// float32. The elements are exact in f32, and float32 addition
			// rounds exactly as float64(float32(acc + y)) does (a float64
			// sum of two float32 values is rounded once, correctly), so
			// the bits are those of the general loop, with no conversions
			// on the dependency chain.
			for o := 0; o < outer; o++ {
				row := src[o*r : (o+1)*r]
				acc := float32(row[0])
				for _, y := range row[1:] {
					acc += float32(y)
				}
				dst[o] = float64(acc)
			}
			return nil
		}
		for o := 0; o < outer; o++ {
			for j := 0; j < inner; j++ {
				var acc float64
				for q := 0; q < r; q++ {
					qq := q
					if reverse {
						qq = r - 1 - q
					}
					y := src[(o*r+qq)*inner+j]
					if q == 0 {
						acc = roundOne(dt, y)
					} else {
						acc = step(acc, y)
					}
					if scan {
						dst[(o*r+qq)*inner+j] = acc
					}
				}
				if !scan {
					dst[o*inner+j] = acc
				}
			}
		}
		return nil
	}
	if x.i == nil {
		return t.errAt(op, "%s of floats into %v", op.Kind, so.dt)
	}
	src, dst := x.i, v.i
	u := so.dt.IsUnsigned()
	for o := 0; o < outer; o++ {
		for j := 0; j < inner; j++ {
			var acc int64
			for q := 0; q < r; q++ {
				qq := q
				if reverse {
					qq = r - 1 - q
				}
				y := src[(o*r+qq)*inner+j]
				switch {
				case q == 0:
					acc = y
				case kind == "sum":
					acc = wrap(so.dt, acc+y)
				case kind == "prod":
					acc = wrap(so.dt, acc*y)
				case kind == "or":
					acc |= y
				case kind == "xor":
					acc ^= y
				case kind == "max" && less(acc, y, u), kind == "min" && less(y, acc, u):
					acc = y
				}
				if scan {
					dst[(o*r+qq)*inner+j] = acc
				}
			}
			if !scan {
				dst[o*inner+j] = acc
			}
		}
	}
	return nil
}

// foldCombine is fold for kind combine: the op's region combines two
// sets of scalars (one of each operand: a0..an-1 with b0..bn-1), left to
// right along the axis (right to left for a reversed scan). dims is
// (outer, axis length, inner).
func (t *thread) foldCombine(in *instr, dims [3]int, scan, reverse bool) error {
	n := len(in.args)
	if len(in.res) != n || len(in.regions) != 1 || len(in.regions[0].args) != 2*n || in.regions[0].term == nil || len(in.regions[0].term.args) != n {
		return t.errAt(in.op, "%s combine: malformed region", in.op.Kind)
	}
	b := in.regions[0]
	regs := t.c.regs
	xs, vs := make([]val, n), make([]val, n)
	for k := range xs {
		xs[k] = t.arg(in, k)
	}
	for k := range vs {
		vs[k] = t.out(in, k)
	}
	// the accumulators, one per operand (float or integer as its dtype)
	af, ai := make([]float64, n), make([]int64, n)
	take := func(k, e int) {
		if vs[k].f != nil {
			af[k] = xs[k].f[e]
		} else {
			ai[k] = xs[k].i[e]
		}
	}
	put := func(k, e int) {
		if vs[k].f != nil {
			vs[k].f[e] = af[k]
		} else {
			vs[k].i[e] = ai[k]
		}
	}
	outer, r, inner := dims[0], dims[1], dims[2]
	for o := 0; o < outer; o++ {
		for j := 0; j < inner; j++ {
			for q := 0; q < r; q++ {
				qq := q
				if reverse {
					qq = r - 1 - q
				}
				e := (o*r+qq)*inner + j
				if q == 0 {
					for k := 0; k < n; k++ {
						take(k, e)
					}
				} else {
					for k := 0; k < n; k++ {
						va, vb := t.newVal(b.args[k]), t.newVal(b.args[n+k])
						if vs[k].f != nil {
							va.f[0], vb.f[0] = af[k], xs[k].f[e]
						} else {
							va.i[0], vb.i[0] = ai[k], xs[k].i[e]
						}
						regs[b.args[k]], regs[b.args[n+k]] = va, vb
					}
					if err := t.run(b); err != nil {
						return err
					}
					for k := 0; k < n; k++ {
						res := regs[b.term.args[k]]
						if vs[k].f != nil {
							af[k] = res.f[0]
						} else {
							ai[k] = res.i[0]
						}
					}
				}
				if scan {
					for k := 0; k < n; k++ {
						put(k, e)
					}
				}
			}
			if !scan {
				for k := 0; k < n; k++ {
					put(k, o*inner+j)
				}
			}
		}
	}
	return nil
}

// ---- print and assert

func (t *thread) print(in *instr) error {
	var b strings.Builder
	c := t.c
	fmt.Fprintf(&b, "pid (%d, %d, %d)", c.pid[0], c.pid[1], c.pid[2])
	if t.roleIdx >= 0 {
		fmt.Fprintf(&b, " role %s%s", t.role, t.copy)
	}
	if p := in.op.Attrs.String("prefix"); p != "" {
		b.WriteString(" " + p)
	}
	for _, s := range in.args {
		b.WriteByte(' ')
		t.format(&b, c.regs[s], t.info(s))
	}
	b.WriteByte('\n')
	l := c.l
	l.printMu.Lock()
	defer l.printMu.Unlock()
	_, err := io.WriteString(l.out, b.String())
	if err != nil {
		return t.errAt(in.op, "print: %v", err)
	}
	return nil
}

func (t *thread) format(b *strings.Builder, v val, si *slotInfo) {
	if si.ref {
		fmt.Fprintf(b, "%v", si.typ)
		return
	}
	elem := func(k int) string {
		switch {
		case v.f != nil:
			return strconv.FormatFloat(v.f[k], 'g', -1, 64)
		case si.ptr:
			id, off := unpack(v.i[k])
			name := "?"
			if rg := t.c.l.reg.get(id); rg != nil {
				name = rg.name
			}
			return fmt.Sprintf("&%s[%d]", name, off)
		case si.dt == ir.U64:
			return strconv.FormatUint(uint64(v.i[k]), 10)
		}
		return strconv.FormatInt(v.i[k], 10)
	}
	if len(si.shape) == 0 {
		b.WriteString(elem(0))
		return
	}
	var rec func(d, base int)
	strides := rowMajorStrides(si.shape)
	rec = func(d, base int) {
		b.WriteByte('[')
		for k := 0; k < si.shape[d]; k++ {
			if k > 0 {
				b.WriteByte(' ')
			}
			if d == len(si.shape)-1 {
				b.WriteString(elem(base + k))
			} else {
				rec(d+1, base+k*strides[d])
			}
		}
		b.WriteByte(']')
	}
	rec(0, 0)
}

func (t *thread) assert(in *instr) error {
	if len(in.args) == 0 {
		return nil
	}
	c := t.arg(in, 0)
	for k := 0; k < len(c.i)+len(c.f); k++ {
		ok := (c.i != nil && c.i[k] != 0) || (c.f != nil && c.f[k] != 0 && !math.IsNaN(c.f[k]))
		if !ok {
			msg := in.op.Attrs.String("msg")
			if msg == "" {
				msg = "assertion failed"
			} else {
				msg = "assertion failed: " + msg
			}
			if len(c.i)+len(c.f) > 1 {
				msg += fmt.Sprintf(" (element %d)", k)
			}
			return t.errAt(in.op, "%s", msg)
		}
	}
	return nil
}

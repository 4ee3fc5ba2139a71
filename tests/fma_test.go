package tests

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// fmaSrc is one element-wise fma kernel per float dtype (fma_f32, fma_f16,
// fma_bf16, fma_f64) and fma_scaled.
var fmaSrc = func() string {
	var b strings.Builder
	for _, dt := range []string{"f32", "f16", "bf16", "f64"} {
		fmt.Fprintf(&b, `
kernel fma_%[1]s(x *%[1]s, y *%[1]s, z *%[1]s, out *%[1]s, n i32) {
    offs := program_id(0)*1024 + arange(0, 1024)
    m := offs < n
    store(out + offs, fma(load(x + offs, mask: m), load(y + offs, mask: m), load(z + offs, mask: m)), mask: m)
}
`, dt)
	}
	return b.String() + fmaScaledSrc
}()

const fmaScaledSrc = `
// the attention form t*rs - m, the scale and the maximum scalars
kernel fma_scaled(x *f32, y *f32, z *f32, out *f32, n i32) {
    offs := program_id(0)*1024 + arange(0, 1024)
    m := offs < n
    t := load(x + offs, mask: m)
    store(out + offs, fma(t, load(y), -load(z)), mask: m)
}
`

// fmaFormats are the mantissa bits (without the hidden one) and the
// exponent of the smallest normal of the dtypes fma takes.
var fmaFormats = map[ir.DType]struct{ man, minExp int }{
	ir.F16: {10, -14}, ir.BF16: {7, -126}, ir.F32: {23, -126}, ir.F64: {52, -1022},
}

// fmaRef is a*b + c computed exactly (math/big) and rounded once to d, to
// nearest with ties to even, subnormals kept, overflow to infinity: the
// float64 reference, computed without float64's own rounding. Non-finite
// operands, and an exactly zero sum (whose sign IEEE 754 defines), are left
// to float64 arithmetic, exact there.
func fmaRef(d ir.DType, a, b, c float64) float64 {
	for _, v := range []float64{a, b, c} {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return d.Round(a*b + c)
		}
	}
	if r := math.FMA(a, b, c); r == 0 { // exactly 0: the operands are far above underflow
		return r
	}
	f := fmaFormats[d]
	man, minExp := f.man, f.minExp
	x := new(big.Float).SetPrec(4096).SetFloat64(a)
	x.Mul(x, new(big.Float).SetFloat64(b))
	x.Add(x, new(big.Float).SetPrec(4096).SetFloat64(c))
	e := x.MantExp(nil) - 1 // |x| in [2^e, 2^(e+1))
	prec := man + 1
	if e < minExp {
		prec -= minExp - e // a subnormal: fewer bits
	}
	if prec <= 0 { // below the smallest subnormal q: 0 or q, ties to 0 (even)
		q := math.Ldexp(1, minExp-man)
		half := new(big.Float).SetFloat64(q / 2)
		if new(big.Float).Abs(x).Cmp(half) > 0 {
			return math.Copysign(q, float64(x.Sign()))
		}
		return math.Copysign(0, float64(x.Sign()))
	}
	r, _ := new(big.Float).SetPrec(uint(prec)).SetMode(big.ToNearestEven).Set(x).Float64()
	return d.Round(r) // exact but for overflow, which it rounds to infinity
}

// fmaInputs are n operand triples of d: every fourth a sum within a tiny
// fraction of an ulp of a tie of d (a*b = 2^E (1 - u^2 2^-2m), c with half
// an ulp of 2^E), where rounding a wider result to d goes to the even
// neighbour and is wrong half the time; every fourth a product that is a
// tie with a tiny c; the rest random over a wide range, with cancellation;
// the special values first. (f32 takes the first kind for both: a random
// product of two f32 values is a tie one time in 2^24.)
func fmaInputs(d ir.DType, n int, r *rand.Rand) (xs, ys, zs []float64) {
	man := fmaFormats[d].man
	xs, ys, zs = make([]float64, n), make([]float64, n), make([]float64, n)
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 3}
	for i := range xs {
		var a, b, c float64
		switch {
		case i < len(special)*len(special):
			a, b, c = special[i%len(special)], 1.5, special[i/len(special)]
		case (i%4 == 0 || i%4 == 1 && d == ir.F32) && d != ir.F64:
			u := float64(1 + r.IntN(max(2, 1<<(man/2-2))))
			exp := r.IntN(10) - 5
			a = 1 + u*math.Ldexp(1, -man)
			b = math.Ldexp(1-u*math.Ldexp(1, -man), exp-1-man)
			c = math.Ldexp(1+float64(r.IntN(1<<man))*math.Ldexp(1, -man), exp)
		case i%4 == 1 && d != ir.F64:
			for {
				a = d.Round(1 + r.Float64())
				b = d.Round(1 + r.Float64())
				p := a * b
				_, e := math.Frexp(p)
				if q := math.Ldexp(1, e-1-man); math.Mod(p/q, 1) == 0.5 {
					c = math.Ldexp(1, max(e-28-r.IntN(8), -24))
					break
				}
			}
		default:
			a = math.Ldexp(r.Float64()+0.5, r.IntN(16)-8)
			b = math.Ldexp(r.Float64()+0.5, r.IntN(16)-8)
			c = math.Ldexp(r.Float64()+0.5, r.IntN(16)-8)
			if i%3 == 0 {
				c = -a * b * (1 + math.Ldexp(r.Float64()-0.5, -man))
			}
		}
		if r.IntN(2) == 0 {
			a = -a
		}
		if r.IntN(2) == 0 {
			c = -c
		}
		xs[i], ys[i], zs[i] = d.Round(a), d.Round(b), d.Round(c)
	}
	return xs, ys, zs
}

func fmaSame(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return got == want && math.Signbit(got) == math.Signbit(want)
}

// runFMA launches kernel on dev over the operands (n elements, not a
// multiple of the block: the last program's tail is masked off).
func runFMA(t *testing.T, k *tle.Kernel, dev tle.Device, xs, ys, zs []float64) []float64 {
	t.Helper()
	n := len(xs)
	out := tle.NewTensor(n)
	ten := func(v []float64) *tle.Tensor { return &tle.Tensor{Shape: []int{len(v)}, Data: v} }
	err := k.Run(dev, [3]int{(n + 1023) / 1024, 1, 1}, tle.CompileOptions{NumWarps: 4},
		map[string]any{"x": ten(xs), "y": ten(ys), "z": ten(zs), "out": out, "n": n})
	require.NoError(t, err, "%s on %s", k.Name(), dev.Name())
	return out.Data
}

var fmaKernels = []struct {
	name string
	dt   ir.DType
}{{"fma_f32", ir.F32}, {"fma_f16", ir.F16}, {"fma_bf16", ir.BF16}, {"fma_f64", ir.F64}}

// TestFMAKernels runs fma kernels of every dtype on the interpreter over
// random operands and the hard cases of double rounding, against the exact
// result rounded once; rounding a*b + c computed in a wider float (float64
// for f32, f32 for f16 and bf16: what an fma.rn.f32 and a conversion would
// give) is wrong on some of them. The attention form fma(t, rs, -m), with
// scalar operands broadcast, too.
func TestFMAKernels(t *testing.T) {
	prog, err := tle.Parse("fma.tle", []byte(fmaSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 3000
	for _, c := range fmaKernels {
		k, err := prog.Kernel(c.name)
		require.NoError(t, err)
		xs, ys, zs := fmaInputs(c.dt, n, r)
		got := runFMA(t, k, tle.CPU(), xs, ys, zs)
		twice := 0
		for i := range got {
			want := fmaRef(c.dt, xs[i], ys[i], zs[i])
			require.True(t, fmaSame(got[i], want), "%s: fma(%v, %v, %v) = %v, want %v", c.name, xs[i], ys[i], zs[i], got[i], want)
			wide := c.dt.Round(math.FMA(xs[i], ys[i], zs[i]))
			if c.dt != ir.F32 {
				wide = c.dt.Round(ir.F32.FMA(xs[i], ys[i], zs[i])) // fma.rn.f32, then a cvt.rn
			}
			if !fmaSame(wide, want) {
				twice++
			}
		}
		if c.dt != ir.F64 {
			require.Greater(t, twice, n/20, "%s: a wider fma rounded again was wrong only %d times", c.name, twice)
			t.Logf("%s: a wider fma rounded again to %v is wrong on %d of %d", c.name, c.dt, twice, n)
		}
	}
	k, err := prog.Kernel("fma_scaled")
	require.NoError(t, err)
	xs, _, _ := fmaInputs(ir.F32, n, r)
	rs, m := float64(float32(1/math.Sqrt(128)*math.Log2E)), 3.25
	got := runFMA(t, k, tle.CPU(), xs, []float64{rs}, []float64{m})
	for i := range got {
		require.True(t, fmaSame(got[i], fmaRef(ir.F32, xs[i], rs, -m)), "fma_scaled(%v)", xs[i])
	}
}

// TestGPUFMA runs the same kernels on the GPU: fma rounds once there too
// (fma.rn of each dtype), so every result equals the interpreter's bit for
// bit (NaNs as NaNs).
func TestGPUFMA(t *testing.T) {
	g := tletest.GPU(t)
	prog, err := tle.Parse("fma.tle", []byte(fmaSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 6))
	const n = 1<<16 + 77
	for _, c := range append(fmaKernels, struct {
		name string
		dt   ir.DType
	}{"fma_scaled", ir.F32}) {
		k, err := prog.Kernel(c.name)
		require.NoError(t, err)
		xs, ys, zs := fmaInputs(c.dt, n, r)
		if c.name == "fma_scaled" {
			ys, zs = []float64{float64(float32(0.127))}, []float64{2.5}
		}
		want, got := runFMA(t, k, tle.CPU(), xs, ys, zs), runFMA(t, k, g, xs, ys, zs)
		bad := 0
		for i := range got {
			if !fmaSame(got[i], want[i]) {
				if bad < 5 {
					t.Errorf("%s: element %d: %v on the GPU, %v on the interpreter", c.name, i, got[i], want[i])
				}
				bad++
			}
		}
		require.Zero(t, bad, "%s: %d of %d differ", c.name, bad, n)
	}
}

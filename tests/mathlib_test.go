package tests

// The math library of issue 35 (sin, cos, tan, asin, acos, atan, atan2,
// sinh, cosh, log1p, expm1, pow): the interpreter is Go's math in float64
// rounded to the dtype; the GPU computes in f64 from f32 values
// (backend/nvptx/mathlib.go) within the documented XMaxULP of the exact
// value.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

const mathLibSrc = `
kernel lib(x *T, z *T, y *T, n i32, OP const i32, T const dtype) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    v := load(x + offs, mask: m)
    w := load(z + offs, mask: m)
    r := zeros([1024], T)
    if OP == 0 { r = sin(v) }
    if OP == 1 { r = cos(v) }
    if OP == 2 { r = tan(v) }
    if OP == 3 { r = asin(v) }
    if OP == 4 { r = acos(v) }
    if OP == 5 { r = atan(v) }
    if OP == 6 { r = sinh(v) }
    if OP == 7 { r = cosh(v) }
    if OP == 8 { r = log1p(v) }
    if OP == 9 { r = expm1(v) }
    if OP == 10 { r = atan2(v, w) }
    if OP == 11 { r = pow(v, w) }
    store(y + offs, r, mask: m)
}
`

// mathLibCases are the functions of the math library with Go's math as the
// reference (atan2's arguments (y, x), pow's (x, y)) and the GPU's bound.
var mathLibCases = []struct {
	name  string
	op    string
	ref   func(x, z float64) float64
	bound float64
}{
	{"sin", "0", func(x, _ float64) float64 { return math.Sin(x) }, nvptx.SinMaxULP},
	{"cos", "1", func(x, _ float64) float64 { return math.Cos(x) }, nvptx.CosMaxULP},
	{"tan", "2", func(x, _ float64) float64 { return math.Tan(x) }, nvptx.TanMaxULP},
	{"asin", "3", func(x, _ float64) float64 { return math.Asin(x) }, nvptx.AsinMaxULP},
	{"acos", "4", func(x, _ float64) float64 { return math.Acos(x) }, nvptx.AcosMaxULP},
	{"atan", "5", func(x, _ float64) float64 { return math.Atan(x) }, nvptx.AtanMaxULP},
	{"sinh", "6", func(x, _ float64) float64 { return math.Sinh(x) }, nvptx.SinhMaxULP},
	{"cosh", "7", func(x, _ float64) float64 { return math.Cosh(x) }, nvptx.CoshMaxULP},
	{"log1p", "8", func(x, _ float64) float64 { return math.Log1p(x) }, nvptx.Log1pMaxULP},
	{"expm1", "9", func(x, _ float64) float64 { return math.Expm1(x) }, nvptx.Expm1MaxULP},
	{"atan2", "10", math.Atan2, nvptx.Atan2MaxULP},
	{"pow", "11", math.Pow, nvptx.PowMaxULP},
}

// mathLibInputs are mathInputs with, for the second operand, a shuffled
// copy (every exponent against every exponent) in which every fourth is a
// small integer (pow's odd and even exponents, atan2's quadrants).
func mathLibInputs(n int, seed uint64) (xs, zs []float64) {
	xs, zs = mathInputs(n, seed), mathInputs(n, seed+1)
	r := rand.New(rand.NewPCG(seed, 36))
	r.Shuffle(len(zs), func(i, j int) { zs[i], zs[j] = zs[j], zs[i] })
	for i := range zs {
		if i%4 == 1 {
			zs[i] = float64(r.IntN(21) - 10)
		}
	}
	return xs, zs
}

func runLib(t *testing.T, dev tle.Device, prog *tle.Program, dt ir.DType, op string, xs, zs []float64) []float64 {
	t.Helper()
	n := len(xs)
	in, in2 := make([]float64, n), make([]float64, n)
	for i := range xs {
		in[i], in2[i] = dt.Round(xs[i]), dt.Round(zs[i])
	}
	y := tle.NewTensor(n)
	runMath(t, dev, prog, "lib", n, map[string]string{"OP": op, "T": dt.String()},
		map[string]any{"x": &tle.Tensor{Shape: []int{n}, Data: in}, "z": &tle.Tensor{Shape: []int{n}, Data: in2}, "y": y, "n": n})
	return y.Data
}

// TestMathLibInterp: on the interpreter each function is Go's math in
// float64 rounded to the dtype, bit for bit (f32, bf16 and f64).
func TestMathLibInterp(t *testing.T) {
	prog, err := tle.Parse("mathlib.tle", []byte(mathLibSrc))
	require.NoError(t, err)
	const n = 20_000
	xs, zs := mathLibInputs(n, 11)
	for _, c := range mathLibCases {
		for _, dt := range []ir.DType{ir.F32, ir.BF16, ir.F64} {
			got := runLib(t, tle.CPU(), prog, dt, c.op, xs, zs)
			bad := 0
			for i := range xs {
				x, z := dt.Round(xs[i]), dt.Round(zs[i])
				want := dt.Round(c.ref(x, z))
				same := got[i] == want && math.Signbit(got[i]) == math.Signbit(want) || math.IsNaN(got[i]) && math.IsNaN(want)
				if !same {
					if bad < 5 {
						t.Errorf("%s %v (%v, %v) = %v, want %v", c.name, dt, x, z, got[i], want)
					}
					bad++
				}
			}
			require.Zero(t, bad, "%s %v", c.name, dt)
		}
	}
}

// TestGPUMathLib runs every function on the GPU and the interpreter on the
// same inputs (every exponent, subnormals, the special values; the second
// operand shuffled, with small integers). The GPU is within the function's
// XMaxULP of the exact value and the interpreter within half an ulp, so in
// f32 they differ by at most XMaxULP + 0.5 ulp, and agree exactly in class
// (NaN, infinities, zeros with their sign); in bf16 by at most one bf16 ulp
// (both round values a hair apart); in f64 (the GPU computes on the
// arguments rounded to f32, here f32 values already) by XMaxULP + 0.5 f32
// ulp.
func TestGPUMathLib(t *testing.T) {
	g := tletest.GPU(t)
	prog, err := tle.Parse("mathlib.tle", []byte(mathLibSrc))
	require.NoError(t, err)
	const n = 1 << 17
	xs, zs := mathLibInputs(n, 21)
	for i := range xs { // f32 values, so that the f64 kernel's inputs are
		xs[i], zs[i] = float64(float32(xs[i])), float64(float32(zs[i]))
	}
	for _, c := range mathLibCases {
		for _, dt := range []ir.DType{ir.F32, ir.BF16, ir.F64} {
			want := runLib(t, tle.CPU(), prog, dt, c.op, xs, zs)
			got := runLib(t, g, prog, dt, c.op, xs, zs)
			tol, ulps := c.bound+0.5, f32ULPs
			if dt == ir.BF16 {
				tol, ulps = 1, func(a, b float64) float64 { return f32ULPs(a, b) / 65536 }
			}
			worst, bad := 0.0, 0
			for i := range xs {
				e := ulps(got[i], want[i])
				if math.IsInf(want[i], 0) || want[i] == 0 {
					if !sameF32(got[i], want[i]) {
						e = math.Inf(1)
					}
				}
				worst = max(worst, e)
				if e > tol {
					if bad < 5 {
						t.Errorf("%s %v (%v, %v): GPU %v, interpreter %v (%.3f ulp)", c.name, dt, dt.Round(xs[i]), dt.Round(zs[i]), got[i], want[i], e)
					}
					bad++
				}
			}
			t.Logf("%s %v: largest difference %.3f ulp (tolerance %v)", c.name, dt, worst, tol)
			require.Zero(t, bad, "%s %v: %d of %d beyond %v ulp", c.name, dt, bad, n, tol)
		}
	}
}

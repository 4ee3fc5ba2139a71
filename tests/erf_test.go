package tests

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

const erfSrc = `
kernel erf_f32(x *f32, y *f32, n i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    store(y + offs, erf(load(x + offs, mask: m)), mask: m)
}

kernel erf_bf16(x *bf16, y *bf16, n i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    store(y + offs, erf(load(x + offs, mask: m)), mask: m)
}

kernel erf_f64(x *f64, y *f64, n i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    store(y + offs, erf(load(x + offs, mask: m)), mask: m)
}
`

// f32ULPs is |got - want| in units in the last place of f32 at want (0 when
// both are the same NaN, infinity or zero, sign included).
func f32ULPs(got, want float64) float64 {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		if math.IsNaN(want) && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	case got == want:
		if math.Signbit(got) != math.Signbit(want) {
			return math.Inf(1)
		}
		return 0
	}
	_, e := math.Frexp(want)
	return math.Abs(got-want) / math.Ldexp(1, max(e-1, -126)-23)
}

// TestGPUErf runs erf on the GPU and the interpreter on the same random
// inputs of [-6, 6] (erf is 1 to f32 beyond about 3.9), the tails and the
// special values (+-0, +-inf, NaN), in f32, bf16 and f64. The GPU computes
// in f32 within nvptx.ErfMaxULP of the exact erf; the interpreter rounds
// math.Erf to the dtype, half an ulp more. So in f32 they differ by at most
// ErfMaxULP + 0.5 ulp; in bf16 by at most one bf16 ulp (both round to bf16
// values within a fraction of a bf16 ulp); in f64 the GPU also rounds x to
// f32 first (another ulp or so of f32).
func TestGPUErf(t *testing.T) {
	g := tletest.GPU(t)
	prog, err := tle.Parse("erf.tle", []byte(erfSrc))
	require.NoError(t, err)
	const n = 1 << 16
	r := rand.New(rand.NewPCG(41, 42))
	xs := make([]float64, n)
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 6, -6, 4, -4, 3.9, -3.9,
		0.875, -0.875, 0x1.c111acp-1, 1e-20, -1e-20, 1e-38, 100, -1e30}
	copy(xs, special)
	for i := len(special); i < n; i++ {
		switch i % 4 {
		case 0: // near 0, where erf(x) ~ 1.13 x
			xs[i] = (r.Float64()*2 - 1) * math.Pow(2, -30*r.Float64())
		default:
			xs[i] = -6 + 12*r.Float64()
		}
	}
	for _, c := range []struct {
		kernel string
		dt     ir.DType
		ulps   func(got, want float64) float64
		tol    float64
	}{
		{"erf_f32", ir.F32, f32ULPs, nvptx.ErfMaxULP + 0.5},
		{"erf_bf16", ir.BF16, func(got, want float64) float64 { return f32ULPs(got, want) / 65536 }, 1},
		{"erf_f64", ir.F64, f32ULPs, nvptx.ErfMaxULP + 1.5},
	} {
		k, err := prog.Kernel(c.kernel)
		require.NoError(t, err)
		in := make([]float64, n)
		for i, x := range xs {
			in[i] = c.dt.Round(x)
		}
		run := func(dev tle.Device) []float64 {
			y := tle.NewTensor(n)
			err := k.Run(dev, [3]int{n / 1024, 1, 1}, tle.CompileOptions{NumWarps: 4},
				map[string]any{"x": &tle.Tensor{Shape: []int{n}, Data: in}, "y": y, "n": n})
			require.NoError(t, err, "%s on %s", c.kernel, dev.Name())
			return y.Data
		}
		want, got := run(tle.CPU()), run(g)
		worst, at, bad := 0.0, 0.0, 0
		for i := range in {
			e := c.ulps(got[i], want[i])
			if e > worst {
				worst, at = e, in[i]
			}
			if e > c.tol {
				if bad < 5 {
					t.Errorf("%s: erf(%v) = %v on the GPU, %v on the interpreter (%.2f ulp)", c.kernel, in[i], got[i], want[i], e)
				}
				bad++
			}
		}
		t.Logf("%s: largest difference %.3f ulp at x = %v (tolerance %v)", c.kernel, worst, at, c.tol)
		require.Zero(t, bad, "%s: %d of %d beyond %v ulp", c.kernel, bad, n, c.tol)
	}
}

package tutorials

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/internal/philoxref"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// dropoutRef is the seeded dropout of x in float64 from the reference
// Philox: element i is kept where Triton's rand(seed, i) is above p, and
// then is x / (1 - p) (1 - p rounded to f32, as the kernel computes it).
func dropoutRef(x []float32, p float32, seed int32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		u := philoxref.Uniform32(philoxref.Randint4x32(int64(seed), uint32(i), 10)[0])
		if u > p {
			out[i] = float64(v) / float64(1-p)
		}
	}
	return out
}

// TestSeededDropout: on every device and at three block sizes, the
// tutorial zeroes exactly the elements the reference Philox drops and
// scales the others within 2 ulp (the GPU's / is div.full.f32); the same
// seed draws the same mask again and another seed another mask, and about
// a fraction p is dropped.
func TestSeededDropout(t *testing.T) {
	k := kernel(t, "seeded_dropout.tle", "seeded_dropout")
	r := rand.New(rand.NewPCG(4, 35))
	const n = 5000
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64()) + 3 // nonzero: a kept zero would read as dropped
	}
	devs, _ := tle.Devices()
	for _, dev := range devs {
		for _, c := range []struct {
			block int
			p     float32
			seed  int32
		}{{1024, 0.5, 123}, {256, 0.1, -7}, {128, 0.9, 2024}} {
			what := fmt.Sprintf("BLOCK=%d p=%v seed=%d on %s", c.block, c.p, c.seed, dev.Name())
			run := func(seed int32) []float32 {
				out := make([]float32, n)
				err := k.Run(dev, [3]int{(n + c.block - 1) / c.block, 1, 1}, tle.CompileOptions{Defines: map[string]string{"BLOCK": fmt.Sprint(c.block)}},
					map[string]any{"x": x, "out": out, "n": n, "p": c.p, "seed": seed})
				require.NoError(t, err, what)
				return out
			}
			got, want := run(c.seed), dropoutRef(x, c.p, c.seed)
			dropped := 0
			for i := range got {
				if want[i] == 0 {
					require.Zero(t, got[i], "%s: element %d is kept, the reference drops it", what, i)
					dropped++
					continue
				}
				require.InDelta(t, want[i], float64(got[i]), 2*math.Abs(want[i])*0x1p-23, "%s: element %d", what, i)
			}
			require.InDelta(t, float64(c.p), float64(dropped)/n, 0.03, "%s: dropped fraction", what)
			require.Equal(t, got, run(c.seed), "%s: the same seed draws another mask", what)
			require.NotEqual(t, got, run(c.seed+1), "%s: another seed draws the same mask", what)
		}
	}
}

// TestSeededDropoutPTX: the tutorial compiles through llc-19 to Philox's
// 32-bit high multiplies and the uniform conversion.
func TestSeededDropoutPTX(t *testing.T) {
	tletest.NeedLLC(t)
	b, err := kernel(t, "seeded_dropout.tle", "seeded_dropout").Compile(tle.CompileOptions{Defines: map[string]string{"BLOCK": "1024"}}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for _, w := range []string{`mul\.hi\.u32\s`, `cvt\.rn\.f32\.s32\s`, `ld\.global\.v4\.(f32|b32)\s+\{`} {
		require.Regexp(t, tletest.PTXLine(w), b.PTX, "no %s", w)
	}
}

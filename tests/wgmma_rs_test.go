package tests

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// wgmma with its a operand in registers (the RS form), on the interpreter
// and, where there is one, the GPU: an explicit wgmma of a loaded tile with
// M = 128 on one warpgroup (two 64-row blocks per warp) and on two. And the
// chained product of chained_dot_test.go by default (the first product as
// wgmma, the second on mma.sync from its accumulator) and on mma.sync only.

// bf16Randn is n draws of r's standard normal distribution rounded to bf16.
func bf16Randn(r *rand.Rand, n int) []float64 { return tletest.Round(ir.BF16, tletest.Randn(r, n)) }

func TestWgmmaRegisterA(t *testing.T) {
	prog, err := tle.LoadFile("testdata/wgmma_rs.tle")
	require.NoError(t, err)
	k, err := prog.Kernel("rs")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(31, 32))
	a, b := bf16Randn(r, 128*32), bf16Randn(r, 32*64)
	want := make([]float64, 128*64)
	for i := 0; i < 128; i++ {
		for j := 0; j < 64; j++ {
			for l := 0; l < 32; l++ {
				want[i*64+j] += a[i*32+l] * b[l*64+j]
			}
		}
	}
	for _, warps := range []int{4, 8} {
		for _, dev := range tletest.Devices(t) {
			c := tle.NewTensor(128 * 64)
			err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: warps},
				map[string]any{"a": &tle.Tensor{Shape: []int{128 * 32}, Data: a}, "b": &tle.Tensor{Shape: []int{32 * 64}, Data: b}, "c": c})
			require.NoError(t, err, "%s, %d warps", dev.Name(), warps)
			// f32 accumulation of exact bf16 products
			require.Less(t, tletest.RelRMS(c.Data, want), 1e-6, "%s, %d warps", dev.Name(), warps)
		}
	}
}

func TestChainedDotRuns(t *testing.T) {
	prog, err := tle.Parse("chain.tle", []byte(chainedDotSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("chain")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(33, 34))
	A, B, C := bf16Randn(r, 64*16), bf16Randn(r, 16*16), bf16Randn(r, 16*64)
	s := make([]float64, 64)
	for i := range s {
		s[i] = float64(float32(0.5 + r.Float64()))
	}
	want := make([]float64, 64*64)
	for i := 0; i < 64; i++ {
		P := make([]float64, 16)
		for j := range P {
			for l := 0; l < 16; l++ {
				P[j] += A[i*16+l] * B[l*16+j]
			}
			P[j] = ir.BF16.Round(P[j])
		}
		for j := 0; j < 64; j++ {
			for l := 0; l < 16; l++ {
				want[i*64+j] += P[l] * C[l*64+j]
			}
			want[i*64+j] *= s[j]
		}
	}
	ten := func(d []float64) *tle.Tensor { return &tle.Tensor{Shape: []int{len(d)}, Data: d} }
	for _, mmaSync := range []bool{false, true} {
		for _, dev := range tletest.Devices(t) {
			out := tle.NewTensor(64 * 64)
			err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, DotMMASync: mmaSync},
				map[string]any{"a": ten(A), "b": ten(B), "c": ten(C), "s": ten(s), "out": out})
			require.NoError(t, err, "%s, mma.sync %v", dev.Name(), mmaSync)
			// P is rounded to bf16 in both; a sum that lands on a rounding
			// boundary may round the other way
			require.Less(t, tletest.RelRMS(out.Data, want), 2e-3, "%s, mma.sync %v", dev.Name(), mmaSync)
		}
	}
}

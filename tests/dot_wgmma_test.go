package tests

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// A matmul whose B is stored transposed ([N, K]) and loaded as a [BK, BN]
// tile: as wgmma (the default) its staging buffer keeps the load's order (K
// contiguous), so cp.async fills it and wgmma reads it K-major.
const mmNTSrc = `
kernel mm_nt(a *bf16, b *bf16, c *f32, M i32, N i32, K i32, BM const i32, BN const i32, BK const i32) {
    rm := program_id(0)*BM + arange(0, BM)
    rn := program_id(1)*BN + arange(0, BN)
    rk := arange(0, BK)
    acc := zeros([BM, BN], f32)
    for k := 0; k < K; k += BK {
        ka := k + rk
        ta := load(a + rm[:, None]*K + ka[None, :], mask: (rm < M)[:, None] & (ka < K)[None, :], other: 0)
        tb := load(b + rn[None, :]*K + ka[:, None], mask: (ka < K)[:, None] & (rn < N)[None, :], other: 0)
        acc = dot(ta, tb, acc)
    }
    store(c + rm[:, None]*N + rn[None, :], acc, mask: (rm < M)[:, None] & (rn < N)[None, :])
}
`

func mmNT(t *testing.T) *tle.Kernel {
	prog, err := tle.Parse("mm_nt.tle", []byte(mmNTSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("mm_nt")
	require.NoError(t, err)
	return k
}

var mmNTDefines = map[string]string{"BM": "128", "BN": "128", "BK": "64"}

func TestDotWgmmaTransposedOperand(t *testing.T) {
	k := mmNT(t)
	a, err := k.Build(tle.CompileOptions{Defines: mmNTDefines, Div16: []string{"M", "N", "K"}}, tle.GPUOptions{}, "ll")
	require.NoError(t, err)
	require.Contains(t, a.TIR, "= wgmma(")
	require.Len(t, regexp.MustCompile(`async_copy\(`).FindAllString(a.TIR, -1), 6, "both operands pipelined (2 prologue stages + the body, each)")
	// B's ring keeps the load's order: K (dimension 0 of the [BK, BN] tile) fastest
	require.Regexp(t, `= alloc\(\) .*!smem<\[3,64,128\]bf16, order=\[1,2,0\]`, a.TIR)

	// on a GPU, the product is right
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU for the run: %v", err)
	}
	const M, N, K = 256, 192, 320
	r := rand.New(rand.NewPCG(4, 4))
	av, bv := make([]float64, M*K), make([]float64, N*K)
	for i := range av {
		av[i] = ir.BF16.Round(r.NormFloat64())
	}
	for i := range bv {
		bv[i] = ir.BF16.Round(r.NormFloat64())
	}
	c := tle.NewTensor(M * N)
	err = k.Run(g, [3]int{M / 128, (N + 127) / 128, 1}, tle.CompileOptions{Defines: mmNTDefines},
		map[string]any{"a": &tle.Tensor{Shape: []int{M * K}, Data: av}, "b": &tle.Tensor{Shape: []int{N * K}, Data: bv}, "c": c, "M": M, "N": N, "K": K})
	require.NoError(t, err)
	var num, den float64
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := 0.0
			for l := 0; l < K; l++ {
				s += av[i*K+l] * bv[j*K+l]
			}
			d := c.Data[i*N+j] - s
			num, den = num+d*d, den+s*s
		}
	}
	require.Less(t, num/den, 1e-8, "relative squared error")
}

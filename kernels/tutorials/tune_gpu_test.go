package tutorials

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda/cudatest"
	"github.com/tlego/tle/tle"
)

// TestTuneMatmulTMAGPU (GPU only) tunes matmul_tma over its space at 1024^3,
// then asks again as a second process would (a fresh parse, the same cache):
// the cached choice, nothing built or timed, in under 50 ms. The winner's
// product is checked against the float64 reference.
func TestTuneMatmulTMAGPU(t *testing.T) {
	cudatest.RequireSM90(t)
	g, err := tle.OpenGPU()
	require.NoError(t, err)
	const m, n, kk = 1024, 1024, 1024
	r := rand.New(rand.NewPCG(5, 6))
	a := round(ir.BF16, randn(r, m*kk))
	bt := round(ir.BF16, randn(r, n*kk))
	args := func() map[string]any {
		return map[string]any{"a": &tle.Tensor{Shape: []int{m, kk}, Data: a}, "bt": &tle.Tensor{Shape: []int{n, kk}, Data: bt},
			"c": poison(m * n), "M": m, "N": n, "K": kk}
	}
	o := tle.TuneOptions{CacheDir: t.TempDir(), Budget: 3 * time.Second}
	res, err := kernel(t, "matmul_tma.tle", "matmul_tma").Tune(context.Background(), g, args(), o)
	require.NoError(t, err)
	assert.Equal(t, "tuned", res.Source)
	timed := 0
	for _, row := range res.Rows {
		if row.Timing != nil {
			timed++
		}
	}
	assert.GreaterOrEqual(t, timed, 12, "the space's configurations that build are timed")

	again, err := kernel(t, "matmul_tma.tle", "matmul_tma").Tune(context.Background(), g, args(), o)
	require.NoError(t, err)
	assert.Equal(t, "cached", again.Source)
	assert.Equal(t, res.Winner.ID(), again.Winner.ID())
	assert.Less(t, again.TookMs, 50.0, "the cached choice's cost")

	k := kernel(t, "matmul_tma.tle", "matmul_tma")
	in := args()
	grid := [3]int{cdiv(m, int(res.Winner.Vals["BM"])), cdiv(n, int(res.Winner.Vals["BN"])), 1}
	require.NoError(t, k.Run(g, grid, res.Winner.Options(tle.CompileOptions{}), in))
	want := matmulRef(m, n, kk, a, func(l, j int) float64 { return bt[j*kk+l] })
	assert.Less(t, relRMS(in["c"].(*tle.Tensor).Data, want), 4e-3, "winner %s", res.Winner.Name)
}

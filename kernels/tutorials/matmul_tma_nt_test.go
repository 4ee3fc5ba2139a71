package tutorials

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
	"github.com/tlego/tle/tle/ir"
)

// TestMatmulTMANT multiplies A [M, K] by B [K, N] (N-major, not
// transposed), with sizes that are not multiples of the blocks and enough K
// blocks to wrap the stage ring, in the bindings of matmul_tma.
func TestMatmulTMANT(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const m, n, kk = 200, 136, 544 // rows of B: 272 bytes, a multiple of 16 as TMA needs
	a := round(ir.BF16, randn(r, m*kk))
	b := round(ir.BF16, randn(r, kk*n))
	want := matmulRef(m, n, kk, a, func(l, j int) float64 { return b[l*n+j] })
	checkMatmulTMA(t, "matmul_tma_nt", m, n, kk, want, map[string]any{
		"a": &tle.Tensor{Shape: []int{m, kk}, Data: a}, "b": &tle.Tensor{Shape: []int{kk, n}, Data: b}})
}

// TestMatmulTMANTPTX checks the code with llc-19: m64n{BN}k16 wgmma with B
// N-major (transpose immediate 1 for b), B's stage loaded as BN/64 TMA boxes
// of [64, 64] (one per 128B column block), A as one box.
func TestMatmulTMANTPTX(t *testing.T) {
	needLLC(t)
	compileMatmulTMA(t, "matmul_tma_nt", func(t *testing.T, defs map[string]string, b *tle.Binary) {
		for _, w := range matmulTMAPTX(defs, 1) {
			require.Regexp(t, ptxLine(w), b.PTX, "no %s", w)
		}
		boxes := 1 + atoi(defs["BN"])/64
		require.Len(t, ptxLine(`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global`).FindAllString(b.PTX, -1), boxes, "one TMA box for A, one per 64-column block of B")
		require.Len(t, ptxLine(`wgmma\.mma_async\.`).FindAllString(b.PTX, -1), 4, "four k16 steps per stage")
		require.Equal(t, 12, b.NumWarps)
	})
}

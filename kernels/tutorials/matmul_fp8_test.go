package tutorials

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// matmulFP8Defs are the bindings of matmul_fp8: the benchmark's 128x256x128
// tile with 3 stages (212 KB of shared memory) and one wgmma group in flight, BN = 128 with a wait
// for every group, and the two-accumulator form adding a fresh accumulator
// every 4 k blocks.
var matmulFP8Defs = []map[string]string{
	{"BM": "128", "BN": "256", "BK": "128", "S": "3", "LAG": "1", "PROMOTE": "0"},
	{"BM": "128", "BN": "128", "BK": "128", "S": "4", "LAG": "0", "PROMOTE": "0"},
	{"BM": "128", "BN": "128", "BK": "128", "S": "4", "LAG": "1", "PROMOTE": "4"},
}

// TestMatmulFP8 multiplies e4m3 A [M, K] by e4m3 B given transposed, with
// per-tensor scales, sizes that are not multiples of the blocks, and 10 K
// blocks (the ring of 4 stages wraps twice; the last promotion group is
// short). The operands are e4m3 values, so every product is exact in f32;
// the error is the f32 sums and the bf16 output.
func TestMatmulFP8(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	const m, n, kk = 200, 136, 1184 // rows of 1184 bytes: a multiple of 16, as TMA needs
	a := round(ir.F8E4M3, randn(r, m*kk))
	bt := round(ir.F8E4M3, randn(r, n*kk))
	sa, sb := 0.25+r.Float64(), 0.25+r.Float64()
	want := matmulRef(m, n, kk, a, func(l, j int) float64 { return bt[j*kk+l] })
	for i := range want {
		want[i] *= float64(float32(sa)) * float64(float32(sb))
	}
	scalar := func(v float64) *tle.Tensor { return &tle.Tensor{Shape: []int{1}, Data: []float64{float64(float32(v))}} }
	checkMatmulTMAIn(t, "matmul_fp8", matmulFP8Defs, m, n, kk, want, 4e-3, map[string]any{
		"a": &tle.Tensor{Shape: []int{m, kk}, Data: a}, "bt": &tle.Tensor{Shape: []int{n, kk}, Data: bt},
		"scale_a": scalar(sa), "scale_b": scalar(sb)})
}

// TestMatmulFP8PTX checks the code with llc-19: m64n{BN}k32 e4m3 wgmma from
// shared memory (K-major, no transpose immediates), four k32 steps per
// 128-byte stage, TMA loads completing on mbarriers, the roles' registers.
func TestMatmulFP8PTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "matmul_fp8.tle", "matmul_fp8")
	for _, defs := range matmulFP8Defs {
		b, err := k.Compile(tle.CompileOptions{Defines: defs, Div16: []string{"M", "N", "K"}}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "%v", defs)
		bn := atoi(defs["BN"])
		for _, w := range []string{
			`wgmma\.mma_async\.sync\.aligned\.m64n` + defs["BN"] + `k32\.f32\.e4m3\.e4m3\s+\{(%f\d+, ){` + itoa(bn/2-1) + `}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1;`,
			`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];`,
			`mbarrier\.arrive\.expect_tx\.shared::cta\.b64\s`,
			`setmaxnreg\.inc\.sync\.aligned\.u32 232;`,
			`wgmma\.wait_group\.sync\.aligned ` + defs["LAG"] + `;`,
		} {
			require.Regexp(t, tletest.PTXLine(w), b.PTX, "%v: no %s", defs, w)
		}
		require.Len(t, tletest.PTXLine(`wgmma\.mma_async\.`).FindAllString(b.PTX, -1), 4, "%v: four k32 steps per stage", defs)
		require.Equal(t, 12, b.NumWarps)
		t.Logf("%v: %d bytes of shared memory", defs, b.SmemBytes)
	}
}

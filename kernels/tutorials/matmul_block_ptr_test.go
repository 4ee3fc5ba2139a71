package tutorials

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestMatmulBlockPtr runs the block-pointer matmul on every device against
// a float64 product of the f16 operands (exact products, accumulated in
// f32: within 1e-6 relative), with M, N and K not multiples of the blocks,
// B row-major and column-major (its strides are runtime arguments), and C
// a window of a wider buffer whose other elements must stay untouched.
func TestMatmulBlockPtr(t *testing.T) {
	k := kernel(t, "matmul_block_ptr.tle", "matmul_block_ptr")
	r := rand.New(rand.NewPCG(35, 1))
	const M, N, K, ldc = 100, 72, 80, 75
	for _, dev := range devices(t, "matmul_block_ptr") {
		for _, colMajorB := range []bool{false, true} {
			a, b := round(ir.F16, randn(r, M*K)), round(ir.F16, randn(r, K*N))
			sbk, sbn := N, 1
			if colMajorB {
				sbk, sbn = 1, K
			}
			want := matmulRef(M, N, K, a, func(l, j int) float64 { return b[l*sbk+j*sbn] })
			c := poison(M*ldc + 3)
			opts := tle.CompileOptions{Defines: map[string]string{"BM": "64", "BN": "32", "BK": "32"}}
			err := k.Run(dev, [3]int{cdiv(M, 64), cdiv(N, 32), 1}, opts, map[string]any{
				"a": &tle.Tensor{Shape: []int{M, K}, Data: a}, "b": &tle.Tensor{Shape: []int{K * N}, Data: b}, "c": c,
				"M": M, "N": N, "K": K, "stride_am": K, "stride_ak": 1, "stride_bk": sbk, "stride_bn": sbn, "stride_cm": ldc, "stride_cn": 1})
			require.NoError(t, err, dev.Name())
			got := make([]float64, 0, M*N)
			for i := range M * ldc {
				if i%ldc < N {
					got = append(got, c.Data[i])
				} else {
					require.True(t, math.IsNaN(c.Data[i]), "%s: element %d outside C was written", dev.Name(), i)
				}
			}
			for _, x := range c.Data[M*ldc:] {
				require.True(t, math.IsNaN(x), "%s: an element past C was written", dev.Name())
			}
			e := relRMS(got, want)
			t.Logf("%s (B column-major %v): relative RMS error %.3g", dev.Name(), colMajorB, e)
			require.Less(t, e, 1e-6, "%s (B column-major %v)", dev.Name(), colMajorB)
		}
	}
}

// TestMatmulBlockPtrPTX compiles it with llc-19: tensor-core MMAs, and the
// masked global loads of the boundary checks.
func TestMatmulBlockPtrPTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "matmul_block_ptr.tle", "matmul_block_ptr")
	for _, arch := range []string{"sm_90a", "sm_80"} {
		b, err := k.Compile(tle.CompileOptions{Defines: map[string]string{"BM": "64", "BN": "64", "BK": "32"}}, tle.GPUOptions{Toolchain: "llc", Arch: arch})
		require.NoError(t, err, arch)
		require.Regexp(t, tletest.PTXLine(`(wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16|mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32)\s`), b.PTX, arch)
		require.Regexp(t, tletest.PTXLine(`ld\.global(\.\w+)*\s`), b.PTX, arch)
		require.Regexp(t, tletest.PTXLine(`st\.global(\.\w+)*\s`), b.PTX, arch)
	}
}

package tutorials

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestMatmulPersistent runs Triton's persistent matmul (tutorial 09) and
// its hand-flattened form on the interpreter (TestMatmulPersistentGPU on
// the GPU) against a float64 product of the same operands: f16 and
// f8e4m3, the tutorial's two dtypes. M, N and K are not multiples of the
// 32 x 32 x 32 blocks (4 x 3 tiles, the last row and column of tiles and
// the last K block masked); GROUP_SIZE_M 3 leaves a short last group;
// NUM_SMS 5 gives the programs 3, 3, 2, 2 and 2 tiles, and NUM_SMS 16 (more
// than the 12 tiles) one each on a grid of 12. B is row-major and
// column-major (its strides are arguments), and C is a window of a wider
// buffer (stride 75) whose other elements must stay NaN.
//
// Error bounds (relative RMS): the products of f16 or fp8 values are exact
// in f32 and K is 80, so the f32 accumulation is within about 1e-6; the
// error is C's rounding: f16 keeps 11 significant bits (2^-11 = 4.9e-4
// relative at most), bound 1e-3; f8e4m3 keeps 4 (2^-4 = 6.3e-2 at most,
// about 2.5e-2 RMS), bound 4e-2. A tile computed twice into the wrong place
// or not at all leaves NaN; a wrong K mask is far above the bounds.
func TestMatmulPersistent(t *testing.T) { checkMatmulPersistent(t, tle.CPU()) }

// TestMatmulPersistentGPU is TestMatmulPersistent on the GPU; it skips
// without one (tletest.GPU).
func TestMatmulPersistentGPU(t *testing.T) {
	g := tletest.GPU(t)
	checkMatmulPersistent(t, g)
}

func checkMatmulPersistent(t *testing.T, dev tle.Device) {
	const M, N, K, ldc, bm, bn = 100, 72, 80, 75, 32, 32
	r := rand.New(rand.NewPCG(9, 35))
	tiles := cdiv(M, bm) * cdiv(N, bn)
	for _, c := range []struct {
		dt  ir.DType
		tol float64
	}{{ir.F16, 1e-3}, {ir.F8E4M3, 4e-2}} {
		for _, colMajorB := range []bool{false, true} {
			a, b := round(c.dt, randn(r, M*K)), round(c.dt, randn(r, K*N))
			sbk, sbn := N, 1
			if colMajorB {
				sbk, sbn = 1, K
			}
			want := matmulRef(M, N, K, a, func(l, j int) float64 { return b[l*sbk+j*sbn] })
			for _, name := range []string{"matmul_persistent", "matmul_persistent_flat"} {
				k := kernel(t, "matmul_persistent.tle", name)
				for _, sms := range []int{5, 16} {
					what := fmt.Sprintf("%s %s NUM_SMS %d (B column-major %v) on %s", name, c.dt, sms, colMajorB, dev.Name())
					cc := poison(M*ldc + 3)
					opts := tle.CompileOptions{Defines: map[string]string{"T": c.dt.String(), "BLOCK_SIZE_M": fmt.Sprint(bm), "BLOCK_SIZE_N": fmt.Sprint(bn),
						"BLOCK_SIZE_K": "32", "GROUP_SIZE_M": "3", "NUM_SMS": fmt.Sprint(sms)}}
					err := k.Run(dev, [3]int{min(sms, tiles), 1, 1}, opts, map[string]any{
						"a_ptr": &tle.Tensor{Shape: []int{M, K}, Data: a}, "b_ptr": &tle.Tensor{Shape: []int{K * N}, Data: b}, "c_ptr": cc,
						"M": M, "N": N, "K": K, "stride_am": K, "stride_ak": 1, "stride_bk": sbk, "stride_bn": sbn, "stride_cm": ldc, "stride_cn": 1})
					require.NoError(t, err, what)
					got := make([]float64, 0, M*N)
					for i := range M * ldc {
						if i%ldc < N {
							got = append(got, cc.Data[i])
						} else {
							require.True(t, math.IsNaN(cc.Data[i]), "%s: element %d outside C was written", what, i)
						}
					}
					for _, x := range cc.Data[M*ldc:] {
						require.True(t, math.IsNaN(x), "%s: an element past C was written", what)
					}
					e := relRMS(got, want)
					t.Logf("%s: relative RMS error %.3g", what, e)
					require.Less(t, e, c.tol, what)
				}
			}
		}
	}
}

// TestMatmulDescriptorPersistent runs the tutorial's descriptor form
// (matmul_kernel_descriptor_persistent: A [M, K] and Bt [N, K] read, C
// written through make_desc descriptors) on the interpreter
// (TestMatmulDescriptorPersistentGPU on the GPU), with and without the
// subtiled epilogue, against the float64 product: the shapes, NUM_SMS and
// bound of TestMatmulPersistent's f16 case (K 80 and N 72 give rows of 160
// and 144 bytes, multiples of 16 as TMA needs). TMA clips the tiles at M
// and N and zero-fills the K tail; C starts as NaN, so every element must
// be stored.
func TestMatmulDescriptorPersistent(t *testing.T) {
	checkDescriptorMatmul(t, tle.CPU(), "matmul_persistent.tle", "matmul_descriptor_persistent", 10)
}

// TestMatmulDescriptorPersistentGPU is TestMatmulDescriptorPersistent on
// the GPU; it skips without one
// (tletest.GPU).
func TestMatmulDescriptorPersistentGPU(t *testing.T) {
	g := tletest.GPU(t)
	checkDescriptorMatmul(t, g, "matmul_persistent.tle", "matmul_descriptor_persistent", 10)
}

// checkDescriptorMatmul runs a descriptor form of tutorial 09 (file's
// kernel, with the tutorial's parameters) on dev as the tests above
// describe, its inputs drawn from seed.
func checkDescriptorMatmul(t *testing.T, dev tle.Device, file, name string, seed uint64) {
	const M, N, K, bm, bn = 100, 72, 80, 32, 32
	r := rand.New(rand.NewPCG(seed, 35))
	tiles := cdiv(M, bm) * cdiv(N, bn)
	k := kernel(t, file, name)
	a, bt := round(ir.F16, randn(r, M*K)), round(ir.F16, randn(r, N*K))
	want := matmulRef(M, N, K, a, func(l, j int) float64 { return bt[j*K+l] })
	for _, subtile := range []bool{false, true} {
		for _, sms := range []int{5, 16} {
			what := fmt.Sprintf("EPILOGUE_SUBTILE %v NUM_SMS %d on %s", subtile, sms, dev.Name())
			c := poison(M * N)
			c.Shape = []int{M, N}
			opts := tle.CompileOptions{Defines: map[string]string{"BLOCK_SIZE_M": fmt.Sprint(bm), "BLOCK_SIZE_N": fmt.Sprint(bn),
				"BLOCK_SIZE_K": "32", "GROUP_SIZE_M": "3", "NUM_SMS": fmt.Sprint(sms), "EPILOGUE_SUBTILE": fmt.Sprint(subtile)}}
			err := k.Run(dev, [3]int{min(sms, tiles), 1, 1}, opts, map[string]any{
				"a_ptr": &tle.Tensor{Shape: []int{M, K}, Data: a}, "b_ptr": &tle.Tensor{Shape: []int{N, K}, Data: bt}, "c_ptr": c,
				"M": M, "N": N, "K": K})
			require.NoError(t, err, what)
			e := relRMS(c.Data, want)
			t.Logf("%s: relative RMS error %.3g", what, e)
			require.Less(t, e, 1e-3, what)
		}
	}
}

// TestMatmulPersistentPTX compiles both kernels through llc-19 at the
// tutorial's 128 x 128 x 64 tile on 8 warps (f16): tensor-core products
// (wgmma on sm_90a, mma.sync on sm_80) inside the persistent tile loop.
func TestMatmulPersistentPTX(t *testing.T) {
	tletest.NeedLLC(t)
	t.Parallel()
	defs := map[string]string{"T": "f16", "BLOCK_SIZE_M": "128", "BLOCK_SIZE_N": "128", "BLOCK_SIZE_K": "64", "GROUP_SIZE_M": "8", "NUM_SMS": "132"}
	for _, name := range []string{"matmul_persistent", "matmul_persistent_flat"} {
		k := kernel(t, "matmul_persistent.tle", name)
		for _, arch := range []string{"sm_90a", "sm_80"} {
			b, err := k.Compile(tle.CompileOptions{Defines: defs, NumWarps: 8, Div16: []string{"M", "N", "K", "stride_am", "stride_bk", "stride_cm"}},
				tle.GPUOptions{Toolchain: "llc", Arch: arch})
			require.NoError(t, err, "%s %s", name, arch)
			require.Regexp(t, tletest.PTXLine(`(wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16|mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32)\s`), b.PTX, "%s %s", name, arch)
			require.Regexp(t, tletest.PTXLine(`(@%p\w*\s+)?st\.global(\.\w+)*\s`), b.PTX, "%s %s", name, arch)
		}
	}
	// the descriptor form (sm_90a: TMA): maps made on the device, TMA
	// loads completing on the mbarrier, a TMA store (two per tile with the
	// subtiled epilogue)
	k := kernel(t, "matmul_persistent.tle", "matmul_descriptor_persistent")
	for _, subtile := range []bool{false, true} {
		d := map[string]string{"BLOCK_SIZE_M": "128", "BLOCK_SIZE_N": "128", "BLOCK_SIZE_K": "64", "GROUP_SIZE_M": "8", "NUM_SMS": "132", "EPILOGUE_SUBTILE": fmt.Sprint(subtile)}
		b, err := k.Compile(tle.CompileOptions{Defines: d, NumWarps: 8}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "subtile %v", subtile)
		for _, w := range []string{`tensormap\.replace\.tile\.global_address\.shared::cta\.b1024\.b64\s`,
			`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes\s`, `mbarrier\.try_wait\.parity\.shared::cta\.b64\s`,
			`(wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16|mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32)\s`} {
			require.Regexp(t, tletest.PTXLine(`(@!?%\w+\s+)?`+w), b.PTX, "subtile %v: no %s", subtile, w)
		}
		stores := 1
		if subtile {
			stores = 2
		}
		require.Len(t, tletest.PTXLine(`(@!?%\w+\s+)?cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group\s`).FindAllString(b.PTX, -1), stores, "subtile %v: TMA stores", subtile)
	}
}

package tutorials

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestMatmulDescPersistent runs matmul_desc_persistent (tutorial 09's
// matmul_kernel_descriptor_persistent with desc.load and desc.store) on
// the interpreter (TestMatmulDescPersistentGPU on the GPU), with and
// without the subtiled epilogue, against a float64 product of the same f16
// operands: M, N and K are not multiples of the 32 x 32 x 32 blocks (TMA
// clips the tiles at M and N, zero-fills the K tail), NUM_SMS 5 gives the
// programs several tiles each (each desc.load site's mbarrier goes through
// many phases) and 16 one each. C starts as NaN, so every element must be
// stored. Bound: C's f16 rounding (2^-11 relative), 1e-3 in relative RMS.
func TestMatmulDescPersistent(t *testing.T) {
	checkDescriptorMatmul(t, tle.CPU(), "matmul_desc_persistent.tle", "matmul_desc_persistent", 11)
}

// TestMatmulDescPersistentGPU is TestMatmulDescPersistent on the GPU; it
// skips without one (tletest.GPU).
func TestMatmulDescPersistentGPU(t *testing.T) {
	g := tletest.GPU(t)
	checkDescriptorMatmul(t, g, "matmul_desc_persistent.tle", "matmul_desc_persistent", 11)
}

// TestMatmulDescPersistentPTX compiles matmul_desc_persistent through
// llc-19 at the tutorial's 128 x 128 x 64 tile on 8 warps: maps made on
// the device, two TMA loads a k step (one per desc.load site, each on its
// own mbarrier, initialised once), the tensor-core product, and one TMA
// store a tile (two with the subtiled epilogue) after a proxy fence.
func TestMatmulDescPersistentPTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "matmul_desc_persistent.tle", "matmul_desc_persistent")
	for _, subtile := range []bool{false, true} {
		d := map[string]string{"BLOCK_SIZE_M": "128", "BLOCK_SIZE_N": "128", "BLOCK_SIZE_K": "64", "GROUP_SIZE_M": "8", "NUM_SMS": "132", "EPILOGUE_SUBTILE": fmt.Sprint(subtile)}
		b, err := k.Compile(tle.CompileOptions{Defines: d, NumWarps: 8}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "subtile %v", subtile)
		count := func(w string) int { return len(tletest.PTXLine(`(@!?%\w+\s+)?`+w).FindAllString(b.PTX, -1)) }
		for _, w := range []string{`tensormap\.replace\.tile\.global_address\.shared::cta\.b1024\.b64\s`,
			`mbarrier\.test_wait\.parity\.shared::cta\.b64\s`, `mbarrier\.try_wait\.parity\.shared::cta\.b64\s`,
			`(wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16|mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32)\s`,
			`fence\.proxy\.async\.shared::cta;`} {
			require.Regexp(t, tletest.PTXLine(`(@!?%\w+\s+)?`+w), b.PTX, "subtile %v: no %s", subtile, w)
		}
		require.Equal(t, 2, count(`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes\s`), "subtile %v: TMA loads", subtile)
		require.Equal(t, 2, count(`mbarrier\.init\.shared::cta\.b64\s`), "subtile %v: one mbarrier per desc.load site", subtile)
		stores := 1
		if subtile {
			stores = 2
		}
		require.Equal(t, stores, count(`cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group\s`), "subtile %v: TMA stores", subtile)
	}
}

package attention

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// TestPrefillPTX builds the prefill kernel for sm_90a with llc-19 for each
// page size and layout-independent specialisation (G 4 and 8) and checks
// the data path: S = Q K^T as wgmma m64nPAGEk16 with both operands in
// shared memory (b K-major: transpose flag 0), O += P V as m64n128k16 with
// P in four registers per thread and V from shared memory N-major (transpose flag 1), rank-4
// TMA loads of the K and V pages on mbarriers (two boxes [1, 1, page,
// 64] per page: the 128B swizzle's column blocks), and the warp roles (a
// producer warpgroup and two consumer warpgroups: 12 warps).
func TestPrefillPTX(t *testing.T) {
	needLLC(t)
	tma := ptxLine(`cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+, %r\d+, %r\d+\}\], \[%r\d+\];`)
	for _, c := range []struct{ page, g int }{{16, 4}, {32, 8}, {64, 8}} {
		d := &PrefillDims{Dims: Dims{Page: c.page, G: c.g, B: 1, Hkv: 1, Hq: c.g}, QT: 1, Stages: prefillStages(c.page)}
		pl := PlanPrefill(d)
		k, err := PrefillKernel(pl.Kernel)
		require.NoError(t, err)
		b, err := k.Compile(tle.CompileOptions{Defines: pl.Defines}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "%+v", c)
		require.Equal(t, 12, b.NumWarps, "a producer warpgroup and two consumer warpgroups")
		qk := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk16\.f32\.bf16\.bf16\s+\{(%%f\d+, ){%d}%%f\d+\}, %%rd\d+, %%rd\d+, %%wgp, 1, 1, 0, 0;`, c.page, c.page/2-1)
		pv := `wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){63}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1, 1;`
		require.Len(t, ptxLine(qk).FindAllString(b.PTX, -1), 2*8, "%+v: QK^T, K = 128 in 8 steps, two loops", c)
		require.Len(t, ptxLine(pv).FindAllString(b.PTX, -1), 2*c.page/16, "%+v: PV, K = page in steps of 16, two loops", c)
		require.Len(t, tma.FindAllString(b.PTX, -1), 4, "%+v: rank-4 TMA loads of K and V, two column blocks each", c)
		require.Len(t, b.Descs, 2, "%+v: the K and V maps", c)
		for _, desc := range b.Descs {
			require.Equal(t, []int{1, 1, c.page, 64}, desc.Box, "%+v: one box per 64-column block of the 128B swizzle", c)
		}
	}
}

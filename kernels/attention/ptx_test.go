package attention

import (
	"fmt"
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

func needLLC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("llc-19"); err != nil {
		t.Skip("llc-19 not installed (CI installs llvm-19)")
	}
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
}

// ptxLine matches the PTX instruction w at the start of a line, predicated
// or not.
func ptxLine(w string) *regexp.Regexp { return regexp.MustCompile(`(?m)^\s+(@!?%p\w* )?` + w) }

// TestDecodePTX builds the decode kernels for sm_90a with llc-19 as Decode
// plans them (pages 16, 32, 64; N = 8, 16, 32 query rows) and checks the
// data path: the scores S^T = K Q^T and O^T = V^T P^T as wgmma m64nNk16
// (bf16) or m64nNk32 (e4m3) with a in registers (four packed registers) and
// b from shared memory, 16 (bf16) or 8 (e4m3) of them per tile (K = 128 for
// the scores, M = 128 and K = 64 for the output), and the K and V pages
// brought by rank-4 TMA loads completing on an mbarrier, one box [1, 1,
// page, 128] per page; and the combine kernel builds.
func TestDecodePTX(t *testing.T) {
	needLLC(t)
	tma := ptxLine(`cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+, %r\d+, %r\d+\}\], \[%r\d+\];`)
	for _, c := range []struct {
		dtype       string
		quant, page int
		g, sq, n    int
	}{
		{DTypeBF16, 0, 16, 4, 1, 8}, {DTypeBF16, 0, 32, 8, 2, 16}, {DTypeBF16, 0, 64, 8, 4, 32}, {DTypeBF16, 0, 64, 4, 3, 16},
		{DTypeFP8, 1, 16, 4, 2, 8}, {DTypeFP8, 1, 32, 8, 1, 8}, {DTypeFP8, 0, 64, 8, 2, 16}, {DTypeFP8, 0, 16, 8, 4, 32},
	} {
		d := &Dims{Page: c.page, G: c.g, Sq: c.sq, FP8: c.dtype == DTypeFP8, Quant: c.quant, B: 1, Hkv: 1, Hq: c.g, Splits: 1}
		d.N = padRows(d.G * d.Sq)
		require.Equal(t, c.n, d.N)
		pl := Plan(d)
		k, err := Kernel(pl.Decode)
		require.NoError(t, err)
		b, err := k.Compile(tle.CompileOptions{Defines: pl.DecodeDefines, NumWarps: NumWarps}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "%+v", c)
		ks, ty, count := "16", "bf16.bf16", 16
		if d.FP8 {
			ks, ty, count = "32", "e4m3.e4m3", 8
		}
		w := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk%s\.f32\.%s\s+\{(%%f\d+, ){%d}%%f\d+\}, \{%%r\d+, %%r\d+, %%r\d+, %%r\d+\}, %%rd\d+, %%wgp, 1, 1`, c.n, ks, ty, c.n/2-1)
		require.Len(t, ptxLine(w).FindAllString(b.PTX, -1), count, "%+v: %s", c, w)
		require.GreaterOrEqual(t, len(tma.FindAllString(b.PTX, -1)), 2, "%+v: rank-4 TMA loads of K and V", c)
		require.Regexp(t, ptxLine(`mbarrier\.arrive\.expect_tx\.shared::cta\.b64 %st, \[%r\d+\], %r\d+;`), b.PTX)
		require.Len(t, b.Descs, 2, "%+v: the K and V maps", c)
		for _, desc := range b.Descs {
			require.Equal(t, []int{1, 1, c.page, HeadDim}, desc.Box, "%+v", c)
		}
	}
	ck, err := Kernel("attn_combine")
	require.NoError(t, err)
	_, err = ck.Compile(tle.CompileOptions{Defines: map[string]string{"SP2": "8"}, NumWarps: NumWarps}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
}

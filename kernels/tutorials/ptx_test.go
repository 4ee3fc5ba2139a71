package tutorials

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestPTXPatterns compiles every tutorial with llc-19, as CI does, and
// checks that the instructions the kernel is meant to use are there: whole
// instruction forms, not names that could appear in a comment.
func TestPTXPatterns(t *testing.T) {
	tletest.NeedLLC(t)
	cases := []struct {
		file, kernel string
		mmaSync      bool
		defs         map[string]string
		div16        []string
		want         []string
	}{
		{"vector_add.tle", "vector_add", false, map[string]string{"BLOCK": "1024"}, nil,
			[]string{`ld\.global\.v4\.(f32|b32)\s+\{`, `st\.global\.v4\.(f32|b32)\s+\[`}},
		{"softmax.tle", "softmax", false, map[string]string{"BLOCK": "8192"}, []string{"n_cols", "stride"},
			[]string{`ex2\.approx\.(ftz\.)?f32\s`, `shfl\.sync\.bfly\.b32\s`, `ld\.global\.v4\.(f32|b32)\s+\{`}},
		{"matmul.tle", "matmul", false, map[string]string{"BM": "128", "BN": "128", "BK": "64"}, []string{"M", "N", "K"},
			[]string{`wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s`, `wgmma\.commit_group\.sync\.aligned;`, `wgmma\.wait_group\.sync\.aligned 0;`,
				`fence\.proxy\.async\.shared::cta;`, `cp\.async\.cg\.shared\.global\s`, `cp\.async\.wait_group\s`}},
		{"matmul.tle", "matmul", true, map[string]string{"BM": "128", "BN": "128", "BK": "32"}, []string{"M", "N", "K"},
			[]string{`mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32\s`, `ldmatrix\.sync\.aligned\.m8n8\.x4(\.trans)?\.shared\.b16\s`, `cp\.async\.(cg|ca)\.shared\.global\s`, `cp\.async\.wait_group\s`}},
		{"grouped_gemm.tle", "grouped_matmul", false, map[string]string{"NUM_SM": "132", "BM": "64", "BN": "64", "BK": "32"}, nil,
			[]string{`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16\s`, `ld\.global\.u64\s`}},
		{"grouped_gemm.tle", "grouped_matmul_aligned", false, map[string]string{"NUM_SM": "132", "BM": "64", "BN": "64", "BK": "32"}, nil,
			[]string{`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16\s`, `ld\.global\.v4\.(u32|b32)\s`}},
		{"layer_norm.tle", "layer_norm", false, map[string]string{"BLOCK": "1024"}, []string{"n_cols"},
			[]string{`rsqrt\.approx\.(ftz\.)?f32\s`, `shfl\.sync\.bfly\.b32\s`}},
	}
	for _, c := range cases {
		name := c.kernel
		if c.mmaSync {
			name += "/mma.sync"
		}
		t.Run(name, func(t *testing.T) {
			prog, err := tle.Load(FS, c.file)
			require.NoError(t, err)
			k, err := prog.Kernel(c.kernel)
			require.NoError(t, err)
			b, err := k.Compile(tle.CompileOptions{Defines: c.defs, Div16: c.div16, DotMMASync: c.mmaSync}, tle.GPUOptions{Toolchain: "llc"})
			require.NoError(t, err)
			for _, w := range c.want {
				require.Regexp(t, tletest.PTXLine(w), b.PTX, "%s: no %s", c.kernel, w)
			}
		})
	}
}

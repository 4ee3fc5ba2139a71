package tutorials

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

var update = flag.Bool("update", false, "rewrite the LLVM IR goldens in testdata/")

// goldenCases are the tutorials with the bindings their tests use.
var goldenCases = []struct {
	kernel string
	defs   map[string]string
}{
	{"vector_add", map[string]string{"BLOCK": "256"}},
	{"softmax", map[string]string{"BLOCK": "512"}},
	{"matmul", map[string]string{"BM": "64", "BN": "32", "BK": "32"}},
	{"layer_norm", map[string]string{"BLOCK": "512"}},
	{"pipe_scale", map[string]string{"ROWS": "8", "ROW": "256", "CAP": "2"}},
	{"cluster_exchange", map[string]string{"BLOCK": "128"}},
	{"compact", map[string]string{"N": "256"}},
	{"seeded_dropout", map[string]string{"BLOCK": "1024"}},
}

// TestLLVMGolden compares each tutorial's LLVM IR with testdata/KERNEL.ll, so
// that any change to the code the backend generates is seen in review;
// `go test ./kernels/tutorials -run LLVMGolden -update` rewrites them.
func TestLLVMGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.kernel, func(t *testing.T) {
			prog, err := tle.Load(FS, c.kernel+".tle")
			require.NoError(t, err)
			k, err := prog.Kernel(c.kernel)
			require.NoError(t, err)
			art, err := k.Build(tle.CompileOptions{Defines: c.defs}, tle.GPUOptions{}, "ll")
			require.NoError(t, err)
			path := filepath.Join("testdata", c.kernel+".ll")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(path, []byte(art.LLVMIR), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to create it")
			require.Equal(t, string(want), art.LLVMIR, "LLVM IR of %s changed; rerun with -update if intended", c.kernel)
		})
	}
}

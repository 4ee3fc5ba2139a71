package lower

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/tle/ir"
)

func lowerFile(t *testing.T, path, kernel string, defines map[string]string) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := parser.ParseFile(filepath.Base(path), src)
	require.NoError(t, err)
	m, err := Kernel(f, kernel, Options{Defines: defines})
	require.NoError(t, err)
	return m
}

func TestLowerTutorials(t *testing.T) {
	dir := "../../kernels/tutorials"
	cases := []struct {
		file, kernel string
		defs         map[string]string
	}{
		{"vector_add.tle", "vector_add", map[string]string{"BLOCK": "1024"}},
		{"softmax.tle", "softmax", map[string]string{"BLOCK": "1024"}},
		{"matmul.tle", "matmul", map[string]string{"BM": "64", "BN": "64", "BK": "32"}},
		{"layer_norm.tle", "layer_norm", map[string]string{"BLOCK": "1024"}},
		{"pipe_scale.tle", "pipe_scale", map[string]string{"ROWS": "8", "ROW": "256", "CAP": "2"}},
		{"cluster_exchange.tle", "cluster_exchange", map[string]string{"BLOCK": "256"}},
	}
	for _, c := range cases {
		m := lowerFile(t, filepath.Join(dir, c.file), c.kernel, c.defs)
		t.Log("\n" + ir.Print(m))
	}
}

package lower

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/ir"
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

// lowerSource parses, checks (no errors allowed) and lowers kernel k of
// src, and verifies the module.
func lowerSource(t *testing.T, name, src string) *ir.Module {
	t.Helper()
	f, err := parser.ParseFile(name, []byte(src))
	require.NoError(t, err)
	_, errs := check.Check(f, check.Config{})
	require.Empty(t, errs)
	m, err := Kernel(f, "k", Options{})
	require.NoError(t, err)
	require.NoError(t, ir.Verify(m))
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
		{"matmul_mxfp4.tle", "matmul_mxfp4", map[string]string{"BM": "64", "BN": "32", "BK": "128"}},
	}
	for _, c := range cases {
		m := lowerFile(t, filepath.Join(dir, c.file), c.kernel, c.defs)
		require.NoError(t, ir.Verify(m), "%s\n%s", c.file, ir.Print(m))
		back, err := ir.Parse(c.file, []byte(ir.Print(m)))
		require.NoError(t, err)
		require.Equal(t, ir.Print(m), ir.Print(back), "text form round trip of %s", c.file)
	}
}

// TestLowerCheckerCorpus lowers every kernel of the checker's clean corpus
// with the file's `// -D` bindings: whatever the checker accepts must lower
// to IR that verifies.
func TestLowerCheckerCorpus(t *testing.T) {
	files, err := filepath.Glob("../check/testdata/ok/*.tle")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		defs := map[string]string{}
		for _, m := range defineLine.FindAllStringSubmatch(string(src), -1) {
			defs[m[1]] = m[2]
		}
		f, err := parser.ParseFile(filepath.Base(path), src)
		require.NoError(t, err)
		for _, d := range f.Decls {
			k, ok := d.(*ast.KernelDecl)
			if !ok {
				continue
			}
			bound := true
			for _, p := range k.Params {
				if _, ok := defs[p.Name.Name]; p.Const && !ok {
					bound = false
				}
			}
			if !bound {
				continue
			}
			t.Run(filepath.Base(path)+"/"+k.Name.Name, func(t *testing.T) {
				m, err := Kernel(f, k.Name.Name, Options{Defines: defs})
				require.NoError(t, err)
				require.NoError(t, ir.Verify(m), ir.Print(m))
			})
		}
	}
}

var defineLine = regexp.MustCompile(`(?m)^// -D (\w+)=(\S+)`)

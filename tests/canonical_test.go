package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/format"
)

// TestKernelsAreCanonical keeps every kernel the project ships in the one
// canonical format: `tlec fmt` leaves each byte as it is.
func TestKernelsAreCanonical(t *testing.T) {
	root := repoRoot(t)
	n := 0
	err := filepath.WalkDir(filepath.Join(root, "kernels"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".tle") || strings.Contains(path, "testdata") {
			return err
		}
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		out, err := format.Source(path, src)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, path)
		require.Equal(t, string(src), string(out), "%s is not canonical: run tlec fmt -w %s", rel, rel)
		n++
		return nil
	})
	require.NoError(t, err)
	require.NotZero(t, n)
}

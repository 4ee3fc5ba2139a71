package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// tlec build --html writes the pass viewer's page instead of an --emit
// stage, and says where; --emit tir prints FILE:LINE:COL locations.
func TestBuildHTML(t *testing.T) {
	if _, err := exec.LookPath("llc-19"); err != nil {
		t.Skip("no llc-19")
	}
	out := filepath.Join(t.TempDir(), "softmax.html")
	code, stdout, stderr := tlecRun("build", "../../kernels/tutorials/softmax.tle", "--kernel", "softmax", "-D", "BLOCK=128", "--html", out)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "wrote "+out)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(page), `data-name="PTX"`)

	code, stdout, stderr = tlecRun("build", "../../kernels/tutorials/softmax.tle", "--kernel", "softmax", "-D", "BLOCK=128", "--emit", "tir")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "program_id() {axis = 0} : i32 loc(../../kernels/tutorials/softmax.tle:4:12)")
}

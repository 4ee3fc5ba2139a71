package passes

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

// TestAsyncLoads: testdata/async-loads/basic.tir (whose CHECK lines
// TestPassFiles matches after layouts, pipeline, async-loads: the staging
// alloc, async_copy + async_commit at the load, async_wait + local_load
// (+ select for other) before the first use; the fallback reason on a
// 2-byte gather) goes through every GPU row, smem-alloc included, and
// verifies after each.
func TestAsyncLoads(t *testing.T) {
	src, err := os.ReadFile("testdata/async-loads/basic.tir")
	require.NoError(t, err)
	m, err := ir.Parse("testdata/async-loads/basic.tir", src)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(m))
	require.NoError(t, Run(m, Options{From: PhaseGPU, GPU: &GPUOptions{}, VerifyEach: true}))
	require.Contains(t, ir.Print(m), "async_copy(")
}

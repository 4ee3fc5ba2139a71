package passes

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/passes/internal/filecheck"
	"github.com/tlego/tle/tle/ir"
)

// TestAsyncLoads runs the GPU preparation up to AsyncLoads (as nvptx.Prepare
// does, before AllocateShared) on testdata/async_load.tir and matches its
// CHECK lines: the staging alloc, async_copy + async_commit at the load,
// async_wait + local_load (+ select for other) before the first use; the
// fallback reason on a 2-byte gather.
func TestAsyncLoads(t *testing.T) {
	src, err := os.ReadFile("testdata/async_load.tir")
	require.NoError(t, err)
	m, err := ir.Parse("testdata/async_load.tir", src)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(m))
	require.NoError(t, AssignLayouts(m, 4))
	require.NoError(t, PipelineLoops(m, 3))
	require.NoError(t, AsyncLoads(m))
	require.NoError(t, ir.Verify(m))
	out := ir.Print(m)
	if err := filecheck.Check(out, string(src)); err != nil {
		t.Fatalf("%v\n--- output:\n%s", err, out)
	}
	require.NoError(t, AllocateShared(m))
	require.NoError(t, ir.Verify(m))
}

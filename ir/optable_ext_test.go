package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// The GPU passes spell their op kinds themselves; each must be the kind of
// a GPU row of the op table, so that Verify checks it.
func TestGPUPassKindsHaveRows(t *testing.T) {
	for _, k := range []ir.Kind{gpu.OpConvertLayout, gpu.OpAsyncCopy, gpu.OpAsyncCommit, gpu.OpAsyncWait} {
		in, ok := k.Info()
		require.True(t, ok, k)
		require.True(t, in.GPU, k)
	}
}

package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/passes"
	"github.com/tlego/tle/tle/ir"
)

// The GPU passes spell their op kinds themselves; each must be the kind of
// a GPU row of the op table, so that Verify checks it.
func TestGPUPassKindsHaveRows(t *testing.T) {
	for _, k := range []ir.Kind{passes.OpConvertLayout, passes.OpAsyncCopy, passes.OpAsyncCommit, passes.OpAsyncWait} {
		in, ok := k.Info()
		require.True(t, ok, k)
		require.True(t, in.GPU, k)
	}
}

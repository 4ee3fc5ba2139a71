package ir

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The programmatic-dependent-launch ops take and make nothing, survive the
// text form, and are not pure (CSE and DCE must keep each one).
func TestPDLOps(t *testing.T) {
	for _, k := range []Kind{OpGridDepWait, OpLaunchDependents} {
		require.True(t, k.IsKnown(), k)
		require.False(t, k.IsPure(), k)
		require.False(t, k.IsElementwise() || k.IsTerminator(), k)
	}
	src := kernel(`  grid_dependency_wait() loc(5)
  launch_dependents() loc(6)
  launch_dependents() loc(7)`)
	m, err := Parse("v.tir", []byte(src))
	require.NoError(t, err)
	require.NoError(t, Verify(m))
	text := Print(m)
	require.Contains(t, text, "grid_dependency_wait() loc(5)\n")
	require.Contains(t, text, "launch_dependents() loc(6)\n")
	m2, err := Parse("v.tir", []byte(text))
	require.NoError(t, err)
	require.Equal(t, text, Print(m2))

	for _, c := range []struct{ name, body, want string }{
		{"operand", `  grid_dependency_wait(%n) loc(5)`, "op grid_dependency_wait: has 1 operands, want 0"},
		{"result", `  %0 = launch_dependents() : i32 loc(5)`, "op launch_dependents: has 1 results, want 0"},
		{"attribute", `  launch_dependents() {n = 1} loc(5)`, "launch_dependents takes no attributes"},
	} {
		m, err := Parse("v.tir", []byte(kernel(c.body)))
		require.NoError(t, err, c.name)
		err = Verify(m)
		require.Error(t, err, c.name)
		require.Contains(t, err.Error(), c.want, c.name)
	}
}

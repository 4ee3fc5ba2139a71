package ir

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The vote ops: pure (CSE may merge them, DCE drop them), popc element-wise,
// their text form round-trips, and Verify rejects wrong operands.
func TestVoteOps(t *testing.T) {
	for _, k := range []Kind{OpBallot, OpPopc, OpPrefixCount} {
		require.True(t, k.IsKnown(), k)
		require.True(t, k.IsPure(), k)
		require.False(t, k.IsTerminator(), k)
	}
	require.True(t, OpPopc.IsElementwise())
	require.False(t, OpBallot.IsElementwise() || OpPrefixCount.IsElementwise())

	src := kernel(`  %a = arange() {end = 64, start = 0} : [64]i32 loc(1)
  %s = splat(%n) : [64]i32 loc(2)
  %m = cmp(%a, %s) {pred = "lt"} : [64]i1 loc(3)
  %w = ballot(%m) : [2]u32 loc(4)
  %c = popc(%w) : [2]u32 loc(5)
  %i = prefix_count(%m) : [64]i32 loc(6)
  %q = popc(%n) : i32 loc(7)`)
	m, err := Parse("v.tir", []byte(src))
	require.NoError(t, err)
	require.NoError(t, Verify(m))
	text := Print(m)
	for _, w := range []string{"= ballot(%2) : [2]u32 loc(4)", "= popc(%3) : [2]u32 loc(5)", "= prefix_count(%2) : [64]i32 loc(6)", "= popc(%n) : i32 loc(7)"} {
		require.Contains(t, text, w)
	}
	m2, err := Parse("v.tir", []byte(text))
	require.NoError(t, err)
	require.Equal(t, text, Print(m2))

	pre := `  %a = arange() {end = 64, start = 0} : [64]i32 loc(1)
  %s = splat(%n) : [64]i32 loc(2)
  %m = cmp(%a, %s) {pred = "lt"} : [64]i1 loc(3)
  %h = arange() {end = 16, start = 0} : [16]i32 loc(1)
  %g = cmp(%h, %h) {pred = "lt"} : [16]i1 loc(3)
`
	for _, c := range []struct{ name, body, want string }{
		{"ballot of i32", `  %w = ballot(%a) : [2]u32 loc(5)`, "op ballot: operand has type [64]i32, want a 1-D i1 tile"},
		{"ballot of a scalar", `  %w = ballot(%n) : [2]u32 loc(5)`, "op ballot: operand has type i32, want a 1-D i1 tile"},
		{"ballot of 16", `  %w = ballot(%g) : [1]u32 loc(5)`, "op ballot: mask has 16 elements, not a multiple of 32"},
		{"ballot result", `  %w = ballot(%m) : [2]i32 loc(5)`, "op ballot: result has type [2]i32, want [2]u32"},
		{"ballot words", `  %w = ballot(%m) : [1]u32 loc(5)`, "op ballot: result has type [1]u32, want [2]u32"},
		{"prefix_count of i32", `  %w = prefix_count(%a) : [64]i32 loc(5)`, "op prefix_count: operand has type [64]i32, want a 1-D i1 tile"},
		{"prefix_count result", `  %w = prefix_count(%m) : [64]u32 loc(5)`, "op prefix_count: result has type [64]u32, want [64]i32"},
		{"popc of i1", `  %w = popc(%m) : [64]i1 loc(5)`, "op popc: needs an integer operand (not i1), has [64]i1"},
		{"popc of f32", `  %w = popc(%f) : f32 loc(5)`, "op popc: needs an integer operand (not i1), has f32"},
		{"popc result", `  %w = popc(%a) : [64]i64 loc(5)`, "op popc: result has type [64]i64, want [64]i32"},
	} {
		m, err := Parse("v.tir", []byte(kernel(pre+c.body)))
		require.NoError(t, err, c.name)
		err = Verify(m)
		require.Error(t, err, c.name)
		require.Contains(t, err.Error(), c.want, c.name)
	}
}

package passes

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// Observe sees the input, then the module after each pass that runs, in
// the table's order (the tile rows here: no GPU options), as
// --dump-after=all would dump it; a disabled pass is not seen.
func TestObserve(t *testing.T) {
	m, err := ir.Parse("k.tir", []byte("kernel @k(%p: *i32, %n: i32) {\n  %a = add(%n, %n) : i32 loc(1)\n  store(%p, %a) loc(2)\n  return() loc(3)\n}\n"))
	require.NoError(t, err)
	var seen []string
	require.NoError(t, Run(m, Options{Disable: []string{"cse"}, Observe: func(pass string, m *ir.Module) {
		seen = append(seen, pass)
		require.NotEmpty(t, ir.Print(m))
	}}))
	want := []string{"input"}
	for _, p := range Table {
		if p.Phase == PhaseTile && p.Name != "cse" {
			want = append(want, p.Name)
		}
	}
	require.Equal(t, want, seen)
}

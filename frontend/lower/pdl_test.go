package lower

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

// grid_dependency_wait and launch_dependents lower to their ops, at their
// calls and in program order (inside helpers, branches and roles too), and
// the module prints and parses back to itself.
func TestLowerPDL(t *testing.T) {
	src := `func wait_inputs() { grid_dependency_wait() }

kernel k(x *f32, out *f32, n i32) {
    wait_inputs()
    v := load(x)
    if n > 0 {
        launch_dependents()
    }
    warp_specialize {
        role a(warps: 1) {
            grid_dependency_wait()
        }
        role b(warps: 4) {
            launch_dependents()
        }
    }
    store(out, v)
}
`
	m := lowerSource(t, "pdl.tle", src)
	var kinds []ir.Kind
	walk := func(op *ir.Op) {
		switch op.Kind {
		case ir.OpGridDepWait, ir.OpLaunchDependents:
			kinds = append(kinds, op.Kind)
			require.Empty(t, op.Operands)
			require.Empty(t, op.Results)
			line := m.File.Position(op.Pos).Line
			require.Contains(t, []int{1, 7, 11, 14}, line, "position of %s", op.Kind)
		}
	}
	m.Func("k").Walk(walk)
	m.Func("wait_inputs").Walk(walk) // the helper's call is inlined later, by the inline pass
	text := ir.Print(m)
	require.Equal(t, []ir.Kind{ir.OpLaunchDependents, ir.OpGridDepWait, ir.OpLaunchDependents, ir.OpGridDepWait}, kinds, text)
	m2, err := ir.Parse("pdl.tir", []byte(text))
	require.NoError(t, err)
	require.NoError(t, ir.Verify(m2))
	require.Equal(t, text, ir.Print(m2))
}

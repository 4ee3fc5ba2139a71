package tle

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// Capture on the fake driver: a captured launch runs at each replay, not
// at capture; a step without a launch, or a PDL step of a kernel without
// grid_dependency_wait, is refused before anything is captured; a graph
// whose launch was closed refuses to replay, and a closed graph too.
func TestGraphCapture(t *testing.T) {
	g, k := fakeVadd(t)
	x, err := g.Upload(ir.F32, []float64{1, 2, 3, 4})
	require.NoError(t, err)
	defer g.Free(x)
	out, err := g.Upload(ir.F32, make([]float64, 4))
	require.NoError(t, err)
	defer g.Free(out)
	p, err := g.Prepare(k, CompileOptions{}, [3]int{1, 1, 1}, x, x, out, int32(4))
	require.NoError(t, err)

	_, err = g.Capture()
	require.ErrorContains(t, err, "Capture of no launches")
	_, err = g.Capture(GraphStep{})
	require.ErrorContains(t, err, "step 0 has no launch")
	_, err = g.Capture(GraphStep{Launch: p, Options: LaunchOptions{PDL: true}})
	require.ErrorContains(t, err, "never calls grid_dependency_wait")

	gr, err := g.Capture(GraphStep{Launch: p})
	require.NoError(t, err)
	got, err := g.Download(out)
	require.NoError(t, err)
	require.Equal(t, []float64{0, 0, 0, 0}, got, "nothing runs at capture")
	require.NoError(t, gr.Launch())
	got, err = g.Download(out)
	require.NoError(t, err)
	require.Equal(t, []float64{2, 4, 6, 8}, got)

	require.NoError(t, p.Close())
	require.ErrorContains(t, gr.Launch(), "launch of a graph whose launch of vadd was closed")
	require.NoError(t, gr.Close())
	require.ErrorContains(t, gr.Launch(), "launch of a closed graph")
	require.NoError(t, gr.Close(), "a second Close does nothing")
}

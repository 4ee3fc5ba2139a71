package tests

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

const loadModSrc = `
kernel load_mod(x *f32, y *f32, n i32) {
    offs := program_id(0) * 256 + arange(0, 256)
    m := offs < n
    a := load(x + offs, mask: m, cache_modifier: ".cg")
    b := load(x + offs, mask: m, eviction_policy: "evict_last")
    c := load(x, volatile: true)
    store(y + offs, a + 2.0 * b + c, mask: m, cache_modifier: ".cs")
}
`

// TestGPULoadModifiers runs loads and stores with cache_modifier:,
// eviction_policy: and volatile: on the GPU and the interpreter (which
// ignores them): the qualifiers change caching only, not the values.
func TestGPULoadModifiers(t *testing.T) {
	g := tletest.GPU(t)
	prog, err := tle.Parse("load_mod.tle", []byte(loadModSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("load_mod")
	require.NoError(t, err)
	const n = 1000
	in := make([]float64, n)
	for i := range in {
		in[i] = float64(i) * 0.25
	}
	run := func(dev tle.Device) []float64 {
		y := tle.NewTensor(n)
		err := k.Run(dev, [3]int{(n + 255) / 256, 1, 1}, tle.CompileOptions{NumWarps: 4},
			map[string]any{"x": &tle.Tensor{Shape: []int{n}, Data: in}, "y": y, "n": n})
		require.NoError(t, err, "on %s", dev.Name())
		return y.Data
	}
	want := run(tle.CPU())
	require.Equal(t, 3*in[5]+in[0], want[5])
	require.Equal(t, want, run(g))
}

// TestLoadModifiersInterp: the interpreter ignores the qualifiers.
func TestLoadModifiersInterp(t *testing.T) {
	prog, err := tle.Parse("load_mod.tle", []byte(loadModSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("load_mod")
	require.NoError(t, err)
	const n = 300
	in := make([]float64, n)
	for i := range in {
		in[i] = float64(i) + 1
	}
	y := tle.NewTensor(n)
	require.NoError(t, k.Run(tle.CPU(), [3]int{2, 1, 1}, tle.CompileOptions{NumWarps: 4},
		map[string]any{"x": &tle.Tensor{Shape: []int{n}, Data: in}, "y": y, "n": n}))
	for i := range in {
		require.Equal(t, 3*in[i]+in[0], y.Data[i], "y[%d]", i)
	}
}

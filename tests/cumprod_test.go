package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// cumprodSrc scans a [16, 64] tile along both axes, forward and reversed.
var cumprodSrc = func() string {
	var b strings.Builder
	for _, dt := range []string{"f32", "i32"} {
		fmt.Fprintf(&b, `
kernel cumprod_%[1]s(x *%[1]s, a *%[1]s, b *%[1]s, c *%[1]s) {
    r := arange(0, 16)
    k := arange(0, 64)
    o := r[:, None]*64 + k[None, :]
    t := load(x + o)
    store(a + o, cumprod(t, axis: 1))
    store(b + o, cumprod(t, axis: 0, reverse: true))
    store(c + o, cumprod(t, axis: -1, reverse: true))
}
`, dt)
	}
	return b.String()
}()

// cumprodInputs: ±1/2, ±1, ±2 for floats (every product exact, so any
// order of the GPU's combines gives the reference's bits); small integers
// for i32, whose wrapping products are exact in any order too.
func cumprodInputs(dt string, r *rand.Rand) []float64 {
	set := []float64{0.5, 1, 2, -0.5, -1, -2, 1, 1}
	if dt == "i32" {
		set = []float64{1, -1, 2, 3, -3, 1, 5, 7}
	}
	x := make([]float64, 16*64)
	for i := range x {
		x[i] = set[r.IntN(len(set))]
	}
	return x
}

// cumprodRef is the inclusive product of x along axis of [16, 64].
func cumprodRef(dt string, x []float64, axis int, reverse bool) []float64 {
	out := make([]float64, len(x))
	n, m := 16, 64
	lines, length := m, n
	at := func(line, q int) int { return q*m + line }
	if axis == 1 {
		lines, length = n, m
		at = func(line, q int) int { return line*m + q }
	}
	for l := range lines {
		acc := 1.0
		var iacc int32 = 1
		for q := range length {
			qq := q
			if reverse {
				qq = length - 1 - q
			}
			i := at(l, qq)
			if dt == "i32" {
				iacc *= int32(x[i])
				out[i] = float64(iacc)
			} else {
				acc *= x[i]
				out[i] = float64(float32(acc))
			}
		}
	}
	return out
}

func runCumprod(t *testing.T, dev tle.Device, dt string, seed uint64) {
	prog, err := tle.Parse("cumprod.tle", []byte(cumprodSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("cumprod_" + dt)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 9))
	for range 4 {
		x := cumprodInputs(dt, r)
		outs := map[string]*tle.Tensor{"a": tle.NewTensor(len(x)), "b": tle.NewTensor(len(x)), "c": tle.NewTensor(len(x))}
		require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4},
			map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}, "a": outs["a"], "b": outs["b"], "c": outs["c"]}))
		for name, want := range map[string][]float64{"a": cumprodRef(dt, x, 1, false), "b": cumprodRef(dt, x, 0, true), "c": cumprodRef(dt, x, 1, true)} {
			for i, w := range want {
				require.False(t, math.IsNaN(w))
				require.Equal(t, w, outs[name].Data[i], "%s on %s: output %s element %d", k.Name(), dev.Name(), name, i)
			}
		}
	}
}

// TestCumprod runs cumprod on the interpreter against an exact reference,
// along both axes, forward and reversed.
func TestCumprod(t *testing.T) {
	for _, dt := range []string{"f32", "i32"} {
		runCumprod(t, tle.CPU(), dt, 7)
	}
}

// TestGPUCumprod: the same on the GPU.
func TestGPUCumprod(t *testing.T) {
	g := tletest.GPU(t)
	for _, dt := range []string{"f32", "i32"} {
		runCumprod(t, g, dt, 8)
	}
}

package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// reduceCombineSrc reduces a [16, 64] tile with helpers as combines: a sum
// (next to sum, which it must match up to rounding), a maximum, a bitwise
// or of integers, every axis, and keep_dims.
const reduceCombineSrc = `
func add(a f32, b f32) f32 {
    return a + b
}

func mx(a f32, b f32) f32 {
    return maximum(a, b)
}

func bor(a i32, b i32) i32 {
    return a | b
}

kernel reduce_combine(x *f32, y *i32, rows *f32, sums *f32, cols *f32, ors *i32, all *f32, kept *f32) {
    r := arange(0, 16)
    c := arange(0, 64)
    off := r[:, None]*64 + c[None, :]
    t := load(x + off)
    store(rows + r, reduce(t, 1, add))
    store(sums + r, sum(t, axis: 1))
    store(cols + c, reduce(t, axis: 0, combine_fn: mx))
    store(ors + c, reduce(load(y + off), 0, bor))
    store(all, reduce(t, combine: add))
    store(kept + r[:, None], reduce(t, 1, add, keep_dims: true))
}
`

func runReduceCombine(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("reduce_combine.tle", []byte(reduceCombineSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("reduce_combine")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 3))
	for range 3 {
		x, y := make([]float64, 16*64), make([]float64, 16*64)
		for i := range x {
			x[i] = float64(float32(r.NormFloat64()))
			y[i] = float64(int32(1) << r.IntN(31))
		}
		outs := map[string]*tle.Tensor{}
		args := map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}, "y": &tle.Tensor{Shape: []int{len(y)}, Data: y}}
		for name, n := range map[string]int{"rows": 16, "sums": 16, "cols": 64, "ors": 64, "all": 1, "kept": 16} {
			outs[name] = tle.NewTensor(n)
			args[name] = outs[name]
		}
		require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, args))
		total := 0.0
		for i := range 16 {
			s := 0.0
			for j := range 64 {
				s += x[i*64+j]
			}
			total += s
			require.InDelta(t, s, outs["rows"].Data[i], 1e-4, "%s: row %d", dev.Name(), i)
			require.InDelta(t, outs["sums"].Data[i], outs["rows"].Data[i], 1e-4, "%s: row %d against sum", dev.Name(), i)
			require.Equal(t, outs["rows"].Data[i], outs["kept"].Data[i], "%s: keep_dims row %d", dev.Name(), i)
		}
		require.InDelta(t, total, outs["all"].Data[0], 1e-3, "%s: the whole tile", dev.Name())
		for j := range 64 {
			m, o := math.Inf(-1), int32(0)
			for i := range 16 {
				m = math.Max(m, x[i*64+j])
				o |= int32(y[i*64+j])
			}
			require.Equal(t, m, outs["cols"].Data[j], "%s: column max %d", dev.Name(), j)
			require.Equal(t, float64(o), outs["ors"].Data[j], "%s: column or %d", dev.Name(), j)
		}
	}
}

// TestReduceCombine runs reduce with helper combines on the interpreter
// against float64 and integer references.
func TestReduceCombine(t *testing.T) { runReduceCombine(t, tle.CPU(), 11) }

// TestGPUReduceCombine: the same on the GPU.
func TestGPUReduceCombine(t *testing.T) {
	g := tletest.GPU(t)
	runReduceCombine(t, g, 12)
}

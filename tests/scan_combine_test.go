package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// scanCombineSrc scans with helpers as combines: a sum (next to cumsum), a
// maximum, and the product of 2x2 matrices over GF(2) packed in 4 bits of
// an i32, associative but not commutative, so every step's order shows.
// The [2, 1024] tile along axis 1 spreads the axis over registers, lanes
// and warps; the [64, 16] tile along axis 0 over chunks too.
const scanCombineSrc = `
func add(a f32, b f32) f32 {
    return a + b
}

func mx(a f32, b f32) f32 {
    return maximum(a, b)
}

func mat2(a i32, b i32) i32 {
    a00 := (a >> 3) & 1
    a01 := (a >> 2) & 1
    a10 := (a >> 1) & 1
    a11 := a & 1
    b00 := (b >> 3) & 1
    b01 := (b >> 2) & 1
    b10 := (b >> 1) & 1
    b11 := b & 1
    c00 := (a00 & b00) ^ (a01 & b10)
    c01 := (a00 & b01) ^ (a01 & b11)
    c10 := (a10 & b00) ^ (a11 & b10)
    c11 := (a10 & b01) ^ (a11 & b11)
    return (c00 << 3) | (c01 << 2) | (c10 << 1) | c11
}

kernel scan_combine(x *f32, m *i32, sums *f32, cums *f32, maxs *f32, fwd *i32, rev *i32, col *i32, colrev *i32) {
    r := arange(0, 2)
    c := arange(0, 1024)
    off := r[:, None]*1024 + c[None, :]
    t := load(x + off)
    store(sums + off, associative_scan(t, 1, add))
    store(cums + off, cumsum(t, axis: 1))
    store(maxs + off, associative_scan(t, axis: 1, combine_fn: mx, reverse: true))
    u := load(m + off)
    store(fwd + off, associative_scan(u, 1, mat2))
    store(rev + off, associative_scan(u, 1, mat2, reverse: true))
    v := reshape(u, [64, 32])
    store(col + off, reshape(associative_scan(v, 0, mat2), [2, 1024]))
    store(colrev + off, reshape(associative_scan(v, 0, mat2, reverse: true), [2, 1024]))
}
`

// mat2 multiplies two 2x2 matrices over GF(2) packed as m00 m01 m10 m11
// (bits 3 to 0).
func mat2(a, b int) int {
	at := func(x, i, j int) int { return x >> (3 - 2*i - j) & 1 }
	out := 0
	for i := range 2 {
		for j := range 2 {
			c := at(a, i, 0)&at(b, 0, j) ^ at(a, i, 1)&at(b, 1, j)
			out |= c << (3 - 2*i - j)
		}
	}
	return out
}

// scanRef scans lines of n elements at stride step (start first) with f,
// from the end when reverse: out[i] = f(acc of the earlier, x[i]).
func scanRef(x []float64, starts []int, n, step int, reverse bool, f func(a, b float64) float64) []float64 {
	out := make([]float64, len(x))
	for _, s := range starts {
		var acc float64
		for q := range n {
			if reverse {
				q = n - 1 - q
			}
			i := s + q*step
			if q == 0 && !reverse || q == n-1 && reverse {
				acc = x[i]
			} else {
				acc = f(acc, x[i])
			}
			out[i] = acc
		}
	}
	return out
}

func runScanCombine(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("scan_combine.tle", []byte(scanCombineSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("scan_combine")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 5))
	const n = 2048
	for range 3 {
		x, m := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(float32(r.NormFloat64()))
			m[i] = float64(r.IntN(16))
		}
		names := []string{"sums", "cums", "maxs", "fwd", "rev", "col", "colrev"}
		outs := map[string]*tle.Tensor{}
		args := map[string]any{"x": &tle.Tensor{Shape: []int{n}, Data: x}, "m": &tle.Tensor{Shape: []int{n}, Data: m}}
		for _, name := range names {
			outs[name] = tle.NewTensor(n)
			args[name] = outs[name]
		}
		require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, args))
		rows, cols := []int{0, 1024}, make([]int, 32)
		for i := range cols {
			cols[i] = i
		}
		add := func(a, b float64) float64 { return a + b }
		mm := func(a, b float64) float64 { return float64(mat2(int(a), int(b))) }
		sums := scanRef(x, rows, 1024, 1, false, add)
		for i, w := range sums {
			require.InDelta(t, w, outs["sums"].Data[i], 1e-3, "%s: sums %d", dev.Name(), i)
			require.InDelta(t, outs["cums"].Data[i], outs["sums"].Data[i], 1e-3, "%s: sums %d against cumsum", dev.Name(), i)
		}
		for name, want := range map[string][]float64{
			"maxs":   scanRef(x, rows, 1024, 1, true, math.Max),
			"fwd":    scanRef(m, rows, 1024, 1, false, mm),
			"rev":    scanRef(m, rows, 1024, 1, true, mm),
			"col":    scanRef(m, cols, 64, 32, false, mm),
			"colrev": scanRef(m, cols, 64, 32, true, mm),
		} {
			for i, w := range want {
				require.Equal(t, w, outs[name].Data[i], "%s: %s element %d", dev.Name(), name, i)
			}
		}
	}
}

// TestScanCombine runs associative_scan with helper combines on the
// interpreter against float64 and integer references, a non-commutative
// combine among them, forward and reversed, along either axis.
func TestScanCombine(t *testing.T) { runScanCombine(t, tle.CPU(), 21) }

// TestGPUScanCombine: the same on the GPU.
func TestGPUScanCombine(t *testing.T) {
	g := tletest.GPU(t)
	runScanCombine(t, g, 22)
}

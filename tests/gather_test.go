package tests

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// gatherOpSrc gathers an [M, N] tile of dtype T along its rows (index [M, K])
// and its columns (index [K, N]), and counts the values of an i32 tile in
// B bins with and without a mask.
const gatherOpSrc = `
kernel gathers(x *T, ir *i32, ic *i32, rows *T, cols *T, T const dtype, M const i32, N const i32, K const i32) {
    r := arange(0, M)
    c := arange(0, N)
    k := arange(0, K)
    t := load(x + r[:, None]*N + c[None, :])
    i := load(ir + r[:, None]*K + k[None, :])
    store(rows + r[:, None]*K + k[None, :], gather(t, i, 1))
    j := load(ic + k[:, None]*N + c[None, :])
    store(cols + k[:, None]*N + c[None, :], gather(t, j, axis: 0))
}

kernel hist(x *i32, m *i1, all *i32, masked *i32, N const i32, B const i32) {
    o := arange(0, N)
    b := arange(0, B)
    v := load(x + o)
    store(all + b, histogram(v, B))
    store(masked + b, histogram(v, B, mask: load(m + o)))
}

kernel hist_loop(x *i32, h *i32, n i32) {
    acc := zeros([16], i32)
    for i := range(0, n, 64) {
        acc += histogram(load(x + i + arange(0, 64)), 16)
    }
    store(h + arange(0, 16), acc)
}

kernel gather_oob(x *f32, i *i32, out *f32) {
    c := arange(0, 16)
    store(out + c, gather(load(x + c), load(i + c), 0))
}
`

func runGathers(t *testing.T, dev tle.Device, dt string, m, n, k int, seed uint64) {
	prog, err := tle.Parse("gather.tle", []byte(gatherOpSrc))
	require.NoError(t, err)
	kern, err := prog.Kernel("gathers")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, uint64(m*n+k)))
	defs := map[string]string{"T": dt, "M": fmt.Sprint(m), "N": fmt.Sprint(n), "K": fmt.Sprint(k)}
	for range 3 {
		x := make([]float64, m*n)
		for i := range x {
			if dt == "i32" {
				x[i] = float64(int32(r.Uint32()))
			} else {
				x[i] = floats.Round(floats.BF16, r.NormFloat64())
			}
		}
		ir, ic := make([]float64, m*k), make([]float64, k*n)
		for i := range ir {
			ir[i] = float64(r.IntN(n))
		}
		for i := range ic {
			ic[i] = float64(r.IntN(m))
		}
		rows, cols := tle.NewTensor(m*k), tle.NewTensor(k*n)
		require.NoError(t, kern.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: defs}, map[string]any{
			"x": &tle.Tensor{Shape: []int{m * n}, Data: x}, "ir": &tle.Tensor{Shape: []int{m * k}, Data: ir}, "ic": &tle.Tensor{Shape: []int{k * n}, Data: ic},
			"rows": rows, "cols": cols}))
		for i := range m {
			for j := range k {
				require.Equal(t, x[i*n+int(ir[i*k+j])], rows.Data[i*k+j], "%s gather along rows [%d,%d] on %s at %d,%d", dt, m, n, dev.Name(), i, j)
			}
		}
		for i := range k {
			for j := range n {
				require.Equal(t, x[int(ic[i*n+j])*n+j], cols.Data[i*n+j], "%s gather along columns [%d,%d] on %s at %d,%d", dt, m, n, dev.Name(), i, j)
			}
		}
	}
}

func runHistogram(t *testing.T, dev tle.Device, n, bins int, seed uint64) {
	prog, err := tle.Parse("gather.tle", []byte(gatherOpSrc))
	require.NoError(t, err)
	kern, err := prog.Kernel("hist")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, uint64(n+bins)))
	for range 3 {
		x, m := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(bins+6) - 3) // some below 0 and at or above bins
			m[i] = float64(r.IntN(2))
		}
		all, masked := tle.NewTensor(bins), tle.NewTensor(bins)
		require.NoError(t, kern.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: map[string]string{"N": fmt.Sprint(n), "B": fmt.Sprint(bins)}},
			map[string]any{"x": &tle.Tensor{Shape: []int{n}, Data: x}, "m": &tle.Tensor{Shape: []int{n}, Data: m}, "all": all, "masked": masked}))
		wa, wm := make([]float64, bins), make([]float64, bins)
		for i, v := range x {
			if v >= 0 && int(v) < bins {
				wa[int(v)]++
				wm[int(v)] += m[i]
			}
		}
		require.Equal(t, wa, all.Data, "histogram of %d values in %d bins on %s", n, bins, dev.Name())
		require.Equal(t, wm, masked.Data, "masked histogram of %d values in %d bins on %s", n, bins, dev.Name())
	}
}

// runHistLoop: histograms of successive 64-element chunks summed in a loop
// (the shared buffer zeroed again each trip).
func runHistLoop(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("gather.tle", []byte(gatherOpSrc))
	require.NoError(t, err)
	kern, err := prog.Kernel("hist_loop")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, 256)
	want := make([]float64, 16)
	for i := range x {
		x[i] = float64(r.IntN(20) - 2)
		if x[i] >= 0 && x[i] < 16 {
			want[int(x[i])]++
		}
	}
	h := tle.NewTensor(16)
	require.NoError(t, kern.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4},
		map[string]any{"x": &tle.Tensor{Shape: []int{256}, Data: x}, "h": h, "n": int32(256)}))
	require.Equal(t, want, h.Data, "histograms summed in a loop on %s", dev.Name())
}

var gatherCases = []struct {
	dt      string
	m, n, k int
}{{"f32", 4, 16, 8}, {"i32", 8, 8, 16}, {"bf16", 2, 32, 2}}

var histCases = [][2]int{{64, 8}, {16, 32}, {256, 4}, {1024, 256}}

// TestGather runs gather along both axes on the interpreter against Go
// indexing, and histogram against Go counts (values out of range ignored).
func TestGather(t *testing.T) {
	for i, c := range gatherCases {
		runGathers(t, tle.CPU(), c.dt, c.m, c.n, c.k, uint64(90+i))
	}
	for i, c := range histCases {
		runHistogram(t, tle.CPU(), c[0], c[1], uint64(95+i))
	}
	runHistLoop(t, tle.CPU(), 98)
}

// TestGatherOutOfRange: an index out of range is an interpreter error at
// the gather's position, naming the element and the value.
func TestGatherOutOfRange(t *testing.T) {
	prog, err := tle.Parse("gather.tle", []byte(gatherOpSrc))
	require.NoError(t, err)
	kern, err := prog.Kernel("gather_oob")
	require.NoError(t, err)
	idx := make([]float64, 16)
	for i := range idx {
		idx[i] = float64(15 - i)
	}
	idx[5] = 16
	err = kern.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{}, map[string]any{
		"x": tle.NewTensor(16), "i": &tle.Tensor{Shape: []int{16}, Data: idx}, "out": tle.NewTensor(16)})
	require.Error(t, err)
	require.Contains(t, err.Error(), "gather.tle:31:20")
	require.Contains(t, err.Error(), "gather: index 16 at [5] is out of range [0, 16) along axis 0")
	idx[5] = -1
	err = kern.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{}, map[string]any{
		"x": tle.NewTensor(16), "i": &tle.Tensor{Shape: []int{16}, Data: idx}, "out": tle.NewTensor(16)})
	require.ErrorContains(t, err, "gather: index -1 at [5] is out of range")
}

// TestGPUGather: the same on the GPU.
func TestGPUGather(t *testing.T) {
	g := tletest.GPU(t)
	for i, c := range gatherCases {
		runGathers(t, g, c.dt, c.m, c.n, c.k, uint64(100+i))
	}
	for i, c := range histCases {
		runHistogram(t, g, c[0], c[1], uint64(105+i))
	}
	runHistLoop(t, g, 108)
}

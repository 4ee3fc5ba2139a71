package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// sortSrc sorts an [M, N] tile of dtype T along its rows both ways and
// along its columns, takes the top K of each row, and merges rows of y
// (bitonic: ascending then descending halves) both ways.
const sortSrc = `
kernel sorts(x *T, y *T, asc *T, desc *T, cols *T, top *T, merged *T, mdesc *T, T const dtype, M const i32, N const i32, K const i32) {
    r := arange(0, M)
    c := arange(0, N)
    o := r[:, None]*N + c[None, :]
    t := load(x + o)
    store(asc + o, sort(t))
    store(desc + o, sort(t, descending: true))
    store(cols + o, sort(t, 0))
    store(top + r[:, None]*K + arange(0, K)[None, :], topk(t, K))
    b := load(y + o)
    store(merged + o, bitonic_merge(b))
    store(mdesc + o, bitonic_merge(b, dim: -1, descending: true))
}

kernel sort3d(x *i32, s *i32, t *i32) {
    a := arange(0, 2)
    b := arange(0, 4)
    c := arange(0, 8)
    o := a[:, None, None]*32 + b[None, :, None]*8 + c[None, None, :]
    v := load(x + o)
    store(s + o, sort(v, 1, descending: true))
    store(t + a[:, None, None]*16 + arange(0, 2)[None, :, None]*8 + c[None, None, :], topk(v, 2, dim: 1))
}

kernel sort1d(x *f32, k *i32, d *f32, t *f32, h *i32, on i1) {
    o := arange(0, 64)
    v := load(x + o)
    store(d + o, sort(v, descending: true))
    store(t + arange(0, 4), topk(v, 4))
    store(h + arange(0, 8), histogram(load(k + o), 8, mask: on))
}
`

// nanLess orders NaN above every number (the order sort documents).
func nanLess(a, b float64) bool {
	return a < b || !math.IsNaN(a) && math.IsNaN(b)
}

// sortInputs: values drawn from a small set (many duplicates), with NaNs
// and infinities for floats, rounded to dt.
func sortInputs(dt string, r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch {
		case dt == "i32":
			x[i] = float64(int32(r.IntN(41)-20) * 100003)
		case r.IntN(10) == 0:
			x[i] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(4)]
		default:
			x[i] = float64(r.IntN(33)-16) * 0.375
		}
		if dt == "bf16" {
			x[i] = floats.Round(floats.BF16, x[i])
		}
	}
	return x
}

// sameValues compares element by element, NaN equal to NaN.
func sameValues(t *testing.T, want, got []float64, msg string, args ...any) {
	t.Helper()
	for i := range want {
		if math.IsNaN(want[i]) && math.IsNaN(got[i]) || want[i] == got[i] {
			continue
		}
		t.Fatalf("%s: element %d is %v, want %v\nwant %v\ngot  %v", fmt.Sprintf(msg, args...), i, got[i], want[i], want, got)
	}
}

// sortedLines sorts the lines of x ([m, n] row-major) along axis
// (ascending by nanLess, or descending) into a new slice.
func sortedLines(x []float64, m, n, axis int, desc bool) []float64 {
	out := append([]float64(nil), x...)
	lines, length, at := m, n, func(l, q int) int { return l*n + q }
	if axis == 0 {
		lines, length, at = n, m, func(l, q int) int { return q*n + l }
	}
	for l := range lines {
		v := make([]float64, length)
		for q := range v {
			v[q] = x[at(l, q)]
		}
		sort.SliceStable(v, func(i, j int) bool {
			if desc {
				return nanLess(v[j], v[i])
			}
			return nanLess(v[i], v[j])
		})
		for q := range v {
			out[at(l, q)] = v[q]
		}
	}
	return out
}

func runSorts(t *testing.T, dev tle.Device, dt string, m, n, k int, seed uint64) {
	prog, err := tle.Parse("sort.tle", []byte(sortSrc))
	require.NoError(t, err)
	kern, err := prog.Kernel("sorts")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, uint64(m*n+k)))
	defs := map[string]string{"T": dt, "M": fmt.Sprint(m), "N": fmt.Sprint(n), "K": fmt.Sprint(k)}
	for range 3 {
		x := sortInputs(dt, r, m*n)
		// y: each row's halves sorted ascending then descending (bitonic)
		y := sortInputs(dt, r, m*n)
		for i := range m {
			row := y[i*n : (i+1)*n]
			copy(row[:n/2], sortedLines(row[:n/2], 1, n/2, 1, false))
			copy(row[n/2:], sortedLines(row[n/2:], 1, n/2, 1, true))
		}
		outs := map[string]*tle.Tensor{}
		args := map[string]any{"x": &tle.Tensor{Shape: []int{m * n}, Data: x}, "y": &tle.Tensor{Shape: []int{m * n}, Data: y}}
		for _, name := range []string{"asc", "desc", "cols", "merged", "mdesc"} {
			outs[name] = tle.NewTensor(m * n)
			args[name] = outs[name]
		}
		outs["top"] = tle.NewTensor(m * k)
		args["top"] = outs["top"]
		require.NoError(t, kern.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: defs}, args))
		at := fmt.Sprintf("%s [%d,%d] on %s", dt, m, n, dev.Name())
		sameValues(t, sortedLines(x, m, n, 1, false), outs["asc"].Data, "sort %s", at)
		sameValues(t, sortedLines(x, m, n, 1, true), outs["desc"].Data, "sort descending %s", at)
		sameValues(t, sortedLines(x, m, n, 0, false), outs["cols"].Data, "sort along dim 0 %s", at)
		sameValues(t, sortedLines(y, m, n, 1, false), outs["merged"].Data, "bitonic_merge %s", at)
		sameValues(t, sortedLines(y, m, n, 1, true), outs["mdesc"].Data, "bitonic_merge descending %s", at)
		desc := sortedLines(x, m, n, 1, true)
		top := make([]float64, 0, m*k)
		for i := range m {
			top = append(top, desc[i*n:i*n+k]...)
		}
		sameValues(t, top, outs["top"].Data, "topk %d %s", k, at)
	}
}

// runSort3D: a [2, 4, 8] tile sorted along its middle dimension, and its
// top 2 there.
func runSort3D(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("sort.tle", []byte(sortSrc))
	require.NoError(t, err)
	kern, err := prog.Kernel("sort3d")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 3))
	x := sortInputs("i32", r, 64)
	s, top := tle.NewTensor(64), tle.NewTensor(32)
	require.NoError(t, kern.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4},
		map[string]any{"x": &tle.Tensor{Shape: []int{64}, Data: x}, "s": s, "t": top}))
	for a := range 2 {
		for c := range 8 {
			col := make([]float64, 4)
			for b := range 4 {
				col[b] = x[a*32+b*8+c]
			}
			col = sortedLines(col, 1, 4, 1, true)
			for b := range 4 {
				require.Equal(t, col[b], s.Data[a*32+b*8+c], "3-D sort along dim 1 on %s at %d,%d,%d", dev.Name(), a, b, c)
				if b < 2 {
					require.Equal(t, col[b], top.Data[a*16+b*8+c], "3-D topk along dim 1 on %s at %d,%d,%d", dev.Name(), a, b, c)
				}
			}
		}
	}
}

// runSort1D: a 1-D tile sorted descending, its top 4, and a histogram
// whose mask is a runtime scalar (on, then off).
func runSort1D(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("sort.tle", []byte(sortSrc))
	require.NoError(t, err)
	kern, err := prog.Kernel("sort1d")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, on := range []bool{true, false} {
		x, k := sortInputs("f32", r, 64), make([]float64, 64)
		for i := range k {
			k[i] = float64(r.IntN(12) - 2)
		}
		d, top, h := tle.NewTensor(64), tle.NewTensor(4), tle.NewTensor(8)
		require.NoError(t, kern.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4},
			map[string]any{"x": &tle.Tensor{Shape: []int{64}, Data: x}, "k": &tle.Tensor{Shape: []int{64}, Data: k}, "d": d, "t": top, "h": h, "on": on}))
		want := sortedLines(x, 1, 64, 1, true)
		sameValues(t, want, d.Data, "1-D sort descending on %s", dev.Name())
		sameValues(t, want[:4], top.Data, "1-D topk on %s", dev.Name())
		hist := make([]float64, 8)
		for _, v := range k {
			if on && v >= 0 && v < 8 {
				hist[int(v)]++
			}
		}
		require.Equal(t, hist, h.Data, "histogram with mask %v on %s", on, dev.Name())
	}
}

// sortCases are the dtypes and [M, N] shapes with topk's K.
var sortCases = []struct {
	dt      string
	m, n, k int
}{
	{"f32", 4, 16, 4}, {"f32", 2, 64, 8}, {"f32", 8, 2, 1}, {"f32", 2, 32, 32},
	{"i32", 4, 32, 2}, {"i32", 1, 8, 8},
	{"bf16", 4, 16, 16}, {"bf16", 2, 8, 1},
}

// TestSort runs sort (both orders, along rows and columns), topk and
// bitonic_merge on the interpreter against Go's sort (NaN above every
// number) on random tiles full of duplicates, NaNs and infinities.
func TestSort(t *testing.T) {
	for i, c := range sortCases {
		runSorts(t, tle.CPU(), c.dt, c.m, c.n, c.k, uint64(40+i))
	}
	runSort1D(t, tle.CPU(), 50)
	runSort3D(t, tle.CPU(), 51)
}

// TestGPUSort: the same on the GPU.
func TestGPUSort(t *testing.T) {
	g := tletest.GPU(t)
	for i, c := range sortCases {
		runSorts(t, g, c.dt, c.m, c.n, c.k, uint64(60+i))
	}
	// larger tiles: exchanges across warps go through shared memory
	runSorts(t, g, "f32", 16, 256, 16, 80)
	runSorts(t, g, "i32", 64, 32, 4, 81)
	runSort1D(t, g, 82)
	runSort3D(t, g, 83)
}

// TestSortBuilds compiles, through llc-19, every configuration the GPU
// tests of sort and gather run (the tile shapes and dtypes, so each
// butterfly's register, lane or shared-memory path and each gather's
// layout), so that one that cannot build fails here without a GPU.
func TestSortBuilds(t *testing.T) {
	tletest.NeedLLC(t)
	// every specialisation in one llc run (tle.CompileAll)
	var specs []tle.Spec
	add := func(src, kernel string, defs map[string]string) {
		t.Helper()
		prog, err := tle.Parse("sort.tle", []byte(src))
		require.NoError(t, err)
		k, err := prog.Kernel(kernel)
		require.NoError(t, err)
		specs = append(specs, tle.Spec{Kernel: k, Options: tle.CompileOptions{NumWarps: 4, Defines: defs}})
	}
	cases := append(sortCases[:len(sortCases):len(sortCases)], struct {
		dt      string
		m, n, k int
	}{"f32", 16, 256, 16}, struct {
		dt      string
		m, n, k int
	}{"i32", 64, 32, 4})
	for _, c := range cases {
		add(sortSrc, "sorts", map[string]string{"T": c.dt, "M": fmt.Sprint(c.m), "N": fmt.Sprint(c.n), "K": fmt.Sprint(c.k)})
	}
	add(sortSrc, "sort1d", nil)
	add(sortSrc, "sort3d", nil)
	for _, c := range gatherCases {
		add(gatherOpSrc, "gathers", map[string]string{"T": c.dt, "M": fmt.Sprint(c.m), "N": fmt.Sprint(c.n), "K": fmt.Sprint(c.k)})
	}
	for _, c := range histCases {
		add(gatherOpSrc, "hist", map[string]string{"N": fmt.Sprint(c[0]), "B": fmt.Sprint(c[1])})
	}
	add(gatherOpSrc, "hist_loop", nil)
	bins, err := tle.CompileAll(specs, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for i, b := range bins {
		name := specs[i].Kernel.Name()
		require.Contains(t, b.PTX, ".entry "+name+"(", "%s %v", name, specs[i].Options.Defines)
	}
}

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

// argSrc is one kernel per dtype over a [16, 64] tile x (row-major): the
// index reductions along both axes and of the flattened tile, both
// tie-breaks, max/min with return_indices, and keep_dims.
var argSrc = func() string {
	var b strings.Builder
	for _, dt := range []string{"f32", "i32", "f16"} {
		fmt.Fprintf(&b, `
kernel arg_%[1]s(x *%[1]s, i1 *i32, i2 *i32, i3 *i32, i4 *i32, v5 *%[1]s, i5 *i32, v6 *%[1]s, i6 *i32, i7 *i32, ks *f32, kf *f32) {
    r := arange(0, 16)
    c := arange(0, 64)
    t := load(x + r[:, None]*64 + c[None, :])
    store(i1 + r, argmax(t, axis: 1))
    store(i2 + r, argmin(t, axis: -1, tie_break_left: false))
    store(i3 + c, argmin(t, axis: 0))
    store(i4 + c, argmax(t, axis: 0, tie_break_left: false))
    v, i := max(t, axis: 1, return_indices: true)
    store(v5 + r, v)
    store(i5 + r, i)
    w, j := min(t, axis: 0, return_indices: true, return_indices_tie_break_left: false, keep_dims: true)
    store(v6 + c[None, :], w)
    store(i6 + c[None, :], j)
    store(i7, argmax(t))
    store(i7 + 1 + r[:, None], argmin(t, axis: 1, keep_dims: true))
    store(ks + r[:, None], sum(cast(t, f32), axis: 1, keep_dims: true))
    store(kf + arange(0, 1)[:, None], sum(cast(t, f32), keep_dims: true))
}
`, dt)
	}
	return b.String()
}()

// argInputs are 16x64 values with many ties (a few distinct values); for
// floats, row 3 is all NaN and rows 5 and 7 hold some NaNs and -inf.
func argInputs(dt string, r *rand.Rand) []float64 {
	x := make([]float64, 16*64)
	for i := range x {
		x[i] = float64(r.IntN(9) - 4)
		if dt != "i32" {
			x[i] *= 0.25
		}
		if dt == "i32" && r.IntN(5) == 0 {
			x[i] = float64(r.Int32() >> r.IntN(31))
		}
	}
	if dt != "i32" {
		for k := range 64 {
			x[3*64+k] = math.NaN()
			if k%5 == 0 {
				x[5*64+k], x[7*64+k] = math.NaN(), math.Inf(-1)
			}
		}
	}
	return x
}

// argRef is the reference argmax (argmin with less) of vals: NaNs ignored,
// ties to the lowest index (highest when !left), an all-NaN slice its first
// (last) index; and the value.
func argRef(vals []float64, less bool, left bool) (int, float64) {
	best, bi := math.NaN(), -1
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		better := v > best
		if less {
			better = v < best
		}
		if bi < 0 || better || v == best && !left {
			best, bi = v, i
		}
	}
	if bi < 0 {
		if left {
			return 0, best
		}
		return len(vals) - 1, best
	}
	return bi, best
}

type argOut struct{ i1, i2, i3, i4, v5, i5, v6, i6, i7, ks, kf []float64 }

func runArg(t *testing.T, k *tle.Kernel, dev tle.Device, x []float64) argOut {
	t.Helper()
	o := map[string]*tle.Tensor{}
	for name, n := range map[string]int{"i1": 16, "i2": 16, "i3": 64, "i4": 64, "v5": 16, "i5": 16, "v6": 64, "i6": 64, "i7": 17, "ks": 16, "kf": 1} {
		o[name] = tle.NewTensor(n)
	}
	args := map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}}
	for n, v := range o {
		args[n] = v
	}
	require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, args), "%s on %s", k.Name(), dev.Name())
	return argOut{o["i1"].Data, o["i2"].Data, o["i3"].Data, o["i4"].Data, o["v5"].Data, o["i5"].Data, o["v6"].Data, o["i6"].Data, o["i7"].Data, o["ks"].Data, o["kf"].Data}
}

func sameVal(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// checkArg compares out with the reference on x.
func checkArg(t *testing.T, name string, x []float64, out argOut) {
	row := func(i int) []float64 { return x[i*64 : i*64+64] }
	col := func(j int) []float64 {
		c := make([]float64, 16)
		for i := range c {
			c[i] = x[i*64+j]
		}
		return c
	}
	for i := range 16 {
		a, v := argRef(row(i), false, true)
		require.Equal(t, float64(a), out.i1[i], "%s: argmax row %d %v", name, i, row(i))
		require.Equal(t, float64(a), out.i5[i], "%s: max indices row %d", name, i)
		require.True(t, sameVal(v, out.v5[i]), "%s: max row %d = %v, want %v", name, i, out.v5[i], v)
		a, _ = argRef(row(i), true, false)
		require.Equal(t, float64(a), out.i2[i], "%s: argmin right row %d %v", name, i, row(i))
		a, _ = argRef(row(i), true, true)
		require.Equal(t, float64(a), out.i7[1+i], "%s: argmin keep_dims row %d", name, i)
		s := 0.0
		for _, e := range row(i) {
			s += e
		}
		if !math.IsNaN(s) && !math.IsInf(s, 0) {
			require.InDelta(t, s, out.ks[i], 1e-3*math.Max(1, math.Abs(s)), "%s: sum keep_dims row %d", name, i)
		}
	}
	for j := range 64 {
		a, _ := argRef(col(j), true, true)
		require.Equal(t, float64(a), out.i3[j], "%s: argmin col %d %v", name, j, col(j))
		a, _ = argRef(col(j), false, false)
		require.Equal(t, float64(a), out.i4[j], "%s: argmax right col %d %v", name, j, col(j))
		a, v := argRef(col(j), true, false)
		require.Equal(t, float64(a), out.i6[j], "%s: min indices right col %d", name, j)
		require.True(t, sameVal(v, out.v6[j]), "%s: min col %d = %v, want %v", name, j, out.v6[j], v)
	}
	a, _ := argRef(x, false, true)
	require.Equal(t, float64(a), out.i7[0], "%s: argmax of the flattened tile", name)
}

// TestArgReductions runs argmax, argmin, max/min with return_indices and
// keep_dims on the interpreter over random tiles full of ties (and NaNs,
// -inf for floats), against a float64 reference.
func TestArgReductions(t *testing.T) {
	prog, err := tle.Parse("arg.tle", []byte(argSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 4))
	for _, dt := range []string{"f32", "i32", "f16"} {
		k, err := prog.Kernel("arg_" + dt)
		require.NoError(t, err)
		for range 5 {
			x := argInputs(dt, r)
			checkArg(t, k.Name(), x, runArg(t, k, tle.CPU(), x))
		}
	}
}

// TestGPUArgReductions: the same kernels on the GPU against the reference.
func TestGPUArgReductions(t *testing.T) {
	g := tletest.GPU(t)
	prog, err := tle.Parse("arg.tle", []byte(argSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(36, 5))
	for _, dt := range []string{"f32", "i32", "f16"} {
		k, err := prog.Kernel("arg_" + dt)
		require.NoError(t, err)
		for range 5 {
			x := argInputs(dt, r)
			checkArg(t, k.Name(), x, runArg(t, k, g, x))
		}
	}
}

package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// tupleCombineSrc reduces and scans lists of tiles ([x, idx], Triton's
// tuples of tensors) with helpers taking (a0, a1, b0, b1) and returning
// two values. argmax2 is an argmax as a (value, index) reduce over f32 and
// i32, ties to the lowest index (so it commutes: the GPU's order does not
// show); lin composes steps of the linear recurrence h = a*h + b, which
// does not commute, so every scan step's order shows. Axes 0 and 1 of 2-D
// tiles, every axis, keep_dims, forward and reversed scans.
const tupleCombineSrc = `
func argmax2(v0 f32, i0 i32, v1 f32, i1 i32) (f32, i32) {
    if v0 > v1 || v0 == v1 && i0 < i1 {
        return v0, i0
    } else {
        return v1, i1
    }
}

// maxcount is the maximum of f16 values, its lowest i32 index and the
// i64 count of its occurrences: three tiles of three dtypes
func maxcount(v0 f16, i0 i32, n0 i64, v1 f16, i1 i32, n1 i64) (f16, i32, i64) {
    if v0 > v1 {
        return v0, i0, n0
    } else if v1 > v0 {
        return v1, i1, n1
    } else {
        return v0, minimum(i0, i1), n0 + n1
    }
}

func mx(a f32, b f32) f32 {
    return maximum(a, b)
}

func lin(a0 f32, b0 f32, a1 f32, b1 f32) (f32, f32) {
    return a0 * a1, b0*a1 + b1
}

kernel tuple_reduce(x *f32, rowv *f32, rowi *i32, colv *f32, coli *i32, allv *f32, alli *i32, keptv *f32, kepti *i32, cumv *f32, cumi *i32, mcv *f16, mci *i32, mcn *i64, allk *i32, one *f32) {
    r := arange(0, 16)
    c := arange(0, 64)
    off := r[:, None]*64 + c[None, :]
    t := load(x + off)
    ci := broadcast_to(c[None, :], [16, 64])
    ri := broadcast_to(r[:, None], [16, 64])
    v1, i1 := reduce([t, ci], 1, argmax2)
    store(rowv + r, v1)
    store(rowi + r, i1)
    v0, i0 := reduce([t, ri], axis: 0, combine_fn: argmax2)
    store(colv + c, v0)
    store(coli + c, i0)
    va, ia := reduce([t, off], combine: argmax2)
    store(allv, va)
    store(alli, ia)
    vk, ik := reduce([t, ci], 1, argmax2, keep_dims: true)
    store(keptv + r[:, None], vk)
    store(kepti + r[:, None], ik)
    sv, si := associative_scan([t, ri], 0, argmax2)
    store(cumv + off, sv)
    store(cumi + off, si)
    mv, mi, mn := reduce([t.to(f16), ci, full([16, 64], 1, i64)], 1, maxcount)
    store(mcv + r, mv)
    store(mci + r, mi)
    store(mcn + r, mn)
    _, ak := reduce([t, off], combine: argmax2, keep_dims: true)
    store(allk + arange(0, 1)[:, None] + arange(0, 1)[None, :], ak)
    store(one + r, reduce([t], 1, mx))
}

kernel tuple_scan(a *f32, b *f32, h *f32, hrev *f32, g *f32, grev *f32, prod *f32) {
    r := arange(0, 2)
    c := arange(0, 1024)
    off := r[:, None]*1024 + c[None, :]
    ta := load(a + off)
    tb := load(b + off)
    p, hh := associative_scan([ta, tb], 1, lin)
    store(h + off, hh)
    store(prod + off, p)
    _, hr := associative_scan([ta, tb], axis: 1, combine: lin, reverse: true)
    store(hrev + off, hr)
    va := reshape(ta, [64, 32])
    vb := reshape(tb, [64, 32])
    _, gg := associative_scan([va, vb], 0, lin)
    store(g + off, reshape(gg, [2, 1024]))
    _, gr := associative_scan([va, vb], 0, lin, reverse: true)
    store(grev + off, reshape(gr, [2, 1024]))
}
`

// argmaxRef is the maximum of x[at(0)], ..., x[at(n-1)] and the index
// idx(k) of its first occurrence.
func argmaxRef(x []float64, n int, at func(k int) int, idx func(k int) int) (float64, float64) {
	best, bi := math.Inf(-1), -1
	for k := range n {
		if v := x[at(k)]; v > best || v == best && idx(k) < bi {
			best, bi = v, idx(k)
		}
	}
	return best, float64(bi)
}

func runTupleReduce(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("tuple_combine.tle", []byte(tupleCombineSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("tuple_reduce")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 5))
	for range 3 {
		// few distinct values: many ties, which must go to the lowest index
		x := make([]float64, 16*64)
		for i := range x {
			x[i] = float64(r.IntN(9)) - 4.5
		}
		outs := map[string]*tle.Tensor{}
		args := map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}}
		for name, n := range map[string]int{"rowv": 16, "rowi": 16, "colv": 64, "coli": 64, "allv": 1, "alli": 1,
			"keptv": 16, "kepti": 16, "cumv": 16 * 64, "cumi": 16 * 64, "mcv": 16, "mci": 16, "mcn": 16, "allk": 1, "one": 16} {
			outs[name] = tle.NewTensor(n)
			args[name] = outs[name]
		}
		require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, args))
		for i := range 16 {
			v, ix := argmaxRef(x, 64, func(k int) int { return i*64 + k }, func(k int) int { return k })
			require.Equal(t, v, outs["rowv"].Data[i], "%s: row %d max", dev.Name(), i)
			require.Equal(t, ix, outs["rowi"].Data[i], "%s: row %d index", dev.Name(), i)
			require.Equal(t, v, outs["keptv"].Data[i], "%s: keep_dims row %d max", dev.Name(), i)
			require.Equal(t, v, outs["one"].Data[i], "%s: row %d max of a one-tile list", dev.Name(), i)
			require.Equal(t, ix, outs["kepti"].Data[i], "%s: keep_dims row %d index", dev.Name(), i)
			count := 0.0
			for k := range 64 {
				if x[i*64+k] == v {
					count++
				}
			}
			// the values are small integers and halves: exact in f16
			require.Equal(t, v, outs["mcv"].Data[i], "%s: row %d f16 max", dev.Name(), i)
			require.Equal(t, ix, outs["mci"].Data[i], "%s: row %d f16 max index", dev.Name(), i)
			require.Equal(t, count, outs["mcn"].Data[i], "%s: row %d count of the max", dev.Name(), i)
		}
		for j := range 64 {
			v, ix := argmaxRef(x, 16, func(k int) int { return k*64 + j }, func(k int) int { return k })
			require.Equal(t, v, outs["colv"].Data[j], "%s: column %d max", dev.Name(), j)
			require.Equal(t, ix, outs["coli"].Data[j], "%s: column %d index", dev.Name(), j)
			for i := range 16 {
				v, ix := argmaxRef(x, i+1, func(k int) int { return k*64 + j }, func(k int) int { return k })
				require.Equal(t, v, outs["cumv"].Data[i*64+j], "%s: running max (%d, %d)", dev.Name(), i, j)
				require.Equal(t, ix, outs["cumi"].Data[i*64+j], "%s: running argmax (%d, %d)", dev.Name(), i, j)
			}
		}
		v, ix := argmaxRef(x, len(x), func(k int) int { return k }, func(k int) int { return k })
		require.Equal(t, v, outs["allv"].Data[0], "%s: whole tile max", dev.Name())
		require.Equal(t, ix, outs["alli"].Data[0], "%s: whole tile index", dev.Name())
		require.Equal(t, ix, outs["allk"].Data[0], "%s: whole tile index, keep_dims", dev.Name())
	}
}

// recurrence is h[i] = a[i]*h[i-1] + b[i] (h[-1] = 0) in float64 along n
// elements at(0..n-1), from the end when rev; also the running product of
// a.
func recurrence(a, b []float64, n int, at func(k int) int, rev bool) (h, p map[int]float64) {
	h, p = map[int]float64{}, map[int]float64{}
	hh, pp := 0.0, 1.0
	for k := range n {
		if rev {
			k = n - 1 - k
		}
		e := at(k)
		hh = a[e]*hh + b[e]
		pp *= a[e]
		h[e], p[e] = hh, pp
	}
	return h, p
}

func runTupleScan(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("tuple_combine.tle", []byte(tupleCombineSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("tuple_scan")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 6))
	const n = 2 * 1024
	for range 3 {
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = float64(float32(0.5 + 0.49*r.Float64()))
			b[i] = float64(float32(r.NormFloat64()))
		}
		outs := map[string]*tle.Tensor{}
		args := map[string]any{"a": &tle.Tensor{Shape: []int{n}, Data: a}, "b": &tle.Tensor{Shape: []int{n}, Data: b}}
		for _, name := range []string{"h", "hrev", "g", "grev", "prod"} {
			outs[name] = tle.NewTensor(n)
			args[name] = outs[name]
		}
		require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, args))
		check := func(name string, want map[int]float64) {
			require.Len(t, want, n)
			checkPart(t, dev, name, outs[name].Data, want)
		}
		for row := range 2 {
			at := func(k int) int { return row*1024 + k }
			h, p := recurrence(a, b, 1024, at, false)
			hr, _ := recurrence(a, b, 1024, at, true)
			checkPart(t, dev, "h", outs["h"].Data, h)
			checkPart(t, dev, "prod", outs["prod"].Data, p)
			checkPart(t, dev, "hrev", outs["hrev"].Data, hr)
		}
		// [64, 32] views of the same data, scanned along axis 0
		g, gr := map[int]float64{}, map[int]float64{}
		for col := range 32 {
			at := func(k int) int { return k*32 + col }
			h, _ := recurrence(a, b, 64, at, false)
			hr, _ := recurrence(a, b, 64, at, true)
			for e, v := range h {
				g[e] = v
			}
			for e, v := range hr {
				gr[e] = v
			}
		}
		check("g", g)
		check("grev", gr)
	}
}

// checkPart compares the elements of want (index: reference) with got.
func checkPart(t *testing.T, dev tle.Device, name string, got []float64, want map[int]float64) {
	for e, w := range want {
		require.InDelta(t, w, got[e], 1e-4*(1+math.Abs(w)), "%s: %s[%d]", dev.Name(), name, e)
	}
}

// TestTupleReduce runs reduce and associative_scan over [value, index]
// lists (argmax with ties) on the interpreter against Go references.
func TestTupleReduce(t *testing.T) { runTupleReduce(t, tle.CPU(), 21) }

// TestTupleScan runs a first-order linear recurrence as an
// associative_scan over [a, b] on the interpreter against a float64 loop,
// forward and reversed, along both axes.
func TestTupleScan(t *testing.T) { runTupleScan(t, tle.CPU(), 23) }

// TestGPUTupleReduce: TestTupleReduce on the GPU.
func TestGPUTupleReduce(t *testing.T) { runTupleReduce(t, tletest.GPU(t), 22) }

// TestGPUTupleScan: TestTupleScan on the GPU.
func TestGPUTupleScan(t *testing.T) { runTupleScan(t, tletest.GPU(t), 24) }

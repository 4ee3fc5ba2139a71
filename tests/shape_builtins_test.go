package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// shapeBuiltinsSrc moves the elements of two [M, N] tiles a and b with
// every shape builtin of issue 35: join, split (of a join, of a loaded
// [M, N/2, 2] tile whose pairs sit in one thread, and of a reshaped one
// whose pairs do not), interleave, cat, flip along both axes, expand_dims
// with an axis and a list, broadcast(a, b), the slice a[M/2:, N/4:N/2] and
// a split of a [2] tile into two scalars.
// Every output is a plain row-major store, so the reference is index
// arithmetic alone.
const shapeBuiltinsSrc = `
kernel shapes(x *T, y *T, oj *T, os0 *T, os1 *T, ot0 *T, ot1 *T, oi *T, oc *T, of0 *T, of1 *T, ou *T, ov *T, oe *T,
        osl *T, o2 *T, T const dtype, M const i32, N const i32) {
    r := arange(0, M)
    c := arange(0, N)
    o := r[:, None]*N + c[None, :]
    a := load(x + o)
    b := load(y + o)
    p := arange(0, 2)
    store(oj + o[:, :, None]*2 + p[None, None, :], join(a, b))
    h := arange(0, N/2)
    oh := r[:, None]*(N/2) + h[None, :]
    pairs := load(x + (r[:, None, None]*N + h[None, :, None]*2 + p[None, None, :]))
    s0, s1 := split(pairs)
    store(os0 + oh, s0)
    store(os1 + oh, s1)
    t0, t1 := split(reshape(b, [M, N/2, 2]))
    store(ot0 + oh, t0)
    store(ot1 + oh, t1)
    store(oi + r[:, None]*(2*N) + arange(0, 2*N)[None, :], interleave(a, b))
    store(oc + arange(0, 2*M)[:, None]*N + c[None, :], cat(a, b, can_reorder: true))
    store(of0 + o, flip(a, 0))
    store(of1 + o, flip(b))
    u, v := broadcast(expand_dims(load(x + r*N), 1), expand_dims(load(y + c), [0]))
    store(ou + o, u)
    store(ov + o, v)
    store(oe + o, reshape(expand_dims(a, [0, -1]), [M, N]))
    sr := arange(0, M - M/2)
    sc := arange(0, N/2 - N/4)
    store(osl + sr[:, None]*(N/2 - N/4) + sc[None, :], a[M/2:, N/4:N/2])
    e0, e1 := split(load(y + arange(0, 2)))
    store(o2, e1)
    store(o2 + 1, e0)
}
`

// shapeInputs are random values of dtype dt, never zero: normals rounded
// to the dtype, or integers in [-1000, 1000] without 0.
func shapeInputs(r *rand.Rand, dt string, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		switch dt {
		case "i32":
			v := r.IntN(2000) - 1000
			if v >= 0 {
				v++
			}
			out[i] = float64(v)
		default:
			d := ir.F32
			if dt == "bf16" {
				d = ir.BF16
			}
			v := r.NormFloat64()
			if v == 0 {
				v = 0.5
			}
			out[i] = d.Round(v)
		}
	}
	return out
}

// shapeRefs are the outputs of kernel shapes for inputs x and y of [m, n].
func shapeRefs(x, y []float64, m, n int) map[string][]float64 {
	at := func(t []float64, i, j int) float64 { return t[i*n+j] }
	ref := map[string][]float64{}
	mk := func(name string, size int, f func(k int) float64) {
		out := make([]float64, size)
		for k := range out {
			out[k] = f(k)
		}
		ref[name] = out
	}
	mk("oj", 2*m*n, func(k int) float64 {
		i, j, q := k/(2*n), k/2%n, k%2
		if q == 0 {
			return at(x, i, j)
		}
		return at(y, i, j)
	})
	mk("os0", m*n/2, func(k int) float64 { return x[2*k] })
	mk("os1", m*n/2, func(k int) float64 { return x[2*k+1] })
	mk("ot0", m*n/2, func(k int) float64 { return y[2*k] })
	mk("ot1", m*n/2, func(k int) float64 { return y[2*k+1] })
	mk("oi", 2*m*n, func(k int) float64 {
		i, jj := k/(2*n), k%(2*n)
		if jj%2 == 0 {
			return at(x, i, jj/2)
		}
		return at(y, i, jj/2)
	})
	mk("oc", 2*m*n, func(k int) float64 {
		if k < m*n {
			return x[k]
		}
		return y[k-m*n]
	})
	mk("of0", m*n, func(k int) float64 { return at(x, m-1-k/n, k%n) })
	mk("of1", m*n, func(k int) float64 { return at(y, k/n, n-1-k%n) })
	mk("ou", m*n, func(k int) float64 { return at(x, k/n, 0) })
	mk("ov", m*n, func(k int) float64 { return at(y, 0, k%n) })
	mk("oe", m*n, func(k int) float64 { return x[k] })
	sm, sn := m-m/2, n/2-n/4
	mk("osl", sm*sn, func(k int) float64 { return at(x, m/2+k/sn, n/4+k%sn) })
	mk("o2", 2, func(k int) float64 { return y[1-k] })
	return ref
}

// runShapeBuiltins runs kernel shapes on dev for each dtype and shape,
// with random inputs, and compares every output exactly (the builtins
// only move elements).
func runShapeBuiltins(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("shapes.tle", []byte(shapeBuiltinsSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("shapes")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 35))
	for _, dt := range []string{"f32", "bf16", "i32"} {
		for _, mn := range [][2]int{{2, 2}, {4, 8}, {16, 64}, {64, 32}, {1, 128}} {
			m, n := mn[0], mn[1]
			x, y := shapeInputs(r, dt, m*n), shapeInputs(r, dt, m*n)
			ref := shapeRefs(x, y, m, n)
			args := map[string]any{"x": &tle.Tensor{Shape: []int{m * n}, Data: x}, "y": &tle.Tensor{Shape: []int{m * n}, Data: y}}
			outs := map[string]*tle.Tensor{}
			for name, want := range ref {
				outs[name] = tle.NewTensor(len(want))
				args[name] = outs[name]
			}
			defs := map[string]string{"T": dt, "M": fmt.Sprint(m), "N": fmt.Sprint(n)}
			require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: defs}, args), "%s [%d,%d] on %s", dt, m, n, dev.Name())
			for name, want := range ref {
				require.Equal(t, want, outs[name].Data, "%s [%d,%d] on %s: output %s", dt, m, n, dev.Name(), name)
			}
		}
	}
}

// TestShapeBuiltins runs join, split, interleave, cat, flip, expand_dims,
// broadcast and tile slices on the interpreter against Go index
// arithmetic.
func TestShapeBuiltins(t *testing.T) {
	t.Parallel()
	runShapeBuiltins(t, tle.CPU(), 1)
}

// TestGPUShapeBuiltins: the same on the GPU, where the layouts decide how
// each builtin moves elements (registers, shuffles, shared memory).
func TestGPUShapeBuiltins(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		if os.Getenv("TLE_REQUIRE_GPU") == "1" {
			t.Fatalf("TLE_REQUIRE_GPU=1 but no GPU: %v", err)
		}
		t.Skipf("no GPU: %v", err)
	}
	runShapeBuiltins(t, g, 2)
}

// TestShapeBuiltinsBuild compiles kernel shapes to PTX for every dtype and
// shape TestGPUShapeBuiltins runs, so that a machine without a GPU still
// sees the backend lower each builtin in each of the layouts these shapes
// get (registers, shuffles, shared memory).
func TestShapeBuiltinsBuild(t *testing.T) {
	tletest.NeedLLC(t)
	prog, err := tle.Parse("shapes.tle", []byte(shapeBuiltinsSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("shapes")
	require.NoError(t, err)
	for _, dt := range []string{"f32", "bf16", "i32"} {
		for _, mn := range [][2]int{{2, 2}, {4, 8}, {16, 64}, {64, 32}, {1, 128}} {
			defs := map[string]string{"T": dt, "M": fmt.Sprint(mn[0]), "N": fmt.Sprint(mn[1])}
			b, err := k.Compile(tle.CompileOptions{NumWarps: 4, Defines: defs}, tle.GPUOptions{Toolchain: "llc"})
			require.NoError(t, err, "%s [%d,%d]", dt, mn[0], mn[1])
			require.Contains(t, b.PTX, ".entry shapes")
		}
	}
}

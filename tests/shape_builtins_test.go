package tests

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// shapeKernel is one kernel of shapeBuiltinsSrc: the builtin it tests, its
// body (after the common prelude: a and b, the [M, N] tiles at x and y, o
// their offsets, r and c the row and column indices, p = [0, 1]) and the
// reference of each output it stores, from x and y of [m, n].
type shapeKernel struct {
	builtin string
	body    string
	refs    map[string]func(x, y []float64, m, n int) []float64
}

// gen is size values of f.
func gen(size int, f func(k int) float64) []float64 {
	out := make([]float64, size)
	for k := range out {
		out[k] = f(k)
	}
	return out
}

// shapeKernels move the elements of a and b with every shape builtin of
// issue 35. Every output is a plain row-major store, so each reference is
// index arithmetic alone.
var shapeKernels = []shapeKernel{
	{"join", `store(o1 + o[:, :, None]*2 + p[None, None, :], join(a, b))`,
		map[string]func(x, y []float64, m, n int) []float64{
			"o1": func(x, y []float64, m, n int) []float64 {
				return gen(2*m*n, func(k int) float64 { return []float64{x[k/2], y[k/2]}[k%2] })
			}}},
	{"split", `h := arange(0, N/2)
    oh := r[:, None]*(N/2) + h[None, :]
    // pairs in one thread (a load of contiguous pairs), then spread over lanes (a reshape)
    s0, s1 := split(load(x + (r[:, None, None]*N + h[None, :, None]*2 + p[None, None, :])))
    t0, t1 := split(reshape(b, [M, N/2, 2]))
    store(o1 + oh, s0)
    store(o2 + oh, s1)
    store(o3 + oh, t0)
    store(o4 + oh, t1)
    // a [2] tile into two scalars
    e0, e1 := split(load(y + arange(0, 2)))
    store(o5, e1)
    store(o5 + 1, e0)`,
		map[string]func(x, y []float64, m, n int) []float64{
			"o1": func(x, y []float64, m, n int) []float64 { return gen(m*n/2, func(k int) float64 { return x[2*k] }) },
			"o2": func(x, y []float64, m, n int) []float64 { return gen(m*n/2, func(k int) float64 { return x[2*k+1] }) },
			"o3": func(x, y []float64, m, n int) []float64 { return gen(m*n/2, func(k int) float64 { return y[2*k] }) },
			"o4": func(x, y []float64, m, n int) []float64 { return gen(m*n/2, func(k int) float64 { return y[2*k+1] }) },
			"o5": func(x, y []float64, m, n int) []float64 { return []float64{y[1], y[0]} },
		}},
	{"interleave", `store(o1 + r[:, None]*(2*N) + arange(0, 2*N)[None, :], interleave(a, b))`,
		map[string]func(x, y []float64, m, n int) []float64{
			"o1": func(x, y []float64, m, n int) []float64 {
				return gen(2*m*n, func(k int) float64 { return []float64{x[k/2], y[k/2]}[k%2] })
			}}},
	{"cat", `store(o1 + arange(0, 2*M)[:, None]*N + c[None, :], cat(a, b, can_reorder: true))`,
		map[string]func(x, y []float64, m, n int) []float64{
			"o1": func(x, y []float64, m, n int) []float64 { return append(append([]float64{}, x...), y...) },
		}},
	{"flip", `store(o1 + o, flip(a, 0))
    store(o2 + o, flip(b))`,
		map[string]func(x, y []float64, m, n int) []float64{
			"o1": func(x, y []float64, m, n int) []float64 {
				return gen(m*n, func(k int) float64 { return x[(m-1-k/n)*n+k%n] })
			},
			"o2": func(x, y []float64, m, n int) []float64 {
				return gen(m*n, func(k int) float64 { return y[k/n*n+n-1-k%n] })
			},
		}},
	{"expand_dims", `store(o1 + o, reshape(expand_dims(a, [0, -1]), [M, N]))
    store(o2 + o, expand_dims(load(x + r*N), 1) + zeros([M, N], T))`,
		map[string]func(x, y []float64, m, n int) []float64{
			"o1": func(x, y []float64, m, n int) []float64 { return x },
			"o2": func(x, y []float64, m, n int) []float64 { return gen(m*n, func(k int) float64 { return x[k/n*n] }) },
		}},
	{"broadcast", `u, v := broadcast(load(x + r*N)[:, None], load(y + c)[None, :])
    store(o1 + o, u)
    store(o2 + o, v)`,
		map[string]func(x, y []float64, m, n int) []float64{
			"o1": func(x, y []float64, m, n int) []float64 { return gen(m*n, func(k int) float64 { return x[k/n*n] }) },
			"o2": func(x, y []float64, m, n int) []float64 { return gen(m*n, func(k int) float64 { return y[k%n] }) },
		}},
	{"slice", `sr := arange(0, M - M/2)
    sc := arange(0, N/2 - N/4)
    store(o1 + sr[:, None]*(N/2 - N/4) + sc[None, :], a[M/2:, N/4:N/2])`,
		map[string]func(x, y []float64, m, n int) []float64{
			"o1": func(x, y []float64, m, n int) []float64 {
				sn := n/2 - n/4
				return gen((m-m/2)*sn, func(k int) float64 { return x[(m/2+k/sn)*n+n/4+k%sn] })
			}}},
}

// shapeBuiltinsSrc is the kernels of shapeKernels, each named after its
// builtin, with outputs o1..o5.
var shapeBuiltinsSrc = func() string {
	var b strings.Builder
	for _, k := range shapeKernels {
		fmt.Fprintf(&b, `
kernel %s(x *T, y *T, o1 *T, o2 *T, o3 *T, o4 *T, o5 *T, T const dtype, M const i32, N const i32) {
    r := arange(0, M)
    c := arange(0, N)
    o := r[:, None]*N + c[None, :]
    a := load(x + o)
    b := load(y + o)
    p := arange(0, 2)
    %s
}
`, k.builtin, k.body)
	}
	return b.String()
}()

// shapeDTypes and shapeShapes are what each kernel runs with: [M, N].
var (
	shapeDTypes = []string{"f32", "bf16", "i32"}
	shapeShapes = [][2]int{{2, 2}, {4, 8}, {16, 64}, {64, 32}, {1, 128}}
)

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

// runShapeBuiltins runs each kernel of shapeKernels on dev, a subtest per
// builtin, for each dtype and shape, with random inputs, and compares
// every output exactly: the builtins only move elements, so the outputs are
// the inputs' values (the references' are rounded to the dtype as the
// inputs are, which changes nothing).
func runShapeBuiltins(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("shapes.tle", []byte(shapeBuiltinsSrc))
	require.NoError(t, err)
	for ki, sk := range shapeKernels {
		t.Run(sk.builtin, func(t *testing.T) {
			k, err := prog.Kernel(sk.builtin)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(seed, uint64(ki)))
			for _, dt := range shapeDTypes {
				for _, mn := range shapeShapes {
					m, n := mn[0], mn[1]
					x, y := shapeInputs(r, dt, m*n), shapeInputs(r, dt, m*n)
					args := map[string]any{"x": &tle.Tensor{Shape: []int{m * n}, Data: x}, "y": &tle.Tensor{Shape: []int{m * n}, Data: y}}
					outs := map[string]*tle.Tensor{}
					for _, name := range []string{"o1", "o2", "o3", "o4", "o5"} {
						size := 1
						if ref := sk.refs[name]; ref != nil {
							size = len(ref(x, y, m, n))
						}
						outs[name] = tle.NewTensor(size)
						args[name] = outs[name]
					}
					defs := map[string]string{"T": dt, "M": fmt.Sprint(m), "N": fmt.Sprint(n)}
					require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: defs}, args), "%s [%d,%d] on %s", dt, m, n, dev.Name())
					for name, ref := range sk.refs {
						want := ref(x, y, m, n)
						if dt != "i32" {
							d := map[string]ir.DType{"f32": ir.F32, "bf16": ir.BF16}[dt]
							want = tletest.Round(d, want)
						}
						require.Equal(t, want, outs[name].Data, "%s %s [%d,%d] on %s: output %s", sk.builtin, dt, m, n, dev.Name(), name)
					}
				}
			}
		})
	}
}

// TestShapeBuiltins runs join, split, interleave, cat, flip, expand_dims,
// broadcast and tile slices on the interpreter against Go index
// arithmetic.
func TestShapeBuiltins(t *testing.T) {
	t.Parallel()
	runShapeBuiltins(t, tle.CPU(), 1)
}

// TestGPUShapeBuiltins: the same on the GPU, a subtest per builtin, where
// the layouts decide how each moves elements (registers, shuffles, shared
// memory).
func TestGPUShapeBuiltins(t *testing.T) {
	g := tletest.GPU(t)
	runShapeBuiltins(t, g, 2)
}

// TestShapeBuiltinsBuild compiles every kernel to PTX for every dtype and
// shape TestGPUShapeBuiltins runs, so that a machine without a GPU still
// sees the backend lower each builtin in each of the layouts these shapes
// get (registers, shuffles, shared memory).
func TestShapeBuiltinsBuild(t *testing.T) {
	tletest.NeedLLC(t)
	prog, err := tle.Parse("shapes.tle", []byte(shapeBuiltinsSrc))
	require.NoError(t, err)
	// every specialisation in one llc run (tle.CompileAll)
	var specs []tle.Spec
	var names []string
	for _, sk := range shapeKernels {
		k, err := prog.Kernel(sk.builtin)
		require.NoError(t, err)
		for _, dt := range shapeDTypes {
			for _, mn := range shapeShapes {
				defs := map[string]string{"T": dt, "M": fmt.Sprint(mn[0]), "N": fmt.Sprint(mn[1])}
				specs = append(specs, tle.Spec{Kernel: k, Options: tle.CompileOptions{NumWarps: 4, Defines: defs}})
				names = append(names, sk.builtin)
			}
		}
	}
	bins, err := tle.CompileAll(specs, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for i, b := range bins {
		require.Contains(t, b.PTX, ".entry "+names[i]+"(", "%s %v", names[i], specs[i].Options.Defines)
	}
}

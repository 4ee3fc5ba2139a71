package collectives

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/tle"
)

// worlds are the device counts every collective is tested on.
var worlds = []int{2, 4, 8}

const block = 32

func kernel(t *testing.T, file, name string) *tle.Kernel {
	t.Helper()
	p, err := tle.Load(FS, file)
	require.NoError(t, err)
	k, err := p.Kernel(name)
	require.NoError(t, err)
	return k
}

// randData is n random values in ±[0.25, 4) (never zero), exact in dtype.
func randData(r *rand.Rand, n int, dtype string) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		v := 0.25 + 3.75*r.Float64()
		if r.IntN(2) == 0 {
			v = -v
		}
		if dtype == "bf16" {
			v = floats.Round(floats.BF16, v)
		} else {
			v = float64(float32(v))
		}
		xs[i] = v
	}
	return xs
}

func tensor(xs []float64) *tle.Tensor {
	t := tle.NewTensor(len(xs))
	copy(t.Data, xs)
	return t
}

// tol is the relative error allowed against a float64 reference, of the
// sum of the magnitudes: f32 sums of at most 8 terms, or one rounding to
// bf16 at the end.
func tol(dtype string) float64 {
	if dtype == "bf16" {
		return 1.0 / 128
	}
	return 1e-6
}

func opts(world int, dtype string) tle.CompileOptions {
	return tle.CompileOptions{Defines: map[string]string{"WORLD": fmt.Sprint(world), "BLOCK": fmt.Sprint(block), "T": dtype}}
}

// inputs are world random inputs of n elements.
func inputs(seed uint64, world, n int, dtype string) [][]float64 {
	r := rand.New(rand.NewPCG(seed, uint64(world)))
	xs := make([][]float64, world)
	for d := range xs {
		xs[d] = randData(r, n, dtype)
	}
	return xs
}

// sumRef is the float64 sum over ranks of xs[r][lo+i], i < n, and the sum
// of magnitudes.
func sumRef(xs [][]float64, lo, n int) (sum, mag []float64) {
	sum, mag = make([]float64, n), make([]float64, n)
	for _, x := range xs {
		for i := range n {
			sum[i] += x[lo+i]
			mag[i] += math.Abs(x[lo+i])
		}
	}
	return sum, mag
}

func requireClose(t *testing.T, what string, want, mag, got []float64, tol float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*mag[i] {
			t.Fatalf("%s: element %d is %g, want %g (tolerance %g)", what, i, got[i], want[i], tol*mag[i])
		}
	}
}

func run(t *testing.T, k *tle.Kernel, world, grid int, o tle.CompileOptions, args []map[string]any, sym ...string) {
	t.Helper()
	require.NoError(t, k.RunDevices(context.Background(), tle.SimDevices(world), [3]int{grid, 1, 1}, o, args, sym...))
}

func TestAllReduce(t *testing.T) {
	for _, name := range []string{"all_reduce_oneshot", "all_reduce_twoshot"} {
		k := kernel(t, "all_reduce.tle", name)
		for _, dtype := range []string{"f32", "bf16"} {
			for _, world := range worlds {
				t.Run(fmt.Sprintf("%s/%s/%d", name, dtype, world), func(t *testing.T) {
					n := world * 45 // two-shot: chunks of 45, two blocks of 32 each
					xs := inputs(7, world, n, dtype)
					args := make([]map[string]any, world)
					outs := make([]*tle.Tensor, world)
					for d := range args {
						outs[d] = tle.NewTensor(n)
						args[d] = map[string]any{"x": tensor(xs[d]), "out": outs[d], "n": n}
						if name == "all_reduce_twoshot" {
							args[d]["scratch"] = tle.NewTensor(n)
						}
					}
					grid := (n + block - 1) / block
					sym := []string{"x"}
					if name == "all_reduce_twoshot" {
						grid = (n/world + block - 1) / block
						sym = append(sym, "scratch")
					}
					run(t, k, world, grid, opts(world, dtype), args, sym...)
					want, mag := sumRef(xs, 0, n)
					for d := range outs {
						requireClose(t, fmt.Sprintf("rank %d", d), want, mag, outs[d].Data, tol(dtype))
						require.Equal(t, outs[0].Data, outs[d].Data, "rank %d differs from rank 0", d)
					}
				})
			}
		}
	}
}

func TestAllGather(t *testing.T) {
	for _, name := range []string{"all_gather", "all_gather_push"} {
		k := kernel(t, "all_gather.tle", name)
		for _, dtype := range []string{"f32", "bf16"} {
			for _, world := range worlds {
				t.Run(fmt.Sprintf("%s/%s/%d", name, dtype, world), func(t *testing.T) {
					n := 77
					xs := inputs(11, world, n, dtype)
					args := make([]map[string]any, world)
					outs := make([]*tle.Tensor, world)
					sym := []string{"x"}
					for d := range args {
						outs[d] = tle.NewTensor(world * n)
						args[d] = map[string]any{"x": tensor(xs[d]), "out": outs[d], "n": n}
						if name == "all_gather_push" {
							args[d]["recv"] = tle.NewTensor(world * n)
							args[d]["flags"] = tle.NewTensor(3)
						}
					}
					if name == "all_gather_push" {
						sym = []string{"recv", "flags"}
					}
					run(t, k, world, (n+block-1)/block, opts(world, dtype), args, sym...)
					var want []float64
					for _, x := range xs {
						want = append(want, x...)
					}
					for d := range outs {
						require.Equal(t, want, outs[d].Data, "rank %d", d)
					}
				})
			}
		}
	}
}

func TestReduceScatter(t *testing.T) {
	k := kernel(t, "reduce_scatter.tle", "reduce_scatter")
	for _, dtype := range []string{"f32", "bf16"} {
		for _, world := range worlds {
			t.Run(fmt.Sprintf("%s/%d", dtype, world), func(t *testing.T) {
				chunk := 50
				n := world * chunk
				xs := inputs(13, world, n, dtype)
				args := make([]map[string]any, world)
				outs := make([]*tle.Tensor, world)
				for d := range args {
					outs[d] = tle.NewTensor(chunk)
					args[d] = map[string]any{"x": tensor(xs[d]), "out": outs[d], "n": n}
				}
				run(t, k, world, (chunk+block-1)/block, opts(world, dtype), args, "x")
				for d := range outs {
					want, mag := sumRef(xs, d*chunk, chunk)
					requireClose(t, fmt.Sprintf("rank %d", d), want, mag, outs[d].Data, tol(dtype))
				}
			})
		}
	}
}

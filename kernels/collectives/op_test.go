package collectives

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

func opX(rows [][]float64) *npy.Array {
	var flat []float64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return &npy.Array{Shape: []int{len(rows), len(rows[0])}, DType: "<f8", F64: flat}
}

// The ops on the interpreter's simulated devices against float64 sums.
func TestOpsOnSimulatedDevices(t *testing.T) {
	const world, n = 4, 40
	xs := inputs(7, world, n, "f32")
	x := opX(xs)
	sum, mag := sumRef(xs, 0, n)
	for _, algo := range []string{OneShot, TwoShot} {
		op, ok := registry.Lookup("all_reduce")
		require.True(t, ok)
		out, err := op.Run(tle.CPU(), map[string]*npy.Array{"x": x}, map[string]any{"algo": algo})
		require.NoError(t, err, algo)
		require.Equal(t, []int{world, n}, out["out"].Shape)
		for d := range world {
			requireClose(t, algo, sum, mag, out["out"].F64[d*n:(d+1)*n], 1e-6)
		}
	}
	op, _ := registry.Lookup("all_gather")
	out, err := op.Run(tle.CPU(), map[string]*npy.Array{"x": x}, nil)
	require.NoError(t, err)
	require.Equal(t, []int{world, world * n}, out["out"].Shape)
	for d := range world {
		for r := range world {
			for i := range n {
				require.Equal(t, float64(float32(xs[r][i])), out["out"].F64[d*world*n+r*n+i])
			}
		}
	}
	op, _ = registry.Lookup("reduce_scatter")
	out, err = op.Run(tle.CPU(), map[string]*npy.Array{"x": x}, map[string]any{"block": 32.0})
	require.NoError(t, err)
	chunk := n / world
	require.Equal(t, []int{world, chunk}, out["out"].Shape)
	for d := range world {
		s, m := sumRef(xs, d*chunk, chunk)
		requireClose(t, "reduce_scatter", s, m, out["out"].F64[d*chunk:(d+1)*chunk], 1e-6)
	}
}

func TestOpErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	rows := [][]float64{randData(r, 7, "f32"), randData(r, 7, "f32"), randData(r, 7, "f32")}
	for _, c := range []struct {
		op     string
		in     map[string]*npy.Array
		params map[string]any
		arg    string
		want   string
	}{
		{"all_reduce", map[string]*npy.Array{}, nil, "x", "missing"},
		{"all_reduce", map[string]*npy.Array{"x": opX(rows), "y": opX(rows)}, nil, "y", "no input named so"},
		{"all_reduce", map[string]*npy.Array{"x": {Shape: []int{21}, DType: "<f8", F64: make([]float64, 21)}}, nil, "x", "want shape [WORLD, n]"},
		{"all_reduce", map[string]*npy.Array{"x": opX(rows)}, map[string]any{"algo": "threeshot"}, "algo", "want one of oneshot, twoshot"},
		{"all_reduce", map[string]*npy.Array{"x": opX(rows)}, map[string]any{"algo": "twoshot"}, "x", "multiple of the devices"},
		{"all_gather", map[string]*npy.Array{"x": opX(rows)}, map[string]any{"algo": "oneshot"}, "algo", "no parameter named so"},
		{"reduce_scatter", map[string]*npy.Array{"x": opX(rows)}, map[string]any{"block": 48.0}, "x", "block 48"},
		{"all_gather", map[string]*npy.Array{"x": opX([][]float64{{math.Inf(1)}})}, nil, "x", "finite"},
		{"all_gather", map[string]*npy.Array{"x": opX(rows)}, map[string]any{"dtype": "f16"}, "dtype", "want one of f32, bf16"},
	} {
		op, ok := registry.Lookup(c.op)
		require.True(t, ok)
		_, err := op.Run(tle.CPU(), c.in, c.params)
		var ae *registry.ArgError
		require.ErrorAs(t, err, &ae, "%s %v", c.op, c.params)
		require.Equal(t, c.arg, ae.Arg)
		require.Contains(t, ae.Msg, c.want)
	}
}

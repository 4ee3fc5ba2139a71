package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestParamsNamedLikeLocals: kernel parameters spelled as the backend's own
// value, block and hidden-parameter names (v5, bb0, entry, body, tle_rank)
// compile through llc (the GPU found arg reductions' `v5` parameter defined
// twice in the LLVM IR), and still name their own values.
func TestParamsNamedLikeLocals(t *testing.T) {
	tletest.NeedLLC(t)
	prog, err := tle.Parse("names.tle", []byte(`
kernel names(v0 *f32, v5 *f32, bb0 *f32, entry *f32, body i32, tle_rank f32) {
    r := arange(0, 32)
    m := r < body
    x := load(v0 + r, mask: m, other: 0)
    store(v5 + r, x * tle_rank, mask: m)
    store(bb0 + r, x + 1.0, mask: m)
    store(entry + r, exp(x), mask: m)
}
`))
	require.NoError(t, err)
	k, err := prog.Kernel("names")
	require.NoError(t, err)
	art, err := k.Build(tle.CompileOptions{NumWarps: 1}, tle.GPUOptions{Toolchain: "llc"}, "ptx")
	require.NoError(t, err)
	require.Contains(t, art.LLVMIR, "define void @names(float addrspace(1)* %p_v0, float addrspace(1)* %p_v5, float addrspace(1)* %p_bb0, float addrspace(1)* %p_entry, i32 %p_body, float %p_tle_rank")
	require.Contains(t, art.Binary.PTX, ".entry names(")

	// the same kernel on the interpreter: the names change nothing
	r := rand.New(rand.NewPCG(5, 77))
	x := tle.NewTensor(32)
	for i := range x.Data {
		x.Data[i] = float64(float32(r.Float64()*4 - 2))
	}
	outs := map[string]*tle.Tensor{"v5": tle.NewTensor(32), "bb0": tle.NewTensor(32), "entry": tle.NewTensor(32)}
	require.NoError(t, k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 1},
		map[string]any{"v0": x, "v5": outs["v5"], "bb0": outs["bb0"], "entry": outs["entry"], "body": 20, "tle_rank": 1.5}))
	for i := range 32 {
		if i >= 20 {
			require.Zero(t, outs["v5"].Data[i])
			continue
		}
		require.Equal(t, float64(float32(x.Data[i]*1.5)), outs["v5"].Data[i])
		require.Equal(t, float64(float32(x.Data[i]+1)), outs["bb0"].Data[i])
		require.InDelta(t, math.Exp(x.Data[i]), outs["entry"].Data[i], 1e-6)
	}
}

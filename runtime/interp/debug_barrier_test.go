package interp

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

// TestDebugBarrier: debug_barrier is a no-op on a program's thread (its
// tile code runs in order: the stores before it are seen after it), and an
// error at its position inside a warp role, where a CTA-wide barrier
// deadlocks (IR built directly: the checker rejects the .tle first).
func TestDebugBarrier(t *testing.T) {
	const n = 64
	k := newKernel("dbg", param("x", ptr(ir.F32)), param("y", ptr(ir.F32)))
	offs := k.arange(n)
	k.store(k.addptr(k.arg(1), offs), k.load(k.addptr(k.arg(0), offs), nil, nil), nil)
	k.Create(ir.OpDebugBarrier, nil, nil, nil)
	back := k.bin(ir.OpSub, k.splat(k.ci(n-1), []int{n}), offs)
	k.store(k.addptr(k.arg(0), offs), k.load(k.addptr(k.arg(1), back), nil, nil), nil)
	m := k.ret()
	require.NoError(t, ir.Verify(m))
	x, y := NewBuffer(ir.F32, n), NewBuffer(ir.F32, n)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	x.CopyFromFloat64(xs)
	require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, x, y))
	for i, got := range x.Float64() {
		require.Equal(t, float64(n-1-i), got, "x[%d]", i)
	}

	r := newKernel("dbg_role")
	r.warpSpecialize(role{"w", func() {
		r.at(7)
		r.Create(ir.OpDebugBarrier, nil, nil, nil)
	}})
	rm := r.ret()
	require.NoError(t, ir.Verify(rm))
	err := launchT(t, rm, [3]int{1, 1, 1})
	require.Error(t, err)
	require.Contains(t, err.Error(), `debug_barrier inside role "w": a CTA-wide barrier deadlocks in a warp role`)
	require.Contains(t, err.Error(), "t.tle:7:5")
}

package interp

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// lazyRowKernel is a row kernel of layer norm's shape: the pointers are a
// splat plus arange (a lazy addptr), the mask cols < n (all on when n >=
// 16: one element), the other value a constant tile, and the row's sum and
// a select on the mask feed the store.
func lazyRowKernel() *ir.Module {
	k := newKernel("row", param("x", ptr(ir.F32)), param("out", ptr(ir.F32)), param("sum", ptr(ir.F32)), param("n", ir.I32))
	cols := k.arange(16)
	m := k.cmp("lt", cols, k.arg(3))
	zero := k.splat(k.cf(0), []int{16})
	k.at(4)
	v := k.load(k.addptr(k.arg(0), cols), m, zero)
	s := k.reduce(v, 0, "sum")
	d := k.Value(ir.OpSelect, v.Type, []*ir.Value{m, k.bin(ir.OpSub, v, s), zero}, nil)
	k.at(6)
	k.store(k.addptr(k.arg(1), cols), d, m)
	k.store(k.arg(2), s, nil)
	return k.ret()
}

// The facts' fast paths (a mask known all on, lazy pointers, scalars kept
// unsplatted) give the bits of the general paths, and faults through them
// still name their lane.
func TestLazyValuesSameBits(t *testing.T) {
	m := lazyRowKernel()
	r := rand.New(rand.NewSource(5))
	for _, n := range []int{16, 100, 11} { // all on (two ways), a masked tail
		xs := FromFloat64(ir.F32, randoms(r, 16))
		out, sum := NewBuffer(ir.F32, 16), NewBuffer(ir.F32, 1)
		require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, xs, out, sum, n))
		x := xs.Float64()
		var acc float64
		for q := 0; q < min(n, 16); q++ {
			if q == 0 {
				acc = x[0]
			} else {
				acc = float64(float32(acc + x[q])) // each step rounded, in order
			}
		}
		require.Equal(t, acc, sum.Float64()[0], "n %d", n)
		got := out.Float64()
		for q := 0; q < 16; q++ {
			want := 0.0
			if q < n {
				want = float64(float32(x[q] - acc))
			}
			require.Equal(t, want, got[q], "n %d lane %d", n, q)
		}
	}
	// the mask all on, x short: the load faults at its first lane past the end
	err := launchT(t, m, [3]int{1, 1, 1}, NewBuffer(ir.F32, 10), NewBuffer(ir.F32, 16), NewBuffer(ir.F32, 1), 100)
	require.ErrorContains(t, err, "t.tle:4:5: error: out-of-bounds load from x: index 10 is outside [0, 10) (lane 10 of 16)")
	// and the store, out short
	err = launchT(t, m, [3]int{1, 1, 1}, NewBuffer(ir.F32, 16), NewBuffer(ir.F32, 13), NewBuffer(ir.F32, 1), 100)
	require.ErrorContains(t, err, "t.tle:6:5: error: out-of-bounds store to out: index 13 is outside [0, 13) (lane 13 of 16)")
}

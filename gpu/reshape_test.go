package gpu

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// TestReshapeSharedSameBytes: where ReshapeShared gives a layout, every
// element of the reshaped view lies at the offset it has in the source (by
// its flat row-major index); where the bytes differ it refuses.
func TestReshapeSharedSameBytes(t *testing.T) {
	cases := []struct {
		l        *Shared
		from, to []int
		ok       bool
	}{
		{&Shared{Vec: 16, PerPhase: 1, MaxPhase: 8, Order: []int{2, 1, 0}}, []int{2, 64, 128}, []int{128, 128}, true},    // e4m3, 128B rows
		{&Shared{Vec: 8, PerPhase: 1, MaxPhase: 8, Order: []int{2, 1, 0}}, []int{2, 64, 64}, []int{128, 64}, true},       // bf16, 128B rows
		{&Shared{Vec: 8, PerPhase: 2, MaxPhase: 4, Order: []int{2, 1, 0}}, []int{4, 8, 32}, []int{32, 32}, true},         // 64B rows
		{&Shared{Vec: 8, PerPhase: 1, MaxPhase: 8, Order: []int{2, 1, 0}}, []int{4, 4, 64}, []int{16, 64}, false},        // 4 rows < period 8
		{&Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: []int{2, 1, 0}}, []int{4, 4, 64}, []int{16, 64}, true},         // no swizzle
		{&Shared{Vec: 8, PerPhase: 1, MaxPhase: 8, Order: []int{3, 2, 1, 0}}, []int{2, 2, 8, 64}, []int{4, 8, 64}, true}, // rows kept
		{&Shared{Vec: 8, PerPhase: 1, MaxPhase: 8, Order: []int{2, 1, 0}, BlockCols: 64}, []int{2, 64, 128}, []int{128, 128}, false},
		{&Shared{Vec: 8, PerPhase: 1, MaxPhase: 8, Order: []int{3, 2, 1, 0}, BlockCols: 64}, []int{2, 2, 64, 128}, []int{4, 64, 128}, true},
	}
	for _, c := range cases {
		n, err := ReshapeShared(c.l, c.from, c.to)
		total := 1
		for _, d := range c.from {
			total *= d
		}
		same := true
		for f := 0; f < total; f++ {
			if SharedOffset(c.l, c.from, unflat(f, c.from)) != SharedOffset(naive(n, c.l, len(c.to)), c.to, unflat(f, c.to)) {
				same = false
				break
			}
		}
		require.Equal(t, c.ok, same, "%s %v -> %v: the bytes agree", c.l, c.from, c.to)
		require.Equal(t, c.ok, err == nil, "%s %v -> %v: %v", c.l, c.from, c.to, err)
	}
}

// naive is n, or where ReshapeShared refused, l's swizzle taken over as is
// (what a reshape that ignored the rows would give).
func naive(n, l *Shared, rank int) *Shared {
	if n != nil {
		return n
	}
	m := *l
	m.Order = ir.RowMajor(rank)
	return &m
}

func unflat(f int, shape []int) []int {
	c := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		c[i] = f % shape[i]
		f /= shape[i]
	}
	return c
}

package ir

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRound(t *testing.T) {
	cases := []struct {
		d    DType
		x, y float64
	}{
		{BF16, 1 + 1.0/256, 1},                        // halfway, ties to even (down)
		{BF16, 1 + 3.0/256, 1 + 4.0/256},              // halfway, ties to even (up)
		{BF16, 3.14159265, 3.140625},                  // ordinary rounding
		{F16, 65520, math.Inf(1)},                     // overflow to inf
		{F16, 65519, 65504},                           // below the overflow threshold
		{F16, 1e-8, 0},                                // under half the smallest subnormal
		{F16, math.Ldexp(1, -24), math.Ldexp(1, -24)}, // smallest subnormal
		{F8E4M3, 500, 448},                            // satfinite
		{F8E4M3, 0.3, 0.3125},                         // 1.010 * 2^-2
		{F8E5M2, 1e6, 57344},                          // satfinite
		{F32, 1 + math.Ldexp(1, -24), 1},              // f32 tie to even
		{I8, 200, -56},
		{I32, -3.7, -3},
		{U8, 257, 1},
		{I1, 0.5, 1},
	}
	for _, c := range cases {
		require.Equal(t, c.y, c.d.Round(c.x), "%v.Round(%v)", c.d, c.x)
	}
	require.True(t, math.IsNaN(BF16.Round(math.NaN())))
}

func TestParseDType(t *testing.T) {
	for _, d := range AllDTypes {
		got, ok := ParseDType(d.String())
		require.True(t, ok)
		require.Equal(t, d, got)
	}
	_, ok := ParseDType("invalid")
	require.False(t, ok)
}

func TestPromote(t *testing.T) {
	require.Equal(t, F32, Promote(I32, F32))
	require.Equal(t, F32, Promote(BF16, F16))
	require.Equal(t, BF16, Promote(BF16, F8E4M3))
	require.Equal(t, I64, Promote(I32, I64))
	require.Equal(t, U32, Promote(I32, U32))
	require.Equal(t, I32, Promote(I1, I32))
	s, ok := BroadcastShapes([]int{4, 1}, []int{8})
	require.True(t, ok)
	require.Equal(t, []int{4, 8}, s)
	_, ok = BroadcastShapes([]int{4}, []int{8})
	require.False(t, ok)
}

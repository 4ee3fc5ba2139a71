package interp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

func TestCheckScalar(t *testing.T) {
	ok := []struct {
		dt   ir.DType
		v    any
		want Scalar
	}{
		{ir.I32, int64(math.MaxInt32), Scalar{Int: math.MaxInt32}},
		{ir.I32, int8(-128), Scalar{Int: -128}},
		{ir.I32, uint32(7), Scalar{Int: 7}},
		{ir.I64, uint64(math.MaxInt64), Scalar{Int: math.MaxInt64}},
		{ir.U64, uint64(1) << 63, Scalar{Int: math.MinInt64}},
		{ir.U8, 255, Scalar{Int: 255}},
		{ir.I1, true, Scalar{Int: 1}},
		{ir.I1, 0, Scalar{}},
		{ir.I1, uint8(1), Scalar{Int: 1}},
		{ir.F32, 3, Scalar{Float: 3}},
		{ir.F32, uint64(1) << 63, Scalar{Float: 0x1p63}},
		{ir.F16, 65504.0, Scalar{Float: 65504}},
		{ir.F16, float32(0.1), Scalar{Float: 0.0999755859375}},
		{ir.F32, math.Inf(-1), Scalar{Float: math.Inf(-1)}},
	}
	for _, c := range ok {
		got, err := CheckScalar(c.dt, c.v)
		require.NoError(t, err, "%s %T %v", c.dt, c.v, c.v)
		require.Equal(t, c.want, got, "%s %T %v", c.dt, c.v, c.v)
	}
	nan, err := CheckScalar(ir.F16, math.NaN())
	require.NoError(t, err)
	require.True(t, math.IsNaN(nan.Float))
	bad := []struct {
		dt   ir.DType
		v    any
		want string
	}{
		{ir.I32, int64(1) << 40, "1099511627776 is out of range [-2147483648, 2147483647]"},
		{ir.I32, uint64(1) << 63, "9223372036854775808 is out of range [-2147483648, 2147483647]"},
		{ir.I64, uint64(1) << 63, "9223372036854775808 is out of range [-9223372036854775808, 9223372036854775807]"},
		{ir.I32, true, "want an integer in [-2147483648, 2147483647], got bool true"},
		{ir.I32, 2.0, "want an integer in [-2147483648, 2147483647], got float64 2"},
		{ir.I32, "7", `want an integer in [-2147483648, 2147483647], got string "7"`},
		{ir.U32, -1, "-1 is out of range [0, 4294967295]"},
		{ir.U64, -1, "-1 is out of range [0, 18446744073709551615]"},
		{ir.I8, 128, "128 is out of range [-128, 127]"},
		{ir.I1, 2, "2 is out of range [0, 1] (i1 takes a bool, 0 or 1)"},
		{ir.I1, 1.0, "want a bool, 0 or 1, got float64 1"},
		{ir.F16, 1e30, "1e+30 is out of range [-65504, 65504]"},
		{ir.F16, 70000, "70000 is out of range [-65504, 65504]"},
		{ir.F32, 1e39, "1e+39 is out of range [-3.4028234663852886e+38, 3.4028234663852886e+38]"},
		{ir.BF16, 1e39, "1e+39 is out of range [-3.3895313892515355e+38, 3.3895313892515355e+38]"},
		{ir.F8E4M3, math.Inf(1), "+Inf is out of range [-448, 448] (f8e4m3 takes no infinity)"},
		{ir.F32, false, "want a number in [-3.4028234663852886e+38, 3.4028234663852886e+38], got bool false"},
	}
	for _, c := range bad {
		_, err := CheckScalar(c.dt, c.v)
		require.EqualError(t, err, c.want, "%s %T %v", c.dt, c.v, c.v)
	}
	// Launch checks its scalars with it
	err = launchT(t, vectorAdd(256), [3]int{1, 1, 1}, NewBuffer(ir.F32, 8), NewBuffer(ir.F32, 8), NewBuffer(ir.F32, 8), int64(1)<<40)
	require.ErrorContains(t, err, "argument 3 (n i32): 1099511627776 is out of range [-2147483648, 2147483647]")
}

package interp

import (
	"math"

	"github.com/tlego/tle/tle/ir"
)

// roundSlice rounds every element of xs to float dtype d in place, exactly as
// ir.DType.Round does, with fast paths for f32, bf16 and f16.
func roundSlice(d ir.DType, xs []float64) {
	switch d {
	case ir.F64:
	case ir.F32:
		for k, x := range xs {
			xs[k] = float64(float32(x))
		}
	case ir.BF16:
		for k, x := range xs {
			xs[k] = roundBits(d, x, 7, -126, 127)
		}
	case ir.F16:
		for k, x := range xs {
			xs[k] = roundBits(d, x, 10, -14, 15)
		}
	default:
		for k, x := range xs {
			xs[k] = d.Round(x)
		}
	}
}

// roundOne rounds one value to float dtype d.
func roundOne(d ir.DType, x float64) float64 {
	switch d {
	case ir.F64:
		return x
	case ir.F32:
		return float64(float32(x))
	case ir.BF16:
		return roundBits(d, x, 7, -126, 127)
	case ir.F16:
		return roundBits(d, x, 10, -14, 15)
	}
	return d.Round(x)
}

// roundBits rounds a float64 in the normal range of a format with mbits
// mantissa bits by integer arithmetic on its bits (round to nearest even);
// anything else (subnormals, overflow, NaN) takes ir.DType.Round.
func roundBits(d ir.DType, x float64, mbits, minExp, maxExp int) float64 {
	u := math.Float64bits(x)
	e := int(u>>52&0x7ff) - 1023
	if e < minExp || e > maxExp {
		return d.Round(x)
	}
	shift := uint(52 - mbits)
	lsb := (u >> shift) & 1
	u += (uint64(1) << (shift - 1)) - 1 + lsb
	u &^= (uint64(1) << shift) - 1
	if int(u>>52&0x7ff)-1023 > maxExp {
		return d.Round(x)
	}
	return math.Float64frombits(u)
}

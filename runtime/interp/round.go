package interp

import (
	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// roundSlice rounds every element of xs to float dtype d in place, exactly as
// ir.DType.Round does, with the dtype switch out of the loop: f32 by Go's
// conversion, f16, bf16 and fp8 by floats.RoundSlice.
func roundSlice(d ir.DType, xs []float64) {
	switch d {
	case ir.F64:
	case ir.F32:
		for k, x := range xs {
			xs[k] = float64(float32(x))
		}
	default:
		if f, ok := d.FloatFormat(); ok {
			floats.RoundSlice(f, xs)
			return
		}
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
	}
	if f, ok := d.FloatFormat(); ok {
		return floats.Round(f, x)
	}
	return d.Round(x)
}

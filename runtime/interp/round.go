package interp

import (
	"math"

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

// roundTowardZero rounds x to float dtype d toward zero (cast's
// fp_downcast_rounding: "rtz", PTX cvt.rz): the nearest-even value, one
// step toward zero when that is farther from zero than x. An x beyond the
// largest finite value gives that value (with x's sign), as cvt.rz does;
// infinities and NaNs stay what nearest-even gives.
func roundTowardZero(d ir.DType, x float64) float64 {
	r := roundOne(d, x)
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(r) <= math.Abs(x) {
		return r
	}
	if d == ir.F32 {
		return float64(math.Nextafter32(float32(r), 0))
	}
	f, ok := d.FloatFormat()
	if !ok {
		return r
	}
	// sign-magnitude encodings: one less in the magnitude bits is the next
	// value toward zero (the largest finite one below an infinity)
	return floats.Decode(f, floats.Encode(f, r)-1)
}

package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// TestEncodeRoundedIsEncodeFloat: CopyFromFloat64's chunk encoder gives
// every value the pattern encodeFloat gives it, for each 16- and 8-bit
// float dtype: every pattern's value, negative NaN, infinities, values
// off the format and beyond its range, and random draws rounded to it.
func TestEncodeRoundedIsEncodeFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, d := range []ir.DType{ir.BF16, ir.F16, ir.F8E4M3, ir.F8E5M2} {
		fm, _ := d.FloatFormat()
		var xs []float64
		for b := range 1 << fm.Bits() {
			xs = append(xs, floats.Decode(fm, uint16(b)))
		}
		xs = append(xs, math.Copysign(math.NaN(), -1), math.Inf(1), math.Inf(-1), 1e300, -1e-300, 0.3, 1+1.0/1024, floats.MaxFinite(fm)*1.01)
		for range 100000 {
			x := r.NormFloat64() * math.Ldexp(1, r.IntN(40)-20)
			xs = append(xs, x, d.Round(x))
		}
		got16, got8 := make([]uint16, len(xs)), make([]uint8, len(xs))
		encodeRounded(d, fm, got16, xs)
		encodeRounded(d, fm, got8, xs)
		for k, x := range xs {
			want := encodeFloat(d, x)
			if uint64(got16[k]) != want || (fm.Bits() == 8 && uint64(got8[k]) != want) {
				t.Fatalf("%v: %v (%#x): encodeRounded %#x / %#x, encodeFloat %#x", d, x, math.Float64bits(x), got16[k], got8[k], want)
			}
		}
	}
}

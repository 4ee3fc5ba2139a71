package paged

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// TestE4M3NormalPassesCheckValue: the fast path of CheckValues and
// CheckCacheValues skips only values checkValue's fp8 rule passes, and
// takes every normal e4m3 value: each e4m3 pattern's value, values off the
// format, past its range, subnormal, zero, infinite and NaN.
func TestE4M3NormalPassesCheckValue(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var xs []float64
	for b := range 256 {
		xs = append(xs, floats.Decode(floats.E4M3FN, uint16(b)))
	}
	xs = append(xs, 480, -480, 464, 449, 0.3, 1+1.0/16, math.Ldexp(1, -7), math.Ldexp(1, 9), math.Inf(1), math.NaN(), math.Copysign(0, -1))
	for range 100000 {
		x := r.NormFloat64() * math.Ldexp(1, r.IntN(24)-12)
		xs = append(xs, x, ir.F8E4M3.Round(x))
	}
	normals := 0
	for _, x := range xs {
		fast := e4m3Normal(x)
		if fast && checkValue("k_cache", x, true) != nil {
			t.Fatalf("e4m3Normal(%v) but checkValue refuses it", x)
		}
		u := math.Float64bits(x)
		normal := !math.IsNaN(x) && math.Abs(x) >= math.Ldexp(1, -6) && math.Abs(x) <= 448 && ir.F8E4M3.Round(x) == x && u&(1<<49-1) == 0
		if fast != normal {
			t.Fatalf("e4m3Normal(%v) = %v, want %v", x, fast, normal)
		}
		if fast {
			normals++
		}
	}
	if normals < 200 {
		t.Fatalf("only %d normal e4m3 values seen", normals)
	}
}

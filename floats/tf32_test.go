package floats

import (
	"math"
	"math/rand"
	"os"
	"runtime"
	"sync"
	"testing"
)

// tf32Ref is the definition of cvt.rna.tf32.f32 on a finite float32 x,
// written from the format's description with nothing of the package: the
// tf32 values of x's binade are multiples of q = 2^(e-10) (e the exponent
// of x, at least -126: subnormals are multiples of 2^-136); x/q is exact
// and math.Round rounds it to nearest, ties away from zero; a result above
// the largest finite tf32 value is an infinity.
func tf32Ref(x float32) float64 {
	v := float64(x)
	if v == 0 {
		return v
	}
	_, e := math.Frexp(v) // v = f * 2^e, f in [0.5, 1)
	e--
	if e < -126 {
		e = -126
	}
	q := math.Ldexp(1, e-TF32MantissaBits)
	r := math.Copysign(math.Round(math.Abs(v)/q)*q, v)
	if math.Abs(r) > MaxTF32 {
		return math.Copysign(math.Inf(1), v)
	}
	return r
}

// checkTF32 compares TF32Bits and RoundTF32 with the definition on pattern b.
func checkTF32(t *testing.T, b uint32) bool {
	x := math.Float32frombits(b)
	got := TF32Bits(b)
	if got&tf32Drop != 0 {
		t.Errorf("TF32Bits(%#08x) = %#08x: low 13 bits not clear", b, got)
		return false
	}
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		if want := b &^ tf32Drop; got != want {
			t.Errorf("TF32Bits(%#08x) = %#08x, want %#08x (specials keep their top bits)", b, got, want)
			return false
		}
		return true
	}
	want := tf32Ref(x)
	g := float64(math.Float32frombits(got))
	if g != want || math.Signbit(g) != math.Signbit(want) {
		t.Errorf("TF32Bits(%#08x = %g) = %#08x = %g, want %g", b, x, got, g, want)
		return false
	}
	if r := RoundTF32(float64(x)); r != want || math.Signbit(r) != math.Signbit(want) {
		t.Errorf("RoundTF32(%g) = %g, want %g", x, r, want)
		return false
	}
	return true
}

// Every tf32 value (the 2^19 patterns of sign, exponent and 10 mantissa
// bits) with each interesting pattern of the 13 dropped bits: zero (exact),
// the smallest and the largest below the half (down), exactly the half (a
// tie: away from zero), just above it and the largest (up). The carry into
// the exponent, subnormals, the largest finite values (to infinity),
// infinities and NaNs are all among them.
func TestTF32AllValuesAndTies(t *testing.T) {
	lows := []uint32{0, 1, 0x0fff, 0x1000, 0x1001, 0x1555, 0x1fff}
	for hi := uint32(0); hi < 1<<19; hi++ {
		for _, lo := range lows {
			if !checkTF32(t, hi<<13|lo) {
				return
			}
		}
	}
}

func TestTF32Random(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 1<<20; i++ {
		if !checkTF32(t, r.Uint32()) {
			return
		}
	}
}

// Every float32 pattern, on several goroutines: set TLE_EXHAUSTIVE=1 (a
// minute of CPU; the shorter tests above cover every tf32 value and every
// rounding case).
func TestTF32Exhaustive(t *testing.T) {
	if os.Getenv("TLE_EXHAUSTIVE") == "" {
		t.Skip("set TLE_EXHAUSTIVE=1 to check all 2^32 float32 patterns")
	}
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for b := uint64(w); b < 1<<32; b += uint64(n) {
				if !checkTF32(t, uint32(b)) {
					return
				}
			}
		}(w)
	}
	wg.Wait()
}

func TestTF32Edges(t *testing.T) {
	for _, c := range []struct {
		in, want uint32
		why      string
	}{
		{0x3f800000, 0x3f800000, "1 is exact"},
		{0x3f801000, 0x3f802000, "1 + 2^-11, a tie: away from zero"},
		{0xbf801000, 0xbf802000, "-(1 + 2^-11): away from zero, negative"},
		{0x3f803000, 0x3f804000, "1 + 3*2^-11, a tie above an odd mantissa: away (not to even)"},
		{0x3f800fff, 0x3f800000, "just below the tie: down"},
		{0x3fffffff, 0x40000000, "carry into the exponent"},
		{0x7f7fffff, 0x7f800000, "the largest float32 rounds to infinity"},
		{0x7f7fe000, 0x7f7fe000, "the largest tf32 is exact"},
		{0x7f7fefff, 0x7f7fe000, "below the tie above the largest tf32: stays finite"},
		{0x7f7ff000, 0x7f800000, "the tie above the largest tf32: infinity"},
		{0xff7ff000, 0xff800000, "negative: -infinity"},
		{0x7f800000, 0x7f800000, "+inf"},
		{0xff800000, 0xff800000, "-inf"},
		{0x7fc00000, 0x7fc00000, "the quiet NaN"},
		{0x7fffffff, 0x7fffe000, "a NaN is not rounded up into the sign bit"},
		{0x7f800001, 0x7f800000, "a NaN with only low payload bits: infinity, as the GPU"},
		{0x00000000, 0x00000000, "+0"},
		{0x80000000, 0x80000000, "-0"},
		{0x00000fff, 0x00000000, "a tiny subnormal underflows to +0"},
		{0x80000fff, 0x80000000, "and to -0"},
		{0x00001000, 0x00002000, "the subnormal tie: away, to the smallest tf32 subnormal 2^-136"},
		{0x007ff000, 0x00800000, "the largest subnormals round to the smallest normal"},
	} {
		if got := TF32Bits(c.in); got != c.want {
			t.Errorf("TF32Bits(%#08x) = %#08x, want %#08x: %s", c.in, got, c.want, c.why)
		}
	}
	if got := float64(math.Float32frombits(0x7f7fe000)); got != MaxTF32 {
		t.Errorf("MaxTF32 = %g, the largest tf32 pattern is %g", MaxTF32, got)
	}
	if !math.IsNaN(RoundTF32(math.NaN())) {
		t.Error("RoundTF32(NaN) is not NaN")
	}
	if got := RoundTF32(1 + 0x1p-30); got != 1 {
		t.Errorf("RoundTF32 of a value not exact in float32 = %g, want 1", got)
	}
}

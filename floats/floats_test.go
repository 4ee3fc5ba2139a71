package floats

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

// The definitions the tests check against, written out from the formats'
// descriptions with nothing of the package: a pattern is sign, exponent
// field E and mantissa field M; the value is (-1)^sign * 2^(1-bias) * M/2^man
// for E = 0 and (-1)^sign * 2^(E-bias) * (1 + M/2^man) otherwise, except
// the patterns of the specials.
type def struct {
	f          Format
	ebits, man int
	bias       int
	ieee       bool    // E all ones: infinity (M = 0) or NaN; else only S.1111.111 is NaN (e4m3fn)
	maxValue   float64 // the largest finite value, from the literature
	width      int
}

var defs = []def{
	{F16, 5, 10, 15, true, 65504, 16},
	{BF16, 8, 7, 127, true, 3.3895313892515355e38, 16},
	{E4M3FN, 4, 3, 7, false, 448, 8},
	{E5M2, 5, 2, 15, true, 57344, 8},
}

// pow2 is 2^n by repeated multiplication (exact for the range used here).
func pow2(n int) float64 {
	v := 1.0
	for ; n > 0; n-- {
		v *= 2
	}
	for ; n < 0; n++ {
		v /= 2
	}
	return v
}

// value is the definition's value of pattern b, and whether it is NaN.
func (d def) value(b uint64) (float64, bool) {
	s := b >> (d.ebits + d.man) & 1
	e := int(b>>d.man) & (1<<d.ebits - 1)
	m := b & (1<<d.man - 1)
	sign := 1.0
	if s == 1 {
		sign = -1
	}
	allOnes := e == 1<<d.ebits-1
	switch {
	case d.ieee && allOnes && m == 0:
		return sign * math.Inf(1), false
	case d.ieee && allOnes:
		return 0, true
	case !d.ieee && allOnes && m == 1<<d.man-1:
		return 0, true
	case e == 0:
		return sign * pow2(1-d.bias) * (float64(m) / pow2(d.man)), false
	}
	return sign * pow2(e-d.bias) * (1 + float64(m)/pow2(d.man)), false
}

func (d def) signBit() uint64 { return 1 << (d.width - 1) }

func TestFormatParameters(t *testing.T) {
	for _, d := range defs {
		f := d.f
		if f.Bits() != d.width || f.ExponentBits() != d.ebits || f.MantissaBits() != d.man || f.Bias() != d.bias || f.HasInf() != d.ieee {
			t.Errorf("%v: widths %d %d %d, bias %d, inf %v", f, f.Bits(), f.ExponentBits(), f.MantissaBits(), f.Bias(), f.HasInf())
		}
		if MaxFinite(f) != d.maxValue {
			t.Errorf("MaxFinite(%v) = %v, want %v", f, MaxFinite(f), d.maxValue)
		}
		if f.Saturates() != (d.width == 8) {
			t.Errorf("%v.Saturates() = %v", f, f.Saturates())
		}
		if f.SignBit() != uint16(d.signBit()) {
			t.Errorf("%v.SignBit() = %#x", f, f.SignBit())
		}
	}
	if s := BF16.String(); s != "bf16" {
		t.Errorf("BF16.String() = %q", s)
	}
	if len(Formats) != len(defs) {
		t.Errorf("Formats has %d formats, the tests know %d", len(Formats), len(defs))
	}
}

// Every bit pattern decodes to the definition's value (NaN patterns to NaN),
// and the largest finite value is MaxFinite.
func TestDecodeAllPatterns(t *testing.T) {
	for _, d := range defs {
		maxSeen := 0.0
		for b := uint64(0); b < 1<<d.width; b++ {
			got := Decode(d.f, uint16(b))
			want, nan := d.value(b)
			if nan {
				if !math.IsNaN(got) {
					t.Fatalf("Decode(%v, %#x) = %v, want NaN", d.f, b, got)
				}
				continue
			}
			if got != want || math.Signbit(got) != math.Signbit(want) {
				t.Fatalf("Decode(%v, %#x) = %v, want %v", d.f, b, got, want)
			}
			if !math.IsInf(want, 0) {
				maxSeen = math.Max(maxSeen, want)
			}
		}
		if maxSeen != MaxFinite(d.f) {
			t.Errorf("%v: largest finite pattern %v, MaxFinite %v", d.f, maxSeen, MaxFinite(d.f))
		}
		// Bits above an 8-bit format's byte are ignored.
		if d.width == 8 && Decode(d.f, 0x1238) != Decode(d.f, 0x38) {
			t.Errorf("Decode(%v) looks above the low byte", d.f)
		}
	}
}

// bf16 is the top half of a float32: an independent decoder.
func TestDecodeBF16IsFloat32TopHalf(t *testing.T) {
	for b := uint32(0); b < 1<<16; b++ {
		want := float64(math.Float32frombits(b << 16))
		got := Decode(BF16, uint16(b))
		if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && got != want {
			t.Fatalf("Decode(bf16, %#x) = %v, want %v", b, got, want)
		}
	}
}

// Every non-NaN pattern survives decode then encode, except the ±infinity
// of e5m2, which saturates (as .satfinite does: |inf| > MAX_NORM); every NaN
// pattern encodes to the canonical NaN.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, d := range defs {
		for b := uint64(0); b < 1<<d.width; b++ {
			v := Decode(d.f, uint16(b))
			got := uint64(Encode(d.f, v))
			want := b
			switch {
			case math.IsNaN(v):
				want = uint64(NaN(d.f))
			case math.IsInf(v, 0) && d.f.Saturates():
				want = b&d.signBit() | uint64(Encode(d.f, MaxFinite(d.f)))
			}
			if got != want {
				t.Fatalf("Encode(%v, Decode(%#x) = %v) = %#x, want %#x", d.f, b, v, got, want)
			}
			if r := Round(d.f, v); !math.IsNaN(v) && !math.IsInf(v, 0) && (r != v || math.Signbit(r) != math.Signbit(v)) {
				t.Fatalf("Round(%v, %v) = %v: a value of the format moved", d.f, v, r)
			}
		}
	}
}

type point struct {
	v float64
	b uint64
}

// finite is every non-negative finite value of the format by the
// definition, ascending.
func (d def) finite() []point {
	var ps []point
	for b := uint64(0); b < d.signBit(); b++ {
		if v, nan := d.value(b); !nan && !math.IsInf(v, 0) {
			ps = append(ps, point{v, b})
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].v < ps[j].v })
	return ps
}

// check asserts that x (and -x) encode to pattern want (and want|sign), and
// that Round agrees with decoding it.
func (d def) check(t *testing.T, what string, x float64, want uint64) {
	t.Helper()
	for _, s := range []float64{1, -1} {
		x, want := s*x, want
		if s < 0 {
			want |= d.signBit()
		}
		if got := uint64(Encode(d.f, x)); got != want {
			t.Fatalf("%s: Encode(%v, %v) = %#x, want %#x", what, d.f, x, got, want)
		}
		wv, _ := d.value(want)
		if got := Round(d.f, x); got != wv || math.Signbit(got) != math.Signbit(wv) {
			t.Fatalf("%s: Round(%v, %v) = %v, want %v", what, d.f, x, got, wv)
		}
	}
}

// Between every pair of neighbouring finite values lo < hi: lo itself, a
// point a quarter of the way, just below the midpoint, the midpoint (a tie:
// to the one with the even pattern), just above it, three quarters: each
// rounds to the nearer, by the definition. Past the largest finite value
// the overflow rule applies: f16 and bf16 go to infinity from the midpoint
// to the next power of two on (the tie goes to the even, unrepresentable,
// neighbour), fp8 saturates.
func TestRoundBetweenNeighbours(t *testing.T) {
	for _, d := range defs {
		ps := d.finite()
		for k := 0; k+1 < len(ps); k++ {
			lo, hi := ps[k], ps[k+1]
			mid := lo.v + (hi.v-lo.v)/2 // exact: one more bit than the format
			even := lo
			if hi.b%2 == 0 {
				even = hi
			}
			d.check(t, "neighbour", lo.v, lo.b)
			d.check(t, "quarter", lo.v+(hi.v-lo.v)/4, lo.b)
			d.check(t, "below the midpoint", math.Nextafter(mid, 0), lo.b)
			d.check(t, "midpoint", mid, even.b)
			d.check(t, "above the midpoint", math.Nextafter(mid, math.Inf(1)), hi.b)
			d.check(t, "three quarters", lo.v+3*(hi.v-lo.v)/4, hi.b)
		}
		top := ps[len(ps)-1]
		ulp := top.v - ps[len(ps)-2].v // the step at the top of the range
		over := uint64(top.b)          // fp8: saturate
		if d.ieee && !d.f.Saturates() {
			over = uint64(d.f.p().expAllOnes) // +inf
		}
		d.check(t, "just above the max", math.Nextafter(top.v, math.Inf(1)), top.b)
		d.check(t, "below max+ulp/2", math.Nextafter(top.v+ulp/2, 0), top.b)
		if d.f == E4M3FN {
			// 448 is S.1111.110; the tie at 464 goes to the even 448, and
			// everything above saturates to it.
			d.check(t, "max+ulp/2", top.v+ulp/2, top.b)
		} else {
			d.check(t, "max+ulp/2", top.v+ulp/2, over)
		}
		d.check(t, "max+ulp", top.v+ulp, over)
		d.check(t, "twice the max", 2*top.v, over)
		d.check(t, "MaxFloat64", math.MaxFloat64, over)
		d.check(t, "infinity", math.Inf(1), over)
		// Below the smallest subnormal: to zero, the sign kept.
		tiny := ps[1].v
		d.check(t, "half the smallest subnormal", tiny/2, 0)
		d.check(t, "a float64 subnormal", 0x1p-1074, 0)
		d.check(t, "zero", 0, 0)
	}
}

// Random float64s with all 52 mantissa bits in play, over the whole range
// of each format, against a search of the definition's values.
func TestRoundRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, d := range defs {
		ps := d.finite()
		for i := 0; i < 50000; i++ {
			e := rng.Intn(d.bias*2+d.man+4) - d.bias - d.man - 2
			x := math.Ldexp(1+rng.Float64(), e)
			if x > ps[len(ps)-1].v {
				continue // overflow: TestRoundBetweenNeighbours
			}
			k := sort.Search(len(ps), func(j int) bool { return ps[j].v >= x })
			want := ps[k]
			if k > 0 {
				lo := ps[k-1]
				if dl, dh := x-lo.v, want.v-x; dl < dh || dl == dh && lo.b%2 == 0 {
					want = lo
				}
			}
			d.check(t, "random", x, want.b)
		}
	}
}

// bf16 rounding of a float32 is the classic bit trick: add 0x7fff plus the
// kept lsb, drop the low half. An independent encoder for every float32
// exponent.
func TestEncodeBF16MatchesFloat32Trick(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 200000; i++ {
		u := rng.Uint32()
		x := math.Float32frombits(u)
		if x != x {
			continue
		}
		want := uint16((u + 0x7fff + (u>>16)&1) >> 16)
		if got := Encode(BF16, float64(x)); got != want {
			t.Fatalf("Encode(bf16, %v (%#x)) = %#x, want %#x", x, u, got, want)
		}
	}
}

func TestSpecials(t *testing.T) {
	for _, c := range []struct {
		f          Format
		nan, quiet uint16
		inf        uint16
		hasInf     bool
	}{
		{F16, 0x7fff, 0x7e00, 0x7c00, true},
		{BF16, 0x7fff, 0x7fc0, 0x7f80, true},
		{E4M3FN, 0x7f, 0x7f, 0, false},
		{E5M2, 0x7f, 0x7e, 0x7c, true},
	} {
		if got := Encode(c.f, math.NaN()); got != c.nan || NaN(c.f) != c.nan {
			t.Errorf("%v: Encode(NaN) = %#x, NaN() = %#x, want %#x", c.f, got, NaN(c.f), c.nan)
		}
		if got := Encode(c.f, math.Copysign(math.NaN(), -1)); got != c.nan {
			t.Errorf("%v: Encode(-NaN) = %#x, want %#x (canonical, positive)", c.f, got, c.nan)
		}
		if q := QuietNaN(c.f, false); q != c.quiet || !math.IsNaN(Decode(c.f, q)) {
			t.Errorf("%v: QuietNaN = %#x, want %#x", c.f, q, c.quiet)
		}
		if q := QuietNaN(c.f, true); q != c.quiet|c.f.SignBit() || !math.IsNaN(Decode(c.f, q)) {
			t.Errorf("%v: negative QuietNaN = %#x", c.f, q)
		}
		if inf, ok := Inf(c.f); ok != c.hasInf || ok && (inf != c.inf || !math.IsInf(Decode(c.f, inf), 1)) {
			t.Errorf("%v: Inf = %#x, %v", c.f, inf, ok)
		}
		if r := Round(c.f, math.NaN()); !math.IsNaN(r) {
			t.Errorf("%v: Round(NaN) = %v", c.f, r)
		}
		if b := Encode(c.f, math.Copysign(0, -1)); b != c.f.SignBit() {
			t.Errorf("%v: Encode(-0) = %#x", c.f, b)
		}
		if b := Encode(c.f, -1e-300); b != c.f.SignBit() {
			t.Errorf("%v: Encode(-1e-300) = %#x, want -0", c.f, b)
		}
	}
	// The examples the hardware documentation gives.
	for _, c := range []struct {
		f    Format
		x    float64
		want uint16
	}{
		{F16, 1, 0x3c00}, {F16, 65504, 0x7bff}, {F16, 65520, 0x7c00}, {F16, 0x1p-24, 0x0001},
		{BF16, 1, 0x3f80}, {BF16, math.Pi, 0x4049}, {BF16, 3.4e38, 0x7f80},
		{E4M3FN, 448, 0x7e}, {E4M3FN, 1e9, 0x7e}, {E4M3FN, math.Inf(-1), 0xfe}, {E4M3FN, 0x1p-9, 0x01},
		{E5M2, 57344, 0x7b}, {E5M2, 61440, 0x7b}, {E5M2, math.Inf(1), 0x7b}, {E5M2, 0x1p-16, 0x01},
	} {
		if got := Encode(c.f, c.x); got != c.want {
			t.Errorf("Encode(%v, %v) = %#x, want %#x", c.f, c.x, got, c.want)
		}
	}
}

func BenchmarkRoundBF16(b *testing.B) {
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = float64(i) * 1.000123
	}
	b.ResetTimer()
	s := 0.0
	for i := 0; i < b.N; i++ {
		for _, x := range xs {
			s += Round(BF16, x)
		}
	}
	_ = s
}

// RoundSlice is Round on every element: random bit patterns (NaNs,
// infinities, subnormals, every exponent) and values at and around each
// format's largest finite value, its overflow threshold and its smallest
// normal, of both signs.
func TestRoundSliceIsRound(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, f := range Formats {
		p := f.p()
		var xs []float64
		for range 100000 {
			xs = append(xs, math.Float64frombits(rng.Uint64()))
			xs = append(xs, math.Ldexp(1+rng.Float64(), rng.Intn(2*p.maxExp+p.man+8)-p.maxExp-p.man-4))
		}
		for _, v := range []float64{p.max, p.max * (1 + math.Ldexp(1, -p.man-1)), math.Ldexp(1, p.maxExp+1), math.Ldexp(1, p.minExp), math.Ldexp(1, p.minExp-1), 0} {
			for _, y := range []float64{v, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1))} {
				xs = append(xs, y, -y)
			}
		}
		xs = append(xs, math.Inf(1), math.Inf(-1), math.NaN())
		got := append([]float64(nil), xs...)
		RoundSlice(f, got)
		for i, x := range xs {
			want := Round(f, x)
			if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
				t.Fatalf("%v: RoundSlice of %v (%#x) is %v, Round's %v", f, x, math.Float64bits(x), got[i], want)
			}
		}
	}
}

func BenchmarkRoundSliceBF16(b *testing.B) {
	xs := make([]float64, 1024)
	for b.Loop() {
		for i := range xs {
			xs[i] = float64(i) * 1.000123
		}
		RoundSlice(BF16, xs)
	}
}

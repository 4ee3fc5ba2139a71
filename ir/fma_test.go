package ir

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// fmaFormat is what the exact reference needs of a float dtype: its
// mantissa bits (without the hidden one), the exponent of its smallest
// normal and its largest finite value.
type fmaFormat struct {
	man, minExp int
	max         float64
}

var fmaFormats = map[DType]fmaFormat{
	F16:  {10, -14, 65504},
	BF16: {7, -126, 0x1.fep127},
	F32:  {23, -126, math.MaxFloat32},
	F64:  {52, -1022, math.MaxFloat64},
}

// exactFMA is a*b + c computed in math/big rationals and rounded to d by
// hand (to nearest, ties to even, subnormals kept, overflow to infinity):
// a reference sharing no code with DType.FMA. Non-finite operands, and an
// exact zero (whose sign IEEE 754 defines from the operands), are left to
// float64 arithmetic, which is exact for them.
func exactFMA(d DType, a, b, c float64) float64 {
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsInf(c, 0) || math.IsNaN(a) || math.IsNaN(b) || math.IsNaN(c) {
		return d.Round(a*b + c)
	}
	x := new(big.Rat).SetFloat64(a)
	x.Mul(x, new(big.Rat).SetFloat64(b))
	x.Add(x, new(big.Rat).SetFloat64(c))
	if x.Sign() == 0 {
		return a*b + c // exact: +0, or -0 when both terms are -0
	}
	f := fmaFormats[d]
	ax := new(big.Rat).Abs(x)
	// e = floor(log2 |x|), from float64's estimate corrected exactly
	est, _ := ax.Float64()
	_, e := math.Frexp(est)
	e--
	pow := func(k int) *big.Rat {
		if k >= 0 {
			return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(k)))
		}
		return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-k)))
	}
	for ax.Cmp(pow(e)) < 0 {
		e--
	}
	for ax.Cmp(pow(e+1)) >= 0 {
		e++
	}
	q := max(e, f.minExp) - f.man // the quantum of d at x
	n := new(big.Rat).Mul(ax, pow(-q))
	quo, rem := new(big.Int).QuoRem(n.Num(), n.Denom(), new(big.Int))
	switch rem.Lsh(rem, 1).Cmp(n.Denom()) {
	case 1:
		quo.Add(quo, big.NewInt(1))
	case 0:
		if quo.Bit(0) == 1 {
			quo.Add(quo, big.NewInt(1))
		}
	}
	r := math.Ldexp(float64(quo.Int64()), q) // at most man+2 bits: exact
	if r > f.max {
		r = math.Inf(1)
	}
	return math.Copysign(r, float64(x.Sign()))
}

// fmaHard makes operands of d whose exact a*b + c lies within a fraction of
// a float64 ulp of a tie of d without being on it: a*b = ±2^E (1 - u^2
// 2^-2m) for m the mantissa bits and u small, and c a value of d whose half
// ulp is 2^E. float64(a*b + c) is then the tie, and rounding it to d again
// goes to even, which is wrong for about half the cases.
func fmaHard(d DType, r *rand.Rand) (a, b, c float64) {
	f := fmaFormats[d]
	m := f.man + 1
	u := float64(1 + r.IntN(1<<(m/2-2)))
	ea := r.IntN(20) - 10
	a = math.Ldexp(1+u*math.Ldexp(1, -f.man), ea)
	b = math.Ldexp(1-u*math.Ldexp(1, -f.man), -ea)
	// c = ±2^(E+1+man) (1 + k 2^-man): its ulp is 2^(E+1)
	exp := r.IntN(16) - 8
	k := float64(r.IntN(1 << f.man))
	c = math.Ldexp(1+k*math.Ldexp(1, -f.man), exp)
	b = math.Ldexp(b, exp-1-f.man)
	if r.IntN(2) == 0 {
		a = -a
	}
	if r.IntN(2) == 0 {
		c = -c
	}
	return d.Round(a), d.Round(b), d.Round(c)
}

// fmaTie makes operands of d whose product is a tie of d and c a tiny
// power of two of either sign, below a sum's last bit in f32 (for f16 and
// bf16, whose products have at most 22 bits): the wider rounding loses c and
// leaves the tie, which rounds to even whichever side c was on.
func fmaTie(d DType, r *rand.Rand) (a, b, c float64) {
	f := fmaFormats[d]
	for {
		a = d.Round(math.Ldexp(1+r.Float64(), r.IntN(4)))
		b = d.Round(math.Ldexp(1+r.Float64(), r.IntN(4)))
		p := a * b
		_, e := math.Frexp(p)
		if q := math.Ldexp(1, max(e-1, f.minExp)-f.man); math.Mod(p/q, 1) == 0.5 {
			c = math.Ldexp(1, max(e-26-r.IntN(20), f.minExp-f.man))
			if r.IntN(2) == 0 {
				c = -c
			}
			return a, b, c
		}
	}
}

// fmaRandom draws operands of d over much of its range (subnormal and
// overflowing results included) with signs at random.
func fmaRandom(d DType, r *rand.Rand) (a, b, c float64) {
	f := fmaFormats[d]
	span := -f.minExp + 2
	if d == F64 {
		span = 600
	}
	v := func() float64 {
		x := math.Ldexp(1+r.Float64(), r.IntN(span)-span/2)
		if r.IntN(2) == 0 {
			x = -x
		}
		return d.Round(x)
	}
	a, b, c = v(), v(), v()
	if r.IntN(4) == 0 { // c near the product: cancellation
		c = d.Round(-a * b * (1 + math.Ldexp(r.Float64()-0.5, -f.man)))
	}
	return a, b, c
}

// TestFMAExact checks DType.FMA against the exact reference on the hard
// cases of double rounding, random operands and the special values, for
// every dtype fma is defined on, and that the hard cases are hard: rounding
// a fused multiply-add of a wider float to d again (float64's math.FMA for
// f32; an f32 one, what fma.rn.f32 and a cvt.rn would give on the GPU, for
// f16 and bf16) is wrong on a good share of them.
func TestFMAExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, d := range []DType{F16, BF16, F32, F64} {
		require.True(t, d.HasFMA())
		wider := func(a, b, c float64) float64 { return d.Round(F32.FMA(a, b, c)) }
		if d == F32 {
			wider = func(a, b, c float64) float64 { return d.Round(math.FMA(a, b, c)) }
		}
		twice := 0
		const n = 20000
		for i := range n {
			var a, b, c float64
			switch {
			case i%2 == 0 && (d == F32 || i%4 == 0):
				a, b, c = fmaHard(d, r)
			case i%2 == 0 && d != F64:
				a, b, c = fmaTie(d, r)
			default:
				a, b, c = fmaRandom(d, r)
			}
			want, got := exactFMA(d, a, b, c), d.FMA(a, b, c)
			require.Equal(t, want, got, "%v.FMA(%v, %v, %v)", d, a, b, c)
			require.Equal(t, math.Signbit(want), math.Signbit(got), "%v.FMA(%v, %v, %v) sign", d, a, b, c)
			if i%2 == 0 && d != F64 && wider(a, b, c) != want {
				twice++
			}
			if d == F32 && !math.IsInf(want, 0) && !math.IsNaN(want) && want != 0 {
				// the reference agrees with math/big's own rounding to f32
				x := new(big.Rat).Mul(new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(b))
				f, _ := x.Add(x, new(big.Rat).SetFloat64(c)).Float32()
				require.Equal(t, float64(f), want, "big.Rat.Float32 of %v * %v + %v", a, b, c)
			}
			if d == F16 {
				// f16's values span too few bits (2^-24 to 2^16) for
				// float64's rounding of a*b + c to land on a tie of f16
				require.Equal(t, want, d.Round(math.FMA(a, b, c)), "f16 via float64: %v, %v, %v", a, b, c)
			}
		}
		if d == F64 {
			continue
		}
		require.Greater(t, twice, n/20, "%v: rounding twice was wrong only %d times", d, twice)
		t.Logf("%v: rounding a wider FMA to %v again is wrong on %d of %d hard cases", d, d, twice, n/2)
	}
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct {
		d       DType
		a, b, c float64
		want    float64
	}{
		// the tie of f32 at 1 + 2^-23 + 2^-24, approached from below by 2^-70
		{F32, 1 + 0x1p-23, 0x1p-24 * (1 - 0x1p-23), 1 + 0x1p-23, 1 + 0x1p-23},
		{F32, 1 + 0x1p-23, -0x1p-24 * (1 - 0x1p-23), -1 - 0x1p-23, -1 - 0x1p-23},
		{F16, 1 + 0x1p-10, 0x1p-11 * (1 - 0x1p-10), 1 + 0x1p-10, 1 + 0x1p-10},
		{BF16, 1 + 0x1p-7, 0x1p-8 * (1 - 0x1p-7), 1 + 0x1p-7, 1 + 0x1p-7},
		{F32, 0, -1, 0, 0}, // +0 + -0
		{F32, math.Copysign(0, -1), 1, math.Copysign(0, -1), math.Copysign(0, -1)}, // -0 + -0
		{F32, 3, 0x1.555556p-2, -1, 0x1p-25},                                       // 3 * f32(1/3) - 1: the residue, which separate operations lose
		{F32, inf, 0, 1, nan},
		{F32, inf, 1, -inf, nan},
		{F32, inf, 2, 1, inf},
		{F32, math.MaxFloat32, 2, -math.MaxFloat32, math.MaxFloat32},
		{F32, math.MaxFloat32, 1.5, 0, inf},
		{F16, 256, 256, 0, inf},
		{F32, 0x1p-100, 0x1p-49, 0, 0x1p-149},                 // the smallest subnormal, exactly
		{F32, 0x1p-100, 0x1p-50, 0, 0},                        // half of it: ties to even, 0
		{F32, 0x1p-100, 0x1p-50 * (1 + 0x1p-23), 0, 0x1p-149}, // just above half: up
		{F64, 0.1, 10, -1, math.FMA(0.1, 10, -1)},
		// 1.75 * 1.15625 = 2 + 3/128 is a tie of bf16; -2^-100 puts the sum
		// below it, which float64 (ulp 2^-51 there) loses: float64 then
		// bf16 gives the tie's even neighbour 2 + 4/128
		{BF16, 1.75, 1.15625, -0x1p-100, 2 + 2.0/128},
	} {
		got := c.d.FMA(c.a, c.b, c.c)
		if math.IsNaN(c.want) {
			require.True(t, math.IsNaN(got), "%v.FMA(%v, %v, %v) = %v", c.d, c.a, c.b, c.c, got)
			continue
		}
		require.Equal(t, c.want, got, "%v.FMA(%v, %v, %v)", c.d, c.a, c.b, c.c)
		require.Equal(t, math.Signbit(c.want), math.Signbit(got), "%v.FMA(%v, %v, %v) sign", c.d, c.a, c.b, c.c)
		require.Equal(t, exactFMA(c.d, c.a, c.b, c.c), got, "the reference, %v.FMA(%v, %v, %v)", c.d, c.a, c.b, c.c)
	}
	for _, d := range []DType{F8E4M3, F8E5M2, I32, I1} {
		require.False(t, d.HasFMA(), "%v", d)
	}
}

// TestFMABF16ViaFloat64 pins the case above: float64's FMA rounded to bf16
// again is wrong where DType.FMA is not.
func TestFMABF16ViaFloat64(t *testing.T) {
	require.Equal(t, 2+4.0/128, BF16.Round(math.FMA(1.75, 1.15625, -0x1p-100)))
	require.Equal(t, 2+2.0/128, BF16.FMA(1.75, 1.15625, -0x1p-100))
}

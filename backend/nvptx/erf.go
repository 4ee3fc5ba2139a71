package nvptx

import (
	"math"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"
)

// erf on the GPU. NVPTX has no erf instruction, no LLVM intrinsic llc lowers
// without libdevice, and this project links no libdevice, so erff is built
// here from FMAs and one ex2.approx.
//
// The algorithm and its coefficients are the minimax erff of Arm's
// optimized-routines (math/erff.c and math/erff_data.c, MIT licence; the
// same two-interval scheme as Norbert Juffa's erff), documented there with a
// worst-case error of 1.09 ulp (at 0x1.c111acp-1) given an expf within
// about 0.5 ulp:
//
//	|x| < 0.875:  erf(x) = x + x * P(x^2),         P of degree 5 (erfSmall)
//	otherwise:    erf(x) = sign(x) * (1 - exp(-Q(|x|))),  Q(a) = a + a*B(a), B of degree 6 (erfLarge)
//
// Q is evaluated as in the reference: Estrin on the three highest
// coefficients, then Horner. Beyond |x| = 4 exp(-Q) is below 2^-24 and the
// formula gives +-1 itself; +-inf gives +-1 and NaN stays NaN, so the GPU
// version needs no special cases and no branch: it computes both
// polynomials and selects. Here exp(-Q) is ex2.approx.ftz.f32(-Q * log2 e), as
// the exp builtin is: TestErfAlgorithm (erf_test.go) measures the error of
// erfF32, the Go mirror of the emitted code, against math.Erf over a dense
// sweep of [-6, 6], with exp2 exact and with exp2 off by ex2.approx's
// relative error; ErfMaxULP is the bound it checks.

// erfSmall is P for |x| < 0.875, lowest degree first (erff_poly_A).
var erfSmall = [6]float32{
	0x1.06eba6p-03, -0x1.8126e0p-02, 0x1.ce1a46p-04,
	-0x1.b68bd2p-06, 0x1.473f48p-08, -0x1.3a1a82p-11,
}

// erfLarge is B for |x| >= 0.875, lowest degree first (erff_poly_B).
var erfLarge = [7]float32{
	0x1.079d0cp-3, 0x1.450aa0p-1, 0x1.b55cb0p-4,
	-0x1.8d6300p-6, 0x1.fd1336p-9, -0x1.91d2ccp-12,
	0x1.222900p-16,
}

// erfNegLog2E + erfNegLog2ELo is -log2(e) to about 2^-48.
const (
	erfNegLog2E   = float32(-math.Log2E)
	erfNegLog2ELo = float32(-math.Log2E - float64(erfNegLog2E))
)

// erfMaxQ caps Q: 2^(-erfMaxQ*log2 e) is far below 2^-24, and an
// infinite Q would make the correction of the exponential NaN.
const erfMaxQ = 128

// erfSplit is where the two polynomials meet.
const erfSplit = 0.875

// ErfMaxULP is the largest error of the GPU's f32 erf in units in the last
// place of the f32 result (measured by TestErfAlgorithm, with ex2.approx
// within a relative 2^-22 of 2^x).
const ErfMaxULP = 2.1

// erfF32 is the GPU's f32 erf in Go float32 arithmetic, operation for
// operation the LLVM IR erf emits, with exp2 standing for ex2.approx.ftz.f32.
func erfF32(x float32, exp2 func(float32) float32) float32 {
	p := erfHead(x)
	return p.tail(exp2(p.h))
}

// erfParts is erfF32 up to its one ex2.approx: everything but the
// exponential's model, which TestErfAlgorithm varies on the same x.
type erfParts struct {
	x, a, small float32
	h, l        float32 // exp(-Q) = 2^h * 2^l
}

// erfHead is erfF32 before ex2.approx: both polynomials and the split of
// -Q*log2(e) into h + l.
func erfHead(x float32) erfParts {
	a := float32(math.Abs(float64(x)))
	x2 := float32(x * x)
	// |x| < 0.875
	p := erfSmall[5]
	for i := 4; i >= 0; i-- {
		p = fma32(p, x2, erfSmall[i])
	}
	small := fma32(p, x, x)
	// |x| >= 0.875
	r := fma32(erfLarge[6], a, erfLarge[5])
	u := fma32(erfLarge[4], a, erfLarge[3])
	r = fma32(r, x2, u)
	for i := 2; i >= 0; i-- {
		r = fma32(r, a, erfLarge[i])
	}
	r = fma32(r, a, a)
	if r > erfMaxQ { // keeps l finite; exp(-r) is 0 in f32 either way (NaN stays)
		r = erfMaxQ
	}
	// exp(-r) = 2^h * 2^l with h + l = -r*log2(e) to about 2^-40 relative:
	// the rounding error of the product, times ln 2, corrects 2^h
	h := float32(r * erfNegLog2E)
	l := fma32(r, erfNegLog2E, -h)
	l = fma32(r, erfNegLog2ELo, l)
	return erfParts{x: x, a: a, small: small, h: h, l: l}
}

// tail is erfF32 from ex2.approx's result e = 2^h on.
func (p erfParts) tail(e float32) float32 {
	e = fma32(e, float32(p.l*float32(math.Ln2)), e)
	large := float32(math.Copysign(float64(float32(1-e)), float64(p.x)))
	if p.a < erfSplit {
		return p.small
	}
	return large
}

// fma32 is the f32 fused multiply-add a*b + c with one rounding: the
// product is exact in float64, the sum is rounded to odd there (exact sum
// by TwoSum, then the sticky bit), and rounding to odd in 53 bits and then to
// nearest in 24 is rounding to nearest once.
//
// Only a sum s that is a tie between two f32 values needs the sticky bit:
// the exact sum lies within half an f64 ulp of s, so on the same side of
// every tie (each an f64 value) as s, and rounds to the f32 that s rounds
// to. The ties of the normal f32 range are the f64 values whose low 29
// mantissa bits are 1<<28; everything else (subnormal f32, overflow,
// infinities, NaN) takes fma32Slow.
func fma32(a, b, c float32) float32 {
	s := float64(a)*float64(b) + float64(c)
	if u := math.Float64bits(s); u&(1<<29-1) != 1<<28 && (u>>52&0x7ff)-(1023-126) < 254 {
		return float32(s)
	}
	return fma32Slow(a, b, c)
}

// fma32Slow is fma32 by rounding to odd, for every a, b, c.
func fma32Slow(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	s := p + float64(c)
	if math.IsInf(s, 0) || math.IsNaN(s) || math.IsInf(p, 0) {
		return float32(s)
	}
	bb := s - p
	e := (p - (s - bb)) + (float64(c) - bb)
	if e != 0 && math.Float64bits(s)&1 == 0 {
		s = math.Nextafter(s, math.Copysign(math.Inf(1), e))
	}
	return float32(s)
}

// erf emits erfF32 on an f32 value.
func (g *gen) erf(x value.Value) value.Value {
	fma := func(a, b, c value.Value) value.Value { return g.fintr("llvm.fma.f32", a, b, c) }
	a := g.fintr("llvm.fabs.f32", x)
	x2 := g.cur.NewFMul(x, x)
	var p value.Value = f32c(float64(erfSmall[5]))
	for i := 4; i >= 0; i-- {
		p = fma(p, x2, f32c(float64(erfSmall[i])))
	}
	small := fma(p, x, x)
	r := fma(f32c(float64(erfLarge[6])), a, f32c(float64(erfLarge[5])))
	u := fma(f32c(float64(erfLarge[4])), a, f32c(float64(erfLarge[3])))
	r = fma(r, x2, u)
	for i := 2; i >= 0; i-- {
		r = fma(r, a, f32c(float64(erfLarge[i])))
	}
	r = fma(r, a, a)
	r = g.cur.NewSelect(g.cur.NewFCmp(enum.FPredOGT, r, f32c(erfMaxQ)), f32c(erfMaxQ), r)
	h := g.cur.NewFMul(r, f32c(float64(erfNegLog2E)))
	l := fma(r, f32c(float64(erfNegLog2E)), g.cur.NewFSub(f32c(0), h))
	l = fma(r, f32c(float64(erfNegLog2ELo)), l)
	e := g.ex2(h)
	e = fma(e, g.cur.NewFMul(l, f32c(math.Ln2)), e)
	large := g.fintr("llvm.copysign.f32", g.cur.NewFSub(f32c(1), e), x)
	isSmall := g.cur.NewFCmp(enum.FPredOLT, a, f32c(erfSplit))
	return g.cur.NewSelect(isSmall, small, large)
}

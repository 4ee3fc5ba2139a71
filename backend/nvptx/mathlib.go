package nvptx

import "math"

// The math library on the GPU: sin, cos, tan, asin, acos, atan, atan2,
// sinh, cosh, log1p, expm1 and pow of f32 values (Triton's tl.sin, ...,
// libdevice.pow). As for erf (erf.go), no libdevice is linked, so each is
// built here from arithmetic the GPU has: f64 add, mul, fma, div.rn,
// sqrt.rn, cvt.rni, integer operations, selects.
//
// Each f32 function is evaluated in f64 and rounded to f32 once at the
// end: the f32 argument is exact in f64, the f64 algorithms below are
// accurate to far better than 2^-40 relative, so the f32 result is within
// a hair above half an ulp of the exact value (the XMaxULP constants, each
// measured by TestMathLibAlgorithms against Go's math over dense sweeps and
// the whole f32 range). f64 arithmetic costs the GPU more than f32 (half
// the rate on H100/H200, far less on consumer parts); the accuracy is that
// of a correctly rounded f32 library in all but a few ties.
//
// Every algorithm is written once, generic over mathOps, and instantiated
// twice: goOps evaluates it in Go float64 (the mirror, MathF32), irOps
// emits it as LLVM IR, operation for operation (the tests' sweeps use a
// third instance, vecOps in mathlib_vec_test.go: goOps' arithmetic on 256
// values per operation, bit for bit MathF32's). Products that are
// summed are explicit FMAs, so llc's contraction of fmul+fadd (on by
// default for NVPTX) finds nothing to contract and the GPU computes what
// the mirror computes. Both sides of every select are computed: the code
// has no branches, and nothing computes fptosi of an out-of-range value.
//
// Provenance (all BSD- or MIT-style licensed):
//   - sin and cos polynomials on [-pi/4, pi/4], atan's rational function
//     and its range reduction (tan(3pi/8), pi/4 split): Cephes (Stephen L.
//     Moshier), as in Go's math/sin.go and math/atan.go (BSD licence).
//   - log's reduction and Remez polynomial Lg1..Lg7: FreeBSD msun e_log.c
//     (Sun Microsystems; "freely granted"), as in Go's math/log.go.
//   - the large-argument reduction of sin/cos/tan (Payne-Hanek with a
//     192-bit 2/pi table, integer multiplies): Arm optimized-routines
//     math/sincosf.h reduce_large and math/sincosf_data.c __inv_pio4 (MIT /
//     Apache-2.0 WITH LLVM-exception), which documents it exact to 2^-62 of
//     a quadrant for every f32 |x| >= 2.
//   - exp on [-ln2/2, ln2/2] and expm1, sinh near 0: the Taylor series
//     (coefficients 1/k!), truncated where the remainder is below 2^-47.
//   - asin/acos through atan and sqrt, atan2's and pow's special cases:
//     Go's math/asin.go, atan2.go and pow.go (C99 Annex F as documented).

// mathOps are the operations the algorithms use: D is an f64 value, I an
// i64, B an i1. Comparisons are ordered (false on NaN).
type mathOps[D, I, B any] interface {
	c(x float64) D
	ic(x int64) I
	add(a, b D) D
	sub(a, b D) D
	mul(a, b D) D
	div(a, b D) D
	fma(a, b, c D) D
	sqrt(a D) D
	rint(a D) D // to nearest integral, ties to even
	abs(a D) D
	copysign(a, b D) D
	lt(a, b D) B
	eq(a, b D) B
	ne(a, b D) B // unordered: true on NaN
	isnan(a D) B
	and(a, b B) B
	or(a, b B) B
	not(a B) B
	sel(c B, a, b D) D
	seli(c B, a, b I) I
	toI(a D) I // a integral and |a| < 2^62
	toD(a I) D // signed
	bits(a D) I
	fromBits(a I) D
	f32bits(a D) I // the f32 bits of a (a f32 value), zero-extended
	iadd(a, b I) I
	isub(a, b I) I
	imul(a, b I) I
	iand(a, b I) I
	ior(a, b I) I
	ishl(a, b I) I
	ishr(a, b I) I // logical
	ineg(a I) I
	invPio4(idx I) I // __inv_pio4[idx], 0 <= idx < 24
	ieq(a, b I) B
	beq(a, b B) B
}

// Pi/2 in three f64 parts (C1 + C2 + C3 to about 2^-163), and 2*pi*2^-64.
const (
	mlPio2C1 = 0x1.921fb54442d18p+00
	mlPio2C2 = 0x1.1a62633145c07p-54
	mlPio2C3 = -0x1.f1976b7ed8fbcp-110
	mlPi63   = 0x1.921fb54442d18p-62
	// below, sin/cos/tan reduce by Cody-Waite (n*C1, n*C2, n*C3 by FMAs)
	mlTrigSmall = 0x1p20
)

// mlInvPio4 is 2/pi in overlapping windows: entry i is bits 8(i-3)+1 ..
// 8(i+1) of 2/pi after the binary point (Arm optimized-routines
// __inv_pio4; TestMathLibTable rederives it).
var mlInvPio4 = [24]uint32{
	0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44,
	0x6e4e4415, 0x4e441529, 0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1,
	0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0, 0x34ddc0db, 0xddc0db62,
	0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
}

// Cephes sin and cos on [-pi/4, pi/4], highest degree first (Go's _sin, _cos).
var mlSin = [6]float64{
	1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6,
	-1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1,
}
var mlCos = [6]float64{
	-1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7,
	2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2,
}

func horner[D, I, B any, M mathOps[D, I, B]](m M, x D, cs []float64) D {
	p := m.c(cs[0])
	for _, c := range cs[1:] {
		p = m.fma(p, x, m.c(c))
	}
	return p
}

// mlReduce returns r and the quadrant q (0..3) with x = r + (q + 4k)*pi/2,
// |r| <= pi/4 + a little, for finite x (garbage, but no poison, otherwise).
func mlReduce[D, I, B any, M mathOps[D, I, B]](m M, x D) (D, I) {
	a := m.abs(x)
	small := m.lt(a, m.c(mlTrigSmall))
	// Cody-Waite: n = rint(x * 2/pi), r = x - n*(C1 + C2 + C3)
	xs := m.sel(small, x, m.c(0))
	n := m.rint(m.mul(xs, m.c(2/math.Pi)))
	r := m.fma(n, m.c(-mlPio2C1), xs)
	r = m.fma(n, m.c(-mlPio2C2), r)
	r = m.fma(n, m.c(-mlPio2C3), r)
	ns := m.toI(n)
	// Payne-Hanek (Arm's reduce_large) on |x|'s bits, for |x| >= 2
	xi := m.f32bits(a)
	idx := m.iand(m.ishr(xi, m.ic(26)), m.ic(15))
	shift := m.iand(m.ishr(xi, m.ic(23)), m.ic(7))
	mant := m.ishl(m.ior(m.iand(xi, m.ic(0xffffff)), m.ic(0x800000)), shift)
	res0 := m.iand(m.imul(mant, m.invPio4(idx)), m.ic(0xffffffff))
	res1 := m.imul(mant, m.invPio4(m.iadd(idx, m.ic(4))))
	res2 := m.imul(mant, m.invPio4(m.iadd(idx, m.ic(8))))
	res0 = m.ior(m.ishr(res2, m.ic(32)), m.ishl(res0, m.ic(32)))
	res0 = m.iadd(res0, res1)
	nl := m.ishr(m.iadd(res0, m.ic(1<<61)), m.ic(62))
	res0 = m.isub(res0, m.ishl(nl, m.ic(62)))
	rl := m.mul(m.toD(res0), m.c(mlPi63))
	neg := m.lt(x, m.c(0))
	rl = m.sel(neg, m.sub(m.c(0), rl), rl)
	nl = m.seli(neg, m.ineg(nl), nl)
	r = m.sel(small, r, rl)
	q := m.iand(m.seli(small, ns, nl), m.ic(3))
	return r, q
}

// mlSinCosPoly returns sin(r) and cos(r) for |r| <= pi/4 (Cephes).
func mlSinCosPoly[D, I, B any, M mathOps[D, I, B]](m M, r D) (D, D) {
	zz := m.mul(r, r)
	s := m.fma(m.mul(r, zz), horner(m, zz, mlSin[:]), r)
	// cos = 1 - zz/2 + zz^2 * Q(zz): the last two terms summed first
	c := m.fma(m.mul(zz, zz), horner(m, zz, mlCos[:]), m.mul(zz, m.c(-0.5)))
	c = m.add(m.c(1), c)
	return s, c
}

// mlTrig is sin (which 0), cos (1) or tan (2) of an f32 value in f64.
func mlTrig[D, I, B any, M mathOps[D, I, B]](m M, x D, which int) D {
	r, q := mlReduce(m, x)
	s, c := mlSinCosPoly(m, r)
	odd := m.not(m.ieq(m.iand(q, m.ic(1)), m.ic(0)))
	var v D
	switch which {
	case 0, 1:
		// sin(x) = s, c, -s, -c for q = 0..3; cos(x) = c, -s, -c, s
		if which == 1 {
			q = m.iadd(q, m.ic(1))
			odd = m.not(odd)
		}
		v = m.sel(odd, c, s)
		neg := m.not(m.ieq(m.iand(q, m.ic(2)), m.ic(0)))
		v = m.sel(neg, m.sub(m.c(0), v), v)
	default:
		// tan(x) = s/c for even q, -c/s for odd
		v = m.sel(odd, m.div(m.sub(m.c(0), c), s), m.div(s, c))
	}
	if which != 1 {
		v = m.sel(m.eq(x, m.c(0)), x, v) // +-0 keeps its sign
	}
	return m.sel(m.lt(m.abs(x), m.c(math.Inf(1))), v, m.sub(x, x)) // inf, NaN: NaN
}

// Cephes atan: xatan for |x| <= 0.66, P/Q of Go's math/atan.go.
var (
	mlAtanP = []float64{-8.750608600031904122785e-01, -1.615753718733365076637e+01,
		-7.500855792314704667340e+01, -1.228866684490136173410e+02, -6.485021904942025371773e+01}
	mlAtanQ = []float64{1, 2.485846490142306297962e+01, 1.650270098316988542046e+02,
		4.328810604912902668951e+02, 4.853903996359136964868e+02, 1.945506571482613964425e+02}
)

const (
	mlMorebits = 6.123233995736765886130e-17 // pi/2 = Pi/2 + mlMorebits
	mlTan3pio8 = 2.41421356237309504880
)

// mlAtanPos is atan(a) for a >= 0 or +inf (NaN for NaN): Cephes satan.
func mlAtanPos[D, I, B any, M mathOps[D, I, B]](m M, a D) D {
	low := m.not(m.lt(m.c(0.66), a)) // a <= 0.66 (NaN: false)
	high := m.lt(m.c(mlTan3pio8), a)
	t := m.sel(high, m.div(m.c(-1), a), m.div(m.sub(a, m.c(1)), m.add(a, m.c(1))))
	t = m.sel(low, a, t)
	base := m.sel(high, m.c(math.Pi/2), m.c(math.Pi/4))
	more := m.sel(high, m.c(mlMorebits), m.c(0.5*mlMorebits))
	base = m.sel(low, m.c(0), base)
	more = m.sel(low, m.c(0), more)
	z := m.mul(t, t)
	p := m.div(m.mul(z, horner(m, z, mlAtanP)), horner(m, z, mlAtanQ))
	xa := m.fma(t, p, t)
	return m.add(m.add(base, xa), more)
}

func mlAtan[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	return m.copysign(mlAtanPos(m, m.abs(x)), x)
}

// mlAtan2 is Go's math.Atan2 (special cases in its order of precedence).
func mlAtan2[D, I, B any, M mathOps[D, I, B]](m M, y, x D) D {
	inf := m.c(math.Inf(1))
	pi := m.c(math.Pi)
	q := mlAtan(m, m.div(y, x))
	v := m.sel(m.lt(x, m.c(0)), m.add(q, m.copysign(pi, y)), q)
	yInf := m.eq(m.abs(y), inf)
	xInf := m.eq(m.abs(x), inf)
	v = m.sel(yInf, m.copysign(m.c(math.Pi/2), y), v)
	xPos := m.lt(m.c(0), x)
	infCase := m.sel(xPos, m.sel(yInf, m.c(math.Pi/4), m.c(0)), m.sel(yInf, m.c(3*math.Pi/4), pi))
	v = m.sel(xInf, m.copysign(infCase, y), v)
	v = m.sel(m.eq(x, m.c(0)), m.copysign(m.c(math.Pi/2), y), v)
	xPlus := m.and(m.not(m.lt(x, m.c(0))), m.not(m.lt(m.copysign(m.c(1), x), m.c(0)))) // x >= 0, not -0
	v = m.sel(m.eq(y, m.c(0)), m.copysign(m.sel(xPlus, m.c(0), pi), y), v)
	return m.sel(m.or(m.isnan(x), m.isnan(y)), m.add(x, y), v)
}

// mlAsinPos is asin(a) for 0 <= a (NaN above 1): Go's math.Asin.
func mlAsinPos[D, I, B any, M mathOps[D, I, B]](m M, a D) D {
	t := m.sqrt(m.fma(m.sub(m.c(0), a), a, m.c(1))) // 1 - a*a, exact for f32 a
	big := m.lt(m.c(0.7), a)
	s := mlAtanPos(m, m.sel(big, m.div(t, a), m.div(a, t)))
	return m.sel(big, m.sub(m.c(math.Pi/2), s), s)
}

func mlAsin[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	return m.copysign(mlAsinPos(m, m.abs(x)), x)
}

func mlAcos[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	return m.sub(m.c(math.Pi/2), mlAsin(m, x))
}

// mlExpTaylor is 1/k! for k = 12 down to 0.
var mlExpTaylor = func() []float64 {
	cs := make([]float64, 13)
	f := 1.0
	for k := 0; k <= 12; k++ {
		if k > 0 {
			f *= float64(k)
		}
		cs[12-k] = 1 / f
	}
	return cs
}()

const (
	mlLn2Hi  = 6.93147180369123816490e-01 // ln 2 = mlLn2Hi + mlLn2Lo; k*mlLn2Hi exact for |k| < 2^20
	mlLn2Lo  = 1.90821492927058770002e-10
	mlExpCap = 200 // |x| capped: e^200 overflows f32 and e^-200 underflows it, in f64 neither
)

// mlExp is e^x in f64 for the f32 results of the functions below: x is
// capped to [-200, 200], reduced to r = x - k ln2 (|r| <= ln2/2 + a
// little), e^r by its Taylor series of degree 12 (remainder below 2^-47
// relative), and scaled by 2^k built from bits. NaN stays NaN.
func mlExp[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	x = m.sel(m.lt(m.c(mlExpCap), x), m.c(mlExpCap), x)
	x = m.sel(m.lt(x, m.c(-mlExpCap)), m.c(-mlExpCap), x)
	k := m.rint(m.mul(x, m.c(math.Log2E)))
	k = m.sel(m.isnan(k), m.c(0), k)
	r := m.fma(k, m.c(-mlLn2Hi), x)
	r = m.fma(k, m.c(-mlLn2Lo), r)
	e := horner(m, r, mlExpTaylor)
	scale := m.fromBits(m.ishl(m.iadd(m.toI(k), m.ic(1023)), m.ic(52)))
	return m.mul(e, scale)
}

// FreeBSD e_log.c's Lg7..Lg1 (highest first).
var mlLogL = []float64{1.479819860511658591e-01, 1.531383769920937332e-01, 1.818357216161805012e-01,
	2.222219843214978396e-01, 2.857142874366239149e-01, 3.999999999940941908e-01, 6.666666666666735130e-01}

// mlLog is log(x) for a positive finite normal f64 x (garbage otherwise):
// x = 2^k * (1+f), sqrt(2)/2 <= 1+f < sqrt(2), s = f/(2+f),
// log(1+f) = f - f^2/2 + s*(f^2/2 + s^2*L(s^2)) (FreeBSD e_log.c).
func mlLog[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	b := m.bits(x)
	e := m.isub(m.ishr(b, m.ic(52)), m.ic(1023))
	mt := m.fromBits(m.ior(m.iand(b, m.ic(1<<52-1)), m.ic(1023<<52)))
	big := m.lt(m.c(math.Sqrt2), mt)
	mt = m.sel(big, m.mul(mt, m.c(0.5)), mt)
	k := m.add(m.toD(e), m.sel(big, m.c(1), m.c(0)))
	f := m.sub(mt, m.c(1))
	s := m.div(f, m.add(m.c(2), f))
	s2 := m.mul(s, s)
	h := m.mul(f, m.c(0.5))
	hfsq := m.mul(h, f)
	a := m.fma(s2, horner(m, s2, mlLogL), hfsq) // f^2/2 + R
	u := m.fma(s, a, m.mul(k, m.c(mlLn2Lo)))
	w := m.sub(m.fma(h, f, m.sub(m.c(0), u)), f) // (hfsq - u) - f
	return m.fma(k, m.c(mlLn2Hi), m.sub(m.c(0), w))
}

// mlLog1p: for |x| >= 2^-29, 1+x is exact in f64 and log1p(x) = log(1+x);
// below, log1p(x) rounds to x in f32.
func mlLog1p[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	u := m.add(m.c(1), x)
	v := mlLog(m, u)
	v = m.sel(m.eq(u, m.c(math.Inf(1))), u, v)
	v = m.sel(m.eq(u, m.c(0)), m.c(math.Inf(-1)), v)
	v = m.sel(m.lt(u, m.c(0)), m.c(math.NaN()), v)
	v = m.sel(m.lt(m.abs(x), m.c(0x1p-29)), x, v)
	return m.sel(m.isnan(x), x, v)
}

// mlExpm1Taylor is 1/k! for k = 14 down to 1: expm1(x) = x*P(x), |x| < 1/2,
// remainder below 2^-49 relative.
var mlExpm1Taylor = func() []float64 {
	cs := make([]float64, 14)
	f := 1.0
	for k := 1; k <= 14; k++ {
		f *= float64(k)
		cs[14-k] = 1 / f
	}
	return cs
}()

func mlExpm1[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	small := m.lt(m.abs(x), m.c(0.5))
	xs := m.sel(small, x, m.c(0))
	p := m.mul(horner(m, xs, mlExpm1Taylor), xs)
	return m.sel(small, p, m.sub(mlExp(m, x), m.c(1)))
}

// mlSinhTaylor is 1/(2k+1)! for k = 8 down to 0: sinh(x) = x*P(x^2),
// |x| < 1, remainder below 2^-54 relative.
var mlSinhTaylor = func() []float64 {
	cs := make([]float64, 9)
	f := 1.0
	for k := 0; k <= 8; k++ {
		if k > 0 {
			f *= float64(2*k) * float64(2*k+1)
		}
		cs[8-k] = 1 / f
	}
	return cs
}()

func mlSinh[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	a := m.abs(x)
	small := m.lt(a, m.c(1))
	xs := m.sel(small, x, m.c(0))
	p := m.mul(horner(m, m.mul(xs, xs), mlSinhTaylor), xs)
	e := mlExp(m, a)
	big := m.mul(m.sub(e, m.div(m.c(1), e)), m.c(0.5))
	return m.sel(small, p, m.copysign(big, x))
}

func mlCosh[D, I, B any, M mathOps[D, I, B]](m M, x D) D {
	e := mlExp(m, m.abs(x))
	return m.mul(m.add(e, m.div(m.c(1), e)), m.c(0.5))
}

// mlPow is x**y, Go's math.Pow (C99 F.9.4.4): exp(y*log|x|) in f64 (the
// product's error is below 2^-44 of the result's), the sign from an odd
// integral y, and the special cases in Go's order of precedence.
func mlPow[D, I, B any, M mathOps[D, I, B]](m M, x, y D) D {
	zero, one, inf := m.c(0), m.c(1), m.c(math.Inf(1))
	neg := func(v D) D { return m.mul(v, m.c(-1)) } // -0 from +0
	ax := m.abs(x)
	isInt := m.eq(m.rint(y), y)
	h := m.mul(y, m.c(0.5))
	odd := m.and(isInt, m.ne(m.rint(h), h)) // false for +-inf (even) and NaN
	signX := m.lt(m.copysign(one, x), zero)
	v := mlExp(m, m.mul(y, mlLog(m, ax)))
	v = m.sel(m.and(m.lt(x, zero), odd), neg(v), v)
	v = m.sel(m.and(m.lt(x, zero), m.not(isInt)), m.c(math.NaN()), v)
	yNeg, yPos := m.lt(y, zero), m.lt(zero, y)
	// x = +-inf: pow(-inf, y) = pow(-0, -y)
	xInfV := m.sel(yNeg, zero, m.sel(yPos, inf, v))
	xInfV = m.sel(m.and(signX, odd), neg(xInfV), xInfV)
	v = m.sel(m.eq(ax, inf), xInfV, v)
	// y = +-inf
	yInfV := m.sel(m.beq(m.lt(ax, one), m.eq(y, inf)), zero, inf)
	yInfV = m.sel(m.eq(x, m.c(-1)), one, yInfV)
	v = m.sel(m.eq(m.abs(y), inf), yInfV, v)
	// x = +-0
	zv := m.sel(yNeg, inf, m.sel(yPos, zero, v))
	zv = m.sel(m.and(signX, odd), neg(zv), zv)
	v = m.sel(m.eq(x, zero), zv, v)
	v = m.sel(m.or(m.isnan(x), m.isnan(y)), m.c(math.NaN()), v)
	v = m.sel(m.eq(y, one), x, v)
	return m.sel(m.or(m.eq(y, zero), m.eq(x, one)), one, v)
}

// goOps evaluates the algorithms in Go float64 arithmetic.
type goOps struct{}

func (goOps) c(x float64) float64           { return x }
func (goOps) ic(x int64) int64              { return x }
func (goOps) add(a, b float64) float64      { return float64(a + b) }
func (goOps) sub(a, b float64) float64      { return float64(a - b) }
func (goOps) mul(a, b float64) float64      { return float64(a * b) }
func (goOps) div(a, b float64) float64      { return float64(a / b) }
func (goOps) fma(a, b, c float64) float64   { return math.FMA(a, b, c) }
func (goOps) sqrt(a float64) float64        { return math.Sqrt(a) }
func (goOps) rint(a float64) float64        { return math.RoundToEven(a) }
func (goOps) abs(a float64) float64         { return math.Abs(a) }
func (goOps) copysign(a, b float64) float64 { return math.Copysign(a, b) }
func (goOps) lt(a, b float64) bool          { return a < b }
func (goOps) eq(a, b float64) bool          { return a == b }
func (goOps) ne(a, b float64) bool          { return a != b }
func (goOps) isnan(a float64) bool          { return a != a }
func (goOps) and(a, b bool) bool            { return a && b }
func (goOps) or(a, b bool) bool             { return a || b }
func (goOps) not(a bool) bool               { return !a }
func (goOps) toI(a float64) int64           { return int64(a) }
func (goOps) toD(a int64) float64           { return float64(a) }
func (goOps) bits(a float64) int64          { return int64(math.Float64bits(a)) }
func (goOps) fromBits(a int64) float64      { return math.Float64frombits(uint64(a)) }
func (goOps) f32bits(a float64) int64       { return int64(math.Float32bits(float32(a))) }
func (goOps) iadd(a, b int64) int64         { return a + b }
func (goOps) isub(a, b int64) int64         { return a - b }
func (goOps) imul(a, b int64) int64         { return a * b }
func (goOps) iand(a, b int64) int64         { return a & b }
func (goOps) ior(a, b int64) int64          { return a | b }
func (goOps) ishl(a, b int64) int64         { return int64(uint64(a) << uint64(b)) }
func (goOps) ishr(a, b int64) int64         { return int64(uint64(a) >> uint64(b)) }
func (goOps) ineg(a int64) int64            { return -a }
func (goOps) invPio4(i int64) int64         { return int64(mlInvPio4[i]) }
func (goOps) ieq(a, b int64) bool           { return a == b }
func (goOps) beq(a, b bool) bool            { return a == b }

func (goOps) sel(c bool, a, b float64) float64 {
	if c {
		return a
	}
	return b
}

func (goOps) seli(c bool, a, b int64) int64 {
	if c {
		return a
	}
	return b
}

// MathFn names the functions of this file.
type MathFn int

const (
	MathSin MathFn = iota
	MathCos
	MathTan
	MathAsin
	MathAcos
	MathAtan
	MathSinh
	MathCosh
	MathLog1p
	MathExpm1
	MathAtan2 // (y, x)
	MathPow   // (x, y)
)

// mathF64 is fn on f64 values holding f32 ones (y only for atan2 and pow).
func mathF64[D, I, B any, M mathOps[D, I, B]](m M, fn MathFn, x, y D) D {
	switch fn {
	case MathSin:
		return mlTrig(m, x, 0)
	case MathCos:
		return mlTrig(m, x, 1)
	case MathTan:
		return mlTrig(m, x, 2)
	case MathAsin:
		return mlAsin(m, x)
	case MathAcos:
		return mlAcos(m, x)
	case MathAtan:
		return mlAtan(m, x)
	case MathSinh:
		return mlSinh(m, x)
	case MathCosh:
		return mlCosh(m, x)
	case MathLog1p:
		return mlLog1p(m, x)
	case MathExpm1:
		return mlExpm1(m, x)
	case MathAtan2:
		return mlAtan2(m, x, y)
	case MathPow:
		return mlPow(m, x, y)
	}
	panic("unknown math function")
}

// MathF32 is the GPU's f32 fn in Go, operation for operation the LLVM IR
// the backend emits (y only for atan2, whose arguments are (y, x) here as
// in Triton, and pow).
func MathF32(fn MathFn, x, y float32) float32 {
	return float32(mathF64(goOps{}, fn, float64(x), float64(y)))
}

// The largest errors of the GPU's f32 functions in units in the last place
// of the f32 result, against the exact value (Go's math in float64; 0.5 is
// the final rounding's). Each f64 algorithm above is accurate to better
// than 2^-40 relative (2^-16 f32 ulp), so the bound is a half ulp and a
// hair; TestMathLibAlgorithms measures at most 0.500000 ulp (to six
// places) over its sweeps of each function's dense interval (every 1021st
// f32) and of the whole f32 range (every 4099th bit pattern, both signs,
// infinities, NaN), and over pairs for atan2 and pow.
const (
	SinMaxULP   = 0.501
	CosMaxULP   = 0.501
	TanMaxULP   = 0.501
	AsinMaxULP  = 0.501
	AcosMaxULP  = 0.501
	AtanMaxULP  = 0.501
	Atan2MaxULP = 0.501
	SinhMaxULP  = 0.501
	CoshMaxULP  = 0.501
	Log1pMaxULP = 0.501
	Expm1MaxULP = 0.501
	PowMaxULP   = 0.501
)

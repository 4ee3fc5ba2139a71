// Package floats encodes, decodes and rounds the narrow float formats of
// TLE-Go's dtypes: IEEE half precision (f16), bfloat16 (bf16) and the two
// fp8 formats, e4m3fn (f8e4m3) and e5m2 (f8e5m2), and rounds float32 to
// tf32, the tensor cores' view of f32 operands (TF32Bits, RoundTF32: PTX
// cvt.rna.tf32.f32, ties away from zero, not the rule below). It is the one
// codec of the project: the .npy conversions, the interpreter's buffers and
// rounding, the IR's constant rounding and the backend's immediates all
// call it. It imports nothing of the project.
//
// The rules are those of the GPU's conversion from a wider float (PTX cvt.rn,
// with .satfinite for fp8, where PTX requires it):
//
//   - Rounding is to nearest, ties to even, directly from the float64 (no
//     double rounding through float32). Subnormals are kept.
//   - Overflow: f16 and bf16 go to ±infinity; the fp8 formats saturate, as
//     .satfinite does: a magnitude above the largest finite value (448 for
//     e4m3fn, 57344 for e5m2), ±infinity included, gives ±that value. e4m3fn
//     has no infinity: its exponent-all-ones patterns are finite except
//     S.1111.111, its only NaN.
//   - NaN encodes to the canonical NaN of the format, positive, all mantissa
//     bits set: 0x7fff (f16, bf16), 0x7f (e4m3fn, e5m2). Decoding any NaN
//     pattern gives math.NaN().
//   - The sign of zero is kept, underflow included (-1e-30 encodes to -0).
package floats

import (
	"fmt"
	"math"
)

// Format is a narrow binary floating-point format: one sign bit, then the
// exponent, then the mantissa (without its hidden bit).
type Format uint8

// The formats.
const (
	F16    Format = iota // IEEE 754 binary16: 5 exponent bits, 10 mantissa bits, bias 15
	BF16                 // bfloat16, the top half of a float32: 8 and 7 bits, bias 127
	E4M3FN               // fp8 e4m3fn: 4 and 3 bits, bias 7; no infinity, NaN is S.1111.111
	E5M2                 // fp8 e5m2: 5 and 2 bits, bias 15; IEEE-like (infinities, NaNs)
)

// Formats lists every format.
var Formats = []Format{F16, BF16, E4M3FN, E5M2}

type params struct {
	name       string
	ebits      int     // exponent field width
	man        int     // mantissa field width
	minExp     int     // exponent of the smallest normal (1 - bias)
	maxExp     int     // exponent of the largest finite value
	max        float64 // the largest finite value
	maxBits    uint16  // its bit pattern (positive)
	hasInf     bool    // exponent all ones and mantissa 0 is infinity
	saturate   bool    // overflow and ±inf give ±max (.satfinite) instead of ±inf
	nan        uint16  // the canonical NaN
	quietNaN   uint16  // exponent all ones, only the mantissa's top bit (e4m3fn: its one NaN)
	signBit    uint16  // the sign bit
	width      int     // total bits
	expAllOnes uint16  // the exponent field all ones, in place
	quantum    float64 // the subnormal quantum 2^(minExp-man)
}

var table = [...]params{
	F16: {name: "f16", ebits: 5, man: 10, minExp: -14, maxExp: 15, max: 65504, maxBits: 0x7bff,
		hasInf: true, nan: 0x7fff, quietNaN: 0x7e00},
	BF16: {name: "bf16", ebits: 8, man: 7, minExp: -126, maxExp: 127, max: 0x1.fep127, maxBits: 0x7f7f,
		hasInf: true, nan: 0x7fff, quietNaN: 0x7fc0},
	E4M3FN: {name: "e4m3fn", ebits: 4, man: 3, minExp: -6, maxExp: 8, max: 448, maxBits: 0x7e,
		saturate: true, nan: 0x7f, quietNaN: 0x7f},
	E5M2: {name: "e5m2", ebits: 5, man: 2, minExp: -14, maxExp: 15, max: 57344, maxBits: 0x7b,
		hasInf: true, saturate: true, nan: 0x7f, quietNaN: 0x7e},
}

func init() {
	for i := range table {
		p := &table[i]
		p.width = 1 + p.ebits + p.man
		p.signBit = 1 << (p.width - 1)
		p.expAllOnes = (1<<p.ebits - 1) << p.man
		p.quantum = math.Ldexp(1, p.minExp-p.man)
	}
}

func (f Format) p() *params {
	if int(f) >= len(table) {
		panic(fmt.Sprintf("floats: invalid format %d", uint8(f)))
	}
	return &table[f]
}

func (f Format) String() string {
	if int(f) < len(table) {
		return table[f].name
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Bits is the width of the format: 16 or 8. Patterns of 8-bit formats are
// the low byte of the uint16 that Encode returns and Decode takes.
func (f Format) Bits() int { return f.p().width }

// ExponentBits is the width of the exponent field.
func (f Format) ExponentBits() int { return f.p().ebits }

// MantissaBits is the width of the mantissa field (the hidden bit not
// counted).
func (f Format) MantissaBits() int { return f.p().man }

// Bias is the exponent bias.
func (f Format) Bias() int { return 1 - f.p().minExp }

// HasInf reports whether the format has infinities (all but e4m3fn).
func (f Format) HasInf() bool { return f.p().hasInf }

// Saturates reports the overflow rule: true (the fp8 formats) when overflow
// and ±infinity encode to ±MaxFinite, as PTX cvt .satfinite does; false
// (f16, bf16) when they encode to ±infinity.
func (f Format) Saturates() bool { return f.p().saturate }

// SignBit is the pattern of the sign bit.
func (f Format) SignBit() uint16 { return f.p().signBit }

// MaxFinite is the largest finite value of f: 65504 (f16), 0x1.fep127
// (bf16, about 3.39e38), 448 (e4m3fn), 57344 (e5m2).
func MaxFinite(f Format) float64 { return f.p().max }

// NaN is the canonical NaN of f, what Encode gives for any NaN: positive,
// every mantissa bit set (0x7fff, 0x7f).
func NaN(f Format) uint16 { return f.p().nan }

// QuietNaN is the NaN with the given sign whose mantissa has only its top
// bit set (0x7e00 f16, 0x7fc0 bf16, 0x7e e5m2; e4m3fn's one NaN, 0x7f): what
// a float64 NaN without payload becomes under IEEE 754's NaN propagation,
// as Go's float32(x) does. Encode gives NaN(f) instead, as the GPU does.
func QuietNaN(f Format, negative bool) uint16 {
	p := f.p()
	if negative {
		return p.signBit | p.quietNaN
	}
	return p.quietNaN
}

// Inf is the pattern of +infinity (false for e4m3fn, which has none).
// Encode never gives it for a saturating format; a caller storing values
// that came from patterns (an fp8 e5m2 buffer read from bytes) may.
func Inf(f Format) (uint16, bool) {
	p := f.p()
	return p.expAllOnes, p.hasInf
}

// Round returns x rounded to f, as a float64: Decode(f, Encode(f, x)),
// except that a NaN comes back unchanged.
func Round(f Format, x float64) float64 {
	p := f.p()
	u := math.Float64bits(x)
	if e := int(u>>52&0x7ff) - 1023; e >= p.minExp && e <= p.maxExp {
		// A normal of the format (before rounding): round the float64's
		// mantissa to p.man bits in place, ties to even. A carry out of the
		// mantissa increments the exponent, which is right.
		shift := uint(52 - p.man)
		u += 1<<(shift-1) - 1 + u>>shift&1
		u &^= 1<<shift - 1
		if r := math.Float64frombits(u); math.Abs(r) <= p.max {
			return r
		}
		return overflow(p, x)
	}
	switch {
	case math.IsNaN(x) || x == 0: // ±0 is itself
		return x
	case math.IsInf(x, 0):
		if p.saturate {
			return math.Copysign(p.max, x)
		}
		return x
	case math.Abs(x) > p.max: // beyond the format's exponent range
		return overflow(p, x)
	}
	// Below the smallest normal: multiples of the subnormal
	// quantum 2^(minExp-man). x/q is exact (a power-of-two scaling into
	// float64's normal range), and so is the product.
	q := p.quantum
	return math.Copysign(math.RoundToEven(x/q)*q, x)
}

// RoundSlice rounds every element of xs to f in place, as Round does one:
// the format's parameters are read once and a normal of the format is
// rounded in the loop, without a call (NaN and ±0 stay, the rest go
// through Round).
func RoundSlice(f Format, xs []float64) {
	p := f.p()
	lo, hi := uint64(p.minExp+1023), uint64(p.maxExp+1023)
	shift := uint(52 - p.man)
	half, low, top := uint64(1)<<(shift-1)-1, uint64(1)<<shift-1, p.max
	for k, x := range xs {
		u := math.Float64bits(x)
		if e := u >> 52 & 0x7ff; e >= lo && e <= hi {
			u += half + u>>shift&1
			u &^= low
			if r := math.Float64frombits(u); math.Abs(r) <= top {
				xs[k] = r
				continue
			}
		}
		if x != x || x == 0 {
			continue // NaN and ±0 stay as they are (Round returns them)
		}
		xs[k] = Round(f, x)
	}
}

// overflow is the value of x, whose rounded magnitude exceeds p.max.
func overflow(p *params, x float64) float64 {
	if p.saturate {
		return math.Copysign(p.max, x)
	}
	return math.Copysign(math.Inf(1), x)
}

// Encode rounds x to f (see the package comment for the rules) and returns
// its bit pattern; 8-bit formats use the low byte.
func Encode(f Format, x float64) uint16 {
	p := f.p()
	if math.IsNaN(x) {
		return p.nan
	}
	r := Round(f, x)
	u := math.Float64bits(r)
	if e := int(u>>52&0x7ff) - 1023; e >= p.minExp && e <= p.maxExp {
		// a normal of the format (the common case): the sign, the exponent
		// rebiased and the float64 mantissa's top man bits (the rest are 0
		// after Round), as the general path below computes them
		return uint16(u>>63)*p.signBit | uint16(e-p.minExp+1)<<p.man | uint16(u>>(52-p.man))&(1<<p.man-1)
	}
	var sign uint16
	if math.Signbit(r) {
		sign = p.signBit
		r = -r
	}
	switch {
	case math.IsInf(r, 0):
		return sign | p.expAllOnes
	case r < math.Ldexp(1, p.minExp): // subnormal or zero: a count of quanta
		return sign | uint16(math.Ldexp(r, p.man-p.minExp))
	}
	_, e := math.Frexp(r) // r = frac * 2^e, frac in [0.5, 1)
	e--                   // r = 1.m * 2^e
	m := uint16(math.Ldexp(r, p.man-e)) &^ (1 << p.man)
	return sign | uint16(e-p.minExp+1)<<p.man | m
}

// Decode is the value of bit pattern b of f (8-bit formats: the low byte;
// higher bits are ignored). Every NaN pattern gives math.NaN().
func Decode(f Format, b uint16) float64 {
	p := f.p()
	b &= p.signBit<<1 - 1
	sign := 1.0
	if b&p.signBit != 0 {
		sign = -1
	}
	ef := b & p.expAllOnes >> p.man
	mf := b & (1<<p.man - 1)
	switch {
	case b&p.expAllOnes == p.expAllOnes && p.hasInf:
		if mf == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	case b&^p.signBit == p.nan && !p.hasInf: // e4m3fn: S.1111.111
		return math.NaN()
	case ef == 0: // subnormal or zero
		return sign * math.Ldexp(float64(mf), p.minExp-p.man)
	}
	return sign * math.Ldexp(float64(mf|1<<p.man), int(ef)+p.minExp-1-p.man)
}

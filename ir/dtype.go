package ir

import (
	"math"
	"strings"

	"github.com/tlego/tle/floats"
)

// DType is a scalar element type. The zero value is Invalid.
type DType uint8

const (
	Invalid DType = iota
	I1
	I8
	I16
	I32
	I64
	U8
	U16
	U32
	U64
	F16
	BF16
	F32
	F64
	F8E4M3
	F8E5M2
)

var dtypeNames = [...]string{
	Invalid: "invalid", I1: "i1", I8: "i8", I16: "i16", I32: "i32", I64: "i64",
	U8: "u8", U16: "u16", U32: "u32", U64: "u64", F16: "f16", BF16: "bf16", F32: "f32",
	F64: "f64", F8E4M3: "f8e4m3", F8E5M2: "f8e5m2",
}

// AllDTypes lists every valid dtype, in declaration order.
var AllDTypes = []DType{I1, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, F8E4M3, F8E5M2}

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return "invalid"
}

// ParseDType maps a spelling (`f32`, `bf16`, ...) to its dtype.
func ParseDType(s string) (DType, bool) {
	for i, n := range dtypeNames {
		if n == s && i != 0 {
			return DType(i), true
		}
	}
	return Invalid, false
}

// IsFloat reports floating-point dtypes (fp8 included).
func (d DType) IsFloat() bool { return d >= F16 && d <= F8E5M2 }

// IsInt reports integer dtypes, i1 included.
func (d DType) IsInt() bool { return d >= I1 && d <= U64 }

// IsSigned reports signed integers (i1 counts as unsigned: it holds 0 or 1).
func (d DType) IsSigned() bool { return d >= I8 && d <= I64 }

// IsUnsigned reports u8..u64 and i1.
func (d DType) IsUnsigned() bool { return d == I1 || (d >= U8 && d <= U64) }

// Bits is the storage width in bits (i1 counts as 1).
func (d DType) Bits() int {
	switch d {
	case I1:
		return 1
	case I8, U8, F8E4M3, F8E5M2:
		return 8
	case I16, U16, F16, BF16:
		return 16
	case I32, U32, F32:
		return 32
	case I64, U64, F64:
		return 64
	}
	return 0
}

// Bytes is the storage size of one element in memory (i1 takes a byte).
func (d DType) Bytes() int {
	if d == I1 {
		return 1
	}
	return d.Bits() / 8
}

// FloatFormat is the floats format of a 16- or 8-bit float dtype (f16,
// bf16, f8e4m3, f8e5m2): the one codec that encodes, decodes and rounds
// them. ok is false for every other dtype.
func (d DType) FloatFormat() (f floats.Format, ok bool) {
	switch d {
	case F16:
		return floats.F16, true
	case BF16:
		return floats.BF16, true
	case F8E4M3:
		return floats.E4M3FN, true
	case F8E5M2:
		return floats.E5M2, true
	}
	return 0, false
}

// Round returns x converted to d and back to float64: round-to-nearest-even
// for floats (fp8 saturates to its largest finite value, as the GPU's
// cvt.rn.satfinite does: floats.Round; a NaN comes back unchanged),
// truncation toward zero and two's-complement wrap for integers (as a C
// cast), and 0 or 1 for i1 (non-zero is true).
func (d DType) Round(x float64) float64 {
	switch {
	case d == F64:
		return x
	case d == F32:
		if math.IsNaN(x) {
			return x
		}
		return float64(float32(x))
	case d.IsFloat():
		f, _ := d.FloatFormat()
		return floats.Round(f, x)
	case d == I1:
		if x != 0 && !math.IsNaN(x) {
			return 1
		}
		return 0
	case d.IsInt():
		return float64(d.WrapInt(TruncInt(x)))
	}
	return x
}

// HasFMA reports the dtypes fma is defined on: f16, bf16, f32 and f64, the
// floats the GPU has a fused multiply-add instruction of (fma.rn); the fp8
// formats have none.
func (d DType) HasFMA() bool { return d == F16 || d == BF16 || d == F32 || d == F64 }

// FMA is a*b + c computed exactly and rounded once to the float dtype d, as
// Round rounds (to nearest, ties to even; d's overflow rule): the one
// definition of fma, which the interpreter and constant folding call. a, b
// and c must be values of d.
//
// For f64 it is math.FMA. For a narrower d, a*b is exact in float64 (at most
// 2*24 significant bits, and a product of two f32 values neither overflows
// nor underflows float64), and so is the sum as s + e (Knuth's TwoSum: s is
// p + c rounded to float64, e the rounding error, exactly). Rounding s to
// float64 and then to d would round twice: a sum within half a float64 ulp
// of a tie of d, not on it, would become the tie and round to even, one ulp
// of d off the correctly rounded result. So s + e is rounded to odd at 53
// bits instead (s itself, or, when e is not zero and s is even, its
// neighbour toward e) and that is rounded to d: with two or more bits more
// than d (53 >= 24+2), rounding to odd and then to nearest gives the
// correctly rounded result of the exact value (Boldo and Melquiond, "When
// double rounding is odd", 2005), subnormal and overflowing results
// included.
func (d DType) FMA(a, b, c float64) float64 {
	if d == F64 {
		return math.FMA(a, b, c)
	}
	p := a * b
	s := p + c
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return d.Round(s) // an infinite operand or product: exact
	}
	// TwoSum: p + c == s + e exactly. s is 0 only when p + c is: p and c
	// are multiples of 2^-298, far above float64's subnormals.
	bb := s - p
	e := (p - (s - bb)) + (c - bb)
	if u := math.Float64bits(s); e != 0 && u&1 == 0 {
		// math.Nextafter(s, e's infinity): s is finite and not 0 (an
		// inexact sum is not 0), so one step of its bits toward e
		if (e > 0) == (s > 0) {
			u++
		} else {
			u--
		}
		s = math.Float64frombits(u)
	}
	if d == F32 {
		return float64(float32(s)) // d.Round(s): s is not NaN
	}
	return d.Round(s)
}

// TruncInt converts a float to int64 toward zero, saturating at the ends and
// mapping NaN to 0 (the rule every float-to-integer conversion follows).
func TruncInt(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// WrapInt reduces v to the value set of integer dtype d (two's complement).
func (d DType) WrapInt(v int64) int64 {
	switch d {
	case I1:
		return v & 1
	case I8:
		return int64(int8(v))
	case I16:
		return int64(int16(v))
	case I32:
		return int64(int32(v))
	case U8:
		return int64(uint8(v))
	case U16:
		return int64(uint16(v))
	case U32:
		return int64(uint32(v))
	}
	return v
}

// ParseDTypeList parses "f32,bf16" style lists; used by tools.
func ParseDTypeList(s string) ([]DType, bool) {
	var out []DType
	for _, p := range strings.Split(s, ",") {
		d, ok := ParseDType(strings.TrimSpace(p))
		if !ok {
			return nil, false
		}
		out = append(out, d)
	}
	return out, true
}

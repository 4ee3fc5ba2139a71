package floats

import "math"

// TF32 is NVIDIA's tensor-float-32: a float32 whose 13 low mantissa bits
// are zero (1 sign bit, the 8 exponent bits of float32, 10 mantissa bits).
// The tensor cores read f32 operands of a tf32 product this way. Unlike
// the formats above, it is not a storage format (a tf32 value lives in a
// 32-bit register), so it has no Format of its own: TF32Bits and RoundTF32
// are its codec.

// TF32MantissaBits is the width of tf32's mantissa field.
const TF32MantissaBits = 10

// tf32Drop is the mask of the float32 mantissa bits tf32 drops.
const tf32Drop = 1<<(23-TF32MantissaBits) - 1

// TF32Bits converts the float32 bit pattern b to tf32 exactly as PTX
// cvt.rna.tf32.f32 does on sm_80 and later (its SASS is integer
// arithmetic): when |b| is finite, the half unit of the dropped bits
// (0x1000) is added to the pattern, which rounds to nearest with ties away
// from zero, a carry moving into the exponent (the largest finite values
// round to infinity, subnormals round among subnormals or to the smallest
// normal); then the 13 low bits are cleared. An infinity stays itself and
// a NaN keeps its sign, exponent and top 10 mantissa bits: a NaN whose
// payload is only in the 13 low bits becomes an infinity, as on the GPU.
func TF32Bits(b uint32) uint32 {
	if b&0x7f800000 != 0x7f800000 { // finite
		b += 1 << (22 - TF32MantissaBits)
	}
	return b &^ tf32Drop
}

// RoundTF32 rounds x, a value exact in float32 (an f32 operand), to tf32
// as TF32Bits does; a NaN stays NaN (a float64 NaN carries no payload the
// interpreter keeps). A value that is not exact in float32 is rounded to
// float32 first.
func RoundTF32(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	return float64(math.Float32frombits(TF32Bits(math.Float32bits(float32(x)))))
}

// MaxTF32 is the largest finite tf32 value, (2 - 2^-10) * 2^127.
const MaxTF32 = 0x1.ffcp127

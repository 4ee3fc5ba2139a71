// Package philoxref is a plain-Go reference of the Philox4x32 and Philox4x64
// counter-based generators (Salmon, Moraes, Dror and Shaw, "Parallel Random
// Numbers: As Easy as 1, 2, 3", SC11; the Random123 library), and of the
// seed/offset mapping and float conversions of Triton's
// triton/language/random.py. It is written from the paper, independently
// of the compiler's lowering (frontend/lower/random.go), so that tests can
// hold the two against each other; its own test checks it against the
// Random123 known-answer vectors.
package philoxref

import (
	"math"
	"math/bits"
)

// The Philox constants of the paper (Random123's philox.h): the round
// multipliers M and the Weyl key increments W, for 32- and 64-bit words.
const (
	M4x32_0 uint32 = 0xD2511F53
	M4x32_1 uint32 = 0xCD9E8D57
	W32_0   uint32 = 0x9E3779B9
	W32_1   uint32 = 0xBB67AE85

	M4x64_0 uint64 = 0xD2E7470EE14C6C93
	M4x64_1 uint64 = 0xCA5A826395121157
	W64_0   uint64 = 0x9E3779B97F4A7C15
	W64_1   uint64 = 0xBB67AE8584CAA73B
)

// Philox4x32 runs rounds rounds of Philox4x32 on counter ctr with key key.
// A round is the paper's S-box: with (hi, lo) the 64-bit products
// M0*c0 and M1*c2, the new counter is (hi(M1*c2)^c1^k0, lo(M1*c2),
// hi(M0*c0)^c3^k1, lo(M0*c0)); the key is bumped by W after each round.
func Philox4x32(ctr [4]uint32, key [2]uint32, rounds int) [4]uint32 {
	for r := 0; r < rounds; r++ {
		p0 := uint64(M4x32_0) * uint64(ctr[0])
		p1 := uint64(M4x32_1) * uint64(ctr[2])
		ctr = [4]uint32{
			uint32(p1>>32) ^ ctr[1] ^ key[0],
			uint32(p1),
			uint32(p0>>32) ^ ctr[3] ^ key[1],
			uint32(p0),
		}
		key[0] += W32_0
		key[1] += W32_1
	}
	return ctr
}

// Philox4x64 is Philox4x32 on 64-bit words (128-bit products).
func Philox4x64(ctr [4]uint64, key [2]uint64, rounds int) [4]uint64 {
	for r := 0; r < rounds; r++ {
		h0, l0 := bits.Mul64(M4x64_0, ctr[0])
		h1, l1 := bits.Mul64(M4x64_1, ctr[2])
		ctr = [4]uint64{h1 ^ ctr[1] ^ key[0], l1, h0 ^ ctr[3] ^ key[1], l0}
		key[0] += W64_0
		key[1] += W64_1
	}
	return ctr
}

// Randint4x32 is Triton's randint4x(seed, offset) for a 32-bit offset:
// the seed, as a u64 (an i32 seed sign-extended), gives the key (low word,
// high word); the counter is (offset, 0, 0, 0).
func Randint4x32(seed int64, offset uint32, rounds int) [4]uint32 {
	s := uint64(seed)
	return Philox4x32([4]uint32{offset, 0, 0, 0}, [2]uint32{uint32(s), uint32(s >> 32)}, rounds)
}

// Randint4x64 is Triton's randint4x for a 64-bit offset: Philox4x64 with
// counter (offset, 0, 0, 0) and key (seed, 0).
func Randint4x64(seed int64, offset uint64, rounds int) [4]uint64 {
	return Philox4x64([4]uint64{offset, 0, 0, 0}, [2]uint64{uint64(seed), 0}, rounds)
}

// Uniform32 is Triton's uint_to_uniform_float of a 32-bit word: the word as
// an i32, negatives folded onto [0, 2^31-1] (-x-1), converted to f32 and
// multiplied in f32 by 4.6566127342e-10 (so 2^31-1 gives the largest f32
// below 1).
func Uniform32(x uint32) float32 {
	v := int32(x)
	if v < 0 {
		v = -v - 1
	}
	return float32(v) * float32(4.6566127342e-10)
}

// Uniform64 is uint_to_uniform_float of a 64-bit word: as Uniform32 with
// i64 and the scale 1.0842020432385337e-19 (rounded to f32).
func Uniform64(x uint64) float32 {
	v := int64(x)
	if v < 0 {
		v = -v - 1
	}
	return float32(v) * float32(1.0842020432385337e-19)
}

// Normal is Triton's pair_uniform_to_normal first result evaluated in
// float64 on the f32 uniforms: u1 clamped below at f32(1e-7),
// th = f32(2*pi)*u2 rounded to f32 (as the kernel computes it), then
// sqrt(-2 log u1) * cos(th) and * sin(th) exactly in float64.
func Normal(u1, u2 float32) (float64, float64) {
	u1 = max(float32(1e-7), u1)
	th := float32(6.283185307179586) * u2
	r := math.Sqrt(-2 * math.Log(float64(u1)))
	return r * math.Cos(float64(th)), r * math.Sin(float64(th))
}

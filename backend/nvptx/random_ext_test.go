package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const randomPTXSrc = `
kernel random_ptx(o *i32, q *i64, y *u32, z *u64, u *f32, seed i64) {
    offs := arange(0, 128)
    off := load(o + offs)
    a, b, c, d := randint4x(seed, off)
    store(y + offs, a ^ b ^ c ^ d)
    store(z + offs, randint(seed, load(q + offs), n_rounds: 7))
    store(u + offs, rand(seed, off) + rand(seed, load(q + offs)))
}

kernel randn_ptx(o *i32, u *f32, seed i64) {
    offs := arange(0, 128)
    a, b, c, d := randn4x(seed, load(o + offs))
    store(u + offs, randn(seed, load(o + offs)) + a + b + c + d)
}
`

// TestPTXRandom: Philox compiles through llc-19 to mul.hi and mul.lo of
// 32-bit words (10 rounds, two of each a round), of 64-bit words for an
// i64 offset (7 rounds), and the uniform conversion to cvt.rn.f32.s32
// and cvt.rn.f32.s64.
func TestPTXRandom(t *testing.T) {
	prog, err := tle.Parse("random.tle", []byte(randomPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "random_ptx", nil)
	t.Logf("PTX: %d bytes, %d mul.hi.u32, %d mul.hi.u64", len(b.PTX), countPTX(b.PTX, `mul\.hi\.u32`), countPTX(b.PTX, `mul\.hi\.u64`))
	wantPTX(t, b.PTX, 1, `cvt\.rn\.f32\.s32`, `cvt\.rn\.f32\.s64`, `xor\.b32`, `xor\.b64`)
	// every round's two high words survive (llc may merge a high and a
	// low half into one mul.wide, so count both spellings)
	if n := countPTX(b.PTX, `mul\.hi\.u32`) + countPTX(b.PTX, `mul\.wide\.u32`); n < 20 {
		t.Errorf("PTX has %d 32-bit high multiplies, want at least 20 (10 rounds x 2)", n)
	}
	if n := countPTX(b.PTX, `mul\.hi\.u64`); n < 14 {
		t.Errorf("PTX has %d mul.hi.u64, want at least 14 (7 rounds x 2)", n)
	}
}

// TestPTXRandn: randn and randn4x compile through llc-19: log is
// lg2.approx.f32, sqrt sqrt.rn.f32, cos and sin the f64 math library, with
// no call.
func TestPTXRandn(t *testing.T) {
	prog, err := tle.Parse("random.tle", []byte(randomPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "randn_ptx", nil)
	wantPTX(t, b.PTX, 1, `lg2\.approx\.f32`, `sqrt\.rn\.f32`, `fma\.rn\.f64`, `mul\.hi\.u32`, `cvt\.rn\.f32\.s32`)
	if countPTX(b.PTX, `\bcall`) != 0 {
		t.Errorf("PTX calls a function")
	}
}

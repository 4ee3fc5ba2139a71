package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const mathPTXSrc = `
kernel math_ptx(x *f32, d *f64, y *f32, e *f64, u *u32, v *u64, b *i1) {
    offs := arange(0, 256)
    a := load(x + offs)
    c := load(d + offs)
    store(y + offs, floor(a) + ceil(a) + trunc(a) + round(a) + sqrt_rn(a) + div_rn(a, a + 1.0) + clamp(a, -2.0, a * 3.0))
    store(e + offs, floor(c) + ceil(c) + trunc(c) + round(c))
    store(u + offs, umulhi(load(u + offs), load(u + offs + 256)))
    store(v + offs, umulhi(load(v + offs), load(v + offs + 256)))
    store(b + offs, isnan(a) | isinf(a))
}

kernel softmax_ptx(x *f32, y *f32) {
    r := arange(0, 16)
    c := arange(0, 32)
    offs := r[:, None] * 32 + c[None, :]
    store(y + offs, softmax(load(x + offs), dim: 1, ieee_rounding: true))
}
`

// TestPTXMath: the exact rounding functions are single cvt instructions in
// f32 and f64; round is trunc and a select; div_rn and sqrt_rn the IEEE
// instructions; umulhi mul.hi; clamp max then min; isnan an unordered
// compare; softmax's ieee_rounding a div.rn.
func TestPTXMath(t *testing.T) {
	prog, err := tle.Parse("math.tle", []byte(mathPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "math_ptx", nil).PTX
	wantPTX(t, ptx, 1,
		`cvt\.rmi\.f32\.f32 %f\d+, %f\d+;`,
		`cvt\.rpi\.f32\.f32 %f\d+, %f\d+;`,
		`cvt\.rzi\.f32\.f32 %f\d+, %f\d+;`,
		`cvt\.rmi\.f64\.f64 %fd\d+, %fd\d+;`,
		`cvt\.rpi\.f64\.f64 %fd\d+, %fd\d+;`,
		`cvt\.rzi\.f64\.f64 %fd\d+, %fd\d+;`,
		`sqrt\.rn\.f32 %f\d+, %f\d+;`,
		`div\.rn\.f32 %f\d+, %f\d+, %f\d+;`,
		`mul\.hi\.u32 %r\d+, %r\d+, %r\d+;`,
		`mul\.hi\.u64 %rd\d+, %rd\d+, %rd\d+;`,
		`max\.f32 %f\d+, %f\d+, 0fC0000000;`,
		`min\.f32 %f\d+, %f\d+, %f\d+;`,
		`setp\.nan\.f32 %p\d+, %f\d+, %f\d+;`,
	)
	if n := countPTX(ptx, `div\.full\.f32`); n != 0 {
		t.Errorf("%d div.full.f32, want none (div_rn is IEEE)", n)
	}
	sm := compileTLE(t, prog, "softmax_ptx", nil).PTX
	wantPTX(t, sm, 1, `div\.rn\.f32 %f\d+, %f\d+, %f\d+;`, `ex2\.approx\.ftz\.f32`, `max\.f32`)
}

const atomicBitsPTXSrc = `
kernel atomic_bits_ptx(p *i32, q *u64, x *i32) {
    offs := arange(0, 128)
    v := load(x + offs)
    store(x + offs, atomic_and(p + offs, v) + atomic_or(p + offs, v) + atomic_xor(p + offs, v))
    store(q + offs, atomic_xor(q + offs, cast(v, u64)) | atomic_and(q + offs, cast(v, u64)) | atomic_or(q + offs, cast(v, u64)))
}
`

// TestPTXAtomicBitwise: atomic_and / _or / _xor are atom.global.and / or /
// xor of .b32 and .b64, with Triton's default order (.acq_rel.gpu) as the
// other atomics (TestPTXAtomicSem).
func TestPTXAtomicBitwise(t *testing.T) {
	prog, err := tle.Parse("atomic.tle", []byte(atomicBitsPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "atomic_bits_ptx", nil).PTX
	for _, op := range []string{"and", "or", "xor"} {
		wantPTX(t, ptx, 1, `atom\.acq_rel\.gpu\.global\.`+op+`\.b32 %r\d+, \[%rd\d+\], %r\d+;`, `atom\.acq_rel\.gpu\.global\.`+op+`\.b64 %rd\d+, \[%rd\d+\], %rd\d+;`)
	}
}

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

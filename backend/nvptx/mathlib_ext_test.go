package nvptx_test

import (
	"regexp"
	"testing"

	"github.com/tlego/tle/tle"
)

const mathLibPTXSrc = `
kernel mathlib_ptx(x *f32, z *f32, y *f32, b *bf16, h *f16, d *f64) {
    offs := arange(0, 128)
    a := load(x + offs)
    c := load(z + offs)
    store(y + offs, sin(a) + cos(a) + tan(a) + asin(a) + acos(a) + atan(a) + atan2(a, c) + sinh(a) + cosh(a) + log1p(a) + expm1(a) + pow(a, c))
    bb := load(b + offs)
    store(b + offs, sin(bb) + pow(bb, 2.0) + atan2(bb, bb))
    hh := load(h + offs)
    store(h + offs, cos(hh) + log1p(hh))
    dd := load(d + offs)
    store(d + offs, tan(dd) + pow(dd, dd) + expm1(dd))
}
`

// TestPTXMathLib: every function of the math library, on f32, bf16, f16 and
// f64 tiles, compiles through llc-19 to f64 arithmetic (fma.rn.f64,
// div.rn.f64, sqrt.rn.f64, cvt.rni.f64.f64), the Payne-Hanek reduction's
// table load and 64-bit multiplies, with no call to any function (no
// libdevice).
func TestPTXMathLib(t *testing.T) {
	prog, err := tle.Parse("mathlib.tle", []byte(mathLibPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "mathlib_ptx", nil)
	t.Logf("PTX: %d bytes, %d fma.rn.f64, %d ld.global", len(b.PTX), countPTX(b.PTX, `fma\.rn\.f64`), countPTX(b.PTX, `ld\.global`))
	wantPTX(t, b.PTX, 1,
		`fma\.rn\.f64 %fd\d+, %fd\d+, %fd\d+, %fd\d+;`,
		`div\.rn\.f64`,
		`sqrt\.rn\.f64`,
		`cvt\.rni\.f64\.f64`,
		`mul\.lo\.s64`,
		`ld\.global\.nc\.u32|ld\.global\.u32`,
		`cvt\.rn\.f32\.f64`,
		`\.global \.align 4 \.b8 tle_inv_pio4\[96\]`,
	)
	if regexp.MustCompile(`\bcall|\.extern\s+\.func`).MatchString(b.PTX) {
		t.Errorf("PTX calls a function")
	}
}

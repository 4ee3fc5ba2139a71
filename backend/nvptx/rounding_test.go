package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const roundingPTXSrc = `
kernel rz(x *X, y *Y, n *Y, X const dtype, Y const dtype) {
    offs := program_id(0) * 512 + arange(0, 512)
    v := load(x + offs)
    store(y + offs, v.to(Y, fp_downcast_rounding: "rtz"))
    store(n + offs, cast(v, Y, fp_downcast_rounding: "rtne"))
}
`

// TestPTXRoundingRTZ: fp_downcast_rounding: "rtz" is cvt.rz (an f64
// through cvt.rz.f32.f64 first), "rtne" the ordinary conversion to
// nearest (cvt.rn, paired for f16 and bf16): no more cvt.rz than the
// "rtz" store needs.
func TestPTXRoundingRTZ(t *testing.T) {
	prog, err := tle.Parse("rounding.tle", []byte(roundingPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x, y string
		want []string
	}{
		{"f32", "f16", []string{`cvt\.rz\.f16\.f32`, `cvt\.rn\.f16(x2)?\.f32`}},
		{"f32", "bf16", []string{`cvt\.rz\.bf16\.f32`, `cvt\.rn\.bf16(x2)?\.f32`}},
		{"f64", "f32", []string{`cvt\.rz\.f32\.f64`, `cvt\.rn\.f32\.f64`}},
		{"f64", "f16", []string{`cvt\.rz\.f32\.f64`, `cvt\.rz\.f16\.f32`, `cvt\.rn\.f16(x2)?\.f32`}},
	} {
		b := compileTLE(t, prog, "rz", map[string]string{"X": c.x, "Y": c.y})
		wantPTX(t, b.PTX, 1, c.want...)
		// 512 elements over 128 threads: 4 conversions each way
		if n := countPTX(b.PTX, `cvt\.rz\.`+map[string]string{"f16": "f16", "bf16": "bf16", "f32": "f32"}[c.y]+`\.`); n != 4 {
			t.Errorf("%s to %s: %d cvt.rz to %s, want 4 (one per element of the rtz store):\n%s", c.x, c.y, n, c.y, b.PTX)
		}
	}
}

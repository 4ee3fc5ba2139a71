package nvptx_test

import (
	"regexp"
	"testing"

	"github.com/tlego/tle/tle"
)

const bitcastPTXSrc = `
kernel bitcast_f32(x *f32, y *i32, z *f64, w *i64) {
    offs := program_id(0) * 512 + arange(0, 512)
    store(y + offs, load(x + offs).to(i32, bitcast: true))
    store(z + offs, cast(load(w + offs), f64, bitcast: true))
}

kernel bitcast_narrow(x *f16, y *u16, z *i8, w *f8e4m3) {
    offs := program_id(0) * 512 + arange(0, 512)
    store(y + offs, load(x + offs).to(u16, bitcast: true))
    store(w + offs, cast(load(z + offs), f8e4m3, bitcast: true))
}
`

// TestPTXBitcast: cast(bitcast: true) is LLVM's bitcast between f32 and
// i32 (f64 and i64), which llc-19 compiles; f16 and fp8, held as integers
// of their width, move their registers unchanged: no conversion at all
// (the pointer bitcasts of the typed-pointer IR stay).
func TestPTXBitcast(t *testing.T) {
	prog, err := tle.Parse("bitcast.tle", []byte(bitcastPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	k := compileTLE(t, prog, "bitcast_f32", nil)
	for _, re := range []string{`bitcast float %\S+ to i32`, `bitcast i64 %\S+ to double`} {
		if !regexp.MustCompile(re).MatchString(k.LLVMIR) {
			t.Errorf("bitcast_f32: no %q in the LLVM IR:\n%s", re, k.LLVMIR)
		}
	}
	if regexp.MustCompile(`cvt\.\S*(f16|f32|f64|bf16|e4m3|e5m2)`).MatchString(k.PTX) {
		t.Errorf("bitcast_f32: a conversion in the PTX:\n%s", k.PTX)
	}
	wantPTX(t, k.PTX, 1, `ld\.global(\.v\d)?\.f32 `, `ld\.global(\.v\d)?\.u64 `)
	n := compileTLE(t, prog, "bitcast_narrow", nil)
	if regexp.MustCompile(`fpext|fptrunc|asm|half`).MatchString(n.LLVMIR) {
		t.Errorf("bitcast_narrow: a conversion in the LLVM IR:\n%s", n.LLVMIR)
	}
	if regexp.MustCompile(`cvt\.\S*(f16|f32|f64|bf16|e4m3|e5m2)`).MatchString(n.PTX) {
		t.Errorf("bitcast_narrow: a conversion in the PTX:\n%s", n.PTX)
	}
}

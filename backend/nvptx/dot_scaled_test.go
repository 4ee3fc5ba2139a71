package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const dotScaledPTXSrc = `
kernel mx_bf16(a *u8, as *u8, b *f8e4m3, bs *u8, c *f32) {
    m := arange(0, 64)
    n := arange(0, 32)
    k := arange(0, 64)
    g := arange(0, 2)
    x := load(a + m[:, None]*32 + arange(0, 32)[None, :])
    xs := load(as + m[:, None]*2 + g[None, :])
    y := load(b + k[:, None]*32 + n[None, :])
    ys := load(bs + n[:, None]*2 + g[None, :])
    store(c + m[:, None]*32 + n[None, :], dot_scaled(x, xs, "e2m1", y, ys, "e4m3"))
}

kernel mx_f16_fast(a *u8, as *u8, b *f16, bs *u8, c *f32) {
    m := arange(0, 64)
    n := arange(0, 32)
    k := arange(0, 64)
    g := arange(0, 2)
    x := load(a + m[:, None]*32 + arange(0, 32)[None, :])
    xs := load(as + m[:, None]*2 + g[None, :])
    y := load(b + k[:, None]*32 + n[None, :])
    ys := load(bs + n[:, None]*2 + g[None, :])
    store(c + m[:, None]*32 + n[None, :], dot_scaled(x, xs, "e2m1", y, ys, "fp16", fast_math: true))
}
`

// TestPTXDotScaled: dot_scaled is lowered to ordinary IR ops, so the PTX is
// the upcasts and a dot on the operands computed in registers: bf16
// mma.sync (f16 with an fp16 operand), never wgmma (its b operand is not
// loaded from global memory); the fp8 operand widened by cvt.rn.f16x2.e4m3x2;
// the scales built from their bits (2^-127 as the f32 subnormal 0x00400000,
// 4194304) with the NaN 0x7fc00000 (2143289344) for a 0xFF byte, which
// fast_math: true leaves out; f16 compute rounds the f32 scale to f16.
func TestPTXDotScaled(t *testing.T) {
	prog, err := tle.Parse("dot_scaled.tle", []byte(dotScaledPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "mx_bf16", nil)
	wantPTX(t, b.PTX, 1, `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32`, `cvt\.rn\.f16x2\.e4m3x2`,
		`cvt\.rn\.bf16(x2)?\.f32`, `\b4194304\b`, `\b2143289344\b`)
	if n := countPTX(b.PTX, `wgmma`); n != 0 {
		t.Errorf("mx_bf16: %d wgmma instructions, want the mma.sync path", n)
	}
	f := compileTLE(t, prog, "mx_f16_fast", nil)
	wantPTX(t, f.PTX, 1, `mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32`, `cvt\.rn\.f16\.f32`, `\b4194304\b`)
	if n := countPTX(f.PTX, `\b2143289344\b`); n != 0 {
		t.Errorf("mx_f16_fast: fast_math: true still builds the NaN scale (%d times)", n)
	}
	if n := countPTX(f.PTX, `mma\.sync\.\S*bf16`); n != 0 {
		t.Errorf("mx_f16_fast: %d bf16 products, want f16 with an fp16 operand", n)
	}
}

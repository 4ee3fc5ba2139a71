package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const argPTXSrc = `
kernel arg_ptx(x *f32, y *i32, ix *i32, iy *i32, vx *f32, ks *f32) {
    r := arange(0, 32)
    c := arange(0, 128)
    t := load(x + r[:, None]*128 + c[None, :])
    u := load(y + r[:, None]*128 + c[None, :])
    store(ix + r, argmax(t, axis: 1))
    store(iy + c, argmin(u, axis: 0, tie_break_left: false))
    v, i := max(t, axis: 0, return_indices: true)
    store(vx + c, v)
    store(ix + 32 + c, i)
    store(ks + r[:, None], sum(t, axis: 1, keep_dims: true))
    store(iy + 128, argmax(t))
}
`

// TestPTXArgReductions: argmax/argmin (both tie-breaks, along either axis
// and flattened), max with return_indices and sum with keep_dims compile
// through llc-19: float max by max.f32 (NaNs ignored), the all-NaN test by setp.nan, index picks
// by min.s32/max.s32, butterfly shuffles across lanes and shared
// memory across warps.
func TestPTXArgReductions(t *testing.T) {
	prog, err := tle.Parse("arg.tle", []byte(argPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "arg_ptx", nil)
	wantPTX(t, b.PTX, 1,
		`max\.f32`,
		`shfl\.sync\.bfly\.b32`,
		`setp\.eq\.f32`,
		`setp\.nan\.f32`,
		`min\.s32`,
		`max\.s32`,
		`st\.shared`,
		`ld\.shared`,
	)
}

const cumprodPTXSrc = `
kernel cumprod_ptx(x *f32, y *i32) {
    r := arange(0, 8)
    c := arange(0, 256)
    t := load(x + r[:, None]*256 + c[None, :])
    store(x + r[:, None]*256 + c[None, :], cumprod(t, axis: 1))
    u := load(y + r[:, None]*256 + c[None, :])
    store(y + r[:, None]*256 + c[None, :], cumprod(u, axis: 1, reverse: true))
}
`

// TestPTXCumprod: cumprod compiles through llc-19 to products (mul.rn.f32,
// mul.lo.s32) combined across lanes by shfl.up (shfl.down reversed) with no
// division, and across warps through shared memory.
func TestPTXCumprod(t *testing.T) {
	prog, err := tle.Parse("cumprod.tle", []byte(cumprodPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "cumprod_ptx", nil)
	wantPTX(t, b.PTX, 1, `mul\.rn\.f32`, `mul\.lo\.s32`, `shfl\.sync\.up\.b32`, `shfl\.sync\.down\.b32`, `st\.shared`, `ld\.shared`)
	if countPTX(b.PTX, `div\.`) > 0 {
		t.Errorf("PTX divides")
	}
}

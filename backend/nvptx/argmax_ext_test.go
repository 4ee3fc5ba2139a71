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

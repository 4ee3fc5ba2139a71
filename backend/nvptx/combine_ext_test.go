package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const reduceCombinePTXSrc = `
func bor(a i32, b i32) i32 {
    return a | b
}

func mul(a f32, b f32) f32 {
    return a * b
}

kernel reduce_combine_ptx(x *f32, y *i32) {
    r := arange(0, 8)
    c := arange(0, 256)
    t := load(x + r[:, None]*256 + c[None, :])
    store(x + r, reduce(t, 1, mul))
    u := load(y + r[:, None]*256 + c[None, :])
    store(y + c, reduce(u, 0, bor))
    store(y + 256, reduce(u, combine: bor))
}
`

// TestPTXReduceCombine: reduce with helper combines compiles through
// llc-19: the helper's body (or.b32, mul.rn.f32) at every step of the
// butterfly shuffles across lanes and of the shared-memory step across
// warps.
func TestPTXReduceCombine(t *testing.T) {
	prog, err := tle.Parse("combine.tle", []byte(reduceCombinePTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "reduce_combine_ptx", nil)
	wantPTX(t, b.PTX, 1, `or\.b32`, `mul\.rn\.f32`, `shfl\.sync\.bfly\.b32`, `st\.shared`, `ld\.shared`)
}

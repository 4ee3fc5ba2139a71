package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const reduceBitsPTXSrc = `
kernel reduce_bits_ptx(y *i32, ors *i32, xors *i32, hs *bf16, hf *f32) {
    r := arange(0, 32)
    c := arange(0, 128)
    t := load(y + r[:, None]*128 + c[None, :])
    store(ors + r, reduce_or(t, axis: 1))
    store(xors + c, xor_sum(t, axis: 0))
    store(hf + r, sum(load(hs + r[:, None]*128 + c[None, :]), axis: 1, dtype: f32))
}
`

// TestPTXReduceBits: reduce_or and xor_sum combine with or.b32 / xor.b32
// in registers, across lanes by butterfly shuffles and across warps
// through shared memory; sum(bf16, dtype: f32) converts first and adds
// in f32.
func TestPTXReduceBits(t *testing.T) {
	prog, err := tle.Parse("reduce_bits.tle", []byte(reduceBitsPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "reduce_bits_ptx", nil)
	wantPTX(t, b.PTX, 1,
		`or\.b32`,
		`xor\.b32`,
		`shfl\.sync\.bfly\.b32`,
		`st\.shared`,
		`ld\.shared`,
		`add(\.rn)?\.f32`,
	)
}

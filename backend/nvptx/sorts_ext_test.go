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

const sortPTXSrc = `
kernel sort_warp(x *f32, y *f32) {
    r := arange(0, 4)
    c := arange(0, 32)
    o := r[:, None]*32 + c[None, :]
    store(y + o, sort(load(x + o), descending: true))
}
kernel sort_cta(x *i32, y *i32, t *i32) {
    c := arange(0, 1024)
    v := load(x + c)
    store(y + c, sort(v))
    store(t + arange(0, 8), topk(v, 8))
}
kernel gather_ptx(x *f32, i *i32, y *f32) {
    r := arange(0, 16)
    c := arange(0, 64)
    o := r[:, None]*64 + c[None, :]
    store(y + o, gather(load(x + o), load(i + o), 1))
}
kernel hist_ptx(x *i32, h *i32) {
    store(h + arange(0, 16), histogram(load(x + arange(0, 256)), 16, mask: load(x + arange(0, 256)) != 3))
}
`

// TestPTXSort: a sort whose rows lie within a warp exchanges only by
// shfl.sync.bfly and register renaming (no shared memory, no barrier),
// comparing with setp.gt and the NaN tests (setp.nan / setp.num); one over
// a whole 4-warp CTA also crosses warps through shared memory with
// barriers; topk ends in a gather through shared memory.
func TestPTXSort(t *testing.T) {
	prog, err := tle.Parse("sort.tle", []byte(sortPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "sort_warp", nil)
	wantPTX(t, b.PTX, 15, `shfl\.sync\.bfly\.b32`)
	wantPTX(t, b.PTX, 1, `setp\.gt\.f32`, `setp\.(nan|num)\.f32`)
	for _, p := range []string{`st\.shared`, `ld\.shared`, `bar\.sync`} {
		if n := countPTX(b.PTX, p); n != 0 {
			t.Errorf("sort within a warp: %d matches of %q, want none", n, p)
		}
	}
	b = compileTLE(t, prog, "sort_cta", nil)
	wantPTX(t, b.PTX, 1, `shfl\.sync\.bfly\.b32`, `setp\.gt\.s32`, `st\.shared`, `ld\.shared`, `bar\.sync`)
}

// TestPTXGatherHistogram: gather writes its source to shared memory and
// reads each index's element back (an unsigned range test keeps the read
// inside); histogram adds into a shared buffer by relaxed CTA-scope
// atomics and reads it back.
func TestPTXGatherHistogram(t *testing.T) {
	prog, err := tle.Parse("sort.tle", []byte(sortPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "gather_ptx", nil)
	wantPTX(t, b.PTX, 1, `st\.shared`, `ld\.shared`, `bar\.sync`, `setp\.lt\.u64`)
	b = compileTLE(t, prog, "hist_ptx", nil)
	wantPTX(t, b.PTX, 1, `atom\.relaxed\.cta\.shared\.add\.u32`, `st\.shared`, `ld\.shared`, `bar\.sync`)
}

package nvptx_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestShufflePTX: wgmma_e4m3_chain's fp8 P, computed by one wgmma and fed
// to the next as register a, converts with one shfl.sync.idx a register
// of a (8 a thread at N = 64) and prmt.b32, through no shared memory and
// no barrier.
func TestShufflePTX(t *testing.T) {
	b := tutorial(t, "wgmma_fp8_chain.tle", "wgmma_e4m3_chain", map[string]string{"N": "64", "K": "64"})
	require := func(ok bool, msg string) {
		t.Helper()
		if !ok {
			t.Fatalf("%s\n%s", msg, b.PTX)
		}
	}
	// from the first product's wait to the second product
	first := strings.Index(b.PTX, "wgmma.wait_group.sync.aligned 0;")
	require(first >= 0, "no wgmma wait")
	second := strings.Index(b.PTX[first:], "wgmma.mma_async")
	require(second >= 0, "no second wgmma")
	conv := b.PTX[first : first+second]
	n := len(regexp.MustCompile(`shfl\.sync\.idx\.b32\s+%r\d+, %r\d+, %r\d+, 31, -1;`).FindAllString(conv, -1))
	require(n == 8, fmt.Sprintf("want 8 shfl.sync.idx between the products, got %d", n))
	require(len(regexp.MustCompile(`prmt\.b32\s+%r\d+, %r\d+, %r\d+, %r\d+;`).FindAllString(conv, -1)) >= 8, "want the lanes' prmt.b32")
	for _, op := range []string{"bar.sync", "barrier.sync", "st.shared", "ld.shared"} {
		require(!strings.Contains(conv, op), "no "+op+" between the products")
	}
	// the cast packs its register pairs (32 f32 a thread, 16 conversions)
	// and four bytes are one prmt of two conversions' words: no shifts
	// and ors to build the words the lanes send
	n = strings.Count(conv, "cvt.rn.satfinite.e4m3x2.f32")
	require(n == 16, fmt.Sprintf("want 16 packed e4m3x2 conversions, got %d", n))
	require(!strings.Contains(conv, "shl.b32"), "no byte packing by shifts")
}

// TestWordCarriedPhis: a loop (and an if) carries an 8-bit tile as i32
// words, four bytes each, not a phi per byte: 16 registers a thread of a
// [16, 128] e4m3 tile over 4 warps are 4 phis of i32 at the loop head and
// at the if's join, none of i8.
func TestWordCarriedPhis(t *testing.T) {
	res := emitTLE(t, `kernel k(x *f32, o *f32, n i32) {
    off := arange(0, 16)[:, None]*128 + arange(0, 128)[None, :]
    p := load(x + off).to(f8e4m3)
    for i := range n {
        p = (p.to(f32) * load(x + off + i)).to(f8e4m3)
    }
    if n > 3 {
        p = (p.to(f32) * 2.0).to(f8e4m3)
    }
    store(o + off, p.to(f32))
}`)
	ll := res.LLVMIR
	// pointers to 8-bit data stay pointers through the phis
	for _, src := range []string{`kernel k(x *f8e4m3, o *f32, n i32) {
    off := arange(0, 16)[:, None]*128 + arange(0, 128)[None, :]
    p := x + off
    acc := zeros([16, 128], f32)
    for i := range n {
        acc = acc + load(p).to(f32)
        p = p + 2048
    }
    store(o + off, acc)
}`, `kernel k(x *u8, o *u8, n i32) {
    off := arange(0, 16)[:, None]*128 + arange(0, 128)[None, :]
    p := x + off
    if n > 3 {
        p = p + 2048
    }
    store(o + off, load(p))
}`} {
		if _, err := emitTLEErr(t, src); err != nil {
			t.Fatalf("a pointer tile to 8-bit data through a phi: %v", err)
		}
	}
	if c := strings.Count(ll, "phi i8"); c != 0 {
		t.Fatalf("%d phis of i8:\n%s", c, ll)
	}
	if c := strings.Count(ll, "phi i32"); c < 8 {
		t.Fatalf("want 4 word phis at the loop head and 4 at the join, got %d phis of i32:\n%s", c, ll)
	}
}

// TestSlotRanges: a slot at a computed index, and a pointer from
// local_ptr, lie in their alloc's bytes: reading a slot of b (and an entry
// of tab through a pointer) and then writing a slot of a needs no barrier
// between them, only the one at the loop's head (whose state is not
// known).
func TestSlotRanges(t *testing.T) {
	res := emitTLE(t, `kernel k(o *f32, n i32) {
    r := arange(0, 32)
    a := alloc([2, 32, 32], f32)
    b := alloc([2, 32, 32], f32, init: zeros([2, 32, 32], f32))
    tab := alloc([4], i32, init: arange(0, 4))
    for i := range n {
        j := load(local_ptr(tab, i % 4))
        store(a.slot(i % 2), load(b.slot(j % 2)) + 1.0)
    }
    store(o + r[:, None]*32 + r[None, :], load(a.slot(1)))
}`)
	loop := res.LLVMIR[strings.Index(res.LLVMIR, "phi i32"):]
	loop = loop[:strings.Index(loop, "br label")]
	if c := strings.Count(loop, "@llvm.nvvm.barrier0"); c != 1 {
		t.Fatalf("want the loop head's barrier alone in the body, got %d:\n%s", c, loop)
	}
}

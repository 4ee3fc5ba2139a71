package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

// hintsPTXSrc loads through a pointer the axis analysis knows nothing of
// (from a pointer table) and at offsets of a runtime stride, each with and
// without the hints that make the access vectorisable.
const hintsPTXSrc = `
kernel table_plain(t *i64, out *f32, BLOCK const i32) {
    offs := arange(0, BLOCK)
    p := load(t).to(*f32)
    store(out + offs, load(p + offs))
}
kernel table_hinted(t *i64, out *f32, BLOCK const i32) {
    offs := arange(0, BLOCK)
    p := multiple_of(load(t).to(*f32), 16)
    store(out + offs, load(p + offs))
}
kernel offs_plain(x *f32, out *f32, s i32, BLOCK const i32) {
    offs := program_id(0) * s + arange(0, BLOCK)
    store(out + arange(0, BLOCK), load(x + offs))
}
kernel offs_hinted(x *f32, out *f32, s i32, BLOCK const i32) {
    offs := max_contiguous(multiple_of(program_id(0) * s + arange(0, BLOCK), 16), BLOCK)
    store(out + arange(0, BLOCK), load(x + offs))
}
kernel loop_plain(x *f32, out *f32, s i32, n i32, BLOCK const i32) {
    acc := zeros([BLOCK], f32)
    for i := 0; i < n; i += s {
        acc += load(x + i + arange(0, BLOCK))
    }
    store(out + arange(0, BLOCK), acc)
}
kernel loop_assumed(x *f32, out *f32, s i32, n i32, BLOCK const i32) {
    acc := zeros([BLOCK], f32)
    for i := 0; i < n; i += s {
        assume(i % 16 == 0)
        acc += load(x + i + arange(0, BLOCK))
    }
    store(out + arange(0, BLOCK), acc)
}
kernel if_assumed(x *f32, out *f32, s i32, m i32, BLOCK const i32) {
    if m > 0 {
        assume(s % 16 == 0)
    }
    offs := program_id(0) * s + arange(0, BLOCK)
    store(out + arange(0, BLOCK), load(x + offs))
}
kernel loop_outer_assumed(x *f32, out *f32, s i32, n i32, BLOCK const i32) {
    for i := 0; i < n; i += 1 {
        assume(s % 16 == 0)
    }
    offs := program_id(0) * s + arange(0, BLOCK)
    store(out + arange(0, BLOCK), load(x + offs))
}
kernel offs_assumed(x *f32, out *f32, s i32, BLOCK const i32) {
    assume(s % 16 == 0)
    assume(s > 0)
    offs := program_id(0) * s + arange(0, BLOCK)
    store(out + arange(0, BLOCK), load(x + offs))
}
`

// TestPTXHints: multiple_of / max_contiguous on a pointer or its offsets,
// and assume(s % 16 == 0) on a scalar parameter (or a loop's induction
// variable), give the axis analysis what it would prove itself (or get
// from Div16): the loads become 16-byte ld.global.v4; without them the
// same loads are one element each, as they stay where the assume may not
// run.
func TestPTXHints(t *testing.T) {
	prog, err := tle.Parse("hints.tle", []byte(hintsPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{"BLOCK": "1024"}
	for _, c := range []struct {
		kernel string
		vector bool
	}{
		{"table_plain", false}, {"table_hinted", true},
		{"offs_plain", false}, {"offs_hinted", true}, {"offs_assumed", true},
		{"loop_plain", false}, {"loop_assumed", true}, // assume on a loop's induction variable
		// an assume that a run may skip says nothing: inside an if, or in a
		// loop (which may run no iteration) of a value from outside it
		{"if_assumed", false}, {"loop_outer_assumed", false},
	} {
		b := compileTLE(t, prog, c.kernel, defs)
		vec, scalar := countPTX(b.PTX, `ld\.global\.v4\.(f32|b32|u32) `), countPTX(b.PTX, `ld\.global\.(f32|b32|u32) `)
		if c.vector && (vec == 0 || scalar != 0) {
			t.Errorf("%s: %d ld.global.v4 and %d scalar f32 loads, want only v4:\n%s", c.kernel, vec, scalar, b.PTX)
		}
		if !c.vector && (vec != 0 || scalar == 0) {
			t.Errorf("%s: %d ld.global.v4 and %d scalar f32 loads, want only scalar:\n%s", c.kernel, vec, scalar, b.PTX)
		}
	}
}

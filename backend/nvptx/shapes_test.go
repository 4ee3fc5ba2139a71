package nvptx_test

import (
	"regexp"
	"testing"

	"github.com/tlego/tle/tle"
)

const shapesPTXSrc = `
kernel join_split(x *T, y *T, out *T, T const dtype) {
    r := arange(0, 16)
    c := arange(0, 64)
    o := r[:, None]*64 + c[None, :]
    s0, s1 := split(join(load(x + o), load(y + o)))
    store(out + o, s0 - s1)
}

kernel cat_regs(x *T, y *T, out *T, T const dtype) {
    r := arange(0, 16)
    c := arange(0, 64)
    o := r[:, None]*64 + c[None, :]
    store(out + arange(0, 32)[:, None]*64 + c[None, :], cat(load(x + o), load(y + o), can_reorder: true))
}

kernel split_loaded(x *f32, out *f32) {
    r := arange(0, 16)
    h := arange(0, 32)
    p := arange(0, 2)
    s0, s1 := split(load(x + (r[:, None, None]*64 + h[None, :, None]*2 + p[None, None, :])))
    store(out + r[:, None]*32 + h[None, :], s0 + s1)
}

kernel split_spread(x *f32, out *f32) {
    r := arange(0, 16)
    c := arange(0, 64)
    s0, s1 := split(reshape(load(x + r[:, None]*64 + c[None, :]), [16, 32, 2]))
    store(out + r[:, None]*32 + arange(0, 32)[None, :], s0 + s1)
}

kernel split_scalars(x *T, out *T, T const dtype) {
    a, b := split(load(x + arange(0, 2)))
    store(out, b)
    store(out + 1, a)
}

kernel flip_regs(x *f32, out *f32) {
    r := arange(0, 128)
    c := arange(0, 4)
    o := r[:, None]*4 + c[None, :]
    store(out + o, flip(load(x + o)))
}

kernel flip_lanes(x *T, out *T, T const dtype) {
    r := arange(0, 16)
    c := arange(0, 64)
    o := r[:, None]*64 + c[None, :]
    store(out + o, flip(load(x + o), dim: 1))
}

kernel slice_regs(x *T, out *T, T const dtype) {
    r := arange(0, 128)
    c := arange(0, 4)
    t := load(x + r[:, None]*4 + c[None, :])
    store(out + r[:, None]*2 + arange(0, 2)[None, :], t[:, 2:])
}

kernel slice_lanes(x *f32, out *f32) {
    r := arange(0, 16)
    c := arange(0, 64)
    t := load(x + r[:, None]*64 + c[None, :])
    store(out + r[:, None]*32 + arange(0, 32)[None, :], t[:, 32:64])
}

kernel flip_warps(x *f32, out *f32) {
    r := arange(0, 16)
    c := arange(0, 64)
    o := r[:, None]*64 + c[None, :]
    store(out + o, flip(load(x + o), 0))
}
`

var (
	reShared = regexp.MustCompile(`(st|ld)\.shared`)
	reBar    = regexp.MustCompile(`bar\.sync`)
	reShfl   = regexp.MustCompile(`shfl\.sync\.bfly`)
)

// TestPTXShapeBuiltins: join and split move registers only where the
// layout holds each pair in one thread (join's result, a load of
// contiguous pairs), as Triton's do: no shared memory, no barrier, no
// shuffle; a split of pairs spread over lanes converts its operand first.
// cat (a join, a transpose and a reshape) keeps registers too.
// flip is a register permutation when the axis lies in registers,
// shfl.bfly when lanes hold it, shared memory when warps do. A slice
// x[lo:hi] selects registers when each thread holds its part already, and
// goes through shared memory otherwise.
func TestPTXShapeBuiltins(t *testing.T) {
	prog, err := tle.Parse("shapes.tle", []byte(shapesPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	none := func(name, ptx string, res ...*regexp.Regexp) {
		t.Helper()
		for _, re := range res {
			if re.MatchString(ptx) {
				t.Errorf("%s: %q in the PTX:\n%s", name, re, ptx)
			}
		}
	}
	for _, dt := range []string{"f32", "bf16", "i32", "f16", "i8"} {
		k := compileTLE(t, prog, "join_split", map[string]string{"T": dt})
		none("join_split "+dt, k.PTX, reShared, reBar, reShfl)
		if dt != "i8" {
			// (an i8 [32, 64] store wants 16 bytes a thread where the
			// [16, 64] loads gave 8: that store converts, not the cat)
			k = compileTLE(t, prog, "cat_regs", map[string]string{"T": dt})
			none("cat_regs "+dt, k.PTX, reShared, reBar, reShfl)
		}
		k = compileTLE(t, prog, "flip_lanes", map[string]string{"T": dt})
		none("flip_lanes "+dt, k.PTX, reShared, reBar)
		wantPTX(t, k.PTX, 1, `shfl\.sync\.bfly\.b32`)
	}
	for _, dt := range []string{"f32", "bf16", "i8"} {
		k := compileTLE(t, prog, "slice_regs", map[string]string{"T": dt})
		none("slice_regs "+dt, k.PTX, reShared, reBar, reShfl)
	}
	k := compileTLE(t, prog, "slice_lanes", nil)
	wantPTX(t, k.PTX, 1, `st\.shared`, `ld\.shared`, `bar\.sync`)
	k = compileTLE(t, prog, "split_loaded", nil)
	none("split_loaded", k.PTX, reShared, reBar, reShfl)
	wantPTX(t, k.PTX, 1, `ld\.global\.v\d\.(f32|b32) `)
	k = compileTLE(t, prog, "split_spread", nil)
	if !reShared.MatchString(k.PTX) && !reShfl.MatchString(k.PTX) {
		t.Errorf("split_spread: neither shuffles nor shared memory bring the pairs together:\n%s", k.PTX)
	}
	for _, dt := range []string{"f32", "bf16", "i32"} {
		k = compileTLE(t, prog, "split_scalars", map[string]string{"T": dt})
		// the reduce of each [1] half moves its element: no arithmetic
		none("split_scalars "+dt, k.PTX, regexp.MustCompile(`(add|max|min|mul)\.(f32|s32|bf16)`))
	}
	k = compileTLE(t, prog, "flip_regs", nil)
	none("flip_regs", k.PTX, reShared, reBar, reShfl)
	k = compileTLE(t, prog, "flip_warps", nil)
	none("flip_warps", k.PTX, reShfl)
	wantPTX(t, k.PTX, 1, `st\.shared`, `ld\.shared`, `bar\.sync`)
	if k.SmemBytes < 16*64*4 {
		t.Errorf("flip_warps: %d bytes of shared memory, want the tile's %d", k.SmemBytes, 16*64*4)
	}
}

package nvptx_test

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// lazyCopySrc holds matrix copies (store(dst, load(src.T))) next to other
// shared-memory traffic; the backend emits a copy's ldmatrix lazily, at
// the stmatrix that needs it, only where that keeps every barrier.
const lazyCopySrc = `
kernel barrier_at_store(x *f32, o *f32) {
    r := arange(0, 64)
    c := arange(0, 128)
    vs := alloc([64, 128], f8e4m3, init: load(x + r[:, None]*128 + c[None, :]).to(f8e4m3))
    t := alloc([128, 64], f8e4m3, init: load(x + c[:, None]*64 + r[None, :]).to(f8e4m3))
    z := load(t)
    store(t, load(vs.T))
    store(vs, load(x + 8192 + r[:, None]*128 + c[None, :]).to(f8e4m3))
    store(o + c[:, None]*64 + r[None, :], z.to(f32))
    store(o + 8192 + c[:, None]*64 + r[None, :], load(t).to(f32))
    store(o + 16384 + r[:, None]*128 + c[None, :], load(vs).to(f32))
}

kernel init_over_source(x *f32, o *f32, n i32) {
    r := arange(0, 64)
    c := arange(0, 128)
    vs := alloc([64, 128], f8e4m3, init: load(x + r[:, None]*128 + c[None, :]).to(f8e4m3))
    t := alloc([128, 64], f8e4m3, init: where((r < n)[None, :], load(vs.T), 0.0))
    store(o + c[:, None]*64 + r[None, :], load(t).to(f32))
}
`

// TestMatrixCopyLazyBarriers: a lazy copy whose store needs a barrier
// first (t still being read) reads its source after that barrier, so the
// later write of the source waits for a barrier of its own (the read was
// once forgotten, the barrier having cleared it); an alloc initialised
// from a source dead after the load gets the source's bytes, so its copy
// stays whole: every ldmatrix, a barrier, then the stmatrix.
func TestMatrixCopyLazyBarriers(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"lazy.tle": {Data: []byte(lazyCopySrc)}}, "lazy.tle")
	require.NoError(t, err)
	ops := regexp.MustCompile(`(?m)^\s*(ldmatrix\.sync\.aligned\.m8n8\.x4\.trans|stmatrix|bar\.sync|st\.shared)`)
	seq := func(ptx string) []string {
		var out []string
		for _, m := range ops.FindAllStringSubmatch(ptx, -1) {
			out = append(out, strings.SplitN(m[1], ".", 2)[0])
		}
		return out
	}

	s := seq(compileTLE(t, prog, "barrier_at_store", nil).PTX)
	last := -1
	for i, op := range s {
		if op == "ldmatrix" {
			last = i
		}
	}
	require.Positive(t, last, "%v", s)
	joined := strings.Join(s, " ")
	require.Contains(t, joined, "bar ldmatrix stmatrix ldmatrix stmatrix ldmatrix stmatrix ldmatrix stmatrix", "the copy interleaved after the store's barrier")
	next := strings.Join(s[last+1:], " ") + " "
	require.Less(t, strings.Index(next, "bar"), strings.Index(next, "st "), "a barrier between the copy's last read of vs and the next write of vs: %v", s)

	s = seq(compileTLE(t, prog, "init_over_source", nil).PTX)
	require.Contains(t, strings.Join(s, " "), "ldmatrix ldmatrix ldmatrix ldmatrix bar stmatrix stmatrix stmatrix stmatrix", "the copy over its own source stays whole: %v", s)
}

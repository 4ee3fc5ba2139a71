package nvptx_test

import (
	"regexp"
	"testing"
	"testing/fstest"

	"github.com/tlego/tle/tle"
)

// TestPTXBytePairs: a thread's two consecutive bytes (256 u8 over 4 warps)
// move as one ld.global.v2.u8 / st.global.v2.u8 of both; the plain
// (unmasked) access once moved the first byte alone and gave 0 for the
// second.
func TestPTXBytePairs(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"b.tle": {Data: []byte(`kernel copy8(x *u8, y *u8) {
    r := arange(0, 256)
    store(y + r, load(x + r) + 1)
}
`)}}, "b.tle")
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "copy8", nil).PTX
	for _, w := range []string{`ld\.global\.v2\.u8\s+\{%rs\d+, %rs\d+\}`, `st\.global\.v2\.u8\s+\[%rd\d+\], \{%rs\d+, %rs\d+\}`} {
		if !regexp.MustCompile(w).MatchString(ptx) {
			t.Errorf("no %s:\n%s", w, ptx)
		}
	}
	if n := len(regexp.MustCompile(`add\.s16`).FindAllString(ptx, -1)); n != 2 {
		t.Errorf("%d add.s16, want 2 (one per byte):\n%s", n, ptx)
	}
}

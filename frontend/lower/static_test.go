package lower

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/ir"
)

// TestStaticPrint: static_print writes compile-time values, once per
// copy of an unrolled static_range, to Options.StaticPrint.
func TestStaticPrint(t *testing.T) {
	src := `kernel k(x *T, BLOCK const i32, T const dtype) {
    v := load(x + arange(0, BLOCK))
    for i := range static_range(2) {
        static_print("i", i, "BLOCK", BLOCK, v.shape, x.dtype, x.dtype.element_ty, 2.5, true)
    }
}
`
	f, err := parser.ParseFile("sp.tle", []byte(src))
	require.NoError(t, err)
	var out bytes.Buffer
	_, err = Kernel(f, "k", Options{Defines: map[string]string{"BLOCK": "64", "T": "bf16"}, StaticPrint: &out})
	require.NoError(t, err)
	require.Equal(t, "sp.tle:4:9: static_print: i 0 BLOCK 64 [64] *bf16 bf16 2.5 true\n"+
		"sp.tle:4:9: static_print: i 1 BLOCK 64 [64] *bf16 bf16 2.5 true\n", out.String())
}

// TestStaticIfNotCarried: a name assigned only in the branch of a
// compile-time if that is not taken is not carried through the loop around
// it (the branch is never lowered), so the loop carries only what the
// taken code assigns.
func TestStaticIfNotCarried(t *testing.T) {
	src := `kernel k(x *f32, Q const i32) {
    r := arange(0, 16)
    s := zeros([16], f32)
    kn := full([16], 2.0, f32)
    for i := range 4 {
        kc := kn
        if Q == 0 {
            kn = load(x + i*16 + r)
        }
        s = s + kc
    }
    store(x + r, s)
}
`
	f, err := parser.ParseFile("c.tle", []byte(src))
	require.NoError(t, err)
	carried := func(q string) int {
		m, err := Kernel(f, "k", Options{Defines: map[string]string{"Q": q}})
		require.NoError(t, err)
		n := 0
		for _, line := range strings.Split(ir.Print(m), "\n") {
			if lhs, _, ok := strings.Cut(line, " = for("); ok {
				n = len(strings.Split(lhs, ","))
				t.Logf("Q=%s: %s", q, strings.TrimSpace(line))
			}
		}
		return n
	}
	require.Greater(t, carried("0"), carried("1"), "Q=1 carries s alone, Q=0 s and kn")
}

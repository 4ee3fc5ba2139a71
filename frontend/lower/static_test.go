package lower

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/parser"
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

package check

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// dtypeHelperSrc is a dtype-generic kernel calling dtype-generic helpers
// with its T, inferred from the arguments' types or given (T: T), as
// kernels/tutorials/attention_bwd.tle calls its helpers.
const dtypeHelperSrc = `
func scale_to(x [N]T, s f32, N const i32, T const dtype) [N]T {
    return (x.to(f32) * s).to(T)
}

func twice(p *T, offs [N]i32, N const i32, T const dtype) [N]T {
    v := load(p + offs)
    return v + v
}

kernel generic_helpers(x *T, out *T, s f32, BLOCK const i32, T const dtype) {
    offs := arange(0, BLOCK)
    v := load(x + offs)
    store(out + offs, scale_to(v, s) + twice(x, offs) + scale_to(v, s, T: T))
}

kernel generic_helpers_bad(x *T, out *T, s f32, BLOCK const i32, T const dtype) {
    offs := arange(0, BLOCK)
    store(out + offs, twice(x, s))
}
`

// TestDTypeHelperUnbound: without -D T the calls of generic helpers with
// the kernel's T are left to the binding, as the kernel's other
// expressions of type T are (no "cannot infer T" error, no "must be a
// dtype" for T: T); bound, they are checked, and a wrong call is reported.
func TestDTypeHelperUnbound(t *testing.T) {
	f := parse(t, "dtype_helper.tle", []byte(dtypeHelperSrc))
	_, errs := Check(f, Config{})
	require.Empty(t, errs, "without -D:\n%s", format(errs))
	_, errs = Check(f, Config{Defines: map[string]string{"T": "f16", "BLOCK": "64"}})
	require.Len(t, errs, 1, "with -D:\n%s", format(errs))
	require.Contains(t, errs[0].Msg, "twice")
	require.Equal(t, 19, errs[0].Position().Line, format(errs))
}

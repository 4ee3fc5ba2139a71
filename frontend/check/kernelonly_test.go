package check

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKernelOnly: Config.Kernel checks one kernel with its bindings. A
// binding that breaks only another kernel is not reported, a define only
// another kernel takes is not unknown, and this kernel's own errors and
// unknown defines still are.
func TestKernelOnly(t *testing.T) {
	src := []byte(`kernel a(p *f32, BLOCK const i32) {
    store(p + arange(0, BLOCK), zeros([BLOCK], f32))
}

kernel b(p *f32, N const i32) {
    store(p + arange(0, N), zeros([N], f32))
}
`)
	f := parse(t, "two.tle", src)
	msgs := func(defines map[string]string, kernel string) []string {
		_, errs := Check(f, Config{Defines: defines, Kernel: kernel})
		var out []string
		for _, e := range errs {
			out = append(out, e.Msg)
		}
		return out
	}
	// N = 3 is not a power of two: kernel b fails, kernel a is unaffected
	require.NotEmpty(t, msgs(map[string]string{"BLOCK": "64", "N": "3"}, ""))
	require.Empty(t, msgs(map[string]string{"BLOCK": "64", "N": "3"}, "a"))
	require.NotEmpty(t, msgs(map[string]string{"BLOCK": "64", "N": "3"}, "b"))
	// a's own bad binding, and a define no kernel takes
	require.NotEmpty(t, msgs(map[string]string{"BLOCK": "3"}, "a"))
	bad := msgs(map[string]string{"BLOCK": "64", "M": "1"}, "a")
	require.Len(t, bad, 1)
	require.Contains(t, bad[0], "-D M: no kernel has a const parameter named M")
}

package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// tlec check --arch compiles the kernels whose compile-time parameters are
// bound down to LLVM IR and reports what would not build, at its position.
func TestCheckArch(t *testing.T) {
	const file = "testdata/checkarch/dot_i8.tle"
	// the kernel is fine for the checker and the interpreter
	r := tlec(t, "", "check", file)
	require.Equal(t, 0, r.code, r.stderr)
	r = tlec(t, "", "run", file, "--kernel", "dot_i8", "--grid", "1", "--device", "cpu",
		"--arg", "a=zeros:256", "--arg", "b=zeros:256", "--arg", "c=zeros:256")
	require.Equal(t, 0, r.code, r.stderr)
	// and does not build for the GPU
	r = tlec(t, "", "build", file, "--kernel", "dot_i8", "--emit", "ll")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, file+":8:45: error: dot: dot of i8 x i8")

	r = tlec(t, "", "check", "--arch", "sm_90a", file)
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, file+":8:45: error: dot: dot of i8 x i8: mma.sync needs f16, bf16, fp8 or f32 (tf32) operands\n")
	require.Contains(t, r.stderr, file+":12:8: note: kernel scale was not compiled for sm_90a: its compile-time parameter BLOCK is not bound (bind it with -D BLOCK=VALUE)\n")
	// with BLOCK bound, scale is compiled and passes: the dot is the one error
	r = tlec(t, "", "check", "--arch", "sm_80", "-D", "BLOCK=128", file)
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, file+":8:45: error: dot:")
	require.NotContains(t, r.stderr, "scale")
	// --arch is validated as tlec build validates it
	r = tlec(t, "", "check", "--arch", "sm_70", file)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, `tlec check: arch "sm_70": not a target of this compiler`)
}

// The tutorials pass tlec check --arch sm_90a: unbound (each kernel only
// checked, with a note) and bound as their tests bind them (compiled).
func TestCheckArchTutorials(t *testing.T) {
	t.Parallel()
	dir := "../../kernels/tutorials"
	files, err := filepath.Glob(filepath.Join(dir, "*.tle"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	r := tlec(t, "", append([]string{"check", "--arch", "sm_90a"}, files...)...)
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stderr, "error")
	for file, defs := range map[string][]string{
		"vector_add.tle": {"BLOCK=256"},
		"softmax.tle":    {"BLOCK=512"},
		"layer_norm.tle": {"BLOCK=1024"},
		"matmul.tle":     {"BM=64", "BN=32", "BK=32"},
		"matmul_tma.tle": {"BM=128", "BN=128", "BK=64", "S=3", "LAG=1"},
		"tma_copy.tle":   {"BM=32", "BN=64"},
	} {
		args := []string{"check", "--arch", "sm_90a"}
		for _, d := range defs {
			args = append(args, "-D", d)
		}
		r := tlec(t, "", append(args, filepath.Join(dir, file))...)
		require.Equal(t, 0, r.code, "%s: %s", file, r.stderr)
		require.Empty(t, r.stderr, file)
	}
}

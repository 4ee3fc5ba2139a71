package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// tlecRun runs tlec with args and returns the exit status and outputs.
func tlecRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, args)
	return code, stdout.String(), stderr.String()
}

// tlec bench FILE.tle times a tutorial on the interpreter with random
// inputs, as tlec run launches it, and says that the interpreter was
// timed; --compare-D and --compare time two kernels interleaved and give
// the verdict and its test.
func TestBenchFileInterp(t *testing.T) {
	vadd := []string{"bench", "../../kernels/tutorials/vector_add.tle", "--kernel", "vector_add", "--grid", "2", "-D", "BLOCK=512",
		"--arg", "x=rand:1000", "--arg", "y=rand:1000", "--arg", "out=zeros:1000", "--arg", "n=1000", "--device", "cpu", "--reps", "8", "--warmup", "1"}
	code, out, errs := tlecRun(append(vadd, "--bytes", "12000", "--flops", "1000")...)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "timed by host wall clock: the interpreter's run, not a GPU")
	require.Contains(t, out, "8 runs of each after 1 warm-up")
	require.Regexp(t, `vector_add.tle:vector_add\s+[0-9.]+\s+\[[0-9.]+, [0-9.]+\] 99%\s+[0-9.]+\s+[0-9.e-]+ TFLOP/s, [0-9.e-]+ TB/s`, out)

	code, out, errs = tlecRun(append(vadd, "--compare-D", "BLOCK=1024")...)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "vector_add.tle:vector_add -D BLOCK=512 ")
	require.Contains(t, out, "vector_add.tle:vector_add -D BLOCK=1024 ")
	require.Regexp(t, `(distinguishable from noise|not distinguishable from noise) \(time ratio`, out)
	require.Contains(t, out, "test: paired sign test")

	code, out, errs = tlecRun(append(vadd, "--compare", "../../kernels/tutorials/vector_add.tle", "--compare-D", "BLOCK=128")...)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "over 8 rounds")

	code, _, errs = tlecRun(append(vadd, "--compare", "../../kernels/tutorials/vector_add.tle")...)
	require.Equal(t, 2, code)
	require.Contains(t, errs, "the second kernel is the first one again")
	code, _, errs = tlecRun(append(vadd, "--flush-l2")...)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "need a GPU")
	code, _, errs = tlecRun("bench", "../../kernels/tutorials/vector_add.tle", "--grid", "1", "--device", "cpu", "-D", "BLOCK=64", "--arg", "x=rand:0x4")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "rand:0x4: the shape is positive integers joined by x")
}

// rand: is seeded random data in the parameter's dtype, never zero, and
// differs between arguments of one shape.
func TestRandArg(t *testing.T) {
	h, err := readArgSeed("rand:4x8", ir.BF16, "x=rand:4x8")
	require.NoError(t, err)
	require.Equal(t, []int{4, 8}, h.shape)
	require.Len(t, h.data, 32)
	f := randomBuffer(ir.F32, 1000, "x=rand:1000").Float64()
	g := randomBuffer(ir.F32, 1000, "y=rand:1000").Float64()
	require.Equal(t, f, randomBuffer(ir.F32, 1000, "x=rand:1000").Float64(), "seeded")
	require.NotEqual(t, f, g)
	for _, v := range f {
		require.True(t, v != 0 && v >= -1 && v <= 1, "%v", v)
	}
	for _, v := range randomBuffer(ir.I32, 100, "n").Int64() {
		require.True(t, v >= 1 && v <= 64)
	}
}

package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Scalars are range-checked against the parameter's dtype, and floats are
// not taken for an integer parameter.
func TestScalarArgRange(t *testing.T) {
	x := "x=" + abs(t, "../../examples/x_4x100.npy")
	for _, tc := range []struct{ arg, want string }{
		{"n_cols=4294967396", "4294967396"},
		{"n_cols=2147483648", "2147483648"},
		{"n_cols=-2147483649", "-2147483649"},
		{"n_cols=1e30", "n_cols"},
		{"n_cols=100.5", "n_cols"},
		{"n_cols=18446744073709551615", "18446744073709551615"},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			dir := t.TempDir()
			r := tlec(t, dir, softmaxRun(t, "--arg", x, "--arg", tc.arg, "--save", "out=o.npy")...)
			require.NotEqual(t, 0, r.code, r.stderr)
			require.Contains(t, r.stderr, tc.want)
			require.Contains(t, r.stderr, "i32")
			requireOnly(t, dir)
		})
	}
}

// A grid beyond CUDA's limits is refused before anything runs, on every
// device (the interpreter would otherwise run it until its watchdog).
func TestGridLimits(t *testing.T) {
	x := "x=" + abs(t, "../../examples/x_4x100.npy")
	for _, grid := range []string{"2147483648", "1,65536", "1,1,65536"} {
		args := softmaxRun(t, "--arg", x, "--arg", "n_cols=100")
		for i, a := range args {
			if a == "--grid" {
				args[i+1] = grid
			}
		}
		r := tlec(t, "", args...)
		require.NotEqual(t, 0, r.code, r.stderr)
		require.Contains(t, r.stderr, "grid", grid)
		require.Less(t, r.elapsed, 10*time.Second, grid)
	}
}

// --timeout stops a kernel that would run for minutes on the interpreter:
// a loop of 2e9 iterations stops within 3 s of a 2 s timeout, saying the
// time ran out and which programs were still running.
func TestRunTimeout(t *testing.T) {
	dir := t.TempDir()
	r := tlec(t, dir, "run", abs(t, "testdata/badinput/spin.tle"), "--kernel", "spin", "--grid", "1", "--device", "cpu",
		"--arg", "out=zeros:1", "--arg", "n=2000000000", "--save", "out=o.npy", "--timeout", "500ms")
	require.Equal(t, 1, r.code, r.stderr)
	require.Less(t, r.elapsed, 2*time.Second, "the whole command, start-up and compile included")
	require.Contains(t, r.stderr, "timed out after ") // the time of the launch itself, a little under the 500 ms that also covered the compile
	require.Contains(t, r.stderr, "still running")
	requireOnly(t, dir)

	bad := tlec(t, dir, "run", abs(t, "testdata/badinput/spin.tle"), "--kernel", "spin", "--grid", "1", "--device", "cpu",
		"--arg", "out=zeros:1", "--arg", "n=1", "--timeout", "soon")
	require.Equal(t, 2, bad.code, bad.stderr)
	require.Contains(t, bad.stderr, "timeout")
}

// A tile beyond 2^20 elements is refused at its position before any work
// (it used to compile for minutes with no message).
func TestTileLimitBuild(t *testing.T) {
	r := tlec(t, "", "build", "../../kernels/tutorials/softmax.tle", "--kernel", "softmax", "-D", "BLOCK=16777216", "--emit", "ptx", "-o", filepath.Join(t.TempDir(), "o.ptx"))
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "softmax.tle:")
	require.Contains(t, r.stderr, "is larger than the limit of 1048576 (2^20)")
	require.Less(t, r.elapsed, 10*time.Second)
}

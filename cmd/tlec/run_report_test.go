package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// tlec run reports every missing --arg at once, takes the kernel of a
// one-kernel file without --kernel, and says what it ran and how long it
// took.
func TestRunReports(t *testing.T) {
	sm := "../../kernels/tutorials/softmax.tle"
	code, _, errs := runCLI("run", sm, "--grid", "4", "-D", "BLOCK=128", "--device", "cpu")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "missing 4 arguments: --arg x=VALUE (x *f32), --arg out=VALUE (out *f32), --arg n_cols=VALUE (n_cols i32), --arg stride=VALUE (stride i32)")
	code, _, errs = runCLI("run", sm, "--grid", "4", "-D", "BLOCK=128", "--device", "cpu", "--arg", "x=zeros:4x100", "--arg", "out=zeros:4x100", "--arg", "n_cols=100")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "missing --arg stride=VALUE (stride i32)")
	code, _, errs = runCLI("run", sm, "--grid", "4", "-D", "BLOCK=128", "--device", "cpu", "--arg", "x=zeros:4x100", "--arg", "out=zeros:4x100", "--arg", "n_cols=100", "--arg", "stride=100")
	require.Equal(t, 0, code, errs)
	require.Regexp(t, `tlec run: softmax, grid 4x1x1, on cpu \(interpreter\): \d+(\.\d+)?(µs|ms|s)\n`, errs)
	code, _, errs = runCLI("run", "../../kernels/tutorials/compact.tle", "--grid", "1", "-D", "N=256", "--device", "cpu")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "--kernel is required: ../../kernels/tutorials/compact.tle has 3 kernels (compact, compact_bits, compact_cumsum)")
	code, out, errs := runCLI("build", "../../kernels/tutorials/vector_add.tle", "-D", "BLOCK=64", "--emit", "tir")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "vector_add")
}

// Off a terminal the launch's progress draws nothing.
func TestLaunchProgressOffTerminal(t *testing.T) {
	var b bytes.Buffer
	p := newLaunchProgress(&b)
	p.update(0, 8)
	p.update(3, 8)
	p.finish()
	require.Empty(t, b.String())
}

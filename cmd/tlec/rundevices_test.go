package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/runtime/npy"
)

// tlec run --devices: the one-shot all-reduce on 4 simulated devices with
// random inputs that differ per device; every device's saved out is the
// float64 sum of the four inputs (checked against the inputs saved too).
func TestRunDevices(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "kernels", "collectives", "all_reduce.tle")
	var stdout, stderr bytes.Buffer
	args := []string{"run", src, "--kernel", "all_reduce_oneshot", "--devices", "4", "--symmetric", "x",
		"-D", "WORLD=4", "-D", "BLOCK=32", "-D", "T=f32", "--grid", "4",
		"--arg", "x=rand:100", "--arg", "out=zeros:100", "--arg", "n=100",
		"--save", "out=" + filepath.Join(dir, "out.npy"), "--save", "x=" + filepath.Join(dir, "x.npy")}
	code := run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, args)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	require.Contains(t, stderr.String(), "on 4 simulated devices (interpreter)")
	want := make([]float64, 100)
	var xs [][]float64
	for d := range 4 {
		x := readNpy(t, devicePath(filepath.Join(dir, "x.npy"), d))
		xs = append(xs, x)
		for i := range want {
			want[i] += x[i]
		}
	}
	require.NotEqual(t, xs[0], xs[1], "rand: must differ per device")
	for d := range 4 {
		out := readNpy(t, devicePath(filepath.Join(dir, "out.npy"), d))
		for i := range want {
			require.InDelta(t, want[i], out[i], 1e-5, "device %d element %d", d, i)
		}
	}
	// without --symmetric the remote is an error at its line
	rest := args[8:22] // -D ... --arg n=100
	stderr.Reset()
	code = run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, append(append([]string{}, args[:6]...), rest...))
	require.Equal(t, 1, code, stderr.String())
	require.Contains(t, stderr.String(), "all_reduce.tle:18:21: error: remote: x is not a symmetric allocation")
	stderr.Reset()
	code = run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr},
		append([]string{"run", src, "--kernel", "all_reduce_oneshot", "--devices", "0", "--symmetric", "x"}, rest...))
	require.Equal(t, 2, code)
	require.Contains(t, stderr.String(), "--devices 0: want at least 1")
}

func readNpy(t *testing.T, path string) []float64 {
	t.Helper()
	a, err := npy.ReadFile(path)
	require.NoError(t, err)
	return a.Float64s()
}

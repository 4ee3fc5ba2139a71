package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/runtime/npy"
)

// --arg NAME=table:DTYPE:V0,V1,... passes a pointer table: each V is a
// buffer of DTYPE read as any --arg buffer, and the kernel gets their
// addresses; --save NAME[k]=PATH writes entry k after the launch.
func TestRunPointerTable(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "k.tle")
	require.NoError(t, os.WriteFile(src, []byte(`kernel k(t *i64, n i32) {
    g := program_id(0)
    p := load(t + g).to(*f32)
    o := arange(0, 8)
    store(p + o, load(p + o, mask: o < n, other: 0.0) * 2.0 + 1.0, mask: o < n)
}
`), 0o644))
	x := filepath.Join(dir, "x.npy")
	require.NoError(t, npy.WriteFile(x, npy.Float32([]int{4}, []float32{1.5, -2, 3, 0.25})))
	var stdout, stderr bytes.Buffer
	code := run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, []string{"run", src, "--device", "cpu", "--grid", "2",
		"--arg", "t=table:f32:" + x + ",zeros:4", "--arg", "n=4",
		"--save", "t[0]=" + filepath.Join(dir, "t0.npy"), "--save", "t[1]=" + filepath.Join(dir, "t1.npy")})
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	for name, want := range map[string][]float64{"t0.npy": {4, -3, 7, 1.5}, "t1.npy": {1, 1, 1, 1}} {
		a, err := npy.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, want, a.Float64s(), name)
	}

	// what a table argument must be
	for _, c := range []struct{ arg, msg string }{
		{"t=table:f99:zeros:4", "want table:DTYPE:V0,V1,..."},
		{"t=table:f32:", "want table:DTYPE:V0,V1,..."},
		{"t=table:f32:zeros:4,nope.npy", "table entry t[1] (nope.npy)"},
	} {
		stdout.Reset()
		stderr.Reset()
		code := run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, []string{"run", src, "--device", "cpu", "--grid", "1", "--arg", c.arg, "--arg", "n=4"})
		require.NotEqual(t, 0, code, c.arg)
		require.Contains(t, stderr.String(), c.msg, c.arg)
	}
	stderr.Reset()
	code = run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, []string{"run", src, "--device", "cpu", "--grid", "1",
		"--arg", "t=table:f32:zeros:4", "--arg", "n=4", "--save", "t[3]=" + filepath.Join(dir, "t3.npy")})
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr.String(), "nor an entry NAME[k] of a table: argument")
}

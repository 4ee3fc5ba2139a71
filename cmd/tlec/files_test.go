package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// runQuick runs tlec in-process and fails if it takes longer than a few
// seconds (a FIFO read blocked forever).
func runQuick(t *testing.T, args ...string) (int, string) {
	t.Helper()
	type res struct {
		code int
		errs string
	}
	done := make(chan res, 1)
	go func() {
		code, _, errs := runCLI(args...)
		done <- res{code, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.errs
	case <-time.After(30 * time.Second):
		t.Fatalf("tlec %v hung", args)
	}
	return 0, ""
}

// A FIFO as the .tle source or as an --arg file is refused at once,
// naming it (each blocked forever).
func TestInputsMustBeRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	code, errs := runQuick(t, "check", fifo)
	require.Equal(t, 1, code)
	require.Contains(t, errs, fifo+" is a named pipe (FIFO), not a regular file")
	code, errs = runQuick(t, "run", "../../kernels/tutorials/softmax.tle", "--grid", "1", "-D", "BLOCK=128", "--device", "cpu",
		"--arg", "x="+fifo, "--arg", "out=zeros:4", "--arg", "n_cols=4", "--arg", "stride=4")
	require.NotEqual(t, 0, code)
	require.Contains(t, errs, fifo+" is a named pipe (FIFO), not a regular file")
}

// tlec build -o and tlec fmt -w write through a symbolic link to its
// target, and the link stays a link (they replaced it with a file).
func TestWritersFollowLinks(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../kernels/tutorials/vector_add.tle")
	require.NoError(t, err)
	target := filepath.Join(dir, "real.tle")
	require.NoError(t, os.WriteFile(target, append([]byte("kernel   k(x *f32) {\n}\n"), src...), 0o644))
	link := filepath.Join(dir, "link.tle")
	require.NoError(t, os.Symlink("real.tle", link))
	code, errs := runQuick(t, "fmt", "-w", link)
	require.Equal(t, 0, code, errs)
	st, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&os.ModeSymlink, "fmt -w replaced the link")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Contains(t, string(got), "kernel k(x *f32) {")

	out := filepath.Join(dir, "out.tir")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "old.tir"), []byte("old"), 0o644))
	require.NoError(t, os.Symlink("old.tir", out))
	code, errs = runQuick(t, "build", "../../kernels/tutorials/vector_add.tle", "--kernel", "vector_add", "-D", "BLOCK=64", "--emit", "tir", "-o", out)
	require.Equal(t, 0, code, errs)
	st, err = os.Lstat(out)
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&os.ModeSymlink, "build -o replaced the link")
	got, err = os.ReadFile(filepath.Join(dir, "old.tir"))
	require.NoError(t, err)
	require.Contains(t, string(got), "vector_add")
}

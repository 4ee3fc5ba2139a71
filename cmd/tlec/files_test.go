package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/runtime/npy"
)

// opIn runs tlec op kda_fwd on the CPU with in (and out, a fresh directory
// when empty), failing the test if it takes longer than a few seconds.
func opIn(t *testing.T, in, out string) (code int, stderr string) {
	t.Helper()
	if out == "" {
		out = filepath.Join(t.TempDir(), "out")
	}
	type res struct {
		code int
		errs string
	}
	done := make(chan res, 1)
	go func() {
		code, _, errs := runCLI("op", "kda_fwd", "--in", in, "--out", out, "--device", "cpu")
		done <- res{code, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.errs
	case <-time.After(60 * time.Second):
		t.Fatal("tlec op hung")
	}
	return 0, ""
}

// params.json: a repeated key is an error naming it, a byte-order mark is
// accepted, and a FIFO in its place is refused at once (it blocked).
func TestOpParamsJSON(t *testing.T) {
	in := kdaDir(t, false, `{"lower_bound": -5, "lower_bound": -3}`)
	code, errs := opIn(t, in, "")
	require.Equal(t, 1, code)
	require.Contains(t, errs, `params.json: the key "lower_bound" is given twice`)

	writeParams(t, in, "\ufeff"+`{"lower_bound": -5}`)
	code, errs = opIn(t, in, "")
	require.Equal(t, 0, code, errs)

	p := filepath.Join(in, "params.json")
	require.NoError(t, os.Remove(p))
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	code, errs = opIn(t, in, "")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "params.json is a named pipe (FIFO), not a regular file")
}

// The input directory: a dangling link is an error naming its own input,
// optional or not; a misspelt file is refused with the name meant; an
// input that is a FIFO is refused at once.
func TestOpInputDir(t *testing.T) {
	in := kdaDir(t, false, `{"lower_bound": -5}`)
	require.NoError(t, os.Symlink("nowhere.npy", filepath.Join(in, "h0.npy")))
	code, errs := opIn(t, in, "")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "input h0: "+filepath.Join(in, "h0.npy")+" is a symbolic link to nowhere.npy, which does not exist")

	in = kdaDir(t, false, `{"lower_bound": -5}`)
	cu := filepath.Join(in, "cu_seqlens.npy")
	require.NoError(t, os.Rename(cu, filepath.Join(in, "cu_seqlen.npy")))
	code, errs = opIn(t, in, "")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "kda_fwd reads no file cu_seqlen.npy")
	require.Contains(t, errs, "did you mean cu_seqlens.npy?")

	in = kdaDir(t, false, `{"lower_bound": -5}`)
	require.NoError(t, os.Remove(filepath.Join(in, "q.npy")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(in, "q.npy"), 0o644))
	code, errs = opIn(t, in, "")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "input q: "+filepath.Join(in, "q.npy")+" is a named pipe (FIFO), not a regular file")
	require.NotContains(t, errs, filepath.Join(in, "q.npy")+": "+filepath.Join(in, "q.npy"), "the path is named once")
}

// --out is checked before the op runs; outputs of an earlier run that
// this run does not write are removed, with a word.
func TestOpOutDir(t *testing.T) {
	in := kdaDir(t, true, `{"lower_bound": -5}`)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	code, errs := opIn(t, in, file)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "--out "+file+" exists and is not a directory")
	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	code, errs = opIn(t, in, loop)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "too many levels of symbolic links")
	code, errs = opIn(t, in, filepath.Join(file, "sub"))
	require.Equal(t, 1, code)
	require.Contains(t, errs, "is not a directory")

	out := filepath.Join(dir, "out")
	code, errs = opIn(t, in, out)
	require.Equal(t, 0, code, errs)
	require.FileExists(t, filepath.Join(out, "ht.npy"))
	require.NoError(t, os.Remove(filepath.Join(in, "h0.npy")))
	code, errs = opIn(t, in, out)
	require.Equal(t, 0, code, errs)
	require.NoFileExists(t, filepath.Join(out, "ht.npy"))
	require.Contains(t, errs, "removed "+filepath.Join(out, "ht.npy"))
	es, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, es, 1, "o.npy alone: %v", es)
}

// An input value the kernel cannot represent is refused, naming the
// tensor and the element: q holding 1e39 is finite in the .npy and +Inf in
// bf16, and made NaN outputs with exit 0.
func TestOpUnrepresentableInput(t *testing.T) {
	in := kdaDir(t, false, `{"lower_bound": -5}`)
	q, err := npy.ReadFile(filepath.Join(in, "q.npy"))
	require.NoError(t, err)
	q.F64[5] = 1e39
	require.NoError(t, npy.WriteFile(filepath.Join(in, "q.npy"), npy.Float64(q.Shape, q.F64)))
	code, errs := opIn(t, in, "")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "q: element 5 = 1e+39 does not fit bf16")
}

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

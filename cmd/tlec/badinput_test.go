package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// These tests run the built tlec as a user would, one per defect of bad
// input: each must end with a clear error and the right exit status, never
// a Go panic, and leave nothing half-written behind.

// tlecBin is the program these tests run as tlec: the test binary itself,
// which TestMain turns into tlec when asTLEC is set in its environment, so
// the tests exercise the same main without linking a second binary.
var tlecBin string

// asTLEC in a child's environment makes the test binary run tlec's main.
const asTLEC = "TLEC_TEST_RUN_AS_TLEC"

func TestMain(m *testing.M) {
	if os.Getenv(asTLEC) == "1" {
		main()
		return
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	tlecBin = exe
	os.Exit(m.Run())
}

type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// tlec runs the built binary in dir (the package directory when empty).
func tlec(t *testing.T, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tlecBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), asTLEC+"=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: o.String(), stderr: e.String(), elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	require.NotContains(t, r.stderr, "goroutine ", "a Go panic reached the user")
	require.NotContains(t, r.stderr, "internal error", "tlec reports its own bug")
	return r
}

// abs is a path in the package directory, for commands run elsewhere.
func abs(t *testing.T, rel string) string {
	p, err := filepath.Abs(rel)
	require.NoError(t, err)
	return p
}

func softmaxRun(t *testing.T, extra ...string) []string {
	return append([]string{"run", abs(t, "../../kernels/tutorials/softmax.tle"), "--kernel", "softmax", "--grid", "4",
		"-D", "BLOCK=128", "--device", "cpu", "--arg", "out=zeros:4x100", "--arg", "stride=100"}, extra...)
}

// requireOnly says dir holds exactly the named files (no temporaries).
func requireOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	require.ElementsMatch(t, names, got)
}

func TestBadNpyHeader(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.npy"), []byte("\x93NUMPY\x01\x00\x20\x00abc"), 0o644))
	r := tlec(t, dir, softmaxRun(t, "--arg", "x=bad.npy", "--arg", "n_cols=100")...)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "bad.npy")
	requireOnly(t, dir, "bad.npy")
}

func TestTruncatedNpy(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile("../../examples/x_4x100.npy")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "short.npy"), full[:200], 0o644))
	r := tlec(t, dir, softmaxRun(t, "--arg", "x=short.npy", "--arg", "n_cols=100", "--save", "out=o.npy")...)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "short.npy")
	requireOnly(t, dir, "short.npy")
}

// A header whose shape overflows the element count is a bad file, not an
// out-of-bounds load at index 0.
func TestNpyShapeOverflow(t *testing.T) {
	dir := t.TempDir()
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }"
	dict += strings.Repeat(" ", 64-(10+len(dict)+1)%64) + "\n"
	hdr := "\x93NUMPY\x01\x00" + string([]byte{byte(len(dict)), byte(len(dict) >> 8)}) + dict
	require.NoError(t, os.WriteFile(filepath.Join(dir, "huge.npy"), []byte(hdr+"\x00\x00\x00\x00"), 0o644))
	r := tlec(t, dir, softmaxRun(t, "--arg", "x=huge.npy", "--arg", "n_cols=100")...)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "huge.npy")
	require.NotContains(t, r.stderr, "out of bounds")
}

func TestSaveScalarParam(t *testing.T) {
	dir := t.TempDir()
	r := tlec(t, dir, softmaxRun(t, "--arg", "x="+abs(t, "../../examples/x_4x100.npy"), "--arg", "n_cols=100", "--save", "n_cols=s.npy")...)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "--save n_cols=s.npy: n_cols is not a pointer or descriptor parameter")
	requireOnly(t, dir)
}

func TestSaveToDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "outdir"), 0o755))
	r := tlec(t, dir, softmaxRun(t, "--arg", "x="+abs(t, "../../examples/x_4x100.npy"), "--arg", "n_cols=100", "--save", "out=outdir")...)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "outdir is a directory")
	require.NotContains(t, r.stdout, "saved")
	requireOnly(t, dir, "outdir")
	requireOnly(t, filepath.Join(dir, "outdir"))
}

func TestRepeatedDefine(t *testing.T) {
	r := tlec(t, "", "build", "../../kernels/tutorials/softmax.tle", "--kernel", "softmax", "-D", "BLOCK=128", "-D", "BLOCK=256", "--emit", "tir")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "BLOCK is bound twice")
	r = tlec(t, "", "check", "-D", "BLOCK=128", "-D", "BLOCK=128", "../../kernels/tutorials/softmax.tle")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "BLOCK is bound twice")
}

func TestUnknownArch(t *testing.T) {
	r := tlec(t, "", "build", "../../kernels/tutorials/softmax.tle", "--kernel", "softmax", "-D", "BLOCK=128", "--arch", "sm_12345", "--emit", "ptx")
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, `arch "sm_12345"`)
	require.Contains(t, r.stderr, "sm_90a")
	require.Empty(t, r.stdout)
	h := tlec(t, "", "help", "build")
	for _, a := range []string{"sm_80", "sm_90", "sm_90a"} {
		require.Contains(t, h.stdout, a)
	}
}

func TestZerosLimits(t *testing.T) {
	for _, spec := range []string{"zeros:0x4", "zeros:4x", "zeros:-1", "zeros:1099511627776x1099511627776", "zeros:65536x65536x2", "zeros:+4"} {
		r := tlec(t, "", softmaxRun(t, "--arg", "x="+spec, "--arg", "n_cols=100")...)
		require.Equal(t, 2, r.code, spec+": "+r.stderr)
		require.Contains(t, r.stderr, "zeros:", spec)
	}
}

// A truncated q.npy for tlec op kda_fwd is an error naming the input; no
// output is written.
func TestOpTruncatedInput(t *testing.T) {
	in, out := kdaDir(t, false, `{"lower_bound": -5}`), t.TempDir()
	q := filepath.Join(in, "q.npy")
	data, err := os.ReadFile(q)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(q, data[:len(data)/2], 0o644))
	r := tlec(t, "", "op", "kda_fwd", "--in", in, "--out", out, "--device", "cpu")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "q.npy")
	requireOnly(t, out)
}

// The top-level recover turns a panic into an "internal error" report
// with a request to file it (the last line of defence, not error handling).
func TestInternalErrorReport(t *testing.T) {
	register(&command{name: "panic-for-test", run: func(*env, any, []string) int { panic("boom") }})
	defer delete(commands, "panic-for-test")
	var o, e bytes.Buffer
	code := runGuarded(&env{stdin: strings.NewReader(""), stdout: &o, stderr: &e}, []string{"panic-for-test"})
	require.Equal(t, exitInternal, code)
	require.Contains(t, e.String(), "tlec: internal error: boom")
	require.Contains(t, e.String(), "Please report it")
}

// A leading zero is decimal in --arg, as in --grid (strconv's base 0 read
// 0100 as octal 64: a wrong answer with exit 0).
func TestScalarTextBases(t *testing.T) {
	for text, want := range map[string]any{"0100": int64(100), "-012": int64(-12), "0": int64(0), "0x10": int64(16),
		"0b101": int64(5), "0o17": int64(15), "18446744073709551615": uint64(18446744073709551615), "1.5": 1.5} {
		got, err := parseScalar(text)
		require.NoError(t, err, text)
		require.Equal(t, want, got, text)
	}
}

// An endless input (a device) is refused before anything is read; a huge
// regular file is refused at the limit (internal/fileio's tests).
func TestEndlessInputFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	r := tlec(t, "", "check", "/dev/zero")
	require.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "/dev/zero is a character device, not a regular file")
	args := softmaxRun(t, "--arg", "x=zeros:4x100", "--arg", "n_cols=100", "--ptx", "/dev/zero")
	args[slices.Index(args, "cpu")] = "cuda" // --ptx is read before the device is opened
	r = tlec(t, "", args...)
	require.NotEqual(t, 0, r.code, r.stderr)
	require.Contains(t, r.stderr, "/dev/zero is a character device, not a regular file")
}

func TestZerosRankAndSize(t *testing.T) {
	_, err := parseZeros(strings.TrimSuffix(strings.Repeat("1x", 65), "x"))
	require.ErrorContains(t, err, "65 dimensions, more than 64")
	_, err = parseZeros("16384x16384")
	require.NoError(t, err) // exactly 2^28
	_, err = parseZeros("16384x16385")
	require.ErrorContains(t, err, "more than 268435456 (2^28) elements")
}

// --save into a directory the user cannot write is refused before the run
// (it used to fail after the run). Root writes anywhere, so this runs as a
// user only.
func TestSaveUnwritableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write in a read-only directory")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	require.NoError(t, os.Mkdir(ro, 0o555))
	r := tlec(t, dir, softmaxRun(t, "--arg", "x="+abs(t, "../../examples/x_4x100.npy"), "--arg", "n_cols=100", "--save", "out=ro/o.npy")...)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "cannot write in ro")
	require.NotContains(t, r.stdout, "saved")
}

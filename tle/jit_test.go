package tle

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

func needLLC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("llc-19"); err != nil {
		t.Skip("llc-19 not installed (CI installs llvm-19)")
	}
}

// captureStderr runs fn and returns what it wrote to standard error.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stderr
	os.Stderr = w
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&buf, r); close(done) }()
	fn()
	w.Close()
	os.Stderr = old
	<-done
	return buf.String()
}

func resetJIT() {
	jit.mu.Lock()
	jit.mem = map[string]*Binary{}
	jit.mu.Unlock()
}

func TestJITCacheDiskAndCorruption(t *testing.T) {
	needLLC(t)
	dir := t.TempDir()
	t.Setenv("TLE_CACHE_DIR", dir)
	t.Setenv("TLE_LOG", "jit")
	resetJIT()
	k := tutorialKernel(t, "vector_add")
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "256"}}
	g := GPUOptions{Toolchain: "llc"}

	var first *Binary
	var err error
	log := captureStderr(t, func() { first, err = k.Compile(opts, g) })
	require.NoError(t, err)
	require.Contains(t, log, "compiling (not in the cache)")
	entries, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	require.Len(t, entries, 1)

	// A new process (empty memory cache) loads the entry from disk.
	resetJIT()
	log = captureStderr(t, func() { _, err = k.Compile(opts, g) })
	require.NoError(t, err)
	require.Contains(t, log, "loaded from")

	// A corrupt entry is detected and rebuilt, with the same result.
	data, err := os.ReadFile(entries[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(entries[0], bytes.Replace(data, []byte("ld.global"), []byte("ld.glbal"), 1), 0o644))
	resetJIT()
	var again *Binary
	log = captureStderr(t, func() { again, err = k.Compile(opts, g) })
	require.NoError(t, err)
	require.Contains(t, log, "corrupt (checksum mismatch); rebuilding")
	require.Equal(t, first.PTX, again.PTX)

	// Another specialisation is another entry.
	_, err = k.Compile(CompileOptions{Defines: map[string]string{"BLOCK": "512"}}, g)
	require.NoError(t, err)
	entries, _ = filepath.Glob(filepath.Join(dir, "*.json"))
	require.Len(t, entries, 2)
}

func TestJITCompilesOnceUnderConcurrency(t *testing.T) {
	needLLC(t)
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	t.Setenv("TLE_LOG", "jit")
	resetJIT()
	k := tutorialKernel(t, "softmax")
	log := captureStderr(t, func() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := k.Compile(CompileOptions{Defines: map[string]string{"BLOCK": "1024"}}, GPUOptions{Toolchain: "llc"})
				require.NoError(t, err)
			}()
		}
		wg.Wait()
	})
	require.Equal(t, 1, strings.Count(log, "compiling"), log)
}

func TestRunArgumentErrors(t *testing.T) {
	k := tutorialKernel(t, "vector_add")
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "64"}}
	x := NewTensor(100)
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"x": x, "y": x, "out": x}, "argument n (i32) is missing"},
		{map[string]any{"x": x, "y": x, "out": x, "n": 100, "m": 1}, "argument m: the kernel vector_add has no runtime parameter named so"},
		{map[string]any{"x": 3, "y": x, "out": x, "n": 100}, "argument x (*f32) needs a tensor, got int"},
		{map[string]any{"x": (*Tensor)(nil), "y": x, "out": x, "n": 100}, "x is None (bound with -D x=None): it can only be compared with None"},
		{map[string]any{"x": x, "y": x, "out": x, "n": "100"}, `argument n (i32): want an integer in [-2147483648, 2147483647], got string "100"`},
		{map[string]any{"x": x, "y": x, "out": x, "n": 2.5}, "argument n (i32): want an integer in [-2147483648, 2147483647], got float64 2.5"},
		{map[string]any{"x": &Tensor{Shape: []int{10}, Data: make([]float64, 9)}, "y": x, "out": x, "n": 100}, "argument x: shape [10] holds 10 elements but the data has 9"},
	}
	for _, c := range cases {
		err := k.Run(CPU(), [3]int{2, 1, 1}, opts, c.args)
		require.ErrorContains(t, err, c.want)
	}
	require.ErrorContains(t, k.Run(CPU(), [3]int{0, 1, 1}, opts, map[string]any{"x": x, "y": x, "out": x, "n": 100}), "grid [0 1 1]: dimension 0 (x) is 0; every dimension must be at least 1")
}

func TestDeviceArgumentErrors(t *testing.T) {
	k := tutorialKernel(t, "vector_add")
	good := &DeviceBuffer{Ptr: 0x1000, DType: ir.F32, N: 100}
	cases := []struct {
		args []any
		want string
	}{
		{[]any{good, good, good}, "vector_add takes 4 runtime arguments (x *f32, y *f32, out *f32, n i32), got 3"},
		{[]any{good, &DeviceBuffer{DType: good.DType}, good, 100}, "argument y (*f32) is a nil pointer"},
		{[]any{good, good, &DeviceBuffer{Ptr: 0x1004, DType: good.DType}, 100}, "argument out (*f32) is not 16-byte aligned (0x1004)"},
		{[]any{good, &DeviceBuffer{Ptr: 0x2000, DType: ir.BF16}, good, 100}, "argument y (*f32): the buffer holds bf16"},
		{[]any{good, good, NewTensor(3), 100}, "argument out (*f32) needs a *tle.DeviceBuffer, got *tle.Tensor"},
		{[]any{good, good, good, 1.5}, "argument n (i32): want an integer in [-2147483648, 2147483647], got float64 1.5"},
		{[]any{good, good, good, int64(1) << 40}, "argument n (i32): 1099511627776 is out of range [-2147483648, 2147483647]"},
	}
	for _, c := range cases {
		_, _, err := deviceArgs(k.Name(), k.hostParams(nil), c.args)
		require.ErrorContains(t, err, c.want)
	}
	vals, div16, err := deviceArgs(k.Name(), k.hostParams(nil), []any{good, good, good, 96})
	require.NoError(t, err)
	require.Equal(t, int32(96), vals[3])
	require.Equal(t, []string{"n"}, div16)
}

func TestAsmOnTheGPUAndBackendErrorPositions(t *testing.T) {
	needLLC(t)
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	prog, err := Parse("asm.tle", []byte(`kernel k(out *f32, x f32) {
    lane := asm("mov.u32 $0, %laneid;", out: i32)
    y := asm("add.f32 $0, $1, $2;", x, cast(lane, f32), out: f32)
    store(out + program_id(0), y)
}

kernel bad(out *f32) {
    v := asm("mov.f32 $0, $1;", full([64], 1.5, f32), out: [64]f32)
    store(out + arange(0, 64), v)
}
`))
	require.NoError(t, err)
	k, _ := prog.Kernel("k")
	b, err := k.Compile(CompileOptions{}, GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Regexp(t, `mov\.u32\s+%r\d+, %laneid;`, b.PTX)
	require.Regexp(t, `add\.f32\s+%f\d+, %f\d+, %f\d+;`, b.PTX)
	bad, _ := prog.Kernel("bad")
	_, err = bad.Compile(CompileOptions{}, GPUOptions{Toolchain: "llc"})
	require.EqualError(t, err, "asm.tle:8:10: error: asm: asm takes and returns scalars on the GPU, not [64]f32")
}

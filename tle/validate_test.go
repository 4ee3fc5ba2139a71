package tle

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
)

// vectorAdd is the tutorial's kernel; without BLOCK bound it cannot be
// compiled, so an error about anything else was found before compiling.
func vectorAdd(t *testing.T) *Kernel {
	t.Helper()
	return tutorialKernel(t, "vector_add")
}

// tutorialKernel loads kernel name from kernels/tutorials/name.tle.
func tutorialKernel(t *testing.T, name string) *Kernel {
	t.Helper()
	prog, err := LoadFile("../kernels/tutorials/" + name + ".tle")
	require.NoError(t, err)
	k, err := prog.Kernel(name)
	require.NoError(t, err)
	return k
}

var block64 = CompileOptions{Defines: map[string]string{"BLOCK": "64"}}

func vaArgs(n any) map[string]any {
	x := NewTensor(100)
	return map[string]any{"x": x, "y": x, "out": x, "n": n}
}

func TestNilDevice(t *testing.T) {
	k := vectorAdd(t)
	err := k.Run(nil, [3]int{2, 1, 1}, block64, vaArgs(100))
	require.EqualError(t, err, "tle: running vector_add: the device is nil (use tle.CPU() or a GPU from tle.OpenGPU())")
	var g *GPU
	err = k.Run(g, [3]int{2, 1, 1}, block64, vaArgs(100))
	require.EqualError(t, err, "tle: running vector_add: the device is a nil *tle.GPU (use one from tle.OpenGPU())")
	require.Equal(t, "nil *tle.GPU", g.Name())
	_, err = g.Prepare(k, block64, [3]int{2, 1, 1}, nil, nil, nil, 100)
	require.EqualError(t, err, "tle: Prepare on a nil *tle.GPU (use one from tle.OpenGPU())")
	_, err = g.Alloc(ir.F32, 4)
	require.ErrorContains(t, err, "nil *tle.GPU")
	require.ErrorContains(t, g.Launch(nil, [3]int{1, 1, 1}), "nil *tle.GPU")
	var nk *Kernel
	require.EqualError(t, nk.Run(CPU(), [3]int{1, 1, 1}, block64, nil), "tle: Run on a nil *tle.Kernel")
	require.ErrorContains(t, k.RunContext(nil, CPU(), [3]int{1, 1, 1}, block64, vaArgs(100)), "the context is nil") //nolint:staticcheck // a nil context is what is tested
}

func TestNewTensorPanics(t *testing.T) {
	require.PanicsWithValue(t, "tle.NewTensor: negative dimension -1 in shape [-1]", func() { NewTensor(-1) })
	require.PanicsWithValue(t, "tle.NewTensor: shape [4294967296 4294967296] has more elements than an int can count", func() { NewTensor(1<<32, 1<<32) })
	require.Len(t, NewTensor(3, 0, 1<<62, 1<<62).Data, 0)
	require.Len(t, NewTensor().Data, 1)
}

// Bad tensors, scalars and grids are refused before compiling: the
// kernel's BLOCK is not bound, so compiling would fail with another error.
func TestRunValidatesBeforeCompiling(t *testing.T) {
	k := vectorAdd(t)
	unbound := CompileOptions{}
	x := NewTensor(100)
	args := func(kv ...any) map[string]any {
		a := map[string]any{"x": x, "y": x, "out": x, "n": 100}
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	cases := []struct {
		args map[string]any
		grid [3]int
		want string
	}{
		{args("n", int64(1)<<40), [3]int{2, 1, 1}, "argument n (i32): 1099511627776 is out of range [-2147483648, 2147483647]"},
		{args("n", uint64(1)<<63), [3]int{2, 1, 1}, "argument n (i32): 9223372036854775808 is out of range [-2147483648, 2147483647]"},
		{args("n", true), [3]int{2, 1, 1}, "argument n (i32): want an integer in [-2147483648, 2147483647], got bool true"},
		{args("n", 100.0), [3]int{2, 1, 1}, "argument n (i32): want an integer in [-2147483648, 2147483647], got float64 100"},
		{args("n", float32(2)), [3]int{2, 1, 1}, "argument n (i32): want an integer in [-2147483648, 2147483647], got float32 2"},
		{args("x", &Tensor{Shape: []int{-1, -2}, Data: make([]float64, 2)}), [3]int{2, 1, 1}, "argument x (*f32): negative dimension -1 in shape [-1 -2]"},
		{args("x", &Tensor{Shape: []int{1 << 62, 1 << 62, 4}}), [3]int{2, 1, 1}, "argument x (*f32): shape [4611686018427387904 4611686018427387904 4] has more elements than an int can count"},
		{args("BLOCK", 64), [3]int{2, 1, 1}, "argument BLOCK: BLOCK is a compile-time parameter of vector_add: bind it with CompileOptions.Defines"},
		{args(), [3]int{1 << 31, 1, 1}, "grid [2147483648 1 1]: dimension 0 (x) is 2147483648, above the limit of 2147483647 (x <= 2^31-1, y and z <= 65535, as in CUDA)"},
		{args(), [3]int{1, 65536, 1}, "grid [1 65536 1]: dimension 1 (y) is 65536, above the limit of 65535 (x <= 2^31-1, y and z <= 65535, as in CUDA)"},
		{args(), [3]int{1, 1, 1 << 16}, "grid [1 1 65536]: dimension 2 (z) is 65536, above the limit of 65535"},
		{args(), [3]int{1, -1, 1}, "grid [1 -1 1]: dimension 1 (y) is -1; every dimension must be at least 1"},
	}
	for _, c := range cases {
		err := k.Run(CPU(), c.grid, unbound, c.args)
		require.ErrorContains(t, err, c.want)
	}
	// bound, the same checks hold (and the good arguments run)
	require.ErrorContains(t, k.Run(CPU(), [3]int{2, 1, 1}, block64, args("n", int64(1)<<40)), "out of range")
	require.NoError(t, k.Run(CPU(), [3]int{2, 1, 1}, block64, args("n", uint8(100))))
}

func TestScalarRanges(t *testing.T) {
	prog, err := Parse("s.tle", []byte(`kernel k(out *f32, h f16, b bf16, flag i1, u u32) {
    store(out + program_id(0), cast(h, f32) + cast(b, f32) + cast(flag, f32) + cast(u, f32))
}
`))
	require.NoError(t, err)
	k, _ := prog.Kernel("k")
	run := func(h, b, flag, u any) (*Tensor, error) {
		out := NewTensor(1)
		return out, k.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, map[string]any{"out": out, "h": h, "b": b, "flag": flag, "u": u})
	}
	_, err = run(1e30, 0, false, 0)
	require.EqualError(t, err, "argument h (f16): 1e+30 is out of range [-65504, 65504]")
	_, err = run(70000, 0, false, 0)
	require.EqualError(t, err, "argument h (f16): 70000 is out of range [-65504, 65504]")
	_, err = run(0, 1e39, false, 0)
	require.EqualError(t, err, "argument b (bf16): 1e+39 is out of range [-3.3895313892515355e+38, 3.3895313892515355e+38]")
	_, err = run(0, 0, 2, 0)
	require.EqualError(t, err, "argument flag (i1): 2 is out of range [0, 1] (i1 takes a bool, 0 or 1)")
	_, err = run(0, 0, 1.0, 0)
	require.EqualError(t, err, "argument flag (i1): want a bool, 0 or 1, got float64 1")
	_, err = run(0, 0, 0, -1)
	require.EqualError(t, err, "argument u (u32): -1 is out of range [0, 4294967295]")
	_, err = run(true, 0, 0, 0)
	require.EqualError(t, err, "argument h (f16): want a number in [-65504, 65504], got bool true")
	out, err := run(65504.0, 2, true, uint32(1)<<31)
	require.NoError(t, err)
	sum, u := float32(65504+2+1), float32(0x1p31)
	require.Equal(t, float64(sum+u), out.Data[0])
	_, err = run(0, 3e38, 0, 0)
	require.NoError(t, err)
	out, err = run(math.Inf(-1), 0, 1, 0)
	require.NoError(t, err)
	require.True(t, math.IsInf(out.Data[0], -1))
}

// spinSrc loops 2e9 times in each program: minutes on the interpreter.
const spinSrc = `kernel spin(out *f32) {
    acc := 0
    for i := range 2000000000 {
        acc = acc + i
    }
    store(out + program_id(0), cast(acc, f32))
}
`

func spinKernel(t *testing.T) *Kernel {
	t.Helper()
	prog, err := Parse("spin.tle", []byte(spinSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("spin")
	require.NoError(t, err)
	return k
}

// A limit test: a 2 s deadline stops a launch that would run for minutes.
func TestRunContextDeadline(t *testing.T) {
	k := spinKernel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := k.RunContext(ctx, CPU(), [3]int{4, 1, 1}, CompileOptions{}, map[string]any{"out": NewTensor(4)})
	elapsed := time.Since(start)
	require.Less(t, elapsed, 1400*time.Millisecond)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Regexp(t, `^interp: launch of spin timed out after (0\.\d+s|\d+(\.\d+)?ms): context deadline exceeded; 0 of 4 programs finished; still running: programs? \(0, 0, 0\)`, err.Error())
}

func TestRunContextCancelEndsTheGoroutines(t *testing.T) {
	k := spinKernel(t)
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	err := k.RunContext(ctx, CPU(), [3]int{16, 1, 1}, CompileOptions{}, map[string]any{"out": NewTensor(16)})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "interp: launch of spin was cancelled after ")
	require.ErrorContains(t, err, "context canceled; 0 of 16 programs finished; still running: program")
	n := 0
	for range 100 {
		if n = runtime.NumGoroutine(); n <= base {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, n, base, "goroutines after the cancelled launch")

	// a context that has ended is refused before compiling
	err = vectorAdd(t).RunContext(ctx, CPU(), [3]int{2, 1, 1}, CompileOptions{}, vaArgs(100))
	require.EqualError(t, err, "vector_add not launched: context canceled")
	require.True(t, errors.Is(err, context.Canceled))
}

// endsAfter is a context whose Err is nil for its first n calls and
// context.Canceled after: it ends between RunContext's checks.
type endsAfter struct {
	context.Context
	n atomic.Int32
}

func (c *endsAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// fakeGPU is a GPU on runtime/cuda's fake driver (testdata/fakecuda): its
// "vadd" kernel adds two f32 vectors, whatever PTX names it.
func fakeGPU(t *testing.T) *GPU {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler (%s) for the fake driver", cc)
	}
	lib := filepath.Join(t.TempDir(), "libfakecuda.so")
	// -Bsymbolic: the fake's functions that call each other
	// (cuMemcpyDtoDAsync calls cuMemcpyDtoD) call their own library's,
	// not the one an earlier test of the process loaded, whose context
	// is not current
	out, err := exec.Command(cc, "-std=c11", "-O1", "-shared", "-fPIC", "-Wl,-Bsymbolic", "-o", lib, "../runtime/cuda/testdata/fakecuda/fakecuda.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	d, err := cuda.LoadFrom(lib)
	require.NoError(t, err)
	ctx, err := d.Open(0)
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	return &GPU{ctx: ctx, name: "fake", loaded: map[string]*gpuKernel{}}
}

// fakeVadd is the fake GPU (through llc-19, a JIT cache of the test's
// own) and a vadd kernel for it.
func fakeVadd(t *testing.T) (*GPU, *Kernel) {
	t.Helper()
	needLLC(t)
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	g := fakeGPU(t).With(GPUOptions{Toolchain: "llc"})
	prog, err := Parse("vadd.tle", []byte(`kernel vadd(x *f32, y *f32, out *f32, n i32) {
    offs := program_id(0)*128 + arange(0, 128)
    store(out + offs, load(x + offs, mask: offs < n, other: 0) + load(y + offs, mask: offs < n, other: 0), mask: offs < n)
}
`))
	require.NoError(t, err)
	k, err := prog.Kernel("vadd")
	require.NoError(t, err)
	return g, k
}

func TestGPUChecks(t *testing.T) {
	g, k := fakeVadd(t)
	x := &Tensor{Shape: []int{4}, Data: []float64{1, 2, 3, 4}}
	args := func() map[string]any { return map[string]any{"x": x, "y": x, "out": NewTensor(4), "n": 4} }

	a := args()
	require.NoError(t, k.Run(g, [3]int{1, 1, 1}, CompileOptions{}, a))
	require.Equal(t, []float64{2, 4, 6, 8}, a["out"].(*Tensor).Data)

	// the context is checked again once the kernel is compiled and the
	// tensors are uploaded: nothing is launched after it ends
	a = args()
	ctx := &endsAfter{Context: context.Background()}
	ctx.n.Store(2)
	err := k.RunContext(ctx, g, [3]int{1, 1, 1}, CompileOptions{}, a)
	require.EqualError(t, err, "vadd not launched: context canceled")
	require.Equal(t, []float64{0, 0, 0, 0}, a["out"].(*Tensor).Data)

	require.ErrorContains(t, k.Run(g, [3]int{1 << 31, 1, 1}, CompileOptions{}, args()), "grid [2147483648 1 1]: dimension 0 (x) is 2147483648, above the limit")
	_, err = g.Prepare(k, CompileOptions{}, [3]int{1, 65536, 1})
	require.ErrorContains(t, err, "grid [1 65536 1]: dimension 1 (y) is 65536, above the limit of 65535")

	buf, err := g.Upload(ir.F32, x.Data)
	require.NoError(t, err)
	defer g.Free(buf)
	_, err = g.Prepare(k, CompileOptions{}, [3]int{1, 1, 1}, buf, buf, buf, uint64(1)<<63)
	require.EqualError(t, err, "argument n (i32): 9223372036854775808 is out of range [-2147483648, 2147483647]")
	_, err = g.Prepare(k, CompileOptions{}, [3]int{1, 1, 1}, buf, buf, buf, true)
	require.EqualError(t, err, "argument n (i32): want an integer in [-2147483648, 2147483647], got bool true")
	p, err := g.Prepare(k, CompileOptions{}, [3]int{1, 1, 1}, buf, buf, buf, int32(4))
	require.NoError(t, err)
	require.NoError(t, p.Launch())
	require.NoError(t, p.Close())
	require.ErrorContains(t, g.Launch(p.gk, [3]int{1, 1, 65536}, buf.Ptr, buf.Ptr, buf.Ptr, int32(4)), "vadd: grid [1 1 65536]: dimension 2 (z) is 65536, above the limit")
}

func TestScratchBytesOverflow(t *testing.T) {
	bin := &Binary{Kernel: "k", ScratchBytes: 128}
	n, err := scratchBytes(bin, [3]int{4, 2, 1})
	require.NoError(t, err)
	require.Equal(t, 1024, n)
	_, err = scratchBytes(bin, [3]int{MaxGridX, MaxGridYZ, MaxGridYZ})
	require.ErrorContains(t, err, "k: the scratch of its make_desc maps for grid [2147483647 65535 65535] (128 bytes per program) does not fit an int")
}

// An architecture the backend has no code for is refused by Build and
// Compile, naming the targets (it used to write `.target sm_12345`).
func TestUnknownArchRefused(t *testing.T) {
	prog, err := Parse("k.tle", []byte("kernel k(x *f32) {\n    store(x + arange(0, 4), zeros([4], f32))\n}\n"))
	require.NoError(t, err)
	k, err := prog.Kernel("k")
	require.NoError(t, err)
	_, err = k.Build(CompileOptions{}, GPUOptions{Arch: "sm_12345"}, "ll")
	require.ErrorContains(t, err, `arch "sm_12345": not a target of this compiler (targets: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a)`)
	_, err = k.Compile(CompileOptions{}, GPUOptions{Arch: "sm_12345"})
	require.ErrorContains(t, err, `arch "sm_12345"`)
	_, err = k.Build(CompileOptions{}, GPUOptions{Arch: "sm_90"}, "ll")
	require.NoError(t, err)
}

// Integer buffers take integers in their dtype's range, exact in float64:
// a fraction, NaN, an infinity or an out-of-range value used to be
// converted silently, and differently by the interpreter and the GPU.
func TestIntBufferElements(t *testing.T) {
	prog, err := Parse("c.tle", []byte(`kernel cp(x *i32, u *u8, b *i1, w *i64, out *f32) {
    store(out + arange(0, 4), zeros([4], f32))
}
`))
	require.NoError(t, err)
	k, err := prog.Kernel("cp")
	require.NoError(t, err)
	ok := func() map[string]any {
		return map[string]any{"x": &Tensor{Shape: []int{2}, Data: []float64{-5, 7}}, "u": &Tensor{Shape: []int{1}, Data: []float64{255}},
			"b": &Tensor{Shape: []int{1}, Data: []float64{1}}, "w": &Tensor{Shape: []int{1}, Data: []float64{-(1 << 53)}}, "out": NewTensor(4)}
	}
	require.NoError(t, k.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, ok()))
	for _, tc := range []struct {
		arg  string
		v    float64
		want string
	}{
		{"x", 1.5, "argument x (*i32): element 1 is 1.5; a i32 buffer takes integers in [-2147483648, 2147483647]"},
		{"x", math.NaN(), "element 1 is NaN"},
		{"x", math.Inf(1), "element 1 is +Inf"},
		{"x", 3e9, "element 1 is 3e+09"},
		{"u", -1, "argument u (*u8): element 0 is -1; a u8 buffer takes integers in [0, 255]"},
		{"b", 2, "a i1 buffer takes integers in [0, 1]"},
		{"w", 1<<53 + 2, "a i64 buffer takes integers in [-9007199254740992, 9007199254740992]"},
	} {
		args := ok()
		d := args[tc.arg].(*Tensor).Data
		d[len(d)-1] = tc.v
		require.ErrorContains(t, k.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, args), tc.want, "%s=%v", tc.arg, tc.v)
	}
}

// Warps and CTAs per SM beyond what the hardware has are refused (128 warps
// wrote .maxntid 4096; -1 warps silently meant 4).
func TestCompileOptionLimits(t *testing.T) {
	prog, err := Parse("k.tle", []byte("kernel k(x *f32) {\n    store(x + arange(0, 128), zeros([128], f32))\n}\n"))
	require.NoError(t, err)
	k, err := prog.Kernel("k")
	require.NoError(t, err)
	args := func() map[string]any { return map[string]any{"x": NewTensor(128)} }
	for _, tc := range []struct {
		opts CompileOptions
		want string
	}{
		{CompileOptions{NumWarps: 128}, "num warps 128: want a power of two from 1 to 32"},
		{CompileOptions{NumWarps: -1}, "num warps -1"},
		{CompileOptions{NumWarps: 6}, "num warps 6"},
		{CompileOptions{MinCTAsPerSM: -100}, "min CTAs per SM -100"},
		{CompileOptions{MinCTAsPerSM: 1000000}, "min CTAs per SM 1000000"},
		{CompileOptions{NumStages: -1}, "num stages -1"},
		{CompileOptions{NumStages: 9}, "num stages 9"},
	} {
		require.ErrorContains(t, k.Run(CPU(), [3]int{1, 1, 1}, tc.opts, args()), tc.want)
		_, err := k.Build(tc.opts, GPUOptions{}, "ll")
		require.ErrorContains(t, err, tc.want)
	}
	require.NoError(t, k.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{NumWarps: 32, MinCTAsPerSM: 2}, args()))
}

// A StridedTensor binds a desc parameter to a permuted layout on every
// device; its shape and strides are checked by TMA's rules before
// anything is compiled, naming the argument.
func TestStridedTensorDesc(t *testing.T) {
	const src = `
kernel k(x desc[f32, 1, 8, 16], out *f32) {
    buf := alloc([8, 16], f32)
    bar := barrier(count: 1)
    expect(bar, 8 * 16 * 4)
    copy(x, buf, program_id(0), 0, 0, barrier: bar)
    wait(bar, 0)
    r := arange(0, 8)
    c := arange(0, 16)
    store(out + program_id(0)*128 + r[:, None]*16 + c[None, :], load(buf))
}
`
	prog, err := Parse("k.tle", []byte(src))
	require.NoError(t, err)
	k, err := prog.Kernel("k")
	require.NoError(t, err)
	// x is [3, 8, 16] stored as [8, 3, 16] (its first two dimensions swapped)
	data := make([]float64, 3*8*16)
	for i := range data {
		data[i] = float64(i%251) + 0.5
	}
	run := func(x any) (*Tensor, error) {
		out := NewTensor(3 * 128)
		return out, k.Run(CPU(), [3]int{3, 1, 1}, CompileOptions{}, map[string]any{"x": x, "out": out})
	}
	out, err := run(&StridedTensor{Shape: []int{3, 8, 16}, Strides: []int{16, 48, 1}, Data: data})
	require.NoError(t, err)
	for p := 0; p < 3; p++ {
		for r := 0; r < 8; r++ {
			for c := 0; c < 16; c++ {
				require.Equal(t, data[r*48+p*16+c], out.Data[p*128+r*16+c], "(%d, %d, %d)", p, r, c)
			}
		}
	}
	for _, c := range []struct {
		x    any
		want string
	}{
		{(*StridedTensor)(nil), "argument x (desc[f32, 1, 8, 16]) is a nil *tle.StridedTensor"},
		{&StridedTensor{Shape: []int{3, 8, 16}, Strides: []int{1, 48, 3}, Data: data}, "argument x (desc[f32, 1, 8, 16]): the innermost stride must be 1 for TMA"},
		{&StridedTensor{Shape: []int{3, 8, 16}, Strides: []int{18, 54, 1}, Data: make([]float64, 512)}, "argument x (desc[f32, 1, 8, 16]): TMA needs strides that are multiples of 16 bytes; strides [18 54 1]"},
		{&StridedTensor{Shape: []int{3, 8, 16}, Strides: []int{16, 48, 1}, Data: data[:300]}, "argument x (desc[f32, 1, 8, 16]): a tensor of shape [3 8 16] and strides [16 48 1] reaches element 383 of a buffer of 300"},
		{&StridedTensor{Shape: []int{24, 16}, Strides: []int{16, 1}, Data: data}, "argument x (desc[f32, 1, 8, 16]) needs a rank-3 tensor, got shape [24 16]"},
		{&StridedTensor{Shape: []int{3, 8, 16}, Strides: []int{48, 1}, Data: data}, "argument x (desc[f32, 1, 8, 16]): 2 strides for shape [3 8 16]"},
	} {
		_, err := run(c.x)
		require.ErrorContains(t, err, c.want)
	}
	// only a desc parameter takes one
	out = NewTensor(3 * 128)
	err = k.Run(CPU(), [3]int{3, 1, 1}, CompileOptions{}, map[string]any{"x": &Tensor{Shape: []int{3, 8, 16}, Data: data}, "out": &StridedTensor{Shape: []int{384}, Strides: []int{1}, Data: out.Data}})
	require.ErrorContains(t, err, "argument out (*f32) needs a tensor, got *tle.StridedTensor")
}

// A cluster kernel's launch may be a programmatic dependent launch, and
// MaxActiveClusters queries
// the driver with the launch's cluster shape; a kernel without a
// device_mesh has no clusters to count.
func TestGPUClusterPDLLaunch(t *testing.T) {
	needLLC(t)
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	g := fakeGPU(t).With(GPUOptions{Toolchain: "llc"})
	prog, err := Parse("vadd.tle", []byte(`kernel vadd(x *f32, y *f32, out *f32, n i32) {
    mesh := device_mesh(cluster_x: 2)
    grid_dependency_wait()
    offs := program_id(0)*128 + arange(0, 128)
    store(out + offs, load(x + offs, mask: offs < n, other: 0) + load(y + offs, mask: offs < n, other: 0), mask: offs < n)
    distributed_barrier(mesh)
}
`))
	require.NoError(t, err)
	k, _ := prog.Kernel("vadd")
	buf, err := g.Upload(ir.F32, make([]float64, 256))
	require.NoError(t, err)
	defer g.Free(buf)
	p, err := g.Prepare(k, CompileOptions{}, [3]int{2, 1, 1}, buf, buf, buf, int32(256))
	require.NoError(t, err)
	defer p.Close()
	require.Equal(t, [3]int{2, 1, 1}, p.Binary().Cluster)
	// both attributes in one cuLaunchKernelEx (runtime/cuda's fake tests
	// check their layout: TestFakeProgrammaticDependentLaunch)
	require.NoError(t, p.LaunchWith(LaunchOptions{PDL: true}))
	n, err := p.MaxActiveClusters()
	require.NoError(t, err)
	require.Equal(t, 132, n, "the fake's 264 CTAs in clusters of 2")

	plain, err := Parse("plain.tle", []byte("kernel vadd(x *f32) {\n    store(x + arange(0, 128), zeros([128], f32))\n}\n"))
	require.NoError(t, err)
	pk, _ := plain.Kernel("vadd")
	pp, err := g.Prepare(pk, CompileOptions{}, [3]int{1, 1, 1}, buf)
	require.NoError(t, err)
	defer pp.Close()
	_, err = pp.MaxActiveClusters()
	require.ErrorContains(t, err, "vadd has no cluster")
}

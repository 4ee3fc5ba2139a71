package cuda

// Tests against testdata/fakecuda, a stand-in libcuda/libnvvm compiled with
// the system C compiler (skipped where there is none). They run the real
// purego calls, the off-heap argument block, the C layouts of the launch
// structs (the fake declares them as cuda.h does) and the per-call
// cuCtxSetCurrent discipline (the fake refuses calls from a thread where the
// context is not current).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/tlego/tle/internal/fakelib"
)

var (
	fake     = &fakelib.Builder{Name: "fakecuda", Src: filepath.Join("testdata", "fakecuda", "fakecuda.c")}
	fakeMu   sync.Mutex
	fakeDrvs = map[string]*Driver{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	fake.Cleanup()
	os.Exit(code)
}

// fakeLib builds the fake library with the given -D flags (once per set).
func fakeLib(t testing.TB, defines ...string) string {
	t.Helper()
	return fake.Lib(t, defines...)
}

func fakeDriver(t testing.TB, defines ...string) *Driver {
	t.Helper()
	lib := fakeLib(t, defines...)
	fakeMu.Lock()
	defer fakeMu.Unlock()
	if d, ok := fakeDrvs[lib]; ok {
		return d
	}
	d, err := LoadFrom(lib)
	if err != nil {
		t.Fatal(err)
	}
	fakeDrvs[lib] = d
	return d
}

func fakeContext(t testing.TB, defines ...string) *Context {
	t.Helper()
	c, err := fakeDriver(t, defines...).Open(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fakeGet reads a counter of the fake (fake_get in fakecuda.c).
func fakeGet(t testing.TB, d *Driver, key string) int64 { return fakeQuery(t, d, "fake_get", key) }

// fakeLayout reads the C compiler's size or offset key (fake_layout).
func fakeLayout(t testing.TB, d *Driver, key string) int64 {
	return fakeQuery(t, d, "fake_layout", key)
}

// fakeQuery calls the fake's function sym on the C string key.
func fakeQuery(t testing.TB, d *Driver, sym, key string) int64 {
	t.Helper()
	fn, err := dlsym(d.handle, sym)
	if err != nil {
		t.Fatal(err)
	}
	k := cBytes(key)
	return int64(callPtr(fn, uintptr(unsafe.Pointer(&k[0]))))
}

// The C compiler's layout of the launch structs equals the Go one.
func TestFakeCLayoutMatchesGo(t *testing.T) {
	d := fakeDriver(t)
	var c CULaunchConfig
	var a CULaunchAttribute
	for _, x := range []struct {
		key string
		got uintptr
	}{
		{"config.size", unsafe.Sizeof(c)},
		{"config.sharedMemBytes", unsafe.Offsetof(c.SharedMemBytes)},
		{"config.hStream", unsafe.Offsetof(c.HStream)},
		{"config.attrs", unsafe.Offsetof(c.Attrs)},
		{"config.numAttrs", unsafe.Offsetof(c.NumAttrs)},
		{"attr.size", unsafe.Sizeof(a)},
		{"attr.value", unsafe.Offsetof(a.Value)},
	} {
		if want := fakeLayout(t, d, x.key); int64(x.got) != want {
			t.Errorf("%s: Go %d, C %d", x.key, x.got, want)
		}
	}
}

func TestFakeDeviceProps(t *testing.T) {
	c := fakeContext(t)
	p, err := c.Dev.Props()
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Fake H200" || p.Major != 9 || p.Minor != 0 || p.SMCount != 132 ||
		p.MaxSharedPerBlockOptin != 232448 || p.L2CacheSize != 62914560 || p.ClockKHz != 1980000 ||
		!p.ClusterLaunch || p.TotalMem != 150754820096 || p.Arch() != "sm_90a" {
		t.Errorf("props %+v", p)
	}
	if c.d.Version != 13000 {
		t.Errorf("driver version %d", c.d.Version)
	}
	if _, err := c.d.Open(1); !errors.Is(err, ErrNoDevice) {
		t.Errorf("Open(1) = %v, want ErrNoDevice", err)
	}
}

func TestFakeMemoryRoundTrip(t *testing.T) {
	c := fakeContext(t)
	src := []float32{1, 2, 3, 4.5, -7}
	p, err := Upload(c, src)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(p)
	q, err := c.Alloc(len(src) * 4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(q)
	s, err := c.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	if err := c.CopyDtoDAsync(q, p, len(src)*4, s); err != nil {
		t.Fatal(err)
	}
	if got := fakeGet(t, c.d, "stream"); got != int64(s.Handle()) || got == 0 {
		t.Errorf("async copy went to stream %#x, want %#x", got, s.Handle())
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	dst := make([]float32, len(src))
	if err := Download(c, dst, q); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dst, src) {
		t.Errorf("round trip %v, want %v", dst, src)
	}
	if err := c.MemsetD32(q, math.Float32bits(2.5), 2); err != nil {
		t.Fatal(err)
	}
	if err := c.MemsetD8Async(q+8, 0, 4, s); err != nil {
		t.Fatal(err)
	}
	if err := Download(c, dst, q); err != nil {
		t.Fatal(err)
	}
	if want := []float32{2.5, 2.5, 0, 4.5, -7}; !slices.Equal(dst, want) {
		t.Errorf("after memset %v, want %v", dst, want)
	}
	h, err := c.AllocHost(20)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CopyDtoHAsync(h.Bytes, p, s); err != nil {
		t.Fatal(err)
	}
	if math.Float32frombits(binary.LittleEndian.Uint32(h.Bytes[12:])) != 4.5 {
		t.Errorf("host buffer % x", h.Bytes)
	}
	if err := h.Free(); err != nil {
		t.Fatal(err)
	}
	if free, total, err := c.MemGetInfo(); err != nil || free != 100 || total != 200 {
		t.Errorf("MemGetInfo %d %d %v", free, total, err)
	}
	if _, err := c.Alloc(0); err == nil {
		t.Error("Alloc(0) succeeded")
	}
}

// Many goroutines, each call from whatever thread, some of whose threads
// had their current context cleared: every call still finds the context.
func TestFakeContextOnEveryThread(t *testing.T) {
	c := fakeContext(t)
	clear, err := dlsym(c.d.handle, "fake_clear_current")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if i%7 == 0 {
					runtime.LockOSThread()
					call(clear)
					runtime.UnlockOSThread()
				}
				p, err := c.Alloc(64)
				if err == nil {
					err = c.CopyHtoD(p, make([]byte, 64))
				}
				if err == nil {
					err = c.Free(p)
				}
				if err != nil {
					errs <- err
					return
				}
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Without the package's cuCtxSetCurrent the fake refuses: the check is real.
	runtime.LockOSThread()
	call(clear)
	var p DevicePtr
	r := call(c.d.cuMemAlloc, uintptr(unsafe.Pointer(&p)), 64)
	runtime.UnlockOSThread()
	if Result(r) != ErrorInvalidContext {
		t.Errorf("raw cuMemAlloc with no current context = %d, want 201", r)
	}
}

const fakePTX = "// kernels: vadd params_probe cluster_info\n"

func TestFakeJITErrorLog(t *testing.T) {
	c := fakeContext(t)
	_, err := c.LoadPTX([]byte(".version 8.0\nBADPTX\n"))
	if err == nil {
		t.Fatal("bad PTX loaded")
	}
	want := "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed): ptxas application ptx input, line 3; error   : fake syntax error"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != ErrorInvalidPTX || !strings.Contains(ce.Log, "fake syntax error") {
		t.Errorf("error %#v", err)
	}
	m, err := c.LoadPTX([]byte(fakePTX))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unload()
	if m.InfoLog != "ptxas info    : Used 8 registers" {
		t.Errorf("info log %q", m.InfoLog)
	}
	if _, err := m.Function("nope"); err == nil || !strings.Contains(err.Error(), `kernel "nope": cuModuleGetFunction: CUDA_ERROR_NOT_FOUND`) {
		t.Errorf("missing kernel error %v", err)
	}
}

func fakeFunction(t testing.TB, c *Context, name string) *Function {
	t.Helper()
	return LoadFunction(t, c, []byte(fakePTX), name)
}

func vaddSetup(t testing.TB, c *Context, n int) (a, b, out DevicePtr, l *Launcher) {
	x := make([]float32, n)
	y := make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), float32(10*i)
	}
	var err error
	if a, err = Upload(c, x); err != nil {
		t.Fatal(err)
	}
	if b, err = Upload(c, y); err != nil {
		t.Fatal(err)
	}
	if out, err = c.Alloc(4 * n); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Free(a); c.Free(b); c.Free(out) })
	f := fakeFunction(t, c, "vadd")
	if l, err = f.NewLauncher(ParamPtr, ParamPtr, ParamPtr, ParamI32); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	l.SetPtr(0, a)
	l.SetPtr(1, b)
	l.SetPtr(2, out)
	l.SetI32(3, int32(n))
	return
}

func checkVadd(t *testing.T, c *Context, out DevicePtr, n int) {
	t.Helper()
	got := make([]float32, n)
	if err := Download(c, got, out); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != float32(11*i) {
			t.Fatalf("out[%d] = %v, want %v", i, got[i], 11*i)
		}
	}
}

func TestFakeLaunchVectorAdd(t *testing.T) {
	c := fakeContext(t)
	const n = 1000
	_, _, out, l := vaddSetup(t, c, n)
	cfg := LaunchConfig{Grid: Dim3{X: 8}, Block: Dim3{X: 128}, SharedMem: 4096}
	if err := l.Launch(&cfg); err != nil {
		t.Fatal(err)
	}
	checkVadd(t, c, out, n)
	for k, want := range map[string]int64{"grid_x": 8, "grid_y": 1, "grid_z": 1, "block_x": 128, "block_y": 1,
		"smem": 4096, "num_attrs": 0, "used_ex": 1, "stream": 0} {
		if got := fakeGet(t, c.d, k); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
	// The classic entry point.
	if err := c.MemsetD8(out, 0, 4*n); err != nil {
		t.Fatal(err)
	}
	if err := l.LaunchKernel(&cfg); err != nil {
		t.Fatal(err)
	}
	checkVadd(t, c, out, n)
	if fakeGet(t, c.d, "used_ex") != 0 || fakeGet(t, c.d, "smem") != 4096 || fakeGet(t, c.d, "block_x") != 128 {
		t.Error("cuLaunchKernel got the wrong configuration")
	}
	// The convenience path.
	if err := c.MemsetD8(out, 0, 4*n); err != nil {
		t.Fatal(err)
	}
	x, _ := Upload(c, make([]float32, n))
	defer c.Free(x)
	if err := l.f.Launch(LaunchConfig{Grid: Dim3{X: 4}, Block: Dim3{X: 256}}, DevicePtr(x), DevicePtr(x), out, int32(n)); err != nil {
		t.Fatal(err)
	}
	if err := l.f.Launch(cfg, x, 1); err == nil || !strings.Contains(err.Error(), "argument 1") {
		t.Errorf("bad argument error %v", err)
	}
	if err := l.Launch(&LaunchConfig{Block: Dim3{X: 1}}); err == nil {
		t.Error("grid of 0 accepted")
	}
}

func TestFakeClusterLaunch(t *testing.T) {
	c := fakeContext(t)
	_, _, out, l := vaddSetup(t, c, 256)
	s, err := c.NewStream(StreamDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	cfg := LaunchConfig{Grid: Dim3{X: 4, Y: 2}, Block: Dim3{X: 64}, Cluster: Dim3{X: 2}, Stream: s}
	if err := l.Launch(&cfg); err != nil {
		t.Fatal(err)
	}
	checkVadd(t, c, out, 256)
	for k, want := range map[string]int64{"grid_x": 4, "grid_y": 2, "num_attrs": 1, "cluster_x": 2,
		"cluster_y": 1, "cluster_z": 1, "stream": int64(s.Handle())} {
		if got := fakeGet(t, c.d, k); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
	cfg.Cluster = Dim3{X: 3}
	err = l.Launch(&cfg)
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != ErrorInvalidClusterSize || !strings.Contains(err.Error(), "kernel vadd grid (4,2,1)") {
		t.Errorf("bad cluster error %v", err)
	}
	if err := l.LaunchKernel(&LaunchConfig{Grid: Dim3{X: 2}, Block: Dim3{X: 1}, Cluster: Dim3{X: 2}}); err == nil {
		t.Error("LaunchKernel accepted a cluster")
	}
}

// Every parameter kind reaches the kernel with the right bytes, and the
// tensor map is 64-byte aligned.
func TestFakeParamsProbe(t *testing.T) {
	c := fakeContext(t)
	f := fakeFunction(t, c, "params_probe")
	out, err := c.Alloc(256)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(out)
	var tm TensorMap
	for i := range tm.Opaque {
		tm.Opaque[i] = uint64(i)*0x0101010101010101 + 1
	}
	args := []any{out, int32(-5), float32(1.5), int64(-1 << 40), 2.25, &tm, int16(-2), int8(7)}
	if err := f.Launch(LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 1}}, args...); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4+4+8+8+128+2+1+1)
	if err := c.CopyDtoH(got, out); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, v := range []any{int32(-5), float32(1.5), int64(-1 << 40), 2.25, tm.Opaque, int16(-2), int8(7), uint8(1)} {
		binary.Write(&want, binary.LittleEndian, v)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("kernel saw\n% x\nwant\n% x", got, want.Bytes())
	}
}

func TestFakeLaunchDoesNotAllocate(t *testing.T) {
	c := fakeContext(t)
	_, _, _, l := vaddSetup(t, c, 64)
	cfg := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 64}, Cluster: Dim3{X: 1}}
	allocs := testing.AllocsPerRun(200, func() {
		l.SetI32(3, 64)
		if err := l.Launch(&cfg); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Launch allocates %.1f times per call", allocs)
	}
}

// BenchmarkFakeLaunch is the host-side cost of the package itself (Go,
// purego, two C calls) with a driver that does nothing but record.
func BenchmarkFakeLaunch(b *testing.B) {
	c := fakeContext(b)
	_, _, _, l := vaddSetup(b, c, 16)
	cfg := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 64}}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Launch(&cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFakeEventsAndAttributes(t *testing.T) {
	c := fakeContext(t)
	start, err := c.NewEvent(EventDefault)
	if err != nil {
		t.Fatal(err)
	}
	end, err := c.NewEvent(EventBlockingSync)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error { return start.Record(nil) },
		func() error { return end.Record(nil) },
		func() error { return end.Record(nil) },
		end.Synchronize, c.Synchronize,
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := end.Since(start)
	if err != nil || ms != 1.0 {
		t.Errorf("elapsed %v %v, want 1 ms", ms, err)
	}
	start.Destroy()
	end.Destroy()

	f := fakeFunction(t, c, "vadd")
	if err := f.SetMaxDynamicSharedMemory(200 << 10); err != nil {
		t.Fatal(err)
	}
	if v, err := f.Attribute(FuncMaxDynamicSharedSizeBytes); err != nil || v != 200<<10 {
		t.Errorf("max dynamic smem %d %v", v, err)
	}
	if r, err := f.NumRegs(); err != nil || r != 8 {
		t.Errorf("regs %d %v", r, err)
	}
	if err := f.SetAttribute(FuncAttribute(99), 1); err == nil || !strings.Contains(err.Error(), "cuFuncSetAttribute: CUDA_ERROR_INVALID_VALUE") {
		t.Errorf("bad attribute error %v", err)
	}
}

func TestFakeTensorMapEncode(t *testing.T) {
	c := fakeContext(t)
	buf, err := c.Alloc(64 * 256 * 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(buf)
	m, err := c.EncodeTiled(TiledSpec{
		DataType: TensorBFloat16, Global: buf, Dims: []uint64{256, 64}, Strides: []uint64{512},
		Box: []uint32{64, 32}, Swizzle: Swizzle128B, L2Promotion: L2Promotion256B,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [16]uint64{9, 2, uint64(buf), 256, 64, 0, 0, 0, 512, 0, 0, 0, 64 | 32<<16, 1 | 1<<8, 0 | 3<<8 | 3<<16, 0xfeedface}
	if m.Opaque != want {
		t.Errorf("map %v\nwant %v", m.Opaque, want)
	}
	if _, err := c.EncodeTiled(TiledSpec{DataType: TensorBFloat16, Global: buf + 2, Dims: []uint64{8}, Box: []uint32{8}}); err == nil {
		t.Error("misaligned global accepted")
	}
}

// A driver without cuLaunchKernelEx / cuTensorMapEncodeTiled: plain launches
// fall back to cuLaunchKernel, clusters and tensor maps are clean errors.
func TestFakeOldDriver(t *testing.T) {
	c := fakeContext(t, "NO_EX")
	_, _, out, l := vaddSetup(t, c, 100)
	if err := l.Launch(&LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 128}}); err != nil {
		t.Fatal(err)
	}
	checkVadd(t, c, out, 100)
	if fakeGet(t, c.d, "used_ex") != 0 {
		t.Error("did not use cuLaunchKernel")
	}
	if err := l.Launch(&LaunchConfig{Grid: Dim3{X: 2}, Block: Dim3{X: 1}, Cluster: Dim3{X: 2}}); err != errClusterNeedsEx {
		t.Errorf("cluster on an old driver: %v", err)
	}
	_, err := c.EncodeTiled(goodSpec())
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "cuTensorMapEncodeTiled") {
		t.Errorf("tensor map on an old driver: %v", err)
	}
}

func TestFakeNVVM(t *testing.T) {
	n, err := LoadNVVMFrom(fakeLib(t))
	if err != nil {
		t.Fatal(err)
	}
	if a, b, err := n.Version(); err != nil || a != 2 || b != 0 {
		t.Errorf("version %d.%d %v", a, b, err)
	}
	if a, b, c, d, err := n.IRVersion(); err != nil || a != 2 || b != 0 || c != 3 || d != 2 {
		t.Errorf("ir version %d %d %d %d %v", a, b, c, d, err)
	}
	ir := []byte("define void @k() { ret void }")
	ptx, log, err := n.Compile([]NVVMModule{{Name: "k.ll", IR: ir}}, "-arch=compute_90a", "-opt=3")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ptx), "// options: -arch=compute_90a -opt=3") || !strings.Contains(string(ptx), "ir bytes: 29") || log != "" {
		t.Errorf("ptx %q log %q", ptx, log)
	}
	_, log, err = n.Compile([]NVVMModule{{Name: "k.ll", IR: []byte("syntax error")}}, "-arch=compute_90a")
	var ne *NVVMError
	if !errors.As(err, &ne) || ne.Code != 9 || log != "fake.ll(1): error: syntax error" ||
		err.Error() != "nvvmCompileProgram: NVVM_ERROR_COMPILATION (nvvmResult 9):\nfake.ll(1): error: syntax error" {
		t.Errorf("compile error %v, log %q", err, log)
	}
	if _, _, err = n.Compile([]NVVMModule{{Name: "k.ll", IR: ir}}, "arch"); !errors.As(err, &ne) || ne.Code != 7 {
		t.Errorf("bad option error %v", err)
	}
}

// A launch into a capturing stream is recorded, not run, and runs at each
// replay of the instantiated graph; an old driver's capture is an error.
func TestFakeGraphCapture(t *testing.T) {
	c := fakeContext(t)
	const n = 300
	_, _, out, l := vaddSetup(t, c, n)
	if err := c.MemsetD8(out, 0, 4*n); err != nil {
		t.Fatal(err)
	}
	if err := (*Stream)(nil).BeginCapture(); err == nil {
		t.Error("capture of the legacy default stream accepted")
	}
	s, err := c.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	if err := s.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	cfg := LaunchConfig{Grid: Dim3{X: 3}, Block: Dim3{X: 128}, Stream: s, ProgrammaticStreamSerialization: true}
	if err := l.Launch(&cfg); err != nil {
		t.Fatal(err)
	}
	e, err := s.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Destroy()
	if got := fakeGet(t, c.d, "captured"); got != 1 {
		t.Errorf("captured %d launches, want 1", got)
	}
	var got [n]float32
	if err := c.CopyDtoH(AsBytes(got[:]), out); err != nil {
		t.Fatal(err)
	}
	if got[n-1] != 0 {
		t.Fatal("a captured launch ran at capture time")
	}
	replays := fakeGet(t, c.d, "replays")
	if err := e.Launch(nil); err != nil {
		t.Fatal(err)
	}
	checkVadd(t, c, out, n)
	if fakeGet(t, c.d, "replays") != replays+1 {
		t.Error("the graph launch was not a replay")
	}
	if err := e.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := e.Launch(nil); err == nil {
		t.Error("launch of a destroyed graph accepted")
	}

	old := fakeContext(t, "NO_EX")
	so, err := old.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer so.Destroy()
	if err := so.BeginCapture(); !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "cuStreamBeginCapture_v2") {
		t.Errorf("capture on an old driver: %v", err)
	}
}

package cuda_test

// Tests on a real GPU; each skips (cudatest.Require) where there is none.
// On the GPU host run: TLE_REQUIRE_GPU=1 go test ./runtime/cuda/ -run GPU -v -bench GPU

import (
	"errors"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/cuda/cudatest"
)

func loadPTX(t testing.TB, c *cuda.Context, file, kernel string) *cuda.Function {
	t.Helper()
	src, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return cuda.LoadFunction(t, c, src, kernel)
}

func TestGPUDeviceProps(t *testing.T) {
	c := cudatest.Require(t)
	p, err := c.Dev.Props()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("driver %d, %+v", c.Driver().Version, p)
	if p.SMCount <= 0 || p.WarpSize != 32 || p.MaxSharedPerBlockOptin < p.MaxSharedPerBlock || p.L2CacheSize <= 0 || p.ClockKHz <= 0 {
		t.Errorf("implausible props %+v", p)
	}
	free, total, err := c.MemGetInfo()
	if err != nil || free == 0 || total < free {
		t.Errorf("MemGetInfo %d %d %v", free, total, err)
	}
}

func TestGPUAllocCopyRoundTrip(t *testing.T) {
	c := cudatest.Require(t)
	const n = 1 << 20
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(i) * 0.5
	}
	p, err := cuda.Upload(c, src)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(p)
	q, err := c.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(q)
	s, err := c.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	if err := c.CopyDtoDAsync(q, p, 4*n, s); err != nil {
		t.Fatal(err)
	}
	h, err := c.AllocHost(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Free()
	if err := c.CopyDtoHAsync(h.Bytes, q, s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if string(h.Bytes) != string(cuda.AsBytes(src)) {
		t.Fatal("async round trip through a pinned buffer differs")
	}
	if err := c.MemsetD8(q, 0, 4*n); err != nil {
		t.Fatal(err)
	}
	if err := c.MemsetD32(q+4, 0x3f800000, 2); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 4)
	if err := cuda.Download(c, got, q); err != nil {
		t.Fatal(err)
	}
	if got[0] != 0 || got[1] != 1 || got[2] != 1 || got[3] != 0 {
		t.Errorf("after memset: %v", got)
	}
}

func TestGPUVectorAddPTX(t *testing.T) {
	c := cudatest.Require(t)
	f := loadPTX(t, c, "vadd.ptx", "vadd")
	regs, err := f.NumRegs()
	if err != nil {
		t.Fatal(err)
	}
	local, err := f.LocalSize()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vadd: %d registers, %d bytes local", regs, local)
	const n = 100_003 // not a multiple of the block
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), float32(2*i)+0.25
	}
	da, _ := cuda.Upload(c, a)
	db, _ := cuda.Upload(c, b)
	dc, err := c.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(da)
	defer c.Free(db)
	defer c.Free(dc)
	l, err := f.NewLauncher(cuda.ParamPtr, cuda.ParamPtr, cuda.ParamPtr, cuda.ParamI32)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.SetPtr(0, da)
	l.SetPtr(1, db)
	l.SetPtr(2, dc)
	l.SetI32(3, n)
	if err := l.Launch(&cuda.LaunchConfig{Grid: cuda.Dim3{X: (n + 255) / 256}, Block: cuda.Dim3{X: 256}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := cuda.Download(c, got, dc); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != a[i]+b[i] {
			t.Fatalf("c[%d] = %v, want %v", i, got[i], a[i]+b[i])
		}
	}
	// Classic cuLaunchKernel and the convenience path give the same.
	if err := c.MemsetD8(dc, 0, 4*n); err != nil {
		t.Fatal(err)
	}
	if err := f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: (n + 127) / 128}, Block: cuda.Dim3{X: 128}}, da, db, dc, int32(n)); err != nil {
		t.Fatal(err)
	}
	if err := cuda.Download(c, got, dc); err != nil {
		t.Fatal(err)
	}
	if got[n-1] != a[n-1]+b[n-1] {
		t.Fatalf("convenience launch: c[n-1] = %v", got[n-1])
	}
}

// Dynamic shared memory above 48 KB needs the opt-in attribute.
func TestGPUMaxDynamicShared(t *testing.T) {
	c := cudatest.Require(t)
	p, err := c.Dev.Props()
	if err != nil {
		t.Fatal(err)
	}
	f := loadPTX(t, c, "vadd.ptx", "vadd")
	smem := p.MaxSharedPerBlockOptin
	cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 32}, SharedMem: smem}
	zero := cuda.DevicePtr(0)
	if err := f.Launch(cfg, zero, zero, zero, int32(0)); err == nil {
		t.Logf("launch with %d bytes of dynamic smem worked without opt-in", smem)
	}
	if err := f.SetMaxDynamicSharedMemory(smem); err != nil {
		t.Fatal(err)
	}
	if err := f.Launch(cfg, zero, zero, zero, int32(0)); err != nil {
		t.Fatalf("launch with %d bytes after opt-in: %v", smem, err)
	}
	if err := c.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

func TestGPUJITErrorLog(t *testing.T) {
	c := cudatest.Require(t)
	bad := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() {\n\tbogus.instruction %r1;\n\tret;\n}\n"
	_, err := c.LoadPTX([]byte(bad))
	if err == nil {
		t.Fatal("bad PTX loaded")
	}
	t.Logf("error: %v", err)
	var ce *cuda.Error
	if !errors.As(err, &ce) || ce.Code != cuda.ErrorInvalidPTX {
		t.Fatalf("error %v, want CUDA_ERROR_INVALID_PTX", err)
	}
	if !strings.HasPrefix(err.Error(), "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (") || !strings.Contains(ce.Log, "ptxas") {
		t.Errorf("error text lacks ptxas's message: %q", err)
	}
}

func TestGPUClusterLaunch(t *testing.T) {
	c := cudatest.RequireSM90(t)
	f := loadPTX(t, c, "cluster.ptx", "cluster_info")
	const grid = 8
	out, err := c.Alloc(4 * 3 * grid)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(out)
	if err := c.MemsetD8(out, 0xff, 4*3*grid); err != nil {
		t.Fatal(err)
	}
	l, err := f.NewLauncher(cuda.ParamPtr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.SetPtr(0, out)
	if err := l.Launch(&cuda.LaunchConfig{Grid: cuda.Dim3{X: grid}, Block: cuda.Dim3{X: 32}, Cluster: cuda.Dim3{X: 2}}); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 3*grid)
	if err := cuda.Download(c, got, out); err != nil {
		t.Fatal(err)
	}
	for b := 0; b < grid; b++ {
		rank, n, id := got[3*b], got[3*b+1], got[3*b+2]
		if rank != uint32(b%2) || n != 2 || id != uint32(b/2) {
			t.Errorf("block %d: cluster rank %d of %d, cluster %d; want %d of 2, cluster %d", b, rank, n, id, b%2, b/2)
		}
	}
	// A grid that is not a multiple of the cluster should be refused at launch.
	err = l.Launch(&cuda.LaunchConfig{Grid: cuda.Dim3{X: 3}, Block: cuda.Dim3{X: 32}, Cluster: cuda.Dim3{X: 2}})
	t.Logf("grid 3, cluster 2: %v; then synchronize: %v", err, c.Synchronize())
}

// A 2-D bf16 tensor map, used by a TMA load (cp.async.bulk.tensor) of a
// 32 x 8 box, inside and across the tensor's edge (zero fill).
func TestGPUTensorMap2DBF16(t *testing.T) {
	c := cudatest.RequireSM90(t)
	const rows, cols = 16, 64
	host := make([]uint16, rows*cols)
	for i := range host {
		host[i] = uint16(i + 1)
	}
	g, err := cuda.Upload(c, host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(g)
	m, err := c.EncodeTiled(cuda.TiledSpec{
		DataType: cuda.TensorBFloat16, Global: g,
		Dims: []uint64{cols, rows}, Strides: []uint64{cols * 2},
		Box: []uint32{32, 8}, Swizzle: cuda.SwizzleNone,
	})
	if err != nil {
		t.Fatal(err)
	}
	var zero cuda.TensorMap
	if m == zero {
		t.Fatal("encoded tensor map is all zeros")
	}
	// The same spec with 64B swizzle encodes too (inner box 64 bytes).
	if _, err := c.EncodeTiled(cuda.TiledSpec{DataType: cuda.TensorBFloat16, Global: g, Dims: []uint64{cols, rows},
		Strides: []uint64{cols * 2}, Box: []uint32{32, 8}, Swizzle: cuda.Swizzle64B, L2Promotion: cuda.L2Promotion128B}); err != nil {
		t.Fatal(err)
	}
	f := loadPTX(t, c, "tma.ptx", "tma_load_2d")
	out, err := c.Alloc(512)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(out)
	l, err := f.NewLauncher(cuda.ParamTensorMap, cuda.ParamPtr, cuda.ParamI32, cuda.ParamI32)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.SetTensorMap(0, &m)
	l.SetPtr(1, out)
	for _, at := range [][2]int{{32, 8}, {48, 12}} {
		x, y := at[0], at[1]
		l.SetI32(2, int32(x))
		l.SetI32(3, int32(y))
		if err := l.Launch(&cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 1}}); err != nil {
			t.Fatal(err)
		}
		got := make([]uint16, 256)
		if err := cuda.Download(c, got, out); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < 8; r++ {
			for k := 0; k < 32; k++ {
				want := uint16(0)
				if y+r < rows && x+k < cols {
					want = host[(y+r)*cols+x+k]
				}
				if got[r*32+k] != want {
					t.Fatalf("box at (%d,%d): [%d][%d] = %d, want %d", x, y, r, k, got[r*32+k], want)
				}
			}
		}
	}
}

func TestGPUEventTiming(t *testing.T) {
	c := cudatest.Require(t)
	start, err := c.NewEvent(cuda.EventDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer start.Destroy()
	end, err := c.NewEvent(cuda.EventDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer end.Destroy()
	const n = 64 << 20
	p, err := c.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(p)
	start.Record(nil)
	for i := 0; i < 10; i++ {
		if err := c.MemsetD8Async(p, byte(i), n, nil); err != nil {
			t.Fatal(err)
		}
	}
	end.Record(nil)
	if err := end.Synchronize(); err != nil {
		t.Fatal(err)
	}
	ms, err := end.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("10 memsets of 64 MiB: %.3f ms (%.0f GB/s)", ms, 10*n/float64(ms)/1e6)
	if ms <= 0 || ms > 10_000 {
		t.Errorf("elapsed %v ms", ms)
	}
}

// TestGPULaunchHostCost reports the host-side cost of one launch of a cached
// kernel (the goal is under 5 us); it fails only far above the goal.
func TestGPULaunchHostCost(t *testing.T) {
	c := cudatest.Require(t)
	f := loadPTX(t, c, "vadd.ptx", "vadd")
	l, err := f.NewLauncher(cuda.ParamPtr, cuda.ParamPtr, cuda.ParamPtr, cuda.ParamI32)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.SetI32(3, 0) // n = 0: the kernel does nothing
	cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 128}}
	var per []time.Duration
	for round := 0; round < 20; round++ {
		if err := c.Synchronize(); err != nil {
			t.Fatal(err)
		}
		const k = 200
		t0 := time.Now()
		for i := 0; i < k; i++ {
			if err := l.Launch(&cfg); err != nil {
				t.Fatal(err)
			}
		}
		per = append(per, time.Since(t0)/k)
	}
	sort.Slice(per, func(i, j int) bool { return per[i] < per[j] })
	t.Logf("host-side launch cost: median %v, best %v (goal < 5us)", per[len(per)/2], per[0])
	if per[len(per)/2] > 50*time.Microsecond {
		t.Errorf("launch costs %v on the host", per[len(per)/2])
	}
}

// BenchmarkGPULaunch: host-side cost of Launcher.Launch of a cached kernel,
// synchronising every 1000 launches so the queue never fills.
func BenchmarkGPULaunch(b *testing.B) {
	c := cudatest.Require(b)
	b.ReportAllocs()
	benchLaunch(b, c, cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 128}})
}

// BenchmarkGPULaunchCluster is BenchmarkGPULaunch with a cluster attribute.
func BenchmarkGPULaunchCluster(b *testing.B) {
	c := cudatest.RequireSM90(b)
	benchLaunch(b, c, cuda.LaunchConfig{Grid: cuda.Dim3{X: 2}, Block: cuda.Dim3{X: 128}, Cluster: cuda.Dim3{X: 2}})
}

// benchLaunch times launches of vadd (n = 0) with cfg.
func benchLaunch(b *testing.B, c *cuda.Context, cfg cuda.LaunchConfig) {
	f := loadPTX(b, c, "vadd.ptx", "vadd")
	l, err := f.NewLauncher(cuda.ParamPtr, cuda.ParamPtr, cuda.ParamPtr, cuda.ParamI32)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	l.SetI32(3, 0)
	i := 0
	for b.Loop() {
		if err := l.Launch(&cfg); err != nil {
			b.Fatal(err)
		}
		if i++; i%1000 == 0 {
			b.StopTimer()
			c.Synchronize()
			b.StartTimer()
		}
	}
	c.Synchronize()
}

// libNVVM present: compile a tiny NVVM IR kernel, and run it when a GPU is.
func TestNVVMCompile(t *testing.T) {
	n, err := cuda.LoadNVVM()
	if err != nil {
		if os.Getenv("TLE_REQUIRE_GPU") == "1" {
			t.Fatalf("TLE_REQUIRE_GPU=1 but: %v", err)
		}
		t.Skipf("no libNVVM: %v", err)
	}
	major, minor, err := n.Version()
	if err != nil {
		t.Fatal(err)
	}
	irMajor, irMinor, _, _, err := n.IRVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("libNVVM %s: version %d.%d, IR %d.%d", n.Path, major, minor, irMajor, irMinor)
	ir, err := os.ReadFile("testdata/scale.ll")
	if err != nil {
		t.Fatal(err)
	}
	ptx, log, err := n.Compile([]cuda.NVVMModule{{Name: "scale.ll", IR: ir}}, "-arch=compute_90a")
	if err != nil {
		t.Fatalf("%v\nlog: %s", err, log)
	}
	if !strings.Contains(string(ptx), ".entry scale") || !strings.Contains(string(ptx), "sm_90a") {
		t.Fatalf("PTX lacks the kernel or target:\n%s", ptx)
	}
	if _, _, err := n.Compile([]cuda.NVVMModule{{Name: "bad.ll", IR: []byte("this is not IR")}}, "-arch=compute_90a"); err == nil {
		t.Error("garbage IR compiled")
	} else {
		t.Logf("bad IR: %v", err)
	}
	c := cudatest.RequireSM90(t)
	m, err := c.LoadPTX(ptx)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unload()
	f, err := m.Function("scale")
	if err != nil {
		t.Fatal(err)
	}
	x := []float32{1, 2, 3, 4, 5}
	p, _ := cuda.Upload(c, x)
	defer c.Free(p)
	if err := f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 32}}, p, float32(3), int32(4)); err != nil {
		t.Fatal(err)
	}
	if err := cuda.Download(c, x, p); err != nil {
		t.Fatal(err)
	}
	if want := []float32{3, 6, 9, 12, 5}; x[0] != want[0] || x[3] != want[3] || x[4] != want[4] {
		t.Errorf("scale: %v, want %v", x, want)
	}
}

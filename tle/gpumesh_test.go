package tle

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/nccl"
)

// A mesh of GPUs without a GPU or without NCCL: clear errors, no panic.
// The launch's checks (the kernel's mesh size, the device-barrier area,
// what the ranks compare) are tested without a GPU; the launch itself
// needs GPUs (kernels/collectives' GPU test launches on a mesh).

const meshSrc = `kernel ar(x *f32, out *f32, n i32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    offs := program_id(0)*32 + arange(0, 32)
    distributed_barrier(mesh, axis: "device")
    store(out + offs, load(remote(x + offs, 1, mesh), mask: offs < n, other: 0), mask: offs < n)
}

kernel plain(x *f32, n i32) {
    offs := arange(0, 32)
    store(x + offs, zeros([32], f32), mask: offs < n)
}
`

func gpuMeshKernel(t *testing.T, name string) *Kernel {
	t.Helper()
	p, err := Parse("mesh.tle", []byte(meshSrc))
	if err != nil {
		t.Fatal(err)
	}
	k, err := p.Kernel(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestOpenGPUMeshErrors(t *testing.T) {
	if _, err := OpenGPUMesh(0, GPUMeshOptions{}); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("OpenGPUMesh(0): %v", err)
	}
	if _, err := OpenGPUMesh(2, GPUMeshOptions{HeapBytes: -1}); err == nil || !strings.Contains(err.Error(), "HeapBytes -1") {
		t.Errorf("a negative heap: %v", err)
	}
	_, err := OpenGPUMesh(2, GPUMeshOptions{NCCL: "/nonexistent/libnccl.so.2"})
	if !errors.Is(err, ErrNoNCCL) || !strings.Contains(err.Error(), "/nonexistent/libnccl.so.2") {
		t.Errorf("no NCCL: %v", err)
	}
	var m *GPUMesh
	if err := m.Launch(nil, CompileOptions{}, [3]int{1, 1, 1}, nil); err == nil || !strings.Contains(err.Error(), "nil or closed") {
		t.Errorf("Launch on a nil mesh: %v", err)
	}
	if m.Close() != nil {
		t.Error("Close of a nil mesh")
	}
	if m.World() != 0 || m.Ranks() != nil || m.GPU(0) != nil || m.Name() != "nil *tle.GPUMesh" {
		t.Error("a nil mesh's accessors")
	}
	if _, err := m.AllocSymmetric(F32, 4); err == nil {
		t.Error("AllocSymmetric on a nil mesh")
	}
	if m.Synchronize() == nil || m.NCCLAllReduce(nil, nil) == nil {
		t.Error("Synchronize or NCCLAllReduce on a nil mesh")
	}
	if _, err := m.Prepare(nil, CompileOptions{}, [3]int{1, 1, 1}, nil); err == nil {
		t.Error("Prepare on a nil mesh")
	}
	var p *MeshPrepared
	if p.Launch() == nil || p.Close() != nil {
		t.Error("a nil MeshPrepared")
	}
}

// With an NCCL (the fake) but no GPU, the error says there is no GPU.
func TestOpenGPUMeshNoGPU(t *testing.T) {
	if cuda.Available() == nil {
		t.Skip("a GPU is present: the fake NCCL cannot drive it")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler for the fake NCCL")
	}
	lib := filepath.Join(t.TempDir(), "libfakenccl.so")
	if out, err := exec.Command(cc, "-std=c11", "-shared", "-fPIC", "-pthread", "-o", lib, "../runtime/nccl/testdata/fakenccl/fakenccl.c").CombinedOutput(); err != nil {
		t.Fatalf("building the fake NCCL: %v\n%s", err, out)
	}
	_, err = OpenGPUMesh(2, GPUMeshOptions{NCCL: lib})
	if err == nil || errors.Is(err, ErrNoNCCL) || !(errors.Is(err, cuda.ErrNoDriver) || errors.Is(err, cuda.ErrNoDevice)) || !strings.Contains(err.Error(), "mesh of 2 GPUs") {
		t.Errorf("no GPU: %v", err)
	}
	t.Setenv("RANK", "0")
	t.Setenv("WORLD_SIZE", "2")
	t.Setenv("TLE_NCCL_ID_FILE", filepath.Join(t.TempDir(), "id"))
	_, err = JoinGPUMesh(t.Context(), GPUMeshOptions{NCCL: lib})
	if err == nil || !(errors.Is(err, cuda.ErrNoDriver) || errors.Is(err, cuda.ErrNoDevice)) || !strings.Contains(err.Error(), "rank 0") {
		t.Errorf("JoinGPUMesh without a GPU: %v", err)
	}
	os.Unsetenv("RANK")
	if _, err := JoinGPUMesh(t.Context(), GPUMeshOptions{NCCL: lib}); err == nil || !strings.Contains(err.Error(), "$RANK") {
		t.Errorf("JoinGPUMesh outside torchrun: %v", err)
	}
}

func TestMeshWorld(t *testing.T) {
	k := gpuMeshKernel(t, "ar")
	for _, w := range []string{"2", "8"} {
		n, err := k.meshWorld(CompileOptions{Defines: map[string]string{"WORLD": w}})
		if err != nil || n != map[string]int{"2": 2, "8": 8}[w] {
			t.Errorf("WORLD=%s: %d, %v", w, n, err)
		}
	}
	if n, err := gpuMeshKernel(t, "plain").meshWorld(CompileOptions{}); n != 0 || err != nil {
		t.Errorf("a kernel without a mesh: %d, %v", n, err)
	}
}

// The checks before a launch, on a rank without a GPU (they come before
// the compile for the GPU).
func TestMeshLaunchChecks(t *testing.T) {
	m := &GPUMesh{world: 4}
	r := &meshRank{heap: &nccl.Heap{SyncBytes: DeviceSyncBytes(4, 16), Size: 1 << 20, Base: 1 << 20}}
	buf := func(n int) *DeviceBuffer { return &DeviceBuffer{Ptr: 1<<20 + 4096, DType: F32, N: n} }
	o := func(w string) CompileOptions { return CompileOptions{Defines: map[string]string{"WORLD": w}} }
	for _, c := range []struct {
		k    string
		opts CompileOptions
		grid [3]int
		args []any
		want string
	}{
		{"ar", o("2"), [3]int{1, 1, 1}, []any{buf(32), buf(32), int32(32)}, "ar's device_mesh has 2 devices, the mesh of GPUs 4"},
		{"ar", o("4"), [3]int{17, 1, 1}, []any{buf(32), buf(32), int32(32)}, "(17 programs) needs 544 bytes of device-barrier area, the heap reserved 512"},
		{"ar", o("4"), [3]int{1, 1, 1}, []any{buf(32), int32(32)}, "takes 3 runtime arguments"},
		{"plain", CompileOptions{}, [3]int{1, 1, 1}, []any{buf(32), int32(32)}, "plain has no device_mesh(device: N)"},
		{"ar", o("4"), [3]int{0, 1, 1}, []any{buf(32), buf(32), int32(32)}, "grid"},
	} {
		_, _, _, err := m.prepare(r, gpuMeshKernel(t, c.k), c.opts, c.grid, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.k, c.grid, err, c.want)
		}
	}
}

func TestLaunchRecord(t *testing.T) {
	k := gpuMeshKernel(t, "ar")
	heap := &nccl.Heap{Base: 0x100000, SyncBytes: 256, Size: 0x10000}
	bin := &Binary{Kernel: "ar", PTX: "ptx", NumWarps: 4, SmemBytes: 64}
	params := k.hostParams(map[string]string{"WORLD": "4"})
	inHeap := &DeviceBuffer{Ptr: 0x100000 + 512, DType: F32, N: 100}
	outside := &DeviceBuffer{Ptr: 0x900000, DType: F32, N: 8}
	rec := launchRecord(bin, [3]int{3, 1, 1}, params, []any{inHeap, outside, int32(5)}, heap)
	want := []nccl.BufferRecord{{Name: "x", Bytes: 400, Offset: 512}, {Name: "out", Bytes: 32, Offset: -1}}
	if rec.Kernel != "ar" || rec.Grid != [3]int{3, 1, 1} || rec.Block != 128 || rec.Smem != 64 || len(rec.Buffers) != 2 || rec.Buffers[0] != want[0] || rec.Buffers[1] != want[1] {
		t.Errorf("record: %+v", rec)
	}
	other := launchRecord(&Binary{Kernel: "ar", PTX: "other ptx", NumWarps: 4}, [3]int{3, 1, 1}, params, []any{inHeap, outside, int32(5)}, heap)
	if other.Binary == rec.Binary {
		t.Error("two builds have one hash")
	}
}

func TestSymmetricBufferFreeKeepsHeap(t *testing.T) {
	b := &DeviceBuffer{Ptr: 4096, DType: F32, N: 4, symmetric: true}
	g := &GPU{ctx: &cuda.Context{}}
	if err := g.Free(b); err != nil || b.Ptr != 0 {
		t.Errorf("Free of a symmetric buffer: %v, ptr %#x", err, b.Ptr)
	}
}

// On a host with two GPUs and NCCL, with no kernel: the heap's peer
// table reaches the peer's memory (a copy from heap_bases[1] + offset on
// rank 0 reads what rank 1 wrote), and NCCL's all-reduce through the
// binding sums.
func TestGPUMeshHeapAndNCCL(t *testing.T) {
	if err := cuda.Available(); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	m, err := OpenGPUMesh(2, GPUMeshOptions{HeapBytes: 1 << 20, MaxPrograms: 16})
	if err != nil {
		if errors.Is(err, ErrNoNCCL) || errors.Is(err, cuda.ErrNoDevice) {
			t.Skipf("no mesh of 2 GPUs: %v", err)
		}
		t.Fatal(err)
	}
	defer m.Close()
	for i, r := range m.ranks {
		h := r.heap
		if h.Bases[i] != h.Base || len(h.Bases) != 2 || h.SyncBytes < DeviceSyncBytes(2, 16) {
			t.Fatalf("rank %d's heap: %+v", i, h)
		}
		sync := make([]byte, h.SyncBytes)
		if err := r.gpu.ctx.CopyDtoH(sync, cuda.DevicePtr(h.Sync())); err != nil {
			t.Fatal(err)
		}
		for j, b := range sync {
			if b != 0 {
				t.Fatalf("rank %d's sync area byte %d is %d", i, j, b)
			}
		}
	}
	x, err := m.AllocSymmetric(F32, 256)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 256)
	for i := range want {
		want[i] = float64(i) + 0.5
	}
	if err := m.GPU(1).UploadTo(x[1], want); err != nil {
		t.Fatal(err)
	}
	g0 := m.GPU(0)
	local, err := g0.Alloc(F32, 256)
	if err != nil {
		t.Fatal(err)
	}
	defer g0.Free(local)
	h0 := m.ranks[0].heap
	peer := &DeviceBuffer{Ptr: DevicePtr(uint64(x[0].Ptr) - h0.Base + h0.Bases[1]), DType: F32, N: 256}
	if err := g0.CopyDtoD(local, peer, 256*4); err != nil {
		t.Fatal(err)
	}
	got, err := g0.Download(local)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rank 0 read %g at %d of rank 1's buffer through heap_bases, want %g", got[i], i, want[i])
		}
	}
	if err := m.GPU(0).UploadTo(x[0], want); err != nil {
		t.Fatal(err)
	}
	sum := []*DeviceBuffer{nil, nil}
	for i := range sum {
		if sum[i], err = m.GPU(i).Alloc(F32, 256); err != nil {
			t.Fatal(err)
		}
		defer m.GPU(i).Free(sum[i])
	}
	if err := m.NCCLAllReduce(x, sum); err != nil {
		t.Fatal(err)
	}
	if err := m.Synchronize(); err != nil {
		t.Fatal(err)
	}
	for i := range sum {
		got, err := m.GPU(i).Download(sum[i])
		if err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if got[j] != 2*want[j] {
				t.Fatalf("rank %d: NCCL's sum at %d is %g, want %g", i, j, got[j], 2*want[j])
			}
		}
	}
}

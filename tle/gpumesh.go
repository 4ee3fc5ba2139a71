package tle

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/nccl"
)

// ErrNoNCCL is matched (errors.Is) by the errors saying that no usable
// NCCL library was found (missing, too old, lacking a symbol).
var ErrNoNCCL = nccl.ErrNoNCCL

// GPUMeshOptions configure a mesh of GPUs.
type GPUMeshOptions struct {
	// NCCL is libnccl.so.2's path. Empty: $TLE_NCCL, then the CUDA
	// Python package (nvidia/nccl/lib under python3's site-packages),
	// then the system loader.
	NCCL string
	// HeapBytes is each rank's symmetric heap for buffers (AllocSymmetric);
	// 0: DefaultHeapBytes.
	HeapBytes int
	// MaxPrograms is the largest grid (in programs) a launch may have: the
	// device-barrier area is sized for it; 0: DefaultMaxPrograms.
	MaxPrograms int
	// Timeout bounds JoinGPUMesh's rendezvous; 0: 60 s.
	Timeout time.Duration
}

// The defaults of GPUMeshOptions.
const (
	DefaultHeapBytes   = 1 << 30
	DefaultMaxPrograms = 4096
)

// GPUMesh is GPUs joined by NCCL for kernels of a device mesh
// (device_mesh(device: WORLD); docs/distributed.md): every rank's
// communicator and symmetric heap. One process may drive every GPU of
// the host (OpenGPUMesh) or one GPU of a mesh of processes (JoinGPUMesh).
type GPUMesh struct {
	lib   *nccl.Library
	world int
	ranks []*meshRank // the ranks this process drives, in rank order
}

type meshRank struct {
	gpu  *GPU
	comm *nccl.Comm
	heap *nccl.Heap
}

// deviceSyncBytes is the device-barrier area a launch of programs
// programs on a mesh of world devices uses: per program 2*world u32
// counters.
// TODO(integrator): call nvptx.DeviceSyncBytes once the NVPTX lowering of
// device meshes is merged (the ABI both sides code to).
func deviceSyncBytes(world, programs int) int { return 8 * world * programs }

func (o GPUMeshOptions) sizes() (heap, sync int, err error) {
	heap, progs := o.HeapBytes, o.MaxPrograms
	if heap == 0 {
		heap = DefaultHeapBytes
	}
	if progs == 0 {
		progs = DefaultMaxPrograms
	}
	if heap < 0 || progs < 0 {
		return 0, 0, fmt.Errorf("tle: GPUMeshOptions HeapBytes %d, MaxPrograms %d: must not be negative", o.HeapBytes, o.MaxPrograms)
	}
	return heap, progs, nil
}

// OpenGPUMesh joins GPUs 0..n-1 of this host in one process: NCCL
// communicators from ncclCommInitAll, a symmetric heap on each.
func OpenGPUMesh(n int, o GPUMeshOptions) (*GPUMesh, error) {
	if n < 1 {
		return nil, fmt.Errorf("tle: OpenGPUMesh(%d): want at least 1 GPU", n)
	}
	heap, progs, err := o.sizes()
	if err != nil {
		return nil, err
	}
	lib, err := nccl.Open(nccl.Options{Library: o.NCCL})
	if err != nil {
		return nil, err
	}
	if err := cuda.Available(); err != nil {
		return nil, fmt.Errorf("tle: a mesh of %d GPUs: %w", n, err)
	}
	drv, err := cuda.Load()
	if err != nil {
		return nil, err
	}
	have, err := drv.DeviceCount()
	if err != nil {
		return nil, err
	}
	if have < n {
		return nil, fmt.Errorf("tle: a mesh of %d GPUs asked for, %d present: %w", n, have, cuda.ErrNoDevice)
	}
	m := &GPUMesh{lib: lib, world: n}
	devs := make([]nccl.Device, n)
	for d := range n {
		g, err := gpuOrdinal(d)
		if err != nil {
			return nil, err
		}
		m.ranks = append(m.ranks, &meshRank{gpu: g})
		devs[d] = nccl.CUDADevice(g.ctx)
	}
	comms, err := lib.InitAll(devs)
	if err != nil {
		return nil, err
	}
	for i, c := range comms {
		m.ranks[i].comm = c
	}
	if err := m.eachRank(func(r *meshRank) (err error) {
		r.heap, err = nccl.NewHeap(r.comm, heap, deviceSyncBytes(n, progs))
		return err
	}); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// JoinGPUMesh is this process's rank of a mesh of processes, one per GPU,
// as torchrun starts them: RANK, WORLD_SIZE and LOCAL_RANK say who it is
// (GPU LOCAL_RANK); rank 0's NCCL unique id reaches the others through the
// file $TLE_NCCL_ID_FILE or over TCP at MASTER_ADDR:$TLE_NCCL_PORT (default
// MASTER_PORT+1). Every rank calls it; it returns once all have joined.
func JoinGPUMesh(ctx context.Context, o GPUMeshOptions) (*GPUMesh, error) {
	heap, progs, err := o.sizes()
	if err != nil {
		return nil, err
	}
	rv, err := nccl.RendezvousFromEnv()
	if err != nil {
		return nil, err
	}
	rv.Timeout = o.Timeout
	lib, err := nccl.Open(nccl.Options{Library: o.NCCL})
	if err != nil {
		return nil, err
	}
	if err := cuda.Available(); err != nil {
		return nil, fmt.Errorf("tle: rank %d: %w", rv.Rank, err)
	}
	g, err := gpuOrdinal(rv.LocalRank)
	if err != nil {
		return nil, fmt.Errorf("tle: rank %d (LOCAL_RANK %d): %w", rv.Rank, rv.LocalRank, err)
	}
	comm, err := lib.JoinMesh(ctx, rv, nccl.CUDADevice(g.ctx))
	if err != nil {
		return nil, err
	}
	h, err := nccl.NewHeap(comm, heap, deviceSyncBytes(rv.World, progs))
	if err != nil {
		comm.Destroy()
		return nil, err
	}
	return &GPUMesh{lib: lib, world: rv.World, ranks: []*meshRank{{gpu: g, comm: comm, heap: h}}}, nil
}

var (
	gpusMu sync.Mutex
	gpus   = map[int]*GPU{}
)

// gpuOrdinal opens GPU d once per process (d 0 is OpenGPU's).
func gpuOrdinal(d int) (*GPU, error) {
	if d == 0 {
		return OpenGPU()
	}
	gpusMu.Lock()
	defer gpusMu.Unlock()
	if g, ok := gpus[d]; ok {
		return g, nil
	}
	ctx, err := cuda.Open(d)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("cuda:%d", d)
	if n, err := ctx.Dev.Name(); err == nil {
		name += " (" + n + ")"
	}
	g := &GPU{ctx: ctx, name: name, loaded: map[string]*gpuKernel{}}
	gpus[d] = g
	return g, nil
}

// eachRank runs fn for every rank of this process at once (the
// collective calls of one rank wait for the others') and joins the
// errors.
func (m *GPUMesh) eachRank(fn func(r *meshRank) error) error {
	errs := make([]error, len(m.ranks))
	var wg sync.WaitGroup
	for i, r := range m.ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(r)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// World is the number of ranks of the mesh.
func (m *GPUMesh) World() int { return m.world }

// Ranks are the ranks this process drives, in order.
func (m *GPUMesh) Ranks() []int {
	rs := make([]int, len(m.ranks))
	for i, r := range m.ranks {
		rs[i] = r.comm.Rank
	}
	return rs
}

// GPU is the GPU of the i-th rank this process drives.
func (m *GPUMesh) GPU(i int) *GPU { return m.ranks[i].gpu }

// Name says what the mesh is.
func (m *GPUMesh) Name() string {
	return fmt.Sprintf("%d GPUs (NCCL %s at %s, heap: %s), this process ranks %v", m.world, m.lib.Version, m.lib.Path, m.lib.Heap, m.Ranks())
}

// AllocSymmetric takes n elements of dt from every local rank's heap, at
// the same offset on every rank (when every rank allocates the same in
// the same order, which Launch checks): one buffer per local rank.
// remote(ptr, r, mesh) of a pointer into it reaches rank r's copy.
// The buffers live as long as the mesh (Free releases nothing).
func (m *GPUMesh) AllocSymmetric(dt DType, n int) ([]*DeviceBuffer, error) {
	if err := checkAlloc(dt, n); err != nil {
		return nil, err
	}
	bufs := make([]*DeviceBuffer, len(m.ranks))
	for i, r := range m.ranks {
		b, err := r.heap.Alloc(max(n*dt.Bytes(), 1))
		if err != nil {
			return nil, err
		}
		bufs[i] = &DeviceBuffer{Ptr: DevicePtr(b.Ptr), DType: dt, N: n, symmetric: true}
	}
	return bufs, nil
}

// meshWorld is the device count of the kernel's device_mesh (0 without
// one), read from its IR.
func (k *Kernel) meshWorld(opts CompileOptions) (int, error) {
	mod, err := k.compiled(opts)
	if err != nil {
		return 0, err
	}
	fn := mod.Func(k.Name())
	if fn == nil {
		return 0, fmt.Errorf("tle: kernel %s is not in its module", k.Name())
	}
	n := 0
	fn.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpDeviceMesh {
			n = int(op.Attrs.Int("devices", 0))
		}
	})
	return n, nil
}

// Launch compiles the kernel and launches it over grid on every rank this
// process drives, args[i] being the i-th local rank's arguments (as
// GPU.Prepare takes them: a *DeviceBuffer per pointer, symmetric ones
// from AllocSymmetric). It appends the hidden parameters of the device
// mesh ABI: the rank (i32), heap_bases (every rank's heap base, on the
// device) and sync (the device-barrier area). Before anything is
// launched, every rank checks that all ranks launch the same kernel
// build, grid and buffer sizes (an all-gather over NCCL), that the
// kernel's mesh has World devices, and that the grid's barriers fit the
// heap's sync area; an error on one rank is an error on all. It does not
// wait for the kernels.
func (m *GPUMesh) Launch(k *Kernel, opts CompileOptions, grid [3]int, args [][]any) error {
	if m == nil || len(m.ranks) == 0 {
		return errors.New("tle: Launch on a nil or closed *tle.GPUMesh")
	}
	if k == nil {
		return errors.New("tle: GPUMesh.Launch of a nil *tle.Kernel")
	}
	if len(args) != len(m.ranks) {
		return fmt.Errorf("tle: launching %s on ranks %v of the mesh: %d argument lists, want one per rank", k.Name(), m.Ranks(), len(args))
	}
	return m.eachRank(func(r *meshRank) error {
		i := 0
		for i < len(m.ranks) && m.ranks[i] != r {
			i++
		}
		gk, rec, err := m.prepare(r, k, opts, grid, args[i])
		if err != nil {
			// the other ranks still compare records: they learn of it
			// rather than wait for this one
			r.comm.AgreeLaunch(nccl.LaunchRecord{Kernel: k.Name() + " (failed on rank " + fmt.Sprint(r.comm.Rank) + ")"})
			return fmt.Errorf("rank %d: %w", r.comm.Rank, err)
		}
		if err := r.comm.AgreeLaunch(rec); err != nil {
			return fmt.Errorf("rank %d: %w", r.comm.Rank, err)
		}
		vals, _, _ := deviceArgs(k.Name(), k.hostParams(opts.Defines), args[i])
		hidden := []any{int32(r.comm.Rank), DevicePtr(r.heap.BasesDev), DevicePtr(r.heap.Sync())}
		return r.gpu.launchWith(gk, LaunchOptions{}, grid, vals, hidden)
	})
}

// prepare checks one rank's launch and compiles it: its launch record.
func (m *GPUMesh) prepare(r *meshRank, k *Kernel, opts CompileOptions, grid [3]int, args []any) (*gpuKernel, nccl.LaunchRecord, error) {
	var rec nccl.LaunchRecord
	if err := checkGrid(grid); err != nil {
		return nil, rec, err
	}
	if err := opts.validate(); err != nil {
		return nil, rec, err
	}
	opts = k.noneDefines(opts, func(_ string, i int) bool { return i < len(args) && isNilArg(args[i]) })
	params := k.hostParams(opts.Defines)
	_, div16, err := deviceArgs(k.Name(), params, args)
	if err != nil {
		return nil, rec, err
	}
	opts.Div16 = div16
	world, err := k.meshWorld(opts)
	if err != nil {
		return nil, rec, err
	}
	if world == 0 {
		return nil, rec, fmt.Errorf("tle: %s has no device_mesh(device: N); launch it on one GPU", k.Name())
	}
	if world != m.world {
		return nil, rec, fmt.Errorf("tle: %s's device_mesh has %d devices, the mesh of GPUs %d", k.Name(), world, m.world)
	}
	programs := grid[0] * grid[1] * grid[2]
	if need := deviceSyncBytes(world, programs); need > r.heap.SyncBytes {
		return nil, rec, fmt.Errorf("tle: %s over grid %v (%d programs) needs %d bytes of device-barrier area, the heap reserved %d (GPUMeshOptions.MaxPrograms %d)",
			k.Name(), grid, programs, need, r.heap.SyncBytes, r.heap.SyncBytes/(8*world))
	}
	gk, err := r.gpu.load(k, opts)
	if err != nil {
		return nil, rec, err
	}
	rec = launchRecord(gk.bin, grid, params, args, r.heap)
	return gk, rec, nil
}

// launchRecord is what the ranks compare before a launch.
func launchRecord(bin *Binary, grid [3]int, params []hostParam, args []any, heap *nccl.Heap) nccl.LaunchRecord {
	rec := nccl.LaunchRecord{Kernel: bin.Kernel, Grid: grid, Block: 32 * bin.NumWarps, Smem: bin.SmemBytes}
	sum := sha256.Sum256([]byte(bin.PTX))
	copy(rec.Binary[:], sum[:])
	for i, p := range params {
		b, ok := args[i].(*DeviceBuffer)
		if p.kind != pointerParam || !ok || b == nil {
			continue
		}
		off := -1
		if heap != nil && heap.Contains(uint64(b.Ptr), b.Bytes()) {
			off = int(uint64(b.Ptr) - heap.Base)
		}
		rec.Buffers = append(rec.Buffers, nccl.BufferRecord{Name: p.name, Bytes: b.Bytes(), Offset: off})
	}
	return rec
}

// Synchronize waits for every local rank's GPU and reports a
// communicator's asynchronous error.
func (m *GPUMesh) Synchronize() error {
	return m.eachRank(func(r *meshRank) error {
		if err := r.gpu.ctx.Synchronize(); err != nil {
			return fmt.Errorf("rank %d: %w", r.comm.Rank, err)
		}
		return r.comm.AsyncError()
	})
}

// Close releases the heaps and communicators (not the GPUs).
func (m *GPUMesh) Close() error {
	if m == nil {
		return nil
	}
	var errs []error
	for _, r := range m.ranks {
		if r.heap != nil {
			errs = append(errs, r.heap.Close())
		}
		if r.comm != nil {
			errs = append(errs, r.comm.Destroy())
		}
	}
	m.ranks = nil
	return errors.Join(errs...)
}

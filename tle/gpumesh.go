package tle

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
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
		r.heap, err = nccl.NewHeap(r.comm, heap, DeviceSyncBytes(n, progs))
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
	h, err := nccl.NewHeap(comm, heap, DeviceSyncBytes(rv.World, progs))
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
func (m *GPUMesh) World() int {
	if m == nil {
		return 0
	}
	return m.world
}

// Ranks are the ranks this process drives, in order.
func (m *GPUMesh) Ranks() []int {
	if m == nil {
		return nil
	}
	rs := make([]int, len(m.ranks))
	for i, r := range m.ranks {
		rs[i] = r.comm.Rank
	}
	return rs
}

// GPU is the GPU of the i-th rank this process drives (nil when there is
// no such rank).
func (m *GPUMesh) GPU(i int) *GPU {
	if m == nil || i < 0 || i >= len(m.ranks) {
		return nil
	}
	return m.ranks[i].gpu
}

// Name says what the mesh is.
func (m *GPUMesh) Name() string {
	if m == nil || m.lib == nil {
		return "nil *tle.GPUMesh"
	}
	return fmt.Sprintf("%d GPUs (NCCL %s at %s, heap: %s), this process ranks %v", m.world, m.lib.Version, m.lib.Path, m.lib.Heap, m.Ranks())
}

// AllocSymmetric takes n elements of dt from every local rank's heap, at
// the same offset on every rank (when every rank allocates the same in
// the same order, which Launch checks): one buffer per local rank.
// remote(ptr, r, mesh) of a pointer into it reaches rank r's copy.
// The buffers live as long as the mesh (Free releases nothing).
func (m *GPUMesh) AllocSymmetric(dt DType, n int) ([]*DeviceBuffer, error) {
	if m == nil || len(m.ranks) == 0 {
		return nil, errors.New("tle: AllocSymmetric on a nil or closed *tle.GPUMesh")
	}
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
// wait for the kernels. Prepare does the checks once for many launches.
func (m *GPUMesh) Launch(k *Kernel, opts CompileOptions, grid [3]int, args [][]any) error {
	p, err := m.Prepare(k, opts, grid, args)
	if err != nil {
		return err
	}
	defer p.Close()
	return p.Launch()
}

// MeshPrepared is a launch on every local rank of a mesh, checked and set
// once (GPUMesh.Prepare), launched again and again.
type MeshPrepared struct {
	ranks []*Prepared
}

// Prepare is Launch's checks and argument setting without the launch.
func (m *GPUMesh) Prepare(k *Kernel, opts CompileOptions, grid [3]int, args [][]any) (*MeshPrepared, error) {
	if m == nil || len(m.ranks) == 0 {
		return nil, errors.New("tle: Launch on a nil or closed *tle.GPUMesh")
	}
	if k == nil {
		return nil, errors.New("tle: GPUMesh.Launch of a nil *tle.Kernel")
	}
	if len(args) != len(m.ranks) {
		return nil, fmt.Errorf("tle: launching %s on ranks %v of the mesh: %d argument lists, want one per rank", k.Name(), m.Ranks(), len(args))
	}
	mp := &MeshPrepared{ranks: make([]*Prepared, len(m.ranks))}
	err := m.eachRank(func(r *meshRank) error {
		i := slices.Index(m.ranks, r)
		gk, rec, vals, err := m.prepare(r, k, opts, grid, args[i])
		if err != nil {
			// the other ranks still compare records: they learn of it
			// rather than wait for this one
			r.comm.AgreeLaunch(nccl.LaunchRecord{Kernel: k.Name() + " (failed on rank " + fmt.Sprint(r.comm.Rank) + ")"})
			return fmt.Errorf("rank %d: %w", r.comm.Rank, err)
		}
		if err := r.comm.AgreeLaunch(rec); err != nil {
			return fmt.Errorf("rank %d: %w", r.comm.Rank, err)
		}
		vals = append(vals, int32(r.comm.Rank), DevicePtr(r.heap.BasesDev), DevicePtr(r.heap.Sync()))
		var scratch DevicePtr // the make_desc maps, after the mesh's parameters
		if gk.bin.ScratchBytes > 0 {
			n, err := scratchBytes(gk.bin, grid)
			if err != nil {
				return err
			}
			if scratch, err = r.gpu.ctx.Alloc(n); err != nil {
				return fmt.Errorf("rank %d: %s: the scratch of its make_desc maps: %w", r.comm.Rank, k.Name(), err)
			}
			vals = append(vals, scratch)
		}
		mp.ranks[i], err = r.gpu.prepare(gk, grid, vals, scratch)
		if err != nil && scratch != 0 {
			r.gpu.ctx.Free(scratch)
		}
		return err
	})
	if err != nil {
		mp.Close()
		return nil, err
	}
	return mp, nil
}

// Launch enqueues the kernel on every local rank; it does not wait.
func (p *MeshPrepared) Launch() error {
	if p == nil {
		return errors.New("tle: Launch of a nil *tle.MeshPrepared")
	}
	for _, r := range p.ranks {
		if err := r.Launch(); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the launches' argument blocks.
func (p *MeshPrepared) Close() error {
	if p == nil {
		return nil
	}
	var errs []error
	for _, r := range p.ranks {
		if r != nil {
			errs = append(errs, r.Close())
		}
	}
	return errors.Join(errs...)
}

// prepare checks one rank's launch and compiles it: its launch record.
func (m *GPUMesh) prepare(r *meshRank, k *Kernel, opts CompileOptions, grid [3]int, args []any) (*gpuKernel, nccl.LaunchRecord, []any, error) {
	var rec nccl.LaunchRecord
	if err := checkGrid(grid); err != nil {
		return nil, rec, nil, err
	}
	if err := opts.validate(); err != nil {
		return nil, rec, nil, err
	}
	opts = k.noneDefines(opts, func(_ string, i int) bool { return i < len(args) && isNilArg(args[i]) })
	params := k.hostParams(opts.Defines)
	vals, div16, err := deviceArgs(k.Name(), params, args)
	if err != nil {
		return nil, rec, nil, err
	}
	opts.Div16 = div16
	world, err := k.meshWorld(opts)
	if err != nil {
		return nil, rec, nil, err
	}
	if world == 0 {
		return nil, rec, nil, fmt.Errorf("tle: %s has no device_mesh(device: N); launch it on one GPU", k.Name())
	}
	if world != m.world {
		return nil, rec, nil, fmt.Errorf("tle: %s's device_mesh has %d devices, the mesh of GPUs %d", k.Name(), world, m.world)
	}
	programs := grid[0] * grid[1] * grid[2]
	if need := DeviceSyncBytes(world, programs); need > r.heap.SyncBytes {
		return nil, rec, nil, fmt.Errorf("tle: %s over grid %v (%d programs) needs %d bytes of device-barrier area, the heap reserved %d (GPUMeshOptions.MaxPrograms %d)",
			k.Name(), grid, programs, need, r.heap.SyncBytes, r.heap.SyncBytes/(8*world))
	}
	gk, err := r.gpu.load(k, opts)
	if err != nil {
		return nil, rec, nil, err
	}
	if want := []string{"rank", "heap_bases", "sync"}; gk.bin.MeshDevices != world || len(gk.bin.Hidden) < 3 || !slices.Equal(gk.bin.Hidden[:3], want) {
		return nil, rec, nil, fmt.Errorf("tle: %s was compiled for a mesh of %d devices with the hidden parameters %v; the launch passes %v", k.Name(), gk.bin.MeshDevices, gk.bin.Hidden, want)
	}
	if err := r.gpu.encodeDescs(gk.bin, vals); err != nil {
		return nil, rec, nil, err
	}
	rec = launchRecord(gk.bin, grid, params, args, r.heap)
	return gk, rec, vals, nil
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
	if m == nil {
		return errors.New("tle: Synchronize on a nil *tle.GPUMesh")
	}
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

// ncclType is NCCL's name of a buffer's dtype.
func ncclType(dt DType) (nccl.DataType, error) {
	switch dt {
	case ir.F32:
		return nccl.Float32, nil
	case ir.F16:
		return nccl.Float16, nil
	case ir.BF16:
		return nccl.BFloat16, nil
	case ir.F64:
		return nccl.Float64, nil
	case ir.I32:
		return nccl.Int32, nil
	case ir.I64:
		return nccl.Int64, nil
	case ir.I8:
		return nccl.Int8, nil
	case ir.U8:
		return nccl.Uint8, nil
	}
	return 0, fmt.Errorf("tle: NCCL has no %s", dt)
}

// NCCLAllReduce is NCCL's own all-reduce (a sum) of every local rank's
// send into its recv (the same length), enqueued on the default streams
// in one NCCL group: the reference the .tle collectives are measured
// against.
func (m *GPUMesh) NCCLAllReduce(send, recv []*DeviceBuffer) error {
	return m.ncclCollective("NCCLAllReduce", send, recv, 1, 1, func(c *nccl.Comm, s, r *DeviceBuffer, t nccl.DataType) error {
		return c.AllReduce(uint64(s.Ptr), uint64(r.Ptr), s.N, t, nccl.Sum, 0)
	})
}

// NCCLAllGather is NCCL's all-gather: recv[i] holds World times send[i].
func (m *GPUMesh) NCCLAllGather(send, recv []*DeviceBuffer) error {
	return m.ncclCollective("NCCLAllGather", send, recv, 1, m.world, func(c *nccl.Comm, s, r *DeviceBuffer, t nccl.DataType) error {
		return c.AllGather(uint64(s.Ptr), uint64(r.Ptr), s.N, t, 0)
	})
}

// NCCLReduceScatter is NCCL's reduce-scatter (a sum): send[i] holds World
// times recv[i].
func (m *GPUMesh) NCCLReduceScatter(send, recv []*DeviceBuffer) error {
	return m.ncclCollective("NCCLReduceScatter", send, recv, m.world, 1, func(c *nccl.Comm, s, r *DeviceBuffer, t nccl.DataType) error {
		return c.ReduceScatter(uint64(s.Ptr), uint64(r.Ptr), r.N, t, nccl.Sum, 0)
	})
}

// ncclCollective checks the buffers (one dtype, send[i].N*recvMul ==
// recv[i].N*sendMul) and issues fn for every local rank in one NCCL group.
func (m *GPUMesh) ncclCollective(what string, send, recv []*DeviceBuffer, sendMul, recvMul int, fn func(*nccl.Comm, *DeviceBuffer, *DeviceBuffer, nccl.DataType) error) error {
	if m == nil || len(m.ranks) == 0 {
		return fmt.Errorf("tle: %s on a nil or closed *tle.GPUMesh", what)
	}
	if len(send) != len(m.ranks) || len(recv) != len(m.ranks) {
		return fmt.Errorf("tle: %s: %d send and %d recv buffers for %d local ranks", what, len(send), len(recv), len(m.ranks))
	}
	types := make([]nccl.DataType, len(send))
	for i := range send {
		s, r := send[i], recv[i]
		if s == nil || r == nil || s.Ptr == 0 || r.Ptr == 0 {
			return fmt.Errorf("tle: %s: rank %d's buffer is nil", what, m.ranks[i].comm.Rank)
		}
		if s.DType != r.DType {
			return fmt.Errorf("tle: %s: rank %d sends %s and receives %s", what, m.ranks[i].comm.Rank, s.DType, r.DType)
		}
		if s.N*recvMul != r.N*sendMul {
			return fmt.Errorf("tle: %s: rank %d sends %d elements and receives %d; want %d:%d", what, m.ranks[i].comm.Rank, s.N, r.N, sendMul, recvMul)
		}
		t, err := ncclType(s.DType)
		if err != nil {
			return err
		}
		types[i] = t
	}
	return m.lib.Group(func() error {
		for i, r := range m.ranks {
			if err := fn(r.comm, send[i], recv[i], types[i]); err != nil {
				return fmt.Errorf("rank %d: %w", r.comm.Rank, err)
			}
		}
		return nil
	})
}

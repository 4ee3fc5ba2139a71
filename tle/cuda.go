package tle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/internal/hostmem"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/interp"
	"github.com/tlego/tle/runtime/npy"
)

func init() {
	nvptx.RegisterNVVM(func() (nvptx.NVVMCompiler, error) {
		n, err := cuda.LoadNVVM()
		if err != nil {
			return nil, err
		}
		return nvvmAdapter{n}, nil
	})
}

type nvvmAdapter struct{ n *cuda.NVVM }

func (a nvvmAdapter) Compile(src string, opts []string) (string, string, error) {
	ptx, log, err := a.n.Compile([]cuda.NVVMModule{{Name: "tle", IR: []byte(src)}}, opts...)
	return string(ptx), log, err
}

// GPU is a CUDA device: kernels are compiled to PTX (through the JIT cache),
// loaded once per context and launched through the driver.
type GPU struct {
	ctx  *cuda.Context
	name string
	opts GPUOptions

	mu     sync.Mutex
	loaded map[string]*gpuKernel // by binary key
	shared *GPU                  // the GPU whose loaded map and lock a With view shares

	// the scratch of Launch's make_desc maps (see scratch), on the
	// GPU that owns the lock
	scratchPtr cuda.DevicePtr
	scratchLen int
	// the L2 flush buffer of BenchOptions.FlushL2, likewise
	flushPtr cuda.DevicePtr
	flushLen int

	dry *dryState // a dry GPU (DryGPU): no context, builds recorded
}

func (g *GPU) lock() *sync.Mutex {
	if g.shared != nil {
		return &g.shared.mu
	}
	return &g.mu
}

type gpuKernel struct {
	bin *Binary
	mod *cuda.Module
	fn  *cuda.Function
}

var (
	gpuOnce sync.Once
	gpuDev  *GPU
	gpuErr  error
)

// CUDA returns the first GPU as a device, or an error saying why there is
// none (no driver, no device).
func CUDA() (Device, error) {
	g, err := OpenGPU()
	if err != nil {
		return nil, err
	}
	return g, nil
}

// OpenGPU opens device 0 once per process.
func OpenGPU() (*GPU, error) {
	gpuOnce.Do(func() {
		if err := cuda.Available(); err != nil {
			gpuErr = err
			return
		}
		ctx, err := cuda.Open(0)
		if err != nil {
			gpuErr = err
			return
		}
		name := "cuda:0"
		if dev, err := ctx.Driver().Device(0); err == nil {
			if n, err := dev.Name(); err == nil {
				name = "cuda:0 (" + n + ")"
			}
		}
		gpuDev = &GPU{ctx: ctx, name: name, loaded: map[string]*gpuKernel{}}
	})
	return gpuDev, gpuErr
}

// check refuses a nil *GPU (a GPU comes from OpenGPU or CUDA).
func (g *GPU) check(what string) error {
	if g == nil || (g.ctx == nil && g.dry == nil) {
		return fmt.Errorf("tle: %s on a nil *tle.GPU (use one from tle.OpenGPU())", what)
	}
	return nil
}

// With returns a view of the same GPU that compiles with other options
// (toolchain, arch, or PTX built elsewhere).
func (g *GPU) With(opts GPUOptions) *GPU {
	return &GPU{ctx: g.ctx, name: g.name, opts: opts, loaded: g.loaded, shared: g, dry: g.dry}
}

// Name says which GPU this is ("nil *tle.GPU" for a nil one, so that
// messages about it do not panic).
func (g *GPU) Name() string {
	if g == nil {
		return "nil *tle.GPU"
	}
	if g.opts.PTX != "" {
		return g.name + " running given PTX"
	}
	return g.name
}

// Context is the driver context, for callers that manage memory themselves.
func (g *GPU) Context() *CUDAContext { return g.ctx }

// Load compiles (through the JIT cache) and loads a kernel specialisation.
func (g *GPU) load(k *Kernel, opts CompileOptions) (*gpuKernel, error) {
	bin, err := k.Compile(opts, g.opts)
	if err != nil {
		return nil, err
	}
	return g.LoadBinary(bin)
}

// LoadBinary loads PTX compiled earlier (possibly on another machine, by
// `tlec build`) into this GPU's context.
func (g *GPU) LoadBinary(bin *Binary) (*LoadedKernel, error) {
	if err := g.check("LoadBinary"); err != nil {
		return nil, err
	}
	if bin == nil {
		return nil, errors.New("tle: LoadBinary of a nil *tle.Binary")
	}
	if g.dry != nil {
		return nil, errors.New("tle: a dry GPU loads no binary (it compiles and runs nothing)")
	}
	mu := g.lock()
	mu.Lock()
	defer mu.Unlock()
	key := bin.Key
	if key == "" {
		key = sum(bin)
	}
	if gk, ok := g.loaded[key]; ok {
		return gk, nil
	}
	mod, err := g.ctx.LoadPTX([]byte(bin.PTX))
	if err != nil {
		return nil, fmt.Errorf("loading the PTX of %s: %w", bin.Kernel, err)
	}
	fn, err := mod.Function(bin.Kernel)
	if err != nil {
		return nil, err
	}
	if bin.SmemBytes > 48*1024 {
		if err := fn.SetMaxDynamicSharedMemory(bin.SmemBytes); err != nil {
			return nil, fmt.Errorf("%s needs %d bytes of shared memory: %w", bin.Kernel, bin.SmemBytes, err)
		}
	}
	gk := &gpuKernel{bin: bin, mod: mod, fn: fn}
	g.loaded[key] = gk
	return gk, nil
}

// launch compiles and loads the kernel, uploads the host tensors,
// launches once, waits, and copies every tensor back. ctx (which
// RunContext checked before the compile) is checked once the kernel is
// loaded and again just before the launch; a running kernel is not
// interrupted.
func (g *GPU) launch(ctx context.Context, k *Kernel, opts CompileOptions, grid [3]int, args []*boundArg) error {
	if g.dry != nil {
		g.dry.record(k, opts, g.opts)
		return nil
	}
	gk, err := g.load(k, opts)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return notLaunched(k.Name(), ctx)
	}
	ptrs := make([]cuda.DevicePtr, len(args)) // the device copy of each tensor argument
	defer func() {
		for _, p := range ptrs {
			if p != 0 {
				g.ctx.Free(p)
			}
		}
	}()
	dargs := make([]any, len(args))
	type tableCopy struct {
		a       *boundArg
		entries []cuda.DevicePtr
	}
	var tables []tableCopy
	for i, a := range args {
		p := a.param
		if p.kind == scalarParam {
			dargs[i] = scalarArg(p.dt, a.scalar)
			continue
		}
		if a.table != nil {
			tab, entries, err := g.uploadTable(a)
			ptrs = append(ptrs, entries...) // freed with the rest
			ptrs[i], dargs[i] = tab, tab
			if err != nil {
				return err
			}
			tables = append(tables, tableCopy{a, entries})
			continue
		}
		var raw []byte
		if a.typed != nil {
			raw = hostmem.SliceBytes(a.typed) // the array itself, in its dtype
		} else if raw, err = npy.Encode(p.dt, a.tensor.Data); err != nil {
			return fmt.Errorf("argument %s: %w", p.name, err)
		}
		ptr, err := g.ctx.Alloc(max(len(raw), 16))
		if err != nil {
			return fmt.Errorf("argument %s: %w", p.name, err)
		}
		ptrs[i] = ptr
		if err := g.ctx.CopyHtoD(ptr, raw); err != nil {
			return err
		}
		dargs[i] = ptr
		if p.kind == descParam {
			d := DeviceDesc{Buf: &DeviceBuffer{Ptr: ptr, DType: p.dt, N: a.n}, Shape: a.desc.shape, Strides: a.desc.strides}
			if err := checkDesc(p.name, p.typ, p.dt, p.rank, d); err != nil {
				return err
			}
			dargs[i] = d
		}
	}
	if ctx.Err() != nil {
		return notLaunched(k.Name(), ctx)
	}
	if err := g.Launch(gk, grid, dargs...); err != nil {
		return err
	}
	if err := g.ctx.Synchronize(); err != nil {
		return fmt.Errorf("%s: %w", k.Name(), err)
	}
	written, err := k.written(opts)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := g.downloadTable(t.a, t.entries); err != nil {
			return err
		}
	}
	for i, a := range args {
		if ptrs[i] == 0 || !written[a.param.name] || a.table != nil {
			continue
		}
		elem := a.param.dt
		if a.typed != nil { // straight into the array
			if err := g.ctx.CopyDtoH(hostmem.SliceBytes(a.typed), ptrs[i]); err != nil {
				return err
			}
			continue
		}
		raw := make([]byte, len(a.tensor.Data)*elem.Bytes())
		if err := g.ctx.CopyDtoH(raw, ptrs[i]); err != nil {
			return err
		}
		vals, err := npy.Decode(elem, raw)
		if err != nil {
			return err
		}
		copy(a.tensor.Data, vals)
	}
	return nil
}

// scalarArg converts a checked scalar (interp.CheckScalar) to the Go type
// of the parameter's dtype, as the driver passes it.
func scalarArg(t ir.DType, s interp.Scalar) any {
	switch t {
	case ir.I1, ir.I8, ir.U8:
		return int8(s.Int)
	case ir.I16, ir.U16:
		return int16(s.Int)
	case ir.I32, ir.U32:
		return int32(s.Int)
	case ir.I64, ir.U64:
		return s.Int
	case ir.F64:
		return s.Float
	}
	return float32(s.Float)
}

// Launch launches a loaded kernel on device arguments: a DevicePtr
// for each pointer parameter (16-byte aligned), a Go number of the
// parameter's width for each scalar, a DeviceDesc (encoded here) or a
// TensorMap for each desc parameter. It does not wait for the kernel.
// It checks the grid against the limits (checkGrid), the argument count,
// and pointers for nil and alignment.
func (g *GPU) Launch(gk *LoadedKernel, grid [3]int, args ...any) error {
	return g.LaunchWith(gk, LaunchOptions{}, grid, args...)
}

// LaunchWith is Launch with the launch's options (PDL: a programmatic
// dependent launch).
func (g *GPU) LaunchWith(gk *LoadedKernel, o LaunchOptions, grid [3]int, args ...any) error {
	if err := g.check("Launch"); err != nil {
		return err
	}
	if g.dry != nil {
		return errors.New("tle: a dry GPU launches no loaded kernel (Prepare records a build)")
	}
	if gk == nil || gk.bin == nil || gk.fn == nil {
		return errors.New("tle: Launch of a nil kernel (LoadBinary or Prepare loads one)")
	}
	if err := o.check(gk.bin); err != nil {
		return err
	}
	if err := oneDevice(gk.bin); err != nil {
		return err
	}
	if err := checkGrid(grid); err != nil {
		return fmt.Errorf("%s: %w", gk.bin.Kernel, err)
	}
	if len(args) != len(gk.bin.Params) {
		return fmt.Errorf("%s takes %d arguments (%v), got %d", gk.bin.Kernel, len(gk.bin.Params), gk.bin.Params, len(args))
	}
	args = append([]any(nil), args...)
	if err := g.encodeDescs(gk.bin, args); err != nil {
		return err
	}
	for i, a := range args {
		if p, ok := a.(cuda.DevicePtr); ok {
			if p == 0 {
				return fmt.Errorf("argument %s is a nil pointer", gk.bin.Params[i])
			}
			if p%16 != 0 {
				return fmt.Errorf("argument %s is not 16-byte aligned (%#x)", gk.bin.Params[i], uint64(p))
			}
		}
	}
	cfg := cuda.LaunchConfig{
		Grid:      cuda.Dim3{X: uint32(grid[0]), Y: uint32(grid[1]), Z: uint32(grid[2])},
		Block:     cuda.Dim3{X: uint32(32 * gk.bin.NumWarps), Y: 1, Z: 1},
		SharedMem: gk.bin.SmemBytes,

		ProgrammaticStreamSerialization: o.PDL,
	}
	if c := gk.bin.Cluster; c != [3]int{} && c != [3]int{1, 1, 1} {
		cfg.Cluster = cuda.Dim3{X: uint32(c[0]), Y: uint32(c[1]), Z: uint32(c[2])}
		for i := range 3 {
			if grid[i]%c[i] != 0 {
				return fmt.Errorf("grid %v is not a multiple of the cluster %v", grid, c)
			}
		}
	}
	if n := gk.bin.ScratchBytes; n > 0 {
		total, err := scratchBytes(gk.bin, grid)
		if err != nil {
			return err
		}
		return g.withScratch(total, func(p cuda.DevicePtr) error {
			return gk.fn.Launch(cfg, append(args, p)...)
		})
	}
	return gk.fn.Launch(cfg, args...)
}

// oneDevice refuses to launch a kernel with a device mesh on one GPU: it
// takes the device-mesh ABI's hidden parameters (rank, heap_bases, sync:
// Binary.Hidden), which only a launch on a mesh of GPUs passes.
func oneDevice(bin *Binary) error {
	if bin.MeshDevices > 0 {
		return fmt.Errorf("%s runs on a mesh of %d GPUs (device_mesh(device: %d)): it takes the hidden parameters %v that a launch on the mesh passes, not a launch on one GPU", bin.Kernel, bin.MeshDevices, bin.MeshDevices, bin.Hidden)
	}
	return nil
}

// DeviceSyncBytes is the size of the device barrier area (the "sync"
// hidden parameter of a kernel with a device mesh, Binary.Hidden) that a
// launch of programs programs on a mesh of world devices needs, in every
// rank's symmetric heap: 8*world*programs bytes (docs/distributed.md).
func DeviceSyncBytes(world, programs int) int { return nvptx.DeviceSyncBytes(world, programs) }

// scratchBytes is the make_desc scratch a launch of bin over grid needs
// (Binary.ScratchBytes per program), or an error when it does not fit an
// int.
func scratchBytes(bin *Binary, grid [3]int) (int, error) {
	programs := grid[0] * grid[1] * grid[2] // fits: checkGrid bounds it below 2^63
	if programs > math.MaxInt/bin.ScratchBytes {
		return 0, fmt.Errorf("%s: the scratch of its make_desc maps for grid %v (%d bytes per program) does not fit an int", bin.Kernel, grid, bin.ScratchBytes)
	}
	return bin.ScratchBytes * programs, nil
}

// withScratch runs launch with a device buffer of at least n bytes for
// the hidden scratch parameter of kernels with make_desc
// (Binary.ScratchBytes): one buffer per GPU, reused by every Launch (they
// run in order on the default stream) and kept for the process, grown
// when a launch needs more once the GPU has finished the launches that
// use the old one. The lock is held until the launch is enqueued, so no
// growth frees a buffer a launch is about to be given.
func (g *GPU) withScratch(n int, launch func(cuda.DevicePtr) error) error {
	owner := g
	if g.shared != nil {
		owner = g.shared
	}
	mu := g.lock()
	mu.Lock()
	defer mu.Unlock()
	if owner.scratchLen < n {
		if owner.scratchPtr != 0 {
			if err := g.ctx.Synchronize(); err != nil {
				return err
			}
			if err := g.ctx.Free(owner.scratchPtr); err != nil {
				return err
			}
			owner.scratchPtr, owner.scratchLen = 0, 0
		}
		p, err := g.ctx.Alloc(n)
		if err != nil {
			return fmt.Errorf("the scratch of the make_desc maps (%d bytes): %w", n, err)
		}
		owner.scratchPtr, owner.scratchLen = p, n
	}
	return launch(owner.scratchPtr)
}

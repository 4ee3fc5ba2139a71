package tle

import (
	"errors"
	"sync"

	"github.com/tlego/tle/runtime/cuda"
)

// DeviceFacts are the facts of a GPU that host code plans with: what
// GPU.SMs and GPU.Name answer on a dry GPU.
type DeviceFacts struct {
	Name string
	SMs  int
	// SmemPerSM is one SM's shared memory in bytes, for host code that
	// sizes its programs by it (a dry GPU's ResidentPerSM does not: it
	// has no compiled kernel to size).
	SmemPerSM int
}

// H200 is the GPU the benchmarks were written for: what a dry run plans
// for unless told otherwise.
var H200 = DeviceFacts{Name: "NVIDIA H200", SMs: 132, SmemPerSM: 228 << 10}

// Build is one kernel specialisation that a launch compiles: the kernel and
// the options Prepare (or Run) compiles it with, Div16 filled from the
// arguments.
type Build struct {
	Kernel  *Kernel
	Options CompileOptions
}

// Key identifies the build: the kernel's file and name and its binding
// (every option that changes the code).
func (b Build) Key() string {
	return b.Kernel.prog.name + ":" + b.Kernel.Name() + " " + b.Binding()
}

// Binding is the build's binding: every option that changes the code,
// as the JIT cache keys it.
func (b Build) Binding() string { return bindingKey(b.Options) }

// dryState is what a dry GPU records.
type dryState struct {
	facts DeviceFacts
	mu    sync.Mutex
	next  cuda.DevicePtr
	seen  map[string]bool
	order []Build
}

// DryGPU is a GPU that runs no kernel and holds no memory: host code
// written against *GPU (a benchmark, an op's runner) runs on it unchanged
// and plans as it would on a GPU with facts, while the GPU records every
// kernel build that Prepare and Run would compile (Builds). Allocations
// are addresses with no memory behind them, uploads and copies do
// nothing, downloads read zeros, Time measures nothing (a zero Timing,
// after running fn once), and a prepared launch launches nothing. It is
// how `tlec bench --dry-run` lists a suite's cases and builds without a
// GPU: the same code path as the timed run.
func DryGPU(facts DeviceFacts) *GPU {
	return &GPU{name: facts.Name + " (dry run)", loaded: map[string]*gpuKernel{},
		dry: &dryState{facts: facts, next: 1 << 20, seen: map[string]bool{}}}
}

// Dry reports whether g is a dry GPU (DryGPU).
func (g *GPU) Dry() bool { return g != nil && g.dry != nil }

// Builds are the distinct builds the dry GPU g was asked for, in the order
// they were first asked for; nil for a real GPU.
func (g *GPU) Builds() []Build {
	if !g.Dry() {
		return nil
	}
	d := g.dry
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Build(nil), d.order...)
}

// record notes a build (after Compile's own adjustments: the target's
// dots) on a dry GPU.
func (d *dryState) record(k *Kernel, opts CompileOptions, g GPUOptions) {
	b := Build{Kernel: k, Options: opts.forArch(g.withDefaults().Arch)}
	key := b.Key()
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.seen[key] {
		d.seen[key] = true
		d.order = append(d.order, b)
	}
}

// alloc is a dry allocation: an aligned address range no other
// allocation of g overlaps.
func (d *dryState) alloc(bytes int) cuda.DevicePtr {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.next
	d.next += cuda.DevicePtr((max(bytes, 16) + 255) &^ 255)
	return p
}

// dryPrepared is a prepared launch on a dry GPU.
func (g *GPU) dryPrepared(k *Kernel, opts CompileOptions) *Prepared {
	g.dry.record(k, opts, g.opts)
	return &Prepared{g: g, gk: &gpuKernel{bin: &Binary{Kernel: k.Name(), Toolchain: "none (dry run)"}}}
}

// dryResident is what a dry GPU says an SM holds of a launch: bounded by
// the threads of an SM only (2048), for the warps the options ask for (4
// when they say nothing), since a dry launch has no compiled kernel whose
// registers and shared memory would bound it further. A persistent grid
// sized from it differs from a GPU's; the builds do not.
func (p *Prepared) dryResident() int {
	return max(1, 2048/max(32, int(p.cfg.Block.X)))
}

var errDryCluster = errors.New("tle: a dry GPU has no occupancy figures for clusters")

// Synchronize waits for everything enqueued on g (nothing, on a dry GPU).
func (g *GPU) Synchronize() error {
	if err := g.check("Synchronize"); err != nil {
		return err
	}
	if g.dry != nil {
		return nil
	}
	return g.ctx.Synchronize()
}

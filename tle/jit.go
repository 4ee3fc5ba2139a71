package tle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// Version is the compiler's version; it is part of every JIT cache key, so
// a new compiler never reuses an old one's PTX.
const Version = "0.2.0"

// buildID identifies the compiler build beyond Version: the VCS revision
// the binary was built from, when Go recorded it, so that a rebuilt
// compiler does not reuse stale PTX. Two builds of one revision with
// different local changes share it, so a build from a modified tree (or
// without a revision) adds a hash of its own executable. It is computed
// the first time a cache key needs it, not when the package loads:
// hashing a 20-30 MB executable took 20 ms of every process's start,
// `tlec --help` included.
var buildID = sync.OnceValue(func() string {
	var rev, mod string
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				mod = s.Value
			}
		}
	}
	id := rev + "/" + mod
	if rev == "" || mod == "true" {
		id += "/" + executableHash()
	}
	return id
})

// executableHash is a hash of the running binary ("" if it cannot be read).
func executableHash() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Binary is a kernel compiled for the GPU: its PTX and what a launch needs.
type Binary struct {
	Kernel    string
	PTX       string
	LLVMIR    string `json:"-"`
	Toolchain string // the toolchain that made the PTX, and why it was chosen
	Arch      string
	NumWarps  int
	SmemBytes int
	Cluster   [3]int   // cluster dimensions from the kernel's device_mesh; zero without one
	Params    []string // runtime parameters, "name:type", in order
	// Descs is the tensor map each desc parameter needs (box, swizzle), as
	// the backend chose them; the launcher encodes matching CUtensorMaps.
	Descs []DescParam `json:",omitempty"`
	// ScratchBytes is the global scratch each program needs (its
	// make_desc maps): the launcher passes a buffer of ScratchBytes times
	// the grid's programs after the parameters.
	ScratchBytes int `json:",omitempty"`
	// MeshDevices is the size of the device axis of the kernel's mesh
	// (device_mesh(device: WORLD); 0 without one): the kernel runs on
	// MeshDevices GPUs, one launch each, with the device-mesh ABI's hidden
	// parameters (Hidden; docs/distributed.md).
	MeshDevices int `json:",omitempty"`
	// Hidden names the parameters the kernel takes after Params, in order,
	// which the launcher passes: "rank" (i32), "heap_bases" (a device
	// pointer to MeshDevices i64s), "sync" (a device pointer to
	// DeviceSyncBytes(MeshDevices, programs) bytes of the symmetric heap),
	// "scratch" (ScratchBytes per program).
	Hidden []string `json:",omitempty"`
	// GridDependencyWait: the kernel calls grid_dependency_wait, so it may
	// be launched as a programmatic dependent launch (LaunchOptions.PDL).
	GridDependencyWait bool   `json:",omitempty"`
	Key                string // the cache key
}

// jit is the process-wide JIT cache: in memory, then on disk under
// $TLE_CACHE_DIR (default: the user cache directory's tle-go folder).
var jit = struct {
	mu    sync.Mutex
	mem   map[string]*Binary
	group singleflight.Group
}{mem: map[string]*Binary{}}

func jitLog(format string, args ...any) {
	if strings.Contains(","+os.Getenv("TLE_LOG")+",", ",jit,") {
		fmt.Fprintf(os.Stderr, "tle: jit: "+format+"\n", args...)
	}
}

// CacheDir is where compiled kernels are kept between processes.
func CacheDir() string {
	if d := os.Getenv("TLE_CACHE_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "tle-go")
	}
	return filepath.Join(os.TempDir(), "tle-go-cache")
}

// Compile compiles the kernel to PTX for the GPU, through the JIT cache:
// concurrent requests for one specialisation compile once, a disk entry is
// checked against its hash and rebuilt when corrupt, and TLE_LOG=jit says
// why a kernel was (re)compiled.
func (k *Kernel) Compile(opts CompileOptions, g GPUOptions) (*Binary, error) {
	if k == nil {
		return nil, errNilKernel("Compile")
	}
	opts, g, err := forGPU(opts, g)
	if err != nil {
		return nil, err
	}
	if name := os.Getenv("TLE_HTML"); name != "" && name == k.Name() {
		// the page is written by a compile of its own, cache or no cache
		k.writePassHTML(opts, g)
	}
	if opts.DumpAfter != "" {
		// the dumps are written by the passes as they run: a compile
		// asked for them runs them, whatever the caches hold
		return k.compileGPU(opts, g)
	}
	key := k.cacheKey(opts, g)
	jit.mu.Lock()
	b, ok := jit.mem[key]
	jit.mu.Unlock()
	if ok {
		return b, nil
	}
	v, err, _ := jit.group.Do(key, func() (any, error) {
		path := filepath.Join(CacheDir(), key+".json")
		if b, why := readCacheEntry(path, key); b != nil {
			jitLog("%s %s: loaded from %s", k.Name(), bindingKey(opts), path)
			return b, nil
		} else {
			jitLog("%s %s: compiling (%s)", k.Name(), bindingKey(opts), why)
		}
		b, err := k.compileGPU(opts, g)
		if err != nil {
			return nil, err
		}
		b.Key = key
		if err := writeCacheEntry(path, b); err != nil {
			jitLog("could not write %s: %v", path, err)
		}
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	b = v.(*Binary)
	jit.mu.Lock()
	jit.mem[key] = b
	jit.mu.Unlock()
	return b, nil
}

// compileGPU runs the whole pipeline: IR, layouts and shared memory, LLVM
// IR, PTX.
func (k *Kernel) compileGPU(opts CompileOptions, g GPUOptions) (*Binary, error) {
	m, err := k.IR(opts)
	if err != nil {
		return nil, err
	}
	return compileModule(m, k.Name(), opts, g)
}

// CompileModule compiles an IR module, after the target-independent rows
// of the pass pipeline (as Kernel.IR leaves it), to PTX: the GPU rows of
// the pipeline, LLVM IR, PTX.
func CompileModule(m *IRModule, kernel string, g GPUOptions) (b *Binary, err error) {
	return compileModule(m, kernel, CompileOptions{}, g)
}

// compileModule is CompileModule with the compile's pass options
// (--verify-each, --dump-after, DotMMASync): emitModule, then PTX.
func compileModule(m *ir.Module, kernel string, opts CompileOptions, g GPUOptions) (b *Binary, err error) {
	g = g.withDefaults()
	if b, err = emitModule(m, kernel, opts, g); err != nil {
		return nil, err
	}
	defer func() { err = ir.Diagnose(m.File, err) }()
	ptx, why := g.PTX, "PTX given by the caller"
	if ptx == "" {
		tc, reason, err := nvptx.Select(g.Toolchain)
		if err != nil {
			return nil, err
		}
		if ptx, err = tc.PTX(b.LLVMIR, g.Arch); err != nil {
			return nil, err
		}
		why = reason
	}
	b.PTX, b.Toolchain = ptx, why
	return b, nil
}

// emitModule is the one path from the tile IR to LLVM IR that the JIT,
// Kernel.Build and a dry GPU share: the GPU rows of the pass pipeline on
// m, then LLVM IR for NVPTX, with the launch parameters the backend chose
// (warps, shared memory, cluster, descs); no PTX yet.
func emitModule(m *ir.Module, kernel string, opts CompileOptions, g GPUOptions) (b *Binary, err error) {
	defer func() { err = ir.Diagnose(m.File, err) }()
	numWarps, err := gpuPasses(m, kernel, opts, g)
	if err != nil {
		return nil, err
	}
	fn := m.Func(kernel) // gpuPasses may have rebuilt the module with fewer stages
	res, err := nvptx.EmitLLVM(m, nvptx.Options{NumWarps: numWarps, Arch: g.Arch, RecordOps: opts.view != nil})
	if err != nil {
		return nil, err
	}
	if opts.view != nil {
		opts.view.llvm, opts.view.llvmOps = res.LLVMIR, res.OpLines
	}
	b = &Binary{Kernel: kernel, LLVMIR: res.LLVMIR, Arch: g.Arch}
	for _, kk := range res.Kernels {
		if kk.Name == kernel {
			b.NumWarps, b.SmemBytes, b.Params, b.Descs, b.ScratchBytes = kk.NumWarps, kk.SmemBytes, kk.Params, kk.Descs, kk.ScratchBytes
			b.MeshDevices = kk.MeshDevices
			for _, h := range kk.Hidden {
				b.Hidden = append(b.Hidden, string(h))
			}
		}
	}
	fn.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpGridDepWait {
			b.GridDependencyWait = true
		}
		if op.Kind == ir.OpDeviceMesh {
			d := op.Attrs.Ints("dims")
			if len(d) == 3 {
				b.Cluster = [3]int{d[0], d[1], d[2]}
			}
		}
	})
	for _, p := range fn.Params {
		if len(b.Params) < len(fn.Params) {
			b.Params = append(b.Params, p.Name+":"+p.Type.String())
		}
	}
	return b, nil
}

// gpuPasses runs the GPU rows of the pass table (passes.PhaseGPU: layouts,
// pipelining, shared memory...) on m, which k.IR took through the
// target-independent rows, with the compile's --verify-each and
// --dump-after, and returns the kernel's warp count (its num_warps
// attribute, else 4). It is the first half of emitModule, and all of
// Build's "tir".
//
// With the default pipeline depth (opts.NumStages 0), a kernel whose
// shared memory the target cannot hold is compiled again with one stage
// fewer, down to 2, as a user of Triton would lower num_stages by hand; a
// kernel that still does not fit (or whose depth was set) is an error
// naming the budget.
func gpuPasses(m *ir.Module, kernel string, opts CompileOptions, g GPUOptions) (numWarps int, err error) {
	fn := m.Func(kernel)
	if fn == nil {
		return 0, fmt.Errorf("no kernel %q in the module", kernel)
	}
	numWarps = int(fn.Attrs.Int("num_warps", 4))
	var before []byte
	if opts.NumStages == 0 {
		before = []byte(ir.PrintOffsets(m)) // parsed back with m.File: offsets, not lines
	}
	run := func(m *ir.Module, stages int) error {
		return passes.Run(m, passes.Options{
			From: passes.PhaseGPU,
			GPU: &passes.GPUOptions{Arch: g.Arch, NumWarps: numWarps, Stages: stages,
				DotMMASync: opts.DotMMASync, SmemLimit: nvptx.MaxSmemBytes(g.Arch)},
			VerifyEach: opts.VerifyEach, DumpAfter: opts.DumpAfter, DumpDir: opts.DumpDir,
			Observe: opts.view.observer(),
		})
	}
	if err := run(m, nvptx.DefaultStages); err != nil {
		return 0, err
	}
	limit := nvptx.MaxSmemBytes(g.Arch)
	for stages := nvptx.DefaultStages - 1; before != nil && stages >= 2 && smemBytes(m) > limit; stages-- {
		m2, err := ir.Parse(m.File.Name, before)
		if err != nil {
			return 0, fmt.Errorf("internal compiler error: re-reading the IR for a shallower pipeline: %w", err)
		}
		m2.File = m.File
		if err := run(m2, stages); err != nil {
			return 0, err
		}
		*m = *m2
	}
	if n := smemBytes(m); n > limit {
		return 0, fmt.Errorf("the kernel needs %d bytes of shared memory; %s allows %d per CTA (smaller tiles or fewer pipeline stages: CompileOptions.NumStages, tlec --num-stages)", n, g.Arch, limit)
	}
	return numWarps, nil
}

// smemBytes is the most shared memory a function of m uses.
func smemBytes(m *ir.Module) int {
	n := 0
	for _, f := range m.Funcs {
		n = max(n, int(f.Attrs.Int(gpu.AttrSmemBytes, 0)))
	}
	return n
}

// cacheEntry is a disk entry; Sum guards against corruption.
type cacheEntry struct {
	Key    string
	Sum    string
	Binary *Binary
}

func sum(b *Binary) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%v\x00%v\x00%s\x00%d", b.Kernel, b.PTX, b.NumWarps, b.SmemBytes, b.Cluster, b.Params, b.Arch, b.ScratchBytes)
	if b.GridDependencyWait { // only then, so that the sums of other entries stay as they were
		h.Write([]byte("\x00grid_dependency_wait"))
	}
	if b.MeshDevices > 0 || len(b.Hidden) > 0 { // likewise
		fmt.Fprintf(h, "\x00mesh\x00%d\x00%v", b.MeshDevices, b.Hidden)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readCacheEntry returns the entry at path, or nil and why not.
func readCacheEntry(path, key string) (*Binary, string) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, "not in the cache"
	}
	if err != nil {
		return nil, "cache entry unreadable: " + err.Error()
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil || e.Binary == nil {
		return nil, "cache entry " + path + " is corrupt (not valid JSON); rebuilding"
	}
	if e.Key != key || e.Sum != sum(e.Binary) {
		return nil, "cache entry " + path + " is corrupt (checksum mismatch); rebuilding"
	}
	e.Binary.Key = key
	return e.Binary, ""
}

// writeCacheEntry writes through a temporary file and a rename, so readers
// never see half an entry.
func writeCacheEntry(path string, b *Binary) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(cacheEntry{Key: b.Key, Sum: sum(b), Binary: b})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".entry-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

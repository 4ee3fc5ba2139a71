package tle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// This file holds every fact about the options of a compile: what each
// CompileOptions and GPUOptions field means and its default, the values
// they may take (validate, CheckArch), how a target adjusts them
// (forArch), how they mark the IR (annotate) and the keys that tell two
// compiles apart (bindingKey, cacheKey). An option added here is added
// everywhere.

// CompileOptions specialise and instrument a compilation.
type CompileOptions struct {
	// Defines binds compile-time parameters: NAME -> value text.
	Defines map[string]string
	// NumWarps is the warp count of a kernel without warp_specialize; 0 is 4.
	NumWarps int
	// VerifyEach verifies the IR after every pass.
	VerifyEach bool
	// DumpAfter ("all" or a pass name) writes <kernel>_<seq>__<pass>.tir
	// files into DumpDir.
	DumpAfter string
	DumpDir   string
	// DotMMASync keeps every dot on mma.sync. By default a dot whose
	// operands are loaded from global memory runs as Hopper's warpgroup MMA
	// (wgmma on shared operands, sm_90a) where its shapes allow
	// (passes.DotToWgmma), which measured faster than mma.sync on the
	// H200's matmul (docs/perf.md).
	DotMMASync bool
	// MinCTAsPerSM, when > 0, asks ptxas to fit that many CTAs of the
	// kernel on one SM (the minctasm annotation): the registers per thread
	// are capped to make room, spilling if they must.
	MinCTAsPerSM int
	// NumStages is the depth of the software pipeline the compiler builds
	// around the loads that feed a loop's products (Triton's num_stages):
	// 0 is the default (3), 1 turns pipelining off, at most MaxNumStages.
	// Each stage holds one more copy of every pipelined tile in shared
	// memory.
	NumStages int
	// LoopAddresses computes each thread's element addresses inside the
	// body of every outermost loop instead of once at the kernel's entry
	// (nvptx.AttrLoopAddresses): for a persistent kernel, whose loop would
	// otherwise keep all of them live in registers from start to end, at
	// the cost of recomputing them in each iteration.
	LoopAddresses bool
	// Div16 names integer parameters whose values are multiples of 16 (a
	// specialisation key, as in Triton): the compiler may then prove that
	// addresses built from them are 16-byte aligned and vectorise. Run and
	// GPU.Prepare fill it from the arguments.
	Div16 []string

	// view, when set, collects the pass viewer's page as the compile runs
	// (Kernel.PassHTML); it changes nothing compiled.
	view *passView
}

// GPUOptions choose the target and toolchain.
type GPUOptions struct {
	Arch      string // "sm_90a" when empty
	Toolchain string // "auto", "llc" or "nvvm"; empty: $TLE_TOOLCHAIN, else auto
	// PTX, when set, is used instead of running a toolchain: PTX that
	// `tlec build` wrote elsewhere (say with llc-19 on a machine without a
	// GPU). The kernel is still compiled to LLVM IR for its launch
	// parameters (warps, shared memory, cluster).
	PTX string
}

// MaxNumWarps is the most warps a CTA may have (1024 threads).
const MaxNumWarps = 32

// MaxNumStages is the deepest software pipeline CompileOptions.NumStages
// may ask for.
const MaxNumStages = 8

// Targets lists the GPU architectures kernels can be built for
// (GPUOptions.Arch), oldest first; the default is sm_90a.
func Targets() []string { return append([]string(nil), nvptx.Targets...) }

// CheckArch reports an architecture that is not among Targets, naming them.
func CheckArch(arch string) error { return nvptx.CheckArch(arch) }

// PassNames lists the compiler's passes in the order they run (the names
// CompileOptions.DumpAfter takes); gpu says whether each runs only when
// compiling for the GPU.
func PassNames() (names []string, gpu []bool) {
	for _, p := range passes.Table {
		names = append(names, p.Name)
		gpu = append(gpu, p.Phase == passes.PhaseGPU)
	}
	return names, gpu
}

// validate checks the options a caller sets by hand: warps a power of two
// from 1 to MaxNumWarps (0: the default 4), MinCTAsPerSM from 0 to 32 (an SM
// holds at most 32 CTAs on Hopper and Ampere), NumStages from 0 to
// MaxNumStages.
func (o CompileOptions) validate() error {
	if w := o.NumWarps; w != 0 && (w < 1 || w > MaxNumWarps || w&(w-1) != 0) {
		return fmt.Errorf("num warps %d: want a power of two from 1 to %d (0: the default, 4)", w, MaxNumWarps)
	}
	if c := o.MinCTAsPerSM; c < 0 || c > 32 {
		return fmt.Errorf("min CTAs per SM %d: want 0 (no request) to 32", c)
	}
	if n := o.NumStages; n < 0 || n > MaxNumStages {
		return fmt.Errorf("num stages %d: want 0 (the default, 3) to %d (1: no pipelining)", n, MaxNumStages)
	}
	if d := o.DumpAfter; d != "" && d != "all" {
		names, _ := PassNames()
		if !slices.Contains(names, d) {
			return fmt.Errorf("dump after %q: no such pass (want all or one of %s)", d, strings.Join(names, ", "))
		}
	}
	return nil
}

// Validate checks the options as every compile does before it starts
// (warps, CTAs per SM, stages, the DumpAfter pass), so that a caller, a
// command's flags say, can refuse them up front.
func (o CompileOptions) Validate() error { return o.validate() }

// Validate checks the target and toolchain: Arch among Targets (or empty:
// sm_90a), Toolchain auto, llc or nvvm (or empty: $TLE_TOOLCHAIN, else
// auto). A toolchain is checked whether or not a compile will need it.
func (g GPUOptions) Validate() error {
	g = g.withDefaults()
	if err := CheckArch(g.Arch); err != nil {
		return err
	}
	switch g.Toolchain {
	case "auto", "llc", "nvvm":
		return nil
	}
	return fmt.Errorf("toolchain %q: want auto, llc or nvvm", g.Toolchain)
}

// withDefaults fills in the target and toolchain left empty.
func (g GPUOptions) withDefaults() GPUOptions {
	if g.Arch == "" {
		g.Arch = "sm_90a"
	}
	if g.Toolchain == "" {
		g.Toolchain = os.Getenv("TLE_TOOLCHAIN")
	}
	if g.Toolchain == "" {
		g.Toolchain = "auto"
	}
	return g
}

// forArch keeps dots on mma.sync for targets without wgmma (all but
// sm_90a).
func (o CompileOptions) forArch(arch string) CompileOptions {
	if arch != "sm_90a" {
		o.DotMMASync = true
	}
	return o
}

// forGPU is how a compile for the GPU sees its options: g's defaults filled
// in, its Arch checked, opts validated and adjusted to the target
// (forArch). Kernel.Build and Kernel.Compile start with it.
func forGPU(opts CompileOptions, g GPUOptions) (CompileOptions, GPUOptions, error) {
	if err := g.Validate(); err != nil {
		return opts, g.withDefaults(), err
	}
	g = g.withDefaults()
	if err := opts.validate(); err != nil {
		return opts, g, err
	}
	return opts.forArch(g.Arch), g, nil
}

// annotate marks the kernel fn, just lowered, with the options the
// passes and the backend read from its attributes.
func (o CompileOptions) annotate(fn *ir.Func) {
	if len(o.Div16) > 0 {
		var idx []int64
		for i, p := range fn.Params {
			for _, n := range o.Div16 {
				if p.Name == n {
					idx = append(idx, int64(i))
				}
			}
		}
		fn.Attrs["div16"] = idx
	}
	if o.MinCTAsPerSM > 0 {
		fn.Attrs[nvptx.AttrMinCTAsPerSM] = int64(o.MinCTAsPerSM)
	}
	if o.LoopAddresses {
		fn.Attrs[nvptx.AttrLoopAddresses] = true
	}
	if !o.DotMMASync {
		fn.Attrs[gpu.AttrDotWgmma] = true
	}
	if o.NumStages > 0 {
		fn.Attrs[gpu.AttrPipelineStages] = int64(o.NumStages)
	}
}

// bindingKey names every option that changes the code: the bindings and
// the options annotate and the GPU passes read (not VerifyEach, DumpAfter,
// DumpDir). It keys the interpreter's IR cache, Build.Key and, through
// cacheKey, the JIT cache; its text is part of every cache key on disk.
func bindingKey(opts CompileOptions) string {
	names := make([]string, 0, len(opts.Defines))
	for n := range opts.Defines {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s=%s;", n, opts.Defines[n])
	}
	fmt.Fprintf(&b, "warps=%d;div16=%v;minctas=%d;mmasync=%v;stages=%d;loopaddr=%v", opts.NumWarps, opts.Div16, opts.MinCTAsPerSM, opts.DotMMASync, opts.NumStages, opts.LoopAddresses)
	return b.String()
}

// cacheKey hashes everything the PTX depends on: the source, the kernel,
// the bindings, the warp count, the parameter types (dtypes included), the
// 16-byte alignment every pointer argument is required to have, the arch,
// the toolchain and the compiler version.
func (k *Kernel) cacheKey(opts CompileOptions, g GPUOptions) string {
	h := sha256.New()
	fmt.Fprintf(h, "tle-go %s %s\x00%s\x00%s\x00", Version, buildID(), k.prog.name, k.Name())
	h.Write(k.prog.src)
	for _, f := range k.prog.file.File.Parts()[1:] { // imported files
		fmt.Fprintf(h, "\x00import %s\x00%d\x00", f.Name, len(f.Src))
		h.Write(f.Src)
	}
	fmt.Fprintf(h, "\x00%s\x00align16\x00%s\x00%s\x00", bindingKey(opts), g.Arch, g.Toolchain)
	if g.PTX != "" {
		fmt.Fprintf(h, "ptx:%x\x00", sha256.Sum256([]byte(g.PTX)))
	}
	for _, p := range k.Params() {
		fmt.Fprintf(h, "%s:%s,", p.Name, p.Type)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

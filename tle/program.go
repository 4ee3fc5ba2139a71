package tle

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/lower"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/passes"
)

// Program is one parsed and checked .tle source file. Its kernels may still
// have unbound compile-time parameters: they are checked symbolically, and
// bound when a kernel is compiled.
type Program struct {
	name string
	src  []byte
	file *ast.File
	info *check.Info
	programCache
}

// Parse parses and checks src as the file name. Errors are a diag.List with
// every problem found, each with its position.
func Parse(name string, src []byte) (*Program, error) {
	f, err := parser.ParseFile(name, src)
	if err != nil {
		return nil, err
	}
	info, errs := check.Check(f, check.Config{})
	if errs.HasErrors() {
		return nil, errs
	}
	return &Program{name: name, src: src, file: f, info: info}, nil
}

// LoadFile reads, parses and checks a .tle file.
func LoadFile(path string) (*Program, error) {
	src, err := ReadFileMax(path, MaxSourceBytes)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Load reads a .tle file from a file system, typically an embed.FS:
//
//	//go:embed kernels/*.tle
//	var kernels embed.FS
//	prog, err := tle.Load(kernels, "kernels/softmax.tle")
func Load(fsys fs.FS, path string) (*Program, error) {
	src, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	return Parse(filepath.ToSlash(path), src)
}

// Name is the file name the program was parsed as.
func (p *Program) Name() string { return p.name }

// Source is the program's text.
func (p *Program) Source() []byte { return p.src }

// Kernels lists the program's kernel names, sorted.
func (p *Program) Kernels() []string {
	var names []string
	for _, d := range p.file.Decls {
		if k, ok := d.(*ast.KernelDecl); ok {
			names = append(names, k.Name.Name)
		}
	}
	sort.Strings(names)
	return names
}

// Kernel looks a kernel up by name.
func (p *Program) Kernel(name string) (*Kernel, error) {
	for _, d := range p.file.Decls {
		if k, ok := d.(*ast.KernelDecl); ok && k.Name.Name == name {
			return &Kernel{prog: p, decl: k}, nil
		}
	}
	return nil, fmt.Errorf("%s has no kernel %q (kernels: %v)", p.name, name, p.Kernels())
}

// Kernel is one kernel of a program.
type Kernel struct {
	prog *Program
	decl *ast.KernelDecl
}

// Param describes a kernel parameter.
type Param struct {
	Name  string
	Type  string // as written: *f32, i32, desc[bf16, 64, 64], ...
	Const bool   // a compile-time parameter, bound with Defines
}

// Name is the kernel's name.
func (k *Kernel) Name() string { return k.decl.Name.Name }

// Program is the program the kernel belongs to.
func (k *Kernel) Program() *Program { return k.prog }

// Params lists the kernel's parameters in order.
func (k *Kernel) Params() []Param {
	var out []Param
	for _, p := range k.decl.Params {
		out = append(out, Param{Name: p.Name.Name, Type: string(k.prog.src[p.Type.Pos():p.Type.End()]), Const: p.Const})
	}
	return out
}

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
}

// IR checks the kernel with its bindings, lowers it to the tile IR and runs
// the pass pipeline. The module holds the kernel alone (helpers inlined).
func (k *Kernel) IR(opts CompileOptions) (*IRModule, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if errs := k.checkBound(opts.Defines); errs != nil {
		return nil, errs
	}
	m, err := lower.Kernel(k.prog.file, k.Name(), lower.Options{Defines: opts.Defines, NumWarps: opts.NumWarps})
	if err != nil {
		return nil, err
	}
	if len(opts.Div16) > 0 {
		fn := m.Func(k.Name())
		var idx []int64
		for i, p := range fn.Params {
			for _, n := range opts.Div16 {
				if p.Name == n {
					idx = append(idx, int64(i))
				}
			}
		}
		fn.Attrs["div16"] = idx
	}
	if opts.MinCTAsPerSM > 0 {
		m.Func(k.Name()).Attrs[nvptx.AttrMinCTAsPerSM] = int64(opts.MinCTAsPerSM)
	}
	if opts.LoopAddresses {
		m.Func(k.Name()).Attrs[nvptx.AttrLoopAddresses] = true
	}
	if !opts.DotMMASync {
		m.Func(k.Name()).Attrs[gpu.AttrDotWgmma] = true
	}
	if opts.NumStages > 0 {
		m.Func(k.Name()).Attrs[gpu.AttrPipelineStages] = int64(opts.NumStages)
	}
	err = passes.Run(m, passes.Options{VerifyEach: opts.VerifyEach, DumpAfter: opts.DumpAfter, DumpDir: opts.DumpDir})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// checkBound re-checks the file with the bindings (so a bad -D value is
// reported at the parameter) and makes sure every compile-time parameter of
// this kernel is bound.
func (k *Kernel) checkBound(defines map[string]string) diag.List {
	var errs diag.List
	for _, p := range k.decl.Params {
		if _, ok := defines[p.Name.Name]; p.Const && !ok {
			errs.Add(k.prog.file.File, p.Pos(), p.End(), "compile-time parameter %s of kernel %s is not bound: pass -D %s=VALUE", p.Name.Name, k.Name(), p.Name.Name)
		}
	}
	if errs != nil {
		return errs
	}
	if _, errs := check.Check(k.prog.file, check.Config{Defines: defines}); errs.HasErrors() {
		return errs
	}
	return nil
}

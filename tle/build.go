package tle

import (
	"fmt"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// Artifacts are the texts of one kernel's compilation, up to the stage
// asked for.
type Artifacts struct {
	TIR    string  // the tile IR after the pass pipeline, its GPU rows included (layouts, shared memory)
	LLVMIR string  // the LLVM IR for NVPTX
	Binary *Binary // the PTX and its launch parameters
}

// Build compiles the kernel for the GPU up to stage emit: "tir", "ll" or
// "ptx". It bypasses the JIT cache: it is what `tlec build` runs.
func (k *Kernel) Build(opts CompileOptions, g GPUOptions, emit string) (art *Artifacts, err error) {
	defer func() { err = ir.Diagnose(k.prog.file.File, err) }()
	switch emit {
	case "tir", "ll", "ptx":
	default:
		return nil, fmt.Errorf("--emit %q: want tir, ll or ptx", emit)
	}
	opts, g, err = forGPU(opts, g)
	if err != nil {
		return nil, err
	}
	m, err := k.IR(opts)
	if err != nil {
		return nil, err
	}
	if emit == "tir" {
		fn := m.Func(k.Name())
		if err := gpuPasses(m, int(fn.Attrs.Int("num_warps", 4)), opts, g); err != nil {
			return nil, err
		}
		return &Artifacts{TIR: ir.Print(m)}, nil
	}
	var b *Binary
	if emit == "ll" {
		b, err = emitModule(m, k.Name(), opts, g)
	} else {
		b, err = compileModule(m, k.Name(), opts, g)
	}
	if err != nil {
		return nil, err
	}
	art = &Artifacts{TIR: ir.Print(m), LLVMIR: b.LLVMIR}
	if emit == "ptx" {
		art.Binary = b
	}
	return art, nil
}

// gpuPasses runs the GPU rows of the pass table (passes.PhaseGPU: layouts,
// pipelining, shared memory...) on m, which k.IR took through the
// target-independent rows, with the compile's --verify-each and
// --dump-after. numWarps is for a kernel without a num_warps attribute.
//
// With the default pipeline depth (opts.NumStages 0), a kernel whose
// shared memory the target cannot hold is compiled again with one stage
// fewer, down to 2, as a user of Triton would lower num_stages by hand; a
// kernel that still does not fit (or whose depth was set) is an error
// naming the budget.
func gpuPasses(m *ir.Module, numWarps int, opts CompileOptions, g GPUOptions) error {
	var before []byte
	if opts.NumStages == 0 {
		before = []byte(ir.Print(m))
	}
	run := func(m *ir.Module, stages int) error {
		return passes.Run(m, passes.Options{
			From: passes.PhaseGPU,
			GPU: &passes.GPUOptions{Arch: g.Arch, NumWarps: numWarps, Stages: stages,
				DotMMASync: opts.DotMMASync},
			VerifyEach: opts.VerifyEach, DumpAfter: opts.DumpAfter, DumpDir: opts.DumpDir,
		})
	}
	if err := run(m, nvptx.DefaultStages); err != nil {
		return err
	}
	limit := nvptx.MaxSmemBytes(g.Arch)
	for stages := nvptx.DefaultStages - 1; before != nil && stages >= 2 && smemBytes(m) > limit; stages-- {
		m2, err := ir.Parse(m.File.Name, before)
		if err != nil {
			return fmt.Errorf("internal compiler error: re-reading the IR for a shallower pipeline: %w", err)
		}
		m2.File = m.File
		if err := run(m2, stages); err != nil {
			return err
		}
		*m = *m2
	}
	if n := smemBytes(m); n > limit {
		return fmt.Errorf("the kernel needs %d bytes of shared memory; %s allows %d per CTA (smaller tiles or fewer pipeline stages: CompileOptions.NumStages, tlec --num-stages)", n, g.Arch, limit)
	}
	return nil
}

// smemBytes is the most shared memory a function of m uses.
func smemBytes(m *ir.Module) int {
	n := 0
	for _, f := range m.Funcs {
		n = max(n, int(f.Attrs.Int(gpu.AttrSmemBytes, 0)))
	}
	return n
}

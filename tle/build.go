package tle

import (
	"fmt"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/tle/ir"
)

// Artifacts are the texts of one kernel's compilation, up to the stage
// asked for.
type Artifacts struct {
	TIR    string  // the tile IR after the pass pipeline and the GPU passes (layouts, shared memory)
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
	g = g.withDefaults()
	opts = opts.forArch(g.Arch)
	m, err := k.IR(opts)
	if err != nil {
		return nil, err
	}
	fn := m.Func(k.Name())
	numWarps := int(fn.Attrs.Int("num_warps", 4))
	if emit == "tir" {
		if err := nvptx.Prepare(m, numWarps); err != nil {
			return nil, err
		}
		return &Artifacts{TIR: ir.Print(m)}, nil
	}
	if emit == "ll" {
		if err := nvptx.Prepare(m, numWarps); err != nil {
			return nil, err
		}
		res, err := nvptx.EmitLLVM(m, nvptx.Options{NumWarps: numWarps})
		if err != nil {
			return nil, err
		}
		return &Artifacts{TIR: ir.Print(m), LLVMIR: res.LLVMIR}, nil
	}
	b, err := CompileModule(m, k.Name(), g)
	if err != nil {
		return nil, err
	}
	return &Artifacts{TIR: ir.Print(m), LLVMIR: b.LLVMIR, Binary: b}, nil
}

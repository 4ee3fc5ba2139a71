package tle

import (
	"fmt"

	"github.com/tlego/tle/ir"
)

// Artifacts are the texts of one kernel's compilation, up to the stage
// asked for.
type Artifacts struct {
	TIR    string  // the tile IR after the pass pipeline, its GPU rows included (layouts, shared memory)
	LLVMIR string  // the LLVM IR for NVPTX
	Binary *Binary // its launch parameters (from "ll" on: warps, shared memory, parameters) and, at "ptx", the PTX
}

// Build compiles the kernel for the GPU up to stage emit: "tir", "ll" or
// "ptx". It bypasses the JIT cache: it is what `tlec build` runs.
func (k *Kernel) Build(opts CompileOptions, g GPUOptions, emit string) (art *Artifacts, err error) {
	if k == nil {
		return nil, errNilKernel("Build")
	}
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
		if _, err := gpuPasses(m, k.Name(), opts, g); err != nil {
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
	return &Artifacts{TIR: ir.Print(m), LLVMIR: b.LLVMIR, Binary: b}, nil
}

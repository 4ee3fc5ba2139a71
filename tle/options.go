package tle

import (
	"fmt"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/passes"
	"github.com/tlego/tle/runtime/interp"
)

// DefaultTimeout bounds an interpreter launch whose context has no
// deadline (RunContext): past it the launch stops with the list of programs
// still running.
const DefaultTimeout = interp.DefaultTimeout

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

// MaxNumWarps is the most warps a CTA may have (1024 threads).
const MaxNumWarps = 32

// MaxNumStages is the deepest software pipeline CompileOptions.NumStages
// may ask for.
const MaxNumStages = 8

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
	return nil
}

package passes

import (
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// The GPU rows of the pass table (Phase PhaseGPU): they turn the
// target-independent tile IR into the IR backend/nvptx consumes. Each row
// reads its parameters from Options.GPU (Context.GPU) and calls the pass's
// function.

// DefaultStages is the software-pipeline depth of the pipeline row for a
// kernel without a num_stages attribute (AttrPipelineStages) when
// GPUOptions.Stages is 0.
const DefaultStages = 3

// GPUOptions are the parameters of the GPU rows. A kernel's own attributes
// win over them: num_warps (AttrNumWarps), num_stages (AttrPipelineStages).
type GPUOptions struct {
	// Arch is the target GPU, e.g. sm_90a. No row reads it yet: tle keeps
	// dots on mma.sync for other targets before lowering.
	Arch string
	// SmemLimit is the shared memory a CTA of the target may use, in
	// bytes (0: no limit): smem-alloc keeps small reduction scratch apart
	// only while the kernel fits it (AllocateFuncSharedWithin).
	SmemLimit int
	// NumWarps is the warp count of a kernel without a num_warps
	// attribute (0: 4).
	NumWarps int
	// Stages is the software-pipeline depth of a kernel without a
	// num_stages attribute (0: DefaultStages; 1 turns pipelining off).
	Stages int
	// DotMMASync keeps every dot on mma.sync. Otherwise dot-wgmma rewrites
	// the dots of the kernels that ask for it with the AttrDotWgmma
	// attribute (tle marks a kernel unless CompileOptions.DotMMASync; the
	// mark is in the IR, so a dump replays the same way).
	DotMMASync bool
}

// GPU returns the GPU options of the run with their defaults filled in
// (the defaults alone when the run has none).
func (c *Context) GPU() GPUOptions {
	var g GPUOptions
	if c.Options != nil && c.Options.GPU != nil {
		g = *c.Options.GPU
	}
	if g.NumWarps == 0 {
		g.NumWarps = 4
	}
	if g.Stages == 0 {
		g.Stages = DefaultStages
	}
	return g
}

// gpuDotWgmma is the dot-wgmma row: DotToWgmma on every kernel marked
// with AttrDotWgmma.
func gpuDotWgmma(m *ir.Module, ctx *Context) error {
	if err := gpuDots(m); err != nil {
		return err
	}
	g := ctx.GPU()
	if g.DotMMASync {
		return nil
	}
	for _, f := range m.Funcs {
		if f.Attrs.Bool(gpu.AttrDotWgmma) {
			if n := DotToWgmma(f, g.NumWarps); n > 0 {
				ctx.Logf("%s: %d dots to wgmma", f.Name, n)
			}
		}
	}
	return nil
}

// gpuDots refuses, at their positions, the dots the GPU backend does not
// run: an f32 product at full precision (input_precision "ieee": Hopper's
// tensor cores multiply f32 only as tf32, and the backend has no FMA dot)
// and a batched 3-D dot (the interpreter runs both).
func gpuDots(m *ir.Module) error {
	var err error
	for _, f := range m.Funcs {
		f.Walk(func(op *ir.Op) {
			if op.Kind != ir.OpDot || err != nil {
				return
			}
			switch {
			case len(ir.ShapeOf(op.Results[0].Type)) == 3:
				err = ir.ErrorAt(op, "a batched 3-D dot does not run on the GPU yet (the backend lays out 2-D products); load each batch's tiles and use 2-D dots, or run on the interpreter")
			case op.Attrs.String("input_precision") == "ieee":
				err = ir.ErrorAt(op, `input_precision "ieee" (or allow_tf32: false) does not run on the GPU: Hopper's tensor cores multiply f32 only as tf32, and the backend has no FMA dot; use input_precision: "tf32x3" (three tf32 products, about f32's accuracy) or the interpreter`)
			}
		})
	}
	return err
}

// gpuLayouts is the layouts row.
func gpuLayouts(m *ir.Module, ctx *Context) error { return AssignLayouts(m, ctx.GPU().NumWarps) }

// gpuPipeline is the pipeline row.
func gpuPipeline(m *ir.Module, ctx *Context) error { return PipelineLoops(m, ctx.GPU().Stages) }

// gpuAsyncLoads is the async-loads row.
func gpuAsyncLoads(m *ir.Module, _ *Context) error { return AsyncLoads(m) }

// gpuSmemAlloc is the smem-alloc row.
func gpuSmemAlloc(m *ir.Module, ctx *Context) error { return AllocateShared(m, ctx.GPU().SmemLimit) }

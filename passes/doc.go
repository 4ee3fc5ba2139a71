// Package passes holds the IR-to-IR transformations and the pass table that
// orders them. Each pass is one file; adding a pass is adding a row to the
// table, with any order constraints it needs.
//
// # The table
//
// Table (pass.go) lists every pass from the lowered tile IR to the IR the
// backend consumes, in the order the pipeline runs them:
//
//	var Table = []Pass{
//		{Name: "inline", Run: Inline, Required: true},
//		{Name: "constfold", Run: ConstFold},
//		...
//		{Name: "layouts", Phase: PhaseGPU, Run: gpuLayouts, Required: true},
//		...
//	}
//
// A Pass is a name, a function func(*ir.Module, *Context) error, whether it
// is Required (it cannot be disabled: later stages rely on it, as the backend
// relies on inlining and layouts) and its Phase: PhaseTile rows rewrite the
// target-independent IR and every target runs them (the interpreter only
// them); PhaseGPU rows (dot-wgmma, layouts, pipeline, async-loads,
// smem-alloc) prepare it for backend/nvptx and run when Options.GPU is set,
// taking their parameters (warps, stages, arch, whether dots may become
// wgmma) from it through Context.GPU. Order constraints live apart, in
// Constraints, as {Before, After, Reason} rows in the style of Go's
// cmd/compile/internal/ssa/compile.go; init checks that both passes exist,
// that Before comes first in the table and that no row precedes one of an
// earlier phase, and panics otherwise (so does TestOrderConstraints).
//
// # Adding a pass
//
//  1. Write the pass in its own file: func MyPass(m *ir.Module, ctx *Context) error.
//     Report user-facing problems with ctx.Errorf(pos, ...) so they point at
//     the .tle source; return an error for compiler bugs.
//  2. Add one row to Table where it belongs, and a row to Constraints for each
//     ordering it needs (with a one-line reason).
//  3. Add tests: passes/testdata/<name>/*.tir files holding input IR and
//     `// CHECK:` lines (see passes/internal/filecheck); TestPassFiles runs
//     the pass named by the directory (or the `// RUN: a,b` list) on each
//     file, verifies the result and matches the checks against its printed form.
//     The input of a GPU row is best a --dump-after dump of the row before
//     it (the text form keeps layouts and attributes); the checks of a GPU
//     row's files must fail without it (TestGPUPassFilesNeedTheirPass).
//
// # Running the pipeline
//
//	err := passes.Run(m, passes.Options{
//		VerifyEach: true,      // ir.Verify after every pass; the error names the pass that broke the IR
//		DumpAfter:  "all",     // or a pass name: writes <kernel>_<seq>__<pass>.tir into DumpDir
//		DumpDir:    "dumps",
//		Disable:    []string{"cse"},
//		GPU:        &passes.GPUOptions{NumWarps: 4}, // nil: the target-independent rows only
//	})
//
// seq is the pass's place in Table. tle runs the target-independent rows in
// Kernel.IR and, for the GPU, the GPU rows after them with From: PhaseGPU
// (so does nvptx.Prepare); the dumps of one compile are numbered 00 (the
// input) to the last GPU row's either way.
//
// A custom list runs with (&passes.Pipeline{Passes: ..., Options: ...}).Run(m).
package passes

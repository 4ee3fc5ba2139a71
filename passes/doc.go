// Package passes holds the IR-to-IR transformations and the pass table that
// orders them. Each pass is one file; adding a pass is adding a row to the
// table, with any order constraints it needs.
//
// # The table
//
// Table (pass.go) lists every pass in the order the pipeline runs them:
//
//	var Table = []Pass{
//		{Name: "inline", Run: Inline, Required: true},
//		{Name: "constfold", Run: ConstFold},
//		...
//	}
//
// A Pass is a name, a function func(*ir.Module, *Context) error and whether it
// is Required (it cannot be disabled: later stages rely on it, as the backend
// relies on inlining). Order constraints live apart, in Constraints, as
// {Before, After, Reason} rows in the style of Go's
// cmd/compile/internal/ssa/compile.go; init checks that both passes exist and
// that Before comes first in the table, and panics otherwise (so does
// TestOrderConstraints).
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
//
// # Running the pipeline
//
//	err := passes.Run(m, passes.Options{
//		VerifyEach: true,      // ir.Verify after every pass; the error names the pass that broke the IR
//		DumpAfter:  "all",     // or a pass name: writes <kernel>_<seq>__<pass>.tir into DumpDir
//		DumpDir:    "dumps",
//		Disable:    []string{"cse"},
//	})
//
// A custom list runs with (&passes.Pipeline{Passes: ..., Options: ...}).Run(m).
package passes

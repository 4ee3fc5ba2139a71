package passes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/ir"
)

// Pass is one IR-to-IR transformation.
type Pass struct {
	Name string
	Run  func(*ir.Module, *Context) error
	// Required passes cannot be disabled: later stages rely on them.
	Required bool
	// Phase says which targets run the pass.
	Phase Phase
	Doc   string
}

// Phase groups the rows of Table. The rows of a phase come after those of
// the phases before it.
type Phase int

const (
	// PhaseTile rows rewrite the target-independent tile IR: every target
	// runs them, the interpreter only them.
	PhaseTile Phase = iota
	// PhaseGPU rows turn it into the IR backend/nvptx consumes (layouts,
	// pipelining, shared memory); they run when Options.GPU is set.
	PhaseGPU
)

func (p Phase) String() string {
	if p == PhaseGPU {
		return "GPU"
	}
	return "tile"
}

// Table lists the passes in the order the pipeline runs them, from the
// lowered tile IR to the IR the backend consumes. Adding a pass is adding a
// row here (and rows to Constraints when its place matters).
var Table = []Pass{
	{Name: "inline", Run: Inline, Required: true, Doc: "inline every call of a helper function; drop the helpers"},
	{Name: "constfold", Run: ConstFold, Doc: "fold ops on constants, constant-condition ifs and zero-trip loops"},
	{Name: "cse", Run: CSE, Doc: "merge identical pure ops, an outer one replacing an inner one"},
	{Name: "dce", Run: DCE, Doc: "delete unused pure ops, side-effect-free loops/ifs and unused loop/if results"},
	{Name: "elide-transpose", Run: ElideTranspose, Doc: "fold memdesc_trans views read by wgmma into its trans_a/trans_b flags; delete the dead views"},

	{Name: "dot-wgmma", Phase: PhaseGPU, Run: gpuDotWgmma, Doc: "turn the dots of kernels marked dot_wgmma into wgmma on shared-memory operands where their shapes allow"},
	{Name: "layouts", Phase: PhaseGPU, Run: gpuLayouts, Required: true, Doc: "give every tile a distributed layout and every buffer a shared layout; convert and stage operands where layouts meet"},
	{Name: "pipeline", Phase: PhaseGPU, Run: gpuPipeline, Doc: "software-pipeline the staged dot operand loads of innermost loops with cp.async into rings of shared buffers"},
	{Name: "async-loads", Phase: PhaseGPU, Run: gpuAsyncLoads, Doc: "make loads marked async cp.async copies into staging buffers, waited for before their first use"},
	{Name: "smem-alloc", Phase: PhaseGPU, Run: gpuSmemAlloc, Required: true, Doc: "give every shared buffer and scratch an offset, reusing bytes between disjoint live ranges"},
}

// Constraint says that pass Before must run before pass After.
type Constraint struct {
	Before, After string
	Reason        string
}

// Constraints are the order requirements between passes, checked at init.
var Constraints = []Constraint{
	{"inline", "constfold", "constants passed to helpers fold only once the helper is inlined"},
	{"inline", "cse", "CSE works within one function; inlining exposes duplicates across calls"},
	{"constfold", "dce", "folding leaves the ops it folded away unused"},
	{"cse", "dce", "CSE leaves the duplicates it replaced unused"},
	{"inline", "elide-transpose", "a transposed view passed to a helper reaches its wgmma only once the helper is inlined"},

	{"inline", "dot-wgmma", "dot-wgmma rewrites the kernels marked dot_wgmma; a helper's dots are in the kernel only once inlined"},
	{"dot-wgmma", "layouts", "the layout pass gives the buffers dot-wgmma stages their wgmma swizzle and its result the MMAv3 layout"},
	{"layouts", "pipeline", "the pipeliner matches the alloc + local_load staging of dot operands the layout pass inserts, and keeps its layouts"},
	{"layouts", "async-loads", "a staging buffer is laid out after the load's distributed layout (each thread's cp.async chunks)"},
	{"pipeline", "async-loads", "an async load of a pipelined loop's dot operand goes into the pipeliner's ring, not a staging buffer of its own"},
	{"layouts", "smem-alloc", "the bytes of buffers and of convert/reduce/scan scratch depend on the layouts"},
	{"pipeline", "smem-alloc", "the pipeliner's rings are buffers that need offsets"},
	{"async-loads", "smem-alloc", "the staging buffers async-loads adds need offsets"},
}

func init() {
	if err := CheckOrder(Table, Constraints); err != nil {
		panic(err)
	}
}

// CheckOrder reports the first constraint that table breaks (or that names
// a pass not in it), duplicate pass names and a row before one of an
// earlier phase.
func CheckOrder(table []Pass, cons []Constraint) error {
	index := map[string]int{}
	for i, p := range table {
		if _, dup := index[p.Name]; dup {
			return fmt.Errorf("passes: pass %q listed twice", p.Name)
		}
		if p.Run == nil {
			return fmt.Errorf("passes: pass %q has no Run function", p.Name)
		}
		if i > 0 && table[i-1].Phase > p.Phase {
			return fmt.Errorf("passes: %s pass %q comes after %s pass %q (a phase's rows follow those of the phases before it)", p.Phase, p.Name, table[i-1].Phase, table[i-1].Name)
		}
		index[p.Name] = i
	}
	for _, c := range cons {
		b, ok1 := index[c.Before]
		a, ok2 := index[c.After]
		switch {
		case !ok1:
			return fmt.Errorf("passes: order constraint names unknown pass %q", c.Before)
		case !ok2:
			return fmt.Errorf("passes: order constraint names unknown pass %q", c.After)
		case b >= a:
			return fmt.Errorf("passes: %s must run before %s (%s)", c.Before, c.After, c.Reason)
		}
	}
	return nil
}

// Lookup returns the pass of Table named name, or nil.
func Lookup(name string) *Pass {
	for i := range Table {
		if Table[i].Name == name {
			return &Table[i]
		}
	}
	return nil
}

// Options control a pipeline run.
type Options struct {
	// VerifyEach runs ir.Verify on the input and after every pass; a broken
	// invariant is reported with the name of the pass that broke it.
	VerifyEach bool
	// DumpAfter is "all" or a pass name: after that pass (after every pass,
	// and on the input as seq 00 "input", for "all") each kernel is written
	// to DumpDir as <kernel>_<seq>__<pass>.tir, seq being the pass's 1-based
	// position in the pipeline (in Table, for Run, whatever rows run). The
	// file holds the kernel and every helper function, so it parses and
	// verifies on its own. A pass the run does not reach (a GPU row on
	// the interpreter) dumps nothing.
	DumpAfter string
	DumpDir   string // default: the current directory
	// Disable lists passes to skip; Required passes cannot be disabled.
	Disable []string
	// Log, when set, gets one line per pass run.
	Log io.Writer
	// Observe, when set, sees the module after every pass that runs (with
	// the pass's name) and, as "input", before the first when the run
	// starts from the tile phase: where --dump-after=all would dump it.
	// It must not change the module (the pass viewer prints it).
	Observe func(pass string, m *ir.Module)

	// GPU selects the GPU rows of Table for Run, with their parameters;
	// nil runs the target-independent rows only (the interpreter).
	GPU *GPUOptions
	// From is the first phase Run runs: PhaseGPU for a module that went
	// through the target-independent rows already (or was built by hand
	// for the backend), as nvptx.Prepare and tle.CompileModule do.
	From Phase
}

// Context is given to each pass.
type Context struct {
	Options *Options
	Module  *ir.Module
	Pass    string // the running pass
	Diags   diag.List
}

// Errorf records a user-facing error at a .tle position; the pipeline stops
// after the pass that recorded it.
//
// A module parsed from .tir text has no .tle source: its diagnostics then
// read FILE@OFFSET instead of FILE:LINE:COL.
func (c *Context) Errorf(pos diag.Pos, format string, args ...any) {
	f := c.Module.File
	if f == nil || len(f.Src) == 0 {
		f, pos = diag.NewFile(ir.PosString(f, pos), nil), diag.NoPos
	}
	c.Diags.Add(f, pos, diag.NoPos, format, args...)
}

// Logf writes a debug line to Options.Log when set.
func (c *Context) Logf(format string, args ...any) {
	if c.Options != nil && c.Options.Log != nil {
		fmt.Fprintf(c.Options.Log, "%s: %s\n", c.Pass, fmt.Sprintf(format, args...))
	}
}

// Pipeline is a list of passes run with options.
type Pipeline struct {
	Passes  []Pass
	Options Options
}

// Run runs the rows of Table that opts selects on m, in order: from phase
// opts.From on, the GPU rows only when opts.GPU is set. This is the driver
// tlec, the JIT, the interpreter and the tests use.
func Run(m *ir.Module, opts Options) error {
	if opts.From > PhaseTile && opts.GPU == nil {
		return fmt.Errorf("passes: a run from the %s phase needs GPU options", opts.From)
	}
	var steps []step
	for i := range Table {
		p := &Table[i]
		if p.Phase < opts.From || (p.Phase == PhaseGPU && opts.GPU == nil) {
			continue
		}
		steps = append(steps, step{p, i + 1})
	}
	return run(m, Table, steps, &opts, opts.From == PhaseTile)
}

// step is a pass to run and its seq in dump names.
type step struct {
	pass *Pass
	seq  int
}

// PassError is the failure of one pass: its own error, or the IR it left
// broken under VerifyEach.
type PassError struct {
	Pass string
	// Broke is true when the pass returned but left invalid IR.
	Broke bool
	Err   error
	// bare: the message is Err's alone. The GPU rows report the limits of
	// the target (warps, shared memory) in the user's terms, as they did
	// before they were rows.
	bare bool
}

func (e *PassError) Error() string {
	switch {
	case e.Broke:
		return fmt.Sprintf("pass %s broke the IR: %v", e.Pass, e.Err)
	case e.bare:
		return e.Err.Error()
	}
	return fmt.Sprintf("pass %s: %v", e.Pass, e.Err)
}

func (e *PassError) Unwrap() error { return e.Err }

// Run runs the pipeline's passes on m in order (Options.GPU and From do
// not select among them).
func (p *Pipeline) Run(m *ir.Module) error {
	steps := make([]step, len(p.Passes))
	for i := range p.Passes {
		steps[i] = step{&p.Passes[i], i + 1}
	}
	return run(m, p.Passes, steps, &p.Options, true)
}

// run runs steps (rows of table, the passes Disable and DumpAfter may
// name) on m; dumpInput: --dump-after=all dumps the input first, as seq 00.
func run(m *ir.Module, table []Pass, steps []step, opts *Options, dumpInput bool) error {
	known := map[string]*Pass{}
	for i := range table {
		known[table[i].Name] = &table[i]
	}
	for _, d := range opts.Disable {
		ps, ok := known[d]
		if !ok {
			return fmt.Errorf("passes: cannot disable unknown pass %q", d)
		}
		if ps.Required {
			return fmt.Errorf("passes: pass %q is required and cannot be disabled", d)
		}
	}
	if opts.DumpAfter != "" && opts.DumpAfter != "all" && known[opts.DumpAfter] == nil {
		return fmt.Errorf("passes: --dump-after names unknown pass %q", opts.DumpAfter)
	}
	if opts.VerifyEach {
		if err := ir.Verify(m); err != nil {
			return fmt.Errorf("passes: input IR is invalid: %w", err)
		}
	}
	if opts.Observe != nil && dumpInput {
		opts.Observe("input", m)
	}
	if opts.DumpAfter == "all" && dumpInput {
		if err := dump(m, opts.DumpDir, 0, "input"); err != nil {
			return err
		}
	}
	for _, st := range steps {
		ps := st.pass
		if slices.Contains(opts.Disable, ps.Name) {
			continue
		}
		ctx := &Context{Options: opts, Module: m, Pass: ps.Name}
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "pass %s\n", ps.Name)
		}
		if err := ps.Run(m, ctx); err != nil {
			return &PassError{Pass: ps.Name, Err: err, bare: ps.Phase == PhaseGPU}
		}
		if len(ctx.Diags) > 0 {
			ctx.Diags.Sort()
			return ctx.Diags
		}
		if opts.Observe != nil {
			opts.Observe(ps.Name, m)
		}
		if opts.DumpAfter == "all" || opts.DumpAfter == ps.Name {
			if err := dump(m, opts.DumpDir, st.seq, ps.Name); err != nil {
				return err
			}
		}
		if opts.VerifyEach {
			if err := ir.Verify(m); err != nil {
				return &PassError{Pass: ps.Name, Broke: true, Err: err}
			}
		}
	}
	return nil
}

// DumpName is the file name a dump of kernel after the seq-th pass gets.
func DumpName(kernel string, seq int, pass string) string {
	return fmt.Sprintf("%s_%02d__%s.tir", kernel, seq, pass)
}

func dump(m *ir.Module, dir string, seq int, pass string) error {
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var helpers []*ir.Func
	var kernels []*ir.Func
	for _, f := range m.Funcs {
		if f.Kernel {
			kernels = append(kernels, f)
		} else {
			helpers = append(helpers, f)
		}
	}
	if len(kernels) == 0 { // a module of helpers only: dump each one
		kernels, helpers = helpers, nil
	}
	var errs []error
	for _, k := range kernels {
		sub := &ir.Module{File: m.File, Funcs: append([]*ir.Func{k}, helpers...)}
		name := filepath.Join(dir, DumpName(safeName(k.Name), seq, pass))
		errs = append(errs, os.WriteFile(name, []byte(ir.Print(sub)), 0o644))
	}
	return errors.Join(errs...)
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// eachFunc runs fn on every function of m, stopping at the first error,
// which it prefixes with the function's name.
func eachFunc(m *ir.Module, fn func(*ir.Func) error) error {
	for _, f := range m.Funcs {
		if err := fn(f); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

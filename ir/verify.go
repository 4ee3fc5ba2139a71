package ir

import (
	"fmt"
	"strings"

	"github.com/tlego/tle/diag"
)

// VerifyError is one broken invariant, at an op (Kind and Pos) or at a
// function (Kind empty).
type VerifyError struct {
	File *diag.File
	Func string
	Kind Kind
	Pos  diag.Pos
	Msg  string
}

func (e *VerifyError) Error() string {
	where := "func @" + e.Func
	if e.Kind != "" {
		where += ": op " + string(e.Kind)
	}
	return fmt.Sprintf("%s: %s: %s", PosString(e.File, e.Pos), where, e.Msg)
}

// VerifyErrors is every broken invariant Verify found, in program order.
type VerifyErrors []*VerifyError

func (es VerifyErrors) Error() string {
	const max = 20
	var parts []string
	for i, e := range es {
		if i == max {
			parts = append(parts, fmt.Sprintf("(and %d more)", len(es)-max))
			break
		}
		parts = append(parts, e.Error())
	}
	return "invalid IR:\n" + strings.Join(parts, "\n")
}

// Verify checks the invariants of every function of m; it returns nil or a
// VerifyErrors listing each broken one with the op, its position and what is
// wrong.
func Verify(m *Module) error {
	var errs VerifyErrors
	names := map[string]bool{}
	for _, f := range m.Funcs {
		if names[f.Name] {
			errs = append(errs, &VerifyError{File: m.File, Func: f.Name, Pos: f.Pos, Msg: "function defined twice"})
		}
		names[f.Name] = true
		errs = append(errs, verifyFunc(m, f)...)
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// VerifyFunc checks one function; calls are checked against their callees
// only when the module m is given (it may be nil).
func VerifyFunc(m *Module, f *Func) error {
	if errs := verifyFunc(m, f); len(errs) > 0 {
		return errs
	}
	return nil
}

type defSite struct {
	block *Block
	op    *Op // nil for a block argument
}

type verifier struct {
	m     *Module
	f     *Func
	file  *diag.File
	errs  VerifyErrors
	defs  map[*Value]defSite
	scope map[*Value]bool
}

// verifyFunc checks f in phases: its signature (checkSignature), that
// every value is defined once (collect), then each block's structure and
// dominance and, for every whole op, its kind's row of the op table and
// own check (block in verify_block.go, checkOp in verify_op.go, the kinds'
// checks in verify_compute.go, verify_memory.go, verify_control.go and
// verify_gpu.go).
func verifyFunc(m *Module, f *Func) VerifyErrors {
	v := &verifier{m: m, f: f, defs: map[*Value]defSite{}, scope: map[*Value]bool{}}
	if m != nil {
		v.file = m.File
	}
	v.checkSignature()
	if f.Body == nil {
		return v.errs
	}
	v.collect(f.Body)
	v.block(f.Body, nil)
	return v.errs
}

func (v *verifier) funcErr(format string, args ...any) {
	v.errs = append(v.errs, &VerifyError{File: v.file, Func: v.f.Name, Pos: v.f.Pos, Msg: fmt.Sprintf(format, args...)})
}

func (v *verifier) errf(op *Op, format string, args ...any) {
	v.errs = append(v.errs, &VerifyError{File: v.file, Func: v.f.Name, Kind: op.Kind, Pos: op.Pos, Msg: fmt.Sprintf(format, args...)})
}

func (v *verifier) checkSignature() {
	f := v.f
	if f.Body == nil {
		v.funcErr("function has no body")
		return
	}
	if f.Body.Parent != nil {
		v.funcErr("function body has a parent op")
	}
	if len(f.Body.Args) != len(f.Params) {
		v.funcErr("%d parameters but %d body arguments", len(f.Params), len(f.Body.Args))
	}
	seen := map[string]bool{}
	for i, p := range f.Params {
		if p.Name != "" && seen[p.Name] {
			v.funcErr("parameter name %q used twice", p.Name)
		}
		seen[p.Name] = true
		if i < len(f.Body.Args) && f.Body.Args[i] != nil && !Equal(p.Type, f.Body.Args[i].Type) {
			v.funcErr("parameter %s has type %s but body argument %d has type %s", p.Name, typeString(p.Type), i, typeString(f.Body.Args[i].Type))
		}
	}
	if f.Kernel && len(f.Results) > 0 {
		v.funcErr("a kernel returns no results, has %d", len(f.Results))
	}
	if _, ok := f.Attrs["constants"]; ok && len(f.Constants) > 0 {
		v.funcErr(`attribute "constants" is reserved for the constants table`)
	}
	for _, k := range f.Attrs.Keys() {
		if !IsValidAttr(f.Attrs[k]) {
			v.funcErr("attribute %s has Go type %T, not one of int64, float64, bool, string, []int64, Type", k, f.Attrs[k])
		}
	}
}

// collect records where every value is defined, reporting duplicates and
// inconsistent back pointers.
func (v *verifier) collect(b *Block) {
	ids := map[int]*Value{}
	var walk func(b *Block)
	def := func(val *Value, site defSite, what string, op *Op) {
		if val == nil {
			if op != nil {
				v.errf(op, "%s is nil", what)
			} else {
				v.funcErr("%s is nil", what)
			}
			return
		}
		if _, dup := v.defs[val]; dup {
			if op != nil {
				v.errf(op, "%s is defined twice (value %d)", what, val.ID)
			} else {
				v.funcErr("%s is defined twice (value %d)", what, val.ID)
			}
			return
		}
		if other, dup := ids[val.ID]; dup && other != val {
			if op != nil {
				v.errf(op, "%s has ID %d, already used by another value", what, val.ID)
			} else {
				v.funcErr("%s has ID %d, already used by another value", what, val.ID)
			}
		}
		ids[val.ID] = val
		v.defs[val] = site
	}
	walk = func(b *Block) {
		for i, a := range b.Args {
			def(a, defSite{block: b}, fmt.Sprintf("block argument %d", i), b.Parent)
		}
		for _, op := range b.Ops {
			if op == nil {
				v.funcErr("nil op in a block")
				continue
			}
			for i, r := range op.Results {
				def(r, defSite{block: b, op: op}, fmt.Sprintf("result %d", i), op)
			}
			for _, rg := range op.Regions {
				if rg != nil {
					walk(rg)
				}
			}
		}
	}
	walk(b)
}

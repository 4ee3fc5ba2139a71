// Package lower turns a checked .tle syntax tree into the tile IR, one kernel
// at a time, specialised on its compile-time parameters.
//
// Lowering runs after the checker has accepted the file, so it follows the
// same rules on concrete types: it builds SSA form for structured control
// flow (variables reassigned in a loop become loop-carried values of a `for`
// op, those reassigned in a branch become results of an `if` op), inserts
// the casts, splats and broadcasts that make every element-wise op act on
// operands of one type, and emits `call` ops to helper functions instantiated
// per argument types (the inline pass removes them). Every op carries the
// position of the syntax it came from.
//
// Builtin calls are bound from the checker's builtin table (check.Builtins):
// the same parameter names, order, keywords and defaults, through the same
// check.Binder, so a call the checker accepts binds the same way here; only
// the IR building is per builtin (lowerings).
package lower

import (
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"sort"
	"strconv"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/ir"
)

// Options control a lowering.
type Options struct {
	// Defines binds compile-time parameters (and may give top-level consts
	// no new value): NAME -> literal text, as given with -D NAME=VALUE.
	Defines map[string]string
	// NumWarps is the kernel's warp count outside warp_specialize; 0 means 4.
	NumWarps int
	// StaticPrint receives static_print's lines; nil means standard error.
	StaticPrint io.Writer
}

// Kernel lowers the kernel name of f. Every compile-time parameter must be
// bound in opts.Defines. Errors are a diag.List.
func Kernel(f *ast.File, name string, opts Options) (m *ir.Module, err error) {
	l := &lowerer{file: f, opts: opts, funcs: map[string]*ast.FuncDecl{}, consts: map[string]*ast.ConstDecl{}, instances: map[string]*ir.Func{}}
	l.m = &ir.Module{File: f.File}
	var kernel *ast.KernelDecl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.KernelDecl:
			if d.Name.Name == name {
				kernel = d
			}
		case *ast.FuncDecl:
			l.funcs[d.Name.Name] = d
		case *ast.ConstDecl:
			l.consts[d.Name.Name] = d
		}
	}
	if kernel == nil {
		return nil, diag.List{diag.Errorf(f.File, 0, "no kernel named %q in %s", name, f.File.Name)}
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*diag.Diagnostic); ok {
				m, err = nil, diag.List{e}
				return
			}
			m, err = nil, diag.List{diag.Errorf(f.File, kernel.Pos(), "internal compiler error while lowering %s: %v\n%s", name, r, debug.Stack())}
		}
	}()
	l.kernel(kernel)
	return l.m, nil
}

type lowerer struct {
	file      *ast.File
	opts      Options
	m         *ir.Module
	funcs     map[string]*ast.FuncDecl
	consts    map[string]*ast.ConstDecl
	instances map[string]*ir.Func
	stack     []string // helper instantiation stack, to report recursion
	globals   *scope   // the top-level consts (globalScope)
}

// fn is the state of one function being lowered.
type fn struct {
	l       *lowerer
	f       *ir.Func
	b       *ir.Builder
	scope   *scope
	ret     []*ir.Value // helper: values returned
	results []ir.Type   // helper: the declared result types (a dtype, or a *T: a pointer of any space)
	retAt   diag.Pos
	role    bool
	// roleIndex is role_index() in the role being lowered: its copy
	roleIndex int64
	tail      bool // kernel: nothing runs after the statement being lowered
	loops     int  // for loops around the statement being lowered
	// combine names the helper of the reduce or associative_scan being
	// lowered (kind combine)
	combine string
}

func (l *lowerer) errorf(pos diag.Pos, format string, args ...any) {
	panic(diag.Errorf(l.file.File, pos, format, args...))
}

func (l *lowerer) kernel(k *ast.KernelDecl) {
	global := newScope(nil)
	l.bindConsts(global)
	var params []*ir.Param
	var runtime []*ast.Param
	constants := map[string]string{}
	for _, p := range k.Params {
		if !p.Const {
			continue
		}
		text, ok := l.opts.Defines[p.Name.Name]
		if !ok {
			l.errorf(p.Pos(), "compile-time parameter %s of kernel %s is not bound: pass -D %s=VALUE", p.Name.Name, k.Name.Name, p.Name.Name)
		}
		if isDTypeParam(p) {
			d, ok := ir.ParseDType(text)
			if !ok {
				l.errorf(p.Pos(), "-D %s=%s: not a dtype", p.Name.Name, text)
			}
			global.declare(p.Name.Name, &val{dtype: d})
			constants[p.Name.Name] = text
			continue
		}
		c, err := parseConst(text)
		if err != nil {
			l.errorf(p.Pos(), "-D %s=%s: %v", p.Name.Name, text, err)
		}
		global.declare(p.Name.Name, &val{c: c.convert(l.scalarType(p.Type))})
		constants[p.Name.Name] = text
	}
	for _, p := range k.Params {
		if p.Const {
			continue
		}
		params = append(params, &ir.Param{Name: p.Name.Name, Type: l.paramType(p.Type, global), Pos: p.Pos()})
		runtime = append(runtime, p)
	}
	f := ir.NewFunc(k.Name.Name, true, params)
	f.Pos = k.Pos()
	f.Constants = constants
	nw := l.opts.NumWarps
	if nw == 0 {
		nw = 4
	}
	f.Attrs["num_warps"] = int64(nw)
	l.m.Funcs = append(l.m.Funcs, f)
	st := &fn{l: l, f: f, b: ir.NewBuilder(f), scope: newScope(global), tail: true}
	for i, p := range runtime {
		if l.opts.Defines[p.Name.Name] == "None" {
			// an optional tensor left out (-D p=None): p == None folds to
			// true; the parameter stays, the host passes a null pointer
			st.scope.declare(p.Name.Name, &val{none: true})
			constants[p.Name.Name] = "None"
			continue
		}
		st.scope.declare(p.Name.Name, &val{v: f.Body.Args[i]})
	}
	st.scope.declare(returned, &val{c: &constant{kind: 'b'}})
	st.block(k.Body.Stmts)
	st.b.Pos = k.Body.Rbrace
	st.b.Create(ir.OpReturn, nil, nil, nil)
}

// bindConsts evaluates the file's top-level consts (lazily: a const may use
// a later one) into untyped constants.
func (l *lowerer) bindConsts(s *scope) {
	names := make([]string, 0, len(l.consts))
	for n := range l.consts {
		names = append(names, n)
	}
	sort.Strings(names)
	evaluating := map[string]bool{}
	var eval func(name string) *val
	eval = func(name string) *val {
		if v := s.vars[name]; v != nil {
			return v
		}
		d := l.consts[name]
		if evaluating[name] {
			l.errorf(d.Pos(), "constant %s refers to itself", name)
		}
		evaluating[name] = true
		st := l.constEvaluator(newScope(nil))
		st.scope.lookupHook = func(n string) *val {
			if _, ok := l.consts[n]; ok {
				return eval(n)
			}
			return nil
		}
		v := st.expr(d.Value)
		if v.c == nil {
			l.errorf(d.Value.Pos(), "constant %s must have a compile-time value", name)
		}
		s.declare(name, v)
		return v
	}
	for _, n := range names {
		eval(n)
	}
}

// constEvaluator returns a function state for evaluating compile-time
// expressions outside a kernel body. Its builder writes to a scratch
// function, so a call that is not a constant (say `program_id(0)`) lowers
// harmlessly and is then rejected for not being compile-time.
func (l *lowerer) constEvaluator(sc *scope) *fn {
	scratch := ir.NewFunc("const", false, nil)
	return &fn{l: l, f: scratch, b: ir.NewBuilder(scratch), scope: sc}
}

func (l *lowerer) scalarType(t ast.TypeExpr) ir.DType { return l.scalarIn(t, nil) }

// scalarIn resolves a scalar type in scope sc, where a helper's `T const
// dtype` parameter is bound to its dtype.
func (l *lowerer) scalarIn(t ast.TypeExpr, sc *scope) ir.DType {
	if n, ok := t.(*ast.NamedType); ok {
		return l.dtypeIn(n.Name, sc)
	}
	l.errorf(t.Pos(), "expected a scalar type")
	return ir.Invalid
}

func (l *lowerer) paramType(t ast.TypeExpr, sc *scope) ir.Type {
	switch t := t.(type) {
	case *ast.NamedType:
		return l.scalarIn(t, sc)
	case *ast.PointerType:
		return &ir.Pointer{Elem: l.scalarIn(t.Elem, sc), Space: ir.Global}
	case *ast.DescType:
		d := &ir.Desc{Elem: l.dtypeIn(t.Elem, sc)}
		for _, e := range t.Block {
			d.Block = append(d.Block, l.constInt(e, sc))
		}
		return d
	case *ast.TileType:
		elem := l.dtypeIn(t.Elem, sc)
		var shape []int
		for _, e := range t.Dims {
			shape = append(shape, l.constInt(e, sc))
		}
		return ir.TileOf(shape, elem)
	}
	l.errorf(t.Pos(), "unsupported parameter type")
	return nil
}

func (l *lowerer) dtypeName(id *ast.Ident) ir.DType { return l.dtypeIn(id, nil) }

// dtypeIn resolves a dtype name, or a dtype parameter bound in sc.
func (l *lowerer) dtypeIn(id *ast.Ident, sc *scope) ir.DType {
	if d, ok := ir.ParseDType(id.Name); ok {
		return d
	}
	if sc != nil {
		if v, _ := sc.lookup(id.Name); v != nil && v.dtype != ir.Invalid {
			return v.dtype
		}
	}
	l.errorf(id.Pos(), "unknown type %s", id.Name)
	return ir.Invalid
}

// constInt evaluates a compile-time integer in scope sc (top-level consts
// and bound const parameters); used for parameter types.
func (l *lowerer) constInt(e ast.Expr, sc *scope) int {
	st := l.constEvaluator(sc)
	v := st.expr(e)
	if v.c == nil || !v.c.isInt() {
		l.errorf(e.Pos(), "expected a compile-time integer")
	}
	return int(v.c.i)
}

// ------------------------------------------------------------------ scopes

type scope struct {
	parent     *scope
	vars       map[string]*val
	lookupHook func(string) *val
}

func newScope(parent *scope) *scope { return &scope{parent: parent, vars: map[string]*val{}} }

func (s *scope) declare(name string, v *val) { s.vars[name] = v }

func (s *scope) lookup(name string) (*val, *scope) {
	for sc := s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars[name]; ok {
			return v, sc
		}
		if sc.lookupHook != nil {
			if v := sc.lookupHook(name); v != nil {
				return v, sc
			}
		}
	}
	return nil, nil
}

// ------------------------------------------------------------------ values

// val is what an expression lowers to: an IR value, an untyped compile-time
// constant, or a compile-time-only entity (a dtype, a tile type, a list, a
// string, None, a slice marker).
type val struct {
	v     *ir.Value
	c     *constant
	dtype ir.DType // a dtype used as a value (f32 in cast(x, f32))
	// ptrType is a pointer dtype as a value (p.dtype of a pointer p; its
	// element_ty is the pointee's dtype)
	ptrType *ir.Pointer
	tile    *ir.Tile  // a tile type used as a value ([16, 128]bf16)
	list    []*val    // [a, b, ...]
	str     *string   // a string literal
	none    bool      // None
	slice   bool      // ':' in an index
	bp      *blockPtr // a block pointer (blockptr.go)
}

// constant is an untyped compile-time scalar; dt is set once it is typed by
// a -D binding of a typed const parameter (it still folds like a constant).
type constant struct {
	kind byte // 'i' int, 'f' float, 'b' bool
	i    int64
	f    float64
	b    bool
	dt   ir.DType
}

func (c *constant) isInt() bool { return c.kind == 'i' }

func (c *constant) float() float64 {
	switch c.kind {
	case 'i':
		return float64(c.i)
	case 'b':
		if c.b {
			return 1
		}
		return 0
	}
	return c.f
}

func (c *constant) String() string {
	switch c.kind {
	case 'i':
		return strconv.FormatInt(c.i, 10)
	case 'b':
		return strconv.FormatBool(c.b)
	}
	return strconv.FormatFloat(c.f, 'g', -1, 64)
}

// convert gives the constant dtype dt, keeping it a constant.
func (c *constant) convert(dt ir.DType) *constant {
	out := *c
	out.dt = dt
	switch {
	case dt == ir.I1:
		out.kind, out.b = 'b', c.float() != 0
	case dt.IsInt():
		out.kind, out.i = 'i', dt.WrapInt(int64(c.float()))
		if c.kind == 'i' {
			out.i = dt.WrapInt(c.i)
		}
	case dt.IsFloat():
		out.kind, out.f = 'f', dt.Round(c.float())
	}
	return &out
}

func parseConst(s string) (*constant, error) {
	switch s {
	case "true":
		return &constant{kind: 'b', b: true}, nil
	case "false":
		return &constant{kind: 'b'}, nil
	}
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return &constant{kind: 'i', i: i}, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) {
		return &constant{kind: 'f', f: f}, nil
	}
	return nil, fmt.Errorf("not a number or boolean")
}

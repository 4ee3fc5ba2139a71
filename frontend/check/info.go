package check

import (
	"go/constant"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// Value is a compile-time value. Known holds it when it is known (literals,
// top-level consts, bound const params and folding of those); otherwise Sym
// holds it as a polynomial in unbound const params (BLOCK, 2*BLOCK), or as an
// opaque atom for a non-integer symbolic value.
type Value struct {
	Known constant.Value // nil when symbolic
	Sym   Dim
}

// IsKnown reports whether the value is known, not just symbolic.
func (v *Value) IsKnown() bool { return v != nil && v.Known != nil }

// Int returns a known integer value.
func (v *Value) Int() (int64, bool) {
	if v == nil || v.Known == nil {
		return 0, false
	}
	i := constant.ToInt(v.Known)
	if i.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(i)
}

// Bool returns a known boolean value.
func (v *Value) Bool() (bool, bool) {
	if v == nil || v.Known == nil || v.Known.Kind() != constant.Bool {
		return false, false
	}
	return constant.BoolVal(v.Known), true
}

// Dim returns an integer value as a Dim (concrete or symbolic).
func (v *Value) Dim() (Dim, bool) {
	if v == nil {
		return Dim{}, false
	}
	if v.Known == nil {
		return v.Sym, true
	}
	if n, ok := v.Int(); ok && v.Known.Kind() == constant.Int {
		return ConstDim(n), true
	}
	return Dim{}, false
}

func (v *Value) String() string {
	if v == nil {
		return "<runtime>"
	}
	if v.Known != nil {
		return v.Known.ExactString()
	}
	return v.Sym.String()
}

func knownInt(n int64) *Value { return &Value{Known: constant.MakeInt64(n)} }

// TypeAndValue is what the checker knows about one expression.
type TypeAndValue struct {
	Type  Type
	Value *Value // nil for a runtime value
}

// ObjKind says what a name denotes.
type ObjKind int

// The kinds of objects.
const (
	VarObj     ObjKind = iota // a local variable (:=, loop variable)
	ParamObj                  // a kernel or func parameter (const params carry Value)
	ConstObj                  // a const declaration, true/false, smem
	FuncObj                   // a func helper
	KernelObj                 // a kernel (cannot be called)
	BuiltinObj                // a builtin function
	DTypeObj                  // a dtype name used as a value (f32)
)

var objKindNames = [...]string{"variable", "parameter", "constant", "func", "kernel", "builtin", "dtype"}

func (k ObjKind) String() string { return objKindNames[k] }

// Object is what an identifier denotes. Each declaration has exactly one
// Object, so lowering can key its value maps on *Object.
type Object struct {
	Kind    ObjKind
	Name    string
	Pos     diag.Pos // declaration position (NoPos for universe objects)
	Type    Type
	Value   *Value   // consts and const params
	Const   bool     // a const param (compile-time) or const declaration
	Decl    ast.Node // *ast.Param, *ast.ConstDecl, *ast.FuncDecl, *ast.KernelDecl, the declaring *ast.Ident for vars
	Builtin *Builtin // BuiltinObj
	DType   DType    // DTypeObj
	Func    *ast.FuncDecl

	// checker bookkeeping
	loopDepth int       // loop nesting at the declaration
	none      bool      // a pointer parameter bound to None (-D p=None)
	role      *ast.Role // enclosing role at the declaration (nil outside)
}

// Arg is one normalized argument of a call, in the callee's parameter order.
type Arg struct {
	Name    string   // parameter name (a pipe field's name for pipe(...) fields)
	Expr    ast.Expr // nil when defaulted
	Type    Type     // the argument's type after conversion (the default's type when defaulted)
	Value   *Value   // compile-time value, or the default's
	Default bool     // not written: Value (if any) is the parameter's default
}

// Call is a resolved call.
type Call struct {
	// Builtin is the builtin called, nil for a func helper. Methods (x.to(T),
	// pp.acquire(i), buf.slot(i)) resolve to builtins whose first argument is
	// the receiver; x.to(T) resolves to cast.
	Builtin *Builtin
	// Args holds the arguments in the builtin's (or func's) parameter order,
	// defaults filled in; a variadic parameter contributes one Arg per value
	// (all with its name); pipe fields follow capacity in written order.
	Args []*Arg
	// Instance is the func helper instance called, nil for builtins.
	Instance *Instance
	// Result is the call's type (NoValue when it returns nothing).
	Result Type
}

// Instance is one instantiation of a func helper for the argument types of a
// call site (helpers are generic over tile shape). Its body's expressions are
// recorded in its own Tables, since their types differ per instance.
type Instance struct {
	Decl    *ast.FuncDecl
	Params  []*Object // with the argument types (const params carry Value)
	Results []Type
	Tables  *Tables
	Smem    []*SmemBuffer // shared memory its body allocates

	callees  []calleeAt // the helper calls of its body (limits.go: inlineBudget)
	warpSpec *wsNest    // the warp_specialize it runs (its own or a callee's), nil if none
	size     int64      // its inlined size (inlinedSize), 0 until computed
}

// Tables are the per-body side tables.
type Tables struct {
	Types map[ast.Expr]TypeAndValue // every expression checked
	Uses  map[*ast.Ident]*Object    // identifiers used
	Defs  map[*ast.Ident]*Object    // identifiers declared (params, :=, const, loop vars)
	Calls map[*ast.CallExpr]*Call   // every call
	// Pruned holds the branches of ifs with a known compile-time condition
	// that are not taken: they are not checked (nor lowered), so their
	// expressions have no types.
	Pruned map[ast.Stmt]bool
}

func newTables() *Tables {
	return &Tables{
		Types:  map[ast.Expr]TypeAndValue{},
		Uses:   map[*ast.Ident]*Object{},
		Defs:   map[*ast.Ident]*Object{},
		Calls:  map[*ast.CallExpr]*Call{},
		Pruned: map[ast.Stmt]bool{},
	}
}

// TypeOf returns the type recorded for e (nil if none).
func (t *Tables) TypeOf(e ast.Expr) Type { return t.Types[e].Type }

// Kernel is one checked kernel.
type Kernel struct {
	Decl   *ast.KernelDecl
	Name   string
	Params []*Object // in order; bound const params carry a known Value
	Smem   *SmemBudget
}

// SmemBuffer is one shared-memory allocation counted against the budget.
type SmemBuffer struct {
	Name  string   // the variable it was assigned to, or a description
	Pos   diag.Pos // the alloc/pipe/barrier call
	Kind  string   // "alloc", "pipe field f", "pipe barriers", "barrier"
	Shape Shape    // buffer shape (for a pipe field: [capacity, field dims...])
	Elem  DType    // Invalid for barriers
	Bytes int64    // 0 when Shape is symbolic
	Known bool     // all sizes concrete
}

// SmemBudget is a kernel's static shared-memory use.
type SmemBudget struct {
	Buffers []*SmemBuffer
	Total   int64 // bytes; meaningful only when Known
	Known   bool  // every buffer's size is concrete
	Limit   int64
}

// Info is everything the checker learned: the side tables for the kernels and
// top-level declarations (embedded), plus func instances and kernels.
type Info struct {
	*Tables
	Kernels []*Kernel
	// Instances lists each func helper's instances in order of first use.
	// A func never called has one instance, checked with its declared
	// parameter types (scalar params as scalars), so its errors are found.
	Instances map[*ast.FuncDecl][]*Instance
	// Consts are the top-level constants by name.
	Consts map[string]*Object
	// Tunes are the kernels' tuning spaces (tune blocks), by kernel name.
	Tunes map[string]*TuneSpace
}

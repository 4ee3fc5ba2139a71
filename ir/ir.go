package ir

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tlego/tle/diag"
)

// Value is an SSA value: the result of an op or an argument of a block.
type Value struct {
	ID    int
	Type  Type
	Name  string // the source variable it came from, for dumps; may be empty
	Def   *Op    // defining op; nil for a block argument
	Block *Block // owning block, for a block argument
	Index int    // result index in Def, or argument index in Block
}

// Op is one operation. Regions hold nested code (loop bodies, if branches,
// warp-specialize roles); each region is a single block.
type Op struct {
	Kind     Kind
	Operands []*Value
	Results  []*Value
	Attrs    Attrs
	Regions  []*Block
	Pos      diag.Pos // the .tle position the op came from
	Parent   *Block
	// Inlined is the chain of helper calls the op was inlined through,
	// innermost first: empty for an op written in the kernel, one site for
	// an op of a helper the kernel calls. Diagnostics at the op name them.
	Inlined []InlineSite
}

// InlineSite is one inlined helper call: the helper's name (as written in
// the source) and the position of the call.
type InlineSite struct {
	Func string
	Call diag.Pos
}

// InlinedAt describes an op's inline chain for messages, with positions
// printed by pos: "in func fill, called at f.tle:80:9" (then ", in func
// outer, called at ..." for each enclosing call); "" for an op written in
// the kernel.
func (op *Op) InlinedAt(pos func(diag.Pos) string) string {
	if op == nil || len(op.Inlined) == 0 {
		return ""
	}
	parts := make([]string, len(op.Inlined))
	for i, s := range op.Inlined {
		parts[i] = "in func " + s.Func + ", called at " + pos(s.Call)
	}
	return strings.Join(parts, ", ")
}

// Block is a list of ops with arguments. Every region is one block; the last
// op of a region block is its terminator (yield, or return in a func body).
type Block struct {
	Args   []*Value
	Ops    []*Op
	Parent *Op // the op owning this region; nil for a function body
}

// Param is a runtime parameter of a function.
type Param struct {
	Name string
	Type Type
	Pos  diag.Pos
}

// Func is a kernel or a helper function. Compile-time parameters are gone by
// the time a Func exists: they are bound and recorded in Constants.
type Func struct {
	Name      string
	Kernel    bool
	Params    []*Param
	Results   []Type // helper functions only
	Body      *Block // Body.Args[i] is Params[i]
	Constants map[string]string
	Attrs     Attrs // e.g. num_warps, cluster dimensions
	Pos       diag.Pos
	nextID    int
}

// Module is a set of functions compiled from one source file.
type Module struct {
	File  *diag.File
	Funcs []*Func
}

// Func returns the function named name, or nil.
func (m *Module) Func(name string) *Func {
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// NewFunc makes a function with an entry block whose arguments are the params.
func NewFunc(name string, kernel bool, params []*Param) *Func {
	f := &Func{Name: name, Kernel: kernel, Params: params, Constants: map[string]string{}, Attrs: Attrs{}}
	f.Body = &Block{}
	for i, p := range params {
		f.Body.Args = append(f.Body.Args, f.NewValue(p.Type, p.Name, nil, f.Body, i))
	}
	return f
}

// NewValue allocates a value with a fresh ID.
func (f *Func) NewValue(t Type, name string, def *Op, block *Block, index int) *Value {
	v := &Value{ID: f.nextID, Type: t, Name: name, Def: def, Block: block, Index: index}
	f.nextID++
	return v
}

// AddBlockArg appends an argument of type t to b.
func (f *Func) AddBlockArg(b *Block, t Type, name string) *Value {
	v := f.NewValue(t, name, nil, b, len(b.Args))
	b.Args = append(b.Args, v)
	return v
}

// Renumber gives every value a dense ID in program order (used before
// printing so that dumps are stable).
func (f *Func) Renumber() {
	id := 0
	var walk func(b *Block)
	walk = func(b *Block) {
		for _, a := range b.Args {
			a.ID = id
			id++
		}
		for _, op := range b.Ops {
			for _, r := range op.Results {
				r.ID = id
				id++
			}
			for _, rg := range op.Regions {
				walk(rg)
			}
		}
	}
	walk(f.Body)
	f.nextID = id
}

// Attrs are an op's compile-time attributes. Values are int64, float64,
// bool, string, []int64, DType or Type.
type Attrs map[string]any

// Keys returns the attribute names sorted.
func (a Attrs) Keys() []string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Int returns an integer attribute, or def when absent.
func (a Attrs) Int(name string, def int64) int64 {
	if v, ok := a[name].(int64); ok {
		return v
	}
	return def
}

// Bool returns a boolean attribute, or false.
func (a Attrs) Bool(name string) bool {
	v, _ := a[name].(bool)
	return v
}

// String returns a string attribute, or "".
func (a Attrs) String(name string) string {
	v, _ := a[name].(string)
	return v
}

// Ints returns an integer-list attribute as ints.
func (a Attrs) Ints(name string) []int {
	v, _ := a[name].([]int64)
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// Result returns the op's only result; it panics when there is not exactly one
// (a compiler bug, not a user error).
func (op *Op) Result() *Value {
	if len(op.Results) != 1 {
		panic(fmt.Sprintf("ir: %s has %d results", op.Kind, len(op.Results)))
	}
	return op.Results[0]
}

// Walk calls fn for every op in b and its regions, outer ops first.
func (b *Block) Walk(fn func(*Op)) {
	for _, op := range b.Ops {
		fn(op)
		for _, r := range op.Regions {
			r.Walk(fn)
		}
	}
}

// Walk calls fn for every op of the function, outer ops first.
func (f *Func) Walk(fn func(*Op)) { f.Body.Walk(fn) }

// Terminator returns the last op of b, or nil.
func (b *Block) Terminator() *Op {
	if len(b.Ops) == 0 {
		return nil
	}
	return b.Ops[len(b.Ops)-1]
}

// ReplaceAllUses makes every use of old in f use new instead.
func (f *Func) ReplaceAllUses(old, new *Value) {
	f.Walk(func(op *Op) {
		for i, v := range op.Operands {
			if v == old {
				op.Operands[i] = new
			}
		}
	})
}

// Uses counts the uses of every value in f.
func (f *Func) Uses() map[*Value]int {
	uses := map[*Value]int{}
	f.Walk(func(op *Op) {
		for _, v := range op.Operands {
			uses[v]++
		}
	})
	return uses
}

// Remove deletes op from its parent block.
func (op *Op) Remove() {
	b := op.Parent
	if b == nil {
		return
	}
	for i, o := range b.Ops {
		if o == op {
			b.Ops = append(b.Ops[:i], b.Ops[i+1:]...)
			break
		}
	}
	op.Parent = nil
}

package check

import "github.com/tlego/tle/frontend/ast"

// A Binder matches the written arguments of one call to a parameter list,
// one argument at a time in written order. The checker binds builtin and
// func helper calls through it and so does the lowering, so the two cannot
// disagree on which argument is which:
//
//   - positional arguments fill the positional parameters in order; a
//     variadic parameter takes every further positional argument; none may
//     follow a keyword argument;
//   - keyword arguments go by name (a positional parameter may be named too,
//     a variadic one and a method's receiver may not);
//   - where the builtin takes fields (pipe), any other keyword is a field.
type Binder struct {
	params  []*Param
	fields  bool
	method  bool // params[0] is the receiver
	filled  []bool
	next    int  // the next positional parameter
	sawKw   bool // a keyword argument came
	tooMany bool // an argument past the parameters came
	seen    map[string]bool
}

// Where Next puts an argument that is not a parameter's.
const (
	FieldArg = -1 // a pipe field
	NoParam  = -2 // nowhere (see the BindError)
)

// BindError says why Next could not bind an argument.
type BindError int

// The binding errors.
const (
	BindOK                     BindError = iota
	BindPositionalAfterKeyword           // a positional argument after a keyword one
	BindTooMany                          // the first argument past the parameters
	BindTooManyMore                      // a further one (one error is enough)
	BindUnknownKeyword                   // a keyword that names no parameter
	BindDuplicate                        // a parameter or field given twice (a field is still bound)
)

var bindErrorText = [...]string{
	BindOK:                     "no error",
	BindPositionalAfterKeyword: "positional argument after keyword argument",
	BindTooMany:                "too many arguments",
	BindTooManyMore:            "too many arguments",
	BindUnknownKeyword:         "unknown keyword argument",
	BindDuplicate:              "duplicate argument",
}

func (e BindError) String() string { return bindErrorText[e] }

// NewBinder starts binding a call to params. fields: other keywords are
// fields. method: params[0] is the receiver, bound before the arguments.
func NewBinder(params []*Param, fields, method bool) *Binder {
	b := &Binder{params: params, fields: fields, method: method, filled: make([]bool, len(params)), seen: map[string]bool{}}
	if method {
		b.filled[0] = true
		b.next = 1
	}
	return b
}

// Next binds the next written argument: it returns the index of its
// parameter (a variadic one for each of its values), FieldArg or NoParam,
// and why it could not bind it.
func (b *Binder) Next(a *ast.Arg) (int, BindError) {
	if a.Name == nil {
		return b.positional()
	}
	b.sawKw = true
	kw := a.Name.Name
	idx := -1
	for i, p := range b.params {
		if (p.Name == kw || p.Also != "" && p.Also == kw) && !p.Variadic && !(b.method && i == 0) {
			idx = i
		}
	}
	if idx < 0 {
		if !b.fields {
			return NoParam, BindUnknownKeyword
		}
		if b.seen[kw] {
			return FieldArg, BindDuplicate
		}
		b.seen[kw] = true
		return FieldArg, BindOK
	}
	if b.filled[idx] {
		return NoParam, BindDuplicate
	}
	b.filled[idx] = true
	return idx, BindOK
}

func (b *Binder) positional() (int, BindError) {
	if b.sawKw {
		return NoParam, BindPositionalAfterKeyword
	}
	for b.next < len(b.params) && b.filled[b.next] && !b.params[b.next].Variadic {
		b.next++
	}
	switch {
	case b.next < len(b.params) && b.params[b.next].Variadic:
		return b.next, BindOK
	case b.next < len(b.params) && !b.params[b.next].Keyword:
		b.filled[b.next] = true
		b.next++
		return b.next - 1, BindOK
	}
	if b.tooMany {
		return NoParam, BindTooManyMore
	}
	b.tooMany = true
	return NoParam, BindTooMany
}

// FuncParams is the parameter list a call of the func helper fd binds to.
func FuncParams(fd *ast.FuncDecl) []*Param {
	params := make([]*Param, len(fd.Params))
	for i, p := range fd.Params {
		// A const parameter may be left out when the other arguments'
		// types give it (the checker infers it, or reports it missing).
		params[i] = &Param{Name: p.Name.Name, Optional: p.Const, Const: p.Const}
	}
	return params
}

// Bound reports whether parameter i has an argument (a method's receiver
// has one from the start).
func (b *Binder) Bound(i int) bool { return b.filled[i] }

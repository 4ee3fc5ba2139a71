package lower

import (
	"fmt"
	"strings"

	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/tle/diag"
	"github.com/tlego/tle/tle/ir"
)

// args maps a call's arguments onto parameter names: positional arguments
// fill names in order, keyword arguments by name. A name ending in "..."
// collects the remaining positional arguments.
type args struct {
	call   *ast.CallExpr
	named  map[string]*ast.Arg
	rest   []*ast.Arg
	values map[string]*val // arguments already evaluated
}

func (a *args) cache(name string, v *ir.Value) {
	if a.values == nil {
		a.values = map[string]*val{}
	}
	a.values[name] = &val{v: v}
}

func (s *fn) bind(call *ast.CallExpr, name string, params ...string) *args {
	a := &args{call: call, named: map[string]*ast.Arg{}}
	pi := 0
	for _, arg := range call.Args {
		if arg.Name != nil {
			a.named[arg.Name.Name] = arg
			continue
		}
		if pi < len(params) && strings.HasSuffix(params[pi], "...") {
			a.rest = append(a.rest, arg)
			continue
		}
		if pi >= len(params) {
			s.errorf(arg.Pos(), "too many arguments to %s", name)
		}
		a.named[params[pi]] = arg
		pi++
	}
	return a
}

func (a *args) has(name string) bool { return a.named[name] != nil }

func (s *fn) arg(a *args, name string) *val {
	if v, ok := a.values[name]; ok {
		return v
	}
	arg := a.named[name]
	if arg == nil {
		s.errorf(a.call.Rparen, "missing argument %s", name)
	}
	return s.expr(arg.Value)
}

func (s *fn) argPos(a *args, name string) diag.Pos {
	if arg := a.named[name]; arg != nil {
		return arg.Value.Pos()
	}
	return a.call.Pos()
}

func (s *fn) constIntArg(a *args, name string, def int64) int64 {
	if !a.has(name) {
		return def
	}
	v := s.arg(a, name)
	if v.c == nil || !v.c.isInt() && v.c.kind != 'b' {
		s.errorf(s.argPos(a, name), "%s must be a compile-time integer", name)
	}
	if v.c.kind == 'b' {
		if v.c.b {
			return 1
		}
		return 0
	}
	return v.c.i
}

func (s *fn) dtypeArg(a *args, name string) ir.DType {
	v := s.arg(a, name)
	if v.dtype == ir.Invalid {
		s.errorf(s.argPos(a, name), "%s must be a type such as f32", name)
	}
	return v.dtype
}

// callMulti lowers a call to a helper returning several values.
func (s *fn) callMulti(call *ast.CallExpr) []*val {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || s.l.funcs[id.Name] == nil {
		s.errorf(call.Pos(), "only helper functions return several values")
	}
	return s.helperCall(id.Name, call)
}

func (s *fn) call(call *ast.CallExpr, stmt bool) *val {
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		return s.method(sel, call)
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok {
		s.errorf(call.Fun.Pos(), "cannot call this expression")
	}
	if v, _ := s.scope.lookup(id.Name); v != nil {
		s.errorf(id.Pos(), "%s is not a function", id.Name)
	}
	if _, ok := s.l.funcs[id.Name]; ok {
		vals := s.helperCall(id.Name, call)
		if len(vals) == 0 {
			if !stmt {
				s.errorf(call.Pos(), "%s returns no value", id.Name)
			}
			return &val{}
		}
		if len(vals) > 1 {
			s.errorf(call.Pos(), "%s returns %d values", id.Name, len(vals))
		}
		return vals[0]
	}
	if bf, ok := builtins[id.Name]; ok {
		s.b.Pos = call.Pos()
		return bf(s, call)
	}
	s.errorf(id.Pos(), "undefined function %s", id.Name)
	return nil
}

// helperCall instantiates the helper for the argument types (and the values
// of its const parameters) and emits a call op; the inline pass later
// replaces it with the body.
func (s *fn) helperCall(name string, call *ast.CallExpr) []*val {
	d := s.l.funcs[name]
	byParam := make([]*ast.Arg, len(d.Params))
	next := 0
	for _, a := range call.Args {
		i := next
		if a.Name != nil {
			i = -1
			for j, p := range d.Params {
				if p.Name.Name == a.Name.Name {
					i = j
				}
			}
			if i < 0 {
				s.errorf(a.Pos(), "%s has no parameter %s", name, a.Name.Name)
			}
		} else {
			next++
		}
		if i >= len(d.Params) {
			s.errorf(a.Pos(), "too many arguments to %s", name)
		}
		if byParam[i] != nil {
			s.errorf(a.Pos(), "argument %s of %s is given twice", d.Params[i].Name.Name, name)
		}
		byParam[i] = a
	}
	var argv []*ir.Value
	var types []string
	consts := map[string]*constant{}
	for i, p := range d.Params {
		a := byParam[i]
		if a == nil {
			s.errorf(call.Rparen, "missing argument %s of %s", p.Name.Name, name)
		}
		v := s.expr(a.Value)
		if p.Const {
			if v.c == nil {
				s.errorf(a.Value.Pos(), "argument %s of %s must be a compile-time value", p.Name.Name, name)
			}
			c := v.c.convert(s.l.scalarType(p.Type))
			consts[p.Name.Name] = c
			types = append(types, p.Name.Name+"="+c.String())
			continue
		}
		var t ir.Type
		switch pt := p.Type.(type) {
		case *ast.PointerType:
			// A pointer parameter takes pointers of any address space and
			// shape with the declared element type.
			if v.v == nil {
				s.errorf(a.Pos(), "argument %s of %s must be a pointer", p.Name.Name, name)
			}
			t = v.v.Type
		case *ast.TileType:
			t = s.l.paramType(pt, s.scope)
		default:
			dt := s.l.scalarType(pt)
			t = dt
			if v.v != nil {
				t = ir.TileOf(ir.ShapeOf(v.v.Type), dt)
			}
		}
		argv = append(argv, s.materialize(v, t, a.Pos()))
		types = append(types, t.String())
	}
	key := name + "(" + strings.Join(types, ",") + ")"
	f := s.l.instances[key]
	if f == nil {
		for _, st := range s.l.stack {
			if st == name {
				s.errorf(call.Pos(), "recursive call of %s: helpers are inlined and cannot recurse", name)
			}
		}
		f = s.l.instantiate(d, key, argv, consts)
	}
	s.b.Pos = call.Pos()
	op := s.b.Create(ir.OpCall, f.Results, argv, ir.Attrs{"callee": f.Name})
	var out []*val
	for _, r := range op.Results {
		out = append(out, &val{v: r})
	}
	return out
}

func (l *lowerer) instantiate(d *ast.FuncDecl, key string, argv []*ir.Value, consts map[string]*constant) *ir.Func {
	l.stack = append(l.stack, d.Name.Name)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	var params []*ir.Param
	var runtime []*ast.Param
	for _, p := range d.Params {
		if p.Const {
			continue
		}
		params = append(params, &ir.Param{Name: p.Name.Name, Type: argv[len(runtime)].Type, Pos: p.Pos()})
		runtime = append(runtime, p)
	}
	name := d.Name.Name
	if n := len(l.instances); n > 0 {
		name = fmt.Sprintf("%s.%d", name, n)
	}
	f := ir.NewFunc(name, false, params)
	f.Pos = d.Pos()
	l.instances[key] = f
	global := newScope(nil)
	l.bindConsts(global)
	for n, c := range consts {
		global.declare(n, &val{c: c})
	}
	st := &fn{l: l, f: f, b: ir.NewBuilder(f), scope: newScope(global)}
	for i, p := range runtime {
		st.scope.declare(p.Name.Name, &val{v: f.Body.Args[i]})
	}
	st.block(d.Body.Stmts)
	if len(d.Results) != len(st.ret) {
		l.errorf(d.Body.Rbrace, "%s must end with a return of %d values", d.Name.Name, len(d.Results))
	}
	var rets []*ir.Value
	for i, r := range st.ret {
		want := l.scalarType(d.Results[i])
		t := ir.TileOf(ir.ShapeOf(r.Type), want)
		st.b.Pos = st.retAt
		rets = append(rets, st.convert(r, t, st.retAt))
		f.Results = append(f.Results, t)
	}
	st.b.Pos = st.retAt
	st.b.Create(ir.OpReturn, nil, rets, nil)
	l.m.Funcs = append(l.m.Funcs, f)
	return f
}

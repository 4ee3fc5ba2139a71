package lower

import (
	"fmt"
	goconstant "go/constant"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/ir"
)

// args are a builtin call's arguments, bound to the parameters of its row
// of the builtin table (check.Builtins) by the checker's Binder: written ones
// by parameter name, the variadic parameter's in rest, pipe fields in
// fields; an omitted one takes the row's default. They are lowered when the
// lowering asks for them (arg), in the order it asks.
type args struct {
	call   *ast.CallExpr
	b      *check.Builtin
	named  map[string]*ast.Arg
	rest   []*ast.Arg
	fields []*ast.Arg
	values map[string]*val // arguments already lowered: a method's receiver, a buffer
}

func (a *args) cache(name string, v *ir.Value) { a.values[name] = &val{v: v} }

// bindArgs binds call's arguments to b's parameters; recv is a method's
// receiver, already lowered.
func (s *fn) bindArgs(call *ast.CallExpr, b *check.Builtin, recv *val) *args {
	a := &args{call: call, b: b, named: map[string]*ast.Arg{}, values: map[string]*val{}}
	if recv != nil {
		a.values[b.Params[0].Name] = recv
	}
	m := check.NewBinder(b.Params, b.Fields, recv != nil)
	for _, arg := range call.Args {
		i, err := m.Next(arg)
		if err != check.BindOK {
			s.bindError(arg, err, b.CallName())
		}
		switch {
		case i == check.FieldArg:
			a.fields = append(a.fields, arg)
		case b.Params[i].Variadic:
			a.rest = append(a.rest, arg)
		default:
			a.named[b.Params[i].Name] = arg
		}
	}
	return a
}

// bindError reports an argument the checker's Binder could not bind (the
// checker reports it first, with more to say).
func (s *fn) bindError(arg *ast.Arg, err check.BindError, name string) {
	s.errorf(arg.Pos(), "%s in call to %s", err, name)
}

// param is the row's parameter name; a lowering asking for another is a bug.
func (a *args) param(name string) *check.Param {
	for _, p := range a.b.Params {
		if p.Name == name {
			return p
		}
	}
	panic(fmt.Sprintf("the lowering of %s asks for argument %s, which %s does not have", a.b.CallName(), name, a.b.Signature()))
}

// gave reports whether the call writes parameter name (false when the row
// has no such parameter).
func (a *args) gave(name string) bool {
	for _, p := range a.b.Params {
		if p.Name == name {
			return a.named[name] != nil || a.values[name] != nil
		}
	}
	return false
}

// has reports whether the call gives parameter name a value: written, or
// the row's default.
func (a *args) has(name string) bool {
	return a.named[name] != nil || a.values[name] != nil || a.param(name).DefaultValue() != nil
}

func (s *fn) arg(a *args, name string) *val {
	if v, ok := a.values[name]; ok {
		return v
	}
	if arg := a.named[name]; arg != nil {
		return s.expr(arg.Value)
	}
	if d := defaultVal(a.param(name)); d != nil {
		return d
	}
	s.errorf(a.call.Rparen, "missing argument %s", name)
	return nil
}

// valueArg lowers argument name to an IR value (a constant takes its
// default type).
func (s *fn) valueArg(a *args, name string) *ir.Value {
	return s.value(s.arg(a, name), s.argPos(a, name))
}

// argAs lowers argument name to an IR value of type t.
func (s *fn) argAs(a *args, name string, t ir.Type) *ir.Value {
	return s.materialize(s.arg(a, name), t, s.argPos(a, name))
}

// defaultVal is the value of p's default (nil when it has none).
func defaultVal(p *check.Param) *val {
	d := p.DefaultValue()
	if d == nil {
		return nil
	}
	switch d.Kind() {
	case goconstant.Bool:
		return &val{c: &constant{kind: 'b', b: goconstant.BoolVal(d)}}
	case goconstant.Int:
		i, _ := goconstant.Int64Val(d)
		return &val{c: &constant{kind: 'i', i: i}}
	case goconstant.String:
		str := goconstant.StringVal(d)
		return &val{str: &str}
	}
	panic(fmt.Sprintf("parameter %s has a default of kind %s", p.Name, d.Kind()))
}

// constArg lowers the argument of a compile-time parameter (Param.Const:
// the checker made sure it is one).
func (s *fn) constArg(a *args, name string) *val {
	if !a.param(name).Const {
		panic(fmt.Sprintf("the lowering of %s reads argument %s as a constant, but %s does not mark it Const", a.b.CallName(), name, a.b.CallName()))
	}
	return s.arg(a, name)
}

func (s *fn) argPos(a *args, name string) diag.Pos {
	if arg := a.named[name]; arg != nil {
		return arg.Value.Pos()
	}
	return a.call.Pos()
}

func (s *fn) constIntArg(a *args, name string) int64 {
	v := s.constArg(a, name)
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
	v := s.constArg(a, name)
	if v.dtype == ir.Invalid {
		s.errorf(s.argPos(a, name), "%s must be a type such as f32", name)
	}
	return v.dtype
}

// shapeArg lowers a compile-time shape argument.
func (s *fn) shapeArg(a *args, name string) []int {
	return s.shapeOf(s.constArg(a, name), s.argPos(a, name))
}

// callMulti lowers a call to a helper returning several values.
func (s *fn) callMulti(call *ast.CallExpr) []*val {
	id, ok := call.Fun.(*ast.Ident)
	if ok && s.l.funcs[id.Name] == nil && check.LookupBuiltin(id.Name) != nil {
		// randint4x, rand4x, randn4x (their four tiles), max/min with
		// return_indices (values, indices), split and broadcast (two tiles),
		// reduce and associative_scan of a list (one per tile)
		if v := s.call(call, false); len(v.list) > 1 {
			return v.list
		}
	}
	if !ok || s.l.funcs[id.Name] == nil {
		s.errorf(call.Pos(), "only helper functions, the 4x random builtins, max/min with return_indices, split, broadcast and reduce or associative_scan of a list return several values")
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
	if b := check.LookupBuiltin(id.Name); b != nil {
		s.b.Pos = call.Pos()
		return s.builtinCall(b, call, nil)
	}
	s.errorf(id.Pos(), "undefined function %s", id.Name)
	return nil
}

// helperCall instantiates the helper for the argument types (and the values
// of its const parameters) and emits a call op; the inline pass later
// replaces it with the body. A const parameter left out is inferred from
// the other arguments' types, as the checker does (unify).
func (s *fn) helperCall(name string, call *ast.CallExpr) []*val {
	d := s.l.funcs[name]
	byParam := make([]*ast.Arg, len(d.Params))
	m := check.NewBinder(check.FuncParams(d), false, false)
	for _, a := range call.Args {
		i, err := m.Next(a)
		if err != check.BindOK {
			s.bindError(a, err, name)
		}
		byParam[i] = a
	}
	consts := map[string]*val{}
	sig := newScope(s.l.globalScope())
	sig.lookupHook = func(n string) *val { return consts[n] }
	var omitted []int
	for i, p := range d.Params {
		a := byParam[i]
		if !p.Const {
			if a == nil {
				s.errorf(call.Rparen, "missing argument %s of %s", p.Name.Name, name)
			}
			continue
		}
		if a == nil {
			omitted = append(omitted, i)
			continue
		}
		v := s.expr(a.Value)
		if isDTypeParam(p) {
			if v.dtype == ir.Invalid {
				s.errorf(a.Value.Pos(), "argument %s of %s must be a dtype", p.Name.Name, name)
			}
			consts[p.Name.Name] = &val{dtype: v.dtype}
			continue
		}
		if v.c == nil {
			s.errorf(a.Value.Pos(), "argument %s of %s must be a compile-time value", p.Name.Name, name)
		}
		consts[p.Name.Name] = &val{c: v.c.convert(s.l.scalarType(p.Type))}
	}
	vals := make([]*val, len(d.Params))
	if len(omitted) > 0 {
		// Every argument first: the omitted consts come from their types.
		want := map[string]bool{}
		for _, i := range omitted {
			want[d.Params[i].Name.Name] = true
		}
		for i, p := range d.Params {
			if p.Const {
				continue
			}
			vals[i] = s.expr(byParam[i].Value)
			s.l.unify(p.Type, vals[i], want, consts)
		}
		for _, i := range omitted {
			p := d.Params[i]
			c := consts[p.Name.Name]
			if c == nil {
				s.errorf(call.Pos(), "cannot infer %s in call to %s", p.Name.Name, name)
			}
			if c.c != nil {
				consts[p.Name.Name] = &val{c: c.c.convert(s.l.scalarType(p.Type))}
			}
		}
	}
	var argv []*ir.Value
	var types []string
	for i, p := range d.Params {
		if p.Const {
			c := consts[p.Name.Name]
			if c.dtype != ir.Invalid {
				types = append(types, p.Name.Name+"="+c.dtype.String())
			} else {
				types = append(types, p.Name.Name+"="+c.c.String())
			}
			continue
		}
		a := byParam[i]
		v := vals[i]
		if v == nil {
			v = s.expr(a.Value)
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
			t = s.l.paramType(pt, sig)
		case *ast.NamedType:
			if !isScalarName(pt, sig) {
				t = s.valueType(v, a, p, name) // pipe, mesh, barrier
				break
			}
			dt := s.l.scalarIn(pt, sig)
			t = dt
			if v.v != nil {
				t = ir.TileOf(ir.ShapeOf(v.v.Type), dt)
			}
		default: // memdesc, slot, barrier[N], desc: the argument's own type
			t = s.valueType(v, a, p, name)
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

// valueType is the type of an argument passed as it is (a view, a pipe, a
// slot, a barrier, a mesh, a descriptor).
func (s *fn) valueType(v *val, a *ast.Arg, p *ast.Param, name string) ir.Type {
	if v.v == nil {
		s.errorf(a.Pos(), "argument %s of %s must be a value of type %s", p.Name.Name, name, p.Type)
	}
	return v.v.Type
}

// isDTypeParam reports a `T const dtype` parameter.
func isDTypeParam(p *ast.Param) bool {
	n, ok := p.Type.(*ast.NamedType)
	return ok && p.Const && n.Name.Name == "dtype"
}

// isScalarName reports a named type that is a dtype (or a dtype parameter
// bound in sc), not pipe, mesh or barrier.
func isScalarName(t *ast.NamedType, sc *scope) bool {
	if _, ok := ir.ParseDType(t.Name.Name); ok {
		return true
	}
	v, _ := sc.lookup(t.Name.Name)
	return v != nil && v.dtype != ir.Invalid
}

// unify binds the wanted const parameters that a declared type names (a
// dimension written as the name alone, an element dtype) from an
// argument's value, as the checker's unify does.
func (l *lowerer) unify(te ast.TypeExpr, v *val, want map[string]bool, got map[string]*val) {
	var t ir.Type
	switch {
	case v.v != nil:
		t = v.v.Type
	case v.c != nil:
		t = defaultType(v.c)
	default:
		return
	}
	l.unifyType(te, t, want, got)
}

func (l *lowerer) unifyType(te ast.TypeExpr, t ir.Type, want map[string]bool, got map[string]*val) {
	elem := func(id *ast.Ident, d ir.DType) {
		if want[id.Name] && got[id.Name] == nil && d != ir.Invalid {
			got[id.Name] = &val{dtype: d}
		}
	}
	dims := func(es []ast.Expr, shape []int) {
		if len(es) != len(shape) {
			return
		}
		for i, x := range es {
			for {
				p, ok := x.(*ast.ParenExpr)
				if !ok {
					break
				}
				x = p.X
			}
			if id, ok := x.(*ast.Ident); ok && want[id.Name] && got[id.Name] == nil {
				got[id.Name] = &val{c: &constant{kind: 'i', i: int64(shape[i])}}
			}
		}
	}
	switch te := te.(type) {
	case *ast.NamedType:
		if d, ok := ir.Elem(t).(ir.DType); ok {
			elem(te.Name, d)
		}
	case *ast.PointerType:
		if p, ok := ir.Elem(t).(*ir.Pointer); ok {
			l.unifyType(te.Elem, p.Elem, want, got)
		}
	case *ast.TileType:
		if tt, ok := t.(*ir.Tile); ok {
			dims(te.Dims, tt.Shape)
			if d, ok := tt.Elem.(ir.DType); ok {
				elem(te.Elem, d)
			}
		}
	case *ast.MemDescType:
		if m, ok := t.(*ir.MemDesc); ok {
			if te.Dims != nil {
				dims(te.Dims, m.Shape)
			}
			elem(te.Elem, m.Elem)
		}
	case *ast.DescType:
		if d, ok := t.(*ir.Desc); ok {
			elem(te.Elem, d.Elem)
			dims(te.Block, d.Block)
		}
	case *ast.BarrierType:
		if b, ok := t.(*ir.Barrier); ok && b.Slots > 0 {
			dims([]ast.Expr{te.N}, []int{b.Slots})
		}
	}
}

// globalScope is the file's top-level consts, evaluated once.
func (l *lowerer) globalScope() *scope {
	if l.globals == nil {
		l.globals = newScope(nil)
		l.bindConsts(l.globals)
	}
	return l.globals
}

func (l *lowerer) instantiate(d *ast.FuncDecl, key string, argv []*ir.Value, consts map[string]*val) *ir.Func {
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
		global.declare(n, c)
	}
	st := &fn{l: l, f: f, b: ir.NewBuilder(f), scope: newScope(global), tail: true}
	for i, r := range d.Results {
		switch r := r.(type) {
		case *ast.PointerType:
			st.results = append(st.results, &ir.Pointer{Elem: l.scalarIn(r.Elem, global)})
		case *ast.TileType: // a tile result type, as the checker takes it ([HALF]i32)
			st.results = append(st.results, l.paramType(r, global))
		case *ast.NamedType:
			if isScalarName(r, global) {
				st.results = append(st.results, l.scalarIn(r, global))
			} else {
				st.results = append(st.results, nil) // pipe, mesh, barrier: the value's type
			}
		default: // memdesc, slot, barrier[N], desc: the value's type
			st.results = append(st.results, nil)
		}
		st.scope.declare(resultVar(i), nil) // bound by the return
	}
	for i, p := range runtime {
		st.scope.declare(p.Name.Name, &val{v: f.Body.Args[i]})
	}
	st.block(d.Body.Stmts)
	var rets []*ir.Value
	for i := range st.results {
		r := st.scope.vars[resultVar(i)]
		if r == nil {
			l.errorf(d.Body.Rbrace, "%s must end with a return of %d values", d.Name.Name, len(d.Results))
		}
		rets = append(rets, r.v)
		f.Results = append(f.Results, r.v.Type)
	}
	st.b.Pos = st.retAt
	st.b.Create(ir.OpReturn, nil, rets, nil)
	l.m.Funcs = append(l.m.Funcs, f)
	return f
}

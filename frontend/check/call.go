package check

import (
	"github.com/tlego/tle/frontend/ast"
)

// argv is one bound argument during checking.
type argv struct {
	name  string
	expr  ast.Expr // nil when defaulted
	typ   Type
	val   *Value
	def   bool
	param *Param
}

// callCtx is a builtin call being checked.
type callCtx struct {
	call   *ast.CallExpr
	b      *Builtin
	args   []*argv // parameter order; variadic expanded in place
	fields []*argv // pipe fields, written order
	value  *Value  // compile-time result (cdiv, cast), set by the rule
}

// get returns the argument bound to a parameter, nil when absent (an
// optional parameter without a default value).
func (cc *callCtx) get(name string) *argv {
	for _, a := range cc.args {
		if a.name == name {
			if a.def && a.val == nil {
				return nil
			}
			return a
		}
	}
	return nil
}

// all returns every argument bound to a (variadic) parameter.
func (cc *callCtx) all(name string) []*argv {
	var out []*argv
	for _, a := range cc.args {
		if a.name == name && !a.def {
			out = append(out, a)
		}
	}
	return out
}

// at returns the node to report an argument error at.
func (cc *callCtx) at(a *argv) ast.Node {
	if a != nil && a.expr != nil {
		return a.expr
	}
	return cc.call
}

func (c *checker) call(e *ast.CallExpr) (Type, *Value) {
	switch fn := e.Fun.(type) {
	case *ast.Ident:
		o := c.sc.lookup(fn.Name)
		if o == nil {
			c.errorf(fn, "undefined: %s", fn.Name)
			c.skipArgs(e)
			return Invalid, nil
		}
		c.tab.Uses[fn] = o
		switch o.Kind {
		case BuiltinObj:
			return c.builtinCall(e, o.Builtin, nil)
		case FuncObj:
			return c.funcCall(e, o.Func), nil
		case KernelObj:
			c.errorf(fn, "cannot call kernel %s (kernels are launched from the host; call a func helper instead)", fn.Name)
		default:
			c.errorf(fn, "cannot call %s (%s %s)", fn.Name, o.Kind, fn.Name)
		}
	case *ast.SelectorExpr:
		rt, rv := c.expr(fn.X)
		if isInvalid(rt) {
			c.skipArgs(e)
			return Invalid, nil
		}
		b, ok := methodFor(rt, fn.Sel.Name)
		if !ok {
			c.errorf(fn.Sel, "%s has no method %s", rt, fn.Sel.Name)
			c.skipArgs(e)
			return Invalid, nil
		}
		recv := &argv{name: b.Params[0].Name, expr: fn.X, typ: rt, val: rv, param: b.Params[0]}
		return c.builtinCall(e, b, recv)
	default:
		c.expr(e.Fun)
		c.errorf(e.Fun, "cannot call %s", c.src(e.Fun))
	}
	c.skipArgs(e)
	return Invalid, nil
}

func (c *checker) skipArgs(e *ast.CallExpr) {
	for _, a := range e.Args {
		c.expr(a.Value)
	}
}

// bind matches a call's arguments to a parameter list (through a Binder),
// checking each argument as it goes.
func (c *checker) bind(e *ast.CallExpr, name, sig string, params []*Param, fields bool, recv *argv) (*callCtx, bool) {
	cc := &callCtx{call: e}
	ok := true
	slots := make([]*argv, len(params))
	var variadic []*argv
	vIdx := -1
	for i, p := range params {
		if p.Variadic {
			vIdx = i
		}
	}
	if recv != nil {
		slots[0] = recv
	}
	m := NewBinder(params, fields, recv != nil)
	for _, a := range e.Args {
		i, err := m.Next(a)
		var t Type
		var v *Value
		switch {
		case i >= 0 && i < len(params) && params[i].Func:
			t = c.funcName(a.Value)
		case i >= 0 && i < len(params) && params[i].NoneOK && isNone(a.Value):
			t = NoneType
			c.tab.Types[a.Value] = TypeAndValue{Type: NoneType}
		default:
			t, v = c.expr(a.Value)
		}
		av := &argv{expr: a.Value, typ: t, val: v}
		switch err {
		case BindPositionalAfterKeyword:
			c.errorf(a.Value, "positional argument after keyword argument in call to %s", name)
		case BindTooMany:
			c.errorf(a.Value, "too many arguments in call to %s (want %s)", name, sig)
		case BindUnknownKeyword:
			c.errorf(a.Name, "unknown keyword argument %s in call to %s (want %s)", a.Name.Name, name, sig)
		case BindDuplicate:
			c.errorf(a.Name, "duplicate argument %s in call to %s", a.Name.Name, name)
		}
		ok = ok && err == BindOK
		switch {
		case i == FieldArg:
			av.name = a.Name.Name
			cc.fields = append(cc.fields, av)
		case i >= 0:
			av.name, av.param = params[i].Name, params[i]
			if params[i].Variadic {
				variadic = append(variadic, av)
			} else {
				slots[i] = av
			}
		}
	}
	for i, p := range params {
		if p.Variadic {
			continue
		}
		if slots[i] == nil {
			if !p.Optional {
				c.errorf(e, "missing argument %s in call to %s (want %s)", p.Name, name, sig)
				ok = false
				continue
			}
			a := &argv{name: p.Name, def: true, val: p.defVal, param: p}
			if p.defVal != nil {
				a.typ = p.defType
			}
			slots[i] = a
		}
	}
	for i := range params {
		if i == vIdx {
			cc.args = append(cc.args, variadic...)
			continue
		}
		if slots[i] != nil {
			cc.args = append(cc.args, slots[i])
		}
	}
	return cc, ok
}

func (c *checker) builtinCall(e *ast.CallExpr, b *Builtin, recv *argv) (Type, *Value) {
	cc, ok := c.bind(e, b.CallName(), b.Signature(), b.Params, b.Fields, recv)
	cc.b = b
	var res Type = Invalid
	for _, a := range append(append([]*argv(nil), cc.args...), cc.fields...) {
		if !a.def && isInvalid(a.typ) {
			ok = false
		}
	}
	if ok {
		func() {
			defer c.guard(e, "call to "+b.CallName())
			res = b.check(c, cc)
		}()
	}
	if res == nil {
		res = Invalid
	}
	call := &Call{Builtin: b, Result: res}
	for _, a := range append(append([]*argv(nil), cc.args...), cc.fields...) {
		call.Args = append(call.Args, &Arg{Name: a.name, Expr: a.expr, Type: a.typ, Value: a.val, Default: a.def})
	}
	c.tab.Calls[e] = call
	if isInvalid(res) {
		return res, nil
	}
	return res, cc.value
}

package check

import (
	"strings"

	"github.com/tlego/tle/frontend/ast"
)

// funcName checks an argument that names a func helper (Param.Func): it
// records the use and gives NoValue; the builtin's rule checks the helper.
func (c *checker) funcName(e ast.Expr) Type {
	id, ok := e.(*ast.Ident)
	if !ok {
		c.errorf(e, "%s is not the name of a func helper", c.src(e))
		return Invalid
	}
	o := c.sc.lookup(id.Name)
	if o == nil {
		c.errorf(id, "undefined: %s", id.Name)
		return Invalid
	}
	c.tab.Uses[id] = o
	if o.Kind != FuncObj {
		c.errorf(id, "%s is not a func helper (%s)", id.Name, o.Kind)
		return Invalid
	}
	return NoValue
}

// reduceCombine checks reduce(x, axis, combine): the combine helper over
// x's dtype, then the shapes as sum.
func (c *checker) reduceCombine(cc *callCtx) Type {
	d, ok := ElemOf(cc.get("x").typ).(DType)
	if _, tile := cc.get("x").typ.(*Tile); !ok || !tile {
		return c.argErr(cc, cc.get("x"), "a tile of numbers")
	}
	if !c.combineFunc(cc, d) {
		return Invalid
	}
	return c.reduce(cc)
}

// scanCombine checks associative_scan(x, axis, combine, reverse:): the
// result has x's type.
func (c *checker) scanCombine(cc *callCtx) Type {
	x := cc.get("x")
	t, tile := x.typ.(*Tile)
	d, ok := ElemOf(x.typ).(DType)
	if !ok || !tile {
		return c.argErr(cc, x, "a tile of numbers")
	}
	if _, ok := c.axisArg(cc, cc.get("axis"), len(t.Shape)); !ok {
		return Invalid
	}
	if _, _, ok := c.constBool(cc, cc.get("reverse")); !ok {
		return Invalid
	}
	if !c.combineFunc(cc, d) {
		return Invalid
	}
	return t
}

// combineFunc checks the helper named by the combine argument: no const
// parameters, two scalars of dtype d, one result of d, and no side
// effects (memory, synchronization, printing) in it or the helpers it
// calls. It instantiates the helper for d.
func (c *checker) combineFunc(cc *callCtx, d DType) bool {
	a := cc.get("combine")
	fd := c.sc.lookup(a.expr.(*ast.Ident).Name).Func
	name := fd.Name.Name
	if len(fd.Params) != 2 || fd.Params[0].Const || fd.Params[1].Const || len(fd.Results) != 1 {
		c.errorf(a.expr, "combine function %s must take two %s scalars and return one: func %s(a %s, b %s) %s", name, d, name, d, d, d)
		return false
	}
	args := []*argv{{name: fd.Params[0].Name.Name, typ: d}, {name: fd.Params[1].Name.Name, typ: d}}
	decl := c.resolveParams(fd, args)
	for _, t := range decl {
		if !Identical(t, d) {
			c.errorf(a.expr, "combine function %s takes %s, but x's dtype is %s", name, t, d)
			return false
		}
	}
	if bad := c.impureCall(fd, map[*ast.FuncDecl]bool{}); bad != "" {
		c.errorf(a.expr, "combine function %s must have no side effects: it calls %s", name, bad)
		return false
	}
	inst := c.instantiate(cc.call, fd, args)
	if inst == nil {
		return false
	}
	if len(inst.Results) != 1 || !Identical(inst.Results[0], d) {
		c.errorf(a.expr, "combine function %s must return one %s", name, d)
		return false
	}
	return true
}

// impureBuiltins are the builtins a combine function may not call.
var impureBuiltins = map[string]bool{
	"alloc": true, "pipe": true, "load": true, "store": true, "print": true, "assert": true,
	"make_desc": true, "make_block_ptr": true, "advance": true, "local_ptr": true, "copy": true,
	"barrier": true, "arrive": true, "wait": true, "expect": true, "wgmma": true, "wgmma_wait": true,
	"device_mesh": true, "shard_id": true, "remote": true, "distributed_barrier": true,
	"signal": true, "signal_wait": true, "asm": true, "debug_barrier": true,
	"grid_dependency_wait": true, "launch_dependents": true, "static_print": true,
}

// impureCall names the first call in fd's body (or a helper it calls)
// with a side effect; "" when there is none. Methods other than to (a
// cast) are on memory, pipes and barriers: all count.
func (c *checker) impureCall(fd *ast.FuncDecl, seen map[*ast.FuncDecl]bool) string {
	if seen[fd] {
		return ""
	}
	seen[fd] = true
	bad := ""
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || bad != "" {
			return bad == ""
		}
		switch f := call.Fun.(type) {
		case *ast.Ident:
			o := c.top.lookup(f.Name)
			switch {
			case o == nil:
			case o.Kind == BuiltinObj && (impureBuiltins[f.Name] || strings.HasPrefix(f.Name, "atomic_")):
				bad = f.Name
			case o.Kind == FuncObj:
				if b := c.impureCall(o.Func, seen); b != "" {
					bad = b + " (through " + f.Name + ")"
				}
			}
		case *ast.SelectorExpr:
			if f.Sel.Name != "to" {
				bad = "method " + f.Sel.Name
			}
		}
		return bad == ""
	})
	return bad
}

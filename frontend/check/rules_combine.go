package check

import (
	"fmt"
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

// combineOperands is the dtypes of reduce's and associative_scan's x: one
// tile, or a list of same-shape tiles ([x, idx], Triton's tuple of
// tensors), whose dtypes may differ. t is the (first) tile; list tells x
// was a list.
func (c *checker) combineOperands(cc *callCtx) (t *Tile, ds []DType, list bool, ok bool) {
	x := cc.get("x")
	l, isList := x.typ.(*List)
	if !isList {
		t, tile := x.typ.(*Tile)
		d, isD := ElemOf(x.typ).(DType)
		if !tile || !isD {
			c.argErr(cc, x, "a tile of numbers, or a list of same-shape tiles ([x, idx])")
			return nil, nil, false, false
		}
		return t, []DType{d}, false, true
	}
	le, isLit := unparen(x.expr).(*ast.ListExpr)
	if !isLit {
		c.argErr(cc, x, "a tile of numbers, or a list of same-shape tiles ([x, idx])")
		return nil, nil, true, false
	}
	elems := le.Elems
	if len(elems) == 0 {
		c.errorf(cc.at(x), "argument x of %s is an empty list: want one or more same-shape tiles", cc.b.CallName())
		return nil, nil, true, false
	}
	for i, et := range l.Elems {
		if isInvalid(et) {
			return nil, nil, true, false
		}
		tt, tile := et.(*Tile)
		d, isD := ElemOf(et).(DType)
		if !tile || !isD {
			c.errorf(elems[i], "element %d of argument x of %s must be a tile of numbers, not %s", i, cc.b.CallName(), et)
			return nil, nil, true, false
		}
		if t != nil && !Identical(TileOf(d, tt.Shape), TileOf(d, t.Shape)) {
			c.errorf(elems[i], "element %d of argument x of %s has shape %s, but element 0 has %s: the tiles must have one shape", i, cc.b.CallName(), tt.Shape, t.Shape)
			return nil, nil, true, false
		}
		if t == nil {
			t = tt
		}
		ds = append(ds, d)
	}
	return t, ds, true, true
}

// combineResult is the result of a reduce or scan over the dtypes ds whose
// first result is r0 (of ds[0]): r0 alone, or a tuple of one per dtype.
func combineResult(r0 Type, ds []DType, list bool) Type {
	if !list || len(ds) == 1 {
		return r0
	}
	var ts []Type
	for _, d := range ds {
		if t, ok := r0.(*Tile); ok {
			ts = append(ts, TileOf(d, t.Shape))
		} else {
			ts = append(ts, d)
		}
	}
	return &Tuple{Types: ts}
}

// reduceCombine checks reduce(x, axis, combine): the combine helper over
// x's dtype, then the shapes as sum. x may be a list of same-shape tiles:
// the result is then one value per tile.
func (c *checker) reduceCombine(cc *callCtx) Type {
	t, ds, list, ok := c.combineOperands(cc)
	if !ok || !c.combineFunc(cc, ds) {
		return Invalid
	}
	x := cc.get("x")
	saved := x.typ
	x.typ = TileOf(ds[0], t.Shape)
	r := c.reduce(cc)
	x.typ = saved
	if isInvalid(r) {
		return Invalid
	}
	return combineResult(r, ds, list)
}

// scanCombine checks associative_scan(x, axis, combine, reverse:): the
// result has x's type (one per tile of a list).
func (c *checker) scanCombine(cc *callCtx) Type {
	t, ds, list, ok := c.combineOperands(cc)
	if !ok {
		return Invalid
	}
	if _, ok := c.axisArg(cc, cc.get("axis"), len(t.Shape)); !ok {
		return Invalid
	}
	if _, _, ok := c.constBool(cc, cc.get("reverse")); !ok {
		return Invalid
	}
	if !c.combineFunc(cc, ds) {
		return Invalid
	}
	return combineResult(TileOf(ds[0], t.Shape), ds, list)
}

// combineFunc checks the helper named by the combine argument: no const
// parameters, two scalars of dtype d (for n operands of dtypes ds, 2n
// scalars in Triton's order: a0..an-1 then b0..bn-1), one result of d (n,
// of ds), and no side effects (memory, synchronization, printing) in it or
// the helpers it calls. It instantiates the helper for ds.
func (c *checker) combineFunc(cc *callCtx, ds []DType) bool {
	a := cc.get("combine")
	fd := c.sc.lookup(a.expr.(*ast.Ident).Name).Func
	name := fd.Name.Name
	n := len(ds)
	constP := false
	for _, p := range fd.Params {
		constP = constP || p.Const
	}
	if len(fd.Params) != 2*n || constP || len(fd.Results) != n {
		if n == 1 {
			d := ds[0]
			c.errorf(a.expr, "combine function %s must take two %s scalars and return one: func %s(a %s, b %s) %s", name, d, name, d, d, d)
			return false
		}
		var ps, rs []string
		for _, side := range []string{"a", "b"} {
			for i, d := range ds {
				ps = append(ps, fmt.Sprintf("%s%d %s", side, i, d))
			}
		}
		for _, d := range ds {
			rs = append(rs, d.String())
		}
		c.errorf(a.expr, "combine function %s must take %d scalars (two of each tile's dtype) and return %d: func %s(%s) (%s)", name, 2*n, n, name, strings.Join(ps, ", "), strings.Join(rs, ", "))
		return false
	}
	var args []*argv
	for i := range fd.Params {
		args = append(args, &argv{name: fd.Params[i].Name.Name, typ: ds[i%n]})
	}
	decl := c.resolveParams(fd, args)
	for i, t := range decl {
		if Identical(t, ds[i%n]) {
			continue
		}
		if n == 1 {
			c.errorf(a.expr, "combine function %s takes %s, but x's dtype is %s", name, t, ds[0])
		} else {
			c.errorf(a.expr, "combine function %s takes %s for %s, but element %d of x is of %s", name, t, fd.Params[i].Name.Name, i%n, ds[i%n])
		}
		return false
	}
	if bad := c.impureCall(fd, map[*ast.FuncDecl]bool{}); bad != "" {
		c.errorf(a.expr, "combine function %s must have no side effects: it calls %s", name, bad)
		return false
	}
	inst := c.instantiate(cc.call, fd, args)
	if inst == nil {
		return false
	}
	good := len(inst.Results) == n
	for i := 0; good && i < n; i++ {
		good = Identical(inst.Results[i], ds[i])
	}
	if !good {
		if n == 1 {
			c.errorf(a.expr, "combine function %s must return one %s", name, ds[0])
		} else {
			rs := make([]string, n)
			for i, d := range ds {
				rs[i] = d.String()
			}
			c.errorf(a.expr, "combine function %s must return (%s)", name, strings.Join(rs, ", "))
		}
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

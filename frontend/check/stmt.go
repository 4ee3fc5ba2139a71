package check

import (
	"fmt"
	"github.com/tlego/tle/ir"
	"strings"

	"github.com/tlego/tle/frontend/ast"
)

// block checks statements in the current scope.
func (c *checker) block(stmts []ast.Stmt) {
	for i, s := range stmts {
		if br, ok := s.(*ast.BranchStmt); ok && i < len(stmts)-1 && c.b != nil && len(c.b.loops) > 0 {
			c.errorf(stmts[i+1], "%s must be the last statement of its block (what follows it never runs)", br.Tok)
		}
		c.stmt(s)
	}
}

// nested checks a block in a new child scope.
func (c *checker) nested(b *ast.BlockStmt) {
	if b == nil {
		return
	}
	saved := c.sc
	c.sc = newScope(saved)
	c.block(b.Stmts)
	c.sc = saved
}

func (c *checker) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		c.nested(s)
	case *ast.AssignStmt:
		c.assign(s)
	case *ast.ExprStmt:
		c.exprStmt(s)
	case *ast.ReturnStmt:
		c.returnStmt(s)
	case *ast.IfStmt:
		c.ifStmt(s)
	case *ast.BranchStmt:
		c.branchStmt(s)
	case *ast.ForStmt:
		c.forStmt(s)
	case *ast.WarpSpecializeStmt:
		c.warpSpecialize(s)
	case *ast.ConstDecl:
		c.localConst(s)
	}
}

func (c *checker) localConst(d *ast.ConstDecl) {
	t, v := c.constValue(d.Value, "constant "+d.Name.Name)
	o := &Object{Kind: ConstObj, Name: d.Name.Name, Pos: d.Name.Pos(), Type: t, Value: v, Const: true, Decl: d}
	c.tab.Defs[d.Name] = o
	if d.Name.Name == "_" {
		return
	}
	if prev := c.sc.names[d.Name.Name]; prev != nil {
		c.errorf(d.Name, "%s redeclared in this block (previous declaration at line %d)", d.Name.Name, c.line(prev.Pos))
		return
	}
	c.sc.names[d.Name.Name] = o
}

func (c *checker) exprStmt(s *ast.ExprStmt) {
	if _, ok := unparen(s.X).(*ast.CallExpr); !ok {
		t, _ := c.expr(s.X)
		if !isInvalid(t) {
			c.errorf(s.X, "%s (%s) is not used", c.src(s.X), t)
		}
		return
	}
	c.expr(s.X)
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// storable reports whether a value of type t can live in a variable.
func (c *checker) storable(e ast.Expr, t Type) bool {
	switch t := t.(type) {
	case *TypeVal:
		c.errorf(e, "%s is a type, not a value", c.src(e))
		return false
	case Basic:
		if t == NoValue {
			c.errorf(e, "%s does not return a value", c.src(e))
		} else {
			c.errorf(e, "cannot store a %s in a variable", t)
		}
		return false
	case *List:
		c.errorf(e, "cannot store a list in a variable")
		return false
	case *Tuple:
		c.errorf(e, "%s returns %d values, not 1", c.src(e), len(t.Types))
		return false
	}
	return true
}

// rhsValues evaluates the right-hand side of an assignment for n targets.
func (c *checker) rhsValues(s *ast.AssignStmt, n int) ([]Type, []*Value, []ast.Expr, bool) {
	if len(s.RHS) == 1 && n > 1 {
		t, _ := c.expr(s.RHS[0])
		if isInvalid(t) {
			return nil, nil, nil, false
		}
		tu, ok := t.(*Tuple)
		if !ok || len(tu.Types) != n {
			got := 1
			if ok {
				got = len(tu.Types)
			}
			c.errorf(s.RHS[0], "assignment mismatch: %d variables but %s gives %d values", n, c.src(s.RHS[0]), got)
			return nil, nil, nil, false
		}
		es := make([]ast.Expr, n)
		for i := range es {
			es[i] = s.RHS[0]
		}
		return tu.Types, make([]*Value, n), es, true
	}
	ts := make([]Type, len(s.RHS))
	vs := make([]*Value, len(s.RHS))
	ok := true
	for i, e := range s.RHS {
		ts[i], vs[i] = c.expr(e)
		if isInvalid(ts[i]) {
			ok = false
		} else if !c.storable(e, ts[i]) {
			ok = false
			ts[i] = Invalid
		}
	}
	if len(s.RHS) != n {
		c.errorf(s.RHS[0], "assignment mismatch: %d variables but %d values", n, len(s.RHS))
		return nil, nil, nil, false
	}
	return ts, vs, s.RHS, ok
}

func (c *checker) assign(s *ast.AssignStmt) {
	if len(s.LHS) == len(s.RHS) {
		for i, l := range s.LHS {
			if id, ok := l.(*ast.Ident); ok {
				c.pendingName[unparen(s.RHS[i])] = id.Name
			}
		}
	}
	switch s.Tok {
	case ":=":
		c.define(s)
	case "=":
		ts, vs, es, ok := c.rhsValues(s, len(s.LHS))
		for i, l := range s.LHS {
			var t Type = Invalid
			var v *Value
			var e ast.Expr
			if ok {
				t, v, e = ts[i], vs[i], es[i]
			}
			c.assignTo(l, t, v, e)
		}
	default:
		op := strings.TrimSuffix(s.Tok, "=")
		if len(s.LHS) != 1 || len(s.RHS) != 1 {
			c.errorf(s.LHS[0], "%s needs exactly one operand on each side", s.Tok)
			return
		}
		lt, lv := c.expr(s.LHS[0])
		rt, rv := c.expr(s.RHS[0])
		t, v := c.binary(&ast.BinaryExpr{X: s.LHS[0], OpPos: s.TokAt, Op: op, Y: s.RHS[0]}, op, s.LHS[0], s.RHS[0], lt, lv, rt, rv)
		c.assignTo(s.LHS[0], t, v, s.RHS[0])
	}
}

// define handles :=.
func (c *checker) define(s *ast.AssignStmt) {
	ts, vs, es, ok := c.rhsValues(s, len(s.LHS))
	isNew := false
	for i, l := range s.LHS {
		id, isID := l.(*ast.Ident)
		if !isID {
			c.errorf(l, "non-name %s on left side of :=", c.src(l))
			continue
		}
		var t Type = Invalid
		var v *Value
		var e ast.Expr
		if ok {
			t, v, e = ts[i], vs[i], es[i]
		}
		if id.Name == "_" {
			continue
		}
		if prev := c.sc.names[id.Name]; prev != nil {
			c.tab.Uses[id] = prev
			c.assignTo(id, t, v, e)
			continue
		}
		isNew = true
		if d, isD := t.(DType); isD && d.IsUntyped() {
			t = c.defaultType(e, d, v)
			if e != nil {
				c.setType(e, t)
			}
		}
		o := &Object{Kind: VarObj, Name: id.Name, Pos: id.Pos(), Type: t, Decl: id}
		if c.b != nil {
			o.loopDepth, o.role = c.b.loopDepth, c.b.role
		}
		c.tab.Defs[id] = o
		c.sc.names[id.Name] = o
	}
	if !isNew {
		c.errorAt(s.TokAt, "no new variables on left side of :=")
	}
}

// defaultType gives an untyped constant its default type (i64 when an
// integer does not fit i32).
func (c *checker) defaultType(e ast.Expr, d DType, v *Value) DType {
	t := d.Default()
	if t == I32 && v != nil && v.Known != nil && !representable(v.Known, I32) {
		t = I64
		if !representable(v.Known, I64) {
			c.errorf(e, "constant %s overflows i64", v.Known)
		}
	}
	if t.IsFloat() && v != nil && v.Known != nil && !representable(v.Known, t) {
		c.errorf(e, "constant %s overflows %s", v.Known, t)
	}
	return t
}

// assignTo checks `l = value`.
func (c *checker) assignTo(l ast.Expr, t Type, v *Value, e ast.Expr) {
	id, ok := l.(*ast.Ident)
	if !ok {
		c.expr(l)
		c.errorf(l, "cannot assign to %s (only variables can be assigned)", c.src(l))
		return
	}
	if id.Name == "_" {
		return
	}
	o := c.sc.lookup(id.Name)
	if o == nil {
		c.errorf(id, "undefined: %s", id.Name)
		return
	}
	c.tab.Uses[id] = o
	if o.Kind != VarObj && (o.Kind != ParamObj || o.Const) {
		kind := o.Kind.String()
		if o.Kind == ParamObj {
			kind = "const parameter"
		}
		c.errorf(id, "cannot assign to %s (%s)", id.Name, kind)
		return
	}
	if c.b != nil && c.b.role != nil && o.role != c.b.role {
		c.errorf(id, "role %s cannot assign to %s, declared outside it (roles share only buffers, pipes and barriers)", c.b.role.Name.Name, id.Name)
		return
	}
	if isInvalid(t) || isInvalid(o.Type) {
		return
	}
	if c.assignable(e, t, v, o.Type) {
		return
	}
	if c.b != nil && o.loopDepth < c.b.loopDepth {
		c.errorf(l, "loop-carried variable %s would change type from %s to %s across iterations", id.Name, o.Type, t)
		return
	}
	c.errorf(l, "cannot assign %s to %s (type %s)", t, id.Name, o.Type)
}

// assignable reports whether a value of type t (constant v) can be stored in
// a variable of type target, converting an untyped constant.
func (c *checker) assignable(e ast.Expr, t Type, v *Value, target Type) bool {
	if Identical(t, target) {
		return true
	}
	d, ok := t.(DType)
	td, ok2 := target.(DType)
	if ok && ok2 && d.IsUntyped() {
		if c.convertConst(e, d, v, td) {
			return true
		}
	}
	return false
}

// convertConst converts an untyped constant to dtype target, reporting a
// value that does not fit. It returns false (without reporting) when the
// kinds do not convert at all.
func (c *checker) convertConst(e ast.Expr, d DType, v *Value, target DType) bool {
	if !d.IsUntyped() || target == Invalid || target.IsUntyped() {
		return false
	}
	if d == UntypedFloat && target.IsInteger() {
		if v != nil && v.Known != nil && representable(v.Known, UntypedInt) && representable(v.Known, target) {
			if e != nil {
				c.setType(e, target)
			}
			return true
		}
		if v != nil && v.Known != nil {
			c.errorf(e, "constant %s truncated to integer %s", v.Known.String(), target)
			c.setType(e, Invalid)
			return true
		}
		return false
	}
	if (target.IsInteger() || target.IsFloat()) && v != nil && v.Known != nil && !representable(v.Known, target) {
		c.errorf(e, "constant %s overflows %s", v.Known.String(), target)
		c.setType(e, Invalid)
		return true
	}
	if e != nil {
		c.setType(e, target)
	}
	return true
}

// setType updates the recorded type of e (an untyped constant that took a type).
func (c *checker) setType(e ast.Expr, t Type) {
	if e == nil {
		return
	}
	tv := c.tab.Types[e]
	tv.Type = t
	c.tab.Types[e] = tv
	if p, ok := e.(*ast.ParenExpr); ok {
		c.setType(p.X, t)
	}
}

func (c *checker) ifStmt(s *ast.IfStmt) {
	t, v := c.expr(s.Cond)
	c.condition(s.Cond, t, v, "if condition")
	if d, ok := t.(DType); ok && d == I1 && v != nil {
		// A compile-time condition prunes as in Triton: a known one checks
		// only the branch taken (the lowering lowers only it), so the other
		// may use shapes that only its own constants make valid, or a None
		// pointer. An unknown one (an unbound const parameter) checks both,
		// but their errors wait for the bindings that decide the branch:
		// every specialisation is checked again with them.
		if b, known := v.Bool(); known {
			if b {
				c.nested(s.Then)
				if s.Else != nil {
					c.prune(s.Else)
				}
			} else {
				c.prune(s.Then)
				c.elseBranch(s)
			}
			return
		}
		n := len(c.errs)
		had := map[*Instance]bool{}
		for _, m := range c.instances {
			for _, in := range m {
				had[in] = true
			}
		}
		c.nested(s.Then)
		c.elseBranch(s)
		c.errs = c.errs[:n]
		// helper instances made here lost their errors with the branches':
		// a call elsewhere checks its own
		for _, m := range c.instances {
			for k, in := range m {
				if !had[in] {
					delete(m, k)
				}
			}
		}
		return
	}
	c.nested(s.Then)
	c.elseBranch(s)
}

// prune records a branch that a known condition leaves out, and the
// helpers it calls (which then need no generic check of their own).
func (c *checker) prune(st ast.Stmt) {
	c.tab.Pruned[st] = true
	if c.prunedCalls == nil {
		c.prunedCalls = map[string]bool{}
	}
	ast.Inspect(st, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok {
				c.prunedCalls[id.Name] = true
			}
		}
		return true
	})
}

// elseBranch checks s's else branch, if any.
func (c *checker) elseBranch(s *ast.IfStmt) {
	switch e := s.Else.(type) {
	case *ast.BlockStmt:
		c.nested(e)
	case *ast.IfStmt:
		saved := c.sc
		c.sc = newScope(saved)
		c.ifStmt(e)
		c.sc = saved
	}
}

// condition requires a scalar i1 (or a compile-time boolean).
func (c *checker) condition(e ast.Expr, t Type, v *Value, what string) {
	if isInvalid(t) {
		return
	}
	if d, ok := t.(DType); ok && d == I1 {
		return
	}
	c.errorf(e, "%s must be a scalar i1, not %s", what, t)
}

func (c *checker) forStmt(s *ast.ForStmt) {
	saved := c.sc
	c.sc = newScope(saved)
	defer func() { c.sc = saved }()
	static := s.Var != nil && c.isStaticRange(s.Range)
	if c.b != nil {
		c.b.loopDepth++
		role := c.b.role
		if static {
			role = staticRangeLoop
		}
		c.b.loops = append(c.b.loops, role)
		defer func() { c.b.loopDepth--; c.b.loops = c.b.loops[:len(c.b.loops)-1] }()
	}
	switch {
	case static:
		c.staticRange(s)
	case s.Var != nil && s.RangeCall != nil:
		c.declareLoopVar(s.Var, c.rangeCall(s.RangeCall))
	case s.Var != nil:
		t, v := c.expr(s.Range)
		vt := Type(I32)
		if !isInvalid(t) {
			d, ok := t.(DType)
			if !ok || !d.IsInteger() || d == I1 {
				c.errorf(s.Range, "range bound must be a scalar integer, not %s", t)
			} else if d.IsUntyped() {
				c.convertConst(s.Range, d, v, I32)
			} else if d.Bits() > 32 {
				vt = d
			}
		}
		c.declareLoopVar(s.Var, vt)
	default:
		if s.Init != nil {
			c.assign(s.Init)
			if s.Init.Tok == ":=" {
				for _, l := range s.Init.LHS {
					if id, ok := l.(*ast.Ident); ok {
						if o := c.sc.names[id.Name]; o != nil && !isInvalid(o.Type) {
							if d, ok := o.Type.(DType); !ok || !d.IsInteger() || d == I1 {
								c.errorf(id, "loop variable %s must be a scalar integer, not %s", id.Name, o.Type)
							}
							o.loopDepth = c.loopDepth()
						}
					}
				}
			}
		}
		if s.Cond != nil {
			t, v := c.expr(s.Cond)
			c.condition(s.Cond, t, v, "loop condition")
		}
	}
	if s.Body != nil {
		c.nested(s.Body)
	}
	if s.Post != nil {
		c.assign(s.Post)
	}
}

// branchStmt checks break and continue: inside a for loop of their own
// role, and last in their block (nothing after them would run).
func (c *checker) branchStmt(s *ast.BranchStmt) {
	if c.b == nil || len(c.b.loops) == 0 {
		c.errorf(s, "%s is not in a loop", s.Tok)
		return
	}
	if c.b.loops[len(c.b.loops)-1] == staticRangeLoop {
		c.errorf(s, "%s in a static_range loop: the loop is unrolled at compile time and has no iteration to leave", s.Tok)
		return
	}
	if c.b.loops[len(c.b.loops)-1] != c.b.role {
		c.errorf(s, "%s is not in a loop of this role (a role cannot leave its parent's loop)", s.Tok)
	}
}

// staticRangeLoop marks a static_range loop among body.loops: it is
// unrolled, so break and continue have no loop to leave.
var staticRangeLoop = &ast.Role{}

// isStaticRange reports a range over static_range(...), the builtin.
func (c *checker) isStaticRange(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok {
		return false
	}
	o := c.sc.lookup(id.Name)
	return o != nil && o.Kind == BuiltinObj && o.Builtin.Name == "static_range"
}

// staticRange checks `for i := range static_range(start, end, step)`
// (Triton's tl.static_range): the bounds are compile-time integers, the
// loop is unrolled, and i is a compile-time i32 in each copy; the body is
// checked once with i symbolic.
func (c *checker) staticRange(s *ast.ForStmt) {
	call := s.Range.(*ast.CallExpr)
	c.tab.Uses[call.Fun.(*ast.Ident)] = c.sc.lookup("static_range")
	c.tab.Types[call.Fun] = TypeAndValue{Type: NoValue}
	if len(call.Args) < 1 || len(call.Args) > 3 {
		c.errorf(call, "static_range takes 1 to 3 compile-time integers: static_range(end), static_range(start, end, step)")
	}
	for _, a := range call.Args {
		if a.Name != nil {
			c.errorf(a.Name, "static_range takes no keyword arguments")
			continue
		}
		t, v := c.expr(a.Value)
		if d, ok := t.(DType); ok && d.IsUntyped() {
			c.convertConst(a.Value, d, v, I32)
			t, v = c.tab.Types[a.Value].Type, c.tab.Types[a.Value].Value
		}
		c.intConst(a.Value, t, v, "static_range bound")
	}
	c.tab.Types[call] = TypeAndValue{Type: NoValue}
	o := &Object{Kind: ConstObj, Name: s.Var.Name, Pos: s.Var.Pos(), Type: I32, Value: &Value{Sym: SymDim(s.Var.Name)}, Const: true, Decl: s.Var}
	c.tab.Defs[s.Var] = o
	if s.Var.Name != "_" {
		c.sc.names[s.Var.Name] = o
	}
}

// rangeCall checks range(start, end, step, num_stages:, loop_unroll_factor:)
// (Triton's tl.range) and returns the loop variable's type.
func (c *checker) rangeCall(call *ast.CallExpr) Type {
	var pos []ast.Expr
	vt := Type(I32)
	for _, a := range call.Args {
		if a.Name == nil {
			pos = append(pos, a.Value)
			t, v := c.expr(a.Value)
			if isInvalid(t) {
				continue
			}
			d, ok := t.(DType)
			switch {
			case !ok || !d.IsInteger() || d == I1:
				c.errorf(a.Value, "range bound must be a scalar integer, not %s", t)
			case d.IsUntyped():
				c.convertConst(a.Value, d, v, I32)
			case d.Bits() > 32:
				vt = d
			}
			continue
		}
		t, v := c.expr(a.Value)
		switch a.Name.Name {
		case "num_stages", "loop_unroll_factor":
			if d, ok := t.(DType); ok && d.IsUntyped() {
				c.convertConst(a.Value, d, v, I32)
			}
			d, ok := c.intConst(a.Value, t, v, "range's "+a.Name.Name)
			if !ok {
				continue
			}
			n, known := d.Const()
			switch {
			case !known: // checked once bound
			case a.Name.Name == "num_stages" && n < 0, a.Name.Name == "loop_unroll_factor" && n < 1:
				c.errorf(a.Value, "range's %s must be at least %d, got %d", a.Name.Name, map[bool]int{true: 0, false: 1}[a.Name.Name == "num_stages"], n)
			}
		default:
			c.errorf(a.Name, "range takes num_stages: and loop_unroll_factor:, not %s: (Triton's flatten, warp_specialize, disallow_acc_multi_buffer and disable_licm have no .tle meaning)", a.Name.Name)
		}
	}
	if len(pos) < 1 || len(pos) > 3 {
		c.errorf(call, "range takes 1 to 3 bounds: range(end), range(start, end), range(start, end, step)")
	}
	return vt
}

func (c *checker) loopDepth() int {
	if c.b == nil {
		return 0
	}
	return c.b.loopDepth
}

func (c *checker) declareLoopVar(id *ast.Ident, t Type) {
	o := &Object{Kind: VarObj, Name: id.Name, Pos: id.Pos(), Type: t, Decl: id, loopDepth: c.loopDepth()}
	if c.b != nil {
		o.role = c.b.role
	}
	c.tab.Defs[id] = o
	if id.Name != "_" {
		c.sc.names[id.Name] = o
	}
}

func (c *checker) returnStmt(s *ast.ReturnStmt) {
	for _, e := range s.Results {
		if c.b == nil || c.b.fn == nil {
			c.expr(e)
		}
	}
	if c.b == nil {
		return
	}
	if c.b.role != nil {
		c.errorAt(s.Kw, "return is not allowed inside a role")
		return
	}
	if c.b.loopDepth > 0 {
		// Loops lower to a counted loop op that runs every iteration:
		// there is no leaving one early.
		c.errorAt(s.Kw, "return is not allowed inside a for loop")
		return
	}
	if c.b.kernel != nil {
		if len(s.Results) > 0 {
			c.errorf(s.Results[0], "kernel %s cannot return values", c.b.kernel.Name.Name)
		}
		return
	}
	fn := c.b.fn
	var ts []Type
	var vs []*Value
	for _, e := range s.Results {
		t, v := c.expr(e)
		ts = append(ts, t)
		vs = append(vs, v)
	}
	if len(ts) == 1 && len(c.b.results) > 1 {
		if tu, ok := ts[0].(*Tuple); ok {
			ts = tu.Types
			vs = make([]*Value, len(ts))
		}
	}
	if len(ts) != len(c.b.results) {
		c.errorAt(s.Kw, "wrong number of return values in func %s (want %d, got %d)", fn.Name.Name, len(c.b.results), len(ts))
		return
	}
	for i, t := range ts {
		e := s.Results[min(i, len(s.Results)-1)]
		if isInvalid(t) || isInvalid(c.b.results[i]) {
			continue
		}
		got, ok := c.matchDeclared(e, t, vs[i], c.b.results[i])
		if !ok {
			c.errorf(e, "cannot return %s as %s from func %s", t, c.b.results[i], fn.Name.Name)
			continue
		}
		if m, isM := got.(*MemDesc); isM && m.FromSlot {
			if c.once(fmt.Sprintf("slotview %d", e.Pos())) {
				c.errorf(e, "func %s returns a view of a pipe slot's field: the view escapes its slot, whose life ends at its commit or release", fn.Name.Name)
			}
			continue
		}
		if prev := c.b.actual[i]; prev != nil && !isInvalid(prev) && !Identical(prev, got) {
			c.errorf(e, "func %s returns %s here but %s in an earlier return", fn.Name.Name, got, prev)
			continue
		}
		c.b.actual[i] = got
	}
}

// matchDeclared matches an actual type against a declared parameter or
// result type. A declared scalar T (or pointer *T, in any address space)
// accepts a scalar or a tile of element T, and the actual type is what flows
// on. ok false on mismatch.
func (c *checker) matchDeclared(e ast.Expr, t Type, v *Value, decl Type) (Type, bool) {
	switch dt := decl.(type) {
	case DType:
		d, ok := ElemOf(t).(DType)
		if !ok {
			return nil, false
		}
		if d.IsUntyped() {
			if _, isTile := t.(*Tile); isTile {
				return nil, false
			}
			if !c.convertConst(e, d, v, dt) {
				return nil, false
			}
			return dt, true
		}
		if d != dt {
			return nil, false
		}
		return t, true
	case *Pointer:
		p, ok := ElemOf(t).(*Pointer)
		if !ok || p.Elem != dt.Elem { // any address space: helpers are generic over it
			return nil, false
		}
		return t, true
	case *MemDesc:
		m, ok := t.(*MemDesc)
		if !ok || m.Elem != dt.Elem || m.Remote != dt.Remote || !dt.AnyShape && m.Shape.String() != dt.Shape.String() {
			return nil, false
		}
		return t, true
	case *Pipe:
		_, ok := t.(*Pipe)
		return t, ok && dt.Any
	case *Slot:
		s, ok := t.(*Slot)
		return t, ok && dt.Pipe == nil && s.Writer == dt.Writer
	case *Mesh:
		_, ok := t.(*Mesh)
		return t, ok && dt.Any
	}
	if Identical(t, decl) {
		return t, true
	}
	return nil, false
}

// terminates reports whether a statement list always ends in a return.
func terminates(stmts []ast.Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	switch s := stmts[len(stmts)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BlockStmt:
		return terminates(s.Stmts)
	case *ast.IfStmt:
		if s.Else == nil || !terminates(s.Then.Stmts) {
			return false
		}
		switch e := s.Else.(type) {
		case *ast.BlockStmt:
			return terminates(e.Stmts)
		case *ast.IfStmt:
			return terminates([]ast.Stmt{e})
		}
	}
	return false
}

// ------------------------------------------------------- warp_specialize

// maxCTAWarps is the most warps a CTA can have (1024 threads).
const maxCTAWarps = 32

func (c *checker) warpSpecialize(s *ast.WarpSpecializeStmt) {
	switch {
	case c.b == nil:
		return
	case c.b.role != nil:
		c.errorAt(s.Kw, "nested warp_specialize (already inside role %s)", c.b.role.Name.Name)
	case c.b.inst != nil && c.b.inst.warpSpec == nil:
		c.b.inst.warpSpec = &wsNest{pos: s.Kw}
	}
	if len(s.Roles) == 0 {
		c.errorAt(s.Kw, "warp_specialize needs at least one role")
	}
	seen := map[string]*ast.Role{}
	var warps, roleRegs []int // each role's, once per copy, while all are known
	totalKnown, regs, regsKnown := true, false, true
	var copied []string // roles with copies: n > 1, "NAME x n"
	for _, r := range s.Roles {
		if prev := seen[r.Name.Name]; prev != nil {
			c.errorf(r.Name, "duplicate role name %s (previous at line %d)", r.Name.Name, c.line(prev.Pos()))
		}
		seen[r.Name.Name] = r
		args := c.roleArgs(r)
		regs = regs || args.regs > 0
		regsKnown = regsKnown && args.regsKnown
		if args.warpsKnown && args.copiesKnown {
			// both bounded (32 warps, 8 copies): no overflow
			for range args.copies {
				warps = append(warps, int(args.warps))
				roleRegs = append(roleRegs, int(args.regs))
			}
			if args.copies > 1 {
				copied = append(copied, fmt.Sprintf("%s x %d", r.Name.Name, args.copies))
			}
		} else {
			totalKnown = false
		}
		savedRole, savedIndex, savedDepth := c.b.role, c.b.roleIndex, c.b.loopDepth
		c.b.role, c.b.roleIndex = r, args.index
		smemBefore := 0
		if c.b.smem != nil {
			smemBefore = len(*c.b.smem)
		}
		c.nested(r.Body)
		c.copySmem(smemBefore, args)
		c.b.role, c.b.roleIndex, c.b.loopDepth = savedRole, savedIndex, savedDepth
	}
	total := 0
	occupied := ir.RoleOccupiedWarps(warps, regs)
	for _, n := range occupied {
		total += n
	}
	if totalKnown && total <= maxCTAWarps && regs && regsKnown {
		if n := ir.RoleRegisters(occupied, roleRegs, total); n > ir.SMRegisters {
			c.errorAt(s.Kw, ir.RoleRegistersTooMany, n, ir.EntryRegisters(total), ir.SMRegisters)
		}
	}
	if totalKnown && total > maxCTAWarps {
		d := c.errorAt(s.Kw, "warp_specialize needs %d warps once each role's warps are rounded up to a power of two and padded to a warpgroup of 4 (the last role unpadded without regs:), more than the %d a CTA can have", total, maxCTAWarps)
		if len(copied) > 0 {
			d.Notes = append(d.Notes, "each copy of a role with copies: is a role of its own: "+strings.Join(copied, ", "))
		}
	}
}

// maxRoleCopies is the most copies: a role may have.
const maxRoleCopies = 8

// roleIndexSym is the symbol role_index() stands for in a role with
// several copies, or an unknown number of them: each copy is lowered with
// its own constant, so the checker knows only that it is a compile-time
// i32 in [0, copies). Not an identifier, so no const parameter can have
// its name.
const roleIndexSym = "role_index()"

// roleInfo is what a role's arguments say.
type roleInfo struct {
	warps       int64 // when warpsKnown
	warpsKnown  bool
	copies      int64 // when copiesKnown; 1 without copies:
	copiesKnown bool
	regs        int64  // a known regs: (0 without, or when not known)
	regsKnown   bool   // no regs:, or a known one
	index       *Value // role_index() in the role's body
}

// copySmem counts the shared memory that the body of a role with copies
// allocates (the buffers from index from on) once per copy: each copy is
// lowered on its own, with buffers of its own. With a number of copies not
// known, their size is not known either.
func (c *checker) copySmem(from int, args roleInfo) {
	if c.b.smem == nil || len(*c.b.smem) == from || (args.copiesKnown && args.copies == 1) {
		return
	}
	bufs := (*c.b.smem)[from:]
	if !args.copiesKnown {
		for _, b := range bufs {
			b.Name += " (each copy)"
			b.Known, b.Bytes = false, 0
		}
		return
	}
	var more []*SmemBuffer
	for k := int64(1); k < args.copies; k++ {
		for _, b := range bufs {
			cp := *b
			cp.Name = fmt.Sprintf("%s (copy %d)", b.Name, k)
			more = append(more, &cp)
		}
	}
	for _, b := range bufs {
		b.Name += " (copy 0)"
	}
	*c.b.smem = append(*c.b.smem, more...)
}

// roleArgs checks warps:, regs: and copies:.
func (c *checker) roleArgs(r *ast.Role) roleInfo {
	var warps, regs, copies *ast.Arg
	for _, a := range r.Args {
		if a.Name == nil {
			c.expr(a.Value)
			c.errorf(a.Value, "role arguments are written warps: n, regs: n and copies: n")
			continue
		}
		var slot **ast.Arg
		switch a.Name.Name {
		case "warps":
			slot = &warps
		case "regs":
			slot = &regs
		case "copies":
			slot = &copies
		default:
			c.expr(a.Value)
			c.errorf(a.Name, "unknown role argument %s (roles take warps:, regs: and copies:)", a.Name.Name)
			continue
		}
		if *slot != nil {
			c.errorf(a.Name, "duplicate role argument %s", a.Name.Name)
			c.expr(a.Value)
			continue
		}
		*slot = a
	}
	info := roleInfo{copies: 1, copiesKnown: true, regsKnown: regs == nil}
	if warps == nil {
		c.errorf(r.Name, "role %s needs warps: (the number of warps it runs on)", r.Name.Name)
	} else {
		t, v := c.expr(warps.Value)
		if d, ok := c.intConst(warps.Value, t, v, "warps"); ok {
			if x, isK := d.Const(); isK {
				switch {
				case x <= 0:
					c.errorf(warps.Value, "warps must be positive, got %d", x)
				case x > maxCTAWarps:
					// Also keeps the padded total below from overflowing.
					c.errorf(warps.Value, "warps must be at most %d (the warps of a CTA), got %d", maxCTAWarps, x)
				default:
					info.warps, info.warpsKnown = x, true
				}
			}
		}
	}
	if regs != nil {
		t, v := c.expr(regs.Value)
		if d, ok := c.intConst(regs.Value, t, v, "regs"); ok {
			if x, isK := d.Const(); isK && x != 0 && (x%8 != 0 || x < 24 || x > 256) {
				c.errorf(regs.Value, "regs must be a multiple of 8 in [24, 256] (or 0: none), got %d", x)
			} else if isK {
				info.regs, info.regsKnown = x, true
			}
		}
	}
	if copies != nil {
		info.copiesKnown = false
		t, v := c.expr(copies.Value)
		if d, ok := c.intConst(copies.Value, t, v, "copies"); ok {
			if x, isK := d.Const(); isK {
				if x < 1 || x > maxRoleCopies {
					c.errorf(copies.Value, "copies must be in [1, %d], got %d", maxRoleCopies, x)
				} else {
					info.copies, info.copiesKnown = x, true
				}
			}
		}
	}
	// One copy: role_index() is the constant 0; several, or a number not
	// known yet: a symbol (the lowering gives each copy its own constant).
	info.index = &Value{Sym: SymDim(roleIndexSym)}
	if info.copiesKnown && info.copies == 1 {
		info.index = knownInt(0)
	}
	return info
}

// ------------------------------------------------------------- helpers

// genericFunc checks a func that no kernel calls, with its declared types.
func (c *checker) genericFunc(fd *ast.FuncDecl) {
	inst := &Instance{Decl: fd, Tables: newTables()}
	c.info.Instances[fd] = append(c.info.Instances[fd], inst)
	savedTab, savedB, savedSc := c.tab, c.b, c.sc
	c.tab = inst.Tables
	c.sc = newScope(c.top)
	c.stack = append(c.stack, fd)
	defer func() {
		c.tab, c.b, c.sc = savedTab, savedB, savedSc
		c.stack = c.stack[:len(c.stack)-1]
	}()
	defer c.guard(fd.Name, "func "+fd.Name.Name)
	// Const params first, so that param types may use any of them.
	generic := false
	objs := map[*ast.Param]*Object{}
	for _, pass := range []bool{true, false} {
		for _, p := range fd.Params {
			if p.Const == pass {
				objs[p] = c.param(p, false)
			}
		}
	}
	for _, p := range fd.Params {
		if o := objs[p]; o != nil {
			inst.Params = append(inst.Params, o)
			generic = generic || isGeneric(o.Type)
		}
	}
	if generic {
		// A dtype parameter, memdesc T, pipe or slot stands for many
		// types: the body is checked at each call, with the argument's.
		return
	}
	c.funcBody(fd, inst)
}

// funcBody checks a func's body with its params already in scope.
func (c *checker) funcBody(fd *ast.FuncDecl, inst *Instance) {
	var smem []*SmemBuffer
	b := &body{fn: fd, inst: inst, smem: &smem}
	for _, r := range fd.Results {
		saved := c.tab
		c.tab = inst.Tables
		b.results = append(b.results, c.typeExpr(r))
		c.tab = saved
	}
	b.actual = make([]Type, len(b.results))
	c.b = b
	c.block(fd.Body.Stmts)
	if len(b.results) > 0 && !terminates(fd.Body.Stmts) {
		c.errorAt(fd.Body.Rbrace, "missing return at end of func %s", fd.Name.Name)
	}
	for i, t := range b.actual {
		if t == nil {
			t = b.results[i]
			if d, ok := t.(DType); ok && d.IsUntyped() {
				t = d.Default()
			}
		}
		inst.Results = append(inst.Results, t)
	}
	inst.Smem = smem
	inst.callees = b.callees
}

// instantiate checks a func for the argument types of one call.
func (c *checker) instantiate(call *ast.CallExpr, fd *ast.FuncDecl, args []*argv) *Instance {
	for _, s := range c.stack {
		if s == fd {
			c.errorf(call, "recursive call to func %s (helpers are inlined, so they cannot recurse)", fd.Name.Name)
			return nil
		}
	}
	var key strings.Builder
	for i, a := range args {
		key.WriteString(instanceKey(a.typ))
		if i < len(fd.Params) && fd.Params[i].Const {
			fmt.Fprintf(&key, "=%v", a.val)
		}
		key.WriteString(";")
	}
	if m := c.instances[fd]; m != nil {
		if inst := m[key.String()]; inst != nil {
			return inst
		}
	}
	inst := &Instance{Decl: fd, Tables: newTables()}
	if c.instances[fd] == nil {
		c.instances[fd] = map[string]*Instance{}
	}
	c.instances[fd][key.String()] = inst
	c.info.Instances[fd] = append(c.info.Instances[fd], inst)

	c.stack = append(c.stack, fd)
	savedTab, savedB, savedSc := c.tab, c.b, c.sc
	c.tab = inst.Tables
	c.sc = newScope(c.top)
	defer func() {
		c.tab, c.b, c.sc = savedTab, savedB, savedSc
		c.stack = c.stack[:len(c.stack)-1]
	}()
	defer c.guard(fd.Name, "func "+fd.Name.Name)
	for i, p := range fd.Params {
		var t Type = Invalid
		var v *Value
		if i < len(args) {
			t, v = args[i].typ, args[i].val
		}
		o := &Object{Kind: ParamObj, Name: p.Name.Name, Pos: p.Name.Pos(), Type: t, Decl: p, Const: p.Const}
		if p.Const {
			o.Value = v
		}
		c.tab.Defs[p.Name] = o
		inst.Params = append(inst.Params, o)
		if p.Name.Name != "_" && c.sc.names[p.Name.Name] == nil {
			c.sc.names[p.Name.Name] = o
		}
	}
	c.funcBody(fd, inst)
	return inst
}

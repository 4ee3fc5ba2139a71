package lower

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/ir"
)

func (s *fn) errorf(pos diag.Pos, format string, args ...any) { s.l.errorf(pos, format, args...) }

func (s *fn) push() { s.scope = newScope(s.scope) }
func (s *fn) pop()  { s.scope = s.scope.parent }

// A kernel's return ends the program instance, at any depth of ifs and
// blocks. The IR has no branch out of a structured op, so the statements a
// return skips are put where it cannot reach them:
//
//   - `if c { ...; return } [else { e }]; rest` lowers as
//     `if c { ... } else { { e }; rest }`, and `if c { t } else { ...; return }; rest`
//     as `if c { { t }; rest } else { ... }`: the rest of the block joins the
//     branch that does not return (earlyReturn);
//   - any other statement that holds a return (`if a { if b { return } }`, a
//     return in an else-if, in a block) is followed by
//     `if returned {} else { rest }` (guard): returned is a hidden kernel
//     variable that such a return sets to true and that every if holding
//     one yields like an assigned variable.
//
// The same applies in each enclosing block, so what follows a return at any
// level runs only on the paths that did not return. A return in tail
// position (s.tail: nothing in the kernel runs after the statement being
// lowered) has nothing to skip: it is dropped, and sets or carries nothing.
// A for loop cannot stop early, so a return inside one is an error (the
// checker's first).
const returned = "$returned" // not an identifier: no source name hides it

func (s *fn) block(stmts []ast.Stmt) {
	tail := s.tail
	defer func() { s.tail = tail }()
	kernel := s.kernel()
	for i, st := range stmts {
		s.tail = tail && i == len(stmts)-1
		if ifs, ok := st.(*ast.IfStmt); ok && kernel && (endsInReturn(ifs.Then) || endsInReturn(elseBlock(ifs))) {
			// A branch ends in a return: the block's remaining statements
			// join the other one.
			s.tail = tail
			s.earlyReturn(ifs, stmts[i+1:])
			return
		}
		if ret, ok := st.(*ast.ReturnStmt); ok && i != len(stmts)-1 {
			s.errorf(ret.Pos(), "return must be the last statement of its block")
		}
		if br, ok := st.(*ast.BranchStmt); ok && i != len(stmts)-1 {
			s.errorf(stmts[i+1].Pos(), "%s must be the last statement of its block (nothing after it runs)", br.Tok)
		}
		s.stmt(st)
		if i < len(stmts)-1 && s.loops > 0 {
			if brk, cont := holdsBranch(st); brk || cont {
				// a break or continue deeper in st: the rest of the
				// iteration runs where neither happened
				s.tail = tail
				s.guardBranch(stmts[i+1:], brk, cont)
				return
			}
		}
		if kernel && i < len(stmts)-1 && holdsReturn(st) {
			// A return deeper in st: the rest runs where it did not.
			s.tail = tail
			s.guard(stmts[i+1:])
			return
		}
	}
}

func (s *fn) kernel() bool { return s.f != nil && s.f.Kernel }

func endsInReturn(b *ast.BlockStmt) bool {
	if b == nil {
		return false
	}
	if n := len(b.Stmts); n > 0 {
		_, ok := b.Stmts[n-1].(*ast.ReturnStmt)
		return ok
	}
	return false
}

// elseBlock is st's else branch when it is a block (not an else-if).
func elseBlock(st *ast.IfStmt) *ast.BlockStmt {
	b, _ := st.Else.(*ast.BlockStmt)
	return b
}

// holdsReturn reports whether a return stands anywhere in st (roles hold
// none: the checker rejects them).
func holdsReturn(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BlockStmt:
		return st != nil && slices.ContainsFunc(st.Stmts, holdsReturn)
	case *ast.IfStmt:
		return holdsReturn(st.Then) || st.Else != nil && holdsReturn(st.Else)
	case *ast.ForStmt:
		return holdsReturn(st.Body)
	}
	return false
}

// earlyReturn lowers `if c { then } [else { els }]` followed by rest, in a
// kernel, where then or els ends in a return: rest joins the other branch
// (it is unreachable when both end in one). The return stays, to set
// returned, unless the if is in tail position.
func (s *fn) earlyReturn(st *ast.IfStmt, rest []ast.Stmt) {
	strip := func(b *ast.BlockStmt) *ast.BlockStmt {
		if !s.tail || !endsInReturn(b) {
			return b
		}
		return &ast.BlockStmt{Lbrace: b.Lbrace, Stmts: b.Stmts[:len(b.Stmts)-1], Rbrace: b.Rbrace}
	}
	// join is b's statements followed by rest; b keeps its own scope, so a
	// name it declares does not hide an outer one from rest.
	join := func(b ast.Stmt, at, end diag.Pos) *ast.BlockStmt {
		var stmts []ast.Stmt
		switch b := b.(type) {
		case *ast.BlockStmt:
			stmts = b.Stmts
			if len(rest) > 0 && len(stmts) > 0 {
				stmts = []ast.Stmt{b}
			}
		case *ast.IfStmt:
			stmts = []ast.Stmt{b}
		}
		joined := &ast.BlockStmt{Lbrace: at, Stmts: append(append([]ast.Stmt(nil), stmts...), rest...), Rbrace: end}
		if len(rest) > 0 {
			joined.Rbrace = rest[len(rest)-1].End() - 1
		}
		return joined
	}
	then, els := st.Then, elseBlock(st)
	switch {
	case endsInReturn(then) && endsInReturn(els):
		// Both branches return: what follows is unreachable.
		s.ifStmt(&ast.IfStmt{Kw: st.Kw, Cond: st.Cond, Then: strip(then), Else: strip(els)})
	case endsInReturn(then):
		elsePos := then.Rbrace
		if st.Else != nil {
			elsePos = st.Else.Pos()
		}
		s.ifStmt(&ast.IfStmt{Kw: st.Kw, Cond: st.Cond, Then: strip(then), Else: join(st.Else, elsePos, then.Rbrace)})
	default:
		s.ifStmt(&ast.IfStmt{Kw: st.Kw, Cond: st.Cond, Then: join(then, then.Lbrace, then.Rbrace), Else: strip(els)})
	}
}

// guard lowers rest, the statements after one that holds a return (nested
// deeper than earlyReturn reaches), as `if returned {} else { rest }`.
func (s *fn) guard(rest []ast.Stmt) {
	at, end := rest[0].Pos(), rest[len(rest)-1].End()-1
	s.ifStmt(&ast.IfStmt{
		Kw:   at,
		Cond: &ast.Ident{NamePos: at, Name: returned},
		Then: &ast.BlockStmt{Lbrace: at, Rbrace: at},
		Else: &ast.BlockStmt{Lbrace: at, Stmts: rest, Rbrace: end},
	})
}

func (s *fn) stmt(st ast.Stmt) {
	s.b.Pos = st.Pos()
	switch st := st.(type) {
	case *ast.BlockStmt:
		s.push()
		s.block(st.Stmts)
		s.pop()
	case *ast.ExprStmt:
		s.exprStmt(st.X)
	case *ast.AssignStmt:
		s.assign(st)
	case *ast.ConstDecl:
		v := s.expr(st.Value)
		if v.c == nil {
			s.errorf(st.Value.Pos(), "constant %s must have a compile-time value", st.Name.Name)
		}
		s.scope.declare(st.Name.Name, v)
	case *ast.ReturnStmt:
		if !s.kernel() {
			s.helperReturn(st)
			break
		}
		switch {
		case s.loops > 0:
			s.errorf(st.Pos(), "return is not allowed inside a for loop")
		case s.role:
			s.errorf(st.Pos(), "return is not allowed inside a role")
		case !s.tail:
			// Something follows: it runs under `if returned {} else { ... }`.
			s.rebind(returned, &val{c: &constant{kind: 'b', b: true}})
		}
		if len(st.Results) > 0 {
			s.errorf(st.Pos(), "a kernel returns no values")
		}
	case *ast.IfStmt:
		s.ifStmt(st)
	case *ast.BranchStmt:
		flag := loopLive
		if st.Tok == "continue" {
			flag = loopCont
		}
		if v, _ := s.scope.lookup(flag); v == nil || v == unrolledLoop {
			s.errorf(st.Pos(), "%s in a static_range loop: the loop is unrolled at compile time and has no iteration to leave", st.Tok)
		}
		if st.Tok == "break" {
			s.rebind(loopLive, &val{c: &constant{kind: 'b'}})
		} else {
			s.rebind(loopCont, &val{c: &constant{kind: 'b', b: true}})
		}
	case *ast.ForStmt:
		s.forStmt(st)
	case *ast.WarpSpecializeStmt:
		s.warpSpecialize(st)
	default:
		s.errorf(st.Pos(), "unsupported statement")
	}
}

// resultVar names the hidden variable that holds a helper's i-th result.
func resultVar(i int) string { return fmt.Sprintf("$result%d", i) } // not an identifier

// helperReturn lowers a helper's return. A helper returns only in tail
// position (s.tail: nothing in the helper runs after the return): as the
// last statement of its body, or as the last statement of the branches of an
// if/else (at any depth, else-ifs and blocks included) that ends the body.
// The return binds the hidden variables resultVar(i), which every if holding
// a return yields like an assigned variable, so that the return op at the
// end of the body (instantiate) returns the values of the branch taken. A
// return that more of the helper follows is a limit of the lowering (section
// 18 of docs/language.md): the IR has no branch out of an if, and a helper
// does not thread the rest of its body through the branches as a kernel
// does.
func (s *fn) helperReturn(st *ast.ReturnStmt) {
	if !s.tail {
		s.errorf(st.Pos(), "a helper returns only at its end (its last statement, or the branches of a final if/else): more of the helper follows this return")
	}
	vals := s.returnValues(st)
	if len(vals) != len(s.results) {
		s.errorf(st.Pos(), "wrong number of return values (want %d, got %d)", len(s.results), len(vals))
	}
	for i, v := range vals {
		// The value takes the declared result dtype (a constant too:
		// `return 3000000000` from an f32 helper is not an i32 first); a
		// pointer result keeps the returned pointers' space and shape.
		want := s.results[i]
		if rp, ok := want.(*ir.Pointer); ok {
			at := st.Results[min(i, len(st.Results)-1)].Pos()
			if v.v == nil {
				s.errorf(at, "result %d must be a *%s, got a constant", i+1, rp.Elem)
			}
			if p, isPtr := ir.Elem(v.v.Type).(*ir.Pointer); !isPtr || p.Elem != rp.Elem {
				s.errorf(at, "result %d must be a *%s, got %s", i+1, rp.Elem, v.v.Type)
			}
			want = v.v.Type
		} else if want == nil && v.v != nil {
			want = v.v.Type // a view, a pipe, a barrier, a mesh or a desc
		} else if dt, scalar := want.(ir.DType); scalar && v.v != nil {
			want = ir.TileOf(ir.ShapeOf(v.v.Type), dt)
		} // a tile result type ([HALF]i32) is the value's type, as the checker took it
		s.rebind(resultVar(i), &val{v: s.materialize(v, want, st.Results[min(i, len(st.Results)-1)].Pos())})
	}
	s.retAt = st.Pos()
}

// returnValues lowers a helper return's values; `return f(x)` gives all of
// the results of a helper f that has several (the checker accepts it as a
// tuple).
func (s *fn) returnValues(st *ast.ReturnStmt) []*val {
	if len(st.Results) == 1 && len(s.results) > 1 {
		x := st.Results[0]
		for {
			p, ok := x.(*ast.ParenExpr)
			if !ok {
				break
			}
			x = p.X
		}
		if call, ok := x.(*ast.CallExpr); ok {
			return s.callMulti(call)
		}
	}
	var vals []*val
	for _, r := range st.Results {
		vals = append(vals, s.expr(r))
	}
	return vals
}

func (s *fn) exprStmt(x ast.Expr) {
	if call, ok := x.(*ast.CallExpr); ok {
		s.call(call, true)
		return
	}
	s.errorf(x.Pos(), "expression is not used")
}

func (s *fn) assign(st *ast.AssignStmt) {
	if st.Tok != ":=" && st.Tok != "=" {
		// x op= y
		op := st.Tok[:len(st.Tok)-1]
		cur := s.expr(st.LHS[0])
		rhs := s.expr(st.RHS[0])
		s.b.Pos = st.TokAt
		s.set(st.LHS[0], s.binary(op, cur, rhs, st.TokAt), false)
		return
	}
	var vals []*val
	if len(st.RHS) == 1 && len(st.LHS) > 1 {
		call, ok := st.RHS[0].(*ast.CallExpr)
		if !ok {
			s.errorf(st.RHS[0].Pos(), "assignment mismatch: %d variables but 1 value", len(st.LHS))
		}
		vals = s.callMulti(call)
		if len(vals) != len(st.LHS) {
			s.errorf(st.Pos(), "assignment mismatch: %d variables but %d values", len(st.LHS), len(vals))
		}
	} else {
		if len(st.LHS) != len(st.RHS) {
			s.errorf(st.Pos(), "assignment mismatch: %d variables but %d values", len(st.LHS), len(st.RHS))
		}
		for _, r := range st.RHS {
			vals = append(vals, s.expr(r))
		}
	}
	for i, lhs := range st.LHS {
		s.set(lhs, vals[i], st.Tok == ":=")
	}
}

// set binds name to v: a declaration in the current scope, or an assignment
// to the variable's existing binding.
func (s *fn) set(lhs ast.Expr, v *val, declare bool) {
	id, ok := lhs.(*ast.Ident)
	if !ok {
		s.errorf(lhs.Pos(), "cannot assign to this expression")
	}
	if id.Name == "_" {
		return
	}
	if v.v != nil && v.v.Name == "" {
		v.v.Name = id.Name
	}
	if v.bp != nil {
		sc := s.scope
		if _, here := s.scope.vars[id.Name]; !declare || here {
			if _, sc = s.scope.lookup(id.Name); sc == nil {
				s.errorf(id.Pos(), "undefined: %s", id.Name)
			}
		}
		setBlockPtr(sc, id.Name, v)
		return
	}
	if declare {
		if _, here := s.scope.vars[id.Name]; !here {
			s.scope.declare(id.Name, v)
			return
		}
	}
	_, sc := s.scope.lookup(id.Name)
	if sc == nil {
		s.errorf(id.Pos(), "undefined: %s", id.Name)
	}
	old := sc.vars[id.Name]
	if old != nil && old.v != nil && v.c != nil {
		// An untyped constant assigned to a typed variable takes its type.
		v = &val{v: s.materialize(v, old.v.Type, id.Pos())}
	}
	sc.vars[id.Name] = v
}

// assignedOuter lists, in order of first assignment, the variables visible
// in s.scope that stmts assign with = or op= (not ones they declare).
func (s *fn) assignedOuter(stmts []ast.Stmt) []string {
	var names []string
	seen := map[string]bool{}
	var walk func(stmts []ast.Stmt, local []map[string]bool)
	isLocal := func(name string, local []map[string]bool) bool {
		for _, m := range local {
			if m[name] {
				return true
			}
		}
		return false
	}
	walk = func(stmts []ast.Stmt, local []map[string]bool) {
		here := map[string]bool{}
		local = append(local, here)
		for _, st := range stmts {
			switch st := st.(type) {
			case *ast.AssignStmt:
				for _, lhs := range st.LHS {
					id, ok := lhs.(*ast.Ident)
					if !ok {
						continue
					}
					if st.Tok == ":=" {
						if !here[id.Name] {
							here[id.Name] = true
							continue
						}
					}
					if isLocal(id.Name, local) || seen[id.Name] {
						continue
					}
					if v, _ := s.scope.lookup(id.Name); v != nil {
						seen[id.Name] = true
						names = append(names, id.Name)
					}
				}
			case *ast.ConstDecl:
				here[st.Name.Name] = true
			case *ast.BlockStmt:
				walk(st.Stmts, local)
			case *ast.IfStmt:
				for cur := st; cur != nil; {
					// a compile-time condition lowers only the branch it
					// takes (ifStmt), so only that branch assigns
					taken, known := s.staticCond(cur.Cond)
					if known && taken {
						walk(cur.Then.Stmts, local)
						break
					}
					if !known {
						walk(cur.Then.Stmts, local)
					}
					switch e := cur.Else.(type) {
					case *ast.BlockStmt:
						walk(e.Stmts, local)
						cur = nil
					case *ast.IfStmt:
						cur = e
					default:
						cur = nil
					}
				}
			case *ast.BranchStmt:
				// break and continue set the loop's hidden flags
				name := loopLive
				if st.Tok == "continue" {
					name = loopCont
				}
				if !isLocal(name, local) && !seen[name] {
					if v, _ := s.scope.lookup(name); v != nil {
						seen[name] = true
						names = append(names, name)
					}
				}
			case *ast.ForStmt:
				// a nested loop's break and continue are its own
				inner := map[string]bool{loopLive: true, loopCont: true}
				if st.Var != nil {
					inner[st.Var.Name] = true
				} else if st.Init != nil {
					for _, l := range st.Init.LHS {
						if id, ok := l.(*ast.Ident); ok {
							inner[id.Name] = true
						}
					}
				}
				walk(st.Body.Stmts, append(local, inner))
			}
		}
	}
	walk(stmts, nil)
	return s.expandBlockPtrs(names)
}

// staticCond evaluates an if's condition when it is a compile-time value
// made of constants, const parameters and bound names, with comparisons,
// logical and integer +, - and * operators, without emitting anything
// (assignedOuter scans statements before they are lowered); known is false
// for anything else.
func (s *fn) staticCond(e ast.Expr) (taken, known bool) {
	c := s.staticConst(e)
	if c == nil {
		return false, false
	}
	return c.float() != 0, true
}

func (s *fn) staticConst(e ast.Expr) *constant {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return s.staticConst(e.X)
	case *ast.Ident:
		if v, _ := s.scope.lookup(e.Name); v != nil && v.c != nil {
			return v.c
		}
	case *ast.BasicLit:
		if c, err := parseConst(e.Value); err == nil && e.Kind != ast.String {
			return c
		}
	case *ast.UnaryExpr:
		x := s.staticConst(e.X)
		if x != nil && e.Op == "!" && x.kind == 'b' {
			return &constant{kind: 'b', b: !x.b}
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case "==", "!=", "<", "<=", ">", ">=", "&&", "||", "+", "-", "*":
		default:
			return nil
		}
		x, y := s.staticConst(e.X), s.staticConst(e.Y)
		if x == nil || y == nil || (x.kind == 'b') != (y.kind == 'b') {
			return nil
		}
		if (e.Op == "+" || e.Op == "-" || e.Op == "*") && (x.kind != 'i' || y.kind != 'i') {
			return nil
		}
		if (e.Op == "&&" || e.Op == "||") && x.kind != 'b' {
			return nil
		}
		return s.fold(e.Op, x, y, e.OpPos)
	}
	return nil
}

// carried reads the current IR values of names, materialising untyped
// constants with their default types (or the types given in want).
func (s *fn) carried(names []string, want map[string]ir.Type, pos diag.Pos) []*ir.Value {
	out := make([]*ir.Value, len(names))
	for i, n := range names {
		v, sc := s.scope.lookup(n)
		out[i] = s.materialize(v, want[n], pos)
		sc.vars[n] = &val{v: out[i]}
	}
	return out
}

func (s *fn) ifStmt(st *ast.IfStmt) {
	cond := s.expr(st.Cond)
	if cond.c != nil {
		// A compile-time condition: lower only the branch taken.
		if cond.c.float() != 0 {
			s.push()
			s.block(st.Then.Stmts)
			s.pop()
		} else if st.Else != nil {
			s.stmt(st.Else)
		}
		return
	}
	names := s.assignedOuter([]ast.Stmt{st})
	if !s.kernel() && holdsReturn(st) {
		// A helper's if that returns (in tail position: helperReturn)
		// yields the results of the branch taken.
		for i := range s.results {
			names = append(names, resultVar(i))
		}
	}
	// An if holding a kernel's return yields returned when something
	// follows it; in tail position nothing reads returned after it, but a
	// branch must not see the value the other one left.
	var flag map[string]binding
	if s.kernel() && holdsReturn(st) {
		if s.tail {
			flag = s.snapshot([]string{returned})
			defer s.restore(flag)
		} else {
			names = append(names, returned)
		}
	}
	want := map[string]ir.Type{}
	for attempt := 0; attempt < 2; attempt++ {
		snapshot := s.snapshot(names)
		maps.Copy(snapshot, flag)
		s.b.Pos = st.Pos()
		c := s.materialize(cond, ir.I1, st.Cond.Pos())
		op := s.b.Create(ir.OpIf, nil, []*ir.Value{c}, nil)
		outer := s.b.Block
		then := s.b.NewRegion(op)
		els := s.b.NewRegion(op)
		branch := func(blk *ir.Block, body func()) []*ir.Value {
			s.restore(snapshot)
			s.b.Block = blk
			s.push()
			body()
			s.pop()
			for _, n := range names {
				if v, _ := s.scope.lookup(n); v == nil {
					// A result no return bound (the checker's
					// "missing return" comes first).
					s.errorf(st.Pos(), "missing return: a path through this if, which ends the helper, does not return")
				}
			}
			vals := s.carried(names, want, st.Pos())
			s.b.Pos = st.End() - 1
			s.b.Create(ir.OpYield, nil, vals, nil)
			return vals
		}
		tv := branch(then, func() { s.block(st.Then.Stmts) })
		ev := branch(els, func() {
			if st.Else != nil {
				s.stmt(st.Else)
			}
		})
		s.b.Block = outer
		if s.settle(op, names, tv, ev, want, st.Pos(), attempt, snapshot) {
			continue
		}
		return
	}
}

// settle ends one attempt at lowering a structured op whose regions carry
// names (a gives their types, b the other side's). When unify asks for a
// retry it removes op, restores the snapshot and reports true; otherwise op
// gets one result per name and the names are rebound to them.
func (s *fn) settle(op *ir.Op, names []string, a, b []*ir.Value, want map[string]ir.Type, pos diag.Pos, attempt int, snapshot map[string]binding) bool {
	if s.unify(names, a, b, want, pos, attempt) {
		op.Remove()
		s.restore(snapshot)
		return true
	}
	for i, n := range names {
		r := s.f.NewValue(a[i].Type, n, op, nil, i)
		op.Results = append(op.Results, r)
		s.rebind(n, &val{v: r})
	}
	return false
}

// unify checks that the two sides give each carried variable one type. When
// they differ only because a side started from an untyped constant, it
// records the type to use and asks for a retry.
func (s *fn) unify(names []string, a, b []*ir.Value, want map[string]ir.Type, pos diag.Pos, attempt int) bool {
	retry := false
	for i, n := range names {
		if ir.Equal(a[i].Type, b[i].Type) {
			continue
		}
		if attempt == 0 {
			want[n] = widerType(a[i].Type, b[i].Type)
			retry = true
			continue
		}
		s.errorf(pos, "variable %s changes type from %s to %s", n, a[i].Type, b[i].Type)
	}
	return retry
}

// widerType picks the type a carried variable should have when its two
// definitions disagree (typically an untyped constant's default).
func widerType(a, b ir.Type) ir.Type {
	if _, ok := a.(*ir.Tile); ok {
		return a
	}
	if _, ok := b.(*ir.Tile); ok {
		return b
	}
	da, db := ir.ElemDType(a), ir.ElemDType(b)
	if da != ir.Invalid && db != ir.Invalid {
		return ir.Promote(da, db)
	}
	return a
}

type binding struct {
	sc *scope
	v  *val
}

func (s *fn) snapshot(names []string) map[string]binding {
	m := map[string]binding{}
	for _, n := range names {
		v, sc := s.scope.lookup(n)
		m[n] = binding{sc, v}
	}
	return m
}

func (s *fn) restore(m map[string]binding) {
	for n, b := range m {
		b.sc.vars[n] = b.v
	}
}

func (s *fn) rebind(name string, v *val) {
	_, sc := s.scope.lookup(name)
	sc.vars[name] = v
}

// Loops stop early through hidden flags (not identifiers: no source name
// hides them), as a kernel's return does (see returned):
//
//   - loopLive, carried by a loop that may stop before its bound (a while
//     loop `for cond { }`, or one holding a break): the for op's "while"
//     attribute names it, and an iteration runs only while it is true.
//     break sets it to false; a while loop sets it to its condition at the
//     end of each iteration (evaluated only while it is still true).
//   - loopCont, declared false at the top of each iteration of a loop
//     holding a continue, which sets it to true.
//
// The statements after one holding a break or continue run under
// `if !loopLive || loopCont {} else { rest }` (guardBranch), and every if
// holding one yields the flag it sets.
const (
	loopLive = "$live"
	loopCont = "$continue"
)

// whileBound is a while loop's iteration bound: its for op counts an i32
// from 0, so it stops after 2^31-1 iterations at the latest.
const whileBound = math.MaxInt32

// holdsBranch reports whether a break or a continue of the loop being
// lowered stands anywhere in st (those of nested loops are theirs).
func holdsBranch(st ast.Stmt) (brk, cont bool) {
	var walk func(st ast.Stmt)
	walk = func(st ast.Stmt) {
		switch st := st.(type) {
		case *ast.BranchStmt:
			if st.Tok == "break" {
				brk = true
			} else {
				cont = true
			}
		case *ast.BlockStmt:
			if st != nil {
				for _, x := range st.Stmts {
					walk(x)
				}
			}
		case *ast.IfStmt:
			walk(st.Then)
			if st.Else != nil {
				walk(st.Else)
			}
		}
	}
	walk(st)
	return brk, cont
}

// guardBranch lowers rest, the statements of a loop body after one that
// holds a break (brk) or a continue (cont), under the flags that say
// neither happened.
func (s *fn) guardBranch(rest []ast.Stmt, brk, cont bool) {
	at, end := rest[0].Pos(), rest[len(rest)-1].End()-1
	var stop ast.Expr
	if brk {
		stop = &ast.UnaryExpr{OpPos: at, Op: "!", X: &ast.Ident{NamePos: at, Name: loopLive}}
	}
	if cont {
		c := ast.Expr(&ast.Ident{NamePos: at, Name: loopCont})
		if stop == nil {
			stop = c
		} else {
			stop = &ast.BinaryExpr{X: stop, OpPos: at, Op: "||", Y: c}
		}
	}
	s.ifStmt(&ast.IfStmt{
		Kw:   at,
		Cond: stop,
		Then: &ast.BlockStmt{Lbrace: at, Rbrace: at},
		Else: &ast.BlockStmt{Lbrace: at, Stmts: rest, Rbrace: end},
	})
}

func (s *fn) forStmt(st *ast.ForStmt) {
	var lb, ub, step *val
	var iv string
	ivPos := st.Pos()
	while := st.Var == nil && st.Init == nil
	brk, cont := false, false
	for _, x := range st.Body.Stmts {
		b, c := holdsBranch(x)
		brk, cont = brk || b, cont || c
	}
	var attrs ir.Attrs // num_stages, loop_unroll_factor
	unroll := int64(1)
	switch {
	case st.Var != nil && isStaticRange(st.Range):
		s.staticRange(st)
		return
	case st.Var != nil && st.RangeCall != nil:
		iv = st.Var.Name
		lb, ub, step, attrs = s.rangeCall(st.RangeCall)
		if u, ok := attrs["loop_unroll_factor"].(int64); ok {
			unroll = u
			if unroll > 1 && (brk || cont) {
				s.errorf(st.RangeCall.Pos(), "loop_unroll_factor with break or continue in the loop is not supported")
			}
		}
	case st.Var != nil:
		iv = st.Var.Name
		lb = &val{c: &constant{kind: 'i', i: 0}}
		ub = s.expr(st.Range)
		step = &val{c: &constant{kind: 'i', i: 1}}
	case while:
		iv = "$iteration"
		lb = &val{c: &constant{kind: 'i', i: 0}}
		ub = &val{c: &constant{kind: 'i', i: whileBound}}
		step = &val{c: &constant{kind: 'i', i: 1}}
	default:
		if len(st.Init.LHS) != 1 || st.Init.Tok != ":=" {
			s.errorf(st.Init.Pos(), "a for loop must start with `i := start`")
		}
		id, ok := st.Init.LHS[0].(*ast.Ident)
		if !ok {
			s.errorf(st.Init.Pos(), "a for loop must start with `i := start`")
		}
		iv = id.Name
		lb = s.expr(st.Init.RHS[0])
		cmp, ok := st.Cond.(*ast.BinaryExpr)
		if !ok || (cmp.Op != "<" && cmp.Op != "<=") || !isIdent(cmp.X, iv) {
			s.errorf(st.Cond.Pos(), "the loop condition must be `%s < end` or `%s <= end`", iv, iv)
		}
		ub = s.expr(cmp.Y)
		if cmp.Op == "<=" {
			ub = s.binary("+", ub, &val{c: &constant{kind: 'i', i: 1}}, cmp.OpPos)
		}
		if !isIdent(st.Post.LHS[0], iv) || st.Post.Tok != "+=" {
			s.errorf(st.Post.Pos(), "the loop step must be `%s += step`", iv)
		}
		step = s.expr(st.Post.RHS[0])
		if step.c != nil && step.c.float() <= 0 {
			s.errorf(st.Post.RHS[0].Pos(), "the loop step must be positive")
		}
	}
	s.push() // the loop's own flags
	defer s.pop()
	live := -1
	if while || brk {
		init := &val{c: &constant{kind: 'b', b: true}}
		if while {
			init = &val{v: s.materialize(s.expr(st.Cond), ir.I1, st.Cond.Pos())}
		}
		s.scope.declare(loopLive, init)
	}
	var names []string
	for _, n := range s.assignedOuter(st.Body.Stmts) {
		if n != loopLive && n != loopCont {
			names = append(names, n)
		}
	}
	if while || brk {
		live = len(names)
		names = append(names, loopLive)
	}
	want := map[string]ir.Type{loopLive: ir.I1}
	s.b.Pos = st.Pos()
	ivType := ir.DType(ir.I32)
	for _, b := range []*val{lb, ub, step} {
		if b.v != nil {
			ivType = ir.Promote(ivType, ir.ElemDType(b.v.Type))
		}
	}
	for attempt := 0; attempt < 2; attempt++ {
		snapshot := s.snapshot(names)
		s.b.Pos = st.Pos()
		lo := s.materialize(lb, ivType, ivPos)
		hi := s.materialize(ub, ivType, ivPos)
		sp := s.materialize(step, ivType, ivPos)
		inits := s.carried(names, want, st.Pos())
		opAttrs := ir.Attrs{}
		for k, v := range attrs {
			opAttrs[k] = v
		}
		if live >= 0 {
			opAttrs["while"] = int64(live)
		}
		if len(opAttrs) == 0 {
			opAttrs = nil
		}
		loopStep := sp
		if unroll > 1 {
			// each iteration runs unroll copies of the body (below)
			loopStep = s.b.Value(ir.OpMul, ivType, []*ir.Value{sp, s.materialize(&val{c: &constant{kind: 'i', i: unroll}}, ivType, ivPos)}, nil)
		}
		op := s.b.Create(ir.OpFor, nil, append([]*ir.Value{lo, hi, loopStep}, inits...), opAttrs)
		outer := s.b.Block
		body := s.b.NewRegion(op)
		s.b.Block = body
		ivVal := s.f.AddBlockArg(body, ivType, iv)
		s.push()
		s.scope.declare(iv, &val{v: ivVal})
		for i, n := range names {
			s.rebind(n, &val{v: s.f.AddBlockArg(body, inits[i].Type, n)})
		}
		s.push()
		if cont {
			s.scope.declare(loopCont, &val{c: &constant{kind: 'b'}})
		}
		tail := s.tail
		s.tail = false // the next iteration follows
		s.loops++
		s.block(st.Body.Stmts)
		for k := int64(1); k < unroll; k++ {
			// copy k of the body, for iv + k*step, where that is below
			// the bound
			at := st.Body.Lbrace
			s.b.Pos = at
			off := s.b.Value(ir.OpMul, ivType, []*ir.Value{sp, s.materialize(&val{c: &constant{kind: 'i', i: k}}, ivType, at)}, nil)
			ivk := s.b.Value(ir.OpAdd, ivType, []*ir.Value{ivVal, off}, nil)
			pred := "lt"
			below := s.b.Value(ir.OpCmp, ir.I1, []*ir.Value{ivk, hi}, ir.Attrs{"pred": pred})
			s.push()
			s.scope.declare("$unrolled", &val{v: below})
			s.scope.declare(iv, &val{v: ivk})
			s.ifStmt(&ast.IfStmt{Kw: at, Cond: &ast.Ident{NamePos: at, Name: "$unrolled"}, Then: st.Body})
			s.pop()
		}
		if while {
			// the condition for the next iteration, evaluated only while
			// no break stopped the loop
			at := st.Cond.Pos()
			set := &ast.AssignStmt{LHS: []ast.Expr{&ast.Ident{NamePos: at, Name: loopLive}}, Tok: "=", TokAt: at, RHS: []ast.Expr{st.Cond}}
			if brk {
				s.ifStmt(&ast.IfStmt{Kw: at, Cond: &ast.Ident{NamePos: at, Name: loopLive},
					Then: &ast.BlockStmt{Lbrace: at, Rbrace: st.Cond.End() - 1, Stmts: []ast.Stmt{set}}})
			} else {
				s.b.Pos = at
				s.rebind(loopLive, &val{v: s.materialize(s.expr(st.Cond), ir.I1, at)})
			}
		}
		s.loops--
		s.tail = tail
		s.pop()
		next := s.carried(names, want, st.Pos())
		s.pop()
		s.b.Pos = st.Body.Rbrace
		s.b.Create(ir.OpYield, nil, next, nil)
		s.b.Block = outer
		if s.settle(op, names, inits, next, want, st.Pos(), attempt, snapshot) {
			continue
		}
		return
	}
}

// isStaticRange reports static_range(...) (the checker made sure the name
// is the builtin's).
func isStaticRange(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	return ok && isIdent(call.Fun, "static_range")
}

// staticRange unrolls `for i := range static_range(start, end, step)`:
// the body is lowered once per value of i, a constant in each copy (so
// its ifs on i are pruned, as Triton's per-iteration constexpr).
func (s *fn) staticRange(st *ast.ForStmt) {
	call := st.Range.(*ast.CallExpr)
	var b []int64
	for _, a := range call.Args {
		v := s.expr(a.Value)
		if v.c == nil || !v.c.isInt() {
			s.errorf(a.Value.Pos(), "static_range needs compile-time integers")
		}
		b = append(b, v.c.i)
	}
	lo, hi, step := int64(0), int64(0), int64(1)
	switch len(b) {
	case 1:
		hi = b[0]
	case 2:
		lo, hi = b[0], b[1]
	case 3:
		lo, hi, step = b[0], b[1], b[2]
	}
	if step <= 0 {
		s.errorf(call.Pos(), "static_range's step must be positive, got %d", step)
	}
	if (hi-lo+step-1)/step > maxStaticRange {
		s.errorf(call.Pos(), "static_range unrolls %d copies of the body, more than %d", (hi-lo+step-1)/step, maxStaticRange)
	}
	tail := s.tail
	defer func() { s.tail = tail }()
	for i := lo; i < hi; i += step {
		s.push()
		// break and continue have no loop here (the checker says so
		// where it can; a copy's pruned if may hide one from it)
		s.scope.declare(loopLive, unrolledLoop)
		s.scope.declare(loopCont, unrolledLoop)
		s.scope.declare(st.Var.Name, &val{c: &constant{kind: 'i', i: i}})
		s.tail = tail && i+step >= hi
		s.push()
		s.block(st.Body.Stmts)
		s.pop()
		s.pop()
	}
}

// unrolledLoop stands for the flags of a static_range loop, which has
// none.
var unrolledLoop = &val{none: true}

// maxStaticRange bounds a static_range's copies of its body.
const maxStaticRange = 4096

// rangeCall reads range(start, end, step, num_stages:, loop_unroll_factor:).
func (s *fn) rangeCall(call *ast.CallExpr) (lb, ub, step *val, attrs ir.Attrs) {
	var pos []*val
	attrs = ir.Attrs{}
	for _, a := range call.Args {
		if a.Name == nil {
			pos = append(pos, s.expr(a.Value))
			continue
		}
		v := s.expr(a.Value)
		if v.c == nil || !v.c.isInt() {
			s.errorf(a.Value.Pos(), "range's %s must be a compile-time integer", a.Name.Name)
		}
		attrs[a.Name.Name] = v.c.i
	}
	lb, step = &val{c: &constant{kind: 'i', i: 0}}, &val{c: &constant{kind: 'i', i: 1}}
	switch len(pos) {
	case 1:
		ub = pos[0]
	case 2:
		lb, ub = pos[0], pos[1]
	case 3:
		lb, ub, step = pos[0], pos[1], pos[2]
	default:
		s.errorf(call.Pos(), "range takes 1 to 3 bounds")
	}
	if step.c != nil && step.c.float() <= 0 {
		s.errorf(call.Pos(), "the loop step must be positive")
	}
	if u, ok := attrs["loop_unroll_factor"].(int64); ok && u <= 1 {
		delete(attrs, "loop_unroll_factor") // 1: the loop as it is
	}
	return lb, ub, step, attrs
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// Helper calls: a helper is checked once per call's argument types (and
// const values). Its signature is resolved per call too: the const
// parameters are bound first (given, or inferred from the other arguments'
// types), then the other parameters' declared types are resolved with them,
// so `t [N]T` matches a [64]bf16 argument with N = 64 and T = bf16.

// isDTypeParam reports a `T const dtype` parameter.
func isDTypeParam(p *ast.Param) bool {
	n, ok := p.Type.(*ast.NamedType)
	return ok && p.Const && n.Name.Name == "dtype"
}

// funcSigText prints a helper's signature for messages, as written.
func (c *checker) funcSigText(fd *ast.FuncDecl) string {
	var sig []string
	for _, p := range fd.Params {
		s := p.Name.Name + " "
		if p.Const {
			s += "const "
		}
		sig = append(sig, s+c.src(p.Type))
	}
	return fd.Name.Name + "(" + strings.Join(sig, ", ") + ")"
}

func (c *checker) funcCall(e *ast.CallExpr, fd *ast.FuncDecl) Type {
	name := fd.Name.Name
	cc, ok := c.bind(e, name, c.funcSigText(fd), FuncParams(fd), false, nil)
	call := &Call{Result: Invalid}
	c.tab.Calls[e] = call
	defer func() {
		for _, a := range cc.args {
			call.Args = append(call.Args, &Arg{Name: a.name, Expr: a.expr, Type: a.typ, Value: a.val})
		}
	}()
	if !ok {
		return Invalid
	}
	// The const arguments given.
	for i, a := range cc.args {
		p := fd.Params[i]
		if !p.Const || a.def {
			continue
		}
		if isInvalid(a.typ) {
			ok = false
			continue
		}
		if isDTypeParam(p) {
			tv, isTV := a.typ.(*TypeVal)
			if isTV {
				_, isTV = tv.T.(DType)
			}
			if !isTV && a.typ == DTypeKind {
				// a kernel's dtype parameter left unbound: checked once
				// -D binds it
				ok = false
				continue
			}
			if !isTV {
				c.errorf(a.expr, "argument %s of %s must be a dtype such as bf16, not %s (%s)", a.name, name, c.src(a.expr), a.typ)
				ok = false
			}
			continue
		}
		if a.val == nil {
			c.needConst(a.expr, fmt.Sprintf("argument %s of %s", a.name, name))
			ok = false
		}
	}
	if !ok || !c.inferConsts(e, fd, cc.args) {
		return Invalid
	}
	decl := c.resolveParams(fd, cc.args)
	for i, a := range cc.args {
		p := fd.Params[i]
		if p.Const && (a.expr == nil || isDTypeParam(p)) {
			continue // inferred, or a dtype: bound as it is
		}
		if isInvalid(a.typ) || isInvalid(decl[i]) {
			ok = false
			continue
		}
		got, good := c.matchDeclared(a.expr, a.typ, a.val, decl[i])
		if !good {
			c.errorf(a.expr, "cannot use %s (%s) as %s in argument %s of %s", c.src(a.expr), a.typ, decl[i], a.name, name)
			ok = false
			continue
		}
		a.typ = got
	}
	if !ok {
		return Invalid
	}
	inst := c.instantiate(e, fd, cc.args)
	if inst == nil {
		return Invalid
	}
	call.Instance = inst
	if c.b != nil {
		c.b.callees = append(c.b.callees, calleeAt{call: e, inst: inst})
		c.nestedRoles(e, inst)
	}
	if c.b != nil && c.b.smem != nil {
		for _, s := range inst.Smem {
			cp := *s
			*c.b.smem = append(*c.b.smem, &cp)
		}
	}
	switch len(inst.Results) {
	case 0:
		call.Result = NoValue
	case 1:
		call.Result = inst.Results[0]
	default:
		call.Result = &Tuple{Types: inst.Results}
	}
	return call.Result
}

// invalidArg reports whether an argument of a non-const parameter of fd is
// Invalid, which leaves the const parameters its type would give unbound.
func invalidArg(fd *ast.FuncDecl, args []*argv) bool {
	for i, p := range fd.Params {
		if !p.Const && !args[i].def && isInvalid(args[i].typ) {
			return true
		}
	}
	return false
}

// binding is what unification found for a const parameter.
type binding struct {
	val  *Value
	dt   DType
	isDT bool
	from *argv
}

func (b *binding) String() string {
	if b.isDT {
		return b.dt.String()
	}
	return b.val.String()
}

// inferConsts binds every omitted const parameter of fd from the types of
// the other arguments: a parameter named by a dimension or an element
// dtype of another parameter's declared type takes that part of the
// argument's type. It reports parameters it cannot bind and conflicting
// bindings at the call.
func (c *checker) inferConsts(e *ast.CallExpr, fd *ast.FuncDecl, args []*argv) bool {
	want := map[string]int{}
	for i, p := range fd.Params {
		if p.Const && args[i].def {
			want[p.Name.Name] = i
		}
	}
	if len(want) == 0 {
		return true
	}
	ok := true
	got := map[string]*binding{}
	conflict := map[string]bool{}
	for i, p := range fd.Params {
		a := args[i]
		if p.Const || isInvalid(a.typ) {
			continue
		}
		c.unify(p.Type, a.typ, want, func(name string, b binding) {
			b.from = a
			prev := got[name]
			if prev == nil {
				got[name] = &b
				return
			}
			if prev.String() != b.String() && !conflict[name] {
				conflict[name] = true
				c.errorf(e, "conflicting values for %s in call to %s: %s from argument %s (%s) and %s from argument %s (%s)",
					name, fd.Name.Name, prev, prev.from.name, prev.from.typ, &b, a.name, a.typ)
				ok = false
			}
		})
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return want[names[i]] < want[names[j]] })
	for _, n := range names {
		i := want[n]
		a, p := args[i], fd.Params[i]
		b := got[n]
		if b == nil && invalidArg(fd, args) {
			// an argument is Invalid (an error reported already, or of a
			// kernel's unbound dtype parameter T, whose expressions are
			// checked once -D binds it): no cascade, the call is Invalid
			ok = false
			continue
		}
		if b == nil {
			if mentioned(fd, n) {
				c.errorf(e, "cannot infer %s in call to %s from the arguments' types: give it explicitly (%s: ...)", n, fd.Name.Name, n)
			} else {
				c.errorf(e, "missing argument %s in call to %s (want %s)", n, fd.Name.Name, c.funcSigText(fd))
			}
			ok = false
			continue
		}
		a.def = false
		if b.isDT {
			a.typ = &TypeVal{T: b.dt}
			continue
		}
		if !isDTypeParam(p) {
			saved := c.b
			c.b = nil
			a.typ = c.typeExpr(p.Type)
			c.b = saved
		}
		a.val = b.val
	}
	return ok
}

// mentioned reports whether a parameter type of fd names n.
func mentioned(fd *ast.FuncDecl, n string) bool {
	found := false
	for _, p := range fd.Params {
		if p.Const {
			continue
		}
		ast.Inspect(p.Type, func(x ast.Node) bool {
			if id, ok := x.(*ast.Ident); ok && id.Name == n {
				found = true
			}
			return !found
		})
	}
	return found
}

// unify matches a declared type against an argument's type, calling bind for
// every wanted const parameter it names where the argument's type has a
// matching part: a dimension written as the parameter's name alone, or an
// element dtype.
func (c *checker) unify(te ast.TypeExpr, t Type, want map[string]int, bind func(string, binding)) {
	elem := func(id *ast.Ident, d Type) {
		if _, w := want[id.Name]; !w {
			return
		}
		if dt, ok := ElemOf(d).(DType); ok && dt != Invalid {
			bind(id.Name, binding{dt: dt.Default(), isDT: true})
		}
	}
	dims := func(es []ast.Expr, shape Shape) {
		if len(es) != len(shape) {
			return
		}
		for i, x := range es {
			id, ok := unparen(x).(*ast.Ident)
			if !ok {
				continue
			}
			if _, w := want[id.Name]; !w {
				continue
			}
			v := &Value{Sym: shape[i]}
			if n, known := shape[i].Const(); known {
				v = knownInt(n)
			}
			bind(id.Name, binding{val: v})
		}
	}
	switch te := te.(type) {
	case *ast.NamedType:
		elem(te.Name, t)
	case *ast.PointerType:
		if p, ok := ElemOf(t).(*Pointer); ok {
			c.unify(te.Elem, p.Elem, want, bind)
		}
	case *ast.TileType:
		if tt, ok := t.(*Tile); ok {
			dims(te.Dims, tt.Shape)
			elem(te.Elem, tt.Elem)
		}
	case *ast.MemDescType:
		if m, ok := t.(*MemDesc); ok {
			if te.Dims != nil {
				dims(te.Dims, m.Shape)
			}
			elem(te.Elem, m.Elem)
		}
	case *ast.DescType:
		if d, ok := t.(*Desc); ok {
			elem(te.Elem, d.Elem)
			dims(te.Block, d.Block)
		}
	case *ast.BarrierType:
		if b, ok := t.(*Barrier); ok && b.Slots != nil {
			dims([]ast.Expr{te.N}, Shape{*b.Slots})
		}
	}
}

// resolveParams resolves fd's declared parameter types with its const
// parameters bound to the call's (given or inferred) values.
func (c *checker) resolveParams(fd *ast.FuncDecl, args []*argv) []Type {
	savedSc, savedTab, savedB := c.sc, c.tab, c.b
	c.sc, c.tab, c.b = newScope(c.top), c.info.Tables, nil
	defer func() { c.sc, c.tab, c.b = savedSc, savedTab, savedB }()
	for i, p := range fd.Params {
		if p.Const && p.Name.Name != "_" {
			c.sc.names[p.Name.Name] = &Object{Kind: ParamObj, Name: p.Name.Name, Pos: p.Name.Pos(), Type: args[i].typ, Decl: p, Const: true, Value: args[i].val}
		}
	}
	decl := make([]Type, len(fd.Params))
	for i, p := range fd.Params {
		if isDTypeParam(p) {
			decl[i] = DTypeKind
			continue
		}
		decl[i] = c.typeExpr(p.Type)
	}
	return decl
}

// isGeneric reports a declared type that stands for many (memdesc T, pipe,
// a slot, a dtype): a helper with one is checked only at its calls.
func isGeneric(t Type) bool {
	switch t := t.(type) {
	case *MemDesc:
		return t.AnyShape
	case *Pipe:
		return t.Any
	case *Slot:
		return t.Pipe == nil
	case Basic:
		return t == DTypeKind
	}
	return false
}

// instanceKey is the part of an argument's type an instance depends on:
// its printed type and what the print leaves out (a view's permutation and
// access).
func instanceKey(t Type) string {
	s := fmt.Sprint(t)
	if m, ok := t.(*MemDesc); ok {
		s += fmt.Sprintf("%v/%v/%v", m.Perm, m.ReadOnly, m.FromSlot)
	}
	if tt, ok := t.(*Tile); ok {
		if p, ok := tt.Elem.(*Pointer); ok && p.ReadOnly {
			s += "/ro"
		}
	}
	return s
}

// ---------------------------------------------------------------- rules

// wsNest records that a helper instance runs a warp_specialize (its own,
// or one of a helper it calls): where, and through which calls.
type wsNest struct {
	pos   diag.Pos
	chain []string // the calls from the instance's body to it, outermost first
}

// nestedRoles handles a call of a helper instance that runs a
// warp_specialize: inside a role it is a role in a role, reported at the
// inner warp_specialize with the calls that lead there; otherwise the
// calling helper runs one too.
func (c *checker) nestedRoles(e *ast.CallExpr, inst *Instance) {
	ws := inst.warpSpec
	if ws == nil {
		return
	}
	p := c.df.Position(e.Pos())
	chain := append([]string{fmt.Sprintf("func %s (called at line %d:%d)", inst.Decl.Name.Name, p.Line, p.Col)}, ws.chain...)
	if r := c.b.role; r != nil {
		key := fmt.Sprintf("nested %d %d", ws.pos, e.Pos())
		if c.once(key) {
			d := c.errorAt(ws.pos, "nested warp_specialize: it runs inside role %s (line %d) through a helper call", r.Name.Name, c.line(r.Pos()))
			d.Notes = append(d.Notes, fmt.Sprintf("role %s calls %s", r.Name.Name, strings.Join(chain, ", which calls ")))
		}
		return
	}
	if c.b.inst != nil && c.b.inst.warpSpec == nil {
		c.b.inst.warpSpec = &wsNest{pos: ws.pos, chain: chain}
	}
}

// once reports whether key is seen for the first time (errors that every
// instance of a helper would repeat are reported once).
func (c *checker) once(key string) bool {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[key] {
		return false
	}
	c.seen[key] = true
	return true
}

// funcDeclRules checks what a helper's declaration says, once for all its
// instances: a slot result, and the pipe protocol on its pipe parameters.
func (c *checker) funcDeclRules(fd *ast.FuncDecl) {
	for _, r := range fd.Results {
		if s, ok := r.(*ast.SlotType); ok {
			side := "reader"
			if s.Writer {
				side = "writer"
			}
			c.errorf(r, "func %s cannot return a %s slot: a slot holds a pipe position across calls (acquire and commit, or wait and release, in one body)", fd.Name.Name, side)
		}
	}
	for _, p := range fd.Params {
		if n, ok := p.Type.(*ast.NamedType); !ok || p.Const || n.Name.Name != "pipe" || p.Name.Name == "_" {
			continue
		}
		var cnt pipeCount
		cnt.stmts(fd.Body.Stmts, p.Name.Name)
		if cnt.acquire != cnt.commit {
			c.errorAt(cnt.first(true, fd), "func %s acquires %d slot(s) of pipe %s but commits or closes %d: a helper that holds a pipe position across calls is an error (acquire and commit in one helper)", fd.Name.Name, cnt.acquire, p.Name.Name, cnt.commit)
		}
		if cnt.wait != cnt.release {
			c.errorAt(cnt.first(false, fd), "func %s waits for %d slot(s) of pipe %s but releases %d: a helper that holds a pipe position across calls is an error (wait and release in one helper)", fd.Name.Name, cnt.wait, p.Name.Name, cnt.release)
		}
	}
}

// pipeCount counts the protocol calls on one pipe, syntactically; an
// if/else whose branches count the same counts once.
type pipeCount struct {
	acquire, commit, wait, release int
	acqAt, waitAt                  diag.Pos
	seenAcq, seenWait              bool
}

func (c *pipeCount) first(acq bool, fd *ast.FuncDecl) diag.Pos {
	switch {
	case acq && c.seenAcq:
		return c.acqAt
	case !acq && c.seenWait:
		return c.waitAt
	}
	return fd.Name.Pos()
}

func (c *pipeCount) add(o pipeCount) {
	c.acquire += o.acquire
	c.commit += o.commit
	c.wait += o.wait
	c.release += o.release
	if o.seenAcq && !c.seenAcq {
		c.acqAt, c.seenAcq = o.acqAt, true
	}
	if o.seenWait && !c.seenWait {
		c.waitAt, c.seenWait = o.waitAt, true
	}
}

func (c *pipeCount) stmts(ss []ast.Stmt, pipe string) {
	for _, s := range ss {
		c.node(s, pipe)
	}
}

func (c *pipeCount) node(n ast.Node, pipe string) {
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.IfStmt:
			c.node(x.Cond, pipe)
			var th, el pipeCount
			th.stmts(x.Then.Stmts, pipe)
			if x.Else != nil {
				el.node(x.Else, pipe)
			}
			if x.Else != nil && th.acquire == el.acquire && th.commit == el.commit && th.wait == el.wait && th.release == el.release {
				c.add(th)
			} else {
				c.add(th)
				c.add(el)
			}
			return false
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != pipe {
				return true
			}
			switch sel.Sel.Name {
			case "acquire":
				c.acquire++
				if !c.seenAcq {
					c.acqAt, c.seenAcq = x.Pos(), true
				}
			case "commit", "close":
				c.commit++
			case "wait":
				c.wait++
				if !c.seenWait {
					c.waitAt, c.seenWait = x.Pos(), true
				}
			case "release":
				c.release++
			}
		}
		return true
	})
}

package parser

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// converter builds the ast from participle's concrete tree.
type converter struct {
	file *diag.File
	ec   *errContext
	errs diag.List
}

func at(p lexer.Position) diag.Pos { return diag.Pos(p.Offset) }

func (c *converter) errorf(pos diag.Pos, format string, args ...any) {
	c.errs.Add(c.file, pos, diag.NoPos, format, args...)
}

func (c *converter) decl(d *gDecl) ast.Decl {
	switch {
	case d.Import != nil:
		i := d.Import
		return &ast.ImportDecl{Kw: at(i.Pos), Path: &ast.BasicLit{ValuePos: at(i.Path.Pos), Kind: ast.String, Value: i.Path.Value}}
	case d.Kernel != nil:
		k := d.Kernel
		return &ast.KernelDecl{Kw: at(k.Pos), Name: c.ident(k.Name), Params: c.params(k.Params), Body: c.block(k.Body)}
	case d.Func != nil:
		f := d.Func
		fd := &ast.FuncDecl{Kw: at(f.Pos), Name: c.ident(f.Name), Params: c.params(f.Params), Body: c.block(f.Body)}
		for _, r := range f.Results {
			fd.Results = append(fd.Results, c.typ(r))
		}
		return fd
	case d.Tune != nil:
		return c.tune(d.Tune)
	default:
		return c.constDecl(d.Const)
	}
}

// tune converts a tune block. Each item's word decides its shape: key,
// grid and space take a list, config a call NAME(...), default a name or
// a list, where an expression. An item of the wrong shape is an error at
// its word.
func (c *converter) tune(t *gTune) *ast.TuneDecl {
	d := &ast.TuneDecl{Kw: at(t.Pos), Name: c.ident(t.Name), Rbrace: at(t.Rbrace.Pos)}
	for _, g := range t.Items {
		it := &ast.TuneItem{Kw: at(g.Pos), Kind: g.Kind, Lparen: diag.NoPos, Rparen: diag.NoPos}
		var x ast.Expr
		if g.Cond != nil {
			x = c.expr(g.Cond)
		}
		list := func() bool {
			switch {
			case g.Call != nil:
				it.Lparen, it.Args, it.Rparen = at(g.Call.Pos), c.args(g.Call.Args), at(g.Call.Rparen.Pos)
			case x != nil:
				p, ok := x.(*ast.ParenExpr) // key(M) reads as a parenthesised name
				if !ok {
					return false
				}
				it.Lparen, it.Args, it.Rparen = p.Lparen, []*ast.Arg{{Value: p.X}}, p.Rparen
			}
			return true
		}
		ok := true
		switch g.Kind {
		case "where":
			it.Cond, ok = x, x != nil
		case "config":
			call, isCall := x.(*ast.CallExpr)
			if ok = isCall; ok {
				name, isName := call.Fun.(*ast.Ident)
				ok = isName
				it.Name, it.Lparen, it.Args, it.Rparen = name, call.Lparen, call.Args, call.Rparen
			}
		case "default":
			if id, isName := x.(*ast.Ident); isName {
				it.Name = id
			} else {
				ok = list()
			}
		default:
			ok = list()
		}
		if !ok {
			c.errorf(it.Kw, "%s", tuneShapes[g.Kind])
			continue
		}
		d.Items = append(d.Items, it)
	}
	return d
}

// tuneShapes says what each item of a tune block takes.
var tuneShapes = map[string]string{
	"key":     "key takes a list of runtime arguments: key(M: pow2, N)",
	"grid":    "grid takes one to three expressions: grid(cdiv(M, BM), cdiv(N, BN))",
	"config":  "config takes a name and its bindings: config NAME(BM: 128, warps: 8)",
	"space":   "space takes lists of values: space(BM: [64, 128], S: [2, 3])",
	"where":   "where takes a condition: where S * BM <= 512",
	"default": "default takes a config's name or bindings: default NAME or default(BM: 128)",
}

func (c *converter) constDecl(k *gConst) *ast.ConstDecl {
	return &ast.ConstDecl{Kw: at(k.Pos), Name: c.ident(k.Name), Value: c.expr(k.Value)}
}

func (c *converter) ident(i *gIdent) *ast.Ident {
	return &ast.Ident{NamePos: at(i.Pos), Name: i.Name}
}

func (c *converter) params(ps []*gParam) []*ast.Param {
	var out []*ast.Param
	for _, p := range ps {
		out = append(out, &ast.Param{Name: c.ident(p.Name), Const: p.Const, Type: c.typ(p.Type)})
	}
	return out
}

func (c *converter) typ(t *gType) ast.TypeExpr {
	switch {
	case t.Pointer != nil:
		return &ast.PointerType{Star: at(t.Pos), Elem: c.typ(t.Pointer)}
	case t.Desc != nil:
		d := &ast.DescType{Kw: at(t.Desc.Pos), Elem: c.ident(t.Desc.Elem), Rbrack: at(t.Desc.EndPos) - 1}
		for _, e := range t.Desc.Block {
			d.Block = append(d.Block, c.expr(e))
		}
		return d
	case t.Tile != nil:
		tt := &ast.TileType{Lbrack: at(t.Tile.Pos), Elem: c.ident(t.Tile.Elem)}
		for _, e := range t.Tile.Dims {
			tt.Dims = append(tt.Dims, c.expr(e))
		}
		return tt
	case t.Mem != nil:
		m := &ast.MemDescType{Remote: diag.NoPos, Kw: at(t.Mem.Kw.Pos), Lbrack: diag.NoPos, Elem: c.ident(t.Mem.Elem)}
		if t.Mem.Remote != nil {
			m.Remote = at(t.Mem.Remote.Pos)
		}
		if t.Mem.Dims != nil {
			m.Lbrack = at(t.Mem.Dims.Pos)
			for _, e := range t.Mem.Dims.Dims {
				m.Dims = append(m.Dims, c.expr(e))
			}
		}
		return m
	case t.Slot != nil:
		return &ast.SlotType{Kw: at(t.Slot.Pos), Writer: t.Slot.Side == "writer", SlotKw: at(t.Slot.Slot.Pos)}
	case t.Bars != nil:
		return &ast.BarrierType{Kw: at(t.Bars.Pos), N: c.expr(t.Bars.N), Rbrack: at(t.Bars.Rbrack.Pos)}
	default:
		return &ast.NamedType{Name: c.ident(t.Name)}
	}
}

func (c *converter) block(b *gBlock) *ast.BlockStmt {
	bs := &ast.BlockStmt{Lbrace: at(b.Pos), Rbrace: at(b.Rbrace.Pos)}
	for _, s := range b.Stmts {
		st := c.stmt(s)
		if n := len(bs.Stmts); n > 0 {
			c.separated(bs.Stmts[n-1], st)
		}
		bs.Stmts = append(bs.Stmts, st)
	}
	return bs
}

// separated reports two statements written on one line with nothing between
// them: the grammar lets ";" be optional so that a block may end without one,
// and this restores Go's rule that statements are separated.
func (c *converter) separated(prev, next ast.Stmt) {
	if c.hasBreak(prev.End(), next.Pos()) {
		return
	}
	c.errorf(next.Pos(), "syntax error: unexpected %s at end of statement", c.tokenAt(next.Pos()))
}

// separatedDecl is separated for top-level declarations.
func (c *converter) separatedDecl(prev, next ast.Decl) {
	if c.hasBreak(prev.End(), next.Pos()) {
		return
	}
	c.errorf(next.Pos(), "syntax error: unexpected %s after top level declaration", c.tokenAt(next.Pos()))
}

// hasBreak reports whether src[from:to] holds a ";" or a line end.
func (c *converter) hasBreak(from, to diag.Pos) bool {
	if from < 0 || to > diag.Pos(len(c.file.Src)) || from > to {
		return true
	}
	for _, ch := range c.file.Src[from:to] {
		if ch == ';' || ch == '\n' {
			return true
		}
	}
	return false
}

// tokenAt describes the token that starts at offset p.
func (c *converter) tokenAt(p diag.Pos) string {
	if c.ec != nil {
		if i := c.ec.index(int(p)); i < len(c.ec.toks) {
			return c.ec.describe(c.ec.toks[i])
		}
	}
	return "token"
}

func (c *converter) stmt(s *gStmt) ast.Stmt {
	switch {
	case s.Return != nil:
		r := &ast.ReturnStmt{Kw: at(s.Return.Pos)}
		for _, e := range s.Return.Results {
			r.Results = append(r.Results, c.expr(e))
		}
		return r
	case s.Branch != nil:
		return &ast.BranchStmt{Kw: at(s.Branch.Pos), Tok: s.Branch.Tok}
	case s.If != nil:
		return c.ifStmt(s.If)
	case s.For != nil:
		f := s.For
		fs := &ast.ForStmt{Kw: at(f.Pos)}
		if f.Range != nil {
			fs.Var = c.ident(f.Range.Var)
			switch rc := f.Range.Call; {
			case rc == nil:
				fs.Range = c.expr(f.Range.N)
			case len(rc.Call.Args) == 1 && rc.Call.Args[0].Name == nil:
				// range (n): a parenthesised bound, as before
				fs.Range = &ast.ParenExpr{Lparen: at(rc.Pos), X: c.expr(rc.Call.Args[0].Value), Rparen: at(rc.Call.Rparen.Pos)}
			default:
				fs.RangeCall = &ast.CallExpr{Fun: &ast.Ident{NamePos: at(rc.Pos) - 5, Name: "range"}, Lparen: at(rc.Pos), Args: c.args(rc.Call.Args), Rparen: at(rc.Call.Rparen.Pos)}
			}
		} else if f.Three != nil {
			fs.Init = c.simpleAssign(f.Three.Init, "loop initialiser")
			fs.Cond = c.expr(f.Three.Cond)
			fs.Post = c.simpleAssign(f.Three.Post, "loop post statement")
		} else {
			fs.Cond = c.expr(f.Cond) // for cond { }: a while loop
		}
		fs.Body = c.block(f.Body)
		return fs
	case s.Warp != nil:
		w := &ast.WarpSpecializeStmt{Kw: at(s.Warp.Pos), Rbrace: at(s.Warp.Rbrace.Pos)}
		for _, r := range s.Warp.Roles {
			w.Roles = append(w.Roles, &ast.Role{Kw: at(r.Pos), Name: c.ident(r.Name), Args: c.args(r.Args), Body: c.block(r.Body)})
		}
		return w
	case s.Const != nil:
		return c.constDecl(s.Const)
	case s.Block != nil:
		return c.block(s.Block)
	default:
		return c.simple(s.Simple)
	}
}

func (c *converter) ifStmt(g *gIf) *ast.IfStmt {
	s := &ast.IfStmt{Kw: at(g.Pos), Cond: c.expr(g.Cond), Then: c.block(g.Then)}
	if g.ElseIf != nil {
		s.Else = c.ifStmt(g.ElseIf)
	} else if g.Else != nil {
		s.Else = c.block(g.Else)
	}
	return s
}

func (c *converter) simple(g *gSimple) ast.Stmt {
	var lhs []ast.Expr
	for _, e := range g.LHS {
		lhs = append(lhs, c.expr(e))
	}
	if g.Op == nil {
		if len(lhs) > 1 {
			c.errorf(lhs[1].Pos(), "syntax error: expected := or = after a list of expressions")
		}
		return &ast.ExprStmt{X: lhs[0]}
	}
	a := &ast.AssignStmt{LHS: lhs, TokAt: at(g.Op.Pos), Tok: g.Op.Op}
	for _, e := range g.RHS {
		a.RHS = append(a.RHS, c.expr(e))
	}
	return a
}

func (c *converter) simpleAssign(g *gSimple, what string) *ast.AssignStmt {
	s := c.simple(g)
	if a, ok := s.(*ast.AssignStmt); ok {
		return a
	}
	c.errorf(s.Pos(), "syntax error: the %s must be an assignment", what)
	x := s.(*ast.ExprStmt).X
	return &ast.AssignStmt{LHS: []ast.Expr{x}, TokAt: x.Pos(), Tok: "=", RHS: []ast.Expr{x}}
}

func (c *converter) args(as []*gArg) []*ast.Arg {
	var out []*ast.Arg
	for _, a := range as {
		arg := &ast.Arg{Value: c.expr(a.Value)}
		if a.Name != nil {
			arg.Name = c.ident(a.Name)
		}
		out = append(out, arg)
	}
	return out
}

// expr turns a flat operator chain into a tree by precedence climbing; all
// binary operators are left-associative.
func (c *converter) expr(e *gExpr) ast.Expr {
	operands := []ast.Expr{c.unary(e.First)}
	for _, r := range e.Rest {
		operands = append(operands, c.unary(r.Y))
	}
	pos := 0
	return climbFrom(operands, e.Rest, &pos, 1)
}

// climbFrom parses operands[*pos] followed by operators of precedence at least
// minPrec.
func climbFrom(operands []ast.Expr, ops []*gBinaryOp, pos *int, minPrec int) ast.Expr {
	x := operands[*pos]
	for *pos < len(ops) {
		op := ops[*pos]
		prec := ast.Precedence(op.Op)
		if prec < minPrec {
			break
		}
		*pos++
		y := climbFrom(operands, ops, pos, prec+1)
		x = &ast.BinaryExpr{X: x, OpPos: at(op.Pos), Op: op.Op, Y: y}
	}
	return x
}

func (c *converter) unary(u *gUnary) ast.Expr {
	if u.Postfix == nil {
		return &ast.UnaryExpr{OpPos: at(u.Pos), Op: u.Op, X: c.unary(u.X)}
	}
	x := c.primary(u.Postfix.X)
	for _, s := range u.Postfix.Ops {
		switch {
		case s.Call != nil:
			x = &ast.CallExpr{Fun: x, Lparen: at(s.Pos), Args: c.args(s.Call.Args), Rparen: at(s.Call.Rparen.Pos)}
		case s.Index != nil:
			ix := &ast.IndexExpr{X: x, Lbrack: at(s.Pos), Rbrack: at(s.Index.Rbrack.Pos)}
			for k, el := range s.Index.Elems {
				if k > 0 && k == len(s.Index.Elems)-1 && el.Lo == nil && el.Colon == nil {
					break // x[a, b,]: a trailing comma, which the grammar reads as an empty element
				}
				ix.Indices = append(ix.Indices, c.indexElem(el))
			}
			x = ix
		default:
			x = &ast.SelectorExpr{X: x, Sel: c.ident(s.Select)}
		}
	}
	return x
}

func (c *converter) indexElem(el *gIndexElem) ast.Expr {
	if el.Colon == nil {
		if el.Lo == nil {
			c.errorf(at(el.Pos), "syntax error: empty index")
			return &ast.Ident{NamePos: at(el.Pos), Name: "None"}
		}
		return c.expr(el.Lo)
	}
	s := &ast.SliceExpr{Colon: at(el.Colon.Pos)}
	if el.Lo != nil {
		s.Lo = c.expr(el.Lo)
	}
	if el.Hi != nil {
		s.Hi = c.expr(el.Hi)
	}
	return s
}

func (c *converter) primary(p *gPrimary) ast.Expr {
	switch {
	case p.Float != nil:
		return &ast.BasicLit{ValuePos: at(p.Pos), Kind: ast.Float, Value: *p.Float}
	case p.Int != nil:
		return &ast.BasicLit{ValuePos: at(p.Pos), Kind: ast.Int, Value: *p.Int}
	case p.String != nil:
		return &ast.BasicLit{ValuePos: at(p.Pos), Kind: ast.String, Value: *p.String}
	case p.Ident != nil:
		return c.ident(p.Ident)
	case p.Paren != nil:
		return &ast.ParenExpr{Lparen: at(p.Pos), X: c.expr(p.Paren.X), Rparen: at(p.Paren.Rparen.Pos)}
	default:
		l := &ast.ListExpr{Lbrack: at(p.Pos), Rbrack: at(p.List.Rbrack.Pos)}
		for _, e := range p.List.Elems {
			l.Elems = append(l.Elems, c.expr(e))
		}
		if p.List.Elem != nil {
			l.Elem = c.ident(p.List.Elem)
		}
		return l
	}
}

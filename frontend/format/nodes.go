package format

import (
	"bytes"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// ---------------------------------------------------------------- declarations

func (p *printer) file(f *ast.File) {
	for i, d := range f.Decls {
		if i > 0 {
			_, c1 := f.Decls[i-1].(*ast.ConstDecl)
			_, c2 := d.(*ast.ConstDecl)
			_, i1 := f.Decls[i-1].(*ast.ImportDecl)
			_, i2 := d.(*ast.ImportDecl)
			if c1 && c2 || i1 && i2 {
				p.setBreak(1, 2)
			} else {
				p.setBreak(2, 2)
			}
		}
		p.decl(d)
	}
}

func (p *printer) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.KernelDecl:
		p.token(d.Kw, "kernel")
		p.space = true
		p.ident(d.Name)
		p.params(end(d.Name), d.Params)
		p.space = true
		p.body(d.Body, true)
	case *ast.FuncDecl:
		p.token(d.Kw, "func")
		p.space = true
		p.ident(d.Name)
		rparen := p.params(end(d.Name), d.Params)
		lparen := p.find(rparen, "(")
		switch {
		case len(d.Results) == 0:
		case len(d.Results) == 1 && !lparen.IsValid():
			p.space = true
			p.typ(d.Results[0])
		default: // parentheses around one result are kept as written
			p.space = true
			p.token(lparen, "(")
			for i, r := range d.Results {
				if i > 0 {
					p.token(p.find(end(d.Results[i-1]), ","), ",")
					p.space = true
				}
				p.typ(r)
			}
			p.token(p.find(end(d.Results[len(d.Results)-1]), ")"), ")")
		}
		p.space = true
		p.body(d.Body, true)
	case *ast.ConstDecl:
		p.constDecl(d)
	case *ast.TuneDecl:
		p.tuneDecl(d)
	case *ast.ImportDecl:
		p.token(d.Kw, "import")
		p.space = true
		p.expr(d.Path)
	}
}

func (p *printer) constDecl(d *ast.ConstDecl) {
	p.token(d.Kw, "const")
	p.space = true
	p.ident(d.Name)
	p.space = true
	p.token(p.find(end(d.Name), "="), "=")
	p.space = true
	p.expr(d.Value)
}

// params prints `(p1, p2)` after the name ending at from and returns the
// offset after the ")".
func (p *printer) params(from diag.Pos, ps []*ast.Param) diag.Pos {
	lparen := p.find(from, "(")
	p.token(lparen, "(")
	after := lparen + 1
	if !lparen.IsValid() {
		after = diag.NoPos
	}
	n := len(ps)
	for i, prm := range ps {
		if prm == nil {
			continue
		}
		if i > 0 {
			p.space = true
		}
		p.ident(prm.Name)
		if prm.Const {
			p.space = true
			p.token(p.find(end(prm.Name), "const"), "const")
		}
		p.space = true
		p.typ(prm.Type)
		after = p.comma(end(prm), i == n-1)
	}
	rparen := p.find(after, ")")
	p.token(rparen, ")")
	if rparen.IsValid() {
		return rparen + 1
	}
	return diag.NoPos
}

// comma prints the "," after a list element that ends at elemEnd and returns
// the offset after it in the source. After the last element a comma is
// printed only when a comment that ends a line follows, so that the line end
// does not end the statement.
func (p *printer) comma(elemEnd diag.Pos, last bool) diag.Pos {
	at := p.find(elemEnd, ",")
	next := elemEnd
	if at.IsValid() {
		next = at + 1
	}
	if !last {
		p.token(at, ",")
		return next
	}
	if at.IsValid() && p.lineCommentAfter(at) {
		p.token(at, ",")
	}
	return next
}

// lineCommentAfter reports whether the comments that follow offset at (a
// comma) before the next token will end the line: a // comment, a block
// comment holding a line end, or a comment on a line of its own.
func (p *printer) lineCommentAfter(at diag.Pos) bool {
	prevEnd := at + 1
	for _, c := range p.comments[p.ci:] {
		if c.Start < at {
			continue
		}
		if !p.onlySpace(prevEnd, c.Start) {
			return false
		}
		if strings.HasPrefix(c.Text, "//") || strings.Contains(c.Text, "\n") ||
			bytes.IndexByte(p.src[prevEnd:c.Start], '\n') >= 0 {
			return true
		}
		prevEnd = c.End()
	}
	return false
}

func (p *printer) onlySpace(from, to diag.Pos) bool {
	if !p.validPos(from) || !p.validPos(to) || from > to {
		return false
	}
	return len(bytes.TrimSpace(p.src[from:to])) == 0
}

// ------------------------------------------------------------------ types

func (p *printer) typ(t ast.TypeExpr) {
	switch t := t.(type) {
	case *ast.NamedType:
		p.ident(t.Name)
	case *ast.PointerType:
		p.token(t.Star, "*")
		p.typ(t.Elem)
	case *ast.TileType:
		p.token(t.Lbrack, "[")
		after := p.exprList(t.Lbrack+1, t.Dims, 1)
		p.token(p.find(after, "]"), "]")
		p.ident(t.Elem)
	case *ast.DescType:
		p.token(t.Kw, "desc")
		p.token(p.find(t.Kw+4, "["), "[")
		p.ident(t.Elem)
		after := end(t.Elem)
		if len(t.Block) > 0 {
			after = p.comma(after, false)
			p.space = true
			after = p.exprList(after, t.Block, 1)
		} else {
			after = p.comma(after, true)
		}
		_ = after
		p.token(t.Rbrack, "]")
	case *ast.MemDescType:
		if t.Remote != diag.NoPos {
			p.token(t.Remote, "remote")
			p.space = true
		}
		p.token(t.Kw, "memdesc")
		if t.Dims != nil {
			p.token(t.Lbrack, "[")
			after := p.exprList(t.Lbrack+1, t.Dims, 1)
			p.token(p.find(after, "]"), "]")
		} else {
			p.space = true
		}
		p.ident(t.Elem)
	case *ast.SlotType:
		if t.Writer {
			p.token(t.Kw, "writer")
		} else {
			p.token(t.Kw, "reader")
		}
		p.space = true
		p.token(t.SlotKw, "slot")
	case *ast.BarrierType:
		p.token(t.Kw, "barrier")
		p.token(p.find(t.Kw+7, "["), "[")
		p.expr(t.N)
		p.token(t.Rbrack, "]")
	}
}

// exprList prints comma-separated expressions, each at the given depth, and
// returns the source offset after the list (and its trailing comma).
func (p *printer) exprList(from diag.Pos, xs []ast.Expr, depth int) diag.Pos {
	after := from
	for i, x := range xs {
		if i > 0 {
			p.space = true
		}
		p.expr1(x, lowestPrec, depth)
		after = p.comma(end(x), i == len(xs)-1)
	}
	return after
}

// ------------------------------------------------------------------ statements

// body prints a kernel, func or role body: on one line when the source had
// it on one line and it is short and simple, else expanded.
func (p *printer) body(b *ast.BlockStmt, oneLineOK bool) {
	if b == nil {
		return
	}
	if oneLineOK && p.oneLineCandidate(b) {
		s := p.save()
		p.token(b.Lbrace, "{")
		for i, st := range b.Stmts {
			if i > 0 {
				p.token(diag.NoPos, ";")
			}
			p.space = true
			p.stmt(st)
		}
		p.space = true
		p.token(b.Rbrace, "}")
		if p.lineWidth() <= maxOneLine {
			return
		}
		p.restore(s)
	}
	p.block(b, true)
}

func (p *printer) oneLineCandidate(b *ast.BlockStmt) bool {
	if len(b.Stmts) == 0 || len(b.Stmts) > maxOneLineLen {
		return false
	}
	if !p.validPos(b.Lbrace) || !p.validPos(b.Rbrace) || b.Lbrace > b.Rbrace {
		return false
	}
	if bytes.IndexByte(p.src[b.Lbrace:b.Rbrace], '\n') >= 0 {
		return false
	}
	for _, c := range p.comments[p.ci:] {
		if c.Start > b.Lbrace && c.Start < b.Rbrace {
			return false
		}
	}
	for _, s := range b.Stmts {
		switch s.(type) {
		case *ast.AssignStmt, *ast.ExprStmt, *ast.ReturnStmt, *ast.ConstDecl:
		default:
			return false
		}
	}
	return true
}

func (p *printer) hasCommentsIn(from, to diag.Pos) bool {
	for _, c := range p.comments[p.ci:] {
		if c.Start >= to {
			return false
		}
		if c.Start > from {
			return true
		}
	}
	return false
}

// block prints `{`, the statements one per line, and `}`. An empty body
// prints as `{}`; an empty statement block, as gofmt does, on two lines.
func (p *printer) block(b *ast.BlockStmt, isBody bool) {
	p.token(b.Lbrace, "{")
	if isBody && len(b.Stmts) == 0 && !p.hasCommentsIn(b.Lbrace, b.Rbrace) {
		p.token(b.Rbrace, "}")
		return
	}
	p.lines(len(b.Stmts), func(i int) { p.stmt(b.Stmts[i]) }, b.Rbrace)
}

// lines prints the n items of a block or a warp_specialize after its `{`:
// item(i) prints one, each on a line of its own one level in, and the
// closing `}` at rbrace follows on a line of its own.
func (p *printer) lines(n int, item func(i int), rbrace diag.Pos) {
	p.indent++
	p.setBreak(1, 1)
	for i := 0; i < n; i++ {
		if i > 0 {
			p.setBreak(1, 2)
		}
		item(i)
	}
	if n > 0 {
		p.setBreak(1, 2)
	}
	if p.validPos(rbrace) {
		p.flush(rbrace)
	}
	p.indent--
	p.setBreak(1, 1)
	p.token(rbrace, "}")
}

func (p *printer) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		after := p.exprList(diag.NoPos, s.LHS, 1)
		_ = after
		p.space = true
		p.token(s.TokAt, s.Tok)
		p.space = true
		p.exprList(diag.NoPos, s.RHS, 1)
	case *ast.ExprStmt:
		p.expr(s.X)
	case *ast.BranchStmt:
		p.token(s.Kw, s.Tok)
	case *ast.ReturnStmt:
		p.token(s.Kw, "return")
		if len(s.Results) > 0 {
			p.space = true
			p.exprList(diag.NoPos, s.Results, 1)
		}
	case *ast.IfStmt:
		p.ifStmt(s)
	case *ast.ForStmt:
		p.token(s.Kw, "for")
		p.space = true
		if s.Var != nil {
			p.ident(s.Var)
			p.space = true
			def := p.find(end(s.Var), ":=")
			p.token(def, ":=")
			p.space = true
			rng := diag.NoPos
			if def.IsValid() {
				rng = p.find(def+2, "range")
			}
			p.token(rng, "range")
			if c := s.RangeCall; c != nil {
				// range(start, end, num_stages: n)
				p.token(c.Lparen, "(")
				p.args(c.Lparen+1, c.Args)
				p.token(c.Rparen, ")")
			} else {
				p.space = true
				p.expr(s.Range)
			}
		} else if s.Init == nil && s.Post == nil {
			p.expr(s.Cond) // for cond { }
		} else {
			p.stmt(s.Init)
			p.token(p.find(end(s.Init), ";"), ";")
			p.space = true
			p.expr(s.Cond)
			p.token(p.find(end(s.Cond), ";"), ";")
			p.space = true
			p.stmt(s.Post)
		}
		p.space = true
		p.block(s.Body, false)
	case *ast.WarpSpecializeStmt:
		p.token(s.Kw, "warp_specialize")
		p.space = true
		p.token(p.find(s.Kw+diag.Pos(len("warp_specialize")), "{"), "{")
		if len(s.Roles) == 0 && !p.hasCommentsIn(s.Kw, s.Rbrace) {
			p.token(s.Rbrace, "}")
			return
		}
		p.lines(len(s.Roles), func(i int) { p.role(s.Roles[i]) }, s.Rbrace)
	case *ast.ConstDecl:
		p.constDecl(s)
	case *ast.BlockStmt:
		p.block(s, false)
	}
}

func (p *printer) ifStmt(s *ast.IfStmt) {
	p.token(s.Kw, "if")
	p.space = true
	p.expr(s.Cond)
	p.space = true
	p.block(s.Then, false)
	if s.Else == nil {
		return
	}
	p.space = true
	p.token(p.find(end(s.Then), "else"), "else")
	p.space = true
	switch e := s.Else.(type) {
	case *ast.IfStmt:
		p.ifStmt(e)
	case *ast.BlockStmt:
		p.block(e, false)
	}
}

func (p *printer) role(r *ast.Role) {
	p.token(r.Kw, "role")
	p.space = true
	p.ident(r.Name)
	lparen := p.find(end(r.Name), "(")
	p.token(lparen, "(")
	after := lparen + 1
	if !lparen.IsValid() {
		after = diag.NoPos
	}
	after = p.args(after, r.Args)
	p.token(p.find(after, ")"), ")")
	p.space = true
	p.body(r.Body, true)
}

// ------------------------------------------------------------------ expressions

// Go's binary precedences, and the levels go/printer uses around them.
const (
	lowestPrec  = 0
	unaryPrec   = 6
	highestPrec = 7
)

func (p *printer) ident(x *ast.Ident) {
	if x != nil {
		p.token(x.NamePos, x.Name)
	}
}

// expr prints a top-level expression: a statement's, an argument, a list
// element, a keyword value.
func (p *printer) expr(x ast.Expr) { p.expr1(x, lowestPrec, 1) }

// args prints call or role arguments and returns the offset after them.
func (p *printer) args(from diag.Pos, as []*ast.Arg) diag.Pos {
	after := from
	for i, a := range as {
		if a == nil {
			continue
		}
		if i > 0 {
			p.space = true
		}
		if a.Name != nil {
			p.ident(a.Name)
			p.token(p.find(end(a.Name), ":"), ":")
			p.space = true
		}
		p.expr(a.Value)
		after = p.comma(end(a), i == len(as)-1)
	}
	return after
}

// expr1 is go/printer's expr1: prec1 is the precedence of the context, depth
// steers the spacing of binary operators.
func (p *printer) expr1(x ast.Expr, prec1, depth int) {
	switch x := x.(type) {
	case *ast.Ident:
		p.ident(x)
	case *ast.BasicLit:
		p.token(x.ValuePos, x.Value)
		p.lastNum = x.Kind != ast.String
	case *ast.UnaryExpr:
		if unaryPrec < prec1 {
			p.token(diag.NoPos, "(")
			p.expr1(x, lowestPrec, depth)
			p.token(diag.NoPos, ")")
			return
		}
		p.token(x.OpPos, x.Op)
		p.expr1(x.X, unaryPrec, depth)
	case *ast.BinaryExpr:
		p.binaryExpr(x, prec1, p.cutoff(x, depth), depth)
	case *ast.ParenExpr:
		p.token(x.Lparen, "(")
		p.expr1(x.X, lowestPrec, reduceDepth(depth))
		p.token(x.Rparen, ")")
	case *ast.CallExpr:
		p.expr1(x.Fun, highestPrec, depth)
		p.token(x.Lparen, "(")
		after := p.args(x.Lparen+1, x.Args)
		_ = after
		p.token(x.Rparen, ")")
	case *ast.IndexExpr:
		p.expr1(x.X, highestPrec, 1)
		p.token(x.Lbrack, "[")
		for i, ix := range x.Indices {
			if i > 0 {
				p.space = true
			}
			if s, ok := ix.(*ast.SliceExpr); ok {
				p.slice(s, depth)
			} else {
				p.expr1(ix, lowestPrec, depth+1)
			}
			p.comma(end(ix), i == len(x.Indices)-1)
		}
		p.token(x.Rbrack, "]")
	case *ast.SliceExpr:
		p.slice(x, depth)
	case *ast.SelectorExpr:
		p.expr1(x.X, highestPrec, depth)
		if x.Sel != nil {
			p.token(p.find(end(x.X), "."), ".")
			p.ident(x.Sel)
		}
	case *ast.ListExpr:
		p.token(x.Lbrack, "[")
		p.exprList(x.Lbrack+1, x.Elems, 1)
		p.token(x.Rbrack, "]")
		p.ident(x.Elem)
	}
}

// slice prints lo:hi inside an index; like gofmt, the colon gets blanks when
// both bounds are present and one is a binary expression.
func (p *printer) slice(s *ast.SliceExpr, depth int) {
	blanks := depth <= 1 && s.Lo != nil && s.Hi != nil && (isBinary(s.Lo) || isBinary(s.Hi))
	if s.Lo != nil {
		p.expr1(s.Lo, lowestPrec, depth+1)
		p.space = blanks
	}
	p.token(s.Colon, ":")
	if s.Hi != nil {
		p.space = blanks
		p.expr1(s.Hi, lowestPrec, depth+1)
	}
}

func isBinary(x ast.Expr) bool {
	_, ok := x.(*ast.BinaryExpr)
	return ok
}

func reduceDepth(depth int) int {
	if depth--; depth < 1 {
		depth = 1
	}
	return depth
}

func diffPrec(x ast.Expr, prec int) int {
	b, ok := x.(*ast.BinaryExpr)
	if !ok || prec != ast.Precedence(b.Op) {
		return 1
	}
	return 0
}

// binaryExpr is go/printer's: an operator gets blanks around it when its
// precedence is below cutoff.
func (p *printer) binaryExpr(x *ast.BinaryExpr, prec1, cutoff, depth int) {
	prec := ast.Precedence(x.Op)
	if prec < prec1 {
		// only for trees not built by the parser, which keeps parentheses
		p.token(diag.NoPos, "(")
		p.expr1(x, lowestPrec, reduceDepth(depth))
		p.token(diag.NoPos, ")")
		return
	}
	printBlank := prec < cutoff
	p.expr1(x.X, prec, depth+diffPrec(x.X, prec))
	p.space = printBlank
	p.token(x.OpPos, x.Op)
	p.space = printBlank
	p.expr1(x.Y, prec+1, depth+1)
}

type binInfo struct {
	has4, has5 bool
	maxProblem int
}

// cutoff is go/printer's: the precedence below which operators are spaced.
func (p *printer) cutoff(e *ast.BinaryExpr, depth int) int {
	b := p.walkBinary(e)
	if b.maxProblem > 0 {
		return b.maxProblem + 1
	}
	if b.has4 && b.has5 {
		if depth == 1 {
			return 5
		}
		return 4
	}
	if depth == 1 {
		return 6
	}
	return 4
}

func (p *printer) walkBinary(e *ast.BinaryExpr) binInfo {
	if b, ok := p.binMemo[e]; ok {
		return b
	}
	var b binInfo
	prec := ast.Precedence(e.Op)
	switch prec {
	case 4:
		b.has4 = true
	case 5:
		b.has5 = true
	}
	if l, ok := e.X.(*ast.BinaryExpr); ok && ast.Precedence(l.Op) >= prec {
		lb := p.walkBinary(l)
		b.has4 = b.has4 || lb.has4
		b.has5 = b.has5 || lb.has5
		b.maxProblem = max(b.maxProblem, lb.maxProblem)
	}
	switch r := e.Y.(type) {
	case *ast.BinaryExpr:
		if ast.Precedence(r.Op) > prec {
			rb := p.walkBinary(r)
			b.has4 = b.has4 || rb.has4
			b.has5 = b.has5 || rb.has5
			b.maxProblem = max(b.maxProblem, rb.maxProblem)
		}
	case *ast.UnaryExpr:
		switch e.Op + r.Op {
		case "&^", "&&":
			b.maxProblem = 5
		case "++", "--":
			b.maxProblem = max(b.maxProblem, 4)
		}
	}
	p.binMemo[e] = b
	return b
}

// end is n.End() for a node that may be nil.
func end(n ast.Node) diag.Pos {
	if n == nil {
		return diag.NoPos
	}
	return n.End()
}

// Package ast is the syntax tree of .tle source. Every node carries byte-offset
// positions into its diag.File. The tree is built once by package parser and is
// never mutated afterwards: the checker records what it learns in side tables.
package ast

import "github.com/tlego/tle/diag"

// Node is any syntax tree node: it spans [Pos, End) in its file.
type Node interface {
	Pos() diag.Pos
	End() diag.Pos
}

// File is one parsed .tle source file.
type File struct {
	File     *diag.File
	Decls    []Decl
	Comments []*Comment // every comment, in source order
}

// Comment is a // line comment or a /* block */ comment, text included.
type Comment struct {
	Start diag.Pos
	Text  string
}

func (c *Comment) Pos() diag.Pos { return c.Start }
func (c *Comment) End() diag.Pos { return c.Start + diag.Pos(len(c.Text)) }

// ---------------------------------------------------------------- declarations

// Decl is a top-level declaration: *ImportDecl, *KernelDecl, *FuncDecl,
// *ConstDecl or *TuneDecl.
type Decl interface {
	Node
	declNode()
}

// KernelDecl is `kernel name(params) { body }`.
type KernelDecl struct {
	Kw     diag.Pos
	Name   *Ident
	Params []*Param
	Body   *BlockStmt
}

// FuncDecl is `func name(params) results { body }`; helpers are inlined.
type FuncDecl struct {
	Kw      diag.Pos
	Name    *Ident
	Params  []*Param
	Results []TypeExpr // nil when the function returns nothing
	Body    *BlockStmt
}

// ConstDecl is `const NAME = expr`, at top level or inside a body.
type ConstDecl struct {
	Kw    diag.Pos
	Name  *Ident
	Value Expr
}

// ImportDecl is `import "path"`: the funcs and consts of another .tle file,
// its path relative to the importing file's folder. Imports come first.
type ImportDecl struct {
	Kw   diag.Pos
	Path *BasicLit // a String literal, quotes included
}

// Param is `name T` or `name const T`.
type Param struct {
	Name  *Ident
	Const bool
	Type  TypeExpr
}

func (d *KernelDecl) Pos() diag.Pos { return d.Kw }
func (d *KernelDecl) End() diag.Pos { return d.Body.End() }
func (d *FuncDecl) Pos() diag.Pos   { return d.Kw }
func (d *FuncDecl) End() diag.Pos   { return d.Body.End() }
func (d *ConstDecl) Pos() diag.Pos  { return d.Kw }
func (d *ImportDecl) Pos() diag.Pos { return d.Kw }
func (d *ImportDecl) End() diag.Pos { return d.Path.End() }
func (d *ConstDecl) End() diag.Pos  { return d.Value.End() }
func (p *Param) Pos() diag.Pos      { return p.Name.Pos() }
func (p *Param) End() diag.Pos      { return p.Type.End() }

func (*KernelDecl) declNode() {}
func (*FuncDecl) declNode()   {}
func (*ConstDecl) declNode()  {}
func (*ImportDecl) declNode() {}

// ----------------------------------------------------------------------- types

// TypeExpr is a written type: *NamedType, *PointerType, *TileType,
// *DescType, *MemDescType, *SlotType or *BarrierType. The words pipe, mesh,
// barrier (one mbarrier) and dtype are NamedTypes the checker resolves.
type TypeExpr interface {
	Node
	typeNode()
}

// NamedType is a scalar type name such as f32 or i32.
type NamedType struct{ Name *Ident }

// PointerType is `*T`.
type PointerType struct {
	Star diag.Pos
	Elem TypeExpr
}

// TileType is `[D0, D1, ...]T`.
type TileType struct {
	Lbrack diag.Pos
	Dims   []Expr
	Elem   *Ident
}

// DescType is `desc[T, D0, D1, ...]`: a tensor descriptor with its block shape.
type DescType struct {
	Kw     diag.Pos
	Elem   *Ident
	Block  []Expr
	Rbrack diag.Pos
}

// MemDescType is `memdesc[D0, D1, ...]T` (a shared-memory view of that
// shape) or `memdesc T` (a view of any shape: Dims nil), with `remote`
// before it for a view of another CTA's buffer.
type MemDescType struct {
	Remote diag.Pos // the `remote` word; NoPos without it
	Kw     diag.Pos // `memdesc`
	Lbrack diag.Pos // NoPos for `memdesc T`
	Dims   []Expr
	Elem   *Ident
}

// SlotType is `writer slot` or `reader slot`: a pipe slot of any pipe.
type SlotType struct {
	Kw     diag.Pos // `writer` or `reader`
	Writer bool
	SlotKw diag.Pos // `slot`
}

// BarrierType is `barrier[N]`: an array of N mbarriers (one mbarrier is the
// NamedType `barrier`).
type BarrierType struct {
	Kw     diag.Pos
	N      Expr
	Rbrack diag.Pos
}

func (t *MemDescType) Pos() diag.Pos {
	if t.Remote != diag.NoPos {
		return t.Remote
	}
	return t.Kw
}
func (t *MemDescType) End() diag.Pos { return t.Elem.End() }
func (t *SlotType) Pos() diag.Pos    { return t.Kw }
func (t *SlotType) End() diag.Pos    { return t.SlotKw + 4 }
func (t *BarrierType) Pos() diag.Pos { return t.Kw }
func (t *BarrierType) End() diag.Pos { return t.Rbrack + 1 }

func (*MemDescType) typeNode() {}
func (*SlotType) typeNode()    {}
func (*BarrierType) typeNode() {}

func (t *NamedType) Pos() diag.Pos   { return t.Name.Pos() }
func (t *NamedType) End() diag.Pos   { return t.Name.End() }
func (t *PointerType) Pos() diag.Pos { return t.Star }
func (t *PointerType) End() diag.Pos { return t.Elem.End() }
func (t *TileType) Pos() diag.Pos    { return t.Lbrack }
func (t *TileType) End() diag.Pos    { return t.Elem.End() }
func (t *DescType) Pos() diag.Pos    { return t.Kw }
func (t *DescType) End() diag.Pos    { return t.Rbrack + 1 }

func (*NamedType) typeNode()   {}
func (*PointerType) typeNode() {}
func (*TileType) typeNode()    {}
func (*DescType) typeNode()    {}

// ------------------------------------------------------------------ statements

// Stmt is a statement.
type Stmt interface {
	Node
	stmtNode()
}

// BlockStmt is `{ stmts }`.
type BlockStmt struct {
	Lbrace diag.Pos
	Stmts  []Stmt
	Rbrace diag.Pos
}

// AssignStmt is `lhs := rhs`, `lhs = rhs` or `lhs op= rhs`. Tok is the
// operator as written (":=", "=", "+=", ...).
type AssignStmt struct {
	LHS   []Expr
	TokAt diag.Pos
	Tok   string
	RHS   []Expr
}

// ExprStmt is an expression used as a statement (a call).
type ExprStmt struct{ X Expr }

// ReturnStmt is `return [results]`.
type ReturnStmt struct {
	Kw      diag.Pos
	Results []Expr
}

// IfStmt is `if cond { } [else { } | else if ...]`. Else is nil, a *BlockStmt
// or an *IfStmt.
type IfStmt struct {
	Kw   diag.Pos
	Cond Expr
	Then *BlockStmt
	Else Stmt
}

// BranchStmt is break or continue (Tok).
type BranchStmt struct {
	Kw  diag.Pos
	Tok string
}

// ForStmt is either `for v := range n { }` (Range set) or
// `for init; cond; post { }`.
type ForStmt struct {
	Kw diag.Pos
	// range form
	Var   *Ident
	Range Expr
	// RangeCall is range(start, end, step, num_stages: n, ...) in place of
	// Range (Triton's tl.range): the call of a "range" identifier standing
	// for the keyword
	RangeCall *CallExpr
	// three-clause form
	Init *AssignStmt
	Cond Expr
	Post *AssignStmt

	Body *BlockStmt
}

// WarpSpecializeStmt is `warp_specialize { role ... }`.
type WarpSpecializeStmt struct {
	Kw     diag.Pos
	Roles  []*Role
	Rbrace diag.Pos
}

// Role is `role name(warps: n, regs: r) { body }` inside warp_specialize.
type Role struct {
	Kw   diag.Pos
	Name *Ident
	Args []*Arg
	Body *BlockStmt
}

func (s *BlockStmt) Pos() diag.Pos  { return s.Lbrace }
func (s *BlockStmt) End() diag.Pos  { return s.Rbrace + 1 }
func (s *AssignStmt) Pos() diag.Pos { return s.LHS[0].Pos() }
func (s *AssignStmt) End() diag.Pos { return s.RHS[len(s.RHS)-1].End() }
func (s *ExprStmt) Pos() diag.Pos   { return s.X.Pos() }
func (s *ExprStmt) End() diag.Pos   { return s.X.End() }
func (s *ReturnStmt) Pos() diag.Pos { return s.Kw }
func (s *ReturnStmt) End() diag.Pos {
	if len(s.Results) > 0 {
		return s.Results[len(s.Results)-1].End()
	}
	return s.Kw + diag.Pos(len("return"))
}
func (s *IfStmt) Pos() diag.Pos { return s.Kw }
func (s *IfStmt) End() diag.Pos {
	if s.Else != nil {
		return s.Else.End()
	}
	return s.Then.End()
}
func (s *BranchStmt) Pos() diag.Pos         { return s.Kw }
func (s *BranchStmt) End() diag.Pos         { return s.Kw + diag.Pos(len(s.Tok)) }
func (*BranchStmt) stmtNode()               {}
func (s *ForStmt) Pos() diag.Pos            { return s.Kw }
func (s *ForStmt) End() diag.Pos            { return s.Body.End() }
func (s *WarpSpecializeStmt) Pos() diag.Pos { return s.Kw }
func (s *WarpSpecializeStmt) End() diag.Pos { return s.Rbrace + 1 }
func (r *Role) Pos() diag.Pos               { return r.Kw }
func (r *Role) End() diag.Pos               { return r.Body.End() }

func (*BlockStmt) stmtNode()          {}
func (*AssignStmt) stmtNode()         {}
func (*ExprStmt) stmtNode()           {}
func (*ReturnStmt) stmtNode()         {}
func (*IfStmt) stmtNode()             {}
func (*ForStmt) stmtNode()            {}
func (*WarpSpecializeStmt) stmtNode() {}
func (*ConstDecl) stmtNode()          {}

// ----------------------------------------------------------------- expressions

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// Ident is a name. `None`, `true` and `false` are identifiers too.
type Ident struct {
	NamePos diag.Pos
	Name    string
}

// LitKind says which kind of literal a BasicLit is.
type LitKind int

const (
	Int LitKind = iota
	Float
	String
)

// BasicLit is a number or string literal; Value is its source text.
type BasicLit struct {
	ValuePos diag.Pos
	Kind     LitKind
	Value    string
}

// UnaryExpr is `op x` with op one of - + ! ^ *; `*T` of a dtype T is the
// pointer type to T (`.to(*f16)`), a type value like `f16` itself.
type UnaryExpr struct {
	OpPos diag.Pos
	Op    string
	X     Expr
}

// BinaryExpr is `x op y`.
type BinaryExpr struct {
	X     Expr
	OpPos diag.Pos
	Op    string
	Y     Expr
}

// ParenExpr is `(x)`, kept so that the formatter can print what was written.
type ParenExpr struct {
	Lparen diag.Pos
	X      Expr
	Rparen diag.Pos
}

// CallExpr is `fun(args)`; Fun is an *Ident or a *SelectorExpr (method form:
// `x.to(f16)`, `pp.acquire(i)`, `buf.slot(0)`).
type CallExpr struct {
	Fun    Expr
	Lparen diag.Pos
	Args   []*Arg
	Rparen diag.Pos
}

// Arg is a call argument: positional when Name is nil, else `name: value`.
type Arg struct {
	Name  *Ident
	Value Expr
}

// IndexExpr is `x[i, j, ...]`; indices are expressions, `None` or *SliceExpr.
type IndexExpr struct {
	X       Expr
	Lbrack  diag.Pos
	Indices []Expr
	Rbrack  diag.Pos
}

// SliceExpr is `lo:hi` inside an index, either bound optional (`:` alone keeps
// a whole axis).
type SliceExpr struct {
	Lo    Expr // may be nil
	Colon diag.Pos
	Hi    Expr // may be nil
}

// SelectorExpr is `x.name`: a field (`s.w`, `s.closed`), `.T`, or the callee of
// a method call.
type SelectorExpr struct {
	X   Expr
	Sel *Ident
}

// ListExpr is `[a, b, ...]`, a shape list, or with Elem set a tile type used as
// a value: `[16, 128]bf16`.
type ListExpr struct {
	Lbrack diag.Pos
	Elems  []Expr
	Rbrack diag.Pos
	Elem   *Ident // nil for a plain list
}

func (x *Ident) Pos() diag.Pos      { return x.NamePos }
func (x *Ident) End() diag.Pos      { return x.NamePos + diag.Pos(len(x.Name)) }
func (x *BasicLit) Pos() diag.Pos   { return x.ValuePos }
func (x *BasicLit) End() diag.Pos   { return x.ValuePos + diag.Pos(len(x.Value)) }
func (x *UnaryExpr) Pos() diag.Pos  { return x.OpPos }
func (x *UnaryExpr) End() diag.Pos  { return x.X.End() }
func (x *BinaryExpr) Pos() diag.Pos { return x.X.Pos() }
func (x *BinaryExpr) End() diag.Pos { return x.Y.End() }
func (x *ParenExpr) Pos() diag.Pos  { return x.Lparen }
func (x *ParenExpr) End() diag.Pos  { return x.Rparen + 1 }
func (x *CallExpr) Pos() diag.Pos   { return x.Fun.Pos() }
func (x *CallExpr) End() diag.Pos   { return x.Rparen + 1 }
func (a *Arg) Pos() diag.Pos {
	if a.Name != nil {
		return a.Name.Pos()
	}
	return a.Value.Pos()
}
func (a *Arg) End() diag.Pos       { return a.Value.End() }
func (x *IndexExpr) Pos() diag.Pos { return x.X.Pos() }
func (x *IndexExpr) End() diag.Pos { return x.Rbrack + 1 }
func (x *SliceExpr) Pos() diag.Pos {
	if x.Lo != nil {
		return x.Lo.Pos()
	}
	return x.Colon
}
func (x *SliceExpr) End() diag.Pos {
	if x.Hi != nil {
		return x.Hi.End()
	}
	return x.Colon + 1
}
func (x *SelectorExpr) Pos() diag.Pos { return x.X.Pos() }
func (x *SelectorExpr) End() diag.Pos { return x.Sel.End() }
func (x *ListExpr) Pos() diag.Pos     { return x.Lbrack }
func (x *ListExpr) End() diag.Pos {
	if x.Elem != nil {
		return x.Elem.End()
	}
	return x.Rbrack + 1
}

func (*Ident) exprNode()        {}
func (*BasicLit) exprNode()     {}
func (*UnaryExpr) exprNode()    {}
func (*BinaryExpr) exprNode()   {}
func (*ParenExpr) exprNode()    {}
func (*CallExpr) exprNode()     {}
func (*IndexExpr) exprNode()    {}
func (*SliceExpr) exprNode()    {}
func (*SelectorExpr) exprNode() {}
func (*ListExpr) exprNode()     {}

// Precedence returns a binary operator's precedence, Go's table: 5 for
// * / % << >> & &^, 4 for + - | ^, 3 for comparisons, 2 for &&, 1 for ||,
// and 0 for anything else.
func Precedence(op string) int {
	switch op {
	case "*", "/", "%", "<<", ">>", "&", "&^":
		return 5
	case "+", "-", "|", "^":
		return 4
	case "==", "!=", "<", "<=", ">", ">=":
		return 3
	case "&&":
		return 2
	case "||":
		return 1
	}
	return 0
}

// Inspect walks the tree in depth-first order, calling f for each node; when f
// returns false the node's children are skipped.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *File:
		for _, d := range n.Decls {
			Inspect(d, f)
		}
	case *TuneDecl:
		Inspect(n.Name, f)
		for _, it := range n.Items {
			Inspect(it, f)
		}
	case *TuneItem:
		if n.Name != nil {
			Inspect(n.Name, f)
		}
		for _, a := range n.Args {
			if a.Name != nil {
				Inspect(a.Name, f)
			}
			Inspect(a.Value, f)
		}
		if n.Cond != nil {
			Inspect(n.Cond, f)
		}
	case *KernelDecl:
		Inspect(n.Name, f)
		for _, p := range n.Params {
			Inspect(p, f)
		}
		Inspect(n.Body, f)
	case *FuncDecl:
		Inspect(n.Name, f)
		for _, p := range n.Params {
			Inspect(p, f)
		}
		for _, r := range n.Results {
			Inspect(r, f)
		}
		Inspect(n.Body, f)
	case *ConstDecl:
		Inspect(n.Name, f)
		Inspect(n.Value, f)
	case *ImportDecl:
		Inspect(n.Path, f)
	case *Param:
		Inspect(n.Name, f)
		Inspect(n.Type, f)
	case *PointerType:
		Inspect(n.Elem, f)
	case *NamedType:
		Inspect(n.Name, f)
	case *TileType:
		for _, d := range n.Dims {
			Inspect(d, f)
		}
		Inspect(n.Elem, f)
	case *DescType:
		Inspect(n.Elem, f)
		for _, d := range n.Block {
			Inspect(d, f)
		}
	case *MemDescType:
		for _, d := range n.Dims {
			Inspect(d, f)
		}
		Inspect(n.Elem, f)
	case *SlotType:
	case *BarrierType:
		Inspect(n.N, f)
	case *BlockStmt:
		for _, s := range n.Stmts {
			Inspect(s, f)
		}
	case *AssignStmt:
		for _, x := range n.LHS {
			Inspect(x, f)
		}
		for _, x := range n.RHS {
			Inspect(x, f)
		}
	case *ExprStmt:
		Inspect(n.X, f)
	case *ReturnStmt:
		for _, x := range n.Results {
			Inspect(x, f)
		}
	case *IfStmt:
		Inspect(n.Cond, f)
		Inspect(n.Then, f)
		if n.Else != nil {
			Inspect(n.Else, f)
		}
	case *ForStmt:
		if n.Var != nil {
			Inspect(n.Var, f)
			if n.RangeCall != nil {
				for _, a := range n.RangeCall.Args {
					Inspect(a, f)
				}
			} else {
				Inspect(n.Range, f)
			}
		} else {
			if n.Init != nil {
				Inspect(n.Init, f)
			}
			Inspect(n.Cond, f)
			if n.Post != nil {
				Inspect(n.Post, f)
			}
		}
		Inspect(n.Body, f)
	case *WarpSpecializeStmt:
		for _, r := range n.Roles {
			Inspect(r, f)
		}
	case *Role:
		Inspect(n.Name, f)
		for _, a := range n.Args {
			Inspect(a, f)
		}
		Inspect(n.Body, f)
	case *UnaryExpr:
		Inspect(n.X, f)
	case *BinaryExpr:
		Inspect(n.X, f)
		Inspect(n.Y, f)
	case *ParenExpr:
		Inspect(n.X, f)
	case *CallExpr:
		Inspect(n.Fun, f)
		for _, a := range n.Args {
			Inspect(a, f)
		}
	case *Arg:
		if n.Name != nil {
			Inspect(n.Name, f)
		}
		Inspect(n.Value, f)
	case *IndexExpr:
		Inspect(n.X, f)
		for _, x := range n.Indices {
			Inspect(x, f)
		}
	case *SliceExpr:
		if n.Lo != nil {
			Inspect(n.Lo, f)
		}
		if n.Hi != nil {
			Inspect(n.Hi, f)
		}
	case *SelectorExpr:
		Inspect(n.X, f)
		Inspect(n.Sel, f)
	case *ListExpr:
		for _, x := range n.Elems {
			Inspect(x, f)
		}
		if n.Elem != nil {
			Inspect(n.Elem, f)
		}
	}
}

func (f *File) Pos() diag.Pos { return 0 }
func (f *File) End() diag.Pos { return diag.Pos(len(f.File.Src)) }

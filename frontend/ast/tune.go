package ast

import "github.com/tlego/tle/diag"

// TuneDecl is `tune KERNEL { items }`: the tuning space declared beside a
// kernel (docs/language.md, "Tuning spaces"). Its items are one a line:
//
//	key(M: pow2, N: pow2, K)          the runtime arguments that key the choice, each bucketed
//	grid(cdiv(M, BM), cdiv(N, BN))    the grid of a configuration, from its bindings and the arguments
//	config NAME(BM: 128, warps: 8)    a named configuration
//	space(BM: [64, 128], S: [2, 3])   the product of value lists
//	where EXPR                        a constraint every configuration must meet
//	default NAME | default(BM: 128)   the configuration used untuned
type TuneDecl struct {
	Kw     diag.Pos
	Name   *Ident // the kernel tuned
	Items  []*TuneItem
	Rbrace diag.Pos
}

// TuneItem is one item of a tune block. Kind is its word: key, grid,
// config, space, where or default.
type TuneItem struct {
	Kw     diag.Pos
	Kind   string
	Name   *Ident   // config NAME(...) and default NAME
	Lparen diag.Pos // NoPos when the item has no parenthesised list
	Args   []*Arg
	Rparen diag.Pos
	Cond   Expr // where's constraint
}

func (d *TuneDecl) Pos() diag.Pos { return d.Kw }
func (d *TuneDecl) End() diag.Pos { return d.Rbrace + 1 }
func (t *TuneItem) Pos() diag.Pos { return t.Kw }
func (t *TuneItem) End() diag.Pos {
	switch {
	case t.Cond != nil:
		return t.Cond.End()
	case t.Lparen.IsValid():
		return t.Rparen + 1
	case t.Name != nil:
		return t.Name.End()
	}
	return t.Kw + diag.Pos(len(t.Kind))
}

func (*TuneDecl) declNode() {}

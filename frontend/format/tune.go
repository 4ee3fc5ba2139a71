package format

import "github.com/tlego/tle/frontend/ast"

// tuneDecl prints `tune KERNEL {`, its items one a line, and `}`: an item
// is its word, then the config's name, a list as call arguments print, or
// where's condition.
func (p *printer) tuneDecl(d *ast.TuneDecl) {
	p.token(d.Kw, "tune")
	p.space = true
	p.ident(d.Name)
	p.space = true
	p.token(p.find(end(d.Name), "{"), "{")
	p.lines(len(d.Items), func(i int) { p.tuneItem(d.Items[i]) }, d.Rbrace)
}

func (p *printer) tuneItem(it *ast.TuneItem) {
	p.token(it.Kw, it.Kind)
	if it.Name != nil {
		p.space = true
		p.ident(it.Name)
	}
	if it.Lparen.IsValid() {
		p.token(it.Lparen, "(")
		p.args(it.Lparen+1, it.Args)
		p.token(it.Rparen, ")")
	}
	if it.Cond != nil {
		p.space = true
		p.expr(it.Cond)
	}
}

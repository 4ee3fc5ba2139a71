// Package parser turns .tle source into an ast.File. The grammar is written
// for participle (grammar.go); a small token pass in front of it inserts
// statement-ending semicolons at line ends exactly as Go does, and sets
// comments aside for the formatter.
package parser

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/tle/diag"
)

var lexDef = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `//[^\n]*|/\*(?s:.*?)\*/`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "Float", Pattern: `(\d[\d_]*\.[\d_]*([eE][+-]?\d+)?|\.\d[\d_]*([eE][+-]?\d+)?|\d[\d_]*[eE][+-]?\d+)`},
	{Name: "Int", Pattern: `(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*)`},
	{Name: "Ident", Pattern: `[a-zA-Z_][a-zA-Z0-9_]*`},
	{Name: "Op", Pattern: `(:=|<<=|>>=|&\^|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<|>>|&&|\|\||==|!=|<=|>=|[-+*/%&|^<>=!:;,.()\[\]{}])`},
	{Name: "Newline", Pattern: `\n`},
	{Name: "Whitespace", Pattern: `[ \t\r]+`},
})

var (
	buildOnce sync.Once
	gParser   *participle.Parser[gFile]
	buildErr  error
)

func grammar() (*participle.Parser[gFile], error) {
	buildOnce.Do(func() {
		gParser, buildErr = participle.Build[gFile](
			participle.Lexer(lexDef),
			participle.UseLookahead(participle.MaxLookahead),
		)
	})
	return gParser, buildErr
}

// EBNF returns the grammar in EBNF, as participle prints it, with the Go
// type prefix taken off the rule names.
func EBNF() string {
	p, err := grammar()
	if err != nil {
		return "grammar error: " + err.Error()
	}
	return ruleName.ReplaceAllString(p.String(), "$1") + "\n"
}

// ruleName matches participle's name for a grammar struct (gFoo prints GFoo).
var ruleName = regexp.MustCompile(`\bG([A-Z][A-Za-z]*)`)

// ParseFile parses src as the .tle file name. It returns the tree, or nil and
// a diag.List when the source does not parse; lexical and syntax errors both
// carry a position.
func ParseFile(name string, src []byte) (*ast.File, error) {
	file := diag.NewFile(name, src)
	p, err := grammar()
	if err != nil {
		return nil, fmt.Errorf("internal: building the grammar: %w", err)
	}
	toks, comments, err := tokens(file)
	if err != nil {
		return nil, err
	}
	plex, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil {
		return nil, diag.List{diag.Errorf(file, 0, "%v", err)}
	}
	g, err := p.ParseFromLexer(plex)
	if err != nil {
		return nil, syntaxError(file, err)
	}
	c := &converter{file: file}
	f := &ast.File{File: file, Comments: comments}
	for _, d := range g.Decls {
		f.Decls = append(f.Decls, c.decl(d))
	}
	if len(c.errs) > 0 {
		c.errs.Sort()
		return nil, c.errs
	}
	return f, nil
}

// tokens lexes the whole file, sets comments aside, drops white space and
// inserts a ";" token at every line end (and at the end of the file) that
// follows a token which can end a statement, as Go's scanner does.
func tokens(file *diag.File) ([]lexer.Token, []*ast.Comment, error) {
	lx, err := lexDef.LexString(file.Name, string(file.Src))
	if err != nil {
		return nil, nil, diag.List{diag.Errorf(file, 0, "%v", err)}
	}
	sym := lexDef.Symbols()
	var (
		out      []lexer.Token
		comments []*ast.Comment
		last     *lexer.Token
	)
	semi := func(pos lexer.Position) {
		if last != nil && endsStatement(*last, sym) {
			t := lexer.Token{Type: sym["Op"], Value: ";", Pos: pos}
			out = append(out, t)
			last = nil
		}
	}
	for {
		t, err := lx.Next()
		if err != nil {
			var pe participle.Error
			if errors.As(err, &pe) {
				return nil, nil, diag.List{diag.Errorf(file, diag.Pos(pe.Position().Offset), "%s", cleanMessage(pe.Message()))}
			}
			return nil, nil, diag.List{diag.Errorf(file, 0, "%v", err)}
		}
		switch t.Type {
		case sym["Whitespace"]:
			continue
		case sym["Comment"]:
			comments = append(comments, &ast.Comment{Start: diag.Pos(t.Pos.Offset), Text: t.Value})
			if strings.HasPrefix(t.Value, "/*") && strings.Contains(t.Value, "\n") {
				semi(t.Pos)
			}
			continue
		case sym["Newline"]:
			semi(t.Pos)
			continue
		case lexer.EOF:
			semi(t.Pos)
			out = append(out, t)
			return out, comments, nil
		}
		if t.Type == sym["String"] && strings.HasPrefix(t.Value, "\"") && !strings.HasSuffix(t.Value, "\"") {
			return nil, nil, diag.List{diag.Errorf(file, diag.Pos(t.Pos.Offset), "string literal not terminated")}
		}
		out = append(out, t)
		last = &out[len(out)-1]
	}
}

func endsStatement(t lexer.Token, sym map[string]lexer.TokenType) bool {
	switch t.Type {
	case sym["Ident"], sym["Int"], sym["Float"], sym["String"]:
		return true
	case sym["Op"]:
		return t.Value == ")" || t.Value == "]" || t.Value == "}"
	}
	return false
}

type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (s *sliceLexer) Next() (lexer.Token, error) {
	if s.i >= len(s.toks) {
		return s.toks[len(s.toks)-1], nil
	}
	t := s.toks[s.i]
	s.i++
	return t, nil
}

func syntaxError(file *diag.File, err error) error {
	var pe participle.Error
	if errors.As(err, &pe) {
		msg := cleanMessage(pe.Message())
		return diag.List{diag.Errorf(file, diag.Pos(pe.Position().Offset), "syntax error: %s", msg)}
	}
	return diag.List{diag.Errorf(file, 0, "syntax error: %v", err)}
}

// cleanMessage rewrites participle's wording into the compiler's: the inserted
// semicolon is reported as a line end, and grammar-internal names are dropped.
var ruleWords = map[string]string{
	"GExpr": "expression", "GUnary": "expression", "GPostfix": "expression", "GPrimary": "expression",
	"GIdent": "name", "GType": "type", "GBlock": "block", "GStmt": "statement", "GSimple": "statement",
	"GArg": "argument", "GParam": "parameter", "GRparen": `")"`, "GRbrack": `"]"`, "GRbrace": `"}"`,
	"GColon": `":"`, "GAssignOp": "assignment", "GBinaryOp": "operator", "GDecl": "declaration",
	"GRole": "role", "GIndexElem": "index",
}

func cleanMessage(m string) string {
	m = strings.ReplaceAll(m, `unexpected token ";"`, "unexpected end of line")
	m = strings.ReplaceAll(m, `unexpected token "<EOF>"`, "unexpected end of file")
	m = strings.ReplaceAll(m, `"<EOF>"`, "end of file")
	return ruleName.ReplaceAllStringFunc(m, func(r string) string {
		if w, ok := ruleWords[r]; ok {
			return w
		}
		return strings.ToLower(r[1:])
	})
}

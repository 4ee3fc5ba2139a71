// Package parser turns .tle source into an ast.File. A hand-written scanner
// (scan.go) lexes the source as go/scanner does: it reports lexical errors
// precisely, sets comments aside for the formatter, reserves the keywords,
// inserts statement-ending semicolons at line ends by Go's rule, and rejects
// input nested deeper than MaxNesting. The grammar proper is written for
// participle (grammar.go, printed by EBNF into docs/grammar.ebnf); errors.go
// rewords participle's errors in the compiler's terms ("syntax error:
// unexpected end of line, expected expression"), and convert.go builds the
// tree, applying Go's operator precedence.
package parser

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// lexDef declares the token types the grammar refers to. The patterns are an
// approximation kept for reference: tokens come from the scanner in scan.go,
// never from this lexer.
var lexDef = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `//[^\n]*|/\*(?s:.*?)\*/`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "Float", Pattern: `(\d[\d_]*\.[\d_]*([eE][+-]?\d+)?|\.\d[\d_]*([eE][+-]?\d+)?|\d[\d_]*[eE][+-]?\d+)`},
	{Name: "Int", Pattern: `(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*)`},
	{Name: "Keyword", Pattern: `\b(kernel|func|const|return|if|else|for|range|warp_specialize|role)\b`},
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
// type prefix taken off the rule names, under a header that states the
// lexical rules. docs/grammar.ebnf is this text.
func EBNF() string {
	p, err := grammar()
	if err != nil {
		return "grammar error: " + err.Error()
	}
	return ebnfHeader + ruleName.ReplaceAllString(p.String(), "$1") + "\n"
}

const ebnfHeader = `(* The grammar of .tle files, printed by parser.EBNF() from the participle
   grammar in frontend/parser/grammar.go. Regenerate this file with
   go test ./frontend/parser -update.

   Tokens (frontend/parser/scan.go):
     <ident>   [A-Za-z_][A-Za-z0-9_]*, except the keywords
               kernel func const return if else for range break continue warp_specialize role
     <int>     Go integer literals: 42, 1_000, 0x1F, 0b101, 0o17, 017
     <float>   Go decimal floating-point literals: 1.5, .5, 1., 1e-3
     <string>  a double-quoted string with Go's escapes, on one line
   Comments are // to the end of the line and /* ... */; they and white space
   separate tokens. As in Go, a ";" is inserted at a line end (and at the end
   of the file) after an identifier, a literal, "return", "break", "continue", ")", "]" or "}".
   Statements and declarations are separated by ";" or a line end.

   Expr is a flat chain; binary operators bind by Go's precedence table,
   all left-associative: * / % << >> & &^ (5), + - | ^ (4),
   == != < <= > >= (3), && (2), || (1). Unary - + ! ^ * bind tighter
   (unary * makes a pointer type of a dtype: *f16). *)

`

// ruleName matches participle's name for a grammar struct (gFoo prints GFoo).
var ruleName = regexp.MustCompile(`\bG([A-Z][A-Za-z]*)`)

// MaxSize is the largest source ParseFile accepts, in bytes.
const MaxSize = 16 << 20

// ParseFile parses src as the .tle file name. It returns the tree, or nil and
// a diag.List when the source does not parse; lexical and syntax errors both
// carry a position. A syntax error stops parsing, so the list holds the first
// one (and any further errors found while building the tree). ParseFile does
// not panic on any input.
func ParseFile(name string, src []byte) (f *ast.File, err error) {
	file := diag.NewFile(name, src)
	if len(src) > MaxSize {
		return nil, diag.List{diag.Errorf(file, 0, "file too large (%d bytes; the limit is %d)", len(src), MaxSize)}
	}
	p, err := grammar()
	if err != nil {
		return nil, fmt.Errorf("internal: building the grammar: %w", err)
	}
	toks, comments, inserted, err := scan(file)
	if err != nil {
		return nil, err
	}
	ec := &errContext{file: file, toks: toks, inserted: inserted, sym: lexDef.Symbols()}
	g, err := parseTokens(p, toks)
	if err != nil {
		return nil, ec.syntaxError(err)
	}
	defer func() {
		if r := recover(); r != nil {
			f = nil
			err = diag.List{diag.Errorf(file, 0, "internal error: building the syntax tree: %v", r)}
		}
	}()
	c := &converter{file: file, ec: ec}
	f = &ast.File{File: file, Comments: comments}
	for _, d := range g.Decls {
		decl := c.decl(d)
		if n := len(f.Decls); n > 0 {
			c.separatedDecl(f.Decls[n-1], decl)
			if _, ok := decl.(*ast.ImportDecl); ok {
				if _, ok := f.Decls[n-1].(*ast.ImportDecl); !ok {
					c.errorf(decl.Pos(), "import after a declaration: imports come first in a file")
				}
			}
		}
		f.Decls = append(f.Decls, decl)
	}
	if len(c.errs) > 0 {
		c.errs.Sort()
		return nil, c.errs
	}
	return f, nil
}

// parseTokens runs participle over the token slice. A panic inside
// participle becomes an error at the start of the file rather than a crash.
func parseTokens(p *participle.Parser[gFile], toks []lexer.Token) (g *gFile, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("internal parser failure: %v", r)
		}
	}()
	plex, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil {
		return nil, err
	}
	return p.ParseFromLexer(plex)
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

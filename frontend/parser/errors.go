package parser

import (
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tlego/tle/diag"
)

// errContext turns participle's errors into the compiler's wording:
//
//	syntax error: unexpected end of line, expected expression
//	syntax error: unexpected name y at end of statement
//
// The unexpected token is described as Go's compiler does (name x, keyword
// else, literal 1.5, end of line); the expectation is the first thing the
// grammar wanted at that point.
type errContext struct {
	file     *diag.File
	toks     []lexer.Token
	inserted map[int]bool
	sym      map[string]lexer.TokenType
}

var expectedRe = regexp.MustCompile(`\(expected (.*)\)$`)

func (e *errContext) syntaxError(err error) diag.List {
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		exp := ""
		if m := expectedRe.FindStringSubmatch(ute.Message()); m != nil {
			exp = expectation(m[1])
		}
		return e.unexpected(ute.Unexpected, exp)
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		i := e.index(pe.Position().Offset)
		if i < len(e.toks) && e.toks[i].Pos.Offset == pe.Position().Offset {
			return e.unexpected(e.toks[i], "")
		}
		return e.at(pe.Position().Offset, "syntax error: %s", cleanMessage(pe.Message()))
	}
	return e.at(0, "syntax error: %v", err)
}

func (e *errContext) at(off int, format string, args ...any) diag.List {
	return diag.List{diag.Errorf(e.file, diag.Pos(off), format, args...)}
}

// index returns the index of the first token at or after offset off.
func (e *errContext) index(off int) int {
	return sort.Search(len(e.toks), func(i int) bool { return e.toks[i].Pos.Offset >= off })
}

// find returns the index of token t in the stream.
func (e *errContext) find(t lexer.Token) int {
	i := e.index(t.Pos.Offset)
	for j := i; j < len(e.toks) && e.toks[j].Pos.Offset == t.Pos.Offset; j++ {
		if e.toks[j].Type == t.Type && e.toks[j].Value == t.Value {
			return j
		}
	}
	return i
}

func (e *errContext) unexpected(t lexer.Token, exp string) diag.List {
	i := e.find(t)
	var prev *lexer.Token
	if i > 0 && i <= len(e.toks) {
		prev = &e.toks[i-1]
	}
	tail := ""
	if exp != "" {
		tail = ", expected " + exp
	}
	// `}` newline `else`: Go's semicolon rule ends the if statement there.
	if t.Value == "else" && t.Type == e.sym["Keyword"] && prev != nil && e.isInserted(*prev) && i >= 2 && e.toks[i-2].Value == "}" {
		return e.at(t.Pos.Offset, "syntax error: else must be on the same line as the } that closes the if block")
	}
	if prev != nil && prev.Value == "else" && prev.Type == e.sym["Keyword"] {
		return e.at(t.Pos.Offset, "syntax error: else must be followed by if or a block")
	}
	// `{` on the line after a header: the line end was a statement end.
	if exp == "{" && e.isInserted(t) && i+1 < len(e.toks) && e.toks[i+1].Value == "{" {
		return e.at(t.Pos.Offset, "syntax error: unexpected end of line before {: put { on the line that opens it")
	}
	// An operator left dangling at the end of a line: point at the line end.
	if prev != nil && !t.EOF() && needsOperand(*prev) && e.line(prev.Pos.Offset) != e.line(t.Pos.Offset) {
		end := prev.Pos.Offset + len(prev.Value)
		nl := strings.IndexByte(string(e.file.Src[end:]), '\n')
		if nl >= 0 {
			return e.at(end+nl, "syntax error: unexpected end of line%s", tail)
		}
	}
	if exp == "}" && e.inWarpSpecialize(i) {
		tail = ", expected role or }"
	}
	// Tokens left over after the last complete declaration.
	if exp == "" && e.depth(i) == 0 && !t.EOF() {
		return e.at(t.Pos.Offset, "syntax error: unexpected %s, expected kernel, func or const", e.describe(t))
	}
	return e.at(t.Pos.Offset, "syntax error: unexpected %s%s", e.describe(t), tail)
}

// inWarpSpecialize reports whether the innermost open brace before token i
// is a warp_specialize block's.
func (e *errContext) inWarpSpecialize(i int) bool {
	d := 0
	for j := min(i, len(e.toks)) - 1; j >= 0; j-- {
		switch e.toks[j].Value {
		case "}":
			d++
		case "{":
			if d == 0 {
				return j > 0 && e.toks[j-1].Value == "warp_specialize"
			}
			d--
		}
	}
	return false
}

func (e *errContext) line(off int) int { return e.file.Position(diag.Pos(off)).Line }

// depth is the bracket depth just before token i.
func (e *errContext) depth(i int) int {
	d := 0
	for _, t := range e.toks[:min(i, len(e.toks))] {
		if t.Type != e.sym["Op"] {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			d++
		case ")", "]", "}":
			d--
		}
	}
	return d
}

func (e *errContext) isInserted(t lexer.Token) bool {
	return t.Value == ";" && (t.Pos.Offset >= len(e.file.Src) || e.file.Src[t.Pos.Offset] != ';')
}

// needsOperand reports whether t is a binary or assignment operator, which
// must be followed by an operand.
func needsOperand(t lexer.Token) bool {
	switch t.Value {
	case ":=", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
		"||", "&&", "==", "!=", "<", "<=", ">", ">=", "+", "-", "|", "^", "*", "/", "%", "<<", ">>", "&", "&^", "!", ".":
		return true
	}
	return false
}

// describe names a token as Go's compiler does.
func (e *errContext) describe(t lexer.Token) string {
	switch {
	case t.EOF():
		return "end of file"
	case t.Type == e.sym["Ident"]:
		return "name " + short(t.Value)
	case t.Type == e.sym["Keyword"]:
		return "keyword " + t.Value
	case t.Type == e.sym["Int"], t.Type == e.sym["Float"], t.Type == e.sym["String"]:
		return "literal " + short(t.Value)
	case t.Value == ";":
		if e.isInserted(t) {
			if t.Pos.Offset >= len(e.file.Src) {
				return "end of file"
			}
			return "end of line"
		}
		return "semicolon"
	case t.Value == ",":
		return "comma"
	}
	return short(t.Value)
}

// short abbreviates a token's text for a message.
func short(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:30] + "..." + s[len(s)-6:]
}

// expectation reduces participle's rendering of what the grammar wanted
// (`GExpr ("," GExpr)*`, `")" GBlock`) to its first element, in words.
var firstElem = regexp.MustCompile(`^[(\[]*("(?:[^"\\]|\\.)*"|[A-Za-z_]+)`)

func expectation(s string) string {
	m := firstElem.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	w := m[1]
	if rw, ok := ruleWords[w]; ok {
		w = rw
	}
	if w == "block" {
		return "{"
	}
	if strings.HasPrefix(w, `"`) {
		if u, err := strconv.Unquote(w); err == nil {
			w = u
		}
		switch w {
		case ";":
			return "semicolon or new line"
		case ",":
			return "comma"
		case "kernel", "func", "const", "return", "if", "else", "for", "range", "warp_specialize", "role", "desc", "break", "continue":
			return "keyword " + w
		}
		return w
	}
	if ruleName.MatchString(w) {
		return strings.ToLower(w[1:])
	}
	return w
}

// cleanMessage rewrites grammar-internal rule names into words.
var ruleWords = map[string]string{
	"GExpr": "expression", "GUnary": "expression", "GPostfix": "expression", "GPrimary": "expression",
	"GIdent": "name", "GType": "type", "GBlock": "block", "GStmt": "statement", "GSimple": "statement",
	"GArg": "argument", "GParam": "parameter", "GRparen": `")"`, "GRbrack": `"]"`, "GRbrace": `"}"`,
	"GColon": `":"`, "GAssignOp": "assignment", "GBinaryOp": "operator", "GDecl": "declaration",
	"GRole": "role", "GIndexElem": "index", "GDescType": "type", "GTileType": "type",
	"GMemType": "type", "GSlotType": "type", "GBarsType": "type", "GMemDims": "type", "GWordRemote": "type",
	"GWordMem": "type", "GWordSlot": "type",
	"GParen": "expression", "GList": "expression", "GCall": `"("`, "GIndex": `"["`, "GSuffix": "expression",
	"GReturn": "statement", "GIf": "statement", "GFor": "statement", "GWarpSpec": "statement",
	"GConst": "declaration", "GKernel": "declaration", "GFunc": "declaration",
	"GRangeClause": "for clause", "GThreeClause": "for clause",
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

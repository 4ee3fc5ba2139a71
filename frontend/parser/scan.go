package parser

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// The scanner is hand-written, in the manner of go/scanner, so that lexical
// errors read well ("string literal not terminated", "invalid character
// U+0024 '$'") and point at the right byte. It produces participle tokens of
// the types declared by lexDef, sets comments aside, and inserts the
// statement-ending ";" at line ends by Go's rule.

// keywords are reserved: they never lex as a name. `desc` and the builtin
// names stay ordinary identifiers.
var keywords = map[string]bool{
	"kernel": true, "func": true, "const": true, "return": true, "if": true, "else": true,
	"for": true, "range": true, "warp_specialize": true, "role": true, "break": true, "continue": true,
	"import": true,
}

// operators, longest first within each leading byte.
var operators = []string{
	"<<=", ">>=", ":=", "&^", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>",
	"&&", "||", "==", "!=", "<=", ">=",
	"+", "-", "*", "/", "%", "&", "|", "^", "<", ">", "=", "!", ":", ";", ",", ".",
	"(", ")", "[", "]", "{", "}",
}

// MaxNesting bounds how deeply brackets and unary operators may nest; deeper
// input is rejected with a diagnostic instead of exhausting the stack.
const MaxNesting = 200

type scanner struct {
	file     *diag.File
	src      []byte
	off      int
	line     int
	lineOff  int
	sym      map[string]lexer.TokenType
	toks     []lexer.Token
	comments []*ast.Comment
	// inserted records the offsets of the ";" tokens the scanner inserted.
	inserted map[int]bool
	depth    int
	unary    int
}

type scanError struct {
	pos diag.Pos
	msg string
}

func (s *scanner) fail(off int, format string, args ...any) {
	panic(scanError{pos: diag.Pos(off), msg: fmt.Sprintf(format, args...)})
}

func (s *scanner) position(off int) lexer.Position {
	return lexer.Position{Filename: s.file.Name, Offset: off, Line: s.line, Column: off - s.lineOff + 1}
}

func (s *scanner) emit(typ string, start int, val string) {
	s.toks = append(s.toks, lexer.Token{Type: s.sym[typ], Value: val, Pos: s.position(start)})
}

// semi inserts ";" at off when the last token can end a statement.
func (s *scanner) semi(off int) {
	if n := len(s.toks); n > 0 && endsStatement(s.toks[n-1], s.sym) {
		s.emit("Op", off, ";")
		s.inserted[off] = true
	}
}

func endsStatement(t lexer.Token, sym map[string]lexer.TokenType) bool {
	switch t.Type {
	case sym["Ident"], sym["Int"], sym["Float"], sym["String"]:
		return true
	case sym["Keyword"]:
		return t.Value == "return" || t.Value == "break" || t.Value == "continue"
	case sym["Op"]:
		return t.Value == ")" || t.Value == "]" || t.Value == "}"
	}
	return false
}

// scan lexes the whole file. It returns the tokens (ending with EOF), the
// comments and the set of inserted semicolons, or a diagnostic.
func scan(file *diag.File) (toks []lexer.Token, comments []*ast.Comment, inserted map[int]bool, err error) {
	s := &scanner{file: file, src: file.Src, line: 1, sym: lexDef.Symbols(), inserted: map[int]bool{}}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(scanError)
			if !ok {
				panic(r)
			}
			toks, comments, inserted = nil, nil, nil
			err = diag.List{diag.Errorf(file, se.pos, "%s", se.msg)}
		}
	}()
	s.run()
	return s.toks, s.comments, s.inserted, nil
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// checkComment refuses invalid UTF-8 and NUL characters in the comment
// src[start:end]: a source file is UTF-8 text throughout, comments
// included (the formatter writes them back out).
func (s *scanner) checkComment(start, end int) {
	for i := start; i < end; {
		r, size := utf8.DecodeRune(s.src[i:end])
		switch {
		case r == utf8.RuneError && size == 1:
			s.fail(i, "invalid UTF-8 encoding in comment")
		case r == 0:
			s.fail(i, "invalid NUL character in comment")
		}
		i += size
	}
}

func (s *scanner) run() {
	src := s.src
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3 // a byte order mark at the start is ignored
	}
	for s.off < len(src) {
		c := src[s.off]
		start := s.off
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			s.off++
		case c == '\n':
			s.semi(start)
			s.off++
			s.line++
			s.lineOff = s.off
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '/':
			end := start
			for end < len(src) && src[end] != '\n' {
				end++
			}
			s.checkComment(start, end)
			text := strings.TrimRight(string(src[start:end]), "\r")
			s.comments = append(s.comments, &ast.Comment{Start: diag.Pos(start), Text: text})
			s.off = end
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '*':
			i := bytes.Index(src[start+2:], []byte("*/")) // no copy of the rest of the file
			if i < 0 {
				s.fail(start, "comment not terminated")
			}
			end := start + 2 + i + 2
			s.checkComment(start, end)
			text := string(src[start:end])
			s.comments = append(s.comments, &ast.Comment{Start: diag.Pos(start), Text: text})
			if nl := strings.Count(text, "\n"); nl > 0 {
				s.semi(start)
				s.line += nl
				s.lineOff = start + strings.LastIndexByte(text, '\n') + 1
			}
			s.off = end
		case isLetter(c):
			end := start
			for end < len(src) && (isLetter(src[end]) || isDigit(src[end])) {
				end++
			}
			word := string(src[start:end])
			typ := "Ident"
			if keywords[word] {
				typ = "Keyword"
			}
			s.token(typ, start, word)
			s.off = end
		case isDigit(c) || c == '.' && s.off+1 < len(src) && isDigit(src[s.off+1]):
			s.number()
		case c == '"':
			s.str()
		default:
			s.op()
		}
	}
	s.semi(len(src))
	s.toks = append(s.toks, lexer.Token{Type: lexer.EOF, Pos: s.position(len(src))})
}

// token emits a non-operator token and resets the unary-run count.
func (s *scanner) token(typ string, start int, val string) {
	s.unary = 0
	s.emit(typ, start, val)
}

func (s *scanner) op() {
	src, start := s.src, s.off
	for _, op := range operators {
		if strings.HasPrefix(string(src[start:min(start+3, len(src))]), op) {
			s.off += len(op)
			switch op {
			case "(", "[", "{":
				s.depth++
			case ")", "]", "}":
				if s.depth > 0 {
					s.depth--
				}
			}
			switch op {
			case "-", "+", "!", "^":
				s.unary++
			default:
				s.unary = 0
			}
			if s.depth+s.unary > MaxNesting {
				s.fail(start, "syntax error: expression nested too deeply (more than %d levels)", MaxNesting)
			}
			s.emit("Op", start, op)
			return
		}
	}
	r, size := utf8.DecodeRune(src[start:])
	switch {
	case r == utf8.RuneError && size == 1:
		s.fail(start, "invalid UTF-8 encoding")
	case r == 0:
		s.fail(start, "invalid NUL character")
	case r == '\'':
		s.fail(start, "invalid character U+0027 ''': strings are written in double quotes")
	}
	s.fail(start, "invalid character %U %q", r, r)
}

func (s *scanner) str() {
	src, start := s.src, s.off
	i := start + 1
	for {
		if i >= len(src) || src[i] == '\n' {
			s.fail(start, "string literal not terminated")
		}
		c := src[i]
		if c == '"' {
			i++
			break
		}
		if c == '\\' {
			i = s.escape(i)
			continue
		}
		if c == 0 {
			s.fail(i, "invalid NUL character in string literal")
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				s.fail(i, "invalid UTF-8 encoding in string literal")
			}
			i += size
			continue
		}
		i++
	}
	s.token("String", start, string(src[start:i]))
	s.off = i
}

// escape checks the escape sequence at src[i] == '\\' and returns the offset
// after it. The sequences are Go's.
func (s *scanner) escape(i int) int {
	src := s.src
	if i+1 >= len(src) || src[i+1] == '\n' {
		s.fail(s.off, "string literal not terminated")
	}
	var n, base, maxv int
	switch src[i+1] {
	case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\', '"':
		return i + 2
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, base, maxv = 3, 8, 255
		i--
	case 'x':
		n, base, maxv = 2, 16, 255
	case 'u':
		n, base, maxv = 4, 16, utf8.MaxRune
	case 'U':
		n, base, maxv = 8, 16, utf8.MaxRune
	default:
		s.fail(i, "unknown escape sequence \\%c in string literal", rune(src[i+1]))
	}
	at := i
	if base == 8 {
		at++
	}
	j := i + 2
	v := 0
	for k := 0; k < n; k++ {
		if j >= len(src) {
			s.fail(s.off, "string literal not terminated")
		}
		d := digitVal(src[j])
		if d >= base {
			s.fail(j, "invalid character %q in escape sequence", rune(src[j]))
		}
		v = v*base + d
		j++
	}
	if v > maxv || base == 16 && n > 2 && 0xD800 <= v && v < 0xE000 {
		s.fail(at, "escape sequence is an invalid Unicode code point")
	}
	return j
}

func digitVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return 16
}

// number scans an integer or floating-point literal with Go's syntax (no
// hexadecimal floats, no imaginary numbers) and checks its digits.
func (s *scanner) number() {
	src, start := s.src, s.off
	i := start
	digits := func(valid func(byte) bool) {
		for i < len(src) && (valid(src[i]) || src[i] == '_') {
			i++
		}
	}
	isFloat := false
	base := 10
	if src[i] == '0' && i+1 < len(src) && strings.IndexByte("xXbBoO", src[i+1]) >= 0 {
		switch src[i+1] | 0x20 {
		case 'x':
			base = 16
		case 'b':
			base = 2
		case 'o':
			base = 8
		}
		i += 2
		digits(func(c byte) bool { return digitVal(c) < 16 })
	} else {
		digits(isDigit)
		if i < len(src) && src[i] == '.' {
			isFloat = true
			i++
			digits(isDigit)
		}
		if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
			isFloat = true
			i++
			if i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
			if i >= len(src) || !isDigit(src[i]) {
				s.fail(start, "exponent has no digits in %s", short(string(src[start:i])))
			}
			digits(isDigit)
		}
	}
	lit := string(src[start:i])
	if isFloat {
		if _, err := strconv.ParseFloat(lit, 64); err != nil && !isRange(err) {
			s.fail(start, "invalid floating-point literal %s", short(lit))
		}
		s.token("Float", start, lit)
	} else {
		s.checkInt(start, lit, base)
		s.token("Int", start, lit)
	}
	s.off = i
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (s *scanner) checkInt(start int, lit string, base int) {
	body := lit
	name := map[int]string{2: "binary", 8: "octal", 10: "decimal", 16: "hexadecimal"}[base]
	if base != 10 {
		body = lit[2:]
	} else if len(lit) > 1 && lit[0] == '0' {
		base, name = 8, "octal" // a leading 0 means octal, as in Go
	}
	for k := 0; k < len(body); k++ {
		if c := body[k]; c != '_' && digitVal(c) >= base {
			s.fail(start+len(lit)-len(body)+k, "invalid digit %q in %s literal", rune(c), name)
		}
	}
	if strings.Trim(body, "_") == "" && base != 10 && len(lit) > 1 && lit[1] > '9' {
		s.fail(start, "%s literal has no digits", name)
	}
	if _, err := strconv.ParseUint(lit, 0, 64); err != nil && !isRange(err) {
		s.fail(start, "'_' must separate successive digits in %s", short(lit))
	}
}

// Package format prints .tle syntax trees in the one canonical layout used by
// `tlec fmt`, in gofmt's spirit:
//
//   - Indentation is 4 spaces per block level; one statement per line; `{` on
//     the line that opens it; `} else {` and `} else if c {`.
//   - Binary operators are spaced by go/printer's precedence rule: in an
//     expression mixing precedence 5 (`* / % << >> & &^`) and 4 (`+ - | ^`)
//     operators, the tighter ones lose their blanks (`pid*BLOCK + arange(0,
//     BLOCK)`, `a<<2 | b`); otherwise every binary operator is spaced (`a * b`,
//     `offs < n`, `a && b`). Each statement expression, call argument, keyword
//     value and list or shape element counts as a top-level expression (unlike
//     gofmt, a call with several arguments does not tighten them:
//     `store(out + offs, a + b, mask: m)`); index expressions are one level
//     deeper, as in gofmt (`x[i+1]`, and `x[lo+1 : hi]` with blanks around a
//     slice colon whose bounds are binary). `a - -b` and `a & ^b` keep blanks.
//   - `, ` after commas, `name: value` keyword arguments, unary operators tight
//     (`-x`, `!m`), no blank before `(`, `[` or `.`: `x[:, None].T`,
//     `[16, 128]bf16`, `desc[bf16, 64, 64]`, `BLOCK const i32`. A trailing comma
//     is dropped unless a comment ending the line follows it.
//   - Parentheses are printed exactly as written, around expressions and
//     around a single func result (`(f32)`). Lines are never wrapped, and
//     an expression written over several lines is joined onto one, unless a
//     // comment inside it forces a line end (the next line is then indented one
//     level deeper).
//   - Exactly one blank line separates top-level declarations, except that
//     consecutive top-level consts keep the source's choice of none or one.
//     Elsewhere runs of blank lines collapse to one; there is none right after
//     `{` or right before `}`, and none at the start or end of the file, which
//     ends in exactly one newline.
//   - A kernel, func or role body written on one line in the source stays on
//     one line (`func f(x f32) f32 { return x }`, statements joined by `; `)
//     when it holds one to five assignments, calls, returns or consts, no
//     comments, and the line fits in 100 columns; otherwise it is expanded.
//     An empty body prints as `{}`, an empty if/for/else block as `{` newline
//     `}` (as gofmt does).
//   - Every comment is kept, in order, verbatim but for trailing white space,
//     which is removed from every line, as gofmt does. A comment that followed code
//     on its line still does, after one space; a comment on its own line stays
//     on its own line, indented with the code it precedes (or, at the end of a
//     block, with the block's statements). Trailing comments on consecutive
//     lines of the same indentation are aligned one space after the longest
//     code among them, as gofmt does; a line without one, a blank line or a
//     change of indentation ends the run.
//
// Formatting is idempotent, and the output depends on the source's layout only
// through blank lines, one-line bodies and comment placement: any horizontal
// spacing and indentation of a program formats to the same bytes.
package format

import (
	"bytes"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/parser"
)

// Source parses src as the file name and returns it formatted. On a syntax
// error it returns the parser's diag.List.
func Source(name string, src []byte) ([]byte, error) {
	f, err := parser.ParseFile(name, src)
	if err != nil {
		return nil, err
	}
	return Node(f), nil
}

// Node formats a parsed file. The tree's positions and its File.Src are used
// to place comments and blank lines.
func Node(f *ast.File) []byte {
	if f == nil {
		return nil
	}
	p := &printer{lastEnd: -1, binMemo: map[*ast.BinaryExpr]binInfo{}}
	if f.File != nil {
		p.src = f.File.Src
	}
	p.comments = f.Comments
	p.brk = brk{1, 2}
	p.hasBrk = true
	p.file(f)
	return p.finish()
}

const (
	indentWidth   = 4
	maxOneLine    = 100 // columns a one-line body may take
	maxOneLineLen = 5   // statements a one-line body may hold
)

type brk struct{ min, max int }

type printer struct {
	src      []byte
	comments []*ast.Comment
	ci       int // the next comment to print

	out     []byte
	indent  int
	lastEnd int // source offset just after the last printed item; -1 before any

	// whitespace owed before the next item
	hasBrk  bool // a line break, with newline counts bounded by brk
	brk     brk
	space   bool // one space
	forceNL bool // a // comment ended the line: the next item starts a new one

	lastNum  bool  // the last token printed is a number literal
	nl       int   // line ends written to out
	marks    []int // offsets in out where a trailing comment's separator starts
	markLine int   // the value of nl when the last mark was made
	binMemo  map[*ast.BinaryExpr]binInfo
}

// ------------------------------------------------------------------ emitting

func (p *printer) setBreak(min, max int) {
	p.hasBrk, p.brk = true, brk{min, max}
}

func (p *printer) validPos(pos diag.Pos) bool {
	return pos.IsValid() && int(pos) <= len(p.src)
}

// newlines counts the line ends in the source between the last printed item
// and pos.
func (p *printer) newlines(pos diag.Pos) int {
	if p.lastEnd < 0 || !p.validPos(pos) || int(pos) < p.lastEnd {
		return 0
	}
	return bytes.Count(p.src[p.lastEnd:pos], []byte{'\n'})
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }

func (p *printer) writeIndent(level int) {
	for i := 0; i < level*indentWidth; i++ {
		p.out = append(p.out, ' ')
	}
}

func (p *printer) writeNewlines(n int) {
	if len(p.out) == 0 {
		return
	}
	// drop trailing blanks on the line being ended
	for len(p.out) > 0 && p.out[len(p.out)-1] == ' ' {
		p.out = p.out[:len(p.out)-1]
	}
	for i := 0; i < n; i++ {
		p.out = append(p.out, '\n')
	}
	p.nl += n
}

// token prints one token whose source offset is pos (NoPos for a token the
// printer supplies). Comments before pos are printed first.
func (p *printer) token(pos diag.Pos, text string) {
	if p.validPos(pos) {
		p.flush(pos)
	}
	p.separate(pos, text)
	p.out = append(p.out, text...)
	if p.validPos(pos) {
		p.lastEnd = int(pos) + len(text)
	}
}

func isCloser(text string) bool { return text == ")" || text == "]" || text == "}" }

// separate writes the whitespace owed before an item.
func (p *printer) separate(pos diag.Pos, text string) {
	switch {
	case p.hasBrk:
		p.writeNewlines(clamp(p.newlines(pos), p.brk.min, p.brk.max))
		p.writeIndent(p.indent)
	case p.forceNL:
		p.writeNewlines(1)
		if isCloser(text) {
			p.writeIndent(p.indent)
		} else {
			p.writeIndent(p.indent + 1)
		}
	case p.space && text != "," && text != ")" && text != "]":
		p.out = append(p.out, ' ')
	case mayCombine(p.out, text, p.lastNum):
		p.out = append(p.out, ' ')
	}
	p.lastNum = false
	p.hasBrk, p.forceNL, p.space = false, false, false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// mayCombine reports whether text written right after out would lex
// differently: two words, an integer and a ".", operators that form another
// operator or a comment.
func mayCombine(out []byte, text string, lastNum bool) bool {
	if len(out) == 0 || text == "" {
		return false
	}
	last, next := out[len(out)-1], text[0]
	switch {
	case isWordByte(last) && isWordByte(next):
		return true
	case next == '.' && lastNum:
		// a number literal followed by a selector: `1.T` would lex as `1.` T
		return true
	case last == '/' && (next == '/' || next == '*'):
		return true
	case last == '&' && (next == '^' || next == '&'):
		return true
	case (last == '-' || last == '+' || last == '|' || last == '<' || last == '>') && next == last:
		return true
	case (last == '<' || last == '>' || last == '=' || last == '!' || last == ':') && next == '=':
		return true
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// flush prints the comments that start before pos.
func (p *printer) flush(pos diag.Pos) {
	for p.ci < len(p.comments) && p.comments[p.ci].Start < pos {
		c := p.comments[p.ci]
		p.ci++
		p.comment(c)
	}
}

func (p *printer) flushAll() {
	for p.ci < len(p.comments) {
		c := p.comments[p.ci]
		p.ci++
		p.comment(c)
	}
}

func (p *printer) atLineStart() bool {
	for i := len(p.out) - 1; i >= 0; i-- {
		switch p.out[i] {
		case ' ':
			continue
		case '\n':
			return true
		}
		return false
	}
	return true
}

func (p *printer) comment(c *ast.Comment) {
	start := int(c.Start)
	valid := start >= 0 && start <= len(p.src)
	sameLine := valid && p.lastEnd >= 0 && start >= p.lastEnd &&
		bytes.IndexByte(p.src[p.lastEnd:start], '\n') < 0 && !p.atLineStart() && !p.forceNL
	lineComment := strings.HasPrefix(c.Text, "//")
	if sameLine {
		if p.hasBrk && (len(p.marks) == 0 || p.markLine != p.nl) {
			p.marks = append(p.marks, len(p.out))
			p.markLine = p.nl
		}
		if n := len(p.out); n > 0 && p.out[n-1] != '(' && p.out[n-1] != '[' || p.space || lineComment {
			p.out = append(p.out, ' ')
		}
		p.writeComment(c.Text)
		if lineComment {
			p.forceNL = true
			p.space = false
		} else if !p.hasBrk {
			p.space = true
		}
	} else {
		atStmt := p.hasBrk
		if atStmt {
			lo := max(p.brk.min, 1)
			p.writeNewlines(clamp(p.newlines(c.Start), lo, max(p.brk.max, lo)))
			p.writeIndent(p.indent)
		} else {
			p.writeNewlines(1)
			p.writeIndent(p.indent + 1)
		}
		p.writeComment(c.Text)
		p.hasBrk, p.forceNL, p.space = false, false, false
		// what follows goes on a new line when it did in the source
		end := int(c.End())
		followedByNL := lineComment || !valid || end > len(p.src)
		if !followedByNL {
			rest := p.src[end:]
			i := 0
			for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t' || rest[i] == '\r') {
				i++
			}
			followedByNL = i == len(rest) || rest[i] == '\n'
		}
		switch {
		case followedByNL && atStmt:
			p.setBreak(1, 2)
		case followedByNL:
			p.forceNL = true
		default:
			p.space = true
		}
	}
	if valid && int(c.End()) <= len(p.src) {
		p.lastEnd = int(c.End())
	}
}

// commentText is a comment's text without trailing white space on its lines.
func commentText(text string) string {
	if !strings.ContainsAny(text, " \t\r") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}

func (p *printer) writeComment(text string) {
	text = commentText(text)
	p.out = append(p.out, text...)
	p.nl += strings.Count(text, "\n")
}

// find returns the offset of tok when it is the next token after from,
// skipping white space and comments; NoPos otherwise.
func (p *printer) find(from diag.Pos, tok string) diag.Pos {
	if !p.validPos(from) {
		return diag.NoPos
	}
	src := p.src
	i := int(from)
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case bytes.HasPrefix(src[i:], []byte("//")):
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return diag.NoPos
			}
			i += j
		case bytes.HasPrefix(src[i:], []byte("/*")):
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return diag.NoPos
			}
			i += j + 4
		default:
			if bytes.HasPrefix(src[i:], []byte(tok)) {
				return diag.Pos(i)
			}
			return diag.NoPos
		}
	}
	return diag.NoPos
}

// after returns the offset just after tok found at or after from, or NoPos.
func (p *printer) after(from diag.Pos, tok string) diag.Pos {
	if at := p.find(from, tok); at.IsValid() {
		return at + diag.Pos(len(tok))
	}
	return diag.NoPos
}

// finish ends the output with one newline and aligns trailing comments.
func (p *printer) finish() []byte {
	p.setBreak(1, 2)
	p.flushAll()
	for len(p.out) > 0 && (p.out[len(p.out)-1] == ' ' || p.out[len(p.out)-1] == '\n') {
		p.out = p.out[:len(p.out)-1]
	}
	if len(p.out) > 0 {
		p.out = append(p.out, '\n')
	}
	return align(p.out, p.marks)
}

// align pads trailing comments on consecutive lines of equal indentation so
// that they start in one column, one space after the longest code.
func align(out []byte, marks []int) []byte {
	if len(marks) < 2 {
		return out
	}
	type mark struct{ line, width, indent, at int }
	var ms []mark
	line, pos := 0, 0
	lineStart := 0
	for _, m := range marks {
		for pos < m {
			if out[pos] == '\n' {
				line++
				lineStart = pos + 1
			}
			pos++
		}
		ind := 0
		for lineStart+ind < len(out) && out[lineStart+ind] == ' ' {
			ind++
		}
		ms = append(ms, mark{line: line, width: m - lineStart, indent: ind, at: m})
	}
	pad := make(map[int]int) // mark offset -> extra spaces
	for i := 0; i < len(ms); {
		j := i + 1
		for j < len(ms) && ms[j].line == ms[j-1].line+1 && ms[j].indent == ms[i].indent {
			j++
		}
		width := 0
		for _, m := range ms[i:j] {
			width = max(width, m.width)
		}
		for _, m := range ms[i:j] {
			if m.width < width {
				pad[m.at] = width - m.width
			}
		}
		i = j
	}
	if len(pad) == 0 {
		return out
	}
	res := make([]byte, 0, len(out)+len(pad)*8)
	prev := 0
	for _, m := range ms {
		if n, ok := pad[m.at]; ok {
			res = append(res, out[prev:m.at]...)
			res = append(res, bytes.Repeat([]byte{' '}, n)...)
			prev = m.at
		}
	}
	return append(res, out[prev:]...)
}

// snapshot and restore let the printer try a one-line body and take it back.
type snapshot struct {
	outLen, ci, lastEnd, marks int
	nl, markLine               int
	hasBrk, space, forceNL     bool
	brk                        brk
	indent                     int
}

func (p *printer) save() snapshot {
	return snapshot{len(p.out), p.ci, p.lastEnd, len(p.marks), p.nl, p.markLine, p.hasBrk, p.space, p.forceNL, p.brk, p.indent}
}

func (p *printer) restore(s snapshot) {
	p.out, p.ci, p.lastEnd, p.marks = p.out[:s.outLen], s.ci, s.lastEnd, p.marks[:s.marks]
	p.nl, p.markLine = s.nl, s.markLine
	p.hasBrk, p.space, p.forceNL, p.brk, p.indent = s.hasBrk, s.space, s.forceNL, s.brk, s.indent
}

func (p *printer) lineWidth() int {
	i := bytes.LastIndexByte(p.out, '\n')
	return len(p.out) - i - 1
}

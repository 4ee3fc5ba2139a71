package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/tlego/tle/diag"
)

// ---- layout parsers

var (
	layoutMu      sync.RWMutex
	layoutParsers []func(string) (Layout, error)
)

// RegisterLayoutParser adds a parser for layouts in the text form. It is
// given the text after '#' (for example `blocked<[1,4],[8,4],[4,1]>`) and
// returns (nil, nil) when the text is not one of its kinds, so several
// parsers can coexist. A layout's String must keep brackets balanced and have
// no whitespace and no ',', '>', ')', ']' or '}' outside brackets.
func RegisterLayoutParser(fn func(string) (Layout, error)) {
	layoutMu.Lock()
	defer layoutMu.Unlock()
	layoutParsers = append(layoutParsers, fn)
}

// ParseLayout parses a layout's text (without '#') with the registered parsers.
func ParseLayout(s string) (Layout, error) {
	layoutMu.RLock()
	defer layoutMu.RUnlock()
	for _, fn := range layoutParsers {
		l, err := fn(s)
		if err != nil {
			return nil, err
		}
		if l != nil {
			return l, nil
		}
	}
	return nil, fmt.Errorf("unknown layout #%s (no registered layout parser accepts it)", s)
}

// ---- lexer

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tRef    // %name or %12
	tSym    // @name or @"name"
	tInt    // 12, -3
	tFloat  // 1.0, -2.5e-3
	tString // "..."
	tName   // /*text*/
	tPunct  // ( ) { } [ ] < > , : = * ! # ^ - ->
)

type token struct {
	kind tokKind
	text string // for tString and tSym/tName with quotes: the unquoted text
	off  int
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return strconv.Quote(t.text)
	case tName:
		return "/*" + t.text + "*/"
	}
	return "'" + t.text + "'"
}

type parser struct {
	file *diag.File
	src  []byte
	pos  int
	buf  []token
	err  error

	// locations: FILE:LINE:COL ones wait for fixLocs
	lineLocs   []lineLoc
	locFile    string
	offsetLocs bool

	// per function
	fn   *Func
	vals map[string]*Value
}

// ParseError is a syntax error in a .tir text.
type ParseError struct{ Diag *diag.Diagnostic }

func (e *ParseError) Error() string { return e.Diag.Error() }

type bailout struct{}

func (p *parser) failf(off int, format string, args ...any) {
	if p.err == nil {
		p.err = &ParseError{&diag.Diagnostic{File: p.file, Pos: diag.Pos(off), End: diag.NoPos, Msg: fmt.Sprintf(format, args...)}}
	}
	panic(bailout{})
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c)
}

func (p *parser) lex() token {
	src := p.src
	for p.pos < len(src) {
		c := src[p.pos]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			p.pos++
			continue
		}
		if c == '/' && p.pos+1 < len(src) && src[p.pos+1] == '/' {
			for p.pos < len(src) && src[p.pos] != '\n' {
				p.pos++
			}
			continue
		}
		break
	}
	start := p.pos
	if p.pos >= len(src) {
		return token{kind: tEOF, off: start}
	}
	c := src[p.pos]
	switch {
	case c == '/' && p.pos+1 < len(src) && src[p.pos+1] == '*':
		end := strings.Index(string(src[p.pos+2:]), "*/")
		if end < 0 {
			p.failf(start, "unterminated /* name */")
		}
		text := string(src[p.pos+2 : p.pos+2+end])
		p.pos += end + 4
		if strings.HasPrefix(text, `"`) {
			u, err := strconv.Unquote(text)
			if err != nil {
				p.failf(start, "bad quoted name %s", text)
			}
			text = u
		}
		return token{kind: tName, text: text, off: start}
	case c == '"':
		return token{kind: tString, text: p.lexString(), off: start}
	case c == '%' || c == '@':
		p.pos++
		kind := tRef
		if c == '@' {
			kind = tSym
		}
		if p.pos < len(src) && src[p.pos] == '"' {
			return token{kind: kind, text: p.lexString(), off: start}
		}
		if p.pos < len(src) && src[p.pos] == '<' { // %<undefined:3>: printed for broken IR only
			p.failf(start, "reference to an undefined value (the IR was printed while invalid)")
		}
		s := p.pos
		for p.pos < len(src) && isIdentByte(src[p.pos]) {
			p.pos++
		}
		if s == p.pos {
			p.failf(start, "expected a name after %c", c)
		}
		return token{kind: kind, text: string(src[s:p.pos]), off: start}
	case isDigit(c) || c == '-' && p.pos+1 < len(src) && isDigit(src[p.pos+1]):
		p.pos++
		kind := tInt
		for p.pos < len(src) {
			d := src[p.pos]
			if isDigit(d) {
				p.pos++
			} else if d == '.' {
				kind = tFloat
				p.pos++
			} else if (d == 'e' || d == 'E') && p.pos+1 < len(src) {
				kind = tFloat
				p.pos++
				if src[p.pos] == '+' || src[p.pos] == '-' {
					p.pos++
				}
			} else {
				break
			}
		}
		return token{kind: kind, text: string(src[start:p.pos]), off: start}
	case isIdentByte(c):
		for p.pos < len(src) && isIdentByte(src[p.pos]) {
			p.pos++
		}
		return token{kind: tIdent, text: string(src[start:p.pos]), off: start}
	case c == '-' && p.pos+1 < len(src) && src[p.pos+1] == '>':
		p.pos += 2
		return token{kind: tPunct, text: "->", off: start}
	case strings.IndexByte("(){}[]<>,:=*!#^-", c) >= 0:
		p.pos++
		return token{kind: tPunct, text: string(c), off: start}
	}
	p.failf(start, "unexpected character %q", c)
	return token{}
}

func (p *parser) lexString() string {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) && p.src[p.pos] != '"' {
		if p.src[p.pos] == '\\' {
			p.pos++
		}
		if p.pos < len(p.src) && p.src[p.pos] == '\n' {
			break
		}
		p.pos++
	}
	if p.pos >= len(p.src) || p.src[p.pos] != '"' {
		p.failf(start, "unterminated string")
	}
	p.pos++
	s, err := strconv.Unquote(string(p.src[start:p.pos]))
	if err != nil {
		p.failf(start, "bad string literal: %v", err)
	}
	return s
}

func (p *parser) peekN(n int) token {
	for len(p.buf) <= n {
		p.buf = append(p.buf, p.lex())
	}
	return p.buf[n]
}

func (p *parser) peek() token { return p.peekN(0) }

func (p *parser) next() token {
	t := p.peek()
	p.buf = p.buf[1:]
	return t
}

func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.kind == tPunct || t.kind == tIdent) && t.text == text
}

func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(text string) token {
	t := p.next()
	if (t.kind != tPunct && t.kind != tIdent) || t.text != text {
		p.failf(t.off, "expected '%s', found %s", text, t)
	}
	return t
}

func (p *parser) expectKind(k tokKind, what string) token {
	t := p.next()
	if t.kind != k {
		p.failf(t.off, "expected %s, found %s", what, t)
	}
	return t
}

func (p *parser) integer() int64 {
	t := p.expectKind(tInt, "an integer")
	v, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		p.failf(t.off, "bad integer %s", t.text)
	}
	return v
}

// rawLayout reads a layout's text after '#', bracket-balanced.
func (p *parser) rawLayout() (string, int) {
	if len(p.buf) > 0 {
		p.pos = p.buf[0].off
		p.buf = p.buf[:0]
	}
	start, depth := p.pos, 0
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if depth == 0 && (strings.IndexByte(",>)}] \t\r\n", c) >= 0) {
			break
		}
		switch c {
		case '<', '[', '(', '{':
			depth++
		case '>', ']', ')', '}':
			depth--
		}
		p.pos++
	}
	if start == p.pos {
		p.failf(start, "expected a layout after '#'")
	}
	return string(p.src[start:p.pos]), start
}

// ---- entry points

// Parse reads a module in the text form. name names the text (for error
// positions, which are offsets into src); the module's File is the .tle file
// named by the `module "..."` header, without its source text.
func Parse(name string, src []byte) (m *Module, err error) {
	p := &parser{file: diag.NewFile(name, src), src: src}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			m, err = nil, p.err
		}
	}()
	m = &Module{}
	if p.accept("module") {
		m.File = diag.NewFile(p.expectKind(tString, "a file name").text, nil)
	}
	for p.peek().kind != tEOF {
		m.Funcs = append(m.Funcs, p.fun())
	}
	p.fixLocs(m)
	return m, nil
}

// ParseType parses a type in its text form.
func ParseType(s string) (t Type, err error) {
	p := &parser{file: diag.NewFile("type", []byte(s)), src: []byte(s)}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			t, err = nil, p.err
		}
	}()
	t = p.typ()
	if tok := p.peek(); tok.kind != tEOF {
		p.failf(tok.off, "unexpected %s after type", tok)
	}
	return t, nil
}

func (p *parser) fun() *Func {
	t := p.next()
	if t.kind != tIdent || (t.text != "kernel" && t.text != "func") {
		p.failf(t.off, "expected 'kernel' or 'func', found %s", t)
	}
	f := &Func{Kernel: t.text == "kernel", Constants: map[string]string{}, Attrs: Attrs{}, Pos: diag.NoPos}
	f.Body = &Block{}
	p.fn, p.vals = f, map[string]*Value{}
	f.Name = p.expectKind(tSym, "@name").text
	p.expect("(")
	for !p.is(")") {
		if len(f.Params) > 0 {
			p.expect(",")
		}
		rt := p.expectKind(tRef, "a parameter %name")
		name, named := "", !isDigit(rt.text[0])
		if named {
			name = rt.text
		}
		vname := name
		if p.peek().kind == tName {
			vname = p.next().text
			if !named {
				name = vname
			}
		}
		p.expect(":")
		ty := p.typ()
		prm := &Param{Name: name, Type: ty, Pos: diag.NoPos}
		p.optLoc(&prm.Pos)
		f.Params = append(f.Params, prm)
		v := f.AddBlockArg(f.Body, ty, vname)
		p.define(rt, v)
	}
	p.expect(")")
	if p.accept("->") {
		p.expect("(")
		for !p.is(")") {
			if len(f.Results) > 0 {
				p.expect(",")
			}
			f.Results = append(f.Results, p.typ())
		}
		p.expect(")")
	}
	if p.accept("attributes") {
		p.expect("{")
		for !p.is("}") {
			if len(f.Attrs)+len(f.Constants) > 0 {
				p.expect(",")
			}
			kt := p.peek()
			key := p.attrKey()
			if key == "constants" && p.is("{") {
				p.next()
				for !p.is("}") {
					if len(f.Constants) > 0 {
						p.expect(",")
					}
					k := p.attrKey()
					f.Constants[k] = p.expectKind(tString, "a string").text
				}
				p.expect("}")
				continue
			}
			if _, dup := f.Attrs[key]; dup {
				p.failf(kt.off, "duplicate attribute %s", key)
			}
			f.Attrs[key] = p.attrValue()
		}
		p.expect("}")
	}
	p.optLoc(&f.Pos)
	p.expect("{")
	p.blockBody(f.Body, false)
	p.expect("}")
	return f
}

func (p *parser) attrKey() string {
	t := p.next()
	if t.kind != tIdent && t.kind != tString {
		p.failf(t.off, "expected an attribute name, found %s", t)
	}
	p.expect("=")
	return t.text
}

// optLoc reads an optional location into *dst: loc(OFFSET), a byte offset,
// or loc(FILE:LINE:COL) (FILE bare or a quoted string), which Parse turns
// into an offset once the whole module is read (fixLocs).
func (p *parser) optLoc(dst *diag.Pos) {
	*dst = diag.NoPos
	if !(p.peek().kind == tIdent && p.peek().text == "loc" && p.peekN(1).text == "(") {
		return
	}
	p.next()
	p.next()
	if t := p.peek(); t.kind == tInt && p.peekN(1).text == ")" {
		p.next()
		p.next()
		v, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil || v < 0 {
			p.failf(t.off, "bad location offset %s", t.text)
		}
		*dst = diag.Pos(v)
		p.offsetLocs = true
		return
	}
	// FILE:LINE:COL, read raw: a bare file name may hold '.', '/' and '-'.
	if len(p.buf) > 0 {
		p.pos = p.buf[0].off
		p.buf = p.buf[:0]
	}
	start := p.pos
	var name string
	if p.pos < len(p.src) && p.src[p.pos] == '"' {
		name = p.lexString()
	} else {
		for p.pos < len(p.src) && isLocNameByte(p.src[p.pos]) {
			p.pos++
		}
		// The file name ends before the last two ":NUMBER" parts.
		name = string(p.src[start:p.pos])
		for range 2 {
			if i := strings.LastIndexByte(name, ':'); i >= 0 {
				name = name[:i]
			}
		}
		p.pos = start + len(name)
	}
	if name == "" {
		p.failf(start, "expected loc(OFFSET) or loc(FILE:LINE:COL)")
	}
	nums := [2]int{}
	for i := range nums {
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			p.failf(p.pos, "expected ':' in loc(FILE:LINE:COL)")
		}
		p.pos++
		s := p.pos
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
		n, err := strconv.Atoi(string(p.src[s:p.pos]))
		if err != nil || n < 1 {
			p.failf(s, "expected a line and a column from 1 in loc(FILE:LINE:COL)")
		}
		nums[i] = n
	}
	p.expect(")")
	if p.locFile == "" {
		p.locFile = name
	} else if name != p.locFile {
		p.failf(start, "location in file %q: the module's other locations are in %q", name, p.locFile)
	}
	p.lineLocs = append(p.lineLocs, lineLoc{dst, nums[0], nums[1], start})
}

func isLocNameByte(c byte) bool {
	return isIdentByte(c) || strings.IndexByte("./-+~:@", c) >= 0
}

// lineLoc is a FILE:LINE:COL location waiting for its offset.
type lineLoc struct {
	dst       *diag.Pos
	line, col int
	off       int // in the .tir text, for errors
}

// fixLocs gives the FILE:LINE:COL locations offsets into a stand-in source
// (spaces, each line as long as its largest column) that the module's File
// gets, so that Print writes the same FILE:LINE:COL back: the .tle text
// itself is not in the .tir.
func (p *parser) fixLocs(m *Module) {
	if len(p.lineLocs) == 0 {
		return
	}
	if p.offsetLocs {
		p.failf(p.lineLocs[0].off, "loc(FILE:LINE:COL) and loc(OFFSET) in one module")
	}
	if m.File != nil && m.File.Name != p.locFile {
		p.failf(p.lineLocs[0].off, "location in file %q in module %q", p.locFile, m.File.Name)
	}
	width := map[int]int{}
	lines := 0
	for _, l := range p.lineLocs {
		width[l.line] = max(width[l.line], l.col)
		lines = max(lines, l.line)
	}
	starts := make([]int, lines+1)
	var src []byte
	for ln := 1; ln <= lines; ln++ {
		starts[ln] = len(src)
		src = append(src, strings.Repeat(" ", width[ln])...)
		src = append(src, '\n')
	}
	for _, l := range p.lineLocs {
		*l.dst = diag.Pos(starts[l.line] + l.col - 1)
	}
	m.File = diag.NewFile(p.locFile, src)
}

func (p *parser) define(t token, v *Value) {
	if _, dup := p.vals[t.text]; dup {
		p.failf(t.off, "value %%%s defined twice", t.text)
	}
	p.vals[t.text] = v
}

func (p *parser) use() *Value {
	t := p.expectKind(tRef, "a %value")
	v, ok := p.vals[t.text]
	if !ok {
		p.failf(t.off, "undefined value %%%s", t.text)
	}
	return v
}

// blockBody parses optional region arguments and ops up to the closing '}'.
func (p *parser) blockBody(b *Block, region bool) {
	if region && p.is("^") {
		p.next()
		p.expect("(")
		for !p.is(")") {
			if len(b.Args) > 0 {
				p.expect(",")
			}
			rt := p.expectKind(tRef, "a %value")
			name := ""
			if p.peek().kind == tName {
				name = p.next().text
			}
			p.expect(":")
			v := p.fn.AddBlockArg(b, p.typ(), name)
			p.define(rt, v)
		}
		p.expect(")")
		p.expect(":")
	}
	for !p.is("}") {
		if p.peek().kind == tEOF {
			p.failf(p.peek().off, "missing '}'")
		}
		p.op(b)
	}
}

func (p *parser) op(b *Block) {
	type res struct {
		tok  token
		name string
	}
	var results []res
	if p.peek().kind == tRef {
		for {
			r := res{tok: p.expectKind(tRef, "a %value")}
			if p.peek().kind == tName {
				r.name = p.next().text
			}
			results = append(results, r)
			if !p.accept(",") {
				break
			}
		}
		p.expect("=")
	}
	kt := p.expectKind(tIdent, "an op name")
	op := &Op{Kind: Kind(kt.text), Attrs: Attrs{}, Parent: b, Pos: diag.NoPos}
	p.expect("(")
	for !p.is(")") {
		if len(op.Operands) > 0 {
			p.expect(",")
		}
		op.Operands = append(op.Operands, p.use())
	}
	p.expect(")")
	// '{' opens an attribute dictionary when followed by `key =`, else a region.
	if p.is("{") {
		k, eq := p.peekN(1), p.peekN(2)
		if (k.kind == tIdent || k.kind == tString) && eq.kind == tPunct && eq.text == "=" {
			p.next()
			for !p.is("}") {
				if len(op.Attrs) > 0 {
					p.expect(",")
				}
				kt := p.peek()
				key := p.attrKey()
				if _, dup := op.Attrs[key]; dup {
					p.failf(kt.off, "duplicate attribute %s", key)
				}
				op.Attrs[key] = p.attrValue()
			}
			p.expect("}")
		}
	}
	var types []Type
	if p.accept(":") {
		for {
			types = append(types, p.typ())
			if !p.accept(",") {
				break
			}
		}
	}
	if len(types) != len(results) {
		p.failf(kt.off, "%s has %d results but %d result types", op.Kind, len(results), len(types))
	}
	p.optLoc(&op.Pos)
	for p.is("{") {
		p.next()
		rg := &Block{Parent: op}
		op.Regions = append(op.Regions, rg)
		p.blockBody(rg, true)
		p.expect("}")
	}
	for i, r := range results {
		v := p.fn.NewValue(types[i], r.name, op, nil, i)
		op.Results = append(op.Results, v)
		p.define(r.tok, v)
	}
	b.Ops = append(b.Ops, op)
}

func (p *parser) attrValue() any {
	t := p.peek()
	switch t.kind {
	case tInt:
		return p.integer()
	case tFloat:
		p.next()
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			p.failf(t.off, "bad float %s", t.text)
		}
		return f
	case tString:
		p.next()
		return t.text
	case tIdent:
		switch t.text {
		case "true", "false":
			p.next()
			return t.text == "true"
		case "inf":
			p.next()
			return math.Inf(1)
		case "nan":
			p.next()
			return math.NaN()
		}
		return p.typ()
	case tPunct:
		switch t.text {
		case "-":
			p.next()
			if n := p.next(); n.kind != tIdent || n.text != "inf" {
				p.failf(t.off, "expected a number after '-'")
			}
			return math.Inf(-1)
		case "[":
			// an int list, or a tile type when an element type follows ']'
			shape := p.intList()
			if n := p.peek(); n.kind == tIdent || n.kind == tPunct && (n.text == "*" || n.text == "!") {
				ints := make([]int, len(shape))
				for i, x := range shape {
					ints[i] = int(x)
				}
				return p.tileAfterShape(ints)
			}
			return shape
		case "*", "!":
			return p.typ()
		}
	}
	p.failf(t.off, "expected an attribute value, found %s", t)
	return nil
}

func (p *parser) intList() []int64 {
	p.expect("[")
	out := []int64{}
	for !p.is("]") {
		if len(out) > 0 {
			p.expect(",")
		}
		out = append(out, p.integer())
	}
	p.expect("]")
	return out
}

func (p *parser) shape() []int {
	l := p.intList()
	out := make([]int, len(l))
	for i, x := range l {
		out[i] = int(x)
	}
	return out
}

func (p *parser) dtype() DType {
	t := p.expectKind(tIdent, "a dtype")
	d, ok := ParseDType(t.text)
	if !ok {
		p.failf(t.off, "unknown dtype %s", t.text)
	}
	return d
}

func (p *parser) layout() Layout {
	s, off := p.rawLayout()
	l, err := ParseLayout(s)
	if err != nil {
		p.failf(off, "%v", err)
	}
	return l
}

func (p *parser) typ() Type {
	t := p.peek()
	switch {
	case t.kind == tIdent:
		return p.dtype()
	case t.kind == tPunct && t.text == "*":
		p.next()
		return &Pointer{Elem: p.dtype(), Space: Global}
	case t.kind == tPunct && t.text == "[":
		return p.tileAfterShape(p.shape())
	case t.kind == tPunct && t.text == "!":
		p.next()
		kt := p.expectKind(tIdent, "a type name")
		switch kt.text {
		case "barrier":
			if p.accept("<") {
				at := p.peek().off
				slots := p.integer()
				if slots < 1 {
					p.failf(at, "bad barrier slot count %d", slots)
				}
				p.expect(">")
				return &Barrier{Slots: int(slots)}
			}
			return &Barrier{}
		case "ptr":
			p.expect("<")
			st := p.expectKind(tIdent, "an address space")
			var space AddrSpace
			switch {
			case st.text == "smem":
				space = Shared
			case st.text == "cluster":
				space = Cluster
			case strings.HasPrefix(st.text, "as"):
				n, err := strconv.Atoi(st.text[2:])
				if err != nil {
					p.failf(st.off, "bad address space %s", st.text)
				}
				space = AddrSpace(n)
			default:
				p.failf(st.off, "bad address space %s", st.text)
			}
			p.expect(",")
			d := p.dtype()
			p.expect(">")
			return &Pointer{Elem: d, Space: space}
		case "smem":
			p.expect("<")
			md := &MemDesc{Shape: p.shape(), Elem: p.dtype(), Space: Shared}
			md.Order = RowMajor(len(md.Shape))
			for p.accept(",") {
				switch {
				case p.accept("order"):
					p.expect("=")
					md.Order = p.shape()
				case p.accept("cluster"):
					md.Space = Cluster
				case p.accept("#"):
					md.Layout = p.layout()
				default:
					p.failf(p.peek().off, "expected order=, cluster or #layout in !smem, found %s", p.peek())
				}
			}
			p.expect(">")
			return md
		case "pipe":
			p.expect("<")
			pp := &Pipe{Capacity: int(p.integer())}
			for p.accept(",") {
				name := p.expectKind(tIdent, "a field name").text
				p.expect(":")
				fl := PipeField{Name: name, Shape: p.shape()}
				fl.Elem = p.dtype()
				pp.Fields = append(pp.Fields, fl)
			}
			p.expect(">")
			return pp
		case "slot":
			p.expect("<")
			rw := p.expectKind(tIdent, "read or write")
			if rw.text != "read" && rw.text != "write" {
				p.failf(rw.off, "expected read or write, found %s", rw)
			}
			p.expect(",")
			pt := p.typ()
			pipe, ok := pt.(*Pipe)
			if !ok {
				p.failf(rw.off, "a slot's type must be a !pipe, found %s", pt)
			}
			p.expect(">")
			return &Slot{Pipe: pipe, Writer: rw.text == "write"}
		case "mesh":
			p.expect("<")
			var m Mesh
			for i := range 3 {
				if i > 0 {
					p.expect(",")
				}
				m.Dims[i] = int(p.integer())
			}
			if p.accept(",") {
				m.Devices = int(p.integer())
			}
			p.expect(">")
			return &m
		case "desc":
			p.expect("<")
			d := &Desc{Elem: p.dtype()}
			p.expect(",")
			d.Block = p.shape()
			p.expect(">")
			return d
		}
		p.failf(kt.off, "unknown type !%s", kt.text)
	}
	p.failf(t.off, "expected a type, found %s", t)
	return nil
}

func (p *parser) tileAfterShape(shape []int) Type {
	tl := &Tile{Shape: shape}
	if p.is("[") {
		p.failf(p.peek().off, "a tile's element must be a dtype or a pointer")
	}
	tl.Elem = p.typ()
	if p.is("#") {
		p.next()
		tl.Layout = p.layout()
	}
	return tl
}

package ir

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tlego/tle/diag"
)

// The text form (.tir) of the IR. Print and Parse round-trip exactly:
// Print(Parse(Print(m))) == Print(m). A module looks like
//
//	module "vector_add.tle"
//
//	kernel @vector_add(%x: *f32 loc(20), %y: *f32, %n: i32) attributes {constants = {BLOCK = "1024"}, num_warps = 4} loc(0) {
//	  %0 /*pid*/ = program_id() {axis = 0} : i32 loc(12)
//	  %1 = for(%lb, %ub, %step, %acc0) : [64,64]f32 loc(40) {
//	  ^(%2 /*k*/: i32, %3 /*acc*/: [64,64]f32):
//	    ...
//	    yield(%9) loc(90)
//	  }
//	  return() loc(120)
//	}
//
// Grammar (informal):
//
//	module  := ["module" STRING] func*
//	func    := ("kernel" | "func") @NAME "(" [param {"," param}] ")" ["->" "(" types ")"]
//	           ["attributes" dict] [loc] "{" block "}"
//	param   := %REF [NAME] ":" type [loc]
//	block   := ["^(" arg {"," arg} "):"] op*
//	op      := [result {"," result} "="] KIND "(" [%REF {"," %REF}] ")" [dict] [":" types] [loc] region*
//	region  := "{" block "}"
//	result  := %REF [NAME]          arg := %REF [NAME] ":" type
//	NAME    := "/*" text "*/"       (the value's Name; a quoted Go string when not a plain word)
//	loc     := "loc(" FILE ":" LINE ":" COL ")" | "loc(" OFFSET ")"
//	                                (the op's .tle position: FILE:LINE:COL when the module's File
//	                                 has its source, else a byte offset; absent for NoPos. FILE is
//	                                 bare when made of letters, digits and ./-+~@, else quoted.)
//	dict    := "{" [key "=" attr {"," key "=" attr}] "}"
//	attr    := INT | FLOAT | "true" | "false" | STRING | "[" ints "]" | type
//
// Values are numbered %0, %1, ... per function in program order when printed
// (their IDs are not printed); function parameters print as %NAME. Floats
// always carry a '.', an exponent, "inf" or "nan", so 1.0 (float64) and 1
// (int64) stay distinct. "//" starts a comment to the end of the line.
// Types print as their String methods; a layout prints as "#" + its String()
// and is parsed back by the parsers given to RegisterLayoutParser.

// Print returns the text form of the module. Locations print as
// FILE:LINE:COL when m.File holds the .tle source, else as byte offsets.
func Print(m *Module) string { return printModule(m, m.File) }

// PrintOffsets is Print with every location a byte offset, whatever
// m.File holds: for a copy that is parsed back and given m.File again
// (a pipeline retried from a snapshot), whose positions must stay
// offsets into that source.
func PrintOffsets(m *Module) string {
	var f *diag.File
	if m.File != nil {
		f = diag.NewFile(m.File.Name, nil)
	}
	return printModule(m, f)
}

func printModule(m *Module, file *diag.File) string {
	var b strings.Builder
	if m.File != nil {
		fmt.Fprintf(&b, "module %s\n", strconv.Quote(m.File.Name))
	}
	for i, f := range m.Funcs {
		if i > 0 || m.File != nil {
			b.WriteString("\n")
		}
		b.WriteString(printFunc(file, f))
	}
	return b.String()
}

// PrintFunc returns the text form of one function.
func PrintFunc(f *Func) string { return printFunc(nil, f) }

func printFunc(file *diag.File, f *Func) string {
	p := &printer{refs: map[*Value]string{}, file: file}
	p.number(f)
	p.fun(f)
	return p.b.String()
}

// FuncText is one function's text form with what each part of it stands
// for: the pass viewer's way from the text back to the IR.
type FuncText struct {
	Text string
	// Refs is the printed name of every value: %NAME or %N.
	Refs map[*Value]string
	// LineOps holds for each line of Text (0-based) the op it prints, nil
	// for the function's header and closing lines and a region's "}".
	LineOps []*Op
}

// PrintFuncText prints f as Print does in a module whose File is file,
// and says which op each line prints.
func PrintFuncText(file *diag.File, f *Func) FuncText {
	p := &printer{refs: map[*Value]string{}, file: file, starts: []opStart{}}
	p.number(f)
	p.fun(f)
	s := p.b.String()
	lines := make([]*Op, strings.Count(s, "\n")+1)
	line, off := 0, 0
	for _, st := range p.starts {
		line += strings.Count(s[off:st.off], "\n")
		off = st.off
		lines[line] = st.op
	}
	return FuncText{Text: s, Refs: p.refs, LineOps: lines}
}

// opStart is where an op's line starts in the printer's output.
type opStart struct {
	off int
	op  *Op
}

type printer struct {
	b    strings.Builder
	refs map[*Value]string
	file *diag.File // with its source: locations print as FILE:LINE:COL
	// starts, when not nil, records where each op's line starts
	// (PrintFuncText).
	starts []opStart
}

// loc writes " loc(...)" for a valid position: FILE:LINE:COL when the
// module's source text is known, else the byte offset.
func (p *printer) loc(pos diag.Pos) {
	if !pos.IsValid() {
		return
	}
	if p.file != nil && len(p.file.Src) > 0 {
		ps := p.file.Position(pos)
		name := p.file.Name
		if !isLocName(name) {
			name = strconv.Quote(name)
		}
		fmt.Fprintf(&p.b, " loc(%s:%d:%d)", name, ps.Line, ps.Col)
		return
	}
	fmt.Fprintf(&p.b, " loc(%d)", pos)
}

// isLocName reports file names printed bare in loc(FILE:LINE:COL).
func isLocName(s string) bool {
	if s == "" || s[0] == '"' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLocNameByte(s[i]) || s[i] == ':' {
			return false
		}
	}
	return true
}

// number assigns printed names: parameters by name where that is a unique
// identifier, everything else %0, %1, ... in program order.
func (p *printer) number(f *Func) {
	n := 0
	used := map[string]bool{}
	for i, a := range f.Body.Args {
		if i < len(f.Params) && IsIdent(f.Params[i].Name) && !used[f.Params[i].Name] {
			used[f.Params[i].Name] = true
			p.refs[a] = "%" + f.Params[i].Name
			continue
		}
		p.refs[a] = "%" + strconv.Itoa(n)
		n++
	}
	var walk func(b *Block)
	walk = func(b *Block) {
		for _, op := range b.Ops {
			for _, r := range op.Results {
				p.refs[r] = "%" + strconv.Itoa(n)
				n++
			}
			for _, rg := range op.Regions {
				for _, a := range rg.Args {
					p.refs[a] = "%" + strconv.Itoa(n)
					n++
				}
				walk(rg)
			}
		}
	}
	walk(f.Body)
}

func (p *printer) ref(v *Value) string {
	if v == nil {
		return "%<nil>"
	}
	if r, ok := p.refs[v]; ok {
		return r
	}
	return fmt.Sprintf("%%<undefined:%d>", v.ID) // invalid IR: does not parse back
}

// def prints a defined value with its name comment. defName is the name the
// parser assumes when no comment is present.
func (p *printer) def(v *Value, defName string) {
	p.b.WriteString(p.ref(v))
	if v.Name != defName {
		p.b.WriteString(" /*" + nameText(v.Name) + "*/")
	}
}

func (p *printer) fun(f *Func) {
	if f.Kernel {
		p.b.WriteString("kernel @")
	} else {
		p.b.WriteString("func @")
	}
	p.b.WriteString(symbol(f.Name))
	p.b.WriteString("(")
	for i, a := range f.Body.Args {
		if i > 0 {
			p.b.WriteString(", ")
		}
		var prm *Param
		if i < len(f.Params) {
			prm = f.Params[i]
		}
		defName := ""
		if prm != nil && p.refs[a] == "%"+prm.Name {
			defName = prm.Name
		}
		p.def(a, defName)
		p.b.WriteString(": " + typeString(a.Type))
		if prm != nil {
			p.loc(prm.Pos)
		}
	}
	p.b.WriteString(")")
	if len(f.Results) > 0 {
		p.b.WriteString(" -> (")
		for i, t := range f.Results {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.b.WriteString(typeString(t))
		}
		p.b.WriteString(")")
	}
	if len(f.Attrs) > 0 || len(f.Constants) > 0 {
		p.b.WriteString(" attributes {")
		keys := f.Attrs.Keys()
		if len(f.Constants) > 0 {
			keys = append(keys, "constants")
			sort.Strings(keys)
		}
		for i, k := range keys {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.b.WriteString(attrKey(k) + " = ")
			if k == "constants" && len(f.Constants) > 0 {
				p.b.WriteString(constantsString(f.Constants))
			} else {
				p.b.WriteString(FormatAttr(f.Attrs[k]))
			}
		}
		p.b.WriteString("}")
	}
	p.loc(f.Pos)
	p.b.WriteString(" {\n")
	p.ops(f.Body, 1)
	p.b.WriteString("}\n")
}

func constantsString(c map[string]string) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = attrKey(k) + " = " + strconv.Quote(c[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (p *printer) ops(b *Block, depth int) {
	for _, op := range b.Ops {
		p.op(op, depth)
	}
}

func (p *printer) op(op *Op, depth int) {
	if p.starts != nil {
		p.starts = append(p.starts, opStart{p.b.Len(), op})
	}
	ind := strings.Repeat("  ", depth)
	p.b.WriteString(ind)
	for i, r := range op.Results {
		if i > 0 {
			p.b.WriteString(", ")
		}
		p.def(r, "")
	}
	if len(op.Results) > 0 {
		p.b.WriteString(" = ")
	}
	p.b.WriteString(string(op.Kind) + "(")
	for i, v := range op.Operands {
		if i > 0 {
			p.b.WriteString(", ")
		}
		p.b.WriteString(p.ref(v))
	}
	p.b.WriteString(")")
	if len(op.Attrs) > 0 {
		p.b.WriteString(" " + FormatAttrs(op.Attrs))
	}
	if len(op.Results) > 0 {
		p.b.WriteString(" : ")
		for i, r := range op.Results {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.b.WriteString(typeString(r.Type))
		}
	}
	p.loc(op.Pos)
	for _, rg := range op.Regions {
		p.b.WriteString(" {\n")
		if len(rg.Args) > 0 {
			if p.starts != nil { // the region's arguments' line is its op's too
				p.starts = append(p.starts, opStart{p.b.Len(), op})
			}
			p.b.WriteString(ind + "^(")
			for i, a := range rg.Args {
				if i > 0 {
					p.b.WriteString(", ")
				}
				p.def(a, "")
				p.b.WriteString(": " + typeString(a.Type))
			}
			p.b.WriteString("):\n")
		}
		p.ops(rg, depth+1)
		p.b.WriteString(ind + "}")
	}
	p.b.WriteString("\n")
}

func typeString(t Type) string {
	if t == nil {
		return "<nil type>"
	}
	return t.String()
}

// FormatAttrs prints an attribute dictionary, keys sorted: {axis = 0, pred = "lt"}.
func FormatAttrs(a Attrs) string {
	var b strings.Builder
	b.WriteString("{")
	for i, k := range a.Keys() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(attrKey(k) + " = " + FormatAttr(a[k]))
	}
	b.WriteString("}")
	return b.String()
}

// FormatAttr prints one attribute value as the text form spells it. Values of
// a Go type outside the attribute set print as <bad T: v> (Verify reports them).
func FormatAttr(v any) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return FormatFloat(v)
	case bool:
		return strconv.FormatBool(v)
	case string:
		return strconv.Quote(v)
	case []int64:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = strconv.FormatInt(x, 10)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Type:
		if v == nil {
			return "<bad nil type>"
		}
		return v.String()
	}
	return fmt.Sprintf("<bad %T: %v>", v, v)
}

// FormatFloat prints a float so that it parses back bit-exact (NaN payloads
// aside) and never looks like an integer: 1.0, 2.5e-08, inf, -inf, nan.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	fmtc := byte('g')
	if a := math.Abs(f); a >= 1e-4 && a < 1e21 {
		fmtc = 'f' // 16777216.0 rather than 1.6777216e+07
	}
	s := strconv.FormatFloat(f, fmtc, -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// IsValidAttr reports whether v has one of the attribute Go types (int64,
// float64, bool, string, []int64, DType, Type).
func IsValidAttr(v any) bool {
	switch v := v.(type) {
	case int64, float64, bool, string, []int64:
		return true
	case Type:
		return v != nil
	}
	return false
}

// IsIdent reports whether s is an identifier of the IR text form (letters,
// digits after the first, underscores).
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// isWord reports names printed bare inside /*...*/.
func isWord(s string) bool {
	if s == "" || s[0] == '"' {
		return false
	}
	for _, c := range s {
		if c == '_' || c == '.' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

func nameText(s string) string {
	if isWord(s) {
		return s
	}
	return strconv.Quote(s)
}

func symbol(s string) string {
	if IsIdent(s) {
		return s
	}
	return strconv.Quote(s)
}

func attrKey(s string) string {
	if IsIdent(s) {
		return s
	}
	return strconv.Quote(s)
}

// PosString renders a position for messages: FILE:LINE:COL when the module's
// source text is known, else FILE@OFFSET or @OFFSET.
func PosString(f *diag.File, p diag.Pos) string {
	if !p.IsValid() {
		if f != nil {
			return f.Name + "@?"
		}
		return "@?"
	}
	if f != nil && len(f.Src) > 0 {
		return f.Position(p).String()
	}
	if f != nil {
		return fmt.Sprintf("%s@%d", f.Name, p)
	}
	return fmt.Sprintf("@%d", p)
}

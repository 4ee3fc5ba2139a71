package nvptx

import (
	"sort"
	"strconv"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/tlego/tle/ir"
)

// printModule writes the module as LLVM IR text. llir prints the
// module-level parts (globals, declarations, metadata); function bodies,
// nearly all of the text, are printed here: llir formats every operand
// through fmt, which dominated compile time. Instruction results are named
// %vN. A body with an instruction this printer does not know falls back to
// llir for the whole module.
func printModule(md *module) string {
	s, _ := printModuleRecorded(md)
	return s
}

// printModuleRecorded is printModule that also returns, when md records
// ops, the op of each line (Result.OpLines).
func printModuleRecorded(md *module) (string, []*ir.Op) {
	p := &printer{types: map[types.Type]string{}, convergent: md.convergent, rec: md.rec}
	s := p.module(md)
	if md.rec == nil || p.fallback {
		return s, nil
	}
	lines := make([]*ir.Op, strings.Count(s, "\n")+1)
	line, off := 0, 0
	for _, mk := range p.marks {
		line += strings.Count(s[off:mk.off], "\n")
		off = mk.off
		lines[line] = mk.op
	}
	return s, lines
}

func (p *printer) module(md *module) string {
	var b strings.Builder
	b.Grow(1 << 16)
	b.WriteString("target datalayout = \"" + md.m.DataLayout + "\"\n")
	b.WriteString("target triple = \"" + md.m.TargetTriple + "\"\n")
	if len(md.m.Globals) > 0 {
		b.WriteByte('\n')
	}
	for _, g := range md.m.Globals {
		b.WriteString(g.LLString())
		b.WriteByte('\n')
	}
	for _, f := range md.m.Funcs {
		b.WriteByte('\n')
		if len(f.Blocks) == 0 {
			b.WriteString(f.LLString())
			b.WriteByte('\n')
			continue
		}
		if !p.function(&b, f) {
			p.fallback = true
			return md.m.String()
		}
	}
	if p.usedConvergent {
		b.WriteString("\nattributes #0 = { convergent }\n")
	}
	if len(md.m.NamedMetadataDefs) > 0 {
		b.WriteByte('\n')
		var names []string
		for n := range md.m.NamedMetadataDefs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			d := md.m.NamedMetadataDefs[n]
			b.WriteString(d.Ident() + " = " + d.LLString() + "\n")
		}
	}
	if len(md.m.MetadataDefs) > 0 {
		b.WriteByte('\n')
		for _, d := range md.m.MetadataDefs {
			b.WriteString(d.Ident() + " = " + d.LLString() + "\n")
		}
	}
	return b.String()
}

type printer struct {
	convergent     map[value.Value]bool
	usedConvergent bool
	types          map[types.Type]string
	names          map[value.Value]string
	b              *strings.Builder

	rec      map[any]*ir.Op // the op of each instruction (Options.RecordOps)
	marks    []opMark       // where the lines of recorded instructions start
	fallback bool           // llir printed the module
}

// opMark is the byte offset of a printed instruction's line and its op.
type opMark struct {
	off int
	op  *ir.Op
}

func (p *printer) mark(inst any) {
	if op := p.rec[inst]; op != nil {
		p.marks = append(p.marks, opMark{p.b.Len(), op})
	}
}

func (p *printer) typ(t types.Type) string {
	if s, ok := p.types[t]; ok {
		return s
	}
	s := t.String()
	p.types[t] = s
	return s
}

func (p *printer) ident(v value.Value) string {
	if n, ok := p.names[v]; ok {
		return n
	}
	if a, ok := v.(*llvm.InlineAsm); ok {
		s := a.Ident()
		p.names[v] = s
		return s
	}
	return v.Ident()
}

func (p *printer) typed(v value.Value) string { return p.typ(v.Type()) + " " + p.ident(v) }

func (p *printer) w(ss ...string) {
	for _, s := range ss {
		p.b.WriteString(s)
	}
}

func hasResult(inst llvm.Instruction) bool {
	switch i := inst.(type) {
	case *llvm.InstStore:
		return false
	case *llvm.InstCall:
		return !i.Type().Equal(types.Void)
	}
	return true
}

func (p *printer) function(b *strings.Builder, f *llvm.Func) bool {
	p.b = b
	p.names = map[value.Value]string{}
	n := 0
	for _, blk := range f.Blocks {
		p.names[blk] = "%" + blk.Name()
		for _, inst := range blk.Insts {
			if hasResult(inst) {
				p.names[inst.(value.Value)] = "%v" + strconv.Itoa(n)
				n++
			}
		}
	}
	p.w("define ", p.typ(f.Sig.RetType), " ", f.Ident(), "(")
	for i, prm := range f.Params {
		if i > 0 {
			p.w(", ")
		}
		p.w(p.typ(prm.Type()), " ")
		for _, a := range prm.Attrs {
			p.w(a.String(), " ") // byval(T) align 64 on desc parameters
		}
		p.w(prm.Ident())
	}
	p.w(") {\n")
	for i, blk := range f.Blocks {
		if i > 0 {
			p.w("\n")
		}
		p.w(blk.Name(), ":\n")
		for _, inst := range blk.Insts {
			p.mark(inst)
			p.w("\t")
			if hasResult(inst) {
				p.w(p.names[inst.(value.Value)], " = ")
			}
			if !p.inst(inst) {
				return false
			}
			p.w("\n")
		}
		p.mark(blk.Term)
		p.w("\t")
		if !p.term(blk.Term) {
			return false
		}
		p.w("\n")
	}
	p.w("}\n")
	return true
}

func (p *printer) bin(op string, x, y value.Value) bool {
	p.w(op, " ", p.typed(x), ", ", p.ident(y))
	return true
}

func (p *printer) conv(op string, from value.Value, to types.Type) bool {
	p.w(op, " ", p.typed(from), " to ", p.typ(to))
	return true
}

// access prints a load or store (inst) of operands, volatile or not; it
// reports false for an atomic one, which it leaves to llir.
func (p *printer) access(inst string, atomic, volatile bool, operands ...string) bool {
	if atomic {
		return false
	}
	p.w(inst)
	if volatile {
		p.w("volatile ")
	}
	p.w(operands...)
	return true
}

func align(a llvm.Align) string {
	if a == 0 {
		return ""
	}
	return ", align " + strconv.FormatUint(uint64(a), 10)
}

func (p *printer) inst(inst llvm.Instruction) bool {
	switch i := inst.(type) {
	case *llvm.InstAdd:
		return p.bin("add", i.X, i.Y)
	case *llvm.InstSub:
		return p.bin("sub", i.X, i.Y)
	case *llvm.InstMul:
		return p.bin("mul", i.X, i.Y)
	case *llvm.InstSDiv:
		return p.bin("sdiv", i.X, i.Y)
	case *llvm.InstUDiv:
		return p.bin("udiv", i.X, i.Y)
	case *llvm.InstSRem:
		return p.bin("srem", i.X, i.Y)
	case *llvm.InstURem:
		return p.bin("urem", i.X, i.Y)
	case *llvm.InstAnd:
		return p.bin("and", i.X, i.Y)
	case *llvm.InstOr:
		return p.bin("or", i.X, i.Y)
	case *llvm.InstXor:
		return p.bin("xor", i.X, i.Y)
	case *llvm.InstShl:
		return p.bin("shl", i.X, i.Y)
	case *llvm.InstLShr:
		return p.bin("lshr", i.X, i.Y)
	case *llvm.InstAShr:
		return p.bin("ashr", i.X, i.Y)
	case *llvm.InstFAdd:
		return p.bin("fadd", i.X, i.Y)
	case *llvm.InstFSub:
		return p.bin("fsub", i.X, i.Y)
	case *llvm.InstFMul:
		return p.bin("fmul", i.X, i.Y)
	case *llvm.InstFDiv:
		return p.bin("fdiv", i.X, i.Y)
	case *llvm.InstFRem:
		return p.bin("frem", i.X, i.Y)
	case *llvm.InstICmp:
		return p.bin("icmp "+i.Pred.String(), i.X, i.Y)
	case *llvm.InstFCmp:
		return p.bin("fcmp "+i.Pred.String(), i.X, i.Y)
	case *llvm.InstSelect:
		p.w("select ", p.typed(i.Cond), ", ", p.typed(i.ValueTrue), ", ", p.typed(i.ValueFalse))
	case *llvm.InstPhi:
		p.w("phi ", p.typ(i.Type()))
		for j, inc := range i.Incs {
			if j > 0 {
				p.w(",")
			}
			p.w(" [ ", p.ident(inc.X), ", ", p.ident(inc.Pred), " ]")
		}
	case *llvm.InstCall:
		sig := i.Sig()
		if sig.Variadic {
			return false
		}
		p.w("call ", p.typ(sig.RetType), " ", p.ident(i.Callee), "(")
		for j, a := range i.Args {
			if j > 0 {
				p.w(", ")
			}
			p.w(p.typed(a))
		}
		p.w(")")
		if p.convergent[i.Callee] {
			p.w(" #0")
			p.usedConvergent = true
		}
	case *llvm.InstGetElementPtr:
		p.w("getelementptr ")
		if i.InBounds {
			p.w("inbounds ")
		}
		p.w(p.typ(i.ElemType), ", ", p.typed(i.Src))
		for _, x := range i.Indices {
			p.w(", ", p.typed(x))
		}
	case *llvm.InstLoad:
		return p.access("load ", i.Atomic, i.Volatile, p.typ(i.ElemType), ", ", p.typed(i.Src), align(i.Align))
	case *llvm.InstStore:
		return p.access("store ", i.Atomic, i.Volatile, p.typed(i.Src), ", ", p.typed(i.Dst), align(i.Align))
	case *llvm.InstBitCast:
		return p.conv("bitcast", i.From, i.To)
	case *llvm.InstZExt:
		return p.conv("zext", i.From, i.To)
	case *llvm.InstSExt:
		return p.conv("sext", i.From, i.To)
	case *llvm.InstTrunc:
		return p.conv("trunc", i.From, i.To)
	case *llvm.InstFPExt:
		return p.conv("fpext", i.From, i.To)
	case *llvm.InstFPTrunc:
		return p.conv("fptrunc", i.From, i.To)
	case *llvm.InstSIToFP:
		return p.conv("sitofp", i.From, i.To)
	case *llvm.InstUIToFP:
		return p.conv("uitofp", i.From, i.To)
	case *llvm.InstFPToSI:
		return p.conv("fptosi", i.From, i.To)
	case *llvm.InstFPToUI:
		return p.conv("fptoui", i.From, i.To)
	case *llvm.InstPtrToInt:
		return p.conv("ptrtoint", i.From, i.To)
	case *llvm.InstIntToPtr:
		return p.conv("inttoptr", i.From, i.To)
	case *llvm.InstAddrSpaceCast:
		return p.conv("addrspacecast", i.From, i.To)
	case *llvm.InstExtractValue:
		p.w("extractvalue ", p.typed(i.X))
		for _, x := range i.Indices {
			p.w(", ", strconv.FormatUint(x, 10))
		}
	case *llvm.InstExtractElement:
		p.w("extractelement ", p.typed(i.X), ", ", p.typed(i.Index))
	case *llvm.InstInsertElement:
		p.w("insertelement ", p.typed(i.X), ", ", p.typed(i.Elem), ", ", p.typed(i.Index))
	case *llvm.InstAlloca:
		if i.NElems != nil {
			return false
		}
		p.w("alloca ", p.typ(i.ElemType), align(i.Align))
	default:
		return false
	}
	return true
}

func (p *printer) term(t llvm.Terminator) bool {
	switch i := t.(type) {
	case *llvm.TermBr:
		p.w("br label ", p.ident(i.Target))
	case *llvm.TermCondBr:
		p.w("br ", p.typed(i.Cond), ", label ", p.ident(i.TargetTrue), ", label ", p.ident(i.TargetFalse))
	case *llvm.TermRet:
		if i.X == nil {
			p.w("ret void")
		} else {
			p.w("ret ", p.typed(i.X))
		}
	case *llvm.TermUnreachable:
		p.w("unreachable")
	default:
		return false
	}
	return true
}

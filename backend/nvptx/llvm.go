package nvptx

import (
	"fmt"
	"math"
	"strings"
	"sync"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// Target facts (see shared/specs/toolchain.md).
const (
	Triple     = "nvptx64-nvidia-cuda"
	DataLayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
)

// Address spaces of NVPTX.
const (
	asGeneric = 0
	asGlobal  = 1
	asShared  = 3
	// asCluster marks distributed shared memory (a peer CTA's buffer). It
	// never becomes an LLVM address space: cluster pointers are i32
	// shared::cluster window addresses (from mapa), accessed through inline
	// asm ld/st.shared::cluster.
	asCluster = 7
)

// ptrTo is the one place pointer types are built: typed pointers (LLVM 14
// style), which llc-19 and libNVVM both accept.
func ptrTo(elem types.Type, space int) *types.PointerType {
	key := ptrKey{elem, space}
	ptrMu.Lock()
	defer ptrMu.Unlock()
	if p, ok := ptrTypes[key]; ok {
		return p
	}
	p := types.NewPointer(elem)
	p.AddrSpace = types.AddrSpace(space)
	if len(ptrTypes) < 4096 {
		ptrTypes[key] = p
	}
	return p
}

// pointer types are interned (the printer caches type strings by identity)
type ptrKey struct {
	elem  types.Type
	space int
}

var (
	ptrMu    sync.Mutex
	ptrTypes = map[ptrKey]*types.PointerType{}
)

// storageType is the LLVM type a dtype is held in: 16-bit floats and fp8 are
// held as integers of their width (bf16 has no type in libNVVM's LLVM 7
// dialect; arithmetic happens in f32 anyway).
func storageType(d ir.DType) types.Type {
	switch d {
	case ir.I1:
		return types.I1
	case ir.I8, ir.U8, ir.F8E4M3, ir.F8E5M2:
		return types.I8
	case ir.I16, ir.U16, ir.F16, ir.BF16:
		return types.I16
	case ir.I32, ir.U32:
		return types.I32
	case ir.I64, ir.U64:
		return types.I64
	case ir.F32:
		return types.Float
	case ir.F64:
		return types.Double
	}
	panic(fmt.Sprintf("nvptx: no LLVM type for %s", d))
}

// memType is the type a dtype has in memory (i1 takes a byte).
func memType(d ir.DType) types.Type {
	if d == ir.I1 {
		return types.I8
	}
	return storageType(d)
}

// elemType is the LLVM type of one element of a value of IR type t (a scalar,
// a pointer, or a tile of either).
func elemType(t ir.Type) types.Type {
	switch e := ir.Elem(t).(type) {
	case ir.DType:
		return storageType(e)
	case *ir.Pointer:
		if e.Space == ir.Cluster {
			return types.I32
		}
		return ptrTo(memType(e.Elem), spaceOf(e.Space))
	}
	panic(fmt.Sprintf("nvptx: no LLVM type for %s", t))
}

func spaceOf(s ir.AddrSpace) int {
	switch s {
	case ir.Shared:
		return asShared
	case ir.Global:
		return asGlobal
	case ir.Cluster:
		return asCluster
	}
	return asGeneric
}

func i32c(v int64) *constant.Int { return constant.NewInt(types.I32, v) }
func i64c(v int64) *constant.Int { return constant.NewInt(types.I64, v) }

func f32c(v float64) *constant.Float { return constant.NewFloat(types.Float, float64(float32(v))) }

func constInt(v value.Value) (int64, bool) {
	if c, ok := v.(*constant.Int); ok && c.X.IsInt64() {
		return c.X.Int64(), true
	}
	return 0, false
}

// intConst builds an integer constant of type t (wrapping to its width).
func intConst(t types.Type, v int64) value.Value {
	it := t.(*types.IntType)
	if it.BitSize == 1 {
		return constant.NewBool(v&1 != 0)
	}
	if it.BitSize < 64 {
		// two's-complement wrap, printed signed
		shift := 64 - it.BitSize
		v = v << shift >> shift
	}
	return constant.NewInt(it, v)
}

// ---- constants of every dtype

// floatBits is the bit pattern of x, already rounded to the 16- or 8-bit
// float dtype d, as an immediate: floats.Encode, except that a NaN keeps
// its sign and has only the quiet bit set (floats.QuietNaN, what Go's
// float32(x) makes of a NaN), not the canonical NaN a conversion gives.
func floatBits(d ir.DType, x float64) uint16 {
	f, _ := d.FloatFormat()
	if math.IsNaN(x) {
		return floats.QuietNaN(f, math.Signbit(x))
	}
	return floats.Encode(f, x)
}

// constOf returns the LLVM constant of dtype d for an attribute value.
func constOf(d ir.DType, v any) value.Value {
	var f float64
	var i int64
	isInt := false
	switch x := v.(type) {
	case int64:
		i, f, isInt = x, float64(x), true
	case int:
		i, f, isInt = int64(x), float64(x), true
	case float64:
		f, i = x, int64(x)
	case bool:
		if x {
			i, f = 1, 1
		}
		isInt = true
	}
	if d.IsInt() {
		if !isInt {
			i = int64(d.Round(f))
		}
		if d == ir.I1 {
			return constant.NewBool(i != 0)
		}
		return intConst(storageType(d), i)
	}
	r := d.Round(f)
	switch d {
	case ir.F32:
		return constant.NewFloat(types.Float, float64(float32(r)))
	case ir.F64:
		return constant.NewFloat(types.Double, r)
	case ir.F16:
		return intConst(types.I16, int64(floatBits(d, r)))
	case ir.BF16:
		return intConst(types.I16, int64(floatBits(d, r)))
	case ir.F8E4M3:
		return intConst(types.I8, int64(floatBits(d, r)))
	case ir.F8E5M2:
		return intConst(types.I8, int64(floatBits(d, r)))
	}
	panic("nvptx: constant of " + d.String())
}

// ---- intrinsics and inline asm

type module struct {
	m          *llvm.Module
	funcs      map[string]*llvm.Func
	pure       map[value.Value]bool // callees without side effects (for DCE)
	convergent map[value.Value]bool // callees whose calls are marked convergent
	smem       *llvm.Global
	asmCache   map[string]*llvm.InlineAsm
	vprintf    *llvm.Func
	fmtStrings map[string]*llvm.Global
	invPio4    *llvm.Global   // mathlib's table of 2/pi, once used
	rec        map[any]*ir.Op // Options.RecordOps: the op that made each instruction and terminator
}

func newModule() *module {
	m := llvm.NewModule()
	m.TargetTriple = Triple
	m.DataLayout = DataLayout
	return &module{m: m, funcs: map[string]*llvm.Func{}, pure: map[value.Value]bool{}, convergent: map[value.Value]bool{},
		asmCache: map[string]*llvm.InlineAsm{}, fmtStrings: map[string]*llvm.Global{}}
}

// intrinsic declares (once) a function; pure ones may be deleted when unused.
func (md *module) intrinsic(name string, pure bool, ret types.Type, params ...types.Type) *llvm.Func {
	if f, ok := md.funcs[name]; ok {
		return f
	}
	ps := make([]*llvm.Param, len(params))
	for i, p := range params {
		ps[i] = llvm.NewParam(fmt.Sprintf("p%d", i), p) // libNVVM rejects numbered names here
	}
	f := md.m.NewFunc(name, ret, ps...)
	md.funcs[name] = f
	if pure {
		md.pure[f] = true
	}
	return f
}

// asmRet is the return type of inline asm whose outputs have types outs:
// the type itself for one output, a struct of them for several.
func asmRet(outs []types.Type) types.Type {
	if len(outs) == 1 {
		return outs[0]
	}
	return types.NewStruct(outs...)
}

// asmOuts returns the n outputs of a call of inline asm returning asmRet:
// the call itself for one, its fields for several.
func (g *gen) asmOuts(call value.Value, n int) []value.Value {
	if n == 1 {
		return []value.Value{call}
	}
	out := make([]value.Value, n)
	for i := range out {
		out[i] = g.cur.NewExtractValue(call, uint64(i))
	}
	return out
}

// tiedAsm emits convergent inline asm text (with a memory clobber) through
// which regs (f32, or i32 packed values) pass, each output tied to its
// input, so that LLVM can move neither their definitions below it nor their
// uses above it; it returns the registers after it.
func (g *gen) tiedAsm(text string, regs []value.Value) []value.Value {
	n := len(regs)
	fty := make([]types.Type, n)
	cons := make([]string, 0, 2*n+1)
	for i, r := range regs {
		fty[i] = r.Type()
		if r.Type() == types.I32 {
			cons = append(cons, "=r")
		} else {
			cons = append(cons, "=f")
		}
	}
	for i := 0; i < n; i++ {
		cons = append(cons, fmt.Sprint(i))
	}
	cons = append(cons, "~{memory}")
	asm := g.md.inlineAsm(asmRet(fty), fty, text, strings.Join(cons, ","), true)
	g.md.convergent[asm] = true
	return g.asmOuts(g.cur.NewCall(asm, regs...), n)
}

// inlineAsm returns an inline asm callee; sideEffect asm is never deleted.
func (md *module) inlineAsm(ret types.Type, params []types.Type, asm, constraints string, sideEffect bool) *llvm.InlineAsm {
	var kb strings.Builder
	kb.WriteString(asm)
	kb.WriteByte(0)
	kb.WriteString(constraints)
	if sideEffect {
		kb.WriteByte('!')
	}
	kb.WriteString(ret.String())
	for _, p := range params {
		kb.WriteByte(',')
		kb.WriteString(p.String())
	}
	key := kb.String()
	if a, ok := md.asmCache[key]; ok {
		return a
	}
	a := llvm.NewInlineAsm(ptrTo(types.NewFunc(ret, params...), asGeneric), asm, constraints)
	a.SideEffect = sideEffect
	if !sideEffect {
		md.pure[a] = true
	}
	md.asmCache[key] = a
	return a
}

// sharedBase is the CTA's dynamic shared memory (extern, size set at launch).
func (md *module) sharedBase() *llvm.Global {
	if md.smem == nil {
		g := llvm.NewGlobal("global_smem", types.NewArray(0, types.I8))
		g.AddrSpace = asShared
		g.Linkage = enum.LinkageExternal
		g.Align = 16
		g.Typ = nil // the cached pointer type must see the address space
		g.Type()
		md.m.Globals = append(md.m.Globals, g)
		md.smem = g
	}
	return md.smem
}

package ir

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tlego/tle/tle/diag"
)

// VerifyError is one broken invariant, at an op (Kind and Pos) or at a
// function (Kind empty).
type VerifyError struct {
	File *diag.File
	Func string
	Kind Kind
	Pos  diag.Pos
	Msg  string
}

func (e *VerifyError) Error() string {
	where := "func @" + e.Func
	if e.Kind != "" {
		where += ": op " + string(e.Kind)
	}
	return fmt.Sprintf("%s: %s: %s", PosString(e.File, e.Pos), where, e.Msg)
}

// VerifyErrors is every broken invariant Verify found, in program order.
type VerifyErrors []*VerifyError

func (es VerifyErrors) Error() string {
	const max = 20
	var parts []string
	for i, e := range es {
		if i == max {
			parts = append(parts, fmt.Sprintf("(and %d more)", len(es)-max))
			break
		}
		parts = append(parts, e.Error())
	}
	return "invalid IR:\n" + strings.Join(parts, "\n")
}

// Verify checks the invariants of every function of m; it returns nil or a
// VerifyErrors listing each broken one with the op, its position and what is
// wrong.
func Verify(m *Module) error {
	var errs VerifyErrors
	names := map[string]bool{}
	for _, f := range m.Funcs {
		if names[f.Name] {
			errs = append(errs, &VerifyError{File: m.File, Func: f.Name, Pos: f.Pos, Msg: "function defined twice"})
		}
		names[f.Name] = true
		errs = append(errs, verifyFunc(m, f)...)
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// VerifyFunc checks one function; calls are checked against their callees
// only when the module m is given (it may be nil).
func VerifyFunc(m *Module, f *Func) error {
	if errs := verifyFunc(m, f); len(errs) > 0 {
		return errs
	}
	return nil
}

type defSite struct {
	block *Block
	op    *Op // nil for a block argument
}

type verifier struct {
	m     *Module
	f     *Func
	file  *diag.File
	errs  VerifyErrors
	defs  map[*Value]defSite
	scope map[*Value]bool
}

func verifyFunc(m *Module, f *Func) VerifyErrors {
	v := &verifier{m: m, f: f, defs: map[*Value]defSite{}, scope: map[*Value]bool{}}
	if m != nil {
		v.file = m.File
	}
	v.checkSignature()
	if f.Body == nil {
		return v.errs
	}
	v.collect(f.Body)
	v.block(f.Body, nil)
	return v.errs
}

func (v *verifier) funcErr(format string, args ...any) {
	v.errs = append(v.errs, &VerifyError{File: v.file, Func: v.f.Name, Pos: v.f.Pos, Msg: fmt.Sprintf(format, args...)})
}

func (v *verifier) errf(op *Op, format string, args ...any) {
	v.errs = append(v.errs, &VerifyError{File: v.file, Func: v.f.Name, Kind: op.Kind, Pos: op.Pos, Msg: fmt.Sprintf(format, args...)})
}

func (v *verifier) checkSignature() {
	f := v.f
	if f.Body == nil {
		v.funcErr("function has no body")
		return
	}
	if f.Body.Parent != nil {
		v.funcErr("function body has a parent op")
	}
	if len(f.Body.Args) != len(f.Params) {
		v.funcErr("%d parameters but %d body arguments", len(f.Params), len(f.Body.Args))
	}
	seen := map[string]bool{}
	for i, p := range f.Params {
		if p.Name != "" && seen[p.Name] {
			v.funcErr("parameter name %q used twice", p.Name)
		}
		seen[p.Name] = true
		if i < len(f.Body.Args) && f.Body.Args[i] != nil && !Equal(p.Type, f.Body.Args[i].Type) {
			v.funcErr("parameter %s has type %s but body argument %d has type %s", p.Name, typeString(p.Type), i, typeString(f.Body.Args[i].Type))
		}
	}
	if f.Kernel && len(f.Results) > 0 {
		v.funcErr("a kernel returns no results, has %d", len(f.Results))
	}
	if _, ok := f.Attrs["constants"]; ok && len(f.Constants) > 0 {
		v.funcErr(`attribute "constants" is reserved for the constants table`)
	}
	for _, k := range f.Attrs.Keys() {
		if !IsValidAttr(f.Attrs[k]) {
			v.funcErr("attribute %s has Go type %T, not one of int64, float64, bool, string, []int64, Type", k, f.Attrs[k])
		}
	}
}

// collect records where every value is defined, reporting duplicates and
// inconsistent back pointers.
func (v *verifier) collect(b *Block) {
	ids := map[int]*Value{}
	var walk func(b *Block)
	def := func(val *Value, site defSite, what string, op *Op) {
		if val == nil {
			if op != nil {
				v.errf(op, "%s is nil", what)
			} else {
				v.funcErr("%s is nil", what)
			}
			return
		}
		if _, dup := v.defs[val]; dup {
			if op != nil {
				v.errf(op, "%s is defined twice (value %d)", what, val.ID)
			} else {
				v.funcErr("%s is defined twice (value %d)", what, val.ID)
			}
			return
		}
		if other, dup := ids[val.ID]; dup && other != val {
			if op != nil {
				v.errf(op, "%s has ID %d, already used by another value", what, val.ID)
			} else {
				v.funcErr("%s has ID %d, already used by another value", what, val.ID)
			}
		}
		ids[val.ID] = val
		v.defs[val] = site
	}
	walk = func(b *Block) {
		for i, a := range b.Args {
			def(a, defSite{block: b}, fmt.Sprintf("block argument %d", i), b.Parent)
		}
		for _, op := range b.Ops {
			if op == nil {
				v.funcErr("nil op in a block")
				continue
			}
			for i, r := range op.Results {
				def(r, defSite{block: b, op: op}, fmt.Sprintf("result %d", i), op)
			}
			for _, rg := range op.Regions {
				if rg != nil {
					walk(rg)
				}
			}
		}
	}
	walk(b)
}

// encloses reports whether block outer is b or an ancestor of it.
func encloses(outer, b *Block) bool {
	for b != nil {
		if b == outer {
			return true
		}
		if b.Parent == nil {
			return false
		}
		b = b.Parent.Parent
	}
	return false
}

func (v *verifier) block(b *Block, parent *Op) {
	var added []*Value
	for i, a := range b.Args {
		if a == nil {
			continue
		}
		if a.Block != b || a.Index != i || a.Def != nil {
			v.funcErr("block argument %d has inconsistent Block/Index/Def fields", i)
		}
		if a.Type == nil {
			v.funcErr("block argument %d has no type", i)
		}
		v.scope[a] = true
		added = append(added, a)
	}
	if len(b.Ops) == 0 {
		if parent != nil {
			v.errf(parent, "region is empty: it must end in yield")
		} else {
			v.funcErr("function body is empty: it must end in return")
		}
	}
	for i, op := range b.Ops {
		if op == nil {
			continue
		}
		last := i == len(b.Ops)-1
		if op.Parent != b {
			v.errf(op, "Parent does not point at the block holding the op")
		}
		if op.Kind.IsTerminator() && !last {
			v.errf(op, "terminator in the middle of a block (%d ops follow)", len(b.Ops)-1-i)
		}
		if last && !op.Kind.IsTerminator() {
			if parent == nil {
				v.errf(op, "function body does not end in return")
			} else {
				v.errf(op, "region of %s does not end in yield", parent.Kind)
			}
		}
		if op.Kind == OpReturn && parent != nil {
			v.errf(op, "return inside a region of %s (use yield)", parent.Kind)
		}
		if op.Kind == OpYield && parent == nil {
			v.errf(op, "yield in a function body (use return)")
		}
		ok := true
		for j, x := range op.Operands {
			if !v.checkUse(op, j, x, b) {
				ok = false
			}
		}
		for j, r := range op.Results {
			if r == nil {
				continue
			}
			if r.Def != op || r.Index != j {
				v.errf(op, "result %d has inconsistent Def/Index fields", j)
			}
			if r.Type == nil {
				v.errf(op, "result %d has no type", j)
				ok = false
			}
		}
		for _, k := range op.Attrs.Keys() {
			if !IsValidAttr(op.Attrs[k]) {
				v.errf(op, "attribute %s has Go type %T, not one of int64, float64, bool, string, []int64, Type", k, op.Attrs[k])
			}
		}
		for _, rg := range op.Regions {
			if rg == nil {
				v.errf(op, "nil region")
				ok = false
				continue
			}
			if rg.Parent != op {
				v.errf(op, "region's Parent does not point at the op")
			}
		}
		if !op.Kind.IsKnown() {
			v.errf(op, "unknown op kind %q", op.Kind)
		} else if check := extraKinds[op.Kind]; check != nil {
			if err := check(op); err != nil {
				v.errf(op, "%v", err)
			}
		} else if ok {
			v.checkOp(op, parent)
		}
		for _, rg := range op.Regions {
			if rg != nil {
				v.block(rg, op)
			}
		}
		for _, r := range op.Results {
			if r != nil {
				v.scope[r] = true
				added = append(added, r)
			}
		}
	}
	for _, a := range added {
		delete(v.scope, a)
	}
}

func (v *verifier) checkUse(op *Op, j int, x *Value, b *Block) bool {
	if x == nil {
		v.errf(op, "operand %d is nil", j)
		return false
	}
	if x.Type == nil {
		v.errf(op, "operand %d has no type", j)
		return false
	}
	if v.scope[x] {
		return true
	}
	site, ok := v.defs[x]
	switch {
	case !ok:
		v.errf(op, "operand %d (value %d) is not defined in this function", j, x.ID)
	case encloses(site.block, b):
		v.errf(op, "operand %d is used before its definition%s", j, v.defDesc(site))
	default:
		where := "the region that defines it"
		for blk := site.block; blk != nil && blk.Parent != nil; blk = blk.Parent.Parent {
			if encloses(blk, b) {
				break
			}
			if blk.Parent.Kind == OpRole {
				where = fmt.Sprintf("role %q, where it is defined", blk.Parent.Attrs.String("name"))
			}
		}
		v.errf(op, "operand %d is used outside %s%s", j, where, v.defDesc(site))
	}
	return false
}

func (v *verifier) defDesc(s defSite) string {
	if s.op != nil {
		return fmt.Sprintf(" (defined by %s at %s)", s.op.Kind, PosString(v.file, s.op.Pos))
	}
	if s.block.Parent != nil {
		return fmt.Sprintf(" (an argument of a %s region at %s)", s.block.Parent.Kind, PosString(v.file, s.block.Parent.Pos))
	}
	return " (a function argument)"
}

// ---- per-kind rules

func isIntScalar(t Type) bool { d, ok := t.(DType); return ok && d.IsInt() }

// elemDType is the dtype of a scalar or a tile of scalars, else Invalid.
func elemDType(t Type) DType {
	d, _ := Elem(t).(DType)
	return d
}

// tileShape is a tile's shape, or nil for a scalar/pointer.
func tileShape(t Type) []int {
	if tt, ok := t.(*Tile); ok {
		return tt.Shape
	}
	return nil
}

func shapeStr(s []int) string { return "[" + shapeString(s) + "]" }

func (v *verifier) counts(op *Op, minOps, maxOps, results, regions int) bool {
	ok := true
	if len(op.Operands) < minOps || maxOps >= 0 && len(op.Operands) > maxOps {
		switch {
		case minOps == maxOps:
			v.errf(op, "has %d operands, want %d", len(op.Operands), minOps)
		case maxOps < 0:
			v.errf(op, "has %d operands, want at least %d", len(op.Operands), minOps)
		default:
			v.errf(op, "has %d operands, want %d to %d", len(op.Operands), minOps, maxOps)
		}
		ok = false
	}
	if results >= 0 && len(op.Results) != results {
		v.errf(op, "has %d results, want %d", len(op.Results), results)
		ok = false
	}
	if regions >= 0 && len(op.Regions) != regions {
		v.errf(op, "has %d regions, want %d", len(op.Regions), regions)
		ok = false
	}
	return ok
}

func (v *verifier) intAttr(op *Op, name string) (int64, bool) {
	x, ok := op.Attrs[name].(int64)
	if !ok {
		v.errf(op, "needs an int64 attribute %s", name)
	}
	return x, ok
}

func (v *verifier) strAttr(op *Op, name string, allowed []string) (string, bool) {
	x, ok := op.Attrs[name].(string)
	if !ok {
		v.errf(op, "needs a string attribute %s", name)
		return "", false
	}
	if allowed != nil && !slices.Contains(allowed, x) {
		v.errf(op, "attribute %s = %q is not one of %s", name, x, strings.Join(allowed, ", "))
		return x, false
	}
	return x, true
}

func (v *verifier) sameType(op *Op, what string, got, want Type) bool {
	if !EqualIgnoringLayout(got, want) {
		v.errf(op, "%s has type %s, want %s", what, typeString(got), typeString(want))
		return false
	}
	return true
}

func (v *verifier) checkPerm(op *Op, rank int) []int {
	perm := op.Attrs.Ints("perm")
	if _, ok := op.Attrs["perm"].([]int64); !ok || len(perm) != rank {
		v.errf(op, "needs a perm attribute of %d dims", rank)
		return nil
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank || seen[p] {
			v.errf(op, "perm %v is not a permutation of 0..%d", perm, rank-1)
			return nil
		}
		seen[p] = true
	}
	return perm
}

func (v *verifier) yieldTypes(op *Op, rg *Block, want []Type, what string) {
	y := rg.Terminator()
	if y == nil || y.Kind != OpYield {
		return // reported by block()
	}
	if len(y.Operands) != len(want) {
		v.errf(y, "yields %d values, but the %s needs %d", len(y.Operands), what, len(want))
		return
	}
	for i, x := range y.Operands {
		if x != nil && !EqualIgnoringLayout(x.Type, want[i]) {
			v.errf(y, "yield operand %d has type %s, but the %s needs %s", i, typeString(x.Type), what, typeString(want[i]))
		}
	}
}

func resultTypes(op *Op) []Type {
	out := make([]Type, len(op.Results))
	for i, r := range op.Results {
		out[i] = r.Type
	}
	return out
}

func (v *verifier) checkOp(op *Op, parent *Op) {
	ot := func(i int) Type { return op.Operands[i].Type }
	rt := func() Type { return op.Results[0].Type }
	if op.Kind != OpFor && op.Kind != OpIf && op.Kind != OpWarpSpecialize && op.Kind != OpRole && len(op.Regions) > 0 {
		v.errf(op, "has %d regions, want 0", len(op.Regions))
		return
	}
	switch op.Kind {
	case OpConstant:
		if !v.counts(op, 0, 0, 1, 0) {
			return
		}
		d := elemDType(rt())
		if d == Invalid {
			v.errf(op, "result type %s is not a scalar or tile of scalars", typeString(rt()))
			return
		}
		switch op.Attrs["value"].(type) {
		case int64:
		case float64:
			if !d.IsFloat() {
				v.errf(op, "float value for a %s constant", d)
			}
		case bool:
			if d != I1 {
				v.errf(op, "bool value for a %s constant", d)
			}
		default:
			v.errf(op, "needs a value attribute (int64, float64 or bool)")
		}
	case OpProgramID, OpNumPrograms:
		if !v.counts(op, 0, 0, 1, 0) {
			return
		}
		if ax, ok := v.intAttr(op, "axis"); ok && (ax < 0 || ax > 2) {
			v.errf(op, "axis %d out of range 0..2", ax)
		}
		v.sameType(op, "result", rt(), I32)
	case OpArange:
		if !v.counts(op, 0, 0, 1, 0) {
			return
		}
		s, ok1 := v.intAttr(op, "start")
		e, ok2 := v.intAttr(op, "end")
		if ok1 && ok2 {
			if e <= s {
				v.errf(op, "end %d <= start %d", e, s)
				return
			}
			v.sameType(op, "result", rt(), &Tile{Shape: []int{int(e - s)}, Elem: I32})
		}
	case OpSplat:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		if _, ok := ot(0).(*Tile); ok {
			v.errf(op, "operand is a tile %s, want a scalar", typeString(ot(0)))
			return
		}
		rtile, ok := rt().(*Tile)
		if !ok {
			v.errf(op, "result type %s is not a tile", typeString(rt()))
			return
		}
		v.sameType(op, "result element", rtile.Elem, ot(0))
	case OpBroadcast:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		in, ok1 := ot(0).(*Tile)
		out, ok2 := rt().(*Tile)
		if !ok1 || !ok2 {
			v.errf(op, "operand and result must be tiles, have %s and %s", typeString(ot(0)), typeString(rt()))
			return
		}
		v.sameType(op, "result element", out.Elem, in.Elem)
		if len(in.Shape) != len(out.Shape) {
			v.errf(op, "rank changes from %d to %d", len(in.Shape), len(out.Shape))
			return
		}
		for i := range in.Shape {
			if in.Shape[i] != out.Shape[i] && in.Shape[i] != 1 {
				v.errf(op, "cannot broadcast %s to %s (dim %d)", shapeStr(in.Shape), shapeStr(out.Shape), i)
				return
			}
		}
	case OpExpandDims:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		in := tileShape(ot(0))
		ax, ok := v.intAttr(op, "axis")
		if !ok {
			return
		}
		if ax < 0 || int(ax) > len(in) {
			v.errf(op, "axis %d out of range 0..%d", ax, len(in))
			return
		}
		want := slices.Insert(slices.Clone(in), int(ax), 1)
		v.sameType(op, "result", rt(), &Tile{Shape: want, Elem: Elem(ot(0))})
	case OpReshape:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		v.sameType(op, "result element", Elem(rt()), Elem(ot(0)))
		if a, b := NumElements(tileShape(ot(0))), NumElements(tileShape(rt())); a != b {
			v.errf(op, "reshape from %d to %d elements", a, b)
		}
	case OpTrans:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		in := tileShape(ot(0))
		perm := v.checkPerm(op, len(in))
		if perm == nil {
			return
		}
		want := make([]int, len(in))
		for i, p := range perm {
			want[i] = in[p]
		}
		v.sameType(op, "result", rt(), &Tile{Shape: want, Elem: Elem(ot(0))})
	case OpAdd, OpSub, OpMul, OpDiv, OpRem, OpMin, OpMax, OpAnd, OpOr, OpXor, OpShl, OpShr:
		if !v.counts(op, 2, 2, 1, 0) {
			return
		}
		if !v.sameType(op, "operand 1", ot(1), ot(0)) || !v.sameType(op, "result", rt(), ot(0)) {
			return
		}
		d := elemDType(ot(0))
		switch {
		case d == Invalid:
			v.errf(op, "operands of type %s are not numbers", typeString(ot(0)))
		case !d.IsInt() && (op.Kind == OpAnd || op.Kind == OpOr || op.Kind == OpXor || op.Kind == OpShl || op.Kind == OpShr):
			v.errf(op, "needs integer operands, has %s", typeString(ot(0)))
		}
	case OpNeg, OpNot, OpAbs, OpExp, OpExp2, OpLog, OpLog2, OpSqrt, OpRsqrt, OpSigmoid, OpTanh:
		if !v.counts(op, 1, 1, 1, 0) || !v.sameType(op, "result", rt(), ot(0)) {
			return
		}
		d := elemDType(ot(0))
		switch {
		case d == Invalid:
			v.errf(op, "operand of type %s is not a number", typeString(ot(0)))
		case op.Kind == OpNot && !d.IsInt():
			v.errf(op, "needs an integer operand, has %s", typeString(ot(0)))
		case op.Kind != OpNot && op.Kind != OpNeg && op.Kind != OpAbs && !d.IsFloat():
			v.errf(op, "needs a float operand, has %s", typeString(ot(0)))
		}
	case OpCmp:
		if !v.counts(op, 2, 2, 1, 0) || !v.sameType(op, "operand 1", ot(1), ot(0)) {
			return
		}
		v.strAttr(op, "pred", CmpPreds)
		v.sameType(op, "result", rt(), WithElem(StripLayout(ot(0)), I1))
	case OpSelect:
		if !v.counts(op, 3, 3, 1, 0) {
			return
		}
		v.sameType(op, "condition", ot(0), WithElem(StripLayout(ot(1)), I1))
		v.sameType(op, "operand 2", ot(2), ot(1))
		v.sameType(op, "result", rt(), ot(1))
	case OpCast:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		_, t0 := ot(0).(*Tile)
		_, t1 := rt().(*Tile)
		if !slices.Equal(tileShape(ot(0)), tileShape(rt())) || t0 != t1 {
			v.errf(op, "changes the shape: %s to %s", typeString(ot(0)), typeString(rt()))
		}
	case OpAddPtr:
		if !v.counts(op, 2, 2, 1, 0) {
			return
		}
		if _, ok := Elem(ot(0)).(*Pointer); !ok {
			v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(ot(0)))
			return
		}
		if d := elemDType(ot(1)); !d.IsInt() || !slices.Equal(tileShape(ot(1)), tileShape(ot(0))) {
			v.errf(op, "offset has type %s, want integers of shape %s", typeString(ot(1)), shapeStr(tileShape(ot(0))))
		}
		v.sameType(op, "result", rt(), ot(0))
	case OpLoad:
		if !v.counts(op, 1, 3, 1, 0) {
			return
		}
		ptr, ok := Elem(ot(0)).(*Pointer)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(ot(0)))
			return
		}
		want := WithElem(StripLayout(ot(0)), ptr.Elem)
		v.sameType(op, "result", rt(), want)
		if len(op.Operands) > 1 {
			v.sameType(op, "mask", ot(1), WithElem(StripLayout(ot(0)), I1))
		}
		if len(op.Operands) > 2 {
			v.sameType(op, "other", ot(2), want)
		}
	case OpStore:
		if !v.counts(op, 2, 3, 0, 0) {
			return
		}
		ptr, ok := Elem(ot(0)).(*Pointer)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(ot(0)))
			return
		}
		v.sameType(op, "value", ot(1), WithElem(StripLayout(ot(0)), ptr.Elem))
		if len(op.Operands) > 2 {
			v.sameType(op, "mask", ot(2), WithElem(StripLayout(ot(0)), I1))
		}
	case OpAtomicRMW, OpAtomicCAS:
		n := 2
		if op.Kind == OpAtomicCAS {
			n = 3
		}
		if !v.counts(op, n, n+1, 1, 0) {
			return
		}
		ptr, ok := Elem(ot(0)).(*Pointer)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(ot(0)))
			return
		}
		want := WithElem(StripLayout(ot(0)), ptr.Elem)
		if op.Kind == OpAtomicRMW {
			v.strAttr(op, "kind", AtomicKinds)
			v.sameType(op, "value", ot(1), want)
			if len(op.Operands) > 2 {
				v.sameType(op, "mask", ot(2), WithElem(StripLayout(ot(0)), I1))
			}
		} else {
			v.sameType(op, "cmp", ot(1), want)
			v.sameType(op, "value", ot(2), want)
			if len(op.Operands) > 3 {
				v.sameType(op, "mask", ot(3), WithElem(StripLayout(ot(0)), I1))
			}
		}
		v.sameType(op, "result", rt(), want)
	case OpDot:
		if !v.counts(op, 3, 3, 1, 0) {
			return
		}
		a, b, c := tileShape(ot(0)), tileShape(ot(1)), tileShape(ot(2))
		if len(a) != 2 || len(b) != 2 || len(c) != 2 || a[1] != b[0] || c[0] != a[0] || c[1] != b[1] {
			v.errf(op, "shapes %s x %s + %s do not make [M,K] x [K,N] + [M,N]", shapeStr(a), shapeStr(b), shapeStr(c))
		}
		if elemDType(ot(0)) == Invalid || elemDType(ot(1)) == Invalid {
			v.errf(op, "operands must be tiles of numbers")
		}
		v.sameType(op, "result", rt(), ot(2))
	case OpReduce, OpScan:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		in := tileShape(ot(0))
		ax, ok := v.intAttr(op, "axis")
		v.strAttr(op, "kind", ReduceKinds)
		if !ok {
			return
		}
		if len(in) == 0 || ax < 0 || int(ax) >= len(in) {
			v.errf(op, "axis %d out of range for %s", ax, typeString(ot(0)))
			return
		}
		if op.Kind == OpScan {
			v.sameType(op, "result", rt(), ot(0))
			return
		}
		out := slices.Delete(slices.Clone(in), int(ax), int(ax)+1)
		v.sameType(op, "result", rt(), TileOf(out, Elem(ot(0))))
	case OpPrint:
		v.counts(op, 0, -1, 0, 0)
	case OpAssert:
		if v.counts(op, 1, 1, 0, 0) && elemDType(ot(0)) != I1 {
			v.errf(op, "condition has type %s, want i1 or a tile of i1", typeString(ot(0)))
		}
	case OpCall:
		callee, ok := v.strAttr(op, "callee", nil)
		if !ok || v.m == nil {
			return
		}
		cf := v.m.Func(callee)
		if cf == nil {
			v.errf(op, "calls @%s, which is not in the module", callee)
			return
		}
		if cf.Kernel {
			v.errf(op, "calls kernel @%s", callee)
		}
		if !v.counts(op, len(cf.Params), len(cf.Params), len(cf.Results), 0) {
			return
		}
		for i, p := range cf.Params {
			v.sameType(op, fmt.Sprintf("argument %d", i), ot(i), p.Type)
		}
		for i, t := range cf.Results {
			v.sameType(op, fmt.Sprintf("result %d", i), op.Results[i].Type, t)
		}
	case OpFor:
		if !v.counts(op, 3, -1, len(op.Operands)-3, 1) {
			return
		}
		if !isIntScalar(ot(0)) {
			v.errf(op, "lower bound has type %s, want an integer scalar", typeString(ot(0)))
			return
		}
		v.sameType(op, "upper bound", ot(1), ot(0))
		v.sameType(op, "step", ot(2), ot(0))
		inits := op.Operands[3:]
		body := op.Regions[0]
		if len(body.Args) != 1+len(inits) {
			v.errf(op, "body has %d arguments, want 1 + %d loop-carried", len(body.Args), len(inits))
			return
		}
		if body.Args[0] != nil {
			v.sameType(op, "induction variable", body.Args[0].Type, ot(0))
		}
		for i, x := range inits {
			v.sameType(op, fmt.Sprintf("result %d", i), op.Results[i].Type, x.Type)
			if body.Args[i+1] != nil {
				v.sameType(op, fmt.Sprintf("body argument %d", i+1), body.Args[i+1].Type, x.Type)
			}
		}
		v.yieldTypes(op, body, resultTypes(op), "for's results")
	case OpIf:
		if !v.counts(op, 1, 1, -1, -1) {
			return
		}
		if ot(0) != I1 {
			v.errf(op, "condition has type %s, want i1", typeString(ot(0)))
		}
		if len(op.Regions) != 2 && !(len(op.Regions) == 1 && len(op.Results) == 0) {
			v.errf(op, "has %d regions, want then and else (else may be left out only without results)", len(op.Regions))
			return
		}
		for i, rg := range op.Regions {
			if len(rg.Args) != 0 {
				v.errf(op, "region %d has arguments", i)
			}
			v.yieldTypes(op, rg, resultTypes(op), "if's results")
		}
	case OpYield:
		if parent == nil {
			return
		}
		switch parent.Kind {
		case OpFor, OpIf:
			// checked by the parent
		case OpRole, OpWarpSpecialize:
			if len(op.Operands) > 0 {
				v.errf(op, "a %s region yields no values, has %d", parent.Kind, len(op.Operands))
			}
		default:
			v.errf(op, "yield in a region of %s", parent.Kind)
		}
	case OpReturn:
		if parent != nil {
			return
		}
		if len(op.Operands) != len(v.f.Results) {
			v.errf(op, "returns %d values, function has %d results", len(op.Operands), len(v.f.Results))
			return
		}
		for i, t := range v.f.Results {
			v.sameType(op, fmt.Sprintf("returned value %d", i), ot(i), t)
		}
	case OpAlloc:
		if !v.counts(op, 0, 1, 1, 0) {
			return
		}
		md, ok := rt().(*MemDesc)
		if !ok {
			v.errf(op, "result type %s is not a !smem", typeString(rt()))
			return
		}
		v.checkMemDesc(op, md)
		if len(op.Operands) == 1 {
			v.sameType(op, "initial value", ot(0), &Tile{Shape: md.Shape, Elem: md.Elem})
		}
	case OpMemIndex:
		if !v.counts(op, 2, 2, 1, 0) {
			return
		}
		md, ok := ot(0).(*MemDesc)
		if !ok || len(md.Shape) < 2 {
			v.errf(op, "operand 0 has type %s, want a !smem of rank >= 2", typeString(ot(0)))
			return
		}
		if !isIntScalar(ot(1)) {
			v.errf(op, "index has type %s, want an integer scalar", typeString(ot(1)))
		}
		out, ok := rt().(*MemDesc)
		if !ok {
			v.errf(op, "result type %s is not a !smem", typeString(rt()))
			return
		}
		if !slices.Equal(out.Shape, md.Shape[1:]) || out.Elem != md.Elem {
			v.errf(op, "result %s is not a slot of %s", typeString(rt()), typeString(ot(0)))
		}
	case OpMemTrans:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		md, ok1 := ot(0).(*MemDesc)
		out, ok2 := rt().(*MemDesc)
		if !ok1 || !ok2 {
			v.errf(op, "operand and result must be !smem, have %s and %s", typeString(ot(0)), typeString(rt()))
			return
		}
		perm := v.checkPerm(op, len(md.Shape))
		if perm == nil {
			return
		}
		inv := make([]int, len(perm))
		want := make([]int, len(perm))
		for i, p := range perm {
			want[i] = md.Shape[p]
			inv[p] = i
		}
		inOrder, outOrder := md.Order, out.Order
		if inOrder == nil {
			inOrder = RowMajor(len(md.Shape))
		}
		if outOrder == nil {
			outOrder = RowMajor(len(out.Shape))
		}
		order := make([]int, len(inOrder))
		for i, d := range inOrder {
			if d >= 0 && d < len(inv) {
				order[i] = inv[d]
			}
		}
		if !slices.Equal(out.Shape, want) || out.Elem != md.Elem || !slices.Equal(outOrder, order) {
			v.errf(op, "result %s is not the view of %s permuted by %v (want shape %s, order %v)", typeString(rt()), typeString(ot(0)), perm, shapeStr(want), order)
		}
	case OpLocalPtr:
		if !v.counts(op, 1, -1, 1, 0) {
			return
		}
		md, ok := ot(0).(*MemDesc)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a !smem", typeString(ot(0)))
			return
		}
		if len(op.Operands)-1 != len(md.Shape) {
			v.errf(op, "has %d indices for a rank-%d buffer", len(op.Operands)-1, len(md.Shape))
			return
		}
		var ishape []int
		for i := 1; i < len(op.Operands); i++ {
			if !elemDType(ot(i)).IsInt() || i > 1 && !slices.Equal(tileShape(ot(i)), ishape) {
				v.errf(op, "index %d has type %s; indices must be integers of one shape", i-1, typeString(ot(i)))
				return
			}
			ishape = tileShape(ot(i))
		}
		space := md.Space
		if space == 0 {
			space = Shared
		}
		v.sameType(op, "result", rt(), TileOf(ishape, &Pointer{Elem: md.Elem, Space: space}))
	case OpLocalLoad:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		md, ok := ot(0).(*MemDesc)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a !smem", typeString(ot(0)))
			return
		}
		v.sameType(op, "result", rt(), &Tile{Shape: md.Shape, Elem: md.Elem})
	case OpLocalStore:
		if !v.counts(op, 2, 2, 0, 0) {
			return
		}
		md, ok := ot(0).(*MemDesc)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a !smem", typeString(ot(0)))
			return
		}
		v.sameType(op, "value", ot(1), &Tile{Shape: md.Shape, Elem: md.Elem})
	case OpBarrierAlloc:
		if v.counts(op, 0, 0, 1, 0) {
			if _, ok := rt().(*Barrier); !ok {
				v.errf(op, "result type %s is not a !barrier", typeString(rt()))
			}
		}
	case OpBarrierIndex:
		if v.counts(op, 2, 2, 1, 0) {
			if b, ok := ot(0).(*Barrier); !ok || b.Slots == 0 {
				v.errf(op, "operand 0 has type %s, want a barrier array !barrier<N>", typeString(ot(0)))
			}
			if !isIntScalar(ot(1)) {
				v.errf(op, "operand 1 has type %s, want an integer scalar", typeString(ot(1)))
			}
			v.sameType(op, "result", rt(), &Barrier{})
		}
	case OpBarrierArrive:
		if v.counts(op, 1, 1, 0, 0) {
			v.sameType(op, "operand 0", ot(0), &Barrier{})
		}
	case OpBarrierWait, OpBarrierExpect:
		if v.counts(op, 2, 2, 0, 0) {
			v.sameType(op, "operand 0", ot(0), &Barrier{})
			if !isIntScalar(ot(1)) {
				v.errf(op, "operand 1 has type %s, want an integer scalar", typeString(ot(1)))
			}
		}
	case OpPipeAlloc:
		if v.counts(op, 0, 0, 1, 0) {
			if p, ok := rt().(*Pipe); !ok || p.Capacity < 1 {
				v.errf(op, "result type %s is not a !pipe of capacity >= 1", typeString(rt()))
			}
		}
	case OpPipeAcquire, OpPipeWait, OpPipeCommit, OpPipeClose, OpPipeRelease:
		res := 0
		if op.Kind == OpPipeAcquire || op.Kind == OpPipeWait {
			res = 1
		}
		if !v.counts(op, 2, 2, res, 0) {
			return
		}
		p, ok := ot(0).(*Pipe)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a !pipe", typeString(ot(0)))
			return
		}
		if !isIntScalar(ot(1)) {
			v.errf(op, "index has type %s, want an integer scalar", typeString(ot(1)))
		}
		if res == 1 {
			v.sameType(op, "result", rt(), &Slot{Pipe: p, Writer: op.Kind == OpPipeAcquire})
		}
	case OpSlotField:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		s, ok := ot(0).(*Slot)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a !slot", typeString(ot(0)))
			return
		}
		name, ok := v.strAttr(op, "name", nil)
		if !ok {
			return
		}
		for _, f := range s.Pipe.Fields {
			if f.Name == name {
				v.sameType(op, "result", StripLayout(rt()), &MemDesc{Shape: f.Shape, Elem: f.Elem, Order: RowMajor(len(f.Shape)), Space: Shared})
				return
			}
		}
		v.errf(op, "the pipe has no field %q", name)
	case OpSlotClosed:
		if v.counts(op, 1, 1, 1, 0) {
			if _, ok := ot(0).(*Slot); !ok {
				v.errf(op, "operand 0 has type %s, want a !slot", typeString(ot(0)))
			}
			v.sameType(op, "result", rt(), I1)
		}
	case OpWarpSpecialize:
		if !v.counts(op, 0, 0, 0, 1) {
			return
		}
		rg := op.Regions[0]
		if len(rg.Args) > 0 {
			v.errf(op, "region has arguments")
		}
		for i, o := range rg.Ops {
			if o != nil && o.Kind != OpRole && !(i == len(rg.Ops)-1 && o.Kind == OpYield) {
				v.errf(o, "only role ops may appear in a warp_specialize region")
			}
		}
	case OpRole:
		if !v.counts(op, 0, 0, 0, 1) {
			return
		}
		if parent == nil || parent.Kind != OpWarpSpecialize {
			v.errf(op, "role outside a warp_specialize region")
		}
		v.strAttr(op, "name", nil)
		if w, ok := v.intAttr(op, "warps"); ok && w < 1 {
			v.errf(op, "warps = %d, want >= 1", w)
		}
		if len(op.Regions[0].Args) > 0 {
			v.errf(op, "region has arguments")
		}
	case OpCopy:
		if !v.counts(op, 2, -1, 0, 0) {
			return
		}
		n := len(op.Operands)
		if op.Attrs.Bool("has_barrier") {
			n--
			if _, ok := op.Operands[n].Type.(*Barrier); !ok {
				v.errf(op, "has_barrier but the last operand has type %s, not !barrier", typeString(op.Operands[n].Type))
				return
			}
		}
		var d *Desc
		var md *MemDesc
		if dd, ok := ot(0).(*Desc); ok {
			d = dd
			md, _ = ot(1).(*MemDesc)
		} else if dd, ok := ot(1).(*Desc); ok {
			d = dd
			md, _ = ot(0).(*MemDesc)
		}
		if d == nil || md == nil {
			v.errf(op, "copies %s to %s; want !desc to !smem or !smem to !desc", typeString(ot(0)), typeString(ot(1)))
			return
		}
		if n-2 != len(d.Block) {
			v.errf(op, "has %d offsets for a rank-%d descriptor", n-2, len(d.Block))
			return
		}
		for i := 2; i < n; i++ {
			if !isIntScalar(ot(i)) {
				v.errf(op, "offset %d has type %s, want an integer scalar", i-2, typeString(ot(i)))
			}
		}
		if md.Elem != d.Elem || NumElements(md.Shape) != NumElements(d.Block) {
			v.errf(op, "buffer %s does not hold a block of %s", typeString(md), typeString(d))
		}
	case OpMakeDesc:
		if !v.counts(op, 1, -1, 1, 0) {
			return
		}
		block := op.Attrs.Ints("block")
		if _, ok := op.Attrs["block"].([]int64); !ok || len(block) == 0 {
			v.errf(op, "needs a block attribute")
			return
		}
		p, ok := ot(0).(*Pointer)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a pointer", typeString(ot(0)))
			return
		}
		if len(op.Operands) != 1+2*len(block) {
			v.errf(op, "has %d operands, want the pointer, %d sizes and %d strides", len(op.Operands), len(block), len(block))
			return
		}
		for i := 1; i < len(op.Operands); i++ {
			if !isIntScalar(ot(i)) {
				v.errf(op, "operand %d has type %s, want an integer scalar", i, typeString(ot(i)))
			}
		}
		v.sameType(op, "result", rt(), &Desc{Elem: p.Elem, Block: block})
	case OpWgmma:
		if !v.counts(op, 3, 3, 1, 0) {
			return
		}
		a, b, c := ShapeOf(ot(0)), ShapeOf(ot(1)), tileShape(ot(2))
		if _, ok := ot(1).(*MemDesc); !ok {
			v.errf(op, "operand b has type %s, want a !smem", typeString(ot(1)))
			return
		}
		if len(a) != 2 || len(b) != 2 || len(c) != 2 {
			v.errf(op, "operands must have rank 2, have %s, %s, %s", shapeStr(a), shapeStr(b), shapeStr(c))
			return
		}
		if op.Attrs.Bool("trans_a") {
			a = []int{a[1], a[0]}
		}
		if op.Attrs.Bool("trans_b") {
			b = []int{b[1], b[0]}
		}
		if a[1] != b[0] || c[0] != a[0] || c[1] != b[1] {
			v.errf(op, "shapes %s x %s + %s (after trans flags) do not make [M,K] x [K,N] + [M,N]", shapeStr(a), shapeStr(b), shapeStr(c))
		}
		v.sameType(op, "result", rt(), ot(2))
	case OpWgmmaWait:
		if !v.counts(op, 0, -1, len(op.Operands), 0) {
			return
		}
		for i := range op.Operands {
			v.sameType(op, fmt.Sprintf("result %d", i), op.Results[i].Type, ot(i))
		}
	case OpDeviceMesh:
		if !v.counts(op, 0, 0, 1, 0) {
			return
		}
		dims := op.Attrs.Ints("dims")
		if len(dims) != 3 {
			v.errf(op, "needs dims = [x, y, z]")
			return
		}
		v.sameType(op, "result", rt(), &Mesh{Dims: [3]int{dims[0], dims[1], dims[2]}})
	case OpShardID:
		if !v.counts(op, 1, 1, 1, 0) {
			return
		}
		if _, ok := ot(0).(*Mesh); !ok {
			v.errf(op, "operand 0 has type %s, want a !mesh", typeString(ot(0)))
		}
		if ax, ok := v.intAttr(op, "axis"); ok && (ax < 0 || ax > 2) {
			v.errf(op, "axis %d out of range 0..2", ax)
		}
		v.sameType(op, "result", rt(), I32)
	case OpRemote:
		if !v.counts(op, 3, 3, 1, 0) {
			return
		}
		md, ok := ot(0).(*MemDesc)
		if !ok {
			v.errf(op, "operand 0 has type %s, want a !smem", typeString(ot(0)))
			return
		}
		if !isIntScalar(ot(1)) {
			v.errf(op, "rank has type %s, want an integer scalar", typeString(ot(1)))
		}
		if _, ok := ot(2).(*Mesh); !ok {
			v.errf(op, "operand 2 has type %s, want a !mesh", typeString(ot(2)))
		}
		out, ok := rt().(*MemDesc)
		if !ok || out.Space != Cluster || !slices.Equal(out.Shape, md.Shape) || out.Elem != md.Elem {
			v.errf(op, "result %s is not the cluster view of %s", typeString(rt()), typeString(ot(0)))
		}
	case OpDistributedBarrier:
		if v.counts(op, 1, 1, 0, 0) {
			if _, ok := ot(0).(*Mesh); !ok {
				v.errf(op, "operand 0 has type %s, want a !mesh", typeString(ot(0)))
			}
		}
	case OpAsm:
		v.strAttr(op, "template", nil)
	}
	for _, r := range op.Results {
		if md, ok := r.Type.(*MemDesc); ok && op.Kind != OpAlloc {
			v.checkMemDesc(op, md)
		}
	}
}

func (v *verifier) checkMemDesc(op *Op, md *MemDesc) {
	if md.Order == nil {
		return
	}
	if len(md.Order) != len(md.Shape) || !isPermutation(md.Order) {
		v.errf(op, "memdesc order %v is not a permutation of its %d dims", md.Order, len(md.Shape))
	}
}

func isPermutation(p []int) bool {
	seen := make([]bool, len(p))
	for _, x := range p {
		if x < 0 || x >= len(p) || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

package check

import (
	"errors"
	"fmt"
	"go/constant"
	"go/token"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/ir"
)

// DefaultSmemLimit is the shared memory a CTA may use on Hopper: 227 KB.
const DefaultSmemLimit = 232448

// Config parametrises a check.
type Config struct {
	// Defines are the raw -D NAME=VALUE bindings of const parameters.
	Defines map[string]string
	// SmemLimit is the per-CTA shared-memory budget in bytes; 0 means
	// DefaultSmemLimit.
	SmemLimit int
	// Kernel, when not empty, checks that kernel alone with Defines (and
	// the helpers it calls): what a compile of it needs, once the whole
	// file has passed Check without bindings. The other kernels, the
	// helpers no kernel calls and the tune blocks do not depend on this
	// kernel's bindings and are not checked again; a define that only
	// another kernel's parameter takes is not an error.
	Kernel string
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseDefine splits a -D argument "NAME=VALUE".
func ParseDefine(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok:
		return "", "", fmt.Errorf("-D %s: want NAME=VALUE", s)
	case name == "":
		return "", "", fmt.Errorf("-D %s: missing name before =", s)
	case !identRE.MatchString(name):
		return "", "", fmt.Errorf("-D %s: %q is not a valid name", s, name)
	case value == "":
		return "", "", fmt.Errorf("-D %s: missing value after =", s)
	}
	return name, value, nil
}

// Check type-checks a parsed file. It never stops at the first error: the
// returned list holds every error found, sorted by position. Info is filled
// even when there are errors (erroneous expressions have type Invalid).
func Check(f *ast.File, conf Config) (info *Info, errs diag.List) {
	c := newChecker(f, conf)
	func() {
		defer func() {
			if r := recover(); r != nil {
				c.errorAt(0, "internal error while checking the file: %v", r)
			}
		}()
		c.run()
	}()
	c.errs.Sort()
	return c.info, c.errs
}

type scope struct {
	parent *scope
	names  map[string]*Object
}

func newScope(parent *scope) *scope { return &scope{parent: parent, names: map[string]*Object{}} }

func (s *scope) lookup(name string) *Object {
	for ; s != nil; s = s.parent {
		if o, ok := s.names[name]; ok {
			return o
		}
	}
	return nil
}

// body is the context of the body being checked (a kernel, or one func
// instance).
type body struct {
	kernel    *ast.KernelDecl
	fn        *ast.FuncDecl
	inst      *Instance
	loopDepth int
	// loops holds, for each for loop around the statement being checked,
	// the role it is in (break and continue need one in their own role)
	loops     []*ast.Role
	role      *ast.Role
	roleIndex *Value // role_index() in role: the copy index (0, or symbolic)
	smem      *[]*SmemBuffer
	results   []Type // func: declared results (scalar T means elem T)
	actual    []Type // func: actual result types seen so far
	resultsAt diag.Pos
	callees   []calleeAt // the helper calls of the body, in order
}

// calleeAt is one helper call of a body: the call and the instance it
// inlines.
type calleeAt struct {
	call *ast.CallExpr
	inst *Instance
}

type checker struct {
	conf     Config
	file     *ast.File
	df       *diag.File
	errs     diag.List
	info     *Info
	tab      *Tables
	universe *scope
	top      *scope
	b        *body
	sc       *scope

	constState map[*Object]int // top-level consts: 1 evaluating, 2 done
	instances  map[*ast.FuncDecl]map[string]*Instance
	stack      []*ast.FuncDecl // helper instantiation stack
	usedDefine map[string]bool
	// pendingName names the variable an alloc/pipe/barrier call is assigned
	// to, for the shared-memory report.
	pendingName map[ast.Expr]string
	// kernelBound lists "NAME = value" for the -D bound const params of the
	// kernel being checked, and tooLarge the shapes of its tiles already
	// reported as over MaxTileElements (limits.go).
	kernelBound []string
	tooLarge    map[string]bool
	seen        map[string]bool // errors reported once for all instances (once)
	// prunedCalls names the helpers called in branches pruned at compile
	// time: one called only there is not checked generically either
	prunedCalls map[string]bool
}

func newChecker(f *ast.File, conf Config) *checker {
	c := &checker{
		conf:        conf,
		file:        f,
		constState:  map[*Object]int{},
		instances:   map[*ast.FuncDecl]map[string]*Instance{},
		usedDefine:  map[string]bool{},
		pendingName: map[ast.Expr]string{},
	}
	if f != nil {
		c.df = f.File
	}
	c.info = &Info{Tables: newTables(), Instances: map[*ast.FuncDecl][]*Instance{}, Consts: map[string]*Object{}}
	c.tab = c.info.Tables
	c.universe = universe()
	c.top = newScope(c.universe)
	c.sc = c.top
	return c
}

func (c *checker) errorf(n ast.Node, format string, args ...any) *diag.Diagnostic {
	pos, end := c.span(n)
	return c.errs.Add(c.df, pos, end, format, args...)
}

// span returns n's extent; a missing node falls back to the enclosing
// kernel's or func's name, so that every diagnostic has a position.
func (c *checker) span(n ast.Node) (pos, end diag.Pos) {
	defer func() {
		if recover() != nil {
			pos, end = c.fallbackPos(), diag.NoPos
		}
	}()
	if n == nil {
		return c.fallbackPos(), diag.NoPos
	}
	return n.Pos(), n.End()
}

func (c *checker) fallbackPos() diag.Pos {
	switch {
	case c.b != nil && c.b.kernel != nil:
		return c.b.kernel.Name.Pos()
	case c.b != nil && c.b.fn != nil:
		return c.b.fn.Name.Pos()
	}
	return 0
}

func (c *checker) errorAt(pos diag.Pos, format string, args ...any) *diag.Diagnostic {
	return c.errs.Add(c.df, pos, diag.NoPos, format, args...)
}

// src returns the source text of n, for messages.
func (c *checker) src(n ast.Node) string {
	if n == nil || c.df == nil {
		return "?"
	}
	p, e := int(n.Pos()), int(n.End())
	if p < 0 || e > len(c.df.Src) || p >= e {
		return "?"
	}
	s := string(c.df.Src[p:e])
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func (c *checker) line(p diag.Pos) int { return c.df.Position(p).Line }

// guard turns an internal panic into an error at n instead of crashing.
func (c *checker) guard(n ast.Node, what string) {
	if r := recover(); r != nil {
		c.errorf(n, "internal error while checking %s: %v", what, r)
	}
}

func (c *checker) run() {
	if c.file == nil {
		return
	}
	c.collect()
	// Top-level constants.
	for _, d := range c.file.Decls {
		if cd, ok := d.(*ast.ConstDecl); ok {
			if o := c.tab.Defs[cd.Name]; o != nil {
				c.evalTopConst(o)
			}
		}
	}
	for _, d := range c.file.Decls {
		if k, ok := d.(*ast.KernelDecl); ok && (c.conf.Kernel == "" || k.Name.Name == c.conf.Kernel) {
			c.kernel(k)
		}
	}
	if c.conf.Kernel != "" {
		c.checkDefines()
		return
	}
	for _, d := range c.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			c.funcDeclRules(fd)
		}
	}
	// Helpers never called from a kernel are checked once, generically.
	for _, d := range c.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && len(c.info.Instances[fd]) == 0 && !c.prunedCalls[fd.Name.Name] {
			c.genericFunc(fd)
		}
	}
	c.tunes()
	c.checkDefines()
}

// collect declares every top-level name.
func (c *checker) collect() {
	for _, d := range c.file.Decls {
		var id *ast.Ident
		var obj *Object
		switch d := d.(type) {
		case *ast.KernelDecl:
			id = d.Name
			obj = &Object{Kind: KernelObj, Name: id.Name, Pos: id.Pos(), Decl: d}
		case *ast.FuncDecl:
			id = d.Name
			obj = &Object{Kind: FuncObj, Name: id.Name, Pos: id.Pos(), Decl: d, Func: d}
		case *ast.ConstDecl:
			id = d.Name
			obj = &Object{Kind: ConstObj, Name: id.Name, Pos: id.Pos(), Decl: d, Const: true}
			c.info.Consts[id.Name] = obj
		default:
			continue
		}
		c.tab.Defs[id] = obj
		if u := c.universe.names[id.Name]; u != nil && obj.Kind == KernelObj && u.Kind == BuiltinObj {
			// a kernel is launched from the host, never called, so it may
			// take a builtin's name (the softmax tutorial's kernel is
			// softmax); calls in the file still mean the builtin
			continue
		}
		if u := c.universe.names[id.Name]; u != nil {
			c.errorf(id, "%s is a %s and cannot be redeclared", id.Name, u.Kind)
			continue
		}
		if prev := c.top.names[id.Name]; prev != nil {
			if here, there := c.df.Position(id.Pos()), c.df.Position(prev.Pos); here.Filename != there.Filename {
				// Two files of one program (imports): an error at each.
				c.errorf(id, "%s redeclared (also declared at %s)", id.Name, there)
				c.errorAt(prev.Pos, "%s redeclared (also declared at %s)", id.Name, here)
				continue
			}
			c.errorf(id, "%s redeclared (previous declaration at line %d)", id.Name, c.line(prev.Pos))
			continue
		}
		c.top.names[id.Name] = obj
	}
}

// evalTopConst evaluates a top-level const on first use.
func (c *checker) evalTopConst(o *Object) {
	switch c.constState[o] {
	case 2:
		return
	case 1:
		c.errorAt(o.Pos, "constant %s refers to itself (initialization cycle)", o.Name)
		o.Type = Invalid
		c.constState[o] = 2
		return
	}
	cd := o.Decl.(*ast.ConstDecl)
	c.constState[o] = 1
	saved, savedSc, savedB := c.tab, c.sc, c.b
	c.tab, c.sc, c.b = c.info.Tables, c.top, nil
	t, v := c.constValue(cd.Value, "constant "+o.Name)
	c.tab, c.sc, c.b = saved, savedSc, savedB
	if c.constState[o] == 2 { // a cycle was reported meanwhile
		return
	}
	o.Type, o.Value = t, v
	c.constState[o] = 2
}

// constValue checks the value of a const declaration.
func (c *checker) constValue(e ast.Expr, what string) (Type, *Value) {
	t, v := c.expr(e)
	if isInvalid(t) {
		return Invalid, nil
	}
	if _, ok := t.(DType); !ok {
		c.errorf(e, "%s must be a scalar number, not %s", what, t)
		return Invalid, nil
	}
	if v == nil {
		c.needConst(e, what)
		return Invalid, nil
	}
	return t, v
}

// needConst reports a runtime value where a compile-time one is needed.
func (c *checker) needConst(e ast.Expr, what string) {
	c.errorf(e, "%s must be a compile-time constant, not the runtime value %s", what, c.src(e))
}

func (c *checker) checkDefines() {
	var names []string
	for n := range c.conf.Defines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !c.usedDefine[n] && !c.otherKernelTakes(n) {
			c.errorAt(0, "-D %s: no kernel has a const parameter named %s", n, n)
		}
	}
}

// otherKernelTakes reports whether, when Config.Kernel restricts the
// check, a kernel left unchecked has a parameter the define n binds (a
// const parameter, or any parameter for None, which the full check
// tells apart).
func (c *checker) otherKernelTakes(n string) bool {
	if c.conf.Kernel == "" {
		return false
	}
	for _, d := range c.file.Decls {
		k, ok := d.(*ast.KernelDecl)
		if !ok || k.Name.Name == c.conf.Kernel {
			continue
		}
		for _, p := range k.Params {
			if p.Name.Name == n && (p.Const || c.conf.Defines[n] == "None") {
				return true
			}
		}
	}
	return false
}

// parseDefineValue converts a raw -D value to a constant of type t.
func parseDefineValue(raw string, t DType) (constant.Value, error) {
	switch {
	case t == I1:
		switch raw {
		case "true", "1":
			return constant.MakeBool(true), nil
		case "false", "0":
			return constant.MakeBool(false), nil
		}
		return nil, fmt.Errorf("not a boolean (want true or false)")
	case t.IsInteger():
		v := constant.MakeFromLiteral(strings.TrimPrefix(raw, "+"), token.INT, 0)
		neg := false
		if strings.HasPrefix(raw, "-") {
			neg = true
			v = constant.MakeFromLiteral(raw[1:], token.INT, 0)
		}
		if v.Kind() != constant.Int {
			return nil, fmt.Errorf("not an integer")
		}
		if neg {
			v = constant.UnaryOp(token.SUB, v, 0)
		}
		if !representable(v, t) {
			return nil, fmt.Errorf("out of range for %s", t)
		}
		return v, nil
	case t.IsFloat():
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("not a number")
		}
		if err != nil || !floatFits(f, t) {
			return nil, fmt.Errorf("out of range for %s (at most %g in magnitude)", t, maxFinite(t))
		}
		return constant.MakeFloat64(f), nil
	}
	return nil, fmt.Errorf("cannot bind a %s", t)
}

// representable reports whether constant v fits dtype t.
func representable(v constant.Value, t DType) bool {
	switch {
	case t == I1:
		if v.Kind() == constant.Bool {
			return true
		}
		i := constant.ToInt(v)
		if i.Kind() != constant.Int {
			return false
		}
		n, ok := constant.Int64Val(i)
		return ok && (n == 0 || n == 1)
	case t.IsInteger() && !t.IsUntyped():
		if v.Kind() == constant.Bool {
			return false
		}
		i := constant.ToInt(v)
		if i.Kind() != constant.Int {
			return false
		}
		b := t.Bits()
		var lo, hi *big.Int
		if t.IsUnsigned() {
			lo = big.NewInt(0)
			hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(b)), big.NewInt(1))
		} else {
			lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(b-1)))
			hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(b-1)), big.NewInt(1))
		}
		x, ok := new(big.Int).SetString(i.ExactString(), 10)
		return ok && x.Cmp(lo) >= 0 && x.Cmp(hi) <= 0
	case t == UntypedInt:
		return constant.ToInt(v).Kind() == constant.Int
	case t.IsFloat() && !t.IsUntyped():
		if v.Kind() != constant.Int && v.Kind() != constant.Float {
			return false
		}
		f, _ := constant.Float64Val(v)
		return floatFits(f, t)
	}
	return v.Kind() == constant.Int || v.Kind() == constant.Float
}

// floatFits reports whether x rounds to a finite value of the float dtype
// t: a constant whose magnitude rounds past t's largest finite value does
// not fit, as in Go ("constant 1e+39 overflows f32"), rather than becoming
// an infinity.
func floatFits(x float64, t DType) bool {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return false
	}
	m := maxFinite(t)
	if math.Abs(x) <= m {
		return true
	}
	f, ok := ir.DType(t).FloatFormat()
	man := 52
	switch {
	case ok:
		man = f.MantissaBits()
	case t == F32:
		man = 23
	}
	// (m, m + half an ulp of the top binade) rounds down to m
	return math.Abs(x) < m+math.Ldexp(1, math.Ilogb(m)-man-1)
}

// maxFinite is the largest finite value of the float dtype t.
func maxFinite(t DType) float64 {
	switch t {
	case F64:
		return math.MaxFloat64
	case F32:
		return math.MaxFloat32
	}
	if f, ok := ir.DType(t).FloatFormat(); ok {
		return floats.MaxFinite(f)
	}
	return math.MaxFloat64
}

// universe builds the predeclared scope: dtypes, builtins, true/false, smem.
func universe() *scope {
	s := newScope(nil)
	for _, d := range DTypes {
		s.names[d.String()] = &Object{Kind: DTypeObj, Name: d.String(), Pos: diag.NoPos, Type: &TypeVal{T: d}, DType: d}
	}
	for _, b := range builtinList {
		if b.Recv == "" {
			s.names[b.Name] = &Object{Kind: BuiltinObj, Name: b.Name, Pos: diag.NoPos, Type: NoValue, Builtin: b}
		}
	}
	s.names["true"] = &Object{Kind: ConstObj, Name: "true", Pos: diag.NoPos, Type: I1, Value: &Value{Known: constant.MakeBool(true)}, Const: true}
	s.names["false"] = &Object{Kind: ConstObj, Name: "false", Pos: diag.NoPos, Type: I1, Value: &Value{Known: constant.MakeBool(false)}, Const: true}
	s.names["smem"] = &Object{Kind: ConstObj, Name: "smem", Pos: diag.NoPos, Type: ScopeType, Value: &Value{Known: constant.MakeString("smem")}, Const: true}
	return s
}

// ---------------------------------------------------------------- types

// typeExpr resolves a written type.
func (c *checker) typeExpr(t ast.TypeExpr) Type {
	switch t := t.(type) {
	case *ast.NamedType:
		switch t.Name.Name {
		case "pipe":
			return &Pipe{Any: true}
		case "mesh":
			return &Mesh{Any: true, X: ConstDim(1), Y: ConstDim(1), Z: ConstDim(1)}
		case "barrier":
			return &Barrier{}
		case "dtype":
			return DTypeKind
		}
		return c.dtypeName(t.Name)
	case *ast.MemDescType:
		d := c.dtypeName(t.Elem)
		m := &MemDesc{Elem: d, Remote: t.Remote != diag.NoPos, AnyShape: t.Dims == nil}
		if t.Dims != nil {
			shape, ok := c.dims(t.Dims, "memdesc dimension")
			if !ok {
				return Invalid
			}
			m.Shape = shape
		}
		if d == Invalid {
			return Invalid
		}
		return m
	case *ast.SlotType:
		return &Slot{Writer: t.Writer}
	case *ast.BarrierType:
		n, ok := c.dimExpr(t.N, "barrier array size")
		if !ok {
			return Invalid
		}
		return &Barrier{Slots: &n}
	case *ast.PointerType:
		if nt, ok := t.Elem.(*ast.NamedType); ok {
			d := c.dtypeName(nt.Name)
			if d == Invalid {
				return Invalid
			}
			return &Pointer{Elem: d}
		}
		c.errorf(t.Elem, "pointer element must be a scalar dtype, not %s", c.src(t.Elem))
		return Invalid
	case *ast.TileType:
		d := c.dtypeName(t.Elem)
		shape, ok := c.dims(t.Dims, "tile dimension")
		if d == Invalid || !ok {
			return Invalid
		}
		tile := &Tile{Shape: shape, Elem: d}
		if !c.tileFits(t, tile) {
			return Invalid
		}
		return tile
	case *ast.DescType:
		d := c.dtypeName(t.Elem)
		shape, ok := c.dims(t.Block, "desc block dimension")
		if d == Invalid || !ok {
			return Invalid
		}
		if len(shape) == 0 {
			c.errorf(t, "desc needs a block shape: desc[T, D0, ...]")
			return Invalid
		}
		if len(shape) > maxDescRank {
			c.errorf(t, "desc has rank 1 to %d (TMA's), this block has %d dimensions", maxDescRank, len(shape))
			return Invalid
		}
		return &Desc{Elem: d, Block: shape}
	}
	return Invalid
}

func (c *checker) dtypeName(id *ast.Ident) DType {
	if id == nil {
		return Invalid
	}
	if d, ok := DTypeByName(id.Name); ok {
		if o := c.sc.lookup(id.Name); o != nil && o.Kind == DTypeObj {
			c.tab.Uses[id] = o
		}
		return d
	}
	if o := c.sc.lookup(id.Name); o != nil && o.Kind == ParamObj && o.Const {
		// A helper's `T const dtype` parameter: the dtype bound at the call
		// (an unbound one, in a helper checked without a call, is no type).
		c.tab.Uses[id] = o
		if tv, ok := o.Type.(*TypeVal); ok {
			if d, ok := tv.T.(DType); ok {
				return d
			}
		}
		if o.Type == DTypeKind {
			return Invalid
		}
	}
	c.errorf(id, "unknown type %s (want one of i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 f8e4m3 f8e5m2, or a const dtype parameter)", id.Name)
	return Invalid
}

// dims evaluates compile-time positive integer dimensions.
func (c *checker) dims(es []ast.Expr, what string) (Shape, bool) {
	shape := make(Shape, 0, len(es))
	ok := true
	for _, e := range es {
		d, good := c.dimExpr(e, what)
		ok = ok && good
		shape = append(shape, d)
	}
	return shape, ok
}

// dimExpr evaluates one compile-time dimension (must be > 0 when known).
func (c *checker) dimExpr(e ast.Expr, what string) (Dim, bool) {
	t, v := c.expr(e)
	return c.posDim(e, t, v, what)
}

// intConst requires a compile-time integer (known or symbolic).
func (c *checker) intConst(e ast.Expr, t Type, v *Value, what string) (Dim, bool) {
	if isInvalid(t) {
		return Dim{}, false
	}
	d, isD := t.(DType)
	if !isD || !d.IsInteger() {
		c.errorf(e, "%s must be an integer, not %s", what, t)
		return Dim{}, false
	}
	if v == nil {
		c.needConst(e, what)
		return Dim{}, false
	}
	dim, ok := v.Dim()
	if !ok {
		c.errorf(e, "%s must be an integer, not %s", what, t)
		return Dim{}, false
	}
	return dim, true
}

// --------------------------------------------------------------- kernels

func (c *checker) kernel(k *ast.KernelDecl) {
	kern := &Kernel{Decl: k, Name: k.Name.Name}
	c.info.Kernels = append(c.info.Kernels, kern)
	var smem []*SmemBuffer
	c.b = &body{kernel: k, smem: &smem}
	c.sc = newScope(c.top)
	c.tab = c.info.Tables
	defer func() { c.b, c.sc = nil, c.top }()
	defer c.guard(k.Name, "kernel "+k.Name.Name)

	// Const params first, so that param types (desc[bf16, BM, BK]) may use
	// any of them whatever the order.
	objs := map[*ast.Param]*Object{}
	for _, pass := range []bool{true, false} {
		for _, p := range k.Params {
			if p.Const != pass {
				continue
			}
			o := c.param(p, true)
			objs[p] = o
			if o != nil && o.Const {
				c.bindDefine(p, o)
			} else if o != nil {
				c.bindNone(p, o)
			}
		}
	}
	c.kernelBound, c.tooLarge = nil, nil
	defer func() { c.kernelBound, c.tooLarge = nil, nil }()
	for _, p := range k.Params {
		if o := objs[p]; o != nil {
			kern.Params = append(kern.Params, o)
			if o.Const && o.Value.IsKnown() {
				c.kernelBound = append(c.kernelBound, o.Name+" = "+o.Value.String())
			}
		}
	}
	c.block(k.Body.Stmts)
	c.inlineBudget(k, c.b.callees)
	kern.Smem = c.budget(k, smem)
}

// bindDefine applies a -D binding to a const parameter.
func (c *checker) bindDefine(p *ast.Param, o *Object) {
	raw, ok := c.conf.Defines[o.Name]
	if !ok {
		return
	}
	c.usedDefine[o.Name] = true
	if o.Type == DTypeKind {
		d, ok := DTypeByName(raw)
		if !ok {
			c.errorf(p.Name, "-D %s=%s: not a dtype (want one of %s) (%s is a dtype parameter)", o.Name, raw, dtypeNames(), o.Name)
			return
		}
		o.Type = &TypeVal{T: d}
		return
	}
	d, isD := o.Type.(DType)
	if !isD {
		return
	}
	v, err := parseDefineValue(raw, d)
	if err != nil {
		c.errorf(p.Name, "-D %s=%s: %v (%s is %s)", o.Name, raw, err, o.Name, d)
		return
	}
	o.Value = &Value{Known: v}
}

// dtypeNames lists the dtype names, for messages.
func dtypeNames() string {
	names := make([]string, len(DTypes))
	for i, d := range DTypes {
		names[i] = d.String()
	}
	return strings.Join(names, " ")
}

// bindNone applies a -D p=None binding to a pointer parameter: p is an
// optional tensor left out (Triton's None argument), and p == None is the
// compile-time true that prunes the branches using it.
func (c *checker) bindNone(p *ast.Param, o *Object) {
	// A -D binding applies to every kernel of the file: another kernel's
	// const parameter may have this name, so only None is this one's.
	raw, ok := c.conf.Defines[o.Name]
	if !ok || raw != "None" {
		return
	}
	c.usedDefine[o.Name] = true
	if _, isPtr := o.Type.(*Pointer); !isPtr {
		c.errorf(p.Name, "-D %s=None: %s is a runtime parameter (%s); only a pointer parameter may be None", o.Name, o.Name, o.Type)
		return
	}
	o.none = true
}

// param declares a parameter in the current scope.
func (c *checker) param(p *ast.Param, inKernel bool) *Object {
	t := c.typeExpr(p.Type)
	o := &Object{Kind: ParamObj, Name: p.Name.Name, Pos: p.Name.Pos(), Type: t, Decl: p, Const: p.Const}
	c.tab.Defs[p.Name] = o
	if p.Const && t == DTypeKind {
		// A dtype parameter: a helper's is bound at each call; a kernel's
		// by -D T=bf16 (bindDefine). Unbound, it names no type: the body's
		// expressions of type T are not checked until it is bound.
	} else if !p.Const && t == DTypeKind {
		c.errorf(p.Type, "parameter %s of type dtype must be const: write %s const dtype", p.Name.Name, p.Name.Name)
		o.Type = Invalid
	} else if p.Const {
		d, ok := t.(DType)
		if !ok && !isInvalid(t) {
			c.errorf(p.Type, "const parameter %s must have a scalar type, not %s", p.Name.Name, t)
			o.Type = Invalid
		} else if ok {
			o.Value = &Value{Sym: SymDim(p.Name.Name)}
			_ = d
		}
	} else if inKernel {
		switch t.(type) {
		case *Tile:
			c.errorf(p.Type, "kernel parameter %s cannot be a tile; pass a pointer and load it", p.Name.Name)
		case *MemDesc, *Pipe, *Slot, *Barrier, *Mesh:
			c.errorf(p.Type, "kernel parameter %s cannot be a %s: only helpers take shared memory, pipes, slots, barriers and meshes (make it in the kernel)", p.Name.Name, t)
			o.Type = Invalid
		}
	}
	if p.Name.Name == "_" {
		return o
	}
	if prev := c.sc.names[p.Name.Name]; prev != nil {
		c.errorf(p.Name, "duplicate parameter %s", p.Name.Name)
		return nil
	}
	c.sc.names[p.Name.Name] = o
	return o
}

// ------------------------------------------------------------ budget

func (c *checker) budget(k *ast.KernelDecl, bufs []*SmemBuffer) *SmemBudget {
	limit := int64(c.conf.SmemLimit)
	if limit <= 0 {
		limit = DefaultSmemLimit
	}
	b := &SmemBudget{Buffers: bufs, Known: true, Limit: limit}
	for _, x := range bufs {
		if !x.Known {
			b.Known = false
			continue
		}
		b.Total += x.Bytes
	}
	if !b.Known {
		b.Total = 0
		return b
	}
	if b.Total > limit {
		d := c.errorf(k.Name, "kernel %s uses %d bytes of shared memory, more than the %d bytes a CTA may have", k.Name.Name, b.Total, limit)
		for _, x := range bufs {
			d.Notes = append(d.Notes, x.note(c))
		}
		d.Notes = append(d.Notes, fmt.Sprintf("total: %d bytes; limit: %d bytes", b.Total, limit))
	}
	return b
}

func (x *SmemBuffer) note(c *checker) string {
	what := x.Kind
	if x.Elem != Invalid {
		what += " " + x.Shape.String() + x.Elem.String()
	} else if len(x.Shape) == 1 {
		what += " x" + x.Shape[0].String()
	}
	return fmt.Sprintf("%s: %s = %d bytes (line %d)", x.Name, what, x.Bytes, c.line(x.Pos))
}

// addSmem records a buffer of shape/elem (elem Invalid: count mbarriers).
func (c *checker) addSmem(call *ast.CallExpr, kind string, shape Shape, elem DType) {
	if c.b == nil || c.b.smem == nil {
		return
	}
	name := c.pendingName[call]
	if name == "" {
		name = fmt.Sprintf("<%s at line %d>", strings.Fields(kind)[0], c.line(call.Pos()))
	}
	buf := &SmemBuffer{Name: name, Pos: call.Pos(), Kind: kind, Shape: shape, Elem: elem}
	if dims, ok := shape.Concrete(); ok {
		buf.Known = true
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		if elem == Invalid {
			buf.Bytes = n * 8
		} else {
			buf.Bytes = n * elem.Size()
		}
	}
	*c.b.smem = append(*c.b.smem, buf)
}

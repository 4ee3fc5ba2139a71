package check

import (
	"fmt"
	"go/constant"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tlego/tle/frontend/ast"
)

// ------------------------------------------------------------ arg helpers

func (c *checker) argErr(cc *callCtx, a *argv, want string) Type {
	if a != nil && !isInvalid(a.typ) {
		c.errorf(cc.at(a), "argument %s of %s must be %s, not %s", a.name, cc.b.CallName(), want, a.typ)
	}
	return Invalid
}

func (c *checker) what(cc *callCtx, a *argv) string {
	return fmt.Sprintf("argument %s of %s", a.name, cc.b.CallName())
}

// numeric requires a number or a tile of numbers.
func (c *checker) numeric(cc *callCtx, a *argv) (DType, Shape, bool) {
	d, ok := ElemOf(a.typ).(DType)
	if !ok || d == Invalid {
		c.argErr(cc, a, "a number or a tile of numbers")
		return Invalid, nil, false
	}
	if _, isTile := a.typ.(*Tile); !isTile {
		if _, isD := a.typ.(DType); !isD {
			c.argErr(cc, a, "a number or a tile of numbers")
			return Invalid, nil, false
		}
	}
	return d, ShapeOf(a.typ), true
}

// convert gives an untyped constant argument the dtype d.
func (c *checker) convert(a *argv, d DType) {
	if ad, ok := a.typ.(DType); ok && ad.IsUntyped() && a.expr != nil {
		if c.convertConst(a.expr, ad, a.val, d) {
			a.typ = c.tab.Types[a.expr].Type
		}
	}
}

// defaultUntyped gives an untyped constant argument its default type.
func (c *checker) defaultUntyped(a *argv) {
	if ad, ok := a.typ.(DType); ok && ad.IsUntyped() {
		c.convert(a, c.defaultType(a.expr, ad, a.val))
	}
}

// posDim requires a compile-time integer > 0 (when known).
func (c *checker) posDim(e ast.Expr, t Type, v *Value, what string) (Dim, bool) {
	d, ok := c.intConst(e, t, v, what)
	if !ok {
		return Dim{}, false
	}
	if n, known := d.Const(); known && n <= 0 {
		c.errorf(e, "%s must be positive, got %d", what, n)
		return Dim{}, false
	}
	return d, true
}

// constDim requires a compile-time integer argument.
func (c *checker) constDim(cc *callCtx, a *argv, positive bool) (Dim, bool) {
	if a.def {
		d, _ := a.val.Dim()
		return d, true
	}
	c.convert(a, I32)
	if positive {
		return c.posDim(a.expr, a.typ, a.val, c.what(cc, a))
	}
	return c.intConst(a.expr, a.typ, a.val, c.what(cc, a))
}

// knownInt requires an integer argument whose value is known.
func (c *checker) knownInt(cc *callCtx, a *argv) (int64, bool) {
	d, ok := c.constDim(cc, a, false)
	if !ok {
		return 0, false
	}
	n, known := d.Const()
	if !known {
		switch {
		case d.String() == roleIndexSym:
			c.errorf(cc.at(a), "%s must be a known integer, but role_index() is known only in each copy of a role with copies:", c.what(cc, a))
			return 0, false
		case slices.Contains(d.Symbols(), roleIndexSym):
			c.errorf(cc.at(a), "%s must be a known integer, but %s depends on role_index(), known only in each copy of a role with copies:", c.what(cc, a), d)
			return 0, false
		}
		c.errorf(cc.at(a), "%s must be a known integer, but %s is symbolic (bind it with -D)", c.what(cc, a), d)
		return 0, false
	}
	return n, true
}

// sameInEveryCopy refuses a shape dimension (what, at e) that depends on
// role_index(): the copies of a role run one body, so their tiles and
// buffers have one shape (the checker, which checks the body once, could
// not check each copy's).
func (c *checker) sameInEveryCopy(e ast.Node, what string, d Dim) bool {
	if slices.Contains(d.Symbols(), roleIndexSym) {
		c.errorf(e, "%s %s depends on role_index(): the copies of a role have the same shapes", what, d)
		return false
	}
	return true
}

// knownIntIn requires argument name to be a known integer in [lo, hi].
func (c *checker) knownIntIn(cc *callCtx, name string, lo, hi int64) bool {
	a := cc.get(name)
	n, ok := c.knownInt(cc, a)
	if !ok {
		return false
	}
	if n < lo || n > hi {
		c.errorf(cc.at(a), "%s must be in [%d, %d], got %d", c.what(cc, a), lo, hi, n)
		return false
	}
	return true
}

// constBool requires a compile-time i1; known reports whether its value is.
func (c *checker) constBool(cc *callCtx, a *argv) (val, known, ok bool) {
	if a == nil {
		return false, true, true
	}
	if d, isD := a.typ.(DType); !isD || d != I1 {
		c.argErr(cc, a, "true or false")
		return false, false, false
	}
	if a.val == nil {
		c.needConst(a.expr, c.what(cc, a))
		return false, false, false
	}
	b, k := a.val.Bool()
	return b, k, true
}

// scalarInt requires a runtime-or-constant scalar integer (not i1).
func (c *checker) scalarInt(cc *callCtx, a *argv) bool {
	d, ok := a.typ.(DType)
	if !ok || !d.IsInteger() || d == I1 {
		c.argErr(cc, a, "a scalar integer")
		return false
	}
	c.convert(a, I32)
	return true
}

func (c *checker) dtypeArg(cc *callCtx, a *argv) (DType, bool) {
	if tv, ok := a.typ.(*TypeVal); ok {
		if d, ok := tv.T.(DType); ok {
			return d, true
		}
	}
	if a.typ == DTypeKind {
		// an unbound `T const dtype` parameter: no type until a binding
		// gives one, and each binding is checked again with its value
		return Invalid, false
	}
	c.argErr(cc, a, "a dtype like f32")
	return Invalid, false
}

// shapeArg requires a shape: a list of compile-time dims, or one dim.
func (c *checker) shapeArg(cc *callCtx, a *argv) (Shape, bool) {
	if sv, ok := a.typ.(*ShapeVal); ok {
		return sv.Shape, true
	}
	if l, ok := unparen(a.expr).(*ast.ListExpr); ok && l.Elem == nil {
		shape := Shape{}
		good := true
		for _, e := range l.Elems {
			tv := c.tab.Types[e]
			if ad, isD := tv.Type.(DType); isD && ad.IsUntyped() {
				c.convertConst(e, ad, tv.Value, I32)
			}
			d, ok := c.posDim(e, tv.Type, tv.Value, "dimension in "+c.what(cc, a))
			ok = ok && c.sameInEveryCopy(e, "dimension in "+c.what(cc, a), d)
			good = good && ok
			shape = append(shape, d)
		}
		return shape, good
	}
	if d, ok := a.typ.(DType); ok && d.IsInteger() {
		dim, ok := c.constDim(cc, a, true)
		return Shape{dim}, ok && c.sameInEveryCopy(a.expr, c.what(cc, a), dim)
	}
	c.argErr(cc, a, "a shape like [16, 128]")
	return nil, false
}

// broadcastInto requires a's shape to broadcast to exactly target.
func (c *checker) broadcastInto(cc *callCtx, a *argv, target Shape) bool {
	s := ShapeOf(a.typ)
	out, ok := Broadcast(s, target)
	if !ok || !out.Equal(target) {
		c.errorf(cc.at(a), "%s: cannot broadcast shape %s to %s", c.what(cc, a), s, target)
		return false
	}
	return true
}

// mask checks a mask: argument against the shape it applies to.
func (c *checker) maskArg(cc *callCtx, shape Shape) bool {
	m := cc.get("mask")
	if m == nil {
		return true
	}
	if d, ok := ElemOf(m.typ).(DType); !ok || d != I1 {
		c.argErr(cc, m, "an i1 mask")
		return false
	}
	return c.broadcastInto(cc, m, shape)
}

func (c *checker) readOnlyErr(cc *callCtx, a *argv) {
	c.errorf(cc.at(a), "cannot write to a pipe reader slot's buffer (it is read-only; write through a slot from pp.acquire)")
}

// pointerArg requires a pointer or tile of pointers.
func (c *checker) pointerArg(cc *callCtx, a *argv) (*Pointer, Shape, bool) {
	if p, ok := ElemOf(a.typ).(*Pointer); ok {
		return p, ShapeOf(a.typ), true
	}
	c.argErr(cc, a, "a pointer or a tile of pointers")
	return nil, nil, false
}

// writablePtr requires a pointer or tile of pointers that may be stored
// through (not into a pipe reader slot).
func (c *checker) writablePtr(cc *callCtx, p *argv) (*Pointer, Shape, bool) {
	ptr, shape, ok := c.pointerArg(cc, p)
	if !ok {
		return nil, nil, false
	}
	if ptr.ReadOnly {
		c.readOnlyErr(cc, p)
		return nil, nil, false
	}
	return ptr, shape, true
}

// valueInto requires a value stored as elem into shape: a number or a tile
// of numbers, converted to elem, broadcasting to exactly shape.
func (c *checker) valueInto(cc *callCtx, v *argv, elem DType, shape Shape) bool {
	if _, _, ok := c.numeric(cc, v); !ok {
		return false
	}
	c.convert(v, elem)
	return c.broadcastInto(cc, v, shape)
}

// ------------------------------------------------------------ core

func (c *checker) gridAxis(cc *callCtx) Type {
	if !c.knownIntIn(cc, "axis", 0, 2) {
		return Invalid
	}
	return I32
}

func (c *checker) arange(cc *callCtx) Type {
	lo, ok1 := c.constDim(cc, cc.get("start"), false)
	hi, ok2 := c.constDim(cc, cc.get("end"), false)
	if !ok1 || !ok2 {
		return Invalid
	}
	size := hi.Sub(lo)
	if !c.sameInEveryCopy(cc.call, "arange size", size) {
		return Invalid
	}
	if n, ok := size.Const(); ok {
		if n <= 0 {
			c.errorf(cc.call, "arange size must be positive, got %d", n)
			return Invalid
		}
		if n&(n-1) != 0 {
			c.errorf(cc.call, "arange size must be a power of two, got %d", n)
			return Invalid
		}
	}
	return &Tile{Shape: Shape{size}, Elem: I32}
}

func (c *checker) zeros(cc *callCtx) Type {
	shape, ok1 := c.shapeArg(cc, cc.get("shape"))
	d, ok2 := c.dtypeArg(cc, cc.get("dtype"))
	if !ok1 || !ok2 {
		return Invalid
	}
	return TileOf(d, shape)
}

func (c *checker) full(cc *callCtx) Type {
	shape, ok1 := c.shapeArg(cc, cc.get("shape"))
	d, ok2 := c.dtypeArg(cc, cc.get("dtype"))
	v := cc.get("value")
	_, vs, ok3 := c.numeric(cc, v)
	if !ok1 || !ok2 || !ok3 {
		return Invalid
	}
	if len(vs) > 0 {
		return c.argErr(cc, v, "a scalar")
	}
	c.convert(v, d)
	return TileOf(d, shape)
}

// likeArg is the tile (or scalar) of zeros_like and full_like, and the dtype
// of the result: dtype: when given, else x's.
func (c *checker) likeArg(cc *callCtx) (DType, Shape, bool) {
	x := cc.get("x")
	xd, shape, ok := c.numeric(cc, x)
	if !ok {
		return Invalid, nil, false
	}
	if xd.IsUntyped() {
		c.defaultUntyped(x)
		xd = xd.Default()
	}
	if a := cc.get("dtype"); a != nil {
		d, ok := c.dtypeArg(cc, a)
		return d, shape, ok
	}
	return xd, shape, true
}

func (c *checker) zerosLike(cc *callCtx) Type {
	d, shape, ok := c.likeArg(cc)
	if !ok {
		return Invalid
	}
	return TileOf(d, shape)
}

func (c *checker) fullLike(cc *callCtx) Type {
	d, shape, ok := c.likeArg(cc)
	v := cc.get("value")
	_, vs, ok2 := c.numeric(cc, v)
	if !ok || !ok2 {
		return Invalid
	}
	if len(vs) > 0 {
		return c.argErr(cc, v, "a scalar")
	}
	c.convert(v, d)
	return TileOf(d, shape)
}

func (c *checker) load(cc *callCtx) Type {
	p := cc.get("ptr")
	if m, ok := p.typ.(*MemDesc); ok {
		for _, name := range []string{"mask", "other"} {
			if a := cc.get(name); a != nil {
				c.errorf(cc.at(a), "%s: is not allowed when loading a whole shared-memory buffer", name)
				return Invalid
			}
		}
		if !c.noBlockPtrArgs(cc) || !c.memHints(cc, nil) {
			return Invalid
		}
		return &Tile{Shape: m.Shape, Elem: m.Elem}
	}
	if bp, ok := p.typ.(*BlockPtr); ok {
		if _, _, ok := c.constBool(cc, cc.get("async")); !ok || !c.blockPtrAccess(cc, bp) || !c.memHints(cc, nil) {
			return Invalid
		}
		return &Tile{Shape: bp.Block, Elem: bp.Elem}
	}
	ptr, shape, ok := c.pointerArg(cc, p)
	if !ok {
		return Invalid
	}
	if !c.noBlockPtrArgs(cc) || !c.maskArg(cc, shape) {
		return Invalid
	}
	if o := cc.get("other"); o != nil {
		if !c.valueInto(cc, o, ptr.Elem, shape) {
			return Invalid
		}
	}
	if _, _, ok := c.constBool(cc, cc.get("async")); !ok || !c.memHints(cc, ptr) {
		return Invalid
	}
	return TileOf(ptr.Elem, shape)
}

func (c *checker) store(cc *callCtx) Type {
	p, v := cc.get("ptr"), cc.get("value")
	if m, ok := p.typ.(*MemDesc); ok {
		if m.ReadOnly {
			c.readOnlyErr(cc, p)
			return Invalid
		}
		if a := cc.get("mask"); a != nil {
			c.errorf(cc.at(a), "mask: is not allowed when storing a whole shared-memory buffer")
			return Invalid
		}
		if !c.noBlockPtrArgs(cc) || !c.memHints(cc, nil) {
			return Invalid
		}
		if !c.valueInto(cc, v, m.Elem, m.Shape) {
			return Invalid
		}
		return NoValue
	}
	if bp, ok := p.typ.(*BlockPtr); ok {
		if !c.blockPtrAccess(cc, bp) || !c.memHints(cc, nil) || !c.valueInto(cc, v, bp.Elem, bp.Block) {
			return Invalid
		}
		return NoValue
	}
	ptr, shape, ok := c.writablePtr(cc, p)
	if !ok || !c.noBlockPtrArgs(cc) || !c.valueInto(cc, v, ptr.Elem, shape) || !c.maskArg(cc, shape) || !c.memHints(cc, ptr) {
		return Invalid
	}
	return NoValue
}

// LoadCacheModifiers, StoreCacheModifiers and EvictionPolicies are the
// values of load's and store's cache_modifier: and eviction_policy:
// (Triton's _str_to_load_cache_modifier, _str_to_store_cache_modifier and
// _str_to_eviction_policy; "" is the default, no qualifier).
var (
	LoadCacheModifiers  = []string{"", ".ca", ".cg", ".cv"}
	StoreCacheModifiers = []string{"", ".wb", ".cg", ".cs", ".wt"}
	EvictionPolicies    = []string{"", "evict_first", "evict_last"}
)

// memHints checks load's and store's cache_modifier:, eviction_policy:
// and volatile: (load only): compile-time values among Triton's, given
// only for an access through global pointers (ptr; nil for a shared-memory
// buffer or a block pointer), synchronous, and not combined: PTX's ld and
// st take a .cop or an eviction priority, and ld.volatile neither.
func (c *checker) memHints(cc *callCtx, ptr *Pointer) bool {
	cacheVals := LoadCacheModifiers
	if cc.b.Name == "store" {
		cacheVals = StoreCacheModifiers
	}
	var set []*argv
	var names []string
	for _, k := range []struct {
		name string
		vals []string
	}{{"cache_modifier", cacheVals}, {"eviction_policy", EvictionPolicies}, {"volatile", nil}} {
		p := cc.get(k.name)
		if p == nil || p.def {
			continue
		}
		if k.vals == nil {
			v, _, ok := c.constBool(cc, p)
			if !ok {
				return false
			}
			if !v {
				continue
			}
		} else {
			want := quoteList(k.vals)
			if p.typ != String || p.val == nil {
				c.argErr(cc, p, "a string: "+want)
				return false
			}
			v := constant.StringVal(p.val.Known)
			if !slices.Contains(k.vals, v) {
				c.errorf(cc.at(p), "%s: %s %q: want %s", cc.b.Name, k.name, v, want)
				return false
			}
			if v == "" {
				continue
			}
		}
		if ptr == nil || ptr.Space != Global {
			what := "a shared-memory buffer"
			if ptr != nil {
				what = "shared-memory pointers"
			} else if _, ok := cc.get("ptr").typ.(*BlockPtr); ok {
				what = "a block pointer"
			}
			c.errorf(cc.at(p), "%s: is only for global pointers, not %s", k.name, what)
			return false
		}
		set = append(set, p)
		names = append(names, k.name)
	}
	if len(set) > 1 {
		c.errorf(cc.at(set[1]), "%s: cannot be combined with %s: (PTX's %s takes one)", names[1], names[0], map[bool]string{true: "ld", false: "st"}[cc.b.Name == "load"])
		return false
	}
	if len(set) == 1 {
		if a, _, _ := c.constBool(cc, cc.get("async")); a {
			c.errorf(cc.at(set[0]), "%s: cannot be combined with async: (cp.async)", names[0])
			return false
		}
	}
	return true
}

func (c *checker) atomicRMW(cc *callCtx) Type {
	ptr, shape, ok := c.writablePtr(cc, cc.get("ptr"))
	if !ok {
		return Invalid
	}
	for _, name := range []string{"cmp", "value"} {
		if v := cc.get(name); v != nil && !c.valueInto(cc, v, ptr.Elem, shape) {
			return Invalid
		}
	}
	if !c.maskArg(cc, shape) {
		return Invalid
	}
	if !c.atomicOrder(cc) {
		return Invalid
	}
	return TileOf(ptr.Elem, shape)
}

// AtomicSems and AtomicScopes are the atomics' sem: and scope: values
// (Triton's names; the first is the default).
var (
	AtomicSems   = []string{"acq_rel", "acquire", "release", "relaxed"}
	AtomicScopes = []string{"gpu", "cta", "sys"}
)

// atomicOrder checks an atomic's sem: and scope: (compile-time strings
// among Triton's values, which Triton's semantic layer also rejects).
func (c *checker) atomicOrder(cc *callCtx) bool {
	for _, k := range []struct {
		name string
		vals []string
	}{{"sem", AtomicSems}, {"scope", AtomicScopes}} {
		p := cc.get(k.name)
		if p == nil || p.def {
			continue
		}
		want := quoteList(k.vals)
		if p.typ != String || p.val == nil {
			c.argErr(cc, p, "a string: "+want)
			return false
		}
		if v := constant.StringVal(p.val.Known); !slices.Contains(k.vals, v) {
			c.errorf(cc.at(p), "%s: %s %q: want %s", cc.b.Name, k.name, v, want)
			return false
		}
	}
	return true
}

// quoteList writes vals as "a", "b" or "c".
func quoteList(vals []string) string {
	s := ""
	for i, v := range vals {
		switch {
		case i == len(vals)-1 && i > 0:
			s += " or "
		case i > 0:
			s += ", "
		}
		s += fmt.Sprintf("%q", v)
	}
	return s
}

// debugBarrier checks debug_barrier(): a CTA-wide barrier, which a warp
// role (a subset of the CTA's warps) would wait on forever.
func (c *checker) debugBarrier(cc *callCtx) Type {
	if c.b != nil && c.b.role != nil {
		c.errorf(cc.call, "debug_barrier inside role %s: a CTA-wide barrier waits for every warp, and the other roles never arrive (deadlock)", c.b.role.Name.Name)
	}
	return NoValue
}

func (c *checker) atomicCAS(cc *callCtx) Type { return c.atomicRMW(cc) }

func mmaInput(d DType) bool {
	switch d {
	case BF16, F16, F32, F8E4M3, F8E5M2, I8:
		return true
	}
	return false
}

// mmaOperands checks the dtypes of two MMA operands and returns the
// accumulator dtype.
func (c *checker) mmaOperands(cc *callCtx, a, b *argv, ad, bd DType) (DType, bool) {
	for _, x := range []struct {
		a *argv
		d DType
	}{{a, ad}, {b, bd}} {
		if !mmaInput(x.d) {
			c.argErr(cc, x.a, "a 2-D bf16, f16, f32, f8e4m3, f8e5m2 or i8 operand")
			return Invalid, false
		}
	}
	if ad != bd && !(ad.IsFP8() && bd.IsFP8()) {
		c.errorf(cc.call, "%s operands must have the same dtype, got %s and %s", cc.b.CallName(), ad, bd)
		return Invalid, false
	}
	if ad == I8 {
		return I32, true
	}
	return F32, true
}

func (c *checker) accArg(cc *callCtx, acc *argv, want Shape, d DType) bool {
	at, ok := acc.typ.(*Tile)
	if !ok || at.Elem != d || len(at.Shape) != len(want) {
		c.argErr(cc, acc, fmt.Sprintf("a %s tile", (&Tile{Shape: want, Elem: d}).String()))
		return false
	}
	if !at.Shape.Equal(want) {
		c.errorf(cc.at(acc), "%s: acc has shape %s, want %s", cc.b.CallName(), at.Shape, want)
		return false
	}
	return true
}

// DotPrecisions are dot's input_precision values: how f32 operands are
// multiplied (Triton's names).
var DotPrecisions = []string{"tf32", "tf32x3", "ieee"}

func (c *checker) dot(cc *callCtx) Type {
	a, b := cc.get("a"), cc.get("b")
	at, ok1 := a.typ.(*Tile)
	bt, ok2 := b.typ.(*Tile)
	for _, x := range []struct {
		a  *argv
		t  *Tile
		ok bool
	}{{a, at, ok1}, {b, bt, ok2}} {
		if !x.ok || len(x.t.Shape) != 2 && len(x.t.Shape) != 3 {
			return c.argErr(cc, x.a, "a 2-D tile, or a 3-D one for a batched dot (use wgmma for shared-memory operands)")
		}
	}
	if len(at.Shape) != len(bt.Shape) {
		c.errorf(cc.call, "dot: a batched dot takes two 3-D operands, got %s and %s", at.Shape, bt.Shape)
		return Invalid
	}
	ad, _ := at.Elem.(DType)
	bd, _ := bt.Elem.(DType)
	accD, ok := c.mmaOperands(cc, a, b, ad, bd)
	if !ok {
		return Invalid
	}
	r := len(at.Shape)
	var batch Shape
	if r == 3 {
		if !at.Shape[0].Equal(bt.Shape[0]) {
			c.errorf(cc.call, "dot: batch dimensions differ: a is %s, b is %s", at.Shape, bt.Shape)
			return Invalid
		}
		batch = Shape{at.Shape[0]}
	}
	m, k, k2, n := at.Shape[r-2], at.Shape[r-1], bt.Shape[r-2], bt.Shape[r-1]
	if !k.Equal(k2) {
		c.errorf(cc.call, "dot: inner dimensions differ: a is %s, b is %s", at.Shape, bt.Shape)
		return Invalid
	}
	for _, d := range []Dim{m, n, k} {
		if v, known := d.Const(); known && v < 16 {
			c.errorf(cc.call, "dot needs every dimension to be at least 16, got %s x %s", at.Shape, bt.Shape)
			return Invalid
		}
	}
	if !c.dotPrecision(cc) {
		return Invalid
	}
	if x := cc.get("max_num_imprecise_acc"); x != nil {
		if n, ok := c.knownInt(cc, x); !ok {
			return Invalid
		} else if n < 0 {
			c.errorf(cc.at(x), "%s must not be negative, got %d", c.what(cc, x), n)
			return Invalid
		}
	}
	if o := cc.get("out_dtype"); o != nil {
		d, ok := c.dtypeArg(cc, o)
		if !ok {
			return Invalid
		}
		if d != accD && !(d == F16 && (ad == F16 || ad.IsFP8())) {
			c.errorf(cc.at(o), "dot: out_dtype %s is not a result of %s operands (want %s%s)", d, ad, accD, map[bool]string{true: " or f16", false: ""}[ad == F16 || ad.IsFP8()])
			return Invalid
		}
		accD = d
	}
	want := append(batch, m, n)
	if acc := cc.get("acc"); acc != nil && !c.accArg(cc, acc, want, accD) {
		return Invalid
	}
	return &Tile{Shape: want, Elem: accD}
}

// dotPrecision checks input_precision and allow_tf32 (Triton's older
// spelling: true is "tf32", false "ieee"); only one may be given.
func (c *checker) dotPrecision(cc *callCtx) bool {
	p := cc.get("input_precision")
	if p != nil && !p.def {
		if p.typ != String || p.val == nil {
			c.argErr(cc, p, "a string: \"tf32\", \"tf32x3\" or \"ieee\"")
			return false
		}
		v := constant.StringVal(p.val.Known)
		if !slices.Contains(DotPrecisions, v) {
			c.errorf(cc.at(p), "dot: input_precision %q: want \"tf32\", \"tf32x3\" or \"ieee\"", v)
			return false
		}
	}
	if t := cc.get("allow_tf32"); t != nil {
		if _, _, ok := c.constBool(cc, t); !ok {
			return false
		}
		if p != nil && !p.def {
			c.errorf(cc.at(t), "dot: give input_precision or allow_tf32, not both (allow_tf32: false is input_precision: \"ieee\")")
			return false
		}
	}
	return true
}

func (c *checker) where(cc *callCtx) Type {
	cond, x, y := cc.get("cond"), cc.get("x"), cc.get("y")
	if d, ok := ElemOf(cond.typ).(DType); !ok || d != I1 {
		return c.argErr(cc, cond, "an i1 mask")
	}
	xd, yd, xs, ys, ok := c.numerics(cc, x, y)
	if !ok {
		return Invalid
	}
	s1, ok := Broadcast(ShapeOf(cond.typ), xs)
	shape, ok3 := Broadcast(s1, ys)
	if !ok || !ok3 {
		c.errorf(cc.call, "where: cannot broadcast shapes %s, %s and %s", ShapeOf(cond.typ), xs, ys)
		return Invalid
	}
	return TileOf(c.promoteArgs(x, y, xd, yd), shape)
}

// numerics requires two numbers or tiles of numbers (both are checked).
func (c *checker) numerics(cc *callCtx, x, y *argv) (xd, yd DType, xs, ys Shape, ok bool) {
	xd, xs, ok1 := c.numeric(cc, x)
	yd, ys, ok2 := c.numeric(cc, y)
	return xd, yd, xs, ys, ok1 && ok2
}

// promoteArgs converts x and y to their promoted dtype (two untyped
// constants take its default) and returns it.
func (c *checker) promoteArgs(x, y *argv, xd, yd DType) DType {
	d := promote(xd, yd)
	if d.IsUntyped() {
		d = d.Default()
	}
	c.convert(x, d)
	c.convert(y, d)
	return d
}

func (c *checker) cast(cc *callCtx) Type {
	x := cc.get("x")
	if t, handled := c.pointerCast(cc, x, cc.get("dtype")); handled {
		return t
	}
	d, ok := c.dtypeArg(cc, cc.get("dtype"))
	xd, shape, ok2 := c.numeric(cc, x)
	if !ok || !ok2 {
		return Invalid
	}
	if xd.IsUntyped() {
		c.defaultUntyped(x)
		if xd, ok = ElemOf(x.typ).(DType); !ok || xd.IsUntyped() {
			return Invalid
		}
	}
	bitcast, _, ok := c.constBool(cc, cc.get("bitcast"))
	if !ok {
		return Invalid
	}
	rounding := ""
	if r := cc.get("fp_downcast_rounding"); r != nil {
		if rounding, ok = c.downcastRounding(cc, r, xd, d, bitcast); !ok {
			return Invalid
		}
	}
	if bitcast {
		// the bits reinterpreted (Triton's bitcast=True): no value folds
		for _, t := range []DType{xd, d} {
			if t == I1 {
				c.errorf(cc.call, "bitcast from %s to %s: i1 has no bits to reinterpret", xd, d)
				return Invalid
			}
		}
		if xd.Bits() != d.Bits() {
			c.errorf(cc.call, "bitcast from %s (%d bits) to %s (%d bits): the widths differ", xd, xd.Bits(), d, d.Bits())
			return Invalid
		}
		return TileOf(d, shape)
	}
	if len(shape) == 0 && x.val != nil && rounding != "rtz" {
		cc.value = convertValue(x.val, d)
	}
	return TileOf(d, shape)
}

// pointerCast checks a cast with a pointer on either side (handled):
// Triton's pointer tables, an i64 or u64 (scalar or tile) to a global
// pointer type (`load(table + g).to(*f16)`) and a global pointer to i64 or
// u64; a pointer to its own type is no conversion. Neither bitcast: nor
// fp_downcast_rounding: applies.
func (c *checker) pointerCast(cc *callCtx, x, dt *argv) (Type, bool) {
	var to *Pointer
	if tv, ok := dt.typ.(*TypeVal); ok {
		to, _ = tv.T.(*Pointer)
	}
	from, _ := ElemOf(x.typ).(*Pointer)
	if to == nil && from == nil {
		return nil, false
	}
	for _, k := range []string{"bitcast", "fp_downcast_rounding"} {
		if a := cc.get(k); a != nil && !a.def {
			c.errorf(cc.at(a), "%s: applies to number casts, not to a pointer cast", k)
			return Invalid, true
		}
	}
	shape := ShapeOf(x.typ)
	if from != nil && from.Space != Global {
		c.errorf(cc.at(x), "cast of a %s: only global pointers convert to and from integers", from)
		return Invalid, true
	}
	if to != nil {
		if from != nil {
			if from.Elem != to.Elem {
				c.errorf(cc.at(dt), "cast from %s to %s: a pointer keeps its pointee dtype (a buffer's elements have one dtype)", from, to)
				return Invalid, true
			}
			return x.typ, true
		}
		xd, ok := ElemOf(x.typ).(DType)
		if ok && xd.IsUntyped() {
			c.errorf(cc.at(x), "cast to %s: an integer constant is no address (pointers come from arguments and tables of them)", to)
			return Invalid, true
		}
		if !ok || (xd != I64 && xd != U64) {
			c.errorf(cc.at(x), "cast to %s: only an i64 or u64 (a scalar or a tile) converts to a pointer, not %s", to, x.typ)
			return Invalid, true
		}
		return TileOf(to, shape), true
	}
	d, ok := c.dtypeArg(cc, dt)
	if !ok {
		return Invalid, true
	}
	if d != I64 && d != U64 {
		c.errorf(cc.at(dt), "cast of a pointer to %s: a pointer converts to i64 or u64 only", d)
		return Invalid, true
	}
	return TileOf(d, shape), true
}

// DowncastRoundings are cast's fp_downcast_rounding values (Triton's):
// round to nearest even, the default, and toward zero.
var DowncastRoundings = []string{"rtne", "rtz"}

// downcastRounding checks cast's fp_downcast_rounding: a known string of
// DowncastRoundings, given only for a float downcast (a float to a
// narrower float), and "rtz" only where the GPU has such a conversion
// (PTX converts to fp8 rounding to nearest only).
func (c *checker) downcastRounding(cc *callCtx, r *argv, from, to DType, bitcast bool) (string, bool) {
	if r.typ != String || r.val == nil || r.val.Known == nil {
		c.argErr(cc, r, "a string: \"rtne\" or \"rtz\"")
		return "", false
	}
	v := constant.StringVal(r.val.Known)
	if !slices.Contains(DowncastRoundings, v) {
		c.errorf(cc.at(r), "fp_downcast_rounding %q: want \"rtne\" or \"rtz\"", v)
		return "", false
	}
	switch {
	case bitcast:
		c.errorf(cc.at(r), "fp_downcast_rounding with bitcast: true: a bitcast does not round")
		return "", false
	case !from.IsFloat() || !to.IsFloat() || from.Bits() <= to.Bits():
		c.errorf(cc.at(r), "fp_downcast_rounding is only for float downcasts, not %s to %s", from, to)
		return "", false
	case v == "rtz" && to.Bits() == 8:
		c.errorf(cc.at(r), "fp_downcast_rounding \"rtz\" to %s: the GPU converts to fp8 rounding to nearest even only (cvt.rn.satfinite)", to)
		return "", false
	}
	return v, true
}

// convertValue converts a compile-time value to dtype d (nil when it cannot
// be folded).
func convertValue(v *Value, d DType) *Value {
	if v.Known == nil {
		if d.IsInteger() && d != I1 {
			return v
		}
		return &Value{Sym: atomDim(d.String() + "(" + v.Sym.String() + ")")}
	}
	x := boolToInt(v.Known)
	switch {
	case d == I1:
		return &Value{Known: constant.MakeBool(constant.Sign(x) != 0)}
	case d.IsFloat():
		return &Value{Known: constant.ToFloat(x)}
	default:
		if i := constant.ToInt(x); i.Kind() == constant.Int {
			if representable(i, d) {
				return &Value{Known: i}
			}
			return nil
		}
		f, _ := constant.Float64Val(x)
		i := constant.MakeInt64(int64(f))
		if representable(i, d) {
			return &Value{Known: i}
		}
	}
	return nil
}

// reduced is the dtype a sum/cumsum accumulates in.
func reduced(name string, d DType) DType {
	if name == "sum" || name == "cumsum" || name == "cumprod" {
		switch d {
		case I1, I8, I16:
			return I32
		case U8, U16:
			return U32
		}
	}
	return d
}

func (c *checker) axisArg(cc *callCtx, a *argv, rank int) (int, bool) {
	n, ok := c.knownInt(cc, a)
	if !ok {
		return 0, false
	}
	if n < 0 {
		n += int64(rank)
	}
	if n < 0 || n >= int64(rank) {
		c.errorf(cc.at(a), "axis %d out of range for %s (rank %d)", n, cc.get("x").typ, rank)
		return 0, false
	}
	return int(n), true
}

func (c *checker) reduce(cc *callCtx) Type {
	x := cc.get("x")
	t, ok := x.typ.(*Tile)
	d, isD := ElemOf(x.typ).(DType)
	if !ok || !isD {
		hint := "a tile of numbers"
		if cc.b.Name == "max" || cc.b.Name == "min" {
			hint += " (for two values use " + cc.b.Name + "imum)"
		}
		return c.argErr(cc, x, hint)
	}
	arg := cc.b.Name == "argmax" || cc.b.Name == "argmin"
	indices := arg
	for _, name := range []string{"keep_dims", "return_indices", "return_indices_tie_break_left", "tie_break_left"} {
		v, _, ok := c.constBool(cc, cc.get(name))
		if !ok {
			return Invalid
		}
		if name == "return_indices" {
			indices = v
		}
	}
	keep := false
	if k := cc.get("keep_dims"); k != nil && k.val != nil {
		keep, _ = k.val.Bool()
	}
	d = reduced(cc.b.Name, d)
	if arg {
		d = I32
	}
	if (cc.b.Name == "reduce_or" || cc.b.Name == "xor_sum") && !d.IsInteger() {
		return c.argErr(cc, x, "a tile of integers")
	}
	if a := cc.get("dtype"); a != nil {
		if d, ok = c.dtypeArg(cc, a); !ok {
			return Invalid
		}
	}
	var out Type = d
	if a := cc.get("axis"); a != nil {
		ax, ok := c.axisArg(cc, a, len(t.Shape))
		if !ok {
			return Invalid
		}
		shape := append(append(Shape{}, t.Shape[:ax]...), t.Shape[ax+1:]...)
		if keep {
			shape = append(append(append(Shape{}, t.Shape[:ax]...), ConstDim(1)), t.Shape[ax+1:]...)
		}
		out = TileOf(d, shape)
	} else if keep {
		ones := make(Shape, len(t.Shape))
		for i := range ones {
			ones[i] = ConstDim(1)
		}
		out = TileOf(d, ones)
	}
	if indices && !arg {
		idx := Type(I32)
		if t, ok := out.(*Tile); ok {
			idx = TileOf(I32, t.Shape)
		}
		return &Tuple{Types: []Type{out, idx}}
	}
	return out
}

func (c *checker) cumsum(cc *callCtx) Type {
	x := cc.get("x")
	t, ok := x.typ.(*Tile)
	d, isD := ElemOf(x.typ).(DType)
	if !ok || !isD {
		return c.argErr(cc, x, "a tile of numbers")
	}
	if _, ok := c.axisArg(cc, cc.get("axis"), len(t.Shape)); !ok {
		return Invalid
	}
	if _, _, ok := c.constBool(cc, cc.get("reverse")); !ok {
		return Invalid
	}
	if a := cc.get("dtype"); a != nil {
		if d, ok = c.dtypeArg(cc, a); !ok {
			return Invalid
		}
		return &Tile{Shape: t.Shape, Elem: d}
	}
	return &Tile{Shape: t.Shape, Elem: reduced(cc.b.Name, d)}
}

func (c *checker) mathUnary(cc *callCtx) Type {
	x := cc.get("x")
	d, shape, ok := c.numeric(cc, x)
	if !ok {
		return Invalid
	}
	if d.IsUntyped() {
		c.convert(x, F32)
		d = F32
	}
	if !d.IsFloat() {
		return c.argErr(cc, x, "a float or a tile of floats (cast integers first)")
	}
	return TileOf(d, shape)
}

func (c *checker) abs(cc *callCtx) Type {
	x := cc.get("x")
	d, shape, ok := c.numeric(cc, x)
	if !ok {
		return Invalid
	}
	if d.IsUntyped() {
		c.defaultUntyped(x)
		d, _ = x.typ.(DType)
	}
	return TileOf(d, shape)
}

func (c *checker) minmax(cc *callCtx) Type {
	x, y := cc.get("x"), cc.get("y")
	xd, yd, xs, ys, ok := c.numerics(cc, x, y)
	if !ok {
		return Invalid
	}
	shape, ok := Broadcast(xs, ys)
	if !ok {
		c.errorf(cc.call, "%s: cannot broadcast shapes %s and %s", cc.b.Name, xs, ys)
		return Invalid
	}
	return TileOf(c.promoteArgs(x, y, xd, yd), shape)
}

// fma broadcasts and promotes its three operands as a binary arithmetic
// operator would, pairwise from the left; untyped constants take the
// others' dtype (f32 when all are untyped, as exp(1) is). It is defined on
// floats only: a typed integer operand is an error, not converted (its
// conversion would round before the one rounding fma promises; integer
// a*b + c is exact, modulo the width, with the operators already), and so is
// an fp8 result, which has no fused multiply-add on the GPU.
func (c *checker) fma(cc *callCtx) Type {
	args := []*argv{cc.get("a"), cc.get("b"), cc.get("c")}
	ds, shapes := make([]DType, len(args)), make([]Shape, len(args))
	ok := true
	for i, a := range args {
		d, s, isNum := c.numeric(cc, a)
		switch {
		case !isNum:
			ok = false
		case !d.IsFloat() && !d.IsUntyped():
			c.argErr(cc, a, "a float or a tile of floats (fma works on floats; cast integers first)")
			ok = false
		}
		ds[i], shapes[i] = d, s
	}
	if !ok {
		return Invalid
	}
	shape, ok1 := Broadcast(shapes[0], shapes[1])
	shape, ok2 := Broadcast(shape, shapes[2])
	if !ok1 || !ok2 {
		c.errorf(cc.call, "fma: cannot broadcast shapes %s, %s and %s", shapes[0], shapes[1], shapes[2])
		return Invalid
	}
	d := promote(promote(ds[0], ds[1]), ds[2])
	if d.IsUntyped() {
		d = F32
	}
	if d.IsFP8() {
		c.errorf(cc.call, "fma: %s has no fused multiply-add (cast the operands to f16, bf16 or f32)", d)
		return Invalid
	}
	for _, a := range args {
		c.convert(a, d)
	}
	return TileOf(d, shape)
}

func (c *checker) cdiv(cc *callCtx) Type {
	a, b := cc.get("a"), cc.get("b")
	ad, bd, as, bs, ok := c.numerics(cc, a, b)
	if !ok {
		return Invalid
	}
	for _, x := range []struct {
		a *argv
		d DType
	}{{a, ad}, {b, bd}} {
		if !x.d.IsInteger() || x.d == I1 {
			return c.argErr(cc, x.a, "an integer or a tile of integers")
		}
	}
	shape, ok := Broadcast(as, bs)
	if !ok {
		c.errorf(cc.call, "cdiv: cannot broadcast shapes %s and %s", as, bs)
		return Invalid
	}
	d := promote(ad, bd)
	if len(shape) == 0 && a.val != nil && b.val != nil {
		x, y := valDim(a.val), valDim(b.val)
		if yv, ok := y.Const(); ok && yv == 0 {
			c.errorf(cc.at(b), "division by zero")
			return Invalid
		}
		cc.value = &Value{Sym: x.Add(y).Sub(ConstDim(1)).Div(y)}
		if n, ok := cc.value.Sym.Const(); ok {
			cc.value = knownInt(n)
		}
	}
	if d.IsUntyped() {
		if cc.value == nil {
			d = d.Default()
		}
	} else {
		c.convert(a, d)
		c.convert(b, d)
	}
	return TileOf(d, shape)
}

func (c *checker) reshape(cc *callCtx) Type {
	x := cc.get("x")
	if md, ok := x.typ.(*MemDesc); ok {
		return c.reshapeView(cc, md)
	}
	t, ok := x.typ.(*Tile)
	if !ok {
		return c.argErr(cc, x, "a tile or a shared-memory view")
	}
	shape, ok := c.shapeArg(cc, cc.get("shape"))
	if !ok {
		return Invalid
	}
	from, to := t.Shape.NumElements(), shape.NumElements()
	if !from.Equal(to) && !strings.Contains(from.String()+to.String(), "(") {
		c.errorf(cc.call, "cannot reshape %s to %s: element counts differ (%s vs %s)", t.Shape, shape, from, to)
		return Invalid
	}
	return TileOf(t.Elem, shape)
}

// reshapeView checks reshape(buf, shape) of a shared-memory view: a view of
// the same bytes (no copy, Triton's memdesc_reshape) when the view is
// row-major (not transposed or permuted) and only its leading dimensions
// merge or split: the innermost dimension stays, both ranks are 2 or more.
func (c *checker) reshapeView(cc *callCtx, md *MemDesc) Type {
	shape, ok := c.shapeArg(cc, cc.get("shape"))
	if !ok {
		return Invalid
	}
	for i, p := range md.Perm {
		if p != i {
			c.errorf(cc.call, "cannot reshape %s: it is a transposed or permuted view (not row-major); reshape the buffer, then transpose", md)
			return Invalid
		}
	}
	if len(md.Shape) < 2 || len(shape) < 2 {
		c.errorf(cc.call, "cannot reshape %s to %s: a shared-memory view reshapes between shapes of rank 2 or more", md, shape)
		return Invalid
	}
	if !md.Shape[len(md.Shape)-1].Equal(shape[len(shape)-1]) {
		c.errorf(cc.call, "cannot reshape %s to %s: on a shared-memory view only the leading dimensions may merge or split, the innermost (%s) must stay",
			md, shape, md.Shape[len(md.Shape)-1])
		return Invalid
	}
	from, to := md.Shape.NumElements(), shape.NumElements()
	if !from.Equal(to) && !strings.Contains(from.String()+to.String(), "(") {
		c.errorf(cc.call, "cannot reshape %s to %s: element counts differ (%s vs %s)", md, shape, from, to)
		return Invalid
	}
	m := *md
	m.Shape, m.Perm = shape, nil
	return &m
}

func (c *checker) broadcastTo(cc *callCtx) Type {
	x := cc.get("x")
	d, _, ok := c.numeric(cc, x)
	if !ok {
		return Invalid
	}
	shape, ok := c.shapeArg(cc, cc.get("shape"))
	if !ok {
		return Invalid
	}
	if d.IsUntyped() {
		c.defaultUntyped(x)
		d, _ = x.typ.(DType)
	}
	if !c.broadcastInto(cc, x, shape) {
		return Invalid
	}
	return TileOf(ElemOf(x.typ), shape)
}

func (c *checker) trans(cc *callCtx) Type {
	x := cc.get("x")
	return c.transpose(cc.at(x), x.typ, nil)
}

func (c *checker) permute(cc *callCtx) Type {
	x := cc.get("x")
	var shape Shape
	switch t := x.typ.(type) {
	case *Tile:
		shape = t.Shape
	case *MemDesc:
		shape = t.Shape
	default:
		return c.argErr(cc, x, "a tile or a shared-memory buffer")
	}
	var perm []int
	seen := map[int64]bool{}
	valid := true
	for _, a := range cc.all("dims") {
		n, ok := c.knownInt(cc, a)
		if !ok {
			return Invalid
		}
		if n < 0 || n >= int64(len(shape)) || seen[n] {
			valid = false
		}
		seen[n] = true
		perm = append(perm, int(n))
	}
	if !valid || len(perm) != len(shape) {
		c.errorf(cc.call, "permute of %s needs a permutation of 0..%d, got %v", x.typ, len(shape)-1, perm)
		return Invalid
	}
	return c.transpose(cc.at(x), x.typ, perm)
}

func (c *checker) print(cc *callCtx) Type {
	for _, a := range cc.all("args") {
		switch ElemOf(a.typ).(type) {
		case DType, *Pointer:
			c.defaultUntyped(a)
			continue
		}
		if a.typ == String {
			continue
		}
		return c.argErr(cc, a, "a string, scalar or tile")
	}
	return NoValue
}

// staticRangeCall is static_range used anywhere but as a loop's range.
func (c *checker) staticRangeCall(cc *callCtx) Type {
	c.errorf(cc.call, "static_range is a for loop's range: for i := range static_range(n)")
	return Invalid
}

// staticAssert checks static_assert(cond, msg): cond a compile-time i1,
// false an error at the call. A symbolic cond waits for the bindings (it
// is checked again with them, and the lowering checks it too).
func (c *checker) staticAssert(cc *callCtx) Type {
	cond := cc.get("cond")
	if d, ok := cond.typ.(DType); !ok || d != I1 {
		return c.argErr(cc, cond, "a compile-time i1 condition")
	}
	if cond.val == nil {
		c.needConst(cond.expr, c.what(cc, cond))
		return Invalid
	}
	msg := ""
	if m := cc.get("msg"); m != nil {
		if m.typ != String || m.val == nil {
			return c.argErr(cc, m, "a string")
		}
		msg = constant.StringVal(m.val.Known)
	}
	if b, known := cond.val.Bool(); known && !b {
		if msg == "" {
			msg = c.src(cond.expr)
		}
		c.errorf(cc.call, "static_assert failed: %s", msg)
	}
	return NoValue
}

// staticPrint checks static_print(args...): strings and compile-time
// values (constants, dtypes, shapes).
func (c *checker) staticPrint(cc *callCtx) Type {
	for _, a := range cc.all("args") {
		switch a.typ.(type) {
		case *TypeVal, *ShapeVal:
			continue
		case DType:
			if a.val != nil {
				continue
			}
		}
		if a.typ == String {
			continue
		}
		return c.argErr(cc, a, "a compile-time value (a constant, a dtype, a shape or a string; print shows runtime values)")
	}
	return NoValue
}

func (c *checker) assert(cc *callCtx) Type {
	cond := cc.get("cond")
	if d, ok := ElemOf(cond.typ).(DType); !ok || d != I1 {
		return c.argErr(cc, cond, "an i1 condition or mask")
	}
	if m := cc.get("msg"); m != nil && m.typ != String {
		return c.argErr(cc, m, "a string")
	}
	return NoValue
}

// axisHint checks multiple_of, max_contiguous and max_constancy (x,
// values): x an integer or pointer scalar or tile, values a compile-time
// positive integer or a list of them, one per axis (a scalar has one);
// contiguity and constancy are powers of two, as the compiler's facts are.
// The result is x's type.
func (c *checker) axisHint(cc *callCtx) Type {
	x := cc.get("x")
	el := ElemOf(x.typ)
	d, isD := el.(DType)
	p, isP := el.(*Pointer)
	switch {
	case isP && p.Space != Global:
		c.errorf(cc.at(x), "%s: a hint on a %s: the compiler's facts are about global pointers and integers", cc.b.Name, p)
		return Invalid
	case isD && d.IsUntyped():
		c.errorf(cc.at(x), "%s of a constant: the compiler knows a constant already", cc.b.Name)
		return Invalid
	case !isP && (!isD || !d.IsInteger() || d == I1):
		return c.argErr(cc, x, "an integer or a pointer (a scalar or a tile)")
	}
	vals := cc.get("values")
	shape, ok := c.shapeArg(cc, vals)
	if !ok {
		return Invalid
	}
	if rank := max(1, len(ShapeOf(x.typ))); len(shape) != rank {
		c.errorf(cc.at(vals), "%s: %d values for %s, which has %d axes (one value per axis)", cc.b.Name, len(shape), x.typ, rank)
		return Invalid
	}
	if cc.b.Name != "multiple_of" {
		for _, v := range shape {
			if n, known := v.Const(); known && n&(n-1) != 0 {
				c.errorf(cc.at(vals), "%s: %d is not a power of two (runs of consecutive or equal elements are)", cc.b.Name, n)
				return Invalid
			}
		}
	}
	return x.typ
}

// assume checks assume(cond): a scalar i1; a compile-time false one is an
// error at once.
func (c *checker) assume(cc *callCtx) Type {
	cond := cc.get("cond")
	if d, ok := cond.typ.(DType); !ok || d != I1 {
		return c.argErr(cc, cond, "a scalar i1 condition")
	}
	if b, known := cond.val.Bool(); known && !b {
		c.errorf(cc.call, "assume(%s): the condition is false", c.src(cond.expr))
	}
	return NoValue
}

// intList requires a list of scalar integers (runtime values allowed).
func (c *checker) intList(cc *callCtx, a *argv) ([]ast.Expr, bool) {
	l, ok := unparen(a.expr).(*ast.ListExpr)
	if !ok || l.Elem != nil {
		c.argErr(cc, a, "a list of integers like [M, K]")
		return nil, false
	}
	for _, e := range l.Elems {
		tv := c.tab.Types[e]
		d, ok := tv.Type.(DType)
		if isInvalid(tv.Type) {
			return nil, false
		}
		if !ok || !d.IsInteger() || d == I1 {
			c.argErr(cc, a, "a list of integers like [M, K]")
			return nil, false
		}
		if d.IsUntyped() {
			c.convertConst(e, d, tv.Value, I64)
		}
	}
	return l.Elems, true
}

// blockView is ir.BlockViewDims on symbolic shapes: view is block with
// some of its dimensions of extent 1 left out. Only a dimension known to
// be 1 (a constant, or a const parameter bound to 1) may be left out.
func blockView(block, view Shape) bool {
	j := 0
	for _, b := range block {
		if j < len(view) && view[j].Equal(b) {
			j++
		} else if n, ok := b.Const(); !ok || n != 1 {
			return false
		}
	}
	return j == len(view)
}

// maxDescRank is the largest TMA rank (cuTensorMapEncodeTiled's and
// cp.async.bulk.tensor's 5 dimensions).
const maxDescRank = 5

func (c *checker) makeDesc(cc *callCtx) Type {
	p := cc.get("ptr")
	ptr, ok := p.typ.(*Pointer)
	if !ok || ptr.Space != Global {
		return c.argErr(cc, p, "a global pointer like *bf16")
	}
	shape, ok1 := c.intList(cc, cc.get("shape"))
	strides, ok2 := c.intList(cc, cc.get("strides"))
	block, ok3 := c.shapeArg(cc, cc.get("block"))
	if !ok1 || !ok2 || !ok3 {
		return Invalid
	}
	if len(shape) != len(block) || len(strides) != len(block) {
		c.errorf(cc.call, "make_desc: shape, strides and block must have the same length, got %d, %d and %d", len(shape), len(strides), len(block))
		return Invalid
	}
	if len(block) > maxDescRank {
		c.errorf(cc.call, "make_desc: a TMA descriptor has rank 1 to %d, this block has %d dimensions", maxDescRank, len(block))
		return Invalid
	}
	return &Desc{Elem: ptr.Elem, Block: block}
}

// ------------------------------------------------------------ shared memory

func (c *checker) alloc(cc *callCtx) Type {
	shape, ok1 := c.shapeArg(cc, cc.get("shape"))
	d, ok2 := c.dtypeArg(cc, cc.get("dtype"))
	if !ok1 || !ok2 {
		return Invalid
	}
	if s := cc.get("scope"); !s.def {
		if s.typ != ScopeType {
			return c.argErr(cc, s, "a memory scope (smem)")
		}
	}
	if in := cc.get("init"); in != nil {
		if !c.valueInto(cc, in, d, shape) {
			return Invalid
		}
	}
	c.addSmem(cc.call, "alloc", shape, d)
	return &MemDesc{Shape: shape, Elem: d}
}

const memWant = "a shared-memory buffer (alloc, slot, .T, pipe slot field or remote view)"

func (c *checker) localPtr(cc *callCtx) Type {
	b := cc.get("buf")
	m, ok := b.typ.(*MemDesc)
	if !ok {
		return c.argErr(cc, b, memWant)
	}
	idx := cc.all("indices")
	if len(idx) != len(m.Shape) {
		c.errorf(cc.call, "local_ptr of %s needs %d indices, got %d", m, len(m.Shape), len(idx))
		return Invalid
	}
	var shape Shape
	for _, a := range idx {
		d, ok := ElemOf(a.typ).(DType)
		if !ok || !d.IsInteger() || d == I1 {
			return c.argErr(cc, a, "an integer or a tile of integers")
		}
		c.convert(a, I32)
		s, ok := Broadcast(shape, ShapeOf(a.typ))
		if !ok {
			c.errorf(cc.at(a), "local_ptr: cannot broadcast index shapes %s and %s", shape, ShapeOf(a.typ))
			return Invalid
		}
		shape = s
	}
	space := Shared
	if m.Remote {
		space = Remote
	}
	return TileOf(&Pointer{Elem: m.Elem, Space: space, ReadOnly: m.ReadOnly}, shape)
}

func (c *checker) copyOp(cc *callCtx) Type {
	src, dst := cc.get("src"), cc.get("dst")
	offs := cc.all("offsets")
	bar := cc.get("barrier")
	if bar != nil {
		if bt, ok := bar.typ.(*Barrier); !ok || bt.Slots != nil {
			return c.argErr(cc, bar, "a barrier (use bars.slot(i) for an array)")
		}
	}
	for _, o := range offs {
		if !c.scalarInt(cc, o) {
			return Invalid
		}
	}
	sd, srcDesc := src.typ.(*Desc)
	dd, dstDesc := dst.typ.(*Desc)
	checkMem := func(a *argv, write bool) (*MemDesc, bool) {
		m, ok := a.typ.(*MemDesc)
		if !ok {
			c.argErr(cc, a, memWant)
			return nil, false
		}
		if write && m.ReadOnly {
			c.readOnlyErr(cc, a)
			return nil, false
		}
		return m, true
	}
	match := func(d *Desc, m *MemDesc) bool {
		if len(offs) != len(d.Block) {
			c.errorf(cc.call, "copy with %s needs %d offsets, got %d", d, len(d.Block), len(offs))
			return false
		}
		if !blockView(d.Block, m.Shape) || m.Elem != d.Elem {
			c.errorf(cc.call, "copy: buffer %s does not match the descriptor block %s (its shape must be the block's, less any of its dimensions of extent 1)", m, d)
			return false
		}
		return true
	}
	switch {
	case srcDesc && dstDesc:
		return c.argErr(cc, dst, memWant)
	case srcDesc:
		m, ok := checkMem(dst, true)
		if !ok || !match(sd, m) {
			return Invalid
		}
		if bar == nil {
			c.errorf(cc.call, "copy from a desc needs barrier: (the mbarrier the TMA load completes on)")
			return Invalid
		}
		return NoValue
	case dstDesc:
		m, ok := checkMem(src, false)
		if !ok || !match(dd, m) {
			return Invalid
		}
		if bar != nil {
			c.errorf(cc.at(bar), "a copy to a desc (TMA store) takes no barrier:")
			return Invalid
		}
		return NoValue
	}
	if len(offs) > 0 {
		c.errorf(cc.at(offs[0]), "offsets are only for a copy from or to a desc")
		return Invalid
	}
	shapeElem := func(a *argv, write bool) (Shape, DType, bool) {
		if m, ok := a.typ.(*MemDesc); ok {
			if write && m.ReadOnly {
				c.readOnlyErr(cc, a)
				return nil, Invalid, false
			}
			return m.Shape, m.Elem, true
		}
		if p, ok := ElemOf(a.typ).(*Pointer); ok {
			if _, isTile := a.typ.(*Tile); isTile {
				if write && p.ReadOnly {
					c.readOnlyErr(cc, a)
					return nil, Invalid, false
				}
				return ShapeOf(a.typ), p.Elem, true
			}
		}
		c.argErr(cc, a, "a desc, a shared-memory buffer or a tile of pointers")
		return nil, Invalid, false
	}
	ss, se, ok1 := shapeElem(src, false)
	ds, de, ok2 := shapeElem(dst, true)
	if !ok1 || !ok2 {
		return Invalid
	}
	_, srcMem := src.typ.(*MemDesc)
	_, dstMem := dst.typ.(*MemDesc)
	if !srcMem && !dstMem {
		return c.argErr(cc, dst, memWant)
	}
	if !ss.Equal(ds) || se != de {
		c.errorf(cc.call, "copy: source %s and destination %s differ in shape or dtype", src.typ, dst.typ)
		return Invalid
	}
	return NoValue
}

func (c *checker) barrier(cc *callCtx) Type {
	if _, ok := c.constDim(cc, cc.get("count"), true); !ok {
		return Invalid
	}
	shape := Shape{ConstDim(1)}
	b := &Barrier{}
	if s := cc.get("slots"); s != nil {
		n, ok := c.constDim(cc, s, true)
		if !ok {
			return Invalid
		}
		shape = Shape{n}
		b.Slots = &n
	}
	c.addSmem(cc.call, "mbarrier", shape, Invalid)
	return b
}

// barrierOp checks arrive(bar), wait(bar, phase) and expect(bar, bytes): one
// mbarrier and, where the row has a value after it, a scalar integer.
func (c *checker) barrierOp(cc *callCtx) Type {
	b := cc.get("bar")
	if bt, ok := b.typ.(*Barrier); !ok || bt.Slots != nil {
		return c.argErr(cc, b, "a barrier (use bars.slot(i) for an array)")
	}
	if len(cc.b.Params) > 1 && !c.scalarInt(cc, cc.get(cc.b.Params[1].Name)) {
		return Invalid
	}
	return NoValue
}

func (c *checker) pipe(cc *callCtx) Type {
	capacity, ok := c.constDim(cc, cc.get("capacity"), true)
	if !ok {
		return Invalid
	}
	p := &Pipe{Capacity: capacity}
	for _, f := range cc.fields {
		tv, ok := f.typ.(*TypeVal)
		var tile *Tile
		if ok {
			tile, ok = tv.T.(*Tile)
		}
		if !ok {
			c.errorf(cc.at(f), "pipe field %s must be a tile type like [16, 128]bf16, not %s", f.name, f.typ)
			return Invalid
		}
		p.Fields = append(p.Fields, Field{Name: f.name, Type: tile})
	}
	if len(p.Fields) == 0 {
		c.errorf(cc.call, "pipe needs at least one field (name: [D0, ...]T)")
		return Invalid
	}
	for _, f := range p.Fields {
		c.addSmem(cc.call, "pipe field "+f.Name, append(Shape{capacity}, f.Type.Shape...), f.Type.Elem.(DType))
	}
	c.addSmem(cc.call, "pipe mbarriers (full+empty per slot)", Shape{capacity.Mul(ConstDim(2))}, Invalid)
	return p
}

func (c *checker) pipeSlot(cc *callCtx) Type {
	if !c.scalarInt(cc, cc.get("i")) {
		return Invalid
	}
	return &Slot{Pipe: cc.get("pp").typ.(*Pipe), Writer: cc.b.Name == "acquire"}
}

func (c *checker) pipeIndex(cc *callCtx) Type {
	if !c.scalarInt(cc, cc.get("i")) {
		return Invalid
	}
	return NoValue
}

func (c *checker) memSlot(cc *callCtx) Type {
	b := cc.get("buf")
	m := b.typ.(*MemDesc)
	if !c.scalarInt(cc, cc.get("i")) {
		return Invalid
	}
	if len(m.Shape) < 1 || (m.Perm != nil && m.Perm[0] != 0) {
		c.errorf(cc.call, "cannot take a slot of %s (it needs an untransposed leading dim)", m)
		return Invalid
	}
	out := *m
	out.Shape = append(Shape{}, m.Shape[1:]...)
	if m.Perm != nil {
		out.Perm = nil
		for _, p := range m.Perm[1:] {
			out.Perm = append(out.Perm, p-1)
		}
	}
	return &out
}

func (c *checker) barrierSlot(cc *callCtx) Type {
	if !c.scalarInt(cc, cc.get("i")) {
		return Invalid
	}
	return &Barrier{}
}

func (c *checker) wgmma(cc *callCtx) Type {
	a, b, acc := cc.get("a"), cc.get("b"), cc.get("acc")
	ta, _, ok1 := c.constBool(cc, cc.get("trans_a"))
	tb, _, ok2 := c.constBool(cc, cc.get("trans_b"))
	if !ok1 || !ok2 {
		return Invalid
	}
	var as Shape
	var ad DType
	switch t := a.typ.(type) {
	case *Tile:
		if ta {
			c.errorf(cc.at(cc.get("trans_a")), "trans_a: needs a in shared memory (a register operand is never transposed)")
			return Invalid
		}
		as = t.Shape
		ad, _ = t.Elem.(DType)
	case *MemDesc:
		as, ad = t.Shape, t.Elem
	default:
		return c.argErr(cc, a, "a 2-D tile or shared-memory buffer")
	}
	bm, ok := b.typ.(*MemDesc)
	if !ok {
		return c.argErr(cc, b, "a 2-D shared-memory buffer (wgmma reads b from shared memory)")
	}
	if len(as) != 2 {
		return c.argErr(cc, a, "a 2-D tile or shared-memory buffer")
	}
	if len(bm.Shape) != 2 {
		return c.argErr(cc, b, "a 2-D shared-memory buffer (wgmma reads b from shared memory)")
	}
	accD, ok := c.mmaOperands(cc, a, b, ad, bm.Elem)
	if !ok {
		return Invalid
	}
	m, k := as[0], as[1]
	if ta {
		m, k = k, m
	}
	k2, n := bm.Shape[0], bm.Shape[1]
	if tb {
		k2, n = n, k2
	}
	if !k.Equal(k2) {
		c.errorf(cc.call, "wgmma: inner dimensions differ: a gives K=%s, b gives K=%s", k, k2)
		return Invalid
	}
	if v, known := m.Const(); known && v%64 != 0 {
		c.errorf(cc.call, "wgmma needs M to be a multiple of 64, got %d", v)
		return Invalid
	}
	if v, known := n.Const(); known && (v%8 != 0 || v > 256) {
		c.errorf(cc.call, "wgmma needs N to be a multiple of 8 no larger than 256, got %d", v)
		return Invalid
	}
	if v, known := k.Const(); known && v%16 != 0 {
		c.errorf(cc.call, "wgmma needs K to be a multiple of 16, got %d", v)
		return Invalid
	}
	want := Shape{m, n}
	if !c.accArg(cc, acc, want, accD) {
		return Invalid
	}
	return acc.typ
}

func (c *checker) wgmmaWait(cc *callCtx) Type {
	if !c.knownIntIn(cc, "n", 0, 7) {
		return Invalid
	}
	return NoValue
}

func (c *checker) deviceMesh(cc *callCtx) Type {
	var dims [3]Dim
	for i, name := range MeshAxes {
		d, ok := c.constDim(cc, cc.get(name), true)
		if !ok {
			return Invalid
		}
		dims[i] = d
	}
	size := dims[0].Mul(dims[1]).Mul(dims[2])
	if n, ok := size.Const(); ok && n > 16 {
		c.errorf(cc.call, "a cluster has at most 16 CTAs, this mesh has %d", n)
		return Invalid
	}
	m := &Mesh{X: dims[0], Y: dims[1], Z: dims[2]}
	if d := cc.get("device"); d != nil {
		n, ok := c.constDim(cc, d, true)
		if !ok {
			return Invalid
		}
		m.Device, m.HasDevice = n, true
	}
	return m
}

func (c *checker) meshArg(cc *callCtx) bool {
	m := cc.get("mesh")
	if _, ok := m.typ.(*Mesh); !ok {
		c.argErr(cc, m, "a mesh (from device_mesh)")
		return false
	}
	return true
}

func (c *checker) shardID(cc *callCtx) Type {
	if !c.meshArg(cc) {
		return Invalid
	}
	a := cc.get("axis")
	if a.typ != String || !a.val.IsKnown() {
		return c.argErr(cc, a, `an axis name like "cluster_x"`)
	}
	s := constant.StringVal(a.val.Known)
	if s == "device" {
		if m := cc.get("mesh").typ.(*Mesh); !m.HasDevice && !m.Any {
			c.errorf(cc.at(a), "shard_id: %s has no device axis (declare it with device_mesh(device: n))", m)
			return Invalid
		}
		return I32
	}
	if !slices.Contains(MeshAxes, s) {
		if m := cc.get("mesh").typ.(*Mesh); m.HasDevice {
			c.errorf(cc.at(a), "unknown mesh axis %q (want device, cluster_x, cluster_y or cluster_z)", s)
		} else {
			c.errorf(cc.at(a), "unknown mesh axis %q (want cluster_x, cluster_y or cluster_z)", s)
		}
		return Invalid
	}
	return I32
}

func (c *checker) remote(cc *callCtx) Type {
	b := cc.get("buf")
	if _, ok := ElemOf(b.typ).(*Pointer); ok {
		return c.remotePtr(cc, b)
	}
	m, ok := b.typ.(*MemDesc)
	if !ok || m.Remote {
		return c.argErr(cc, b, "a local shared-memory buffer")
	}
	if !c.scalarInt(cc, cc.get("rank")) || !c.meshArg(cc) {
		return Invalid
	}
	out := *m
	out.Remote = true
	return &out
}

func (c *checker) distributedBarrier(cc *callCtx) Type {
	if !c.meshArg(cc) {
		return Invalid
	}
	if !c.barrierSubMesh(cc) {
		return Invalid
	}
	return NoValue
}

var asmOperand = regexp.MustCompile(`\$([0-9]+)`)

func (c *checker) asm(cc *callCtx) Type {
	tmpl := cc.get("template")
	if tmpl.typ != String || !tmpl.val.IsKnown() {
		return c.argErr(cc, tmpl, "a string literal")
	}
	args := cc.all("args")
	for _, a := range args {
		if _, ok := ElemOf(a.typ).(DType); !ok {
			if _, isP := ElemOf(a.typ).(*Pointer); !isP {
				return c.argErr(cc, a, "a scalar or tile")
			}
		}
		c.defaultUntyped(a)
	}
	var res Type = NoValue
	nOps := len(args)
	if o := cc.get("out"); o != nil {
		tv, ok := o.typ.(*TypeVal)
		if !ok {
			return c.argErr(cc, o, "a type like f32 or [128]f32")
		}
		res = tv.T
		nOps++
	}
	for _, m := range asmOperand.FindAllStringSubmatch(constant.StringVal(tmpl.val.Known), -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n >= nOps {
			c.errorf(cc.at(tmpl), "asm template refers to $%d but there are only %d operands", n, nOps)
			return Invalid
		}
	}
	return res
}

package check

import (
	"github.com/tlego/tle/ir"
	"go/constant"
	"go/token"
	"strconv"

	"github.com/tlego/tle/frontend/ast"
)

// expr checks an expression and records its type and value.
func (c *checker) expr(e ast.Expr) (Type, *Value) {
	if e == nil {
		return Invalid, nil
	}
	t, v := c.expr1(e)
	if t == nil {
		t = Invalid
	}
	if tt, ok := t.(*Tile); ok && !c.tileFits(e, tt) {
		t = Invalid
	}
	if isInvalid(t) {
		v = nil
	}
	c.tab.Types[e] = TypeAndValue{Type: t, Value: v}
	return t, v
}

func (c *checker) expr1(e ast.Expr) (Type, *Value) {
	switch e := e.(type) {
	case *ast.Ident:
		return c.ident(e)
	case *ast.BasicLit:
		return c.basicLit(e)
	case *ast.ParenExpr:
		return c.expr(e.X)
	case *ast.UnaryExpr:
		return c.unary(e)
	case *ast.BinaryExpr:
		if t, v, ok := c.noneCompare(e); ok {
			return t, v
		}
		xt, xv := c.expr(e.X)
		yt, yv := c.expr(e.Y)
		return c.binary(e, e.Op, e.X, e.Y, xt, xv, yt, yv)
	case *ast.CallExpr:
		return c.call(e)
	case *ast.IndexExpr:
		return c.index(e)
	case *ast.SelectorExpr:
		return c.selector(e), nil
	case *ast.ListExpr:
		return c.list(e)
	case *ast.SliceExpr:
		if e.Lo != nil {
			c.expr(e.Lo)
		}
		if e.Hi != nil {
			c.expr(e.Hi)
		}
		c.errorf(e, "internal error: a slice outside an index")
	}
	return Invalid, nil
}

func (c *checker) ident(id *ast.Ident) (Type, *Value) {
	switch id.Name {
	case "None":
		c.errorf(id, "None is only valid in an index, as in x[:, None]")
		return Invalid, nil
	case "_":
		c.errorf(id, "cannot use _ as a value")
		return Invalid, nil
	}
	o := c.sc.lookup(id.Name)
	if o == nil {
		c.errorf(id, "undefined: %s", id.Name)
		return Invalid, nil
	}
	c.tab.Uses[id] = o
	switch o.Kind {
	case ConstObj:
		if c.constState[o] != 2 && o.Decl != nil && c.isTopConst(o) {
			c.evalTopConst(o)
		}
		return o.Type, o.Value
	case VarObj:
		return o.Type, nil
	case ParamObj:
		if o.none {
			c.errorf(id, "%s is None (bound with -D %s=None): it can only be compared with None, as in if %s != None { ... }", id.Name, id.Name, id.Name)
			return Invalid, nil
		}
		return o.Type, o.Value
	case DTypeObj:
		return o.Type, nil
	case BuiltinObj:
		c.errorf(id, "builtin %s must be called", id.Name)
	case FuncObj:
		c.errorf(id, "func %s must be called", id.Name)
	case KernelObj:
		c.errorf(id, "kernel %s is not a value", id.Name)
	}
	return Invalid, nil
}

// isNone reports the predeclared None.
func isNone(e ast.Expr) bool {
	id, ok := unparen(e).(*ast.Ident)
	return ok && id.Name == "None"
}

// noneCompare checks x == None and x != None (Triton's x is None, x is not
// None): a compile-time i1, true for == exactly when x is a pointer
// parameter bound to None (-D x=None). ok is false for any other binary
// expression.
func (c *checker) noneCompare(e *ast.BinaryExpr) (Type, *Value, bool) {
	xn, yn := isNone(e.X), isNone(e.Y)
	if !xn && !yn {
		return nil, nil, false
	}
	if e.Op != "==" && e.Op != "!=" {
		c.errorf(e, "None compares only with == and != (as Triton's is None), not %s", e.Op)
		return Invalid, nil, true
	}
	other, none := e.X, e.Y
	if xn {
		other, none = e.Y, e.X
	}
	c.tab.Types[none] = TypeAndValue{Type: NoneType}
	if isNone(other) {
		c.errorf(e, "None compared with None")
		return Invalid, nil, true
	}
	isNil := false
	if id, ok := unparen(other).(*ast.Ident); ok {
		if o := c.sc.lookup(id.Name); o != nil && o.Kind == ParamObj && o.none {
			c.tab.Uses[id] = o
			c.tab.Types[other] = TypeAndValue{Type: o.Type}
			isNil = true
		}
	}
	if !isNil {
		t, _ := c.expr(other)
		if isInvalid(t) {
			return Invalid, nil, true
		}
		if _, ok := ElemOf(t).(*Pointer); !ok {
			c.errorf(other, "only pointers compare with None, not %s", t)
			return Invalid, nil, true
		}
	}
	return I1, &Value{Known: constant.MakeBool(isNil == (e.Op == "=="))}, true
}

func (c *checker) isTopConst(o *Object) bool {
	return c.info.Consts[o.Name] == o
}

func (c *checker) basicLit(e *ast.BasicLit) (Type, *Value) {
	switch e.Kind {
	case ast.Int:
		v := constant.MakeFromLiteral(e.Value, token.INT, 0)
		if v.Kind() != constant.Int {
			c.errorf(e, "internal error: invalid integer literal %s", e.Value)
			return Invalid, nil
		}
		return UntypedInt, &Value{Known: v}
	case ast.Float:
		v := constant.MakeFromLiteral(e.Value, token.FLOAT, 0)
		if v.Kind() != constant.Float && v.Kind() != constant.Int {
			c.errorf(e, "internal error: invalid float literal %s", e.Value)
			return Invalid, nil
		}
		return UntypedFloat, &Value{Known: constant.ToFloat(v)}
	case ast.String:
		s, err := strconv.Unquote(e.Value)
		if err != nil {
			c.errorf(e, "internal error: invalid string literal %s", e.Value)
			return Invalid, nil
		}
		return String, &Value{Known: constant.MakeString(s)}
	}
	return Invalid, nil
}

// ---------------------------------------------------------------- unary

func (c *checker) unary(e *ast.UnaryExpr) (Type, *Value) {
	t, v := c.expr(e.X)
	if isInvalid(t) {
		return Invalid, nil
	}
	if e.Op == "*" {
		return c.pointerTypeOf(e, t), nil
	}
	d, ok := ElemOf(t).(DType)
	switch e.Op {
	case "+", "-":
		if !ok || d == I1 {
			c.errorf(e, "operator %s not defined on %s", e.Op, t)
			return Invalid, nil
		}
		if e.Op == "+" || v == nil {
			return t, v
		}
		if v.Known != nil {
			return t, c.checkOverflow(e, d, &Value{Known: constant.UnaryOp(token.SUB, v.Known, 0)})
		}
		if d.IsInteger() {
			return t, &Value{Sym: v.Sym.Neg()}
		}
		return t, &Value{Sym: atomDim("-" + v.Sym.operand())}
	case "!":
		if !ok || d != I1 {
			c.errorf(e, "operator ! not defined on %s (it needs i1)", t)
			return Invalid, nil
		}
		if b, known := v.Bool(); known {
			return t, &Value{Known: constant.MakeBool(!b)}
		}
		if v != nil {
			return t, &Value{Sym: atomDim("!" + v.Sym.operand())}
		}
		return t, nil
	case "^":
		if !ok || !d.IsInteger() {
			c.errorf(e, "operator ^ not defined on %s", t)
			return Invalid, nil
		}
		if v == nil {
			return t, nil
		}
		if d == I1 {
			if b, known := v.Bool(); known {
				return t, &Value{Known: constant.MakeBool(!b)}
			}
		}
		if v.Known != nil && v.Known.Kind() == constant.Int {
			prec := uint(0)
			if d.IsUnsigned() {
				prec = uint(d.Bits())
			}
			return t, &Value{Known: constant.UnaryOp(token.XOR, v.Known, prec)}
		}
		return t, &Value{Sym: atomDim("^" + v.Sym.operand())}
	}
	c.errorf(e, "internal error: unknown operator %s", e.Op)
	return Invalid, nil
}

// pointerTypeOf is `*T`: the type value of a global pointer to dtype T
// (Triton's pointer_type(T)), as a cast's target (`.to(*f16)`). An
// unbound `T const dtype` gives no type until a binding does.
func (c *checker) pointerTypeOf(e *ast.UnaryExpr, t Type) Type {
	if t == DTypeKind {
		return DTypeKind
	}
	if tv, ok := t.(*TypeVal); ok {
		if d, ok := tv.T.(DType); ok && !d.IsUntyped() {
			return &TypeVal{T: &Pointer{Elem: d}}
		}
	}
	c.errorf(e, "unary * makes a pointer type of a dtype, as in .to(*f16); a value of type %s is no dtype (load(p) reads through a pointer)", t)
	return Invalid
}

// ---------------------------------------------------------------- binary

func isComparison(op string) bool {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// binary types x op y. e is the node errors are reported at.
func (c *checker) binary(e ast.Node, op string, x, y ast.Expr, xt Type, xv *Value, yt Type, yv *Value) (Type, *Value) {
	if isInvalid(xt) || isInvalid(yt) {
		return Invalid, nil
	}
	if op == "&&" || op == "||" {
		for _, o := range []struct {
			e ast.Expr
			t Type
		}{{x, xt}, {y, yt}} {
			if _, isTile := o.t.(*Tile); isTile {
				alt := "&"
				if op == "||" {
					alt = "|"
				}
				c.errorf(o.e, "operator %s needs scalar operands, not %s; use %s on masks", op, o.t, alt)
				return Invalid, nil
			}
			if d, ok := o.t.(DType); !ok || d != I1 {
				c.errorf(o.e, "operator %s needs i1 operands, not %s", op, o.t)
				return Invalid, nil
			}
		}
		xb, xk := xv.Bool()
		yb, yk := yv.Bool()
		switch {
		case xk && yk && op == "&&":
			return I1, &Value{Known: constant.MakeBool(xb && yb)}
		case xk && yk:
			return I1, &Value{Known: constant.MakeBool(xb || yb)}
		case xv != nil && yv != nil:
			return I1, &Value{Sym: opaque(op, valDim(xv), valDim(yv))}
		}
		return I1, nil
	}
	xe, ye := ElemOf(xt), ElemOf(yt)
	for _, o := range []struct {
		e  ast.Expr
		t  Type
		el Type
	}{{x, xt, xe}, {y, yt, ye}} {
		switch o.el.(type) {
		case DType, *Pointer:
		default:
			c.errorf(o.e, "operator %s not defined on %s", op, o.t)
			return Invalid, nil
		}
	}
	shape, ok := Broadcast(ShapeOf(xt), ShapeOf(yt))
	if !ok {
		c.errorf(e, "operator %s: cannot broadcast shapes %s and %s", op, ShapeOf(xt), ShapeOf(yt))
		return Invalid, nil
	}
	xp, xIsP := xe.(*Pointer)
	yp, yIsP := ye.(*Pointer)
	if xIsP || yIsP {
		return c.pointerArith(e, op, x, y, xt, yt, xv, yv, xp, yp, shape)
	}
	xd, yd := xe.(DType), ye.(DType)
	res := promote(xd, yd)
	// failing is the first operand whose dtype the operator does not take.
	failing := func(takes func(DType) bool) Type {
		if !takes(xd) {
			return xt
		}
		if !takes(yd) {
			return yt
		}
		return nil
	}
	switch {
	case op == "+" || op == "-" || op == "*" || op == "/" || op == "%":
		if failing(func(d DType) bool { return d != I1 }) != nil {
			c.errorf(e, "operator %s not defined on i1 (cast it first)", op)
			return Invalid, nil
		}
	case op == "&" || op == "|" || op == "^":
		if t := failing(DType.IsInteger); t != nil {
			c.errorf(e, "operator %s not defined on %s (it needs integers or i1 masks)", op, t)
			return Invalid, nil
		}
	case op == "<<" || op == ">>" || op == "&^":
		if t := failing(func(d DType) bool { return d.IsInteger() && d != I1 }); t != nil {
			c.errorf(e, "operator %s not defined on %s (it needs integers)", op, t)
			return Invalid, nil
		}
	case isComparison(op):
	default:
		c.errorf(e, "internal error: unknown operator %s", op)
		return Invalid, nil
	}
	// Untyped constants adopt the other side's type.
	if xd.IsUntyped() && !yd.IsUntyped() {
		c.convertConst(x, xd, xv, res)
	}
	if yd.IsUntyped() && !xd.IsUntyped() {
		c.convertConst(y, yd, yv, res)
	}
	var rt DType = res
	if isComparison(op) {
		rt = I1
	}
	t := TileOf(rt, shape)
	if len(shape) > 0 || xv == nil || yv == nil {
		return t, nil
	}
	n := len(c.errs)
	v := c.fold(e, op, res, rt, xv, yv)
	if len(c.errs) > n {
		// the fold reported the expression (a division by zero, a shift
		// count, an overflow): its uses are not reported again
		return Invalid, nil
	}
	return t, v
}

// promote applies Triton's rules: untyped constants adopt the other side
// (an untyped float with an integer gives f32); int with float gives the
// float; the wider type wins; bf16 with f16 gives f32; the two fp8 formats
// together give f16; equal-width signed and unsigned give unsigned.
func promote(a, b DType) DType {
	if a == b {
		return a
	}
	switch {
	case a.IsUntyped() && b.IsUntyped():
		return UntypedFloat
	case a.IsUntyped():
		if a == UntypedFloat && !b.IsFloat() {
			return F32
		}
		return b
	case b.IsUntyped():
		return promote(b, a)
	}
	return DType(ir.Promote(ir.DType(a), ir.DType(b))) // typed operands: the IR's rule, one definition
}

func (c *checker) pointerArith(e ast.Node, op string, x, y ast.Expr, xt, yt Type, xv, yv *Value, xp, yp *Pointer, shape Shape) (Type, *Value) {
	if xp != nil && yp != nil {
		if (op == "==" || op == "!=") && xp.Elem == yp.Elem && xp.Space == yp.Space {
			return TileOf(I1, shape), nil
		}
		c.errorf(e, "operator %s not defined on %s and %s", op, xt, yt)
		return Invalid, nil
	}
	p, other, oe, ov := xp, yt, y, yv
	if p == nil {
		p, other, oe, ov = yp, xt, x, xv
	}
	d, ok := ElemOf(other).(DType)
	if !ok || !d.IsInteger() || d == I1 || !(op == "+" || (op == "-" && xp != nil)) {
		c.errorf(e, "operator %s not defined on %s and %s (pointer arithmetic is pointer + integer offsets)", op, xt, yt)
		return Invalid, nil
	}
	if d.IsUntyped() {
		c.convertConst(oe, d, ov, I32)
	}
	return TileOf(p, shape), nil
}

// valDim views a compile-time value as a Dim for symbolic arithmetic.
func valDim(v *Value) Dim {
	if v.Known == nil {
		return v.Sym
	}
	if n, ok := v.Int(); ok && v.Known.Kind() == constant.Int {
		return ConstDim(n)
	}
	return SymDim(v.Known.String())
}

// fold computes a compile-time binary operation. res is the operand type,
// rt the result type.
func (c *checker) fold(e ast.Node, op string, res, rt DType, xv, yv *Value) *Value {
	if xv.Known == nil || yv.Known == nil {
		if res.IsInteger() && !isComparison(op) {
			a, b := valDim(xv), valDim(yv)
			switch op {
			case "+":
				return &Value{Sym: a.Add(b)}
			case "-":
				return &Value{Sym: a.Sub(b)}
			case "*":
				return &Value{Sym: a.Mul(b)}
			case "/":
				return &Value{Sym: a.Div(b)}
			case "%":
				return &Value{Sym: a.Mod(b)}
			}
		}
		return &Value{Sym: opaque(op, valDim(xv), valDim(yv))}
	}
	x, y := xv.Known, yv.Known
	if res == I1 && x.Kind() == constant.Bool && y.Kind() == constant.Bool {
		a, b := constant.BoolVal(x), constant.BoolVal(y)
		switch op {
		case "&":
			return &Value{Known: constant.MakeBool(a && b)}
		case "|":
			return &Value{Known: constant.MakeBool(a || b)}
		case "^", "!=":
			return &Value{Known: constant.MakeBool(a != b)}
		case "==":
			return &Value{Known: constant.MakeBool(a == b)}
		}
		return &Value{Sym: opaque(op, valDim(xv), valDim(yv))}
	}
	if x.Kind() == constant.Bool || y.Kind() == constant.Bool {
		x, y = boolToInt(x), boolToInt(y)
	}
	if res.IsFloat() {
		x, y = constant.ToFloat(x), constant.ToFloat(y)
	} else {
		x, y = constant.ToInt(x), constant.ToInt(y)
		if x.Kind() != constant.Int || y.Kind() != constant.Int {
			return nil
		}
	}
	if isComparison(op) {
		tok := map[string]token.Token{"==": token.EQL, "!=": token.NEQ, "<": token.LSS, "<=": token.LEQ, ">": token.GTR, ">=": token.GEQ}[op]
		return &Value{Known: constant.MakeBool(constant.Compare(x, tok, y))}
	}
	if (op == "/" || op == "%") && constant.Sign(y) == 0 {
		c.errorf(e, "division by zero")
		return nil
	}
	var r constant.Value
	tok, plain := foldTokens[op]
	switch {
	case plain:
		r = constant.BinaryOp(x, tok, y)
	case op == "/" && res.IsFloat():
		r = constant.BinaryOp(x, token.QUO, y)
	case op == "/":
		r = constant.BinaryOp(x, token.QUO_ASSIGN, y)
	case op == "%" && res.IsFloat():
		return nil // fmod is not folded
	case op == "%":
		r = constant.BinaryOp(x, token.REM, y)
	case op == "<<" || op == ">>":
		s, ok := constant.Uint64Val(y)
		if !ok || s > 1023 {
			c.errorf(e, "invalid shift count %s", y)
			return nil
		}
		tok := token.SHL
		if op == ">>" {
			tok = token.SHR
		}
		r = constant.Shift(x, tok, uint(s))
	default:
		return nil
	}
	return c.checkOverflow(e, res, &Value{Known: r})
}

// foldTokens are the go/constant operators of the binary operators that fold
// alike for every operand kind they take.
var foldTokens = map[string]token.Token{
	"+": token.ADD, "-": token.SUB, "*": token.MUL, "&": token.AND, "|": token.OR, "^": token.XOR, "&^": token.AND_NOT,
}

func boolToInt(v constant.Value) constant.Value {
	if v.Kind() != constant.Bool {
		return v
	}
	if constant.BoolVal(v) {
		return constant.MakeInt64(1)
	}
	return constant.MakeInt64(0)
}

// checkOverflow reports a typed integer constant that does not fit its type.
func (c *checker) checkOverflow(e ast.Node, t DType, v *Value) *Value {
	if (t.IsInteger() || t.IsFloat()) && !t.IsUntyped() && t != I1 && v.Known != nil && !representable(v.Known, t) {
		c.errorf(e, "constant %s overflows %s", v.Known, t)
		return nil
	}
	return v
}

// ---------------------------------------------------------------- index

func (c *checker) index(e *ast.IndexExpr) (Type, *Value) {
	t, _ := c.expr(e.X)
	if sv, ok := t.(*ShapeVal); ok {
		return c.shapeIndex(e, sv)
	}
	return c.tileIndex(e, t), nil
}

// shapeIndex is x.shape[i]: dimension i (a known integer, negative counts
// from the end) of the shape, a compile-time i32.
func (c *checker) shapeIndex(e *ast.IndexExpr, sv *ShapeVal) (Type, *Value) {
	if len(e.Indices) != 1 {
		c.errorf(e, "a shape takes one index, as in x.shape[0]")
		return Invalid, nil
	}
	ix := e.Indices[0]
	if _, isSlice := ix.(*ast.SliceExpr); isSlice {
		c.errorf(ix, "a shape takes one integer index, as in x.shape[0]")
		return Invalid, nil
	}
	t, v := c.expr(ix)
	if isInvalid(t) {
		return Invalid, nil
	}
	if d, ok := t.(DType); ok && d.IsUntyped() {
		c.convertConst(ix, d, v, I32)
	}
	d, ok := c.intConst(ix, t, v, "shape index")
	if !ok {
		return Invalid, nil
	}
	n, known := d.Const()
	if !known {
		c.errorf(ix, "shape index must be a known integer, but %s is symbolic", d)
		return Invalid, nil
	}
	rank := int64(len(sv.Shape))
	if n < 0 {
		n += rank
	}
	if n < 0 || n >= rank {
		c.errorf(ix, "shape index %s out of range for %s (rank %d)", c.src(ix), sv.Shape, rank)
		return Invalid, nil
	}
	dim := sv.Shape[n]
	if k, ok := dim.Const(); ok {
		return I32, &Value{Known: constant.MakeInt64(k)}
	}
	return I32, &Value{Sym: dim}
}

func (c *checker) tileIndex(e *ast.IndexExpr, t Type) Type {
	// Check index expressions (None and ':' are markers).
	for _, ix := range e.Indices {
		switch ix := ix.(type) {
		case *ast.Ident:
			if ix.Name == "None" {
				continue
			}
			c.expr(ix)
		case *ast.SliceExpr:
			if ix.Lo != nil {
				c.expr(ix.Lo)
			}
			if ix.Hi != nil {
				c.expr(ix.Hi)
			}
		default:
			c.expr(ix)
		}
	}
	if isInvalid(t) {
		return Invalid
	}
	tile, ok := t.(*Tile)
	if !ok {
		if _, isMem := t.(*MemDesc); isMem {
			c.errorf(e, "cannot index %s; use .slot(i) or local_ptr", t)
		} else {
			c.errorf(e, "cannot index %s (only tiles take x[:, None])", t)
		}
		return Invalid
	}
	var out Shape
	axis := 0
	for _, ix := range e.Indices {
		if id, isID := ix.(*ast.Ident); isID && id.Name == "None" {
			out = append(out, ConstDim(1))
			continue
		}
		sl, isSlice := ix.(*ast.SliceExpr)
		if !isSlice {
			c.errorf(ix, "a tile index takes only ':' (keep an axis), lo:hi (a slice of it, known bounds) and None (add an axis)")
			return Invalid
		}
		if axis >= len(tile.Shape) {
			c.errorf(ix, "too many indices for %s (rank %d)", t, len(tile.Shape))
			return Invalid
		}
		dim := tile.Shape[axis]
		if sl.Lo != nil || sl.Hi != nil {
			var ok bool
			if dim, ok = c.sliceDim(sl, dim, t); !ok {
				return Invalid
			}
		}
		out = append(out, dim)
		axis++
	}
	out = append(out, tile.Shape[axis:]...)
	return &Tile{Shape: out, Elem: tile.Elem}
}

// sliceDim checks the bounds lo:hi of a tile slice along an axis of size
// dim: compile-time integers (lo defaults to 0, hi to dim) with
// 0 <= lo < hi <= dim, and hi-lo a power of two, as a tile's dimensions
// are. It returns the slice's size.
func (c *checker) sliceDim(sl *ast.SliceExpr, dim Dim, t Type) (Dim, bool) {
	bound := func(e ast.Expr, def Dim) (Dim, bool) {
		if e == nil {
			return def, true
		}
		tv := c.tab.Types[e]
		if d, ok := tv.Type.(DType); ok && d.IsUntyped() {
			c.convertConst(e, d, tv.Value, I32)
			tv = c.tab.Types[e]
		}
		return c.intConst(e, tv.Type, tv.Value, "slice bound "+c.src(e))
	}
	lo, ok1 := bound(sl.Lo, ConstDim(0))
	hi, ok2 := bound(sl.Hi, dim)
	if !ok1 || !ok2 {
		return Dim{}, false
	}
	l, lk := lo.Const()
	h, hk := hi.Const()
	n, nk := dim.Const()
	if lk && hk && (l < 0 || l >= h || nk && h > n) {
		c.errorf(sl, "slice %d:%d of an axis of %s in %s is empty or out of range", l, h, dim, t)
		return Dim{}, false
	}
	size := hi.Sub(lo)
	if s, known := size.Const(); known && s&(s-1) != 0 {
		c.errorf(sl, "slice %d:%d of %s has %d elements, not a power of two", l, h, t, s)
		return Dim{}, false
	}
	return size, true
}

// ---------------------------------------------------------------- selector

func (c *checker) selector(e *ast.SelectorExpr) Type {
	t, _ := c.expr(e.X)
	if isInvalid(t) {
		return Invalid
	}
	name := e.Sel.Name
	if name == "T" {
		return c.transpose(e, t, nil)
	}
	if r, ok := c.introspect(e, t, name); ok {
		return r
	}
	if s, ok := t.(*Slot); ok {
		if name == "closed" {
			if s.Writer {
				c.errorf(e.Sel, "closed is a reader-slot field (a slot from pp.wait); this slot is from pp.acquire")
				return Invalid
			}
			return I1
		}
		if f, ok := s.Pipe.Field(name); ok {
			return &MemDesc{Shape: f.Type.Shape, Elem: f.Type.Elem.(DType), ReadOnly: !s.Writer, FromSlot: true}
		}
		c.errorf(e.Sel, "pipe slot has no field %s (fields: %s)", name, fieldNames(s.Pipe))
		return Invalid
	}
	if _, ok := methodFor(t, name); ok {
		c.errorf(e.Sel, "method %s must be called", name)
		return Invalid
	}
	if p, ok := t.(*Pipe); ok {
		if _, isF := p.Field(name); isF {
			c.errorf(e.Sel, "a pipe's fields belong to its slots: take a slot first (s := pp.acquire(i) or pp.wait(i), then s.%s)", name)
			return Invalid
		}
	}
	c.errorf(e.Sel, "%s has no field or method %s", t, name)
	return Invalid
}

// introspect is x.dtype, x.shape and p.dtype.element_ty, Triton's
// introspection: compile-time values read from a value's type. ok is false
// when name is none of them.
func (c *checker) introspect(e *ast.SelectorExpr, t Type, name string) (Type, bool) {
	switch name {
	case "dtype":
		switch t := t.(type) {
		case DType:
			if t.IsUntyped() {
				return &TypeVal{T: t.Default()}, true
			}
			return &TypeVal{T: t}, true
		case *Tile:
			return &TypeVal{T: t.Elem}, true
		case *Pointer:
			return &TypeVal{T: &Pointer{Elem: t.Elem}}, true
		case *MemDesc:
			return &TypeVal{T: t.Elem}, true
		}
		return nil, false
	case "shape":
		switch t := t.(type) {
		case *Tile:
			return &ShapeVal{Shape: t.Shape}, true
		case *MemDesc:
			if !t.AnyShape {
				return &ShapeVal{Shape: t.Shape}, true
			}
		case DType, *Pointer:
			c.errorf(e.Sel, "a scalar has no shape (x.shape is for tiles)")
			return Invalid, true
		}
		return nil, false
	case "element_ty":
		if tv, ok := t.(*TypeVal); ok {
			if p, ok := tv.T.(*Pointer); ok {
				return &TypeVal{T: p.Elem}, true
			}
			c.errorf(e.Sel, "element_ty is the element dtype of a pointer dtype (p.dtype.element_ty), not of %s", tv.T)
			return Invalid, true
		}
	}
	return nil, false
}

func fieldNames(p *Pipe) string {
	s := ""
	for i, f := range p.Fields {
		if i > 0 {
			s += ", "
		}
		s += f.Name
	}
	return s + ", closed"
}

// transpose implements x.T, trans(x) and permute(x, dims...). perm nil
// reverses the dims.
func (c *checker) transpose(at ast.Node, t Type, perm []int) Type {
	var shape Shape
	switch t := t.(type) {
	case *Tile:
		shape = t.Shape
	case *MemDesc:
		shape = t.Shape
	default:
		c.errorf(at, "cannot transpose %s (only tiles and shared-memory buffers)", t)
		return Invalid
	}
	if perm == nil {
		perm = make([]int, len(shape))
		for i := range perm {
			perm[i] = len(shape) - 1 - i
		}
	}
	out := make(Shape, len(shape))
	for i, p := range perm {
		out[i] = shape[p]
	}
	switch t := t.(type) {
	case *Tile:
		return &Tile{Shape: out, Elem: t.Elem}
	case *MemDesc:
		m := *t
		m.Shape = out
		base := t.Perm
		if base == nil {
			base = make([]int, len(shape))
			for i := range base {
				base[i] = i
			}
		}
		m.Perm = make([]int, len(perm))
		for i, p := range perm {
			m.Perm[i] = base[p]
		}
		return &m
	}
	return Invalid
}

// ---------------------------------------------------------------- lists

func (c *checker) list(e *ast.ListExpr) (Type, *Value) {
	if e.Elem != nil {
		d := c.dtypeName(e.Elem)
		shape, ok := c.dims(e.Elems, "tile dimension")
		if d == Invalid || !ok {
			return Invalid, nil
		}
		return &TypeVal{T: &Tile{Shape: shape, Elem: d}}, nil
	}
	l := &List{}
	for _, x := range e.Elems {
		t, _ := c.expr(x)
		l.Elems = append(l.Elems, t)
	}
	return l, nil
}

package lower

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/ir"
)

func (s *fn) expr(e ast.Expr) *val {
	if s.b != nil {
		defer func(p diag.Pos) { s.b.Pos = p }(s.b.Pos)
		s.b.Pos = e.Pos()
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		return s.literal(e)
	case *ast.Ident:
		return s.ident(e)
	case *ast.ParenExpr:
		return s.expr(e.X)
	case *ast.UnaryExpr:
		return s.unary(e)
	case *ast.BinaryExpr:
		x := s.expr(e.X)
		y := s.expr(e.Y)
		if s.b != nil {
			s.b.Pos = e.OpPos
		}
		return s.binary(e.Op, x, y, e.OpPos)
	case *ast.CallExpr:
		return s.call(e, false)
	case *ast.IndexExpr:
		return s.index(e)
	case *ast.SelectorExpr:
		return s.selector(e)
	case *ast.ListExpr:
		l := &val{}
		for _, x := range e.Elems {
			l.list = append(l.list, s.expr(x))
		}
		if e.Elem != nil {
			dt := s.l.dtypeIn(e.Elem, s.scope)
			return &val{tile: &ir.Tile{Shape: s.shapeOf(l, e.Pos()), Elem: dt}}
		}
		return l
	case *ast.SliceExpr:
		if e.Lo != nil || e.Hi != nil {
			s.errorf(e.Pos(), "only `:` (a whole axis) is supported in an index")
		}
		return &val{slice: true}
	}
	s.errorf(e.Pos(), "unsupported expression")
	return nil
}

func (s *fn) literal(e *ast.BasicLit) *val {
	switch e.Kind {
	case ast.Int:
		i, err := strconv.ParseInt(strings.ReplaceAll(e.Value, "_", ""), 0, 64)
		if err != nil {
			s.errorf(e.Pos(), "integer literal %s out of range", e.Value)
		}
		return &val{c: &constant{kind: 'i', i: i}}
	case ast.Float:
		f, err := strconv.ParseFloat(strings.ReplaceAll(e.Value, "_", ""), 64)
		if err != nil && !math.IsInf(f, 0) {
			s.errorf(e.Pos(), "bad float literal %s", e.Value)
		}
		return &val{c: &constant{kind: 'f', f: f}}
	default:
		str, err := strconv.Unquote(e.Value)
		if err != nil {
			s.errorf(e.Pos(), "bad string literal")
		}
		return &val{str: &str}
	}
}

func (s *fn) ident(e *ast.Ident) *val {
	if v, _ := s.scope.lookup(e.Name); v != nil {
		if v.bp != nil && v.bp.parts == nil {
			return s.readBlockPtr(e.Name, v)
		}
		return v
	}
	switch e.Name {
	case "None":
		return &val{none: true}
	case "true":
		return &val{c: &constant{kind: 'b', b: true}}
	case "false":
		return &val{c: &constant{kind: 'b'}}
	}
	if dt, ok := ir.ParseDType(e.Name); ok {
		return &val{dtype: dt}
	}
	s.errorf(e.Pos(), "undefined: %s", e.Name)
	return nil
}

func (s *fn) unary(e *ast.UnaryExpr) *val {
	x := s.expr(e.X)
	s.b.Pos = e.OpPos
	if e.Op == "*" {
		// *T: the pointer type to dtype T, a type value (checked)
		if x.dtype == ir.Invalid {
			s.errorf(e.OpPos, "unary * needs a dtype")
		}
		return &val{ptrType: &ir.Pointer{Elem: x.dtype, Space: ir.Global}}
	}
	if x.c != nil {
		c := *x.c
		switch e.Op {
		case "-":
			c.i, c.f = -c.i, -c.f
		case "!":
			c.b = !c.b
		case "^":
			c.i = ^c.i
		}
		if c.dt != ir.Invalid {
			return &val{c: c.convert(c.dt)}
		}
		return &val{c: &c}
	}
	v := s.value(x, e.X.Pos())
	switch e.Op {
	case "+":
		return x
	case "-":
		if _, ok := ir.Elem(v.Type).(*ir.Pointer); ok {
			s.errorf(e.Pos(), "cannot negate a pointer")
		}
		return &val{v: s.b.Value(ir.OpNeg, v.Type, []*ir.Value{v}, nil)}
	default: // ! and ^
		return &val{v: s.b.Value(ir.OpNot, v.Type, []*ir.Value{v}, nil)}
	}
}

// value returns x as an IR value; constants take their default types.
func (s *fn) value(x *val, pos diag.Pos) *ir.Value { return s.materialize(x, nil, pos) }

// defaultType is an untyped constant's type when nothing else decides it.
func defaultType(c *constant) ir.DType {
	if c.dt != ir.Invalid {
		return c.dt
	}
	switch c.kind {
	case 'b':
		return ir.I1
	case 'f':
		return ir.F32
	}
	return ir.I32
}

// materialize turns x into an IR value of type want (nil: its own type).
// Constants become constant ops; values of another dtype are cast, scalars
// are splatted and tiles broadcast to want's shape.
func (s *fn) materialize(x *val, want ir.Type, pos diag.Pos) *ir.Value {
	if x == nil {
		s.errorf(pos, "missing value")
	}
	if x.v == nil && x.c == nil {
		s.errorf(pos, "expected a value, found %s", x.describe())
	}
	if want == nil {
		if x.v != nil {
			return x.v
		}
		return s.b.Value(ir.OpConstant, defaultType(x.c), nil, constAttr(x.c.convert(defaultType(x.c))))
	}
	if x.c != nil {
		dt := ir.ElemDType(want)
		if _, ok := ir.Elem(want).(*ir.Pointer); ok {
			s.errorf(pos, "cannot use a number as a pointer")
		}
		c := x.c.convert(dt)
		return s.b.Value(ir.OpConstant, ir.StripLayout(want), nil, constAttr(c))
	}
	return s.convert(x.v, want, pos)
}

func constAttr(c *constant) ir.Attrs {
	switch c.kind {
	case 'i':
		return ir.Attrs{"value": c.i}
	case 'b':
		return ir.Attrs{"value": c.b}
	}
	return ir.Attrs{"value": c.f}
}

// convert casts and broadcasts v to type want.
func (s *fn) convert(v *ir.Value, want ir.Type, pos diag.Pos) *ir.Value {
	wantElem := ir.Elem(want)
	if wd, ok := wantElem.(ir.DType); ok {
		if vd := ir.ElemDType(v.Type); vd != wd {
			if _, isPtr := ir.Elem(v.Type).(*ir.Pointer); isPtr {
				s.errorf(pos, "cannot convert a pointer to %s", wd)
			}
			v = s.b.Value(ir.OpCast, ir.WithElem(v.Type, wd), []*ir.Value{v}, nil)
		}
	}
	return s.broadcastTo(v, ir.ShapeOf(want), pos)
}

// broadcastTo splats a scalar or broadcasts a tile to shape.
func (s *fn) broadcastTo(v *ir.Value, shape []int, pos diag.Pos) *ir.Value {
	if len(shape) == 0 {
		if len(ir.ShapeOf(v.Type)) != 0 {
			s.errorf(pos, "cannot use a tile of shape %v as a scalar", ir.ShapeOf(v.Type))
		}
		return v
	}
	have := ir.ShapeOf(v.Type)
	if slices.Equal(have, shape) {
		return v
	}
	if _, ok := v.Type.(*ir.Tile); !ok {
		return s.b.Value(ir.OpSplat, ir.TileOf(shape, v.Type), []*ir.Value{v}, nil)
	}
	if _, ok := ir.BroadcastShapes(have, shape); !ok || len(have) > len(shape) {
		s.errorf(pos, "cannot broadcast shape %v to %v", have, shape)
	}
	elem := ir.Elem(v.Type)
	for len(have) < len(shape) {
		have = append([]int{1}, have...)
		v = s.b.Value(ir.OpExpandDims, ir.TileOf(have, elem), []*ir.Value{v}, ir.Attrs{"axis": int64(0)})
	}
	if !slices.Equal(have, shape) {
		for i := range have {
			if have[i] != shape[i] && have[i] != 1 {
				s.errorf(pos, "cannot broadcast shape %v to %v", have, shape)
			}
		}
		v = s.b.Value(ir.OpBroadcast, ir.TileOf(shape, elem), []*ir.Value{v}, nil)
	}
	return v
}

func (x *val) describe() string {
	switch {
	case x.dtype != ir.Invalid:
		return "type " + x.dtype.String()
	case x.tile != nil:
		return "tile type " + x.tile.String()
	case x.list != nil:
		return "a list"
	case x.str != nil:
		return "a string"
	case x.none:
		return "None"
	case x.slice:
		return "`:`"
	case x.bp != nil:
		return "a block pointer"
	}
	return "a value"
}

var cmpPred = map[string]string{"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}

// binaryOps are the ops of the other binary operators but &^ (an and of a not).
var binaryOps = map[string]ir.Kind{
	"+": ir.OpAdd, "-": ir.OpSub, "*": ir.OpMul, "/": ir.OpDiv, "%": ir.OpRem,
	"&": ir.OpAnd, "&&": ir.OpAnd, "|": ir.OpOr, "||": ir.OpOr, "^": ir.OpXor, "<<": ir.OpShl, ">>": ir.OpShr,
}

// binary lowers x op y with Triton's promotion and NumPy broadcasting;
// two constants fold.
func (s *fn) binary(op string, x, y *val, pos diag.Pos) *val {
	if x.none || y.none {
		// p == None, p != None: compile-time (None, and a pointer
		// parameter bound to None, are none)
		if op != "==" && op != "!=" {
			s.errorf(pos, "None compares only with == and !=")
		}
		return &val{c: &constant{kind: 'b', b: (x.none == y.none) == (op == "==")}}
	}
	if x.c != nil && y.c != nil {
		return &val{c: s.fold(op, x.c, y.c, pos)}
	}
	if x.c == nil && x.v == nil || y.c == nil && y.v == nil {
		bad := x
		if x.c != nil || x.v != nil {
			bad = y
		}
		s.errorf(pos, "operator %s cannot take %s", op, bad.describe())
	}
	// Pointer arithmetic.
	xp, xIsPtr := elemPtr(x)
	_, yIsPtr := elemPtr(y)
	if xIsPtr || yIsPtr {
		if op == "+" && yIsPtr && !xIsPtr {
			x, y = y, x
			xp, _ = elemPtr(x)
		}
		if (op != "+" && op != "-") || yIsPtr && xIsPtr {
			s.errorf(pos, "invalid pointer arithmetic %s", op)
		}
		_ = xp
		off := y
		shape, ok := ir.BroadcastShapes(ir.ShapeOf(x.v.Type), valShape(y))
		if !ok {
			s.errorf(pos, "cannot broadcast shapes %v and %v", ir.ShapeOf(x.v.Type), valShape(y))
		}
		offDT := ir.DType(ir.I32)
		if y.v != nil {
			offDT = ir.ElemDType(y.v.Type)
			if !offDT.IsInt() {
				s.errorf(pos, "a pointer offset must be an integer, not %s", offDT)
			}
		}
		o := s.materialize(off, ir.TileOf(shape, offDT), pos)
		if op == "-" {
			o = s.b.Value(ir.OpNeg, o.Type, []*ir.Value{o}, nil)
		}
		p := s.broadcastTo(x.v, shape, pos)
		return &val{v: s.b.Value(ir.OpAddPtr, p.Type, []*ir.Value{p, o}, nil)}
	}
	dt := s.promote(x, y)
	if op == "&&" || op == "||" {
		dt = ir.I1
	}
	shape, ok := ir.BroadcastShapes(valShape(x), valShape(y))
	if !ok {
		s.errorf(pos, "cannot broadcast shapes %v and %v", valShape(x), valShape(y))
	}
	t := ir.TileOf(shape, dt)
	a := s.materialize(x, t, pos)
	b := s.materialize(y, t, pos)
	if pred, ok := cmpPred[op]; ok {
		return &val{v: s.b.Value(ir.OpCmp, ir.TileOf(shape, ir.I1), []*ir.Value{a, b}, ir.Attrs{"pred": pred})}
	}
	if op == "&^" {
		nb := s.b.Value(ir.OpNot, t, []*ir.Value{b}, nil)
		return &val{v: s.b.Value(ir.OpAnd, t, []*ir.Value{a, nb}, nil)}
	}
	kind, known := binaryOps[op]
	if !known {
		s.errorf(pos, "unsupported operator %s", op)
	}
	if dt.IsFloat() && (kind == ir.OpAnd || kind == ir.OpOr || kind == ir.OpXor || kind == ir.OpShl || kind == ir.OpShr || kind == ir.OpRem) {
		s.errorf(pos, "operator %s is not defined on %s", op, dt)
	}
	return &val{v: s.b.Value(kind, t, []*ir.Value{a, b}, nil)}
}

func elemPtr(x *val) (*ir.Pointer, bool) {
	if x.v == nil {
		return nil, false
	}
	p, ok := ir.Elem(x.v.Type).(*ir.Pointer)
	return p, ok
}

func valShape(x *val) []int {
	if x.v != nil {
		return ir.ShapeOf(x.v.Type)
	}
	return nil
}

// promote gives the dtype of a binary operation; an untyped constant adopts
// the other side's dtype, except that a float constant with an integer
// operand makes the operation f32.
func (s *fn) promote(x, y *val) ir.DType {
	switch {
	case x.c != nil && y.c == nil:
		return adopt(x.c, ir.ElemDType(y.v.Type))
	case y.c != nil && x.c == nil:
		return adopt(y.c, ir.ElemDType(x.v.Type))
	}
	return ir.Promote(ir.ElemDType(x.v.Type), ir.ElemDType(y.v.Type))
}

func adopt(c *constant, other ir.DType) ir.DType {
	if c.dt != ir.Invalid {
		return ir.Promote(c.dt, other)
	}
	if c.kind == 'f' && !other.IsFloat() {
		return ir.F32
	}
	return other
}

// fold evaluates op on two constants as Go does: integers stay integers
// (division truncates), a float operand makes the result float.
func (s *fn) fold(op string, a, b *constant, pos diag.Pos) *constant {
	dt := ir.Invalid
	switch {
	case a.dt != ir.Invalid && b.dt != ir.Invalid:
		dt = ir.Promote(a.dt, b.dt)
	case a.dt != ir.Invalid:
		dt = a.dt
	case b.dt != ir.Invalid:
		dt = b.dt
	}
	out := func(c *constant) *constant {
		if dt != ir.Invalid && c.kind != 'b' {
			return c.convert(dt)
		}
		return c
	}
	if pred, ok := cmpPred[op]; ok {
		if a.kind == 'i' && b.kind == 'i' {
			return &constant{kind: 'b', b: compare(pred, a.i, b.i)}
		}
		return &constant{kind: 'b', b: compare(pred, a.float(), b.float())}
	}
	if a.kind == 'b' && b.kind == 'b' {
		switch op {
		case "&&", "&":
			return &constant{kind: 'b', b: a.b && b.b}
		case "||", "|":
			return &constant{kind: 'b', b: a.b || b.b}
		case "^", "!=":
			return &constant{kind: 'b', b: a.b != b.b}
		}
		s.errorf(pos, "operator %s is not defined on booleans", op)
	}
	if a.kind == 'i' && b.kind == 'i' && !(dt.IsFloat()) {
		return out(&constant{kind: 'i', i: s.foldInt(op, a.i, b.i, pos)})
	}
	x, y := a.float(), b.float()
	r, ok := arith(op, x, y)
	switch {
	case ok:
	case op == "/":
		r = x / y
	default:
		s.errorf(pos, "operator %s is not defined on floats", op)
	}
	return out(&constant{kind: 'f', f: r})
}

// foldInt folds op on two integers; integer division truncates.
func (s *fn) foldInt(op string, x, y int64, pos diag.Pos) int64 {
	if r, ok := arith(op, x, y); ok {
		return r
	}
	switch op {
	case "/", "%":
		if y == 0 {
			s.errorf(pos, "division by zero")
		}
		if op == "/" {
			return x / y
		}
		return x % y
	case "&":
		return x & y
	case "|":
		return x | y
	case "^":
		return x ^ y
	case "&^":
		return x &^ y
	case "<<":
		return x << uint(y)
	case ">>":
		return x >> uint(y)
	}
	s.errorf(pos, "operator %s is not defined on integers", op)
	return 0
}

// arith folds + - * (ok false for another operator).
func arith[T int64 | float64](op string, x, y T) (r T, ok bool) {
	switch op {
	case "+":
		return x + y, true
	case "-":
		return x - y, true
	case "*":
		return x * y, true
	}
	return 0, false
}

// compare folds a comparison (pred as cmpPred names it).
func compare[T int64 | float64](pred string, x, y T) bool {
	return map[string]bool{"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y, "eq": x == y, "ne": x != y}[pred]
}

// index lowers x[...] on a tile: `None` inserts an axis, `:` keeps one.
func (s *fn) index(e *ast.IndexExpr) *val {
	x := s.expr(e.X)
	if x.list != nil && x.v == nil && len(e.Indices) == 1 {
		// x.shape[i]
		i := s.expr(e.Indices[0])
		if i.c == nil || !i.c.isInt() {
			s.errorf(e.Indices[0].Pos(), "shape index must be a compile-time integer")
		}
		n := i.c.i
		if n < 0 {
			n += int64(len(x.list))
		}
		if n < 0 || n >= int64(len(x.list)) {
			s.errorf(e.Indices[0].Pos(), "shape index %d out of range (rank %d)", i.c.i, len(x.list))
		}
		return x.list[n]
	}
	v := s.value(x, e.X.Pos())
	rank := len(ir.ShapeOf(v.Type))
	s.b.Pos = e.Lbrack
	v = s.sliceTile(v, e)
	at, kept := 0, 0
	for _, ix := range e.Indices {
		var iv *val
		if _, isSlice := ix.(*ast.SliceExpr); isSlice {
			iv = &val{slice: true} // bounds taken by sliceTile
		} else {
			iv = s.expr(ix)
		}
		switch {
		case iv.none:
			shape := append([]int(nil), ir.ShapeOf(v.Type)...)
			shape = append(shape[:at], append([]int{1}, shape[at:]...)...)
			v = s.b.Value(ir.OpExpandDims, ir.TileOf(shape, ir.Elem(v.Type)), []*ir.Value{v}, ir.Attrs{"axis": int64(at)})
			at++
		case iv.slice:
			if kept >= rank {
				s.errorf(ix.Pos(), "too many indices for a tile of rank %d", rank)
			}
			at++
			kept++
		default:
			s.errorf(ix.Pos(), "tiles are indexed with `:` and `None` only")
		}
	}
	return &val{v: v}
}

// sliceTile lowers the lo:hi entries of a tile index to one
// extract_slice of v (the None entries, which add axes, come after).
func (s *fn) sliceTile(v *ir.Value, e *ast.IndexExpr) *ir.Value {
	shape := ir.ShapeOf(v.Type)
	starts := make([]int64, len(shape))
	sizes := append([]int(nil), shape...)
	sliced := false
	k := 0
	for _, ix := range e.Indices {
		sl, isSlice := ix.(*ast.SliceExpr)
		if !isSlice {
			continue
		}
		if k < len(shape) && (sl.Lo != nil || sl.Hi != nil) {
			lo, hi := int64(0), int64(shape[k])
			for _, b := range []struct {
				e  ast.Expr
				to *int64
			}{{sl.Lo, &lo}, {sl.Hi, &hi}} {
				if b.e == nil {
					continue
				}
				c := s.expr(b.e).c
				if c == nil || !c.isInt() {
					s.errorf(b.e.Pos(), "slice bounds must be compile-time integers")
				}
				*b.to = c.i
			}
			if lo < 0 || hi > int64(shape[k]) || lo >= hi {
				s.errorf(sl.Pos(), "slice %d:%d out of range for an axis of %d", lo, hi, shape[k])
			}
			starts[k], sizes[k] = lo, int(hi-lo)
			sliced = true
		}
		k++
	}
	if !sliced {
		return v
	}
	return s.b.Value(ir.OpExtractSlice, ir.TileOf(sizes, ir.Elem(v.Type)), []*ir.Value{v}, ir.Attrs{"starts": starts})
}

func (s *fn) shapeOf(l *val, pos diag.Pos) []int {
	if l.list == nil && l.tile == nil {
		if l.c != nil && l.c.isInt() {
			return []int{int(l.c.i)}
		}
		s.errorf(pos, "expected a shape such as [64, 128]")
	}
	if l.tile != nil {
		return l.tile.Shape
	}
	var out []int
	for _, d := range l.list {
		if d.c == nil || !d.c.isInt() {
			s.errorf(pos, "a shape needs compile-time integers")
		}
		if d.c.i <= 0 {
			s.errorf(pos, "shape dimensions must be positive, got %d", d.c.i)
		}
		out = append(out, int(d.c.i))
	}
	return out
}

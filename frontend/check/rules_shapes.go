package check

import (
	"fmt"
	"slices"

	"github.com/tlego/tle/frontend/ast"
)

// The shape builtins of issue 35 on register tiles, with Triton's names and
// keywords: join, split, interleave, cat, flip, expand_dims and
// broadcast(a, b).

// shapeValue requires a number, a pointer or a tile of them: its element
// type and shape (nil for a scalar).
func (c *checker) shapeValue(cc *callCtx, a *argv) (Type, Shape, bool) {
	switch e := ElemOf(a.typ).(type) {
	case DType:
		if e != Invalid {
			return e, ShapeOf(a.typ), true
		}
	case *Pointer:
		return e, ShapeOf(a.typ), true
	}
	c.argErr(cc, a, "a number, a pointer or a tile of them")
	return nil, nil, false
}

// sameElems requires a and b to have one element type: an untyped constant
// takes the other's dtype (both untyped: their promoted default).
func (c *checker) sameElems(cc *callCtx, a, b *argv) (Type, Shape, Shape, bool) {
	ae, as, ok1 := c.shapeValue(cc, a)
	be, bs, ok2 := c.shapeValue(cc, b)
	if !ok1 || !ok2 {
		return nil, nil, nil, false
	}
	ad, aIsD := ae.(DType)
	bd, bIsD := be.(DType)
	switch {
	case aIsD && bIsD && ad.IsUntyped() && bd.IsUntyped():
		d := promote(ad, bd).Default()
		c.convert(a, d)
		c.convert(b, d)
		ae, be = d, d
	case aIsD && ad.IsUntyped() && bIsD:
		c.convert(a, bd)
		ae = bd
	case bIsD && bd.IsUntyped() && aIsD:
		c.convert(b, ad)
		be = ad
	case aIsD && ad.IsUntyped(), bIsD && bd.IsUntyped():
		c.errorf(cc.call, "%s: cannot pair a number with a pointer", cc.b.Name)
		return nil, nil, nil, false
	}
	if !Identical(ae, be) {
		c.errorf(cc.call, "%s: %s is %s and %s is %s: the element types must be the same (cast one)", cc.b.Name, a.name, ae, b.name, be)
		return nil, nil, nil, false
	}
	return ae, as, bs, true
}

// joined checks join's and interleave's operands: one element type, shapes
// that broadcast together (Triton broadcasts them first).
func (c *checker) joined(cc *callCtx) (Type, Shape, bool) {
	a, b := cc.get("a"), cc.get("b")
	elem, as, bs, ok := c.sameElems(cc, a, b)
	if !ok {
		return nil, nil, false
	}
	shape, ok := Broadcast(as, bs)
	if !ok {
		c.errorf(cc.call, "%s: cannot broadcast shapes %s and %s", cc.b.Name, as, bs)
		return nil, nil, false
	}
	return elem, shape, true
}

// join(a, b): a tile of their (broadcast) shape with a last dimension of
// 2, a at index 0 and b at 1; two scalars make a [2] tile.
func (c *checker) join(cc *callCtx) Type {
	elem, shape, ok := c.joined(cc)
	if !ok {
		return Invalid
	}
	return TileOf(elem, append(append(Shape{}, shape...), ConstDim(2)))
}

// interleave(a, b): join, then the last two dimensions merged, so that the
// elements of a and b alternate along the last one.
func (c *checker) interleave(cc *callCtx) Type {
	elem, shape, ok := c.joined(cc)
	if !ok {
		return Invalid
	}
	if len(shape) == 0 {
		return TileOf(elem, Shape{ConstDim(2)})
	}
	out := append(Shape{}, shape...)
	out[len(out)-1] = out[len(out)-1].Mul(ConstDim(2))
	return TileOf(elem, out)
}

// split(a): a tile whose last dimension is 2 splits into two tiles without
// it: a[..., 0] and a[..., 1]; a [2] tile of numbers into two scalars.
func (c *checker) split(cc *callCtx) Type {
	a := cc.get("a")
	elem, shape, ok := c.shapeValue(cc, a)
	if !ok {
		return Invalid
	}
	if len(shape) == 0 {
		return c.argErr(cc, a, "a tile whose last dimension is 2")
	}
	if n, known := shape[len(shape)-1].Const(); known && n != 2 {
		c.errorf(cc.at(a), "split: the last dimension of %s is %d, not 2", a.typ, n)
		return Invalid
	}
	if _, isPtr := elem.(*Pointer); isPtr && len(shape) == 1 {
		c.errorf(cc.at(a), "split of %s would give two scalar pointers, which .tle cannot take out of a tile: split a [1, 2] tile (reshape it)", a.typ)
		return Invalid
	}
	half := TileOf(elem, shape[:len(shape)-1])
	return &Tuple{Types: []Type{half, half}}
}

// cat(input, other, can_reorder:): the two tiles, of one type, one after
// the other along the first dimension. The order is always kept, so
// can_reorder (Triton's permission to reorder) changes nothing.
func (c *checker) cat(cc *callCtx) Type {
	a, b := cc.get("input"), cc.get("other")
	elem, as, bs, ok := c.sameElems(cc, a, b)
	if !ok {
		return Invalid
	}
	if _, _, ok := c.constBool(cc, cc.get("can_reorder")); !ok {
		return Invalid
	}
	if len(as) == 0 || len(bs) == 0 {
		c.errorf(cc.call, "cat: operands must be tiles, not %s and %s", a.typ, b.typ)
		return Invalid
	}
	if !as.Equal(bs) {
		c.errorf(cc.call, "cat: %s is %s and %s is %s: the shapes must be the same", a.name, as, b.name, bs)
		return Invalid
	}
	out := append(Shape{}, as...)
	out[0] = out[0].Mul(ConstDim(2))
	return TileOf(elem, out)
}

// flip(x, dim): x reversed along dim (the last dimension when omitted;
// negative counts from the end); its size must be a power of two.
func (c *checker) flip(cc *callCtx) Type {
	x := cc.get("x")
	t, ok := x.typ.(*Tile)
	if !ok {
		return c.argErr(cc, x, "a tile")
	}
	if _, _, ok := c.shapeValue(cc, x); !ok {
		return Invalid
	}
	axis := len(t.Shape) - 1
	if d := cc.get("dim"); d != nil {
		ax, ok := c.axisArg(cc, d, len(t.Shape))
		if !ok {
			return Invalid
		}
		axis = ax
	}
	if n, known := t.Shape[axis].Const(); known && n&(n-1) != 0 {
		c.errorf(cc.at(x), "flip: dimension %d of %s is %d, not a power of two", axis, x.typ, n)
		return Invalid
	}
	return x.typ
}

// ExpandAxes normalises expand_dims's axes against the result's rank
// (Triton's: a negative axis counts from its end), sorted; it reports the
// first bad axis when one is out of range or repeated.
func ExpandAxes(axes []int64, rank int) ([]int, string) {
	n := rank + len(axes)
	var out []int
	seen := map[int]bool{}
	for _, a := range axes {
		if a < -int64(n) || a >= int64(n) {
			return nil, fmt.Sprintf("axis %d out of range for a result of rank %d", a, n)
		}
		if a < 0 {
			a += int64(n)
		}
		if seen[int(a)] {
			return nil, fmt.Sprintf("axis %d given twice", a)
		}
		seen[int(a)] = true
		out = append(out, int(a))
	}
	slices.Sort(out)
	return out, ""
}

// expandDims checks expand_dims(x, axis): size-1 dimensions inserted at
// the result's axis (an integer or a list of them), as x[:, None] does.
func (c *checker) expandDims(cc *callCtx) Type {
	x := cc.get("x")
	elem, shape, ok := c.shapeValue(cc, x)
	if !ok {
		return Invalid
	}
	if d, isD := elem.(DType); isD && d.IsUntyped() {
		c.defaultUntyped(x)
		elem = ElemOf(x.typ)
	}
	a := cc.get("axis")
	var axes []int64
	if l, isList := unparen(a.expr).(*ast.ListExpr); isList && l.Elem == nil {
		for _, e := range l.Elems {
			tv := c.tab.Types[e]
			d, isD := tv.Type.(DType)
			n, known := tv.Value.Int()
			if !isD || !d.IsInteger() || !known {
				c.errorf(e, "argument axis of expand_dims: each axis must be a compile-time integer")
				return Invalid
			}
			axes = append(axes, n)
		}
		if len(axes) == 0 {
			c.errorf(cc.at(a), "argument axis of expand_dims: an empty list of axes")
			return Invalid
		}
	} else {
		n, ok := c.knownInt(cc, a)
		if !ok {
			return Invalid
		}
		axes = []int64{n}
	}
	sorted, bad := ExpandAxes(axes, len(shape))
	if bad != "" {
		c.errorf(cc.at(a), "expand_dims: %s", bad)
		return Invalid
	}
	out := append(Shape{}, shape...)
	for _, ax := range sorted {
		out = append(out[:ax], append(Shape{ConstDim(1)}, out[ax:]...)...)
	}
	return TileOf(elem, out)
}

// broadcast(input, other): both broadcast to their common shape, each
// keeping its element type.
func (c *checker) broadcastPair(cc *callCtx) Type {
	a, b := cc.get("input"), cc.get("other")
	_, as, ok1 := c.shapeValue(cc, a)
	_, bs, ok2 := c.shapeValue(cc, b)
	if !ok1 || !ok2 {
		return Invalid
	}
	shape, ok := Broadcast(as, bs)
	if !ok {
		c.errorf(cc.call, "broadcast: cannot broadcast shapes %s and %s", as, bs)
		return Invalid
	}
	c.defaultUntyped(a)
	c.defaultUntyped(b)
	return &Tuple{Types: []Type{TileOf(ElemOf(a.typ), shape), TileOf(ElemOf(b.typ), shape)}}
}

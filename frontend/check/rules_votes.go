package check

import "github.com/tlego/tle/ir"

// voteMask checks the mask argument of ballot and prefix_count: a 1-D tile
// of i1. It returns the tile's length.
func (c *checker) voteMask(cc *callCtx) (Dim, bool) {
	m := cc.get("mask")
	t, ok := m.typ.(*Tile)
	if !ok || ElemOf(m.typ) != I1 {
		c.argErr(cc, m, "a 1-D i1 tile")
		return Dim{}, false
	}
	if len(t.Shape) != 1 {
		c.errorf(cc.at(m), "%s must be a 1-D tile, not %s (reshape it first)", c.what(cc, m), t)
		return Dim{}, false
	}
	return t.Shape[0], true
}

// ballot: [N]i1 -> [N/32]u32, N a multiple of 32 when known (a symbolic N
// is checked again once the const parameters are bound).
func (c *checker) ballot(cc *callCtx) Type {
	n, ok := c.voteMask(cc)
	if !ok {
		return Invalid
	}
	word := ConstDim(ir.BallotWord)
	if r, ok := n.Mod(word).Const(); ok && r != 0 {
		c.errorf(cc.at(cc.get("mask")), "%s has %s elements, not a multiple of %d (a ballot word holds %d)", c.what(cc, cc.get("mask")), n, ir.BallotWord, ir.BallotWord)
		return Invalid
	}
	return &Tile{Shape: Shape{n.Div(word)}, Elem: U32}
}

// prefixCount: [N]i1 -> [N]i32.
func (c *checker) prefixCount(cc *callCtx) Type {
	n, ok := c.voteMask(cc)
	if !ok {
		return Invalid
	}
	return &Tile{Shape: Shape{n}, Elem: I32}
}

// popc: an integer (not i1) scalar or tile, to its own type; an untyped
// constant takes its default type (i32, or i64 when it does not fit).
func (c *checker) popc(cc *callCtx) Type {
	x := cc.get("x")
	d, shape, ok := c.numeric(cc, x)
	if !ok {
		return Invalid
	}
	if d == UntypedInt {
		c.defaultUntyped(x)
		d, _ = x.typ.(DType)
	}
	if !d.IsInteger() || d == I1 {
		return c.argErr(cc, x, "an integer or a tile of integers (not i1)")
	}
	return TileOf(d, shape)
}

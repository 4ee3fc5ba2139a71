package check

// The math builtins of issue 35 beyond the one-operand float functions
// (which mathUnary checks): div_rn, clamp, umulhi, isnan, isinf, softmax.

// floatOperands broadcasts and promotes the named operands as fma does
// (untyped constants take the others' dtype, f32 when all are untyped);
// each must be a float, or an untyped constant.
func (c *checker) floatOperands(cc *callCtx, names ...string) Type {
	args := make([]*argv, len(names))
	d := Invalid
	var shape Shape
	ok := true
	for i, n := range names {
		a := cc.get(n)
		args[i] = a
		ad, s, isNum := c.numeric(cc, a)
		switch {
		case !isNum:
			ok = false
			continue
		case !ad.IsFloat() && !ad.IsUntyped():
			c.argErr(cc, a, "a float or a tile of floats (cast integers first)")
			ok = false
			continue
		}
		if i == 0 {
			d, shape = ad, s
			continue
		}
		d = promote(d, ad)
		var bok bool
		if shape, bok = Broadcast(shape, s); !bok {
			c.errorf(cc.call, "%s: cannot broadcast the shapes of its operands", cc.b.Name)
			return Invalid
		}
	}
	if !ok {
		return Invalid
	}
	if d.IsUntyped() {
		d = F32
	}
	for _, a := range args {
		c.convert(a, d)
	}
	return TileOf(d, shape)
}

func (c *checker) divRN(cc *callCtx) Type   { return c.floatOperands(cc, "x", "y") }
func (c *checker) clampOp(cc *callCtx) Type { return c.floatOperands(cc, "x", "min", "max") }
func (c *checker) atan2(cc *callCtx) Type   { return c.floatOperands(cc, "y", "x") }
func (c *checker) pow(cc *callCtx) Type     { return c.floatOperands(cc, "x", "y") }

// umulhi takes two integers of 32 or 64 bits (broadcast, promoted; untyped
// constants take the other's dtype, i32 when both are untyped).
func (c *checker) umulhi(cc *callCtx) Type {
	x, y := cc.get("x"), cc.get("y")
	xd, yd, xs, ys, ok := c.numerics(cc, x, y)
	if !ok {
		return Invalid
	}
	for _, a := range []struct {
		a *argv
		d DType
	}{{x, xd}, {y, yd}} {
		if !a.d.IsUntyped() && (!a.d.IsInteger() || a.d == I1) {
			return c.argErr(cc, a.a, "an integer or a tile of integers")
		}
	}
	shape, ok := Broadcast(xs, ys)
	if !ok {
		c.errorf(cc.call, "%s: cannot broadcast shapes %s and %s", cc.b.Name, xs, ys)
		return Invalid
	}
	d := promote(xd, yd)
	if d.IsUntyped() {
		d = I32
	}
	if d.Bits() != 32 && d.Bits() != 64 {
		c.errorf(cc.call, "umulhi takes 32- or 64-bit integers, not %s (cast first)", d)
		return Invalid
	}
	c.convert(x, d)
	c.convert(y, d)
	return TileOf(d, shape)
}

// floatClass is isnan and isinf: an i1 of x's shape.
func (c *checker) floatClass(cc *callCtx) Type {
	t := c.mathUnary(cc)
	if isInvalid(t) {
		return Invalid
	}
	return TileOf(I1, ShapeOf(t))
}

// softmax(x, dim:, keep_dims:, ieee_rounding:) is exp(x - max) / sum over
// dim (0 when omitted, as Triton's); the result has x's shape and dtype.
func (c *checker) softmax(cc *callCtx) Type {
	x := cc.get("x")
	t, ok := x.typ.(*Tile)
	d, isD := ElemOf(x.typ).(DType)
	if !ok || !isD || !d.IsFloat() {
		return c.argErr(cc, x, "a tile of floats")
	}
	if a := cc.get("dim"); a != nil {
		if _, ok := c.axisArg(cc, a, len(t.Shape)); !ok {
			return Invalid
		}
	}
	return t
}

// atomicBitwise is atomic_and, atomic_or and atomic_xor: atomicRMW's
// rules, on 32- or 64-bit integers (PTX atom.and/or/xor.b32/.b64).
func (c *checker) atomicBitwise(cc *callCtx) Type {
	t := c.atomicRMW(cc)
	if isInvalid(t) {
		return Invalid
	}
	if d, _ := ElemOf(t).(DType); !d.IsInteger() || d == I1 || d.Bits() != 32 && d.Bits() != 64 {
		c.errorf(cc.call, "%s works on 32- or 64-bit integers, not %s", cc.b.Name, ElemOf(t))
		return Invalid
	}
	return t
}

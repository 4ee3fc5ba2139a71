package check

// The random-number builtins of issue 35, Triton's triton.language.random:
// randint, randint4x, rand, rand4x, randn, randn4x (seed, offset,
// n_rounds: 10). The lowering (frontend/lower/random.go) says how they
// compute.

// maxPhiloxRounds bounds n_rounds: every round is unrolled (Triton's
// static_range), about ten ops a round.
const maxPhiloxRounds = 64

// randomOp checks a random builtin: seed an integer scalar (an untyped
// constant is an i64), offset an integer (tile) of 32 or 64 bits (an
// untyped constant is an i32), n_rounds a known integer in [0, 64]. The
// words are u32 for a 32-bit offset and u64 (Philox4x64) for a 64-bit one,
// of offset's shape; rand and randn give f32. The 4x forms return four.
func (c *checker) randomOp(cc *callCtx) Type {
	seed, offset := cc.get("seed"), cc.get("offset")
	if isInvalid(seed.typ) || isInvalid(offset.typ) || !c.philoxSeed(cc, seed) {
		return Invalid
	}
	od, shape, ok := c.numeric(cc, offset)
	if !ok {
		return Invalid
	}
	if !od.IsInteger() || od == I1 {
		return c.argErr(cc, offset, "an integer or a tile of integers")
	}
	if od.IsUntyped() {
		c.convert(offset, I32)
		od = I32
	}
	if od.Bits() != 32 && od.Bits() != 64 {
		c.errorf(cc.at(offset), "%s: offset must be a 32- or 64-bit integer, not %s (cast first)", cc.b.Name, od)
		return Invalid
	}
	if !c.philoxRounds(cc) {
		return Invalid
	}
	elem := U32
	if od.Bits() == 64 {
		elem = U64
	}
	switch cc.b.Name {
	case "rand", "randn", "rand4x", "randn4x":
		elem = F32
	}
	t := TileOf(elem, shape)
	switch cc.b.Name {
	case "randint4x", "rand4x", "randn4x":
		return &Tuple{Types: []Type{t, t, t, t}}
	}
	return t
}

// philoxSeed checks a random builtin's seed: an integer scalar (an untyped
// constant is an i64).
func (c *checker) philoxSeed(cc *callCtx, seed *argv) bool {
	sd, ok := ElemOf(seed.typ).(DType)
	if !ok || !sd.IsInteger() || sd == I1 {
		c.argErr(cc, seed, "an integer scalar")
		return false
	}
	if _, isTile := seed.typ.(*Tile); isTile {
		c.argErr(cc, seed, "an integer scalar")
		return false
	}
	if sd.IsUntyped() {
		c.convert(seed, I64)
	}
	return true
}

// philoxRounds checks n_rounds, which may be a const parameter bound later
// (-D): its range is checked when known, and again by the lowering.
func (c *checker) philoxRounds(cc *callCtx) bool {
	nr := cc.get("n_rounds")
	d, ok := c.constDim(cc, nr, false)
	if !ok {
		return false
	}
	if n, known := d.Const(); known && (n < 0 || n > maxPhiloxRounds) {
		c.errorf(cc.at(nr), "%s must be in [0, %d], got %d", c.what(cc, nr), maxPhiloxRounds, n)
		return false
	}
	return true
}

// philox checks philox(seed, c0, c1, c2, c3, n_rounds: 10), Triton's: the
// counters are integers (untyped constants i32) of one width, 32 or 64
// bits, whose shapes broadcast together; it returns the four words, u32
// (Philox4x32) or u64 (Philox4x64), of the broadcast shape.
func (c *checker) philox(cc *callCtx) Type {
	seed := cc.get("seed")
	if isInvalid(seed.typ) || !c.philoxSeed(cc, seed) {
		return Invalid
	}
	var shape Shape
	bits := 0
	for _, name := range []string{"c0", "c1", "c2", "c3"} {
		a := cc.get(name)
		d, sh, ok := c.numeric(cc, a)
		if !ok {
			return Invalid
		}
		if !d.IsInteger() || d == I1 {
			return c.argErr(cc, a, "an integer or a tile of integers")
		}
		if d.IsUntyped() {
			c.convert(a, I32)
			d = I32
		}
		if d.Bits() != 32 && d.Bits() != 64 {
			c.errorf(cc.at(a), "philox: %s must be a 32- or 64-bit integer, not %s (cast first)", name, d)
			return Invalid
		}
		if bits != 0 && d.Bits() != bits {
			c.errorf(cc.at(a), "philox: %s is %s, of another width than c0 (the counters are one Philox4x32 or 4x64 block)", name, d)
			return Invalid
		}
		bits = d.Bits()
		if shape, ok = Broadcast(shape, sh); !ok {
			c.errorf(cc.at(a), "philox: %s of shape %s does not broadcast with the other counters", name, sh)
			return Invalid
		}
	}
	if !c.philoxRounds(cc) {
		return Invalid
	}
	elem := U32
	if bits == 64 {
		elem = U64
	}
	t := TileOf(elem, shape)
	return &Tuple{Types: []Type{t, t, t, t}}
}

// uintToUniform checks uint_to_uniform_float(x): a 32- or 64-bit integer
// (tile), giving f32 of its shape.
func (c *checker) uintToUniform(cc *callCtx) Type {
	x := cc.get("x")
	d, shape, ok := c.numeric(cc, x)
	if !ok {
		return Invalid
	}
	if !d.IsInteger() || d == I1 || d.IsUntyped() || d.Bits() != 32 && d.Bits() != 64 {
		return c.argErr(cc, x, "a 32- or 64-bit integer (tile), a random word")
	}
	return TileOf(F32, shape)
}

// pairUniformToNormal checks pair_uniform_to_normal(u1, u2): f32 values
// whose shapes broadcast; two f32 results of the broadcast shape.
func (c *checker) pairUniformToNormal(cc *callCtx) Type {
	var shape Shape
	for _, name := range []string{"u1", "u2"} {
		a := cc.get(name)
		d, sh, ok := c.numeric(cc, a)
		if !ok {
			return Invalid
		}
		if d != F32 {
			return c.argErr(cc, a, "an f32 uniform (tile)")
		}
		if shape, ok = Broadcast(shape, sh); !ok {
			c.errorf(cc.at(a), "pair_uniform_to_normal: u2 of shape %s does not broadcast with u1's", sh)
			return Invalid
		}
	}
	t := TileOf(F32, shape)
	return &Tuple{Types: []Type{t, t}}
}

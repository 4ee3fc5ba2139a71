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
	sd, ok := ElemOf(seed.typ).(DType)
	switch {
	case isInvalid(seed.typ) || isInvalid(offset.typ):
		return Invalid
	case !ok || !sd.IsInteger() || sd == I1:
		return c.argErr(cc, seed, "an integer scalar")
	}
	if _, isTile := seed.typ.(*Tile); isTile {
		return c.argErr(cc, seed, "an integer scalar")
	}
	if sd.IsUntyped() {
		c.convert(seed, I64)
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
	// n_rounds may be a const parameter bound later (-D): its range is
	// checked when known, and again by the lowering
	nr := cc.get("n_rounds")
	d, ok := c.constDim(cc, nr, false)
	if !ok {
		return Invalid
	}
	if n, known := d.Const(); known && (n < 0 || n > maxPhiloxRounds) {
		c.errorf(cc.at(nr), "%s must be in [0, %d], got %d", c.what(cc, nr), maxPhiloxRounds, n)
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

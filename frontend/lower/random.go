package lower

import (
	"github.com/tlego/tle/ir"
)

// The random-number builtins, Triton's triton.language.random, so that a
// port draws the same numbers: randint, randint4x, rand, rand4x, randn,
// randn4x (seed, offset, n_rounds: 10).
//
// They are a composition of existing integer and float ops (umulhi, mul,
// xor, add, cast, select, log, sqrt, cos, sin), not a new op: Triton
// itself writes Philox in tl ops, so the same composition is the
// definition; the interpreter, the NVPTX backend and every pass then
// compute it with the ops they already verify (mul.hi/mul.lo, the exact
// integer ops agree bit for bit everywhere), and there is no new op to
// verify, fold, print or emit. The cost is the unrolled rounds in the IR,
// about ten ops a round, as Triton's static_range makes them too.

// Philox4x32's and Philox4x64's round multipliers and key increments
// (Random123's philox.h; triton/language/random.py's PHILOX_ROUND_A/B and
// PHILOX_KEY_A/B).
const (
	philoxRoundA32 = 0xD2511F53
	philoxRoundB32 = 0xCD9E8D57
	philoxKeyA32   = 0x9E3779B9
	philoxKeyB32   = 0xBB67AE85

	philoxRoundA64 uint64 = 0xD2E7470EE14C6C93
	philoxRoundB64 uint64 = 0xCA5A826395121157
	philoxKeyA64   uint64 = 0x9E3779B97F4A7C15
	philoxKeyB64   uint64 = 0xBB67AE8584CAA73B
)

// Triton's uint_to_uniform_float scales: the largest value such that the
// largest folded word times it rounds below 1 in f32.
const (
	uniformScale32 = float32(4.6566127342e-10)
	uniformScale64 = float32(1.0842020432385337e-19)
)

// randint4x lowers Triton's randint4x: Philox with counter (offset, 0, 0,
// 0). For a 32-bit offset the seed, widened to 64 bits (an i32 sign-extends,
// as Triton's seed.to(uint64)), splits into the key (low word, high word)
// of Philox4x32; for a 64-bit offset the key is (seed, 0) of Philox4x64.
func (s *fn) randint4x(a *args) [4]*ir.Value {
	seed, rounds := s.philoxArgs(a)
	off := s.valueArg(a, "offset")
	s.b.Pos = a.call.Pos()
	w := ir.U32
	if ir.ElemDType(off.Type).Bits() == 64 {
		w = ir.U64
	}
	t := ir.WithElem(off.Type, w)
	return s.philoxRounds(a, seed, t, func() [4]*ir.Value {
		zero := s.b.ConstInt(0, t)
		return [4]*ir.Value{s.convert(off, t, s.argPos(a, "offset")), zero, zero, zero}
	}, rounds)
}

// philoxArgs lowers a random builtin's seed (as an i64) and n_rounds.
func (s *fn) philoxArgs(a *args) (*ir.Value, int) {
	seed := s.argAs(a, "seed", ir.I64)
	if d := ir.ElemDType(seed.Type); d != ir.I64 {
		seed = s.convert(seed, ir.I64, s.argPos(a, "seed"))
	}
	rounds := int(s.constIntArg(a, "n_rounds"))
	if rounds < 0 || rounds > 64 {
		s.errorf(s.argPos(a, "n_rounds"), "n_rounds must be in [0, 64], got %d", rounds)
	}
	return seed, rounds
}

// philox lowers Triton's philox(seed, c0, c1, c2, c3, n_rounds): the
// counters, as unsigned words of their width (the same bits), broadcast
// to one shape.
func (s *fn) philox(a *args) *val {
	seed, rounds := s.philoxArgs(a)
	var c [4]*ir.Value
	var shape []int
	for i, name := range []string{"c0", "c1", "c2", "c3"} {
		c[i] = s.valueArg(a, name)
		sh, ok := ir.BroadcastShapes(shape, ir.ShapeOf(c[i].Type))
		if !ok {
			s.errorf(s.argPos(a, name), "philox: %s of shape %v does not broadcast with %v", name, ir.ShapeOf(c[i].Type), shape)
		}
		shape = sh
	}
	w := ir.U32
	if ir.ElemDType(c[0].Type).Bits() == 64 {
		w = ir.U64
	}
	var t ir.Type = w
	if len(shape) > 0 {
		t = ir.TileOf(shape, w)
	}
	s.b.Pos = a.call.Pos()
	return words(s.philoxRounds(a, seed, t, func() [4]*ir.Value {
		for i, name := range []string{"c0", "c1", "c2", "c3"} {
			c[i] = s.convert(c[i], t, s.argPos(a, name))
		}
		return c
	}, rounds))
}

// philoxRounds runs rounds of Philox on the counters counter makes (after
// the key, so that randint's IR keeps its order), words of type t (u32,
// or u64 for Philox4x64), with key seed: for 32-bit words the seed's low
// and high words, for 64-bit ones (seed, 0).
func (s *fn) philoxRounds(a *args, seed *ir.Value, t ir.Type, counter func() [4]*ir.Value, rounds int) [4]*ir.Value {
	wide := ir.ElemDType(t).Bits() == 64
	var k0, k1 *ir.Value
	roundA, roundB := int64(philoxRoundA32), int64(philoxRoundB32)
	keyA, keyB := int64(philoxKeyA32), int64(philoxKeyB32)
	if wide {
		k0 = s.b.Value(ir.OpCast, ir.U64, []*ir.Value{seed}, nil)
		k1 = s.b.ConstInt(0, ir.U64)
		roundA, roundB = u64Bits(philoxRoundA64), u64Bits(philoxRoundB64)
		keyA, keyB = u64Bits(philoxKeyA64), u64Bits(philoxKeyB64)
	} else {
		hi := s.b.Value(ir.OpShr, ir.I64, []*ir.Value{seed, s.b.ConstInt(32, ir.I64)}, nil)
		k0 = s.b.Value(ir.OpCast, ir.U32, []*ir.Value{seed}, nil)
		k1 = s.b.Value(ir.OpCast, ir.U32, []*ir.Value{hi}, nil)
	}
	c := counter()
	if rounds == 0 {
		return c
	}
	ma, mb := s.b.ConstInt(roundA, t), s.b.ConstInt(roundB, t)
	ka, kb := s.b.ConstInt(keyA, ir.ElemDType(t)), s.b.ConstInt(keyB, ir.ElemDType(t))
	xor := func(x, y *ir.Value) *ir.Value { return s.b.Value(ir.OpXor, t, []*ir.Value{x, y}, nil) }
	for r := 0; r < rounds; r++ {
		if r > 0 {
			k0 = s.b.Value(ir.OpAdd, k0.Type, []*ir.Value{k0, ka}, nil)
			k1 = s.b.Value(ir.OpAdd, k1.Type, []*ir.Value{k1, kb}, nil)
		}
		hb := s.b.Value(ir.OpUMulHi, t, []*ir.Value{mb, c[2]}, nil)
		ha := s.b.Value(ir.OpUMulHi, t, []*ir.Value{ma, c[0]}, nil)
		c = [4]*ir.Value{
			xor(xor(hb, c[1]), s.broadcastTo(k0, ir.ShapeOf(t), a.call.Pos())),
			s.b.Value(ir.OpMul, t, []*ir.Value{mb, c[2]}, nil),
			xor(xor(ha, c[3]), s.broadcastTo(k1, ir.ShapeOf(t), a.call.Pos())),
			s.b.Value(ir.OpMul, t, []*ir.Value{ma, c[0]}, nil),
		}
	}
	return c
}

// uniform is Triton's uint_to_uniform_float: the word as a signed integer,
// a negative x folded to -x-1 (its bitwise not), converted to f32 (rounded
// to nearest) and multiplied in f32 by the scale; in [0, 1).
func (s *fn) uniform(x *ir.Value) *ir.Value {
	sd, scale := ir.I32, uniformScale32
	if ir.ElemDType(x.Type).Bits() == 64 {
		sd, scale = ir.I64, uniformScale64
	}
	st := ir.WithElem(x.Type, sd)
	v := s.b.Value(ir.OpCast, st, []*ir.Value{x}, nil)
	neg := s.b.Value(ir.OpCmp, ir.WithElem(x.Type, ir.I1), []*ir.Value{v, s.b.ConstInt(0, st)}, ir.Attrs{"pred": "lt"})
	v = s.b.Value(ir.OpSelect, st, []*ir.Value{neg, s.b.Value(ir.OpNot, st, []*ir.Value{v}, nil), v}, nil)
	ft := ir.WithElem(x.Type, ir.F32)
	f := s.b.Value(ir.OpCast, ft, []*ir.Value{v}, nil)
	return s.b.Value(ir.OpMul, ft, []*ir.Value{f, s.b.ConstFloat(float64(scale), ft)}, nil)
}

// u64Bits is a u64 constant as the int64 of its bits (how a u64 constant
// op holds its value).
func u64Bits(u uint64) int64 { return int64(u) }

func words(c [4]*ir.Value) *val {
	l := make([]*val, 4)
	for i, v := range c {
		l[i] = &val{v: v}
	}
	return &val{list: l}
}

func (s *fn) randint(a *args) *val { return &val{v: s.randint4x(a)[0]} }

// uintToUniform lowers Triton's uint_to_uniform_float.
func (s *fn) uintToUniform(a *args) *val {
	x := s.valueArg(a, "x")
	s.b.Pos = a.call.Pos()
	return &val{v: s.uniform(x)}
}

// pairUniformToNormal lowers Triton's pair_uniform_to_normal, its
// operands broadcast to one shape.
func (s *fn) pairUniformToNormal(a *args) *val {
	u1, u2 := s.valueArg(a, "u1"), s.valueArg(a, "u2")
	shape, ok := ir.BroadcastShapes(ir.ShapeOf(u1.Type), ir.ShapeOf(u2.Type))
	if !ok {
		s.errorf(a.call.Pos(), "pair_uniform_to_normal: shapes %v and %v do not broadcast", ir.ShapeOf(u1.Type), ir.ShapeOf(u2.Type))
	}
	s.b.Pos = a.call.Pos()
	u1, u2 = s.broadcastTo(u1, shape, a.call.Pos()), s.broadcastTo(u2, shape, a.call.Pos())
	n1, n2 := s.pairNormal(u1, u2)
	return &val{list: []*val{{v: n1}, {v: n2}}}
}

func (s *fn) randint4xVal(a *args) *val { return words(s.randint4x(a)) }

func (s *fn) rand(a *args) *val { return &val{v: s.uniform(s.randint4x(a)[0])} }

func (s *fn) rand4x(a *args) *val {
	c := s.randint4x(a)
	for i := range c {
		c[i] = s.uniform(c[i])
	}
	return words(c)
}

// pairNormal is Triton's pair_uniform_to_normal, the Box-Muller transform
// of two f32 uniforms: u1 raised to at least 1e-7, th = 2*pi*u2,
// r = sqrt(-2*log(u1)), and (r*cos(th), r*sin(th)), each op in f32.
func (s *fn) pairNormal(u1, u2 *ir.Value) (*ir.Value, *ir.Value) {
	t := u1.Type
	u1 = s.b.Value(ir.OpMax, t, []*ir.Value{s.b.ConstFloat(float64(float32(1e-7)), t), u1}, nil)
	th := s.b.Value(ir.OpMul, t, []*ir.Value{s.b.ConstFloat(float64(float32(6.283185307179586)), t), u2}, nil)
	l := s.b.Value(ir.OpLog, t, []*ir.Value{u1}, nil)
	r := s.b.Value(ir.OpSqrt, t, []*ir.Value{s.b.Value(ir.OpMul, t, []*ir.Value{s.b.ConstFloat(-2, t), l}, nil)}, nil)
	cos := s.b.Value(ir.OpCos, t, []*ir.Value{th}, nil)
	sin := s.b.Value(ir.OpSin, t, []*ir.Value{th}, nil)
	return s.b.Value(ir.OpMul, t, []*ir.Value{r, cos}, nil), s.b.Value(ir.OpMul, t, []*ir.Value{r, sin}, nil)
}

// randn is Triton's: the first normal of the pair from randint4x's first
// two words.
func (s *fn) randn(a *args) *val {
	c := s.randint4x(a)
	n1, _ := s.pairNormal(s.uniform(c[0]), s.uniform(c[1]))
	return &val{v: n1}
}

// randn4x is Triton's: the normals of the pairs (u1, u2) and (u3, u4) of
// rand4x.
func (s *fn) randn4x(a *args) *val {
	c := s.randint4x(a)
	for i := range c {
		c[i] = s.uniform(c[i])
	}
	n1, n2 := s.pairNormal(c[0], c[1])
	n3, n4 := s.pairNormal(c[2], c[3])
	return words([4]*ir.Value{n1, n2, n3, n4})
}

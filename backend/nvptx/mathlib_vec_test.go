package nvptx

import "math"

// vecOps evaluates mathlib.go's algorithms on vecN lanes at once: the same
// generic definitions goOps and irOps instantiate, with each operation one
// (dictionary) call per batch and a tight loop over the lanes doing what
// goOps does to one value. The tests sweep millions of f32 inputs through
// it; a lane's result is bit for bit goOps' (TestMathLibVec checks).
//
// Every operation writes a fresh vector from the arena, which reset
// reclaims after a batch; constants are filled once and kept.
type vecOps struct{ a *vecArena }

// vecN lanes (a multiple of 4) fit a batch's vectors (a few hundred for
// pow) in L2.
const vecN = 256

type (
	vecD = *[vecN]float64
	vecI = *[vecN]int64
	vecB = *[vecN]bool
)

var _ mathOps[vecD, vecI, vecB] = vecOps{}

type vecArena struct {
	d      []vecD
	i      []vecI
	b      []vecB
	nd     int
	ni     int
	nb     int
	consts map[uint64]vecD
	iconst map[int64]vecI
}

func newVecOps() vecOps {
	return vecOps{&vecArena{consts: map[uint64]vecD{}, iconst: map[int64]vecI{}}}
}

// reset makes every vector but the constants free again.
func (o vecOps) reset() { o.a.nd, o.a.ni, o.a.nb = 0, 0, 0 }

func (o vecOps) newD() vecD { return take(&o.a.d, &o.a.nd) }
func (o vecOps) newI() vecI { return take(&o.a.i, &o.a.ni) }
func (o vecOps) newB() vecB { return take(&o.a.b, &o.a.nb) }

// take returns the next free vector of list, n of which are in use,
// adding one when all are.
func take[T any](list *[]*[vecN]T, n *int) *[vecN]T {
	if *n == len(*list) {
		*list = append(*list, new([vecN]T))
	}
	*n++
	return (*list)[*n-1]
}

// mathF32Vec is MathF32 of the first n lanes of xs and ys (the rest are
// computed and ignored) into out.
func (o vecOps) mathF32Vec(fn MathFn, xs, ys, out *[vecN]float32) {
	x, y := o.newD(), o.newD()
	for i := range x {
		x[i], y[i] = float64(xs[i]), float64(ys[i])
	}
	r := mathF64(o, fn, x, y)
	for i := range out {
		out[i] = float32(r[i])
	}
	o.reset()
}

func (o vecOps) c(x float64) vecD {
	r := o.a.consts[math.Float64bits(x)]
	if r == nil {
		r = new([vecN]float64)
		for i := range r {
			r[i] = x
		}
		o.a.consts[math.Float64bits(x)] = r
	}
	return r
}

func (o vecOps) ic(x int64) vecI {
	r := o.a.iconst[x]
	if r == nil {
		r = new([vecN]int64)
		for i := range r {
			r[i] = x
		}
		o.a.iconst[x] = r
	}
	return r
}

func (o vecOps) add(a, b vecD) vecD {
	r := o.newD()
	for i := range r {
		r[i] = float64(a[i] + b[i])
	}
	return r
}

func (o vecOps) sub(a, b vecD) vecD {
	r := o.newD()
	for i := range r {
		r[i] = float64(a[i] - b[i])
	}
	return r
}

func (o vecOps) mul(a, b vecD) vecD {
	r := o.newD()
	for i := range r {
		r[i] = float64(a[i] * b[i])
	}
	return r
}

func (o vecOps) div(a, b vecD) vecD {
	r := o.newD()
	for i := range r {
		r[i] = float64(a[i] / b[i])
	}
	return r
}

// fma, the most frequent operation, is unrolled: math.FMA checks the CPU
// for FMA at every call.
func (o vecOps) fma(a, b, c vecD) vecD {
	r := o.newD()
	for i := 0; i < vecN; i += 4 {
		r[i] = math.FMA(a[i], b[i], c[i])
		r[i+1] = math.FMA(a[i+1], b[i+1], c[i+1])
		r[i+2] = math.FMA(a[i+2], b[i+2], c[i+2])
		r[i+3] = math.FMA(a[i+3], b[i+3], c[i+3])
	}
	return r
}

func (o vecOps) sqrt(a vecD) vecD {
	r := o.newD()
	for i := range r {
		r[i] = math.Sqrt(a[i])
	}
	return r
}

func (o vecOps) rint(a vecD) vecD {
	r := o.newD()
	for i := range r {
		r[i] = math.RoundToEven(a[i])
	}
	return r
}

func (o vecOps) abs(a vecD) vecD {
	r := o.newD()
	for i := range r {
		r[i] = math.Abs(a[i])
	}
	return r
}

func (o vecOps) copysign(a, b vecD) vecD {
	r := o.newD()
	for i := range r {
		r[i] = math.Copysign(a[i], b[i])
	}
	return r
}

func (o vecOps) lt(a, b vecD) vecB {
	r := o.newB()
	for i := range r {
		r[i] = a[i] < b[i]
	}
	return r
}

func (o vecOps) eq(a, b vecD) vecB {
	r := o.newB()
	for i := range r {
		r[i] = a[i] == b[i]
	}
	return r
}

func (o vecOps) ne(a, b vecD) vecB {
	r := o.newB()
	for i := range r {
		r[i] = a[i] != b[i]
	}
	return r
}

func (o vecOps) isnan(a vecD) vecB {
	r := o.newB()
	for i := range r {
		r[i] = a[i] != a[i]
	}
	return r
}

func (o vecOps) and(a, b vecB) vecB {
	r := o.newB()
	for i := range r {
		r[i] = a[i] && b[i]
	}
	return r
}

func (o vecOps) or(a, b vecB) vecB {
	r := o.newB()
	for i := range r {
		r[i] = a[i] || b[i]
	}
	return r
}

func (o vecOps) not(a vecB) vecB {
	r := o.newB()
	for i := range r {
		r[i] = !a[i]
	}
	return r
}

func (o vecOps) beq(a, b vecB) vecB {
	r := o.newB()
	for i := range r {
		r[i] = a[i] == b[i]
	}
	return r
}

func (o vecOps) sel(c vecB, a, b vecD) vecD  { return choose(o.newD(), c, a, b) }
func (o vecOps) seli(c vecB, a, b vecI) vecI { return choose(o.newI(), c, a, b) }

// choose sets each lane of r to a's where c is on, else to b's.
func choose[T any](r *[vecN]T, c vecB, a, b *[vecN]T) *[vecN]T {
	for i := range r {
		if c[i] {
			r[i] = a[i]
		} else {
			r[i] = b[i]
		}
	}
	return r
}

func (o vecOps) toI(a vecD) vecI {
	r := o.newI()
	for i := range r {
		r[i] = int64(a[i])
	}
	return r
}

func (o vecOps) toD(a vecI) vecD {
	r := o.newD()
	for i := range r {
		r[i] = float64(a[i])
	}
	return r
}

func (o vecOps) bits(a vecD) vecI {
	r := o.newI()
	for i := range r {
		r[i] = int64(math.Float64bits(a[i]))
	}
	return r
}

func (o vecOps) fromBits(a vecI) vecD {
	r := o.newD()
	for i := range r {
		r[i] = math.Float64frombits(uint64(a[i]))
	}
	return r
}

func (o vecOps) f32bits(a vecD) vecI {
	r := o.newI()
	for i := range r {
		r[i] = int64(math.Float32bits(float32(a[i])))
	}
	return r
}

func (o vecOps) iadd(a, b vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = a[i] + b[i]
	}
	return r
}

func (o vecOps) isub(a, b vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = a[i] - b[i]
	}
	return r
}

func (o vecOps) imul(a, b vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = a[i] * b[i]
	}
	return r
}

func (o vecOps) iand(a, b vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = a[i] & b[i]
	}
	return r
}

func (o vecOps) ior(a, b vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = a[i] | b[i]
	}
	return r
}

func (o vecOps) ishl(a, b vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = int64(uint64(a[i]) << uint64(b[i]))
	}
	return r
}

func (o vecOps) ishr(a, b vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = int64(uint64(a[i]) >> uint64(b[i]))
	}
	return r
}

func (o vecOps) ineg(a vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = -a[i]
	}
	return r
}

func (o vecOps) invPio4(idx vecI) vecI {
	r := o.newI()
	for i := range r {
		r[i] = int64(mlInvPio4[idx[i]])
	}
	return r
}

func (o vecOps) ieq(a, b vecI) vecB {
	r := o.newB()
	for i := range r {
		r[i] = a[i] == b[i]
	}
	return r
}

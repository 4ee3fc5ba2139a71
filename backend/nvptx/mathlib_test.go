package nvptx

import (
	"math"
	"math/big"
	"math/bits"
	"os"
	"strconv"
	"testing"
)

// mathRef is each function's reference in Go's math (float64).
var mathRef = map[MathFn]struct {
	name string
	f    func(x, y float64) float64
	lo   float32 // the dense sweep covers [lo, hi]
	hi   float32
}{
	MathSin:   {"sin", func(x, _ float64) float64 { return math.Sin(x) }, -8, 8},
	MathCos:   {"cos", func(x, _ float64) float64 { return math.Cos(x) }, -8, 8},
	MathTan:   {"tan", func(x, _ float64) float64 { return math.Tan(x) }, -8, 8},
	MathAsin:  {"asin", func(x, _ float64) float64 { return math.Asin(x) }, -1, 1},
	MathAcos:  {"acos", func(x, _ float64) float64 { return math.Acos(x) }, -1, 1},
	MathAtan:  {"atan", func(x, _ float64) float64 { return math.Atan(x) }, -4, 4},
	MathSinh:  {"sinh", func(x, _ float64) float64 { return math.Sinh(x) }, -4, 4},
	MathCosh:  {"cosh", func(x, _ float64) float64 { return math.Cosh(x) }, -4, 4},
	MathLog1p: {"log1p", func(x, _ float64) float64 { return math.Log1p(x) }, -1, 4},
	MathExpm1: {"expm1", func(x, _ float64) float64 { return math.Expm1(x) }, -4, 4},
}

// mathBound is each function's documented bound (mathlib.go's XMaxULP).
var mathBound = map[MathFn]float64{
	MathSin: SinMaxULP, MathCos: CosMaxULP, MathTan: TanMaxULP, MathAsin: AsinMaxULP, MathAcos: AcosMaxULP,
	MathAtan: AtanMaxULP, MathSinh: SinhMaxULP, MathCosh: CoshMaxULP, MathLog1p: Log1pMaxULP, MathExpm1: Expm1MaxULP,
	MathAtan2: Atan2MaxULP, MathPow: PowMaxULP,
}

// mlErr is ulpErr, infinite where got and want (rounded to f32) are zeros
// or infinities of different signs.
func mlErr(got float32, want float64) float64 {
	w := float32(want)
	if (w == 0 || math.IsInf(float64(w), 0)) && math.Signbit(float64(got)) != math.Signbit(float64(w)) {
		return math.Inf(1)
	}
	return ulpErr(got, want)
}

func mathStride(def uint32) uint32 {
	if s, err := strconv.ParseUint(os.Getenv("TLE_MATH_STRIDE"), 10, 32); err == nil && s > 0 {
		return uint32(s)
	}
	if testing.Short() {
		return def * 16
	}
	return def
}

// mlSweep evaluates MathF32 of the (x, y) added, vecN at a time through
// vecOps, and calls check on each with its result, in the order added.
type mlSweep struct {
	fn        MathFn
	ops       vecOps
	check     func(x, y, got float32)
	n         int
	x, y, got [vecN]float32
}

func (s *mlSweep) add(x, y float32) {
	s.x[s.n], s.y[s.n] = x, y
	s.n++
	if s.n == vecN {
		s.flush()
	}
}

// flush evaluates the pending inputs (the lanes past them hold a previous
// batch's, computed again and ignored).
func (s *mlSweep) flush() {
	if s.n == 0 {
		return
	}
	s.ops.mathF32Vec(s.fn, &s.x, &s.y, &s.got)
	for i := range s.n {
		s.check(s.x[i], s.y[i], s.got[i])
	}
	s.n = 0
}

// TestMathLibVec: vecOps, which the sweeps below evaluate the algorithms
// with, gives MathF32's (goOps') result bit for bit, for every function on
// every 262139th f32 bit pattern x (y: x's bits rotated, for atan2 and
// pow) and on every pair of specials.
func TestMathLibVec(t *testing.T) {
	ops := newVecOps()
	for fn := MathSin; fn <= MathPow; fn++ {
		bad := 0
		sw := &mlSweep{fn: fn, ops: ops, check: func(x, y, got float32) {
			if want := MathF32(fn, x, y); math.Float32bits(got) != math.Float32bits(want) {
				if bad++; bad <= 3 {
					t.Errorf("fn %d (%v, %v): vecOps %x, MathF32 %x", fn, x, y, math.Float32bits(got), math.Float32bits(want))
				}
			}
		}}
		for b := uint64(0); b < 1<<32; b += 262139 {
			sw.add(math.Float32frombits(uint32(b)), math.Float32frombits(bits.RotateLeft32(uint32(b), 9)))
		}
		for _, x := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 0.5, 2, -3} {
			for _, y := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 0.5, 2, -3} {
				sw.add(float32(x), float32(y))
			}
		}
		sw.flush()
	}
}

// TestMathLibAlgorithms measures MathF32, the mirror of the GPU's code (as
// vecOps evaluates it, through mlSweep), against Go's math in float64
// (unrounded: the error includes the final rounding's half ulp): every
// 1021st f32 bit pattern of a dense interval around 0, and every 4099th
// f32 bit pattern of the whole range,
// both signs, the infinities and NaN included (every TLE_MATH_STRIDE-th
// with that set); results must agree in class (NaN, infinity, zero and
// its sign).
func TestMathLibAlgorithms(t *testing.T) {
	t.Parallel()
	dense, whole := mathStride(1021), mathStride(4099)
	ops := newVecOps()
	for fn, ref := range mathRef {
		worst, at := 0.0, float32(0)
		sw := &mlSweep{fn: fn, ops: ops, check: func(x, _, got float32) {
			want := ref.f(float64(x), 0)
			if e := mlErr(got, want); e > worst || math.IsNaN(e) {
				worst, at = e, x
			}
		}}
		check := func(x float32) { sw.add(x, 0) }
		for _, s := range []float32{1, -1} {
			for b := uint32(0); b <= math.Float32bits(max(s*ref.lo, s*ref.hi)); b += dense {
				if x := s * math.Float32frombits(b); x >= ref.lo && x <= ref.hi {
					check(x)
				}
			}
		}
		for b := uint64(0); b < 1<<32; b += uint64(whole) {
			check(math.Float32frombits(uint32(b)))
		}
		for _, x := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 0x1p-149, -0x1p-149, math.MaxFloat32, -math.MaxFloat32} {
			check(float32(x))
		}
		sw.flush()
		t.Logf("%s: max error %.6f ulp at %v (%#x)", ref.name, worst, at, math.Float32bits(at))
		if !(worst <= mathBound[fn]) {
			t.Errorf("%s: max error %.4f ulp at %v (%#x), bound %v", ref.name, worst, at, math.Float32bits(at), mathBound[fn])
		}
	}
}

// TestMathLibBinary measures atan2(y, x) and pow(x, y) (MathF32, through
// mlSweep) against math.Atan2 and math.Pow: random pairs (log-uniform magnitudes over the whole f32
// range, both signs, and pow's bases near 1 with large exponents), every
// pair of a grid of special values (zeros, infinities, NaN, +-1, +-0.5,
// odd and even integers, tiny and huge values), which must match in
// class and sign exactly.
func TestMathLibBinary(t *testing.T) {
	t.Parallel()
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		1, -1, 0.5, -0.5, 2, -2, 3, -3, 0x1p24, -0x1p24, 0x1p24 + 2, 16777215, -16777215, 0x1p-149, -0x1p-149,
		math.MaxFloat32, -math.MaxFloat32, 1.5, -1.5, 0.999, 1.001, 100, -100, 1e-30, -1e-30, 3.3e38}
	r := uint64(12345)
	next := func() uint64 { r ^= r << 13; r ^= r >> 7; r ^= r << 17; return r }
	logU := func() float32 {
		v := float32(math.Ldexp(1+float64(next()%(1<<23))/(1<<23), int(next()%270)-145))
		if next()&1 == 1 {
			v = -v
		}
		return v
	}
	n := 400000
	if testing.Short() {
		n = 40000
	}
	ops := newVecOps()
	for _, fn := range []MathFn{MathAtan2, MathPow} {
		name, ref := "atan2", math.Atan2
		if fn == MathPow {
			name, ref = "pow", math.Pow
		}
		worst, wa, wb := 0.0, float32(0), float32(0)
		sw := &mlSweep{fn: fn, ops: ops, check: func(a, b, got float32) {
			want := ref(float64(a), float64(b))
			if e := mlErr(got, want); e > worst || math.IsNaN(e) {
				worst, wa, wb = e, a, b
			}
		}}
		check := sw.add
		for _, a := range specials {
			for _, b := range specials {
				check(a, b)
			}
		}
		for i := 0; i < n; i++ {
			a, b := logU(), logU()
			if fn == MathPow {
				switch i % 4 {
				case 1: // near 1, large exponents
					a = float32(1 + (float64(next()%(1<<20))/(1<<20)-0.5)*0x1p-6)
					b = float32(math.Ldexp(float64(next()%(1<<20))/(1<<20), 13))
					if next()&1 == 1 {
						b = -b
					}
				case 2: // negative bases, integral exponents
					b = float32(int(next()%61) - 30)
					a = -float32(math.Ldexp(1+float64(next()%(1<<23))/(1<<23), int(next()%20)-10))
				case 3: // moderate
					a = float32(math.Ldexp(1+float64(next()%(1<<23))/(1<<23), int(next()%16)-8))
					b = float32((float64(next()%(1<<23))/(1<<23) - 0.5) * 64)
				}
			}
			check(a, b)
		}
		sw.flush()
		t.Logf("%s: max error %.6f ulp at (%v, %v)", name, worst, wa, wb)
		if !(worst <= mathBound[fn]) {
			t.Errorf("%s: max error %.6f ulp at (%v, %v), bound %v", name, worst, wa, wb, mathBound[fn])
		}
	}
}

// TestMathLibTable rederives mlInvPio4 (2/pi in windows) and the split of
// pi/2 from pi computed by Machin's formula in 400-bit arithmetic.
func TestMathLibTable(t *testing.T) {
	const prec = 400
	atanInv := func(n int64) *big.Float {
		sum := new(big.Float).SetPrec(prec)
		nn := new(big.Float).SetPrec(prec).SetInt64(n)
		p := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt64(1), nn)
		n2 := new(big.Float).SetPrec(prec).Mul(nn, nn)
		for k := int64(0); k < 300; k++ {
			term := new(big.Float).SetPrec(prec).Quo(p, new(big.Float).SetPrec(prec).SetInt64(2*k+1))
			if k%2 == 0 {
				sum.Add(sum, term)
			} else {
				sum.Sub(sum, term)
			}
			p.Quo(p, n2)
		}
		return sum
	}
	pi := new(big.Float).SetPrec(prec).Mul(atanInv(5), big.NewFloat(16))
	pi.Sub(pi, new(big.Float).SetPrec(prec).Mul(atanInv(239), big.NewFloat(4)))
	if f, _ := pi.Float64(); f != math.Pi {
		t.Fatalf("pi = %v", f)
	}
	// entry i is floor(2/pi * 2^(8(i+1))) mod 2^32
	twoOverPi := new(big.Float).SetPrec(prec).Quo(big.NewFloat(2).SetPrec(prec), pi)
	for i, got := range mlInvPio4 {
		v := new(big.Float).SetPrec(prec).SetMantExp(twoOverPi, 8*(i+1))
		n, _ := v.Int(nil)
		want := new(big.Int).And(n, big.NewInt(1<<32-1)).Uint64()
		if uint64(got) != want {
			t.Errorf("mlInvPio4[%d] = %#x, want %#x", i, got, want)
		}
	}
	r := new(big.Float).SetPrec(prec).Quo(pi, big.NewFloat(2))
	for i, c := range []float64{mlPio2C1, mlPio2C2, mlPio2C3} {
		if want, _ := r.Float64(); c != want {
			t.Errorf("pi/2 part %d = %x, want %x", i+1, c, want)
		}
		r.Sub(r, new(big.Float).SetPrec(prec).SetFloat64(c))
	}
	if want := float64(math.Pi / 2 * 0x1p-62); mlPi63 != want {
		t.Errorf("mlPi63 = %x", mlPi63)
	}
}

package interp

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

// TestCmpPredicates checks the six predicates on floats (NaN compares false
// but for ne), signed and unsigned integers, tile against tile and tile
// against a scalar operand (splatted by the interpreter).
func TestCmpPredicates(t *testing.T) {
	nan := math.NaN()
	floats := [2][]float64{{1, 2, nan, -1, 3, 0}, {2, 2, 1, -2, nan, -0.0}}
	ints := [2][]int64{{-1, 2, 5, -7, 0, math.MinInt32}, {1, 2, -5, -7, 3, math.MaxInt32}}
	u64s := [2][]int64{{math.MinInt64, 1, -1, 0, 7, math.MaxInt64}, {1, math.MinInt64, -1, -1, 7, math.MinInt64}}
	preds := map[string]func(c int) bool{
		"lt": func(c int) bool { return c < 0 }, "le": func(c int) bool { return c <= 0 },
		"gt": func(c int) bool { return c > 0 }, "ge": func(c int) bool { return c >= 0 },
		"eq": func(c int) bool { return c == 0 }, "ne": func(c int) bool { return c != 0 },
	}
	// order is -1, 0 or 1, or 2 for unordered (a NaN)
	order := func(d ir.DType, x, y []float64, xi, yi []int64, k int) int {
		switch d {
		case ir.F32:
			switch {
			case x[k] < y[k]:
				return -1
			case x[k] > y[k]:
				return 1
			case x[k] == y[k]:
				return 0
			}
			return 2
		case ir.U64:
			a, b := uint64(xi[k]), uint64(yi[k])
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		}
		switch a, b := xi[k], yi[k]; {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	const n = 6
	for _, d := range []ir.DType{ir.F32, ir.I32, ir.U64} {
		for pred, holds := range preds {
			for _, scalar := range []bool{false, true} {
				k := newKernel("cmp", param("x", ptr(d)), param("y", ptr(d)), param("out", ptr(ir.I32)))
				offs := k.arange(n)
				a := k.load(k.addptr(k.arg(0), offs), nil, nil)
				var b *ir.Value
				if scalar {
					b = k.load(k.addptr(k.arg(1), k.ci(3)), nil, nil)
				} else {
					b = k.load(k.addptr(k.arg(1), offs), nil, nil)
				}
				c := k.Value(ir.OpCmp, tile([]int{n}, ir.I1), []*ir.Value{a, b}, ir.Attrs{"pred": pred})
				k.store(k.addptr(k.arg(2), offs), k.cast(c, ir.I32), nil)
				m := k.ret()
				var x, y *Buffer
				var xf, yf []float64
				var xi, yi []int64
				switch d {
				case ir.F32:
					xf, yf = floats[0], floats[1]
					x, y = FromFloat64(d, xf), FromFloat64(d, yf)
				case ir.I32:
					xi, yi = ints[0], ints[1]
					x, y = FromInt64(d, xi), FromInt64(d, yi)
				default:
					xi, yi = u64s[0], u64s[1]
					x, y = FromInt64(d, xi), FromInt64(d, yi)
				}
				if scalar {
					if xf != nil {
						yf = []float64{yf[3], yf[3], yf[3], yf[3], yf[3], yf[3]}
					} else {
						yi = []int64{yi[3], yi[3], yi[3], yi[3], yi[3], yi[3]}
					}
				}
				out := NewBuffer(ir.I32, n)
				require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, x, y, out))
				want := make([]int64, n)
				for j := range want {
					if o := order(d, xf, yf, xi, yi, j); o != 2 && holds(o) || o == 2 && pred == "ne" {
						want[j] = 1
					}
				}
				require.Equal(t, want, out.Int64(), "%v %s scalar=%v", d, pred, scalar)
			}
		}
	}
}

// TestMinMax checks min and max on floats (a NaN operand yields the other
// one), signed and unsigned integers.
func TestMinMax(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		d          ir.DType
		x, y       []float64
		xi, yi     []int64
		wmin, wmax []float64
		imin, imax []int64
	}{
		{d: ir.F32, x: []float64{1, nan, 3, nan, -0.5}, y: []float64{2, 1, nan, nan, -2},
			wmin: []float64{1, 1, 3, nan, -2}, wmax: []float64{2, 1, 3, nan, -0.5}},
		{d: ir.I32, xi: []int64{-1, 5, 0, 7, math.MinInt32}, yi: []int64{1, -5, 0, 3, math.MaxInt32},
			imin: []int64{-1, -5, 0, 3, math.MinInt32}, imax: []int64{1, 5, 0, 7, math.MaxInt32}},
		{d: ir.U64, xi: []int64{-1, 5, math.MinInt64, 7, 0}, yi: []int64{1, -5, 1, 3, 0},
			imin: []int64{1, 5, 1, 3, 0}, imax: []int64{-1, -5, math.MinInt64, 7, 0}},
	}
	const n = 5
	for _, c := range cases {
		for _, kind := range []ir.Kind{ir.OpMin, ir.OpMax} {
			k := newKernel("minmax", param("x", ptr(c.d)), param("y", ptr(c.d)), param("out", ptr(c.d)))
			offs := k.arange(n)
			a := k.load(k.addptr(k.arg(0), offs), nil, nil)
			b := k.load(k.addptr(k.arg(1), offs), nil, nil)
			k.store(k.addptr(k.arg(2), offs), k.bin(kind, a, b), nil)
			m := k.ret()
			out := NewBuffer(c.d, n)
			if c.x != nil {
				require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, FromFloat64(c.d, c.x), FromFloat64(c.d, c.y), out))
				want := c.wmin
				if kind == ir.OpMax {
					want = c.wmax
				}
				for j, w := range want {
					if g := out.Float64()[j]; !(g == w || g != g && w != w) {
						t.Errorf("%v %s element %d: got %v, want %v", c.d, kind, j, g, w)
					}
				}
				continue
			}
			require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, FromInt64(c.d, c.xi), FromInt64(c.d, c.yi), out))
			want := c.imin
			if kind == ir.OpMax {
				want = c.imax
			}
			require.Equal(t, want, out.Int64(), "%v %s", c.d, kind)
		}
	}
}

// TestSelect checks select on float and integer tiles, with a tile and with
// a scalar condition.
func TestSelect(t *testing.T) {
	const n = 4
	for _, d := range []ir.DType{ir.F32, ir.I32} {
		for _, scalar := range []bool{false, true} {
			k := newKernel("sel", param("x", ptr(d)), param("y", ptr(d)), param("out", ptr(d)))
			offs := k.arange(n)
			a := k.load(k.addptr(k.arg(0), offs), nil, nil)
			b := k.load(k.addptr(k.arg(1), offs), nil, nil)
			cond := k.cmp("lt", offs, k.ci(2)) // 1 1 0 0
			if scalar {
				cond = k.cmp("lt", k.pid(0), k.ci(1)) // 1 in CTA 0
			}
			s := k.Value(ir.OpSelect, a.Type, []*ir.Value{cond, a, b}, nil)
			k.store(k.addptr(k.arg(2), offs), s, nil)
			m := k.ret()
			x, y := FromInt64(d, []int64{1, 2, 3, 4}), FromInt64(d, []int64{-1, -2, -3, -4})
			out := NewBuffer(d, n)
			require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, x, y, out))
			want := []float64{1, 2, -3, -4}
			if scalar {
				want = []float64{1, 2, 3, 4}
			}
			require.Equal(t, want, out.Float64(), "%v scalar=%v", d, scalar)
		}
	}
}

// TestStoreConverts stores values through pointers to buffers of another
// dtype: floats are rounded to it, integers wrapped to its value set, and
// masked-off lanes keep what the buffer held.
func TestStoreConverts(t *testing.T) {
	const n = 4
	cases := []struct {
		val, buf ir.DType
		xs, want []float64
	}{
		{ir.F32, ir.BF16, []float64{1 + 1.0/256, 1 + 3.0/256, -2.5, 7}, []float64{1, 1 + 4.0/256, -2.5, -1}},
		{ir.F32, ir.F32, []float64{0.1, 2, 3, 4}, []float64{float64(float32(0.1)), 2, 3, -1}},
		{ir.I32, ir.I8, []float64{127, 128, -129, 5}, []float64{127, -128, 127, -1}},
		{ir.I32, ir.I64, []float64{-3, 1 << 30, 7, 5}, []float64{-3, 1 << 30, 7, -1}},
	}
	for _, c := range cases {
		k := newKernel("st", param("x", ptr(c.val)), param("out", ptr(c.buf)))
		offs := k.arange(n)
		x := k.load(k.addptr(k.arg(0), offs), nil, nil)
		k.store(k.addptr(k.arg(1), offs), x, k.cmp("lt", offs, k.ci(3)))
		m := k.ret()
		out := FromFloat64(c.buf, []float64{-1, -1, -1, -1})
		require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, FromFloat64(c.val, c.xs), out))
		require.Equal(t, c.want, out.Float64(), "%v into %v", c.val, c.buf)
	}
}

// TestErf checks erf against math.Erf, rounded to the dtype as the other
// unary ops are, on random inputs of |x| up to 6 (erf is 1 to f32 beyond
// about 3.9), the special values and the tails, for f32, f16, bf16 and f64.
func TestErf(t *testing.T) {
	const n = 256
	r := rand.New(rand.NewSource(7))
	xs := make([]float64, n)
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 6, -6, 3.9, -3.9,
		1e-30, -1e-30, 0.875, -0.875, 100}
	copy(xs, special)
	for i := len(special); i < n; i++ {
		xs[i] = -6 + 12*r.Float64()
	}
	for _, d := range []ir.DType{ir.F32, ir.F16, ir.BF16, ir.F64} {
		k := newKernel("erf", param("x", ptr(d)), param("out", ptr(d)))
		offs := k.arange(n)
		x := k.load(k.addptr(k.arg(0), offs), nil, nil)
		k.store(k.addptr(k.arg(1), offs), k.Value(ir.OpErf, x.Type, []*ir.Value{x}, nil), nil)
		in, out := FromFloat64(d, xs), NewBuffer(d, n)
		require.NoError(t, launchT(t, k.ret(), [3]int{1, 1, 1}, in, out), "%v", d)
		got := out.Float64()
		for i, x := range in.Float64() {
			want := d.Round(math.Erf(x))
			if math.IsNaN(want) {
				require.True(t, math.IsNaN(got[i]), "%v erf(%v) = %v", d, x, got[i])
				continue
			}
			require.Equal(t, want, got[i], "%v erf(%v)", d, x)
			require.Equal(t, math.Signbit(want), math.Signbit(got[i]), "%v erf(%v) sign", d, x)
		}
	}
}

// fmaKernel stores fma(x, y, z) of n elements of d; scalarC makes the
// addend one scalar, z[0], that the interpreter broadcasts.
func fmaKernel(d ir.DType, n int, scalarC bool) *ir.Module {
	k := newKernel("fma", param("x", ptr(d)), param("y", ptr(d)), param("z", ptr(d)), param("out", ptr(d)))
	offs := k.arange(n)
	x := k.load(k.addptr(k.arg(0), offs), nil, nil)
	y := k.load(k.addptr(k.arg(1), offs), nil, nil)
	var z *ir.Value
	if scalarC {
		z = k.splat(k.load(k.addptr(k.arg(2), k.ci(0)), nil, nil), []int{n})
	} else {
		z = k.load(k.addptr(k.arg(2), offs), nil, nil)
	}
	k.store(k.addptr(k.arg(3), offs), k.Value(ir.OpFMA, x.Type, []*ir.Value{x, y, z}, nil), nil)
	return k.ret()
}

// ratFMA32 is a*b + c exactly (math/big), rounded to f32 by big.Rat.Float32
// (to nearest, ties to even, subnormals kept): a reference independent of
// ir.DType.FMA.
func ratFMA32(a, b, c float64) float64 {
	x := new(big.Rat).Mul(new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(b))
	f, _ := x.Add(x, new(big.Rat).SetFloat64(c)).Float32()
	return float64(f)
}

// TestFMA checks the interpreter's fma rounds a*b + c once: in f32 against
// math/big's exact sum rounded to f32, on cases where the product's low bits
// decide the rounding (the exact sum within 2^-70 of an f32 tie, which
// float64 arithmetic rounds onto the tie) and on random operands; in f16,
// bf16 and f64 against ir.DType.FMA (tested against math/big in package ir)
// and pinned hard cases; with the addend a tile and a broadcast scalar.
func TestFMA(t *testing.T) {
	const n = 512
	r := rand.New(rand.NewSource(11))
	f32 := func(x float64) float64 { return float64(float32(x)) }
	// a = 1 + u 2^-23, b = (1 - u 2^-23) 2^(e-24): a*b = 2^(e-24) (1 - u^2 2^-46),
	// just below half an ulp of c = 2^e (1 + k 2^-23)
	hard := func() (a, b, c float64) {
		u := float64(1 + r.Intn(300))
		e := r.Intn(40) - 20
		a = 1 + u*0x1p-23
		b = math.Ldexp(1-u*0x1p-23, e-24)
		c = math.Ldexp(1+float64(r.Intn(1<<23))*0x1p-23, e)
		if r.Intn(2) == 0 {
			a = -a
		}
		if r.Intn(2) == 0 {
			c = -c
		}
		return a, b, c
	}
	xs, ys, zs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range xs {
		if i%2 == 0 {
			xs[i], ys[i], zs[i] = hard()
		} else {
			xs[i] = f32((r.Float64()*2 - 1) * math.Pow(2, float64(r.Intn(60)-30)))
			ys[i] = f32((r.Float64()*2 - 1) * math.Pow(2, float64(r.Intn(60)-30)))
			zs[i] = f32(-xs[i] * ys[i] * (1 + (r.Float64()-0.5)*0x1p-20)) // cancellation
		}
	}
	k := fmaKernel(ir.F32, n, false)
	x, y, z, out := FromFloat64(ir.F32, xs), FromFloat64(ir.F32, ys), FromFloat64(ir.F32, zs), NewBuffer(ir.F32, n)
	require.NoError(t, launchT(t, k, [3]int{1, 1, 1}, x, y, z, out))
	twice := 0
	for i, got := range out.Float64() {
		want := ratFMA32(xs[i], ys[i], zs[i])
		require.Equal(t, want, got, "fma(%v, %v, %v)", xs[i], ys[i], zs[i])
		if f32(math.FMA(xs[i], ys[i], zs[i])) != want {
			twice++
		}
	}
	require.Greater(t, twice, n/20, "float64's FMA rounded to f32 again was wrong on only %d of %d", twice, n)

	// pinned: the product's last bits decide against the tie
	for _, c := range []struct {
		d          ir.DType
		a, b, c, w float64
	}{
		{ir.F32, 1 + 0x1p-23, 0x1p-24 * (1 - 0x1p-23), 1 + 0x1p-23, 1 + 0x1p-23},
		{ir.F32, 3, 0x1.555556p-2, -1, 0x1p-25}, // 3 * f32(1/3) - 1: mul then add gives 0
		{ir.F16, 1 + 0x1p-10, 0x1p-11 * (1 - 0x1p-10), 1 + 0x1p-10, 1 + 0x1p-10},
		{ir.BF16, 1.75, 1.15625, -0x1p-100, 2 + 2.0/128},
		{ir.F64, 0.1, 10, -1, math.FMA(0.1, 10, -1)},
	} {
		out := NewBuffer(c.d, 1)
		require.NoError(t, launchT(t, fmaKernel(c.d, 1, false), [3]int{1, 1, 1},
			FromFloat64(c.d, []float64{c.a}), FromFloat64(c.d, []float64{c.b}), FromFloat64(c.d, []float64{c.c}), out))
		require.Equal(t, c.w, out.Float64()[0], "%v fma(%v, %v, %v)", c.d, c.a, c.b, c.c)
	}

	// every dtype, addend a tile or a broadcast scalar, specials included
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 65504, 1e-7}
	for _, d := range []ir.DType{ir.F16, ir.BF16, ir.F32, ir.F64} {
		for _, scalar := range []bool{false, true} {
			for i := range xs {
				xs[i], ys[i], zs[i] = d.Round(r.NormFloat64()*8), d.Round(r.NormFloat64()), d.Round(r.NormFloat64()*8)
				if i < len(special)*len(special) {
					xs[i], zs[i] = special[i%len(special)], special[i/len(special)]
				}
			}
			x, y, z, out := FromFloat64(d, xs), FromFloat64(d, ys), FromFloat64(d, zs), NewBuffer(d, n)
			require.NoError(t, launchT(t, fmaKernel(d, n, scalar), [3]int{1, 1, 1}, x, y, z, out), "%v", d)
			xv, yv, zv := x.Float64(), y.Float64(), z.Float64()
			for i, got := range out.Float64() {
				c := zv[i]
				if scalar {
					c = zv[0]
				}
				want := d.FMA(xv[i], yv[i], c)
				if math.IsNaN(want) {
					require.True(t, math.IsNaN(got), "%v fma(%v, %v, %v) = %v", d, xv[i], yv[i], c, got)
					continue
				}
				require.Equal(t, want, got, "%v fma(%v, %v, %v)", d, xv[i], yv[i], c)
				require.Equal(t, math.Signbit(want), math.Signbit(got), "%v fma(%v, %v, %v) sign", d, xv[i], yv[i], c)
			}
		}
	}
}

package tests

// The math builtins of issue 35: floor, ceil, trunc, round, sqrt_rn,
// div_rn, clamp, isnan, isinf, umulhi, softmax. Each is checked on the
// interpreter against Go's math in float64 over sampled f32 values of every
// exponent, subnormals and the special values, and on the GPU (when
// present) against the interpreter bit for bit.

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

const mathSrc = `
kernel unary_f32(x *f32, y *f32, n i32, OP const i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    v := load(x + offs, mask: m)
    r := zeros([1024], f32)
    if OP == 0 { r = floor(v) }
    if OP == 1 { r = ceil(v) }
    if OP == 2 { r = trunc(v) }
    if OP == 3 { r = round(v) }
    if OP == 4 { r = sqrt_rn(v) }
    if OP == 5 { r = where(isnan(v), 1.0, 0.0) }
    if OP == 6 { r = where(isinf(v), 1.0, 0.0) }
    store(y + offs, r, mask: m)
}

kernel round_f64(x *f64, y *f64, n i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    store(y + offs, round(load(x + offs, mask: m)) + floor(load(x + offs, mask: m)) * 0.0, mask: m)
}

kernel binary_f32(x *f32, z *f32, y *f32, n i32, OP const i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    a := load(x + offs, mask: m)
    b := load(z + offs, mask: m)
    r := zeros([1024], f32)
    if OP == 0 { r = div_rn(a, b) }
    if OP == 1 { r = clamp(a, -1.5, b) }
    store(y + offs, r, mask: m)
}

kernel umulhi_k(x *u32, z *i32, y *u32, yi *i32, p *u64, q *u64, r *u64, n i32) {
    offs := program_id(0) * 1024 + arange(0, 1024)
    m := offs < n
    a := load(x + offs, mask: m)
    b := load(z + offs, mask: m)
    store(y + offs, umulhi(a, cast(b, u32)), mask: m)
    store(yi + offs, umulhi(cast(a, i32), b), mask: m)
    store(r + offs, umulhi(load(p + offs, mask: m), load(q + offs, mask: m)), mask: m)
}

kernel softmax_0(x *f32, y *f32, IEEE const i1) {
    r := arange(0, 16)
    c := arange(0, 32)
    offs := r[:, None] * 32 + c[None, :]
    store(y + offs, softmax(load(x + offs), ieee_rounding: IEEE))
}

kernel softmax_1(x *f32, y *f32, IEEE const i1) {
    r := arange(0, 16)
    c := arange(0, 32)
    offs := r[:, None] * 32 + c[None, :]
    store(y + offs, softmax(load(x + offs), dim: -1, keep_dims: true, ieee_rounding: IEEE))
}
`

// mathInputs is n f32 values: the special ones (+-0, +-inf, NaN, the
// smallest and largest subnormals and normals, halves, integers near 2^23),
// then random ones with a uniform exponent over the whole f32 range
// (subnormals included) and random signs, a quarter of them in [-4, 4]
// where the rounding functions have their fractions.
func mathInputs(n int, seed uint64) []float64 {
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		0x1p-149, -0x1p-149, 0x1.fffffcp-127, 0x1p-126, -0x1p-126, math.MaxFloat32, -math.MaxFloat32,
		0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 0x1p23, 0x1p23 + 1, 0x1p23 - 0.5, -(0x1p23 - 0.5),
		0x1p22 + 0.5, -(0x1p22 + 0.5), 1, -1, 0.99999994, -0.99999994}
	r := rand.New(rand.NewPCG(seed, 35))
	xs := make([]float64, n)
	copy(xs, special)
	for i := len(special); i < n; i++ {
		var x float64
		if i%4 == 0 {
			x = float64(float32((r.Float64()*2 - 1) * 4))
		} else {
			x = float64(math.Float32frombits(uint32(r.Uint64()) &^ (1 << 31)))
			if math.IsNaN(x) || math.IsInf(x, 0) {
				x = 1
			}
		}
		if r.IntN(2) == 0 {
			x = -x
		}
		xs[i] = x
	}
	return xs
}

func runMath(t *testing.T, dev tle.Device, prog *tle.Program, kernel string, n int, defines map[string]string, args map[string]any) {
	t.Helper()
	k, err := prog.Kernel(kernel)
	require.NoError(t, err)
	err = k.Run(dev, [3]int{(n + 1023) / 1024, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: defines}, args)
	require.NoError(t, err, "%s on %s", kernel, dev.Name())
}

// sameF32 is bit equality of two f32 results held as float64 (any NaN
// equals any NaN).
func sameF32(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

type mathCase struct {
	name string
	op   string
	ref  func(x float64) float64
}

var unaryCases = []mathCase{
	{"floor", "0", math.Floor},
	{"ceil", "1", math.Ceil},
	{"trunc", "2", math.Trunc},
	{"round", "3", math.Round},
	{"sqrt_rn", "4", math.Sqrt},
	{"isnan", "5", func(x float64) float64 { return b2f(math.IsNaN(x)) }},
	{"isinf", "6", func(x float64) float64 { return b2f(math.IsInf(x, 0)) }},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

const mathN = 100_000

// TestMathUnaryInterp: floor, ceil, trunc, round, isnan and isinf are exact
// and sqrt_rn correctly rounded (0 ulp from Go's float64 result rounded to
// f32) over mathInputs.
func TestMathUnaryInterp(t *testing.T) {
	prog, err := tle.Parse("math.tle", []byte(mathSrc))
	require.NoError(t, err)
	xs := mathInputs(mathN, 1)
	for _, c := range unaryCases {
		y := tle.NewTensor(mathN)
		runMath(t, tle.CPU(), prog, "unary_f32", mathN, map[string]string{"OP": c.op},
			map[string]any{"x": &tle.Tensor{Shape: []int{mathN}, Data: xs}, "y": y, "n": mathN})
		bad := 0
		for i, x := range xs {
			if want := float64(float32(c.ref(x))); !sameF32(y.Data[i], want) {
				if bad < 5 {
					t.Errorf("%s(%v) = %v, want %v", c.name, x, y.Data[i], want)
				}
				bad++
			}
		}
		require.Zero(t, bad, c.name)
	}
	// round in f64: ties away from zero, -0 kept
	in := []float64{0.5, -0.5, 2.5, -2.5, 0.49999999999999994, -0.3, math.Copysign(0, -1), 0x1p52 + 1, 1e300, math.Inf(-1), math.NaN()}
	y := tle.NewTensor(len(in))
	runMath(t, tle.CPU(), prog, "round_f64", len(in), nil, map[string]any{"x": &tle.Tensor{Shape: []int{len(in)}, Data: in}, "y": y, "n": len(in)})
	for i, x := range in {
		want := math.Round(x)
		if math.IsInf(x, 0) {
			want = math.NaN() // floor(inf) * 0
		}
		require.True(t, sameF32(y.Data[i], want) || math.IsNaN(want) && math.IsNaN(y.Data[i]), "round(%v) = %v", x, y.Data[i])
	}
}

// TestMathBinaryInterp: div_rn is correctly rounded, clamp exact (Go's
// float64 results rounded to f32) over pairs of mathInputs.
func TestMathBinaryInterp(t *testing.T) {
	prog, err := tle.Parse("math.tle", []byte(mathSrc))
	require.NoError(t, err)
	xs, zs := mathInputs(mathN, 2), mathInputs(mathN, 3)
	rand.New(rand.NewPCG(4, 4)).Shuffle(len(zs), func(i, j int) { zs[i], zs[j] = zs[j], zs[i] })
	for _, c := range []struct {
		name, op string
		ref      func(a, b float64) float64
	}{
		{"div_rn", "0", func(a, b float64) float64 { return a / b }},
		{"clamp", "1", func(a, b float64) float64 {
			// maxNum / minNum: a NaN operand yields the other
			lo := a
			if math.IsNaN(a) || a < -1.5 {
				lo = -1.5
			}
			switch {
			case math.IsNaN(b):
				return lo
			case lo == 0 && b == 0:
				return math.Min(lo, b)
			}
			return math.Min(lo, b)
		}},
	} {
		y := tle.NewTensor(mathN)
		runMath(t, tle.CPU(), prog, "binary_f32", mathN, map[string]string{"OP": c.op},
			map[string]any{"x": &tle.Tensor{Shape: []int{mathN}, Data: xs}, "z": &tle.Tensor{Shape: []int{mathN}, Data: zs}, "y": y, "n": mathN})
		bad := 0
		for i := range xs {
			if want := float64(float32(c.ref(xs[i], zs[i]))); !sameF32(y.Data[i], want) {
				if bad < 5 {
					t.Errorf("%s(%v, %v) = %v, want %v", c.name, xs[i], zs[i], y.Data[i], want)
				}
				bad++
			}
		}
		require.Zero(t, bad, c.name)
	}
}

func umulhiInputs(n int) (a, b, p, q []float64, want32, want32i, want64 []float64) {
	r := rand.New(rand.NewPCG(5, 35))
	for i := 0; i < n; i++ {
		x, y := r.Uint32(), r.Uint32()
		if i < 4 {
			x, y = []uint32{0, 1, math.MaxUint32, 1 << 31}[i], []uint32{math.MaxUint32, math.MaxUint32, math.MaxUint32, 1 << 31}[i]
		}
		// 52-bit u64 operands: a float64 tensor holds them exactly
		u, v := r.Uint64()>>12, r.Uint64()>>12
		a, b = append(a, float64(x)), append(b, float64(int32(y)))
		p, q = append(p, float64(u)), append(q, float64(v))
		h := uint32((uint64(x) * uint64(y)) >> 32)
		want32, want32i = append(want32, float64(h)), append(want32i, float64(int32(h)))
		hi, _ := bits.Mul64(u, v)
		want64 = append(want64, float64(hi))
	}
	return
}

// TestUMulHiInterp: the high word of the unsigned product, for u32, i32
// (the bits read as unsigned) and u64.
func TestUMulHiInterp(t *testing.T) {
	prog, err := tle.Parse("math.tle", []byte(mathSrc))
	require.NoError(t, err)
	const n = 4096
	a, b, p, q, w32, w32i, w64 := umulhiInputs(n)
	y, yi, r := tle.NewTensor(n), tle.NewTensor(n), tle.NewTensor(n)
	runMath(t, tle.CPU(), prog, "umulhi_k", n, nil, map[string]any{
		"x": &tle.Tensor{Shape: []int{n}, Data: a}, "z": &tle.Tensor{Shape: []int{n}, Data: b},
		"y": y, "yi": yi, "p": &tle.Tensor{Shape: []int{n}, Data: p}, "q": &tle.Tensor{Shape: []int{n}, Data: q}, "r": r, "n": n})
	require.Equal(t, w32, y.Data)
	require.Equal(t, w32i, yi.Data)
	require.Equal(t, w64, r.Data)
}

// softmaxRef is the float64 softmax of the [16, 32] tile x along dim.
func softmaxRef(x []float64, dim int) []float64 {
	out := make([]float64, len(x))
	lines, length := 16, 32
	at := func(l, k int) int { return l*32 + k }
	if dim == 0 {
		lines, length = 32, 16
		at = func(l, k int) int { return k*32 + l }
	}
	for l := 0; l < lines; l++ {
		m := math.Inf(-1)
		for k := 0; k < length; k++ {
			m = math.Max(m, x[at(l, k)])
		}
		s := 0.0
		for k := 0; k < length; k++ {
			s += math.Exp(x[at(l, k)] - m)
		}
		for k := 0; k < length; k++ {
			out[at(l, k)] = math.Exp(x[at(l, k)]-m) / s
		}
	}
	return out
}

// TestSoftmaxInterp: softmax along either dim of a [16, 32] f32 tile of
// random values in [-20, 20], within 4e-6 relative (the f32 rounding of x - max, up to 32, times exp's slope) of the float64 softmax.
func TestSoftmaxInterp(t *testing.T) {
	testSoftmax(t, tle.CPU(), 4e-6)
}

func testSoftmax(t *testing.T, dev tle.Device, tol float64) {
	prog, err := tle.Parse("math.tle", []byte(mathSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(6, 35))
	x := make([]float64, 16*32)
	for i := range x {
		x[i] = float64(float32(r.Float64()*40 - 20))
	}
	for _, dim := range []int{0, 1} {
		for _, ieee := range []string{"false", "true"} {
			y := tle.NewTensor(16 * 32)
			k, err := prog.Kernel("softmax_" + string(rune('0'+dim)))
			require.NoError(t, err)
			err = k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: map[string]string{"IEEE": ieee}},
				map[string]any{"x": &tle.Tensor{Shape: []int{16 * 32}, Data: x}, "y": y})
			require.NoError(t, err)
			want := softmaxRef(x, dim)
			for i := range want {
				require.InDelta(t, want[i], y.Data[i], tol*math.Max(want[i], 1e-30)+1e-37, "dim %d ieee %s at %d", dim, ieee, i)
			}
		}
	}
}

// TestGPUMath runs the same kernels on the GPU: floor, ceil, trunc, round,
// sqrt_rn, isnan, isinf, div_rn, clamp and umulhi bit for bit as the
// interpreter; softmax within 2e-5 relative (ex2.approx of (x - max) * log2 e, div.full).
func TestGPUMath(t *testing.T) {
	g := tletest.GPU(t)
	prog, err := tle.Parse("math.tle", []byte(mathSrc))
	require.NoError(t, err)
	xs, zs := mathInputs(mathN, 7), mathInputs(mathN, 8)
	both := func(kernel string, defines map[string]string, args func() (map[string]any, *tle.Tensor)) {
		a1, y1 := args()
		a2, y2 := args()
		runMath(t, tle.CPU(), prog, kernel, mathN, defines, a1)
		runMath(t, g, prog, kernel, mathN, defines, a2)
		bad := 0
		for i := range y1.Data {
			if !sameF32(y1.Data[i], y2.Data[i]) {
				if bad < 5 {
					t.Errorf("%s %v: element %d (x = %v): interpreter %v, GPU %v", kernel, defines, i, xs[i], y1.Data[i], y2.Data[i])
				}
				bad++
			}
		}
		require.Zero(t, bad)
	}
	for _, c := range unaryCases {
		both("unary_f32", map[string]string{"OP": c.op}, func() (map[string]any, *tle.Tensor) {
			y := tle.NewTensor(mathN)
			return map[string]any{"x": &tle.Tensor{Shape: []int{mathN}, Data: xs}, "y": y, "n": mathN}, y
		})
	}
	for _, op := range []string{"0", "1"} {
		both("binary_f32", map[string]string{"OP": op}, func() (map[string]any, *tle.Tensor) {
			y := tle.NewTensor(mathN)
			return map[string]any{"x": &tle.Tensor{Shape: []int{mathN}, Data: xs}, "z": &tle.Tensor{Shape: []int{mathN}, Data: zs}, "y": y, "n": mathN}, y
		})
	}
	const n = 4096
	a, b, p, q, w32, w32i, w64 := umulhiInputs(n)
	y, yi, r := tle.NewTensor(n), tle.NewTensor(n), tle.NewTensor(n)
	runMath(t, g, prog, "umulhi_k", n, nil, map[string]any{
		"x": &tle.Tensor{Shape: []int{n}, Data: a}, "z": &tle.Tensor{Shape: []int{n}, Data: b},
		"y": y, "yi": yi, "p": &tle.Tensor{Shape: []int{n}, Data: p}, "q": &tle.Tensor{Shape: []int{n}, Data: q}, "r": r, "n": n})
	require.Equal(t, w32, y.Data)
	require.Equal(t, w32i, yi.Data)
	require.Equal(t, w64, r.Data)
	testSoftmax(t, g, 2e-5)
}

const atomicBitsSrc = `
kernel atomic_bits(acc *i32, x *i32, old *i32, OP const i32) {
    offs := arange(0, 64)
    v := load(x + offs)
    o := zeros([64], i32)
    if OP == 0 { o = atomic_and(acc + offs % 4, v, mask: offs < 60) }
    if OP == 1 { o = atomic_or(acc + offs % 4, v, mask: offs < 60) }
    if OP == 2 { o = atomic_xor(acc + offs % 4, v, mask: offs < 60) }
    store(old + offs, o)
}
`

// TestAtomicBitwiseInterp: atomic_and, atomic_or and atomic_xor of 60 random
// words onto 4 cells (15 each, masked lanes skipped) leave each cell the
// and / or / xor of its start and its 15 words, whatever the order.
func TestAtomicBitwiseInterp(t *testing.T) {
	prog, err := tle.Parse("atomic.tle", []byte(atomicBitsSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(9, 35))
	x := make([]float64, 64)
	for i := range x {
		x[i] = float64(int32(r.Uint32()))
	}
	for op, f := range []func(a, b int32) int32{
		func(a, b int32) int32 { return a & b },
		func(a, b int32) int32 { return a | b },
		func(a, b int32) int32 { return a ^ b },
	} {
		start := []int32{-1, 0, 0x5a5a5a5a, -0x12345678}
		acc := &tle.Tensor{Shape: []int{4}, Data: []float64{-1, 0, 0x5a5a5a5a, -0x12345678}}
		k, err := prog.Kernel("atomic_bits")
		require.NoError(t, err)
		require.NoError(t, k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: map[string]string{"OP": string(rune('0' + op))}},
			map[string]any{"acc": acc, "x": &tle.Tensor{Shape: []int{64}, Data: x}, "old": tle.NewTensor(64)}))
		for c := 0; c < 4; c++ {
			want := start[c]
			for i := c; i < 60; i += 4 {
				want = f(want, int32(x[i]))
			}
			require.Equal(t, float64(want), acc.Data[c], "op %d cell %d", op, c)
		}
	}
}

package tests

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// roundingSrc converts x to a narrower float three ways: rounding toward
// zero (fp_downcast_rounding: "rtz", as a method and as cast), and to
// nearest even spelled out ("rtne") and left out.
const roundingSrc = `
kernel rz(x *X, z *Y, z2 *Y, n *Y, d *Y, X const dtype, Y const dtype) {
    o := arange(0, 1024)
    v := load(x + o)
    store(z + o, v.to(Y, fp_downcast_rounding: "rtz"))
    store(z2 + o, cast(v, Y, fp_downcast_rounding: "rtz"))
    store(n + o, cast(v, Y, fp_downcast_rounding: "rtne"))
    store(d + o, v.to(Y))
}
kernel rzconst(z *f16) {
    store(z + arange(0, 2), cast(0.3, f16, fp_downcast_rounding: "rtz") + zeros([2], f16))
}
`

// rzFormat is a float format as the reference needs it: its precision,
// its smallest normal exponent (2^emin) and its largest finite value.
type rzFormat struct {
	prec uint
	emin int
	max  float64
}

var rzFormats = map[string]rzFormat{
	"f32":  {24, -126, math.MaxFloat32},
	"f16":  {11, -14, 65504},
	"bf16": {8, -126, 0x1.fep127},
}

// rzRef is x rounded toward zero to format f, computed in big.Float: the
// subnormals are multiples of 2^(emin-prec+1), truncated; above the
// largest finite value it is that value.
func rzRef(f rzFormat, x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	var r float64
	if math.Abs(x) < math.Ldexp(1, f.emin) {
		q := math.Ldexp(1, f.emin-int(f.prec)+1)
		r = math.Trunc(x/q) * q
	} else {
		r, _ = new(big.Float).SetPrec(f.prec).SetMode(big.ToZero).SetFloat64(x).Float64()
	}
	if math.Abs(r) > f.max {
		r = math.Copysign(f.max, x)
	}
	return r
}

// rzInputs are n random non-zero values of both signs whose exponents
// span [lo, hi): through the target's subnormals and past its largest
// finite value.
func rzInputs(r *rand.Rand, n, lo, hi int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		x := math.Ldexp(1+r.Float64(), lo+r.IntN(hi-lo))
		if r.IntN(2) == 0 {
			x = -x
		}
		xs[i] = x
	}
	return xs
}

// decodeOut reads an output buffer of dtype y as float64.
func decodeOut(y string, buf any) []float64 {
	var out []float64
	switch b := buf.(type) {
	case []float32:
		for _, v := range b {
			out = append(out, float64(v))
		}
	case []uint16:
		f := map[string]floats.Format{"f16": floats.F16, "bf16": floats.BF16}[y]
		for _, v := range b {
			out = append(out, floats.Decode(f, v))
		}
	}
	return out
}

func checkRounding(t *testing.T, dev tle.Device) {
	prog, err := tle.Parse("rounding.tle", []byte(roundingSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 2))
	for _, c := range []struct {
		x, y   string
		lo, hi int
	}{
		{"f32", "f16", -28, 18},
		{"f32", "bf16", -135, 128},
		{"f64", "f32", -152, 130},
		{"f64", "f16", -28, 18},
		{"f64", "bf16", -135, 128},
	} {
		const n = 1024
		xs := rzInputs(r, n, c.lo, c.hi)
		var x any = xs
		if c.x == "f32" {
			x32 := make([]float32, n)
			for i, v := range xs {
				x32[i] = float32(v)
				xs[i] = float64(x32[i])
			}
			x = x32
		}
		mk := func() any {
			if c.y == "f32" {
				return make([]float32, n)
			}
			return make([]uint16, n)
		}
		z, z2, nn, d := mk(), mk(), mk(), mk()
		k, err := prog.Kernel("rz")
		require.NoError(t, err)
		require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: map[string]string{"X": c.x, "Y": c.y}},
			map[string]any{"x": x, "z": z, "z2": z2, "n": nn, "d": d}), "%s to %s", c.x, c.y)
		zf, z2f, nf, df := decodeOut(c.y, z), decodeOut(c.y, z2), decodeOut(c.y, nn), decodeOut(c.y, d)
		differ := 0
		for i, v := range xs {
			want := rzRef(rzFormats[c.y], v)
			require.Equal(t, want, zf[i], "%s %v to %s rounding toward zero", c.x, v, c.y)
			require.Equal(t, want, z2f[i], "%s %v to %s: cast rounding toward zero", c.x, v, c.y)
			require.Equal(t, df[i], nf[i], "%s %v to %s: \"rtne\" is the default", c.x, v, c.y)
			require.LessOrEqual(t, math.Abs(zf[i]), math.Abs(v))
			if zf[i] != nf[i] {
				differ++
			}
		}
		require.Greater(t, differ, n/4, "%s to %s: rounding toward zero and to nearest differ on few inputs", c.x, c.y)
	}
	// a compile-time operand rounds on the device, toward zero: 0.3 (as
	// f32) lies below its nearest f16, 0x34cd, so toward zero is 0x34cc
	zc := make([]uint16, 2)
	k, err := prog.Kernel("rzconst")
	require.NoError(t, err)
	require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, map[string]any{"z": zc}))
	want := rzRef(rzFormats["f16"], float64(float32(0.3)))
	require.Equal(t, floats.Decode(floats.F16, 0x34cc), want)
	require.Equal(t, []float64{want, want}, decodeOut("f16", zc))
}

// TestRoundingInterp checks cast's fp_downcast_rounding on the
// interpreter against a big.Float reference.
func TestRoundingInterp(t *testing.T) {
	t.Parallel()
	checkRounding(t, tle.CPU())
}

// TestGPURounding checks it on the GPU (cvt.rz).
func TestGPURounding(t *testing.T) {
	g := tletest.GPU(t)
	checkRounding(t, g)
}

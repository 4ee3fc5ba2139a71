package tutorials

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// mxfp4Value is an fp4 e2m1 code's value (the OCP MX table).
func mxfp4Value(c uint8) float64 {
	v := [8]float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}[c&7]
	if c&8 != 0 {
		return -v
	}
	return v
}

// e4m3Value is an fp8 e4m3 (fn) code's value; the NaN codes are not drawn.
func e4m3Value(c uint8) float64 {
	e, m := int(c>>3&15), float64(c&7)
	v := math.Ldexp(m/8, -6)
	if e > 0 {
		v = math.Ldexp(1+m/8, e-7)
	}
	if c&0x80 != 0 {
		return -v
	}
	return v
}

// TestMatmulMXFP4 multiplies random fp4 bytes (every code) by random e4m3
// codes, with e8m0 scales of 2^-12 .. 2^12, at sizes that are not
// multiples of the blocks (the last K block is half masked), against the
// float64 reference of the emulation: each value times its scale rounded
// to bf16, each K block's products summed exactly and added to the f32
// accumulator. The interpreter sums in float64 too; the GPU's f32 sums are
// bounded by 2^-16 of the products' magnitude.
func TestMatmulMXFP4(t *testing.T) {
	k := kernel(t, "matmul_mxfp4.tle", "matmul_mxfp4")
	r := rand.New(rand.NewPCG(35, 4))
	const M, N, K = 48, 40, 96
	a := make([]uint8, M*K/2)
	for i := range a {
		a[i] = uint8(r.IntN(256))
	}
	b := make([]uint8, K*N)
	for i := range b {
		for b[i] = uint8(r.IntN(256)); b[i]&0x7f == 0x7f; b[i] = uint8(r.IntN(256)) {
		}
	}
	scales := func(n int) []uint8 {
		s := make([]uint8, n)
		for i := range s {
			s[i] = uint8(127 - 12 + r.IntN(25))
		}
		return s
	}
	as, bs := scales(M*K/32), scales(N*K/32)
	// the accumulator is f32 between the BK blocks of the loop
	const BK = 64
	want, mag := make([]float64, M*N), make([]float64, M*N)
	for i := range M {
		for j := range N {
			for k0 := 0; k0 < K; k0 += BK {
				s := 0.0
				for l := k0; l < min(k0+BK, K); l++ {
					x := mxfp4Value(a[i*K/2+l/2] >> (4 * (l % 2)) & 15)
					x = ir.BF16.Round(x * math.Ldexp(1, int(as[i*K/32+l/32])-127))
					y := ir.BF16.Round(e4m3Value(b[l*N+j]) * math.Ldexp(1, int(bs[j*K/32+l/32])-127))
					s += x * y
					mag[i*N+j] += math.Abs(x * y)
				}
				want[i*N+j] = float64(float32(want[i*N+j] + s))
			}
		}
	}
	defs := map[string]string{"BM": "32", "BN": "32", "BK": "64"}
	for _, dev := range devices(t, "matmul_mxfp4") {
		c := make([]float32, M*N)
		for i := range c {
			c[i] = float32(math.NaN())
		}
		err := k.Run(dev, [3]int{cdiv(M, 32), cdiv(N, 32), 1}, tle.CompileOptions{Defines: defs},
			map[string]any{"a": a, "a_scale": as, "b": b, "b_scale": bs, "c": c, "M": M, "N": N, "K": K})
		require.NoError(t, err, dev.Name())
		tol := 0x1p-16
		if strings.Contains(dev.Name(), "interpreter") {
			tol = 0x1p-40
		}
		for i, w := range want {
			require.InDelta(t, w, float64(c[i]), tol*mag[i]+math.Abs(w)*0x1p-23, "%s: C[%d, %d]", dev.Name(), i/N, i%N)
		}
	}
}

// TestMatmulMXFP4PTX: the tutorial compiles through llc-19 to bf16 mma.sync
// (its operands are computed in registers, so the dot stays off wgmma),
// fed by the fp8 upcast (cvt.rn.f16x2.e4m3x2) and the scaled values
// rounded to bf16.
func TestMatmulMXFP4PTX(t *testing.T) {
	tletest.NeedLLC(t)
	b, err := kernel(t, "matmul_mxfp4.tle", "matmul_mxfp4").Compile(tle.CompileOptions{Defines: map[string]string{"BM": "64", "BN": "64", "BK": "64"}}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for _, w := range []string{
		`mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32`,
		`cvt\.rn\.f16x2\.e4m3x2`,
		`cvt\.rn\.bf16(x2)?\.f32`,
	} {
		require.Regexp(t, tletest.PTXLine(w), b.PTX, "no %s", w)
	}
	require.NotRegexp(t, tletest.PTXLine(`wgmma`), b.PTX)
}

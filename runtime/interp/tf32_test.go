package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// tf32Ref is acc + a[M,K] x b[K,N] in float64 with the operands rounded to
// tf32 (tf32 products are exact in float64), rounded once to f32: the
// numerics of an f32 dot.
func tf32Ref(M, N, K int, a, b func(i, j int) float64, acc float64) []float64 {
	out := make([]float64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := 0.0
			for q := 0; q < K; q++ {
				s += floats.RoundTF32(a(i, q)) * floats.RoundTF32(b(q, j))
			}
			out[i*N+j] = float64(float32(s + acc))
		}
	}
	return out
}

// checkTF32Dot compares c with the tf32 reference (to the last f32 bit but
// for the float64 summation order) and requires it to be far from the
// product of the unrounded f32 operands, so that the test fails if the
// operands are not rounded.
func checkTF32Dot(t *testing.T, M, N, K int, a, b func(i, j int) float64, acc float64, c []float64) {
	t.Helper()
	want := tf32Ref(M, N, K, a, b, acc)
	var off, scale float64
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := acc
			for q := 0; q < K; q++ {
				s += a(i, q) * b(q, j)
			}
			g := c[i*N+j]
			require.InDelta(t, want[i*N+j], g, 1e-6*(1+math.Abs(g)), "C[%d,%d]", i, j)
			off += (g - s) * (g - s)
			scale += s * s
		}
	}
	// tf32 keeps 11 significant bits: the products' relative error is
	// about 2^-11 each, f32's 2^-24
	rel := math.Sqrt(off / scale)
	require.Greater(t, rel, 1e-5, "the f32 dot matches the unrounded f32 product: its operands were not rounded to tf32")
	require.Less(t, rel, 1e-3)
}

// f32 randoms with every mantissa bit in use (not already tf32 values).
func f32randoms(r *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(float32(r.NormFloat64()))
	}
	return xs
}

// A dot of f32 tiles rounds its operands to tf32, as the GPU's tensor cores
// do (cvt.rna.tf32.f32), before the exact products and the one rounding to
// f32.
func TestDotF32RoundsToTF32(t *testing.T) {
	const M, N, K = 32, 16, 48
	k := newKernel("dot_f32", param("a", ptr(ir.F32)), param("b", ptr(ir.F32)), param("c", ptr(ir.F32)))
	ta := k.load(k.addptr(k.arg(0), k.offs2(k.arange(M), k.arange(K), k.ci(K))), nil, nil)
	tb := k.load(k.addptr(k.arg(1), k.offs2(k.arange(K), k.arange(N), k.ci(N))), nil, nil)
	acc := k.splat(k.cf(0.25), []int{M, N})
	k.store(k.addptr(k.arg(2), k.offs2(k.arange(M), k.arange(N), k.ci(N))), k.dot(ta, tb, acc), nil)
	r := rand.New(rand.NewSource(11))
	av, bv := f32randoms(r, M*K), f32randoms(r, K*N)
	// ties of the rounding: away from zero (the tie below an even
	// mantissa would go down under ties-to-even)
	av[0], av[1], bv[0] = 1+0x1p-11, -(1 + 0x1p-11), 1+0x1p-11
	A, B, C := FromFloat64(ir.F32, av), FromFloat64(ir.F32, bv), NewBuffer(ir.F32, M*N)
	require.NoError(t, launchT(t, k.ret(), [3]int{1, 1, 1}, A, B, C))
	checkTF32Dot(t, M, N, K, func(i, q int) float64 { return av[i*K+q] }, func(q, j int) float64 { return bv[q*N+j] }, 0.25, C.Float64())
	require.Equal(t, 1+0x1p-10, floats.RoundTF32(av[0]))
}

// wgmma with f32 operands in shared memory (b stored [N, K]: trans_b) and
// a in registers rounds them to tf32 like dot.
func TestWgmmaF32RoundsToTF32(t *testing.T) {
	const M, N, K = 64, 16, 32
	for _, aInRegs := range []bool{false, true} {
		k := newKernel("wg", param("a", ptr(ir.F32)), param("bt", ptr(ir.F32)), param("c", ptr(ir.F32)))
		ta := k.load(k.addptr(k.arg(0), k.offs2(k.arange(M), k.arange(K), k.ci(K))), nil, nil)
		a := ta
		if !aInRegs {
			a = k.alloc("sa", []int{M, K}, ir.F32)
			k.localStore(a, ta)
		}
		sb := k.alloc("sb", []int{N, K}, ir.F32)
		k.localStore(sb, k.load(k.addptr(k.arg(1), k.offs2(k.arange(N), k.arange(K), k.ci(K))), nil, nil))
		acc := k.splat(k.cf(0), []int{M, N})
		res := k.Value(ir.OpWgmma, acc.Type, []*ir.Value{a, sb, acc}, ir.Attrs{"trans_b": true})
		k.Create(ir.OpWgmmaWait, nil, nil, ir.Attrs{"pending": int64(0)})
		k.store(k.addptr(k.arg(2), k.offs2(k.arange(M), k.arange(N), k.ci(N))), res, nil)
		r := rand.New(rand.NewSource(12))
		av, btv := f32randoms(r, M*K), f32randoms(r, N*K)
		A, BT, C := FromFloat64(ir.F32, av), FromFloat64(ir.F32, btv), NewBuffer(ir.F32, M*N)
		require.NoError(t, launchT(t, k.ret(), [3]int{1, 1, 1}, A, BT, C))
		checkTF32Dot(t, M, N, K, func(i, q int) float64 { return av[i*K+q] }, func(q, j int) float64 { return btv[j*K+q] }, 0, C.Float64())
	}
}

package kda

import (
	"math"
	"math/rand/v2"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// reference is KDA forward in float64, token by token (kda.md's math), on
// the inputs rounded to the kernel's dtypes. It returns o [B, T, H, V] and
// the final state [N, H, V, K].
func reference(in *Inputs, p Params) (o, ht []float64) { return referenceHeads(in, p, nil) }

// referenceHeads computes only the heads for which head returns true (all
// when head is nil); the others are left zero.
func referenceHeads(in *Inputs, p Params, head func(int) bool) (o, ht []float64) {
	B, T, H, K := in.Q.Shape[0], in.Q.Shape[1], in.Q.Shape[2], in.Q.Shape[3]
	V := in.V.Shape[3]
	bf := func(x float64) float64 { return ir.BF16.Round(x) }
	f32 := func(x float64) float64 { return ir.F32.Round(x) }
	cu := in.CuSeqlens
	if cu == nil {
		cu = make([]int64, B+1)
		for i := range cu {
			cu[i] = int64(i * T)
		}
	}
	N := len(cu) - 1
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	stateRound := f32
	if p.StateDType == StateBF16 {
		stateRound = bf
	}
	o = make([]float64, B*T*H*V)
	ht = make([]float64, N*H*V*K)
	lb := f32(p.LowerBound)
	scale := f32(p.Scale)
	for n := 0; n < N; n++ {
		for h := 0; h < H; h++ {
			if head != nil && !head(h) {
				continue
			}
			S := make([]float64, K*V) // S[c*V + j]
			if in.H0 != nil {
				for j := 0; j < V; j++ {
					for c := 0; c < K; c++ {
						S[c*V+j] = stateRound(in.H0.Data[((n*H+h)*V+j)*K+c])
					}
				}
			}
			ea := math.Exp(f32(in.ALog.Data[h]))
			for t := cu[n]; t < cu[n+1]; t++ {
				base := (int(t)*H + h) * K
				q := make([]float64, K)
				k := make([]float64, K)
				a := make([]float64, K)
				var qq, kk float64
				for c := 0; c < K; c++ {
					q[c], k[c] = bf(in.Q.Data[base+c]), bf(in.K.Data[base+c])
					qq += q[c] * q[c]
					kk += k[c] * k[c]
				}
				rq, rk := 1/math.Sqrt(qq+1e-6), 1/math.Sqrt(kk+1e-6)
				for c := 0; c < K; c++ {
					q[c] *= rq
					k[c] *= rk
					a[c] = lb * sigmoid(ea*(bf(in.G.Data[base+c])+f32(in.DtBias.Data[h*K+c])))
				}
				b := sigmoid(bf(in.Beta.Data[int(t)*H+h]))
				vb := (int(t)*H + h) * V
				for c := 0; c < K; c++ {
					e := math.Exp(a[c])
					for j := 0; j < V; j++ {
						S[c*V+j] *= e
					}
				}
				for j := 0; j < V; j++ {
					var sk float64
					for c := 0; c < K; c++ {
						sk += S[c*V+j] * k[c]
					}
					u := b * (bf(in.V.Data[vb+j]) - sk)
					var oj float64
					for c := 0; c < K; c++ {
						S[c*V+j] += k[c] * u
						oj += S[c*V+j] * q[c]
					}
					o[vb+j] = scale * oj
				}
			}
			for j := 0; j < V; j++ {
				for c := 0; c < K; c++ {
					ht[((n*H+h)*V+j)*K+c] = S[c*V+j]
				}
			}
		}
	}
	return o, ht
}

// randomInputs draws inputs as kda.md says: q, k = normalize(randn) in bf16;
// v, g, beta = randn; A_log = rand(H); dt_bias = rand(H, K); h0 = randn
// (when asked for). Values are rounded to the kernel's dtypes.
func randomInputs(r *rand.Rand, B, T, H, K, V int, cu []int64, withH0 bool, state string) *Inputs {
	randn := func(dt ir.DType, shape ...int) *tle.Tensor {
		t := tle.NewTensor(shape...)
		for i := range t.Data {
			t.Data[i] = dt.Round(r.NormFloat64())
		}
		return t
	}
	unit := func(shape ...int) *tle.Tensor {
		t := tle.NewTensor(shape...)
		for i := range t.Data {
			t.Data[i] = ir.F32.Round(r.Float64())
		}
		return t
	}
	normalized := func() *tle.Tensor {
		t := randn(ir.F64, B, T, H, K)
		for i := 0; i < len(t.Data); i += K {
			var s float64
			for _, x := range t.Data[i : i+K] {
				s += x * x
			}
			s = math.Sqrt(s)
			for c := i; c < i+K; c++ {
				t.Data[c] = ir.BF16.Round(t.Data[c] / s)
			}
		}
		return t
	}
	in := &Inputs{
		Q: normalized(), K: normalized(),
		V: randn(ir.BF16, B, T, H, V), G: randn(ir.BF16, B, T, H, K), Beta: randn(ir.BF16, B, T, H),
		ALog: unit(H), DtBias: unit(H, K), CuSeqlens: cu,
	}
	if withH0 {
		n := B
		if cu != nil {
			n = len(cu) - 1
		}
		dt := ir.F32
		if state == StateBF16 {
			dt = ir.BF16
		}
		in.H0 = randn(dt, n, H, V, K)
	}
	return in
}

// relRMS is ||got - want|| / ||want||.
var relRMS = tletest.RelRMS

package tutorials

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// attentionBwdRef is the backward of causal softmax attention in float64:
// with S = sm_scale Q K^T (j <= i), P = softmax(S) by rows and O = P V
// (attentionRef, which also gives O and the natural log-sum-exp), the
// gradients of sum(O * dO): dV = P^T dO, dP = dO V^T, dS = P * (dP -
// rowsum(dO * O)), dQ = sm_scale dS K, dK = sm_scale dS^T Q. All [BH, S, D].
func attentionBwdRef(bh, s, d int, q, k, v, do []float64, smScale float64) (o, lse, dq, dk, dv []float64) {
	o, lse = attentionRef(bh, s, d, q, k, v, smScale)
	dq, dk, dv = make([]float64, bh*s*d), make([]float64, bh*s*d), make([]float64, bh*s*d)
	p, dp := make([]float64, s), make([]float64, s)
	for h := 0; h < bh; h++ {
		base := h * s * d
		for i := 0; i < s; i++ {
			delta := 0.0
			for c := 0; c < d; c++ {
				delta += do[base+i*d+c] * o[base+i*d+c]
			}
			for j := 0; j <= i; j++ {
				sc, dpij := 0.0, 0.0
				for c := 0; c < d; c++ {
					sc += q[base+i*d+c] * k[base+j*d+c]
					dpij += do[base+i*d+c] * v[base+j*d+c]
				}
				p[j] = math.Exp(sc*smScale - lse[h*s+i])
				dp[j] = dpij
			}
			for j := 0; j <= i; j++ {
				ds := p[j] * (dp[j] - delta)
				for c := 0; c < d; c++ {
					dv[base+j*d+c] += p[j] * do[base+i*d+c]
					dq[base+i*d+c] += smScale * ds * k[base+j*d+c]
					dk[base+j*d+c] += smScale * ds * q[base+i*d+c]
				}
			}
		}
	}
	return o, lse, dq, dk, dv
}

// attnBwdCases are the bindings the tests run: the tutorial's blocks
// (BLOCK_M1 32, BLOCK_N1 128, BLOCK_M2 128, BLOCK_N2 32, BLK_SLICE_FACTOR
// 2) at HEAD_DIM 64 over 256 tokens (two key blocks a head: the second
// program's dK, dV loop has masked and unmasked steps, the first's dQ
// loop too), and smaller blocks without slicing (factor 1) at HEAD_DIM 16
// over 64 tokens and two batches.
var attnBwdCases = []struct {
	z, h, nctx int
	defs       map[string]string
}{
	{1, 2, 256, map[string]string{"BLOCK_M1": "32", "BLOCK_N1": "128", "BLOCK_M2": "128", "BLOCK_N2": "32", "BLK_SLICE_FACTOR": "2", "HEAD_DIM": "64"}},
	{2, 1, 64, map[string]string{"BLOCK_M1": "16", "BLOCK_N1": "32", "BLOCK_M2": "32", "BLOCK_N2": "16", "BLK_SLICE_FACTOR": "1", "HEAD_DIM": "16"}},
}

// TestAttentionBwd runs Triton's fused attention backward (tutorial 06) on
// the interpreter (TestAttentionBwdGPU on the GPU): the preprocess kernel
// (Delta = rowsum(O * dO)) and the dK/dV/dQ kernel, in f16 as the
// tutorial, on random Q, K, V, dO (Q, K, V with deviation 0.5 as the
// tutorial's test; sm_scale 0.5), with O and the base-2 log-sum-exp M of a
// float64 forward, K pre-scaled by sm_scale / ln(2) on the host as the
// tutorial's wrapper does (rounded to f16). The gradients are compared
// with the float64 ones. The outputs start as NaN, so every element must
// be written.
//
// Error bounds (relative RMS): the kernel rounds P and dS to f16 before
// their products (2^-11 relative at most each), its scaled K, O and dO are
// f16 inputs, and dQ, dK, dV are stored as f16 (2^-11 again); everything
// else is f32. The interpreter measures 3e-4 to 5e-4 for the three
// gradients; the bound 2e-3 leaves room for the GPU's ex2.approx and its
// summation order and still fails on a real error: sm_scale 1% off in the
// kernel gives about 1e-2, an unmasked diagonal block far more.
func TestAttentionBwd(t *testing.T) { checkAttentionBwd(t, tle.CPU()) }

// TestAttentionBwdGPU is TestAttentionBwd on the GPU; it skips without
// one (tletest.GPU).
func TestAttentionBwdGPU(t *testing.T) {
	g := tletest.GPU(t)
	checkAttentionBwd(t, g)
}

func checkAttentionBwd(t *testing.T, dev tle.Device) {
	pre := kernel(t, "attention_bwd.tle", "attn_bwd_preprocess")
	bwd := kernel(t, "attention_bwd.tle", "attn_bwd")
	const smScale, rcpLn2, preBlock = 0.5, 1.4426950408889634, 16
	r := rand.New(rand.NewPCG(6, 35))
	for _, c := range attnBwdCases {
		d := atoi(c.defs["HEAD_DIM"])
		bh, s := c.z*c.h, c.nctx
		n := bh * s * d
		half := func() []float64 {
			x := randn(r, n)
			for i := range x {
				x[i] *= 0.5
			}
			return round(ir.F16, x)
		}
		q, k, v := half(), half(), half()
		do := round(ir.F16, randn(r, n))
		o, lse, wantDQ, wantDK, wantDV := attentionBwdRef(bh, s, d, q, k, v, do, smScale)
		argK, m := make([]float64, n), make([]float64, bh*s)
		for i, x := range k {
			argK[i] = x * (smScale * rcpLn2)
		}
		for i, x := range lse {
			m[i] = x * rcpLn2
		}
		shape := []int{c.z, c.h, s, d}
		ten := func(x []float64) *tle.Tensor { return &tle.Tensor{Shape: shape, Data: x} }
		what := fmt.Sprintf("Z %d H %d N_CTX %d %v on %s", c.z, c.h, s, c.defs, dev.Name())
		delta := poison(bh * s)
		err := pre.Run(dev, [3]int{s / preBlock, bh, 1}, tle.CompileOptions{Defines: map[string]string{"T": "f16", "BLOCK_M": fmt.Sprint(preBlock), "HEAD_DIM": c.defs["HEAD_DIM"]}},
			map[string]any{"O": ten(round(ir.F16, o)), "DO": ten(do), "Delta": delta, "Z": c.z, "H": c.h, "N_CTX": s})
		require.NoError(t, err, what)
		dq, dk, dv := poison(n), poison(n), poison(n)
		defs := map[string]string{"T": "f16"}
		for key, val := range c.defs {
			defs[key] = val
		}
		err = bwd.Run(dev, [3]int{s / atoi(c.defs["BLOCK_N1"]), 1, bh}, tle.CompileOptions{Defines: defs},
			map[string]any{"Q": ten(q), "K": ten(round(ir.F16, argK)), "V": ten(v), "sm_scale": smScale, "DO": ten(do),
				"DQ": dq, "DK": dk, "DV": dv, "M": &tle.Tensor{Shape: []int{bh, s}, Data: round(ir.F32, m)}, "D": delta,
				"stride_z": c.h * s * d, "stride_h": s * d, "stride_tok": d, "stride_d": 1, "H": c.h, "N_CTX": s})
		require.NoError(t, err, what)
		eq, ek, ev := relRMS(dq.Data, wantDQ), relRMS(dk.Data, wantDK), relRMS(dv.Data, wantDV)
		t.Logf("%s: relative RMS error of dQ %.3g, dK %.3g, dV %.3g", what, eq, ek, ev)
		require.Less(t, eq, 2e-3, "%s: dQ", what)
		require.Less(t, ek, 2e-3, "%s: dK", what)
		require.Less(t, ev, 2e-3, "%s: dV", what)
	}
}

// TestAttentionBwdPTX compiles both kernels through llc-19 at the
// tutorial's blocks (f16, HEAD_DIM 64, 4 warps as its wrapper launches
// them): the products on tensor cores and the softmax's exp2 on
// ex2.approx.
func TestAttentionBwdPTX(t *testing.T) {
	tletest.NeedLLC(t)
	t.Parallel()
	defs := map[string]string{"T": "f16"}
	for key, val := range attnBwdCases[0].defs {
		defs[key] = val
	}
	b, err := kernel(t, "attention_bwd.tle", "attn_bwd").Compile(tle.CompileOptions{Defines: defs, NumWarps: 4}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for _, w := range []string{`(wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.f16\.f16|mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32)\s`, `ex2\.approx\.(ftz\.)?f32\s`} {
		require.Regexp(t, tletest.PTXLine(w), b.PTX, "attn_bwd: no %s", w)
	}
	b, err = kernel(t, "attention_bwd.tle", "attn_bwd_preprocess").Compile(tle.CompileOptions{Defines: map[string]string{"T": "f16", "BLOCK_M": "128", "HEAD_DIM": "64"}}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Regexp(t, tletest.PTXLine(`(@%p\w*\s+)?st\.global(\.\w+)*\s`), b.PTX, "attn_bwd_preprocess")
}

package tutorials

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// attentionRef is causal softmax attention in float64: o [BH, S, D] and
// lse [BH, S] (the natural log of each row's softmax denominator) of
// q, k, v [BH, S, D] with scores sm_scale * q[i] . k[j], j <= i.
func attentionRef(bh, s, d int, q, k, v []float64, smScale float64) (o, lse []float64) {
	o, lse = make([]float64, bh*s*d), make([]float64, bh*s)
	sc := make([]float64, s)
	for h := 0; h < bh; h++ {
		base := h * s * d
		for i := 0; i < s; i++ {
			m := math.Inf(-1)
			for j := 0; j <= i; j++ {
				dot := 0.0
				for c := 0; c < d; c++ {
					dot += q[base+i*d+c] * k[base+j*d+c]
				}
				sc[j] = dot * smScale
				m = math.Max(m, sc[j])
			}
			sum := 0.0
			for j := 0; j <= i; j++ {
				sc[j] = math.Exp(sc[j] - m)
				sum += sc[j]
			}
			for j := 0; j <= i; j++ {
				for c := 0; c < d; c++ {
					o[base+i*d+c] += sc[j] / sum * v[base+j*d+c]
				}
			}
			lse[h*s+i] = m + math.Log(sum)
		}
	}
	return o, lse
}

// attentionDefs binds the tutorial as its header says: BM 128, HEAD_DIM
// 128, BN 64 or 128; it runs on 8 warps.
func attentionDefs(bn int) tle.CompileOptions {
	return tle.CompileOptions{Defines: map[string]string{"BM": "128", "BN": fmt.Sprint(bn), "HEAD_DIM": "128"}, NumWarps: 8}
}

// TestAttention runs the causal attention tutorial against the float64
// reference, with S a multiple of BM (256) and not (200: the last query
// block and the keys of the diagonal block are masked), for both BN.
//
// The error bound: the kernel rounds the softmax probabilities P to bf16
// before the P V product, and its output to bf16. bf16 keeps 8 significant
// bits, so each rounding is a relative error of at most 2^-8 (3.9e-3), about
// 1.5e-3 RMS over random values; P's errors partly average out over a row.
// The interpreter measures a relative RMS error of 1.93e-3 to 1.97e-3 for o
// (logged) and 5e-8 for lse; the bounds 3e-3 and 1e-5 leave room for the
// GPU's ex2.approx and summation order and still fail on a real error: a
// softmax scale 1% off gives 9.3e-3, and an unwritten row is NaN (the
// outputs are poisoned).
func TestAttention(t *testing.T) {
	k := kernel(t, "attention.tle", "attention")
	const bh, d = 2, 128
	smScale := 1 / math.Sqrt(d)
	r := rand.New(rand.NewPCG(61, 62))
	for _, bn := range []int{64, 128} {
		for _, s := range []int{256, 200} {
			n := bh * s * d
			q, kk, v := round(ir.BF16, randn(r, n)), round(ir.BF16, randn(r, n)), round(ir.BF16, randn(r, n))
			wantO, wantL := attentionRef(bh, s, d, q, kk, v, smScale)
			for _, dev := range devices(t, fmt.Sprintf("attention_bn%d", bn)) {
				// on the GPU also without the K/V pipeline (the staging
				// buffers then live in the loop body, beside the deferred
				// P V product's)
				for _, stages := range []int{0, 1} {
					if stages == 1 && (dev.Name() == tle.CPU().Name() || strings.HasSuffix(dev.Name(), "running given PTX")) {
						continue
					}
					o, lse := poison(n), poison(bh*s)
					o.Shape, lse.Shape = []int{bh, s, d}, []int{bh, s}
					opts := attentionDefs(bn)
					opts.NumStages = stages
					err := k.Run(dev, [3]int{cdiv(s, 128), bh, 1}, opts, map[string]any{
						"q_ptr": &tle.Tensor{Shape: []int{bh, s, d}, Data: q}, "k_ptr": &tle.Tensor{Shape: []int{bh, s, d}, Data: kk},
						"v_ptr": &tle.Tensor{Shape: []int{bh, s, d}, Data: v}, "o_ptr": o, "lse_ptr": lse, "S": s, "sm_scale": smScale})
					require.NoError(t, err, dev.Name())
					eo, el := relRMS(o.Data, wantO), relRMS(lse.Data, wantL)
					t.Logf("%s BN %d S %d stages %d: relative RMS error of o %.3g, of lse %.3g", dev.Name(), bn, s, stages, eo, el)
					require.Less(t, eo, 3e-3, "%s BN %d S %d stages %d: o", dev.Name(), bn, s, stages)
					// lse is f32 from f32 scores of bf16 inputs: only f32
					// rounding, exp2 and log2 are in its error
					require.Less(t, el, 1e-5, "%s BN %d S %d stages %d: lse", dev.Name(), bn, s, stages)
				}
			}
		}
	}
}

// TestAttentionPTX compiles the tutorial for sm_90a with llc-19 on 8 warps,
// as the test runs it: both products run as wgmma (the two warpgroups own
// 64 query rows each): q . k^T from shared memory, k as stored read
// K-major (m64nBNk16, transpose immediates 0, 0: k.T moves no data), P . V
// with P from registers (m64n128k16, four packed registers) and V read
// N-major (immediate 1); the K and V tiles stream through
// cp.async rings; the softmax runs on ex2.approx; no mma.sync is left.
func TestAttentionPTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "attention.tle", "attention")
	for _, bn := range []int{64, 128} {
		b, err := k.Compile(attentionDefs(bn), tle.GPUOptions{Toolchain: "llc", Arch: "sm_90a"})
		require.NoError(t, err, "BN %d", bn)
		require.Equal(t, 8, b.NumWarps)
		for _, w := range []string{
			fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk16\.f32\.bf16\.bf16\s+\{(%%f\d+, ){%d}%%f\d+\}, %%rd\d+, %%rd\d+, %%wgp, 1, 1, 0, 0;`, bn, bn/2-1),
			`wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){63}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1, 1;`,
			`cp\.async\.cg\.shared\.global(\.L2::\w+)? \[%r\d+\], \[%rd\d+\], 16(, %r\d+)?;`,
			`ex2\.approx\.(ftz\.)?f32\s`,
		} {
			require.Regexp(t, tletest.PTXLine(w), b.PTX, "BN %d: no %s", bn, w)
		}
		require.NotRegexp(t, tletest.PTXLine(`mma\.sync\.`), b.PTX, "BN %d: a product left on mma.sync", bn)
		// one proxy fence (and barrier) per loop iteration: the P V
		// product reads V through the fence of the q k^T product before it
		require.Len(t, tletest.PTXLine(`fence\.proxy\.async\.shared::cta;`).FindAllString(b.PTX, -1), 2, "BN %d: one fence per loop", bn)
		// one wait per iteration (the P V product's is deferred to the next
		// iteration's q k^T wait) and one after each loop
		require.Len(t, tletest.PTXLine(`wgmma\.wait_group\.sync\.aligned 0;`).FindAllString(b.PTX, -1), 4, "BN %d: waits", bn)
		// the refill of the slot the previous iteration's P V read waits
		// for the other warpgroup's copy of that product: a barrier
		// between this iteration's P V and its first cp.async
		require.Equal(t, []bool{true, true}, barrierBeforeRefill(b.PTX), "BN %d: barrier before the refill", bn)
	}
}

// TestAttentionSmemFit: at HEAD_DIM 256 the default three-stage pipeline
// of K and V (64 KB of q, 3 x 64 KB of K and V tiles) does not fit in the
// 227 KB a Hopper CTA may use; the compiler then builds two stages (192
// KB), and a depth the user set that does not fit is an error naming the
// budget.
func TestAttentionSmemFit(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "attention.tle", "attention")
	opts := tle.CompileOptions{Defines: map[string]string{"BM": "128", "BN": "64", "HEAD_DIM": "256"}, NumWarps: 8}
	b, err := k.Compile(opts, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Equal(t, 196608, b.SmemBytes)
	opts.NumStages = 3
	_, err = k.Compile(opts, tle.GPUOptions{Toolchain: "llc"})
	require.ErrorContains(t, err, "the kernel needs 262144 bytes of shared memory; sm_90a allows 232448 per CTA")
}

// TestAttentionDeferredBuffers: without the K/V pipeline the staging
// buffers of K and V both live in the loop body; the P V product, whose
// wait is deferred into the next iteration, still reads V there when K is
// stored again, so the two must not share bytes. On one warpgroup no
// barrier is added before the refills (its own wait completed the product).
func TestAttentionDeferredBuffers(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "attention.tle", "attention")
	opts := attentionDefs(64)
	opts.NumStages = 1
	art, err := k.Build(opts, tle.GPUOptions{Toolchain: "llc"}, "tir")
	require.NoError(t, err)
	offs := regexp.MustCompile(`alloc\(%\d+\) \{order_from_init = true, smem_offset = (\d+)\} : !smem<\[64,128\]bf16`).FindAllStringSubmatch(art.TIR, -1)
	require.Len(t, offs, 4, "K and V staged in each loop")
	require.NotEqual(t, offs[0][1], offs[1][1], "the first loop's K and V share bytes")
	require.NotEqual(t, offs[2][1], offs[3][1], "the second loop's K and V share bytes")
	one := tle.CompileOptions{Defines: map[string]string{"BM": "64", "BN": "64", "HEAD_DIM": "128"}, NumWarps: 4}
	b, err := k.Compile(one, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Equal(t, []bool{false, false}, barrierBeforeRefill(b.PTX), "one warpgroup: no barrier before the refill")
}

// barrierBeforeRefill tells, for each P V product of the attention
// tutorial's PTX (the register-A wgmma group: its commit), whether a
// bar.sync comes between it and the next cp.async (the ring refill).
func barrierBeforeRefill(ptx string) []bool {
	var out []bool
	pv := regexp.MustCompile(`\{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1, 1;\n\}\n\s*(// end inline asm\n\s*// begin inline asm\n\s*)?wgmma\.commit_group`)
	for _, m := range pv.FindAllStringIndex(ptx, -1) {
		rest := ptx[m[1]:]
		cp := strings.Index(rest, "cp.async.cg.shared.global")
		if cp < 0 {
			cp = len(rest)
		}
		out = append(out, regexp.MustCompile(`bar\.sync\s+0;`).MatchString(rest[:cp]))
	}
	return out
}

package tutorials

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// tf32All is xs rounded to tf32 (floats.RoundTF32).
func tf32All(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = floats.RoundTF32(x)
	}
	return out
}

// TestMatmulF32 runs the f32 matmul on every device (on an sm_90a GPU its
// dot is tf32 wgmma) against a float64 product of the tf32-rounded
// operands; TestMatmulF32MMASync runs it on mma.sync. The operands are
// full-mantissa f32 values, so a device that did not round them as
// cvt.rna.tf32.f32 does (truncating instead, or multiplying the f32 values)
// is off by about 3e-4 relative; f32 accumulation of the exact tf32
// products is within 1e-6 (the interpreter measures 3.8e-8).
func TestMatmulF32(t *testing.T) {
	for _, dev := range devices(t, "matmul_f32") {
		checkMatmulF32(t, dev, false)
	}
}

func TestMatmulF32MMASync(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	checkMatmulF32(t, g, true)
}

func checkMatmulF32(t *testing.T, dev tle.Device, mmaSync bool) {
	k := kernel(t, "matmul_f32.tle", "matmul_f32")
	r := rand.New(rand.NewPCG(15, 16))
	const M, N, K = 100, 72, 80 // none a multiple of its block
	a, b := round(ir.F32, randn(r, M*K)), round(ir.F32, randn(r, K*N))
	at, bt := tf32All(a), tf32All(b)
	want := matmulRef(M, N, K, at, func(l, j int) float64 { return bt[l*N+j] })
	unrounded := matmulRef(M, N, K, a, func(l, j int) float64 { return b[l*N+j] })
	require.Greater(t, relRMS(unrounded, want), 1e-4, "the test data must tell tf32 from f32 products")
	c := poison(M * N)
	opts := tle.CompileOptions{Defines: map[string]string{"BM": "64", "BN": "32", "BK": "32"}, DotMMASync: mmaSync}
	err := k.Run(dev, [3]int{cdiv(M, 64), cdiv(N, 32), 1}, opts,
		map[string]any{"a": &tle.Tensor{Shape: []int{M, K}, Data: a}, "b": &tle.Tensor{Shape: []int{K, N}, Data: b}, "c": c, "M": M, "N": N, "K": K})
	require.NoError(t, err, dev.Name())
	e := relRMS(c.Data, want)
	t.Logf("%s (mma.sync %v): relative RMS error %.3g against the tf32 product, %.3g against the f32 one", dev.Name(), mmaSync, e, relRMS(c.Data, unrounded))
	require.Less(t, e, 1e-6, "%s (mma.sync %v)", dev.Name(), mmaSync)
}

// TestMatmulF32PTX checks the tf32 instruction forms with llc-19: wgmma
// m64nNk8 .tf32 (K-major descriptors, no transpose immediates) by default
// on sm_90a, mma.sync m16n8k8 .tf32 with --dot-wgmma=false and on sm_80;
// each after cvt.rna.tf32.f32 of the operands.
func TestMatmulF32PTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "matmul_f32.tle", "matmul_f32")
	cvt := `cvt\.rna\.tf32\.f32\s+%r\d+, %f\d+;`
	for _, c := range []struct {
		name    string
		mmaSync bool
		arch    string
		want    []string
		count   string
		n       int
	}{
		{"wgmma", false, "sm_90a", []string{cvt, `wgmma\.mma_async\.sync\.aligned\.m64n128k8\.f32\.tf32\.tf32\s+\{(%f\d+, ){63}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1;`,
			`wgmma\.wait_group\.sync\.aligned 0;`}, `wgmma\.mma_async\.`, 8}, // 2 64-row blocks x 4 k8 steps
		{"mma.sync", true, "sm_90a", []string{cvt, `mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32\s`}, `mma\.sync\.`, 0},
		{"sm_80", false, "sm_80", []string{cvt, `mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32\s`}, `wgmma\.`, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := tle.CompileOptions{Defines: map[string]string{"BM": "128", "BN": "128", "BK": "32"}, DotMMASync: c.mmaSync, Div16: []string{"M", "N", "K"}}
			b, err := k.Compile(opts, tle.GPUOptions{Toolchain: "llc", Arch: c.arch})
			require.NoError(t, err)
			for _, w := range c.want {
				require.Regexp(t, tletest.PTXLine(w), b.PTX, "%s: no %s", c.name, w)
			}
			found := regexp.MustCompile(`(?m)^\s+`+c.count).FindAllString(b.PTX, -1)
			switch {
			case c.arch == "sm_80":
				require.Empty(t, found, "no wgmma before sm_90a")
			case c.n > 0:
				require.Len(t, found, c.n)
			default:
				require.NotEmpty(t, found)
			}
		})
	}
}

// An explicit wgmma of f32 buffers is tf32 and reads only K-major operands:
// b stored [N, K] with trans_b builds, b stored [K, N] (N-major) is an
// error at the wgmma.
func TestWgmmaTF32Layouts(t *testing.T) {
	src := `kernel w(a *f32, b *f32, c *f32) {
    r := arange(0, 64)
    tile := r[:, None]*32 + arange(0, 32)[None, :]
    sa := alloc([64, 32], f32)
    sb := alloc([64, 32], f32)
    store(sa, load(a + tile))
    store(sb, load(b + tile))
    acc := wgmma(sa, sb, zeros([64, 64], f32), trans_b: TRANS)
    wgmma_wait(0)
    store(c + r[:, None]*64 + r[None, :], acc)
}
`
	ok, err := tle.Parse("w.tle", []byte(strings.Replace(src, "TRANS", "true", 1)))
	require.NoError(t, err)
	k, err := ok.Kernel("w")
	require.NoError(t, err)
	art, err := k.Build(tle.CompileOptions{}, tle.GPUOptions{}, "ll")
	require.NoError(t, err)
	require.Contains(t, art.LLVMIR, "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32")
	// [64, 32] f32 buffers read as b [K = 64, N = 32]: N-major
	bad := strings.Replace(strings.Replace(src, "TRANS", "false", 1), "zeros([64, 64], f32)", "zeros([64, 32], f32)", 1)
	bad = strings.Replace(bad, "r[:, None]*64 + r[None, :], acc", "tile, acc", 1)
	bad = strings.Replace(bad, "sa := alloc([64, 32], f32)", "sa := alloc([64, 64], f32)", 1)
	bad = strings.Replace(bad, "store(sa, load(a + tile))", "store(sa, load(a + r[:, None]*64 + r[None, :]))", 1)
	p, err := tle.Parse("w.tle", []byte(bad))
	require.NoError(t, err)
	k, err = p.Kernel("w")
	require.NoError(t, err)
	_, err = k.Build(tle.CompileOptions{}, tle.GPUOptions{}, "ll")
	require.Error(t, err)
	require.Contains(t, err.Error(), "w.tle:8:12: error: wgmma: tf32 wgmma (f32 operands) needs K-major operands in shared memory")
	require.NotContains(t, err.Error(), "internal compiler error")
}

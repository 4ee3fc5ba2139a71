package tutorials

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

func TestWgmmaTile(t *testing.T) {
	k := kernel(t, "wgmma_tile.tle", "wgmma_tile")
	r := rand.New(rand.NewPCG(13, 14))
	const n = 64
	for _, dev := range devices(t, "wgmma_tile") {
		a, b, bt := round(ir.BF16, randn(r, n*n)), round(ir.BF16, randn(r, n*n)), round(ir.BF16, randn(r, n*n))
		c, ct := poison(n*n), poison(n*n)
		ten := func(d []float64) *tle.Tensor { return &tle.Tensor{Shape: []int{n, n}, Data: d} }
		err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{},
			map[string]any{"a": ten(a), "b": ten(b), "bt": ten(bt), "c": c, "ct": ct})
		require.NoError(t, err, dev.Name())
		want, wantT := make([]float64, n*n), make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s, st := 0.0, 0.0
				for l := 0; l < n; l++ {
					s += a[i*n+l] * b[l*n+j]
					st += a[i*n+l] * bt[j*n+l]
				}
				want[i*n+j], wantT[i*n+j] = s, st
			}
		}
		// f32 accumulation of exact bf16 products
		require.Less(t, relRMS(c.Data, want), 1e-6, dev.Name())
		require.Less(t, relRMS(ct.Data, wantT), 1e-6, dev.Name())
	}
}

// TestWgmmaPTX checks the instruction forms of the wgmma tutorial and of
// variants of it: M = 128 on one warpgroup (two 64-row blocks per thread)
// and on two, a from registers, 64B-swizzled operands, N = 128 and f16.
func TestWgmmaPTX(t *testing.T) {
	tletest.NeedLLC(t)
	line := tletest.PTXLine
	k := kernel(t, "wgmma_tile.tle", "wgmma_tile")
	b, err := k.Compile(tle.CompileOptions{}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for _, w := range []string{
		`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){31}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1, 0, 1;`,
		`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){31}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1, 0, 0;`,
		`wgmma\.fence\.sync\.aligned;`, `wgmma\.commit_group\.sync\.aligned;`, `wgmma\.wait_group\.sync\.aligned 0;`,
		`fence\.proxy\.async\.shared::cta;`,
	} {
		require.Regexp(t, line(w), b.PTX, "wgmma_tile: no %s", w)
	}
	require.Regexp(t, `(?m)^\.extern \.shared \.align 1024 \.b8 global_smem\[\];`, b.PTX, "1024-aligned shared memory")
	require.Len(t, regexp.MustCompile(`(?m)^\s+wgmma\.mma_async\.`).FindAllString(b.PTX, -1), 8, "4 k16 steps per wgmma")

	// M = 128, on one warpgroup and on two
	const m128 = `kernel v(a *bf16, b *bf16, c *f32) {
    r := arange(0, 128)
    q := arange(0, 64)
    sa := alloc([128, 64], bf16)
    sb := alloc([128, 64], bf16)
    store(sa, load(a + r[:, None]*64 + q[None, :]))
    store(sb, load(b + r[:, None]*64 + q[None, :]))
    acc := wgmma(sa, sb, zeros([128, 128], f32), trans_b: true)
    wgmma_wait(0)
    store(c + r[:, None]*128 + r[None, :], acc)
}`
	variants := []struct {
		name, src string
		warps     int
		want      string
		count     int
	}{
		{"m128_one_warpgroup", m128, 4, `wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){63}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1, 0, 0;`, 8},
		{"m128_two_warpgroups", m128, 8, `wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s`, 4},
		{"a_in_registers_f16_64B", `kernel v(a *f16, b *f16, c *f32) {
    r := arange(0, 64)
    q := arange(0, 32)
    sb := alloc([32, 32], f16)
    store(sb, load(b + q[:, None]*32 + q[None, :]))
    acc := wgmma(load(a + r[:, None]*32 + q[None, :]), sb, zeros([64, 32], f32))
    wgmma_wait(0)
    store(c + r[:, None]*32 + q[None, :], acc)
}`, 4, `wgmma\.mma_async\.sync\.aligned\.m64n32k16\.f32\.f16\.f16\s+\{(%f\d+, ){15}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1, 1;`, 2},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			prog, err := tle.Parse(v.name+".tle", []byte(v.src))
			require.NoError(t, err)
			k, err := prog.Kernel("v")
			require.NoError(t, err)
			b, err := k.Compile(tle.CompileOptions{NumWarps: v.warps}, tle.GPUOptions{Toolchain: "llc"})
			require.NoError(t, err)
			require.Regexp(t, line(v.want), b.PTX)
			require.Len(t, regexp.MustCompile(`(?m)^\s+wgmma\.mma_async\.`).FindAllString(b.PTX, -1), v.count)
			require.Regexp(t, line(`wgmma\.wait_group\.sync\.aligned 0;`), b.PTX)
		})
	}
}

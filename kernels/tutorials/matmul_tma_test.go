package tutorials

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// matmulTMADefs are the bindings of matmul_tma: the benchmark's 128x256x64
// tile with 3 stages and one wgmma group in flight, and variants (4 stages,
// BN = 128, a wait for every group).
var matmulTMADefs = []map[string]string{
	{"BM": "128", "BN": "256", "BK": "64", "S": "3", "LAG": "1"},
	{"BM": "128", "BN": "128", "BK": "64", "S": "4", "LAG": "1"},
	{"BM": "128", "BN": "128", "BK": "64", "S": "3", "LAG": "0"},
}

// TestMatmulTMA multiplies A [M, K] by B given transposed (Bt [N, K]), with
// sizes that are not multiples of the blocks (TMA zero-fills the tails, the
// store of C is masked) and enough K blocks (9) to wrap the stage ring and
// flip every barrier's parity more than once.
func TestMatmulTMA(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const m, n, kk = 200, 136, 544 // rows of 1088 bytes: a multiple of 16, as TMA needs
	a := round(ir.BF16, randn(r, m*kk))
	bt := round(ir.BF16, randn(r, n*kk))
	want := matmulRef(m, n, kk, a, func(l, j int) float64 { return bt[j*kk+l] })
	checkMatmulTMA(t, "matmul_tma", m, n, kk, want, map[string]any{
		"a": &tle.Tensor{Shape: []int{m, kk}, Data: a}, "bt": &tle.Tensor{Shape: []int{n, kk}, Data: bt}})
}

// matmulRef is the float64 product of A [m, kk] (row-major) and B, read as
// b(l, j) = B[l, j].
func matmulRef(m, n, kk int, a []float64, b func(l, j int) float64) []float64 {
	want := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for l := 0; l < kk; l++ {
				s += a[i*kk+l] * b(l, j)
			}
			want[i*n+j] = s
		}
	}
	return want
}

// checkMatmulTMA runs a TMA matmul kernel (file and kernel named name) in
// every binding of matmulTMADefs on every device with the operand tensors in
// ops, and compares C [m, n] with want.
func checkMatmulTMA(t *testing.T, name string, m, n, kk int, want []float64, ops map[string]any) {
	checkMatmulTMAIn(t, name, matmulTMADefs, m, n, kk, want, 4e-3, ops)
}

// checkMatmulTMAIn is checkMatmulTMA over the bindings defsList, with
// relative-RMS bound tol.
func checkMatmulTMAIn(t *testing.T, name string, defsList []map[string]string, m, n, kk int, want []float64, tol float64, ops map[string]any) {
	k := kernel(t, name+".tle", name)
	for ci, defs := range defsList {
		bm, bn := atoi(defs["BM"]), atoi(defs["BN"])
		for _, dev := range devices(t, name) {
			if ci != 0 && strings.HasSuffix(dev.Name(), "running given PTX") {
				continue // tools/build-ptx.sh builds the first binding only
			}
			c := poison(m * n)
			args := map[string]any{"c": c, "M": m, "N": n, "K": kk}
			for p, v := range ops {
				args[p] = v
			}
			err := k.Run(dev, [3]int{cdiv(m, bm), cdiv(n, bn), 1}, tle.CompileOptions{Defines: defs}, args)
			require.NoError(t, err, "%s %v", dev.Name(), defs)
			require.Less(t, relRMS(c.Data, want), tol, "%s %v", dev.Name(), defs)
		}
	}
}

// TestMatmulTMAPTX checks the benchmark binding's code with llc-19: TMA
// loads completing on mbarriers, parity waits, m64n256k16 wgmma with B
// K-major (trans_b), one group left in flight, and setmaxnreg for the roles.
func TestMatmulTMAPTX(t *testing.T) {
	checkMatmulTMAPTX(t, "matmul_tma", "0", []string{
		`mbarrier\.arrive\.expect_tx\.shared::cta\.b64\s`,
		`setmaxnreg\.dec\.sync\.aligned\.u32 40;`,
		`setmaxnreg\.inc\.sync\.aligned\.u32 232;`,
	}, func(map[string]string) int { return 2 }, "one TMA box per operand")
}

// checkMatmulTMAPTX compiles the TMA matmul kernel name with llc-19 in
// every binding of matmulTMADefs and checks the code the variants share:
// m64n{BN}k16 wgmma with b's transpose immediate transB, TMA loads
// completing on mbarriers, parity waits, the instruction forms in extra,
// LAG groups left in flight; boxes(defs) TMA boxes per stage (why says
// which), four k16 steps per stage and 12 warps.
func checkMatmulTMAPTX(t *testing.T, name, transB string, extra []string, boxes func(defs map[string]string) int, why string) {
	tletest.NeedLLC(t)
	k := kernel(t, name+".tle", name)
	for _, defs := range matmulTMADefs {
		t.Run(fmt.Sprintf("%sx%s_S%s_LAG%s", defs["BM"], defs["BN"], defs["S"], defs["LAG"]), func(t *testing.T) {
			b, err := k.Compile(tle.CompileOptions{Defines: defs, Div16: []string{"M", "N", "K"}}, tle.GPUOptions{Toolchain: "llc"})
			require.NoError(t, err)
			want := append([]string{
				`wgmma\.mma_async\.sync\.aligned\.m64n` + defs["BN"] + `k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){` + itoa(atoi(defs["BN"])/2-1) + `}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1, 0, ` + transB + `;`,
				`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];`,
				`mbarrier\.try_wait\.parity\.shared::cta\.b64\s`,
			}, extra...)
			for _, w := range append(want, `wgmma\.wait_group\.sync\.aligned `+defs["LAG"]+`;`) {
				require.Regexp(t, tletest.PTXLine(w), b.PTX, "no %s", w)
			}
			require.Len(t, tletest.PTXLine(`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global`).FindAllString(b.PTX, -1), boxes(defs), why)
			require.Len(t, tletest.PTXLine(`wgmma\.mma_async\.`).FindAllString(b.PTX, -1), 4, "four k16 steps per stage, one 64-row block per warpgroup")
			require.Equal(t, 12, b.NumWarps, "a load warpgroup and two mma warpgroups")
		})
	}
}

// TestMatmulMakeDesc runs matmul_tma with its maps made on the device
// (make_desc) over A and Bt stored with padded rows (lda = K + 8, ldb =
// K + 24): the padding holds random values, so a map with a wrong row
// stride reads them into the product.
func TestMatmulMakeDesc(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const m, n, kk = 200, 136, 544
	const lda, ldb = kk + 8, kk + 24
	a := round(ir.BF16, randn(r, m*lda))
	bt := round(ir.BF16, randn(r, n*ldb))
	want := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for l := 0; l < kk; l++ {
				s += a[i*lda+l] * bt[j*ldb+l]
			}
			want[i*n+j] = s
		}
	}
	checkMatmulTMA(t, "matmul_make_desc", m, n, kk, want, map[string]any{
		"a": &tle.Tensor{Shape: []int{m * lda}, Data: a}, "bt": &tle.Tensor{Shape: []int{n * ldb}, Data: bt}, "lda": lda, "ldb": ldb})
}

// TestMatmulMakeDescPTX: each program writes two maps with
// tensormap.replace (128-byte swizzle, bf16, the outer stride in bytes) in
// PTX 8.3, copies them out and acquires them; the main loop is
// matmul_tma's.
func TestMatmulMakeDescPTX(t *testing.T) {
	tletest.NeedLLC(t)
	line := func(w string) *regexp.Regexp { return regexp.MustCompile(`(?m)^\s+(@!?%\w+ )?` + w) }
	k := kernel(t, "matmul_make_desc.tle", "matmul_make_desc")
	b, err := k.Compile(tle.CompileOptions{Defines: matmulTMADefs[0]}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.True(t, regexp.MustCompile(`(?m)^\.version 8\.3$`).MatchString(b.PTX), "PTX 8.3")
	require.Equal(t, 256, b.ScratchBytes)
	require.True(t, regexp.MustCompile(`\.param \.u64 matmul_make_desc_param_8\s`).MatchString(b.PTX), "the scratch is the last parameter")
	for w, n := range map[string]int{
		`tensormap\.replace\.tile\.global_address\.shared::cta\.b1024\.b64 \[%r\d+\], %rd\d+;`:                                                   2,
		`tensormap\.replace\.tile\.global_stride\.shared::cta\.b1024\.b64 \[%r\d+\], 0, %rd\d+;`:                                                 2,
		`tensormap\.replace\.tile\.global_dim\.shared::cta\.b1024\.b32 \[%r\d+\], 1, %r\d+;`:                                                     2,
		`tensormap\.replace\.tile\.box_dim\.shared::cta\.b1024\.b32 \[%r\d+\], 0, 64;`:                                                           2,
		`tensormap\.replace\.tile\.box_dim\.shared::cta\.b1024\.b32 \[%r\d+\], 1, 128;`:                                                          1,
		`tensormap\.replace\.tile\.box_dim\.shared::cta\.b1024\.b32 \[%r\d+\], 1, 256;`:                                                          1,
		`tensormap\.replace\.tile\.elemtype\.shared::cta\.b1024\.b32 \[%r\d+\], 10;`:                                                             2,
		`tensormap\.replace\.tile\.swizzle_mode\.shared::cta\.b1024\.b32 \[%r\d+\], 3;`:                                                          2,
		`tensormap\.cp_fenceproxy\.global\.shared::cta\.tensormap::generic\.release\.gpu\.sync\.aligned \[%rd\d+\], \[%r\d+\], 128;`:             2,
		`fence\.proxy\.tensormap::generic\.acquire\.gpu \[%rd\d+\], 128;`:                                                                        2,
		`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], \[%r\d+\];`: 2,
		`wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.bf16\.bf16\s`:                                                                         4,
	} {
		require.Len(t, line(w).FindAllString(b.PTX, -1), n, "%s", w)
	}
}

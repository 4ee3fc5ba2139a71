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

// TestSmemTranspose runs transpose_e4m3 and transpose_bf16 of
// smem_transpose_fp8.tle, in both spellings and as a partial tile, on
// three programs (V of 192 tokens) and checks Vt against V transposed
// (the partial tile's tokens from 61 - 8p on zero), exactly.
func TestSmemTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	const tokens, dim = 192, 128
	for _, kn := range []struct {
		name string
		d    ir.DType
	}{{"transpose_e4m3", ir.F8E4M3}, {"transpose_bf16", ir.BF16}} {
		k := kernel(t, "smem_transpose_fp8.tle", kn.name)
		for _, spell := range []string{"0", "1", "2"} {
			for _, dev := range devices(t, kn.name) {
				if strings.HasSuffix(dev.Name(), "running given PTX") && spell != "0" {
					continue // tools/build-ptx.sh builds SPELL=0
				}
				v := round(kn.d, randn(r, tokens*dim))
				vt := poison(dim * tokens)
				err := k.Run(dev, [3]int{tokens / 64, 1, 1}, tle.CompileOptions{Defines: map[string]string{"SPELL": spell}},
					map[string]any{"v": &tle.Tensor{Shape: []int{tokens, dim}, Data: v}, "vt": &tle.Tensor{Shape: []int{dim, tokens}, Data: vt.Data}})
				require.NoError(t, err, "%s SPELL=%s %s", kn.name, spell, dev.Name())
				want := make([]float64, dim*tokens)
				for i := 0; i < tokens; i++ {
					if spell == "2" && i%64 >= 61-8*(i/64) {
						continue // zeroed
					}
					for j := 0; j < dim; j++ {
						want[j*tokens+i] = v[i*dim+j]
					}
				}
				require.Equal(t, want, vt.Data, "%s SPELL=%s %s", kn.name, spell, dev.Name())
			}
		}
	}
}

// TestSmemTransposePV runs pv_e4m3: c = p @ v with v transposed in shared
// memory and read by wgmma as its K-major B, against the float64 product
// (fp8 products are exact in f32; the tensor cores' narrower fp8
// accumulation is what the GPU tolerance allows, see TestWgmmaFP8).
func TestSmemTransposePV(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	k := kernel(t, "smem_transpose_fp8.tle", "pv_e4m3")
	for _, dev := range devices(t, "pv_e4m3") {
		p, v := round(ir.F8E4M3, randn(r, 64*64)), round(ir.F8E4M3, randn(r, 64*128))
		want := matmulRef(64, 128, 64, p, func(l, j int) float64 { return v[l*128+j] })
		c := poison(64 * 128)
		err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{}, map[string]any{
			"p": &tle.Tensor{Shape: []int{64, 64}, Data: p}, "v": &tle.Tensor{Shape: []int{64, 128}, Data: v}, "c": c})
		require.NoError(t, err, dev.Name())
		tol := 1e-5
		if dev.Name() != tle.CPU().Name() {
			tol = 1e-3
		}
		require.Less(t, relRMS(c.Data, want), tol, dev.Name())
	}
}

// TestPVTRegA runs pvt_e4m3_reg: c = V^T P^T with V^T loaded from the
// transposed view of V straight into wgmma's register a (row pairs, see
// backend/nvptx/matrix.go), at decode's N of 8, 16 and 32, against the
// float64 product. A wrong fragment or a wrong row pairing of the
// accumulator puts sums in the wrong rows (relative RMS about 1.4).
func TestPVTRegA(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	k := kernel(t, "smem_transpose_fp8.tle", "pvt_e4m3_reg")
	for _, n := range []int{8, 16, 32} {
		for _, dev := range devices(t, "pvt_e4m3_reg") {
			if strings.HasSuffix(dev.Name(), "running given PTX") && n != 32 {
				continue // tools/build-ptx.sh builds N = 32
			}
			pt, v := round(ir.F8E4M3, randn(r, n*64)), round(ir.F8E4M3, randn(r, 64*128))
			vt := make([]float64, 128*64)
			for i := 0; i < 64; i++ {
				for j := 0; j < 128; j++ {
					vt[j*64+i] = v[i*128+j]
				}
			}
			want := matmulRef(128, n, 64, vt, func(l, j int) float64 { return pt[j*64+l] })
			c := poison(128 * n)
			err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"N": fmt.Sprint(n)}}, map[string]any{
				"pt": &tle.Tensor{Shape: []int{n, 64}, Data: pt}, "v": &tle.Tensor{Shape: []int{64, 128}, Data: v}, "c": c})
			require.NoError(t, err, "N=%d %s", n, dev.Name())
			tol := 1e-5
			if dev.Name() != tle.CPU().Name() {
				tol = 1e-3
			}
			require.Less(t, relRMS(c.Data, want), tol, "N=%d %s", n, dev.Name())
		}
	}
}

// TestSmemTransposePTX: with llc-19 the transposes are ldmatrix.x4.trans,
// prmt.b32 (8-bit only: one per register, FA3's 0x6420 / 0x7531) and
// stmatrix.x4, each stmatrix right after the ldmatrix it needs (the
// tile is never whole in registers), and no element-wise ld/st.shared is
// left; the partial tile (SPELL 2) keeps ldmatrix and stmatrix,
// interleaved as well, its select packing the words without prmt;
// pv_e4m3 feeds the stmatrix'd buffer to wgmma after a proxy fence.
func TestSmemTransposePTX(t *testing.T) {
	tletest.NeedLLC(t)
	ldm := tletest.PTXLine(`ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16 \{%r\d+, %r\d+, %r\d+, %r\d+\}, \[%r\d+\];`)
	stm := tletest.PTXLine(`stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 \[%r\d+\], \{%r\d+, %r\d+, %r\d+, %r\d+\};`)
	prmt := tletest.PTXLine(`prmt\.b32 %r\d+, %r\d+, %r\d+, 0x(6420|7531);`)
	anyPrmt := tletest.PTXLine(`prmt\.`)
	elem := tletest.PTXLine(`(ld|st)\.shared\.(u8|b8|s8|u16|b16|v2\.u8|v4\.u8|v2\.b16)\s`)
	anyShared := tletest.PTXLine(`(ld|st)\.shared\.`)
	cases := []struct {
		kernel        string
		defs          map[string]string
		ldm, stm, prm int
	}{
		// [128, 64] bytes over 128 threads: 16 words each, 4 per x4
		{"transpose_e4m3", map[string]string{"SPELL": "0"}, 4, 4, 16},
		{"transpose_e4m3", map[string]string{"SPELL": "1"}, 4, 4, 16},
		// [128, 64] bf16: 32 words each
		{"transpose_bf16", map[string]string{"SPELL": "0"}, 8, 8, 0},
		{"transpose_bf16", map[string]string{"SPELL": "1"}, 8, 8, 0},
		{"transpose_e4m3", map[string]string{"SPELL": "2"}, 4, 4, 0},
		{"transpose_bf16", map[string]string{"SPELL": "2"}, 8, 8, 0},
		{"pv_e4m3", nil, 4, 4, 16},
		// V^T [128, 64] into register a: 16 words each, 4 per x4, one
		// prmt each, no stmatrix
		{"pvt_e4m3_reg", map[string]string{"N": "8"}, 4, 0, 16},
		{"pvt_e4m3_reg", map[string]string{"N": "16"}, 4, 0, 16},
		{"pvt_e4m3_reg", map[string]string{"N": "32"}, 4, 0, 16},
	}
	// every build in one llc run (tle.CompileAll), then the checks
	specs := make([]tle.Spec, len(cases))
	for i, c := range cases {
		specs[i] = tle.Spec{Kernel: kernel(t, "smem_transpose_fp8.tle", c.kernel), Options: tle.CompileOptions{Defines: c.defs}}
	}
	bins, err := tle.CompileAll(specs, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for i, c := range cases {
		name := fmt.Sprint(c.kernel, c.defs)
		b := bins[i]
		require.Len(t, ldm.FindAllString(b.PTX, -1), c.ldm, name)
		require.Len(t, stm.FindAllString(b.PTX, -1), c.stm, name)
		require.Len(t, prmt.FindAllString(b.PTX, -1), c.prm, name)
		require.Len(t, anyPrmt.FindAllString(b.PTX, -1), c.prm, name)
		require.NotRegexp(t, elem, b.PTX, name)
		if c.stm > 0 {
			seq := strings.Join(regexp.MustCompile(`(ld|st)matrix`).FindAllString(b.PTX, -1), " ")
			require.Equal(t, strings.TrimSpace(strings.Repeat("ldmatrix stmatrix ", c.stm)), seq, "%s: ldmatrix and stmatrix interleaved", name)
		}
		if c.kernel == "pvt_e4m3_reg" {
			// no store back: a is four packed registers per wgmma, V's
			// stage read by ldmatrix only, after no barrier but the TMA
			// wait's
			regA := tletest.PTXLine(fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%sk32\.f32\.e4m3\.e4m3\s+\{(%%f\d+, ){%s}%%f\d+\}, \{%%r\d+, %%r\d+, %%r\d+, %%r\d+\}, %%rd\d+, %%wgp, 1, 1;`, c.defs["N"], fmt.Sprint(atoi(c.defs["N"])/2-1)))
			require.Len(t, regA.FindAllString(b.PTX, -1), 4, name)
			require.Len(t, tletest.PTXLine(`wgmma\.mma_async`).FindAllString(b.PTX, -1), 4, name)
			require.Regexp(t, `(?s)ldmatrix.*prmt.*wgmma\.fence.*wgmma\.mma_async`, b.PTX, name)
			require.NotRegexp(t, `(?s)ldmatrix.*bar\.sync.*wgmma\.mma_async`, b.PTX, name)
			continue
		}
		if c.kernel == "pv_e4m3" {
			require.Regexp(t, `(?s)stmatrix.*fence\.proxy\.async\.shared::cta;.*bar\.sync.*wgmma\.mma_async\.sync\.aligned\.m64n128k32\.f32\.e4m3\.e4m3`, b.PTX)
		} else {
			require.NotRegexp(t, anyShared, b.PTX, name)
			// both buffers are swizzled: the TMA maps use the hardware's
			require.Len(t, b.Descs, 2, name)
			for _, d := range b.Descs {
				require.NotZero(t, d.Swizzle, "%s: desc %d", name, d.Param)
			}
		}
	}
}

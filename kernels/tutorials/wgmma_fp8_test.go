package tutorials

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// wgmmaFP8Kernels are the kernels of wgmma_fp8.tle with the dtypes they
// round a and bt to.
var wgmmaFP8Kernels = []struct {
	name   string
	da, db ir.DType
}{
	{"wgmma_e4m3_smem", ir.F8E4M3, ir.F8E4M3},
	{"wgmma_e4m3_reg", ir.F8E4M3, ir.F8E4M3},
	{"wgmma_e4m3_e5m2", ir.F8E4M3, ir.F8E5M2},
	{"wgmma_bf16_reg", ir.BF16, ir.BF16},
}

// TestWgmmaFP8 runs each kernel of wgmma_fp8.tle at decode's small N (8,
// 16, 32), at N = 64 and 256, and K = 64 and 128, against the float64
// product of the rounded operands. Every product of two fp8 (or bf16)
// values is exact in f32, so what differs is the order of the f32 sums,
// and for fp8 on the tensor cores their narrower accumulation: on the H200
// e4m3 at K = 128 is 1.3e-4 off in relative RMS (about 13 bits), which is
// what matmul_fp8's PROMOTE form exists for. A wrong fragment is off by
// about 1.4, an operand rounded twice by about 1e-2.
func TestWgmmaFP8(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, kn := range wgmmaFP8Kernels {
		k := kernel(t, "wgmma_fp8.tle", kn.name)
		for _, nk := range [][2]int{{8, 128}, {16, 64}, {32, 128}, {64, 64}, {256, 128}} {
			n, kk := nk[0], nk[1]
			a, bt := randn(r, 64*kk), randn(r, n*kk)
			// the kernels round the f32 inputs: f64 -> f32 -> dtype
			ar, br := round(kn.da, round(ir.F32, a)), round(kn.db, round(ir.F32, bt))
			want := matmulRef(64, n, kk, ar, func(l, j int) float64 { return br[j*kk+l] })
			defs := map[string]string{"N": fmt.Sprint(n), "K": fmt.Sprint(kk)}
			for _, dev := range devices(t, kn.name) {
				if strings.HasSuffix(dev.Name(), "running given PTX") && (n != 32 || kk != 128) {
					continue // tools/build-ptx.sh builds N = 32, K = 128
				}
				c := poison(64 * n)
				err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{Defines: defs, NumWarps: 4}, map[string]any{
					"a": &tle.Tensor{Shape: []int{64, kk}, Data: a}, "bt": &tle.Tensor{Shape: []int{n, kk}, Data: bt}, "c": c})
				require.NoError(t, err, "%s %s %v", kn.name, dev.Name(), defs)
				tol := 1e-5
				if kn.da.Bytes() == 1 && dev.Name() != tle.CPU().Name() {
					tol = 1e-3
				}
				require.Less(t, relRMS(c.Data, want), tol, "%s %s %v", kn.name, dev.Name(), defs)
			}
		}
	}
}

// TestWgmmaFP8PTX: with llc-19, the register-A kernels read a from four
// packed registers (no shared staging of a) and the fp8 ones use the k32
// forms of their dtypes, at every N the test runs.
func TestWgmmaFP8PTX(t *testing.T) {
	t.Parallel()
	tletest.NeedLLC(t)
	// every build in one llc run (tle.CompileAll), then the checks
	var specs []tle.Spec
	var ns []int
	for _, kn := range wgmmaFP8Kernels {
		k := kernel(t, "wgmma_fp8.tle", kn.name)
		for _, n := range []int{8, 16, 32, 256} {
			specs = append(specs, tle.Spec{Kernel: k, Options: tle.CompileOptions{Defines: map[string]string{"N": fmt.Sprint(n), "K": "128"}, NumWarps: 4}})
			ns = append(ns, n)
		}
	}
	bins, err := tle.CompileAll(specs, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for i, b := range bins {
		kn, n := wgmmaFP8Kernels[i/4], ns[i] // four N a kernel
		ks, ty := "16", kn.da.String()+"."+kn.db.String()
		if kn.da.Bytes() == 1 {
			ks, ty = "32", fp8PTX(kn.da)+"."+fp8PTX(kn.db)
		}
		a := `%rd\d+`
		if kn.name == "wgmma_e4m3_reg" || kn.name == "wgmma_bf16_reg" {
			a = `\{%r\d+, %r\d+, %r\d+, %r\d+\}`
		}
		w := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk%s\.f32\.%s\s+\{(%%f\d+, ){%d}%%f\d+\}, %s, %%rd\d+, %%wgp, 1, 1`, n, ks, ty, n/2-1, a)
		require.Len(t, tletest.PTXLine(w).FindAllString(b.PTX, -1), 128/atoi(ks), "%s N=%d: %s", kn.name, n, w)
	}
}

func fp8PTX(d ir.DType) string { return map[ir.DType]string{ir.F8E4M3: "e4m3", ir.F8E5M2: "e5m2"}[d] }

// TestWgmmaE4M3Chain: wgmma_e4m3_chain's second product reads the first's
// accumulator, rounded to e4m3, as its register a (FP8 attention's P,
// moved between the lanes of each quad by shuffles on the GPU), against
// the float64 products of the rounded operands; an element of P rounded
// the other way at a tie is an e4m3 step (1/16) off in one term of 64.
func TestWgmmaE4M3Chain(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	k := kernel(t, "wgmma_fp8_chain.tle", "wgmma_e4m3_chain")
	for _, nk := range [][2]int{{32, 64}, {64, 64}, {128, 32}} {
		n, kk := nk[0], nk[1]
		a, bt, ct := randn(r, 64*kk), randn(r, n*kk), randn(r, n*n)
		ar, br, cr := round(ir.F8E4M3, round(ir.F32, a)), round(ir.F8E4M3, round(ir.F32, bt)), round(ir.F8E4M3, round(ir.F32, ct))
		s := matmulRef(64, n, kk, ar, func(l, j int) float64 { return br[j*kk+l] })
		p := round(ir.F8E4M3, round(ir.F32, s))
		want := matmulRef(64, n, n, p, func(l, j int) float64 { return cr[j*n+l] })
		defs := map[string]string{"N": fmt.Sprint(n), "K": fmt.Sprint(kk)}
		for _, dev := range devices(t, "wgmma_e4m3_chain") {
			if strings.HasSuffix(dev.Name(), "running given PTX") {
				continue
			}
			c := poison(64 * n)
			err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{Defines: defs, NumWarps: 4}, map[string]any{
				"a": &tle.Tensor{Shape: []int{64, kk}, Data: a}, "bt": &tle.Tensor{Shape: []int{n, kk}, Data: bt},
				"ct": &tle.Tensor{Shape: []int{n, n}, Data: ct}, "c": c})
			require.NoError(t, err, "%s %v", dev.Name(), defs)
			require.Less(t, relRMS(c.Data, want), 1e-2, "%s %v", dev.Name(), defs)
		}
	}
}

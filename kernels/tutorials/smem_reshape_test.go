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

// smemReshapeKernels are the kernels of smem_reshape.tle with their dtype
// and head dimension D.
var smemReshapeKernels = []struct {
	name string
	dt   ir.DType
	d    int
	tma  bool
}{
	{"qk_pages_e4m3", ir.F8E4M3, 128, false},
	{"qk_pages_bf16", ir.BF16, 64, false},
	{"qk_pages_tma_e4m3", ir.F8E4M3, 128, true},
}

// TestSmemReshape runs smem_reshape.tle's kernels on two pages of a cache
// of five, in both orders, against the float64 product of the rounded
// operands: S[m, n] = sum_d q[m, d] k[pages[n/64], n%64, d]. A page read
// into the wrong half of the merged view, or a slot swizzled unlike the
// view, is off by about 1.4 in relative RMS.
func TestSmemReshape(t *testing.T) {
	const page, blocks = 64, 5
	r := rand.New(rand.NewPCG(71, 72))
	for _, kn := range smemReshapeKernels {
		k := kernel(t, "smem_reshape.tle", kn.name)
		for _, pages := range [][]int{{3, 1}, {0, 4}} {
			d := kn.d
			q := randn(r, 64*d)
			kc := randn(r, blocks*page*d)
			if kn.tma {
				kc = round(kn.dt, kc) // the cache is f8e4m3 itself
			}
			qr, kr := round(kn.dt, round(ir.F32, q)), round(kn.dt, round(ir.F32, kc))
			want := matmulRef(64, 2*page, d, qr, func(l, j int) float64 { return kr[(pages[j/page]*page+j%page)*d+l] })
			for _, dev := range devices(t, kn.name) {
				if strings.HasSuffix(dev.Name(), "running given PTX") && pages[0] != 3 {
					continue
				}
				s := poison(64 * 2 * page)
				var kv any = &tle.Tensor{Shape: []int{blocks * page, d}, Data: kc}
				if kn.tma {
					kv = &tle.Tensor{Shape: []int{blocks, page, d}, Data: kc}
				}
				err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, map[string]any{
					"q": &tle.Tensor{Shape: []int{64, d}, Data: q}, "kc": kv,
					"pages": &tle.Tensor{Shape: []int{2}, Data: ints(pages)}, "s": s})
				require.NoError(t, err, "%s %s %v", kn.name, dev.Name(), pages)
				tol := 1e-5
				if kn.dt.Bytes() == 1 && dev.Name() != tle.CPU().Name() {
					tol = 1e-3 // fp8 wgmma's narrower accumulation (see TestWgmmaFP8)
				}
				require.Less(t, relRMS(s.Data, want), tol, "%s %s %v", kn.name, dev.Name(), pages)
			}
		}
	}
}

// TestSmemReshapePTX: with llc-19, each kernel issues ONE wgmma of N = 128
// per k step, reading the merged view of both pages (D/32 of m64n128k32
// for e4m3, D/16 of m64n128k16 for bf16), and none of N = 64.
func TestSmemReshapePTX(t *testing.T) {
	tletest.NeedLLC(t)
	for _, kn := range smemReshapeKernels {
		k := kernel(t, "smem_reshape.tle", kn.name)
		b, err := k.Compile(tle.CompileOptions{NumWarps: 4}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, kn.name)
		ks, ty := "16", "bf16.bf16"
		if kn.dt.Bytes() == 1 {
			ks, ty = "32", "e4m3.e4m3"
		}
		w := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n128k%s\.f32\.%s\s+\{(%%f\d+, ){63}%%f\d+\}, %%rd\d+, %%rd\d+, %%wgp, 1, 1`, ks, ty)
		require.Len(t, tletest.PTXLine(w).FindAllString(b.PTX, -1), kn.d/atoi(ks), "%s: %s", kn.name, w)
		require.NotContains(t, b.PTX, "m64n64k", kn.name)
		require.Equal(t, kn.d/atoi(ks), strings.Count(b.PTX, "wgmma.mma_async"), kn.name)
	}
}

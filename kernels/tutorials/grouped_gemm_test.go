package tutorials

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// TestGroupedGemm runs Triton's grouped GEMM on every device: four
// problems of different sizes (none a multiple of the blocks, row strides
// wider than the rows), their matrices passed through tables of
// addresses, each C_g compared with the float64 product of the f16
// operands; the padding past each row of C_g stays as it was.
func TestGroupedGemm(t *testing.T) {
	k := kernel(t, "grouped_gemm.tle", "grouped_matmul")
	r := rand.New(rand.NewPCG(35, 8))
	type problem struct{ m, n, k, pad int }
	problems := []problem{{40, 24, 50, 3}, {16, 64, 32, 0}, {70, 10, 20, 5}, {33, 48, 96, 8}}
	const numSM, sentinel = 5, 7.0
	for _, dev := range devices(t, "grouped_matmul") {
		var as, bs, cs []any
		var sizes, lds []int32
		type ref struct {
			c    *tle.Tensor
			want []float64
			ldc  int
		}
		var refs []ref
		for _, p := range problems {
			lda, ldb, ldc := p.k+p.pad, p.n+p.pad, p.n+p.pad
			a := round(ir.F16, randn(r, p.m*lda))
			b := round(ir.F16, randn(r, p.k*ldb))
			c := tle.NewTensor(p.m * ldc)
			for i := range c.Data {
				c.Data[i] = math.NaN() // poison: every element of C_g must be written
				if i%ldc >= p.n {
					c.Data[i] = sentinel // the padding must not be
				}
			}
			ac := make([]float64, p.m*p.k)
			for i := 0; i < p.m; i++ {
				copy(ac[i*p.k:(i+1)*p.k], a[i*lda:])
			}
			want := matmulRef(p.m, p.n, p.k, ac, func(l, j int) float64 { return b[l*ldb+j] })
			as = append(as, &tle.Tensor{Shape: []int{len(a)}, Data: a})
			bs = append(bs, &tle.Tensor{Shape: []int{len(b)}, Data: b})
			cs = append(cs, c)
			sizes = append(sizes, int32(p.m), int32(p.n), int32(p.k))
			lds = append(lds, int32(lda), int32(ldb), int32(ldc))
			refs = append(refs, ref{c, want, ldc})
		}
		err := k.Run(dev, [3]int{numSM, 1, 1}, tle.CompileOptions{Defines: map[string]string{"NUM_SM": "5", "BM": "32", "BN": "32", "BK": "16"}},
			map[string]any{
				"a_ptrs": &tle.PointerTable{DType: "f16", Entries: as},
				"b_ptrs": &tle.PointerTable{DType: "f16", Entries: bs},
				"c_ptrs": &tle.PointerTable{DType: "f16", Entries: cs},
				"sizes":  sizes, "lds": lds, "group_size": int32(len(problems)),
			})
		require.NoError(t, err, dev.Name())
		for g, p := range problems {
			got := make([]float64, p.m*p.n)
			for i := 0; i < p.m; i++ {
				for j := 0; j < refs[g].ldc; j++ {
					v := refs[g].c.Data[i*refs[g].ldc+j]
					if j >= p.n {
						require.Equal(t, sentinel, v, "%s: group %d wrote the padding at (%d, %d)", dev.Name(), g, i, j)
						continue
					}
					got[i*p.n+j] = v
				}
			}
			// f16 outputs: within a rounding of the exact product
			require.Less(t, relRMS(got, refs[g].want), 1e-3, "%s: group %d (%dx%dx%d)", dev.Name(), g, p.m, p.n, p.k)
		}
	}
}

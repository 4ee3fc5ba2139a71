package tutorials

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// TestGroupedGemm runs Triton's grouped GEMM, masked, on every device:
// four problems of different sizes (none a multiple of the blocks, row
// strides wider than the rows).
func TestGroupedGemm(t *testing.T) {
	checkGroupedGemm(t, "grouped_matmul", []gemmProblem{{40, 24, 50, 3}, {16, 64, 32, 0}, {70, 10, 20, 5}, {33, 48, 96, 8}})
}

// TestGroupedGemmAligned runs the tutorial's unmasked kernel with its
// multiple_of hints: sizes multiples of the blocks, row strides multiples
// of 8 f16. On the interpreter a stride that breaks the hint is an error
// at the hint.
func TestGroupedGemmAligned(t *testing.T) {
	checkGroupedGemm(t, "grouped_matmul_aligned", []gemmProblem{{64, 32, 48, 8}, {32, 96, 16, 0}, {96, 64, 32, 16}})
	k := kernel(t, "grouped_gemm.tle", "grouped_matmul_aligned")
	a, b, c := make([]uint16, 32*20), make([]uint16, 16*32), make([]uint16, 32*32)
	for i := range a {
		a[i] = 0x3c00 // 1.0
	}
	for i := range b {
		b[i] = 0x3c00
	}
	err := k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"NUM_SM": "1", "BM": "32", "BN": "32", "BK": "16"}},
		map[string]any{
			"a_ptrs": &tle.PointerTable{DType: "f16", Entries: []any{a}},
			"b_ptrs": &tle.PointerTable{DType: "f16", Entries: []any{b}},
			"c_ptrs": &tle.PointerTable{DType: "f16", Entries: []any{c}},
			"sizes":  []int32{32, 32, 16}, "lds": []int32{20, 32, 32}, "group_size": int32(1),
		})
	require.Error(t, err)
	require.Contains(t, err.Error(), "grouped_gemm.tle:")
	require.Contains(t, err.Error(), "multiple_of(x, 16) along axis 0 is false: element (1, 0), which starts a run, is a pointer to element 20 of a_ptrs[0] (byte offset 40), not a multiple of 16")
}

// gemmProblem is one product of a grouped GEMM test: C (m x n) = A (m x k)
// B (k x n), each row padded by pad elements.
type gemmProblem struct{ m, n, k, pad int }

// checkGroupedGemm runs kernel on every device with problems, their
// matrices passed through tables of addresses, each C_g compared with the
// float64 product of the f16 operands; the padding past each row of C_g
// stays as it was.
func checkGroupedGemm(t *testing.T, name string, problems []gemmProblem) {
	k := kernel(t, "grouped_gemm.tle", name)
	r := rand.New(rand.NewPCG(35, 8))
	const numSM, sentinel = 5, 7.0
	for _, dev := range devices(t, name) {
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

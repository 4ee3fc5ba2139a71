package interp

import (
	"math/rand"
	"testing"

	"github.com/tlego/tle/ir"
)

// BenchmarkVectorAdd: 2^22 f32 elements in blocks of 1024 (4096 CTAs).
func BenchmarkVectorAdd(b *testing.B) {
	const n = 1 << 22
	r := rand.New(rand.NewSource(1))
	x, y := FromFloat64(ir.F32, randoms(r, n)), FromFloat64(ir.F32, randoms(r, n))
	out := NewBuffer(ir.F32, n)
	m := vectorAdd(1024)
	args := []Arg{x, y, out, n}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Launch(m, "vector_add", [3]int{n / 1024, 1, 1}, args, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
}

// BenchmarkMatmul: 512x512x512 bf16 inputs, f32 accumulation, 64x64
// program tiles with a K loop of 64-wide dots (64 CTAs).
func BenchmarkMatmul(b *testing.B) {
	const M, N, K = 512, 512, 512
	r := rand.New(rand.NewSource(2))
	A, B := FromFloat64(ir.BF16, randoms(r, M*K)), FromFloat64(ir.BF16, randoms(r, K*N))
	C := NewBuffer(ir.F32, M*N)
	m := matmul(64, 64, 64)
	args := []Arg{A, B, C, M, N, K}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Launch(m, "matmul", [3]int{M / 64, N / 64, 1}, args, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*M*N*K*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

package tutorials

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// devices are the devices every tutorial runs on: the interpreter always,
// the GPU when one is present (PTX from the toolchain $TLE_TOOLCHAIN picks).
// With $TLE_TEST_PTX_DIR set, the GPU also runs the PTX files found there as
// KERNEL.ptx (built elsewhere by tlec build, e.g. with llc-19 on a machine
// without a GPU: see tools/build-ptx.sh).
func devices(t *testing.T, kernel string) []tle.Device {
	devs, noGPU := tle.Devices()
	if noGPU != nil {
		t.Logf("GPU runs skipped: %v", noGPU)
		return devs
	}
	g := devs[1].(*tle.GPU)
	if dir := os.Getenv("TLE_TEST_PTX_DIR"); dir != "" {
		ptx, err := os.ReadFile(filepath.Join(dir, kernel+".ptx"))
		if err != nil {
			t.Errorf("no carried PTX for %s: %v", kernel, err)
		} else {
			devs = append(devs, g.With(tle.GPUOptions{PTX: string(ptx)}))
		}
	}
	return devs
}

func kernel(t *testing.T, file, name string) *tle.Kernel {
	t.Helper()
	prog, err := tle.Load(FS, file)
	require.NoError(t, err)
	k, err := prog.Kernel(name)
	require.NoError(t, err)
	return k
}

var (
	randn = tletest.Randn
	round = tletest.Round
)

// relRMS is ||got - want|| / ||want||.
var relRMS = tletest.RelRMS

// poison fills an output with NaN so that an element the kernel fails to
// write shows up in the comparison.
func poison(n int) *tle.Tensor {
	t := tle.NewTensor(n)
	for i := range t.Data {
		t.Data[i] = math.NaN()
	}
	return t
}

func cdiv(a, b int) int { return (a + b - 1) / b }

func TestVectorAdd(t *testing.T) {
	k := kernel(t, "vector_add.tle", "vector_add")
	r := rand.New(rand.NewPCG(1, 2))
	const n, block = 1000, 256 // n is not a multiple of the block: the tail is masked
	for _, dev := range devices(t, "vector_add") {
		x, y := round(ir.F32, randn(r, n)), round(ir.F32, randn(r, n))
		out := poison(n)
		err := k.Run(dev, [3]int{cdiv(n, block), 1, 1}, tle.CompileOptions{Defines: map[string]string{"BLOCK": "256"}},
			map[string]any{"x": &tle.Tensor{Shape: []int{n}, Data: x}, "y": &tle.Tensor{Shape: []int{n}, Data: y}, "out": out, "n": n})
		require.NoError(t, err, dev.Name())
		want := make([]float64, n)
		for i := range want {
			want[i] = x[i] + y[i]
		}
		require.Less(t, relRMS(out.Data, want), 1e-7, dev.Name())
	}
}

func TestSoftmax(t *testing.T) {
	k := kernel(t, "softmax.tle", "softmax")
	r := rand.New(rand.NewPCG(3, 4))
	const rows, cols = 37, 300
	for _, dev := range devices(t, "softmax") {
		x := round(ir.F32, randn(r, rows*cols))
		out := poison(rows * cols)
		err := k.Run(dev, [3]int{rows, 1, 1}, tle.CompileOptions{Defines: map[string]string{"BLOCK": "512"}},
			map[string]any{"x": &tle.Tensor{Shape: []int{rows, cols}, Data: x}, "out": out, "n_cols": cols, "stride": cols})
		require.NoError(t, err, dev.Name())
		want := make([]float64, rows*cols)
		for i := 0; i < rows; i++ {
			row := x[i*cols : (i+1)*cols]
			m := math.Inf(-1)
			for _, v := range row {
				m = math.Max(m, v)
			}
			s := 0.0
			for _, v := range row {
				s += math.Exp(v - m)
			}
			for j, v := range row {
				want[i*cols+j] = math.Exp(v-m) / s
			}
		}
		require.Less(t, relRMS(out.Data, want), 1e-5, dev.Name())
	}
}

func TestMatmul(t *testing.T) {
	k := kernel(t, "matmul.tle", "matmul")
	r := rand.New(rand.NewPCG(5, 6))
	const M, N, K = 100, 72, 80 // none a multiple of its block
	for _, dev := range devices(t, "matmul") {
		a, b := round(ir.BF16, randn(r, M*K)), round(ir.BF16, randn(r, K*N))
		c := poison(M * N)
		err := k.Run(dev, [3]int{cdiv(M, 64), cdiv(N, 32), 1}, tle.CompileOptions{Defines: map[string]string{"BM": "64", "BN": "32", "BK": "32"}},
			map[string]any{"a": &tle.Tensor{Shape: []int{M, K}, Data: a}, "b": &tle.Tensor{Shape: []int{K, N}, Data: b}, "c": c, "M": M, "N": N, "K": K})
		require.NoError(t, err, dev.Name())
		want := matmulRef(M, N, K, a, func(l, j int) float64 { return b[l*N+j] })
		// The output is bf16: its rounding alone is up to 2^-9 relative.
		require.Less(t, relRMS(c.Data, want), 4e-3, dev.Name())
	}
}

// TestMatmulMMASync: the same matmul with CompileOptions.DotMMASync (its
// dot on mma.sync rather than wgmma), on a GPU only (the interpreter runs
// dot the same way either way).
func TestMatmulMMASync(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	k := kernel(t, "matmul.tle", "matmul")
	r := rand.New(rand.NewPCG(5, 7))
	const M, N, K = 200, 192, 272 // M and N not multiples of their blocks; N and K multiples of 16, so both operands are pipelined
	a, b := round(ir.BF16, randn(r, M*K)), round(ir.BF16, randn(r, K*N))
	c := poison(M * N)
	opts := tle.CompileOptions{Defines: map[string]string{"BM": "128", "BN": "64", "BK": "64"}, DotMMASync: true}
	err = k.Run(g, [3]int{cdiv(M, 128), cdiv(N, 64), 1}, opts,
		map[string]any{"a": &tle.Tensor{Shape: []int{M, K}, Data: a}, "b": &tle.Tensor{Shape: []int{K, N}, Data: b}, "c": c, "M": M, "N": N, "K": K})
	require.NoError(t, err)
	want := matmulRef(M, N, K, a, func(l, j int) float64 { return b[l*N+j] })
	require.Less(t, relRMS(c.Data, want), 4e-3)
}

func TestLayerNorm(t *testing.T) {
	k := kernel(t, "layer_norm.tle", "layer_norm")
	r := rand.New(rand.NewPCG(7, 8))
	const rows, eps = 20, 1e-5
	// 300 columns mask the block's tail; 512 fill it (a mask all on, the
	// interpreter's one-copy loads and stores)
	for _, cols := range []int{300, 512} {
		for _, dev := range devices(t, "layer_norm") {
			x := round(ir.F32, randn(r, rows*cols))
			w, b := round(ir.F32, randn(r, cols)), round(ir.F32, randn(r, cols))
			out := poison(rows * cols)
			err := k.Run(dev, [3]int{rows, 1, 1}, tle.CompileOptions{Defines: map[string]string{"BLOCK": "512"}},
				map[string]any{"x": &tle.Tensor{Shape: []int{rows, cols}, Data: x}, "w": &tle.Tensor{Shape: []int{cols}, Data: w},
					"b": &tle.Tensor{Shape: []int{cols}, Data: b}, "out": out, "n_cols": cols, "eps": eps})
			require.NoError(t, err, dev.Name())
			want := make([]float64, rows*cols)
			for i := 0; i < rows; i++ {
				row := x[i*cols : (i+1)*cols]
				mean := 0.0
				for _, v := range row {
					mean += v
				}
				mean /= float64(cols)
				variance := 0.0
				for _, v := range row {
					variance += (v - mean) * (v - mean)
				}
				variance /= float64(cols)
				for j, v := range row {
					want[i*cols+j] = (v-mean)/math.Sqrt(variance+eps)*w[j] + b[j]
				}
			}
			require.Less(t, relRMS(out.Data, want), 1e-5, dev.Name())
		}
	}
}

func TestPipeScale(t *testing.T) {
	k := kernel(t, "pipe_scale.tle", "pipe_scale")
	r := rand.New(rand.NewPCG(9, 10))
	const programs, rows, row = 3, 8, 256
	for _, dev := range devices(t, "pipe_scale") {
		x := round(ir.F32, randn(r, programs*rows*row))
		out := poison(programs * rows * row)
		err := k.Run(dev, [3]int{programs, 1, 1}, tle.CompileOptions{Defines: map[string]string{"ROWS": "8", "ROW": "256", "CAP": "2"}},
			map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}, "out": out, "scale": 1.5})
		require.NoError(t, err, dev.Name())
		want := make([]float64, len(x))
		for i, v := range x {
			want[i] = v * 1.5
		}
		require.Less(t, relRMS(out.Data, want), 1e-7, dev.Name())
	}
}

func TestClusterExchange(t *testing.T) {
	k := kernel(t, "cluster_exchange.tle", "cluster_exchange")
	r := rand.New(rand.NewPCG(11, 12))
	const programs, block = 6, 128
	for _, dev := range devices(t, "cluster_exchange") {
		x := round(ir.F32, randn(r, programs*block))
		out := poison(programs * block)
		err := k.Run(dev, [3]int{programs, 1, 1}, tle.CompileOptions{Defines: map[string]string{"BLOCK": "128"}},
			map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}, "out": out})
		require.NoError(t, err, dev.Name())
		want := make([]float64, len(x))
		for p := 0; p < programs; p++ {
			copy(want[p*block:(p+1)*block], x[(p^1)*block:((p^1)+1)*block])
		}
		require.Equal(t, want, out.Data, dev.Name())
	}
}

//go:build gpu

// GPU validation of the generated code (build with -tags gpu): every test
// kernel runs on device 0 with PTX from libNVVM (compiled here, at run time)
// and, when $TLE_PTX_DIR holds them, from llc-19 (made on a machine with
// LLVM by `TLE_DUMP_DIR=dir go test ./backend/nvptx`), and is checked
// against a float64 Go reference; the benchmarks report bandwidth / TFLOP/s.
package nvptx

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"unsafe"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
)

type nvvmAdapter struct{ n *cuda.NVVM }

func (a nvvmAdapter) Compile(src string, opts []string) (string, string, error) {
	ptx, log, err := a.n.Compile([]cuda.NVVMModule{{Name: "tle", IR: []byte(src)}}, opts...)
	return string(ptx), log, err
}

var gpuCtx *cuda.Context

func testGPU(t testing.TB) *cuda.Context {
	t.Helper()
	if gpuCtx == nil {
		c, err := cuda.Open(0)
		if err != nil {
			t.Skipf("no GPU: %v", err)
		}
		gpuCtx = c
	}
	return gpuCtx
}

// toolchains lists the PTX sources to test: "nvvm" and "llc" (from files).
func toolchains(t testing.TB, name string, res *Result) map[string]string {
	out := map[string]string{}
	if n, err := cuda.LoadNVVM(); err == nil {
		ptx, err := (&NVVM{C: nvvmAdapter{n}}).PTX(res.LLVMIR, "sm_90a")
		if err != nil {
			t.Errorf("%s: nvvm: %v", name, err)
		} else {
			out["nvvm"] = ptx
		}
	} else {
		t.Logf("no libNVVM: %v", err)
	}
	if dir := os.Getenv("TLE_PTX_DIR"); dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, name+".ptx")); err == nil {
			out["llc"] = string(b)
		}
	}
	if len(out) == 0 {
		t.Skip("no PTX source (no libNVVM, no $TLE_PTX_DIR)")
	}
	return out
}

type kernelRun struct {
	fn   *cuda.Function
	k    Kernel
	smem int
}

func load(t testing.TB, ptx string, k Kernel) *kernelRun {
	t.Helper()
	ctx := testGPU(t)
	mod, err := ctx.LoadPTX([]byte(ptx))
	if err != nil {
		t.Fatalf("load %s: %v", k.Name, err)
	}
	fn, err := mod.Function(k.Name)
	if err != nil {
		t.Fatal(err)
	}
	if k.SmemBytes > 48*1024 {
		if err := fn.SetMaxDynamicSharedMemory(k.SmemBytes); err != nil {
			t.Fatal(err)
		}
	}
	regs, _ := fn.NumRegs()
	local, _ := fn.LocalSize()
	t.Logf("%s: %d regs, %d B local, %d B dynamic smem, %d warps", k.Name, regs, local, k.SmemBytes, k.NumWarps)
	return &kernelRun{fn: fn, k: k, smem: k.SmemBytes}
}

func (r *kernelRun) launch(t testing.TB, grid int, args ...any) { r.launch2(t, grid, 1, args...) }

func (r *kernelRun) launch2(t testing.TB, gx, gy int, args ...any) {
	t.Helper()
	cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: uint32(gx), Y: uint32(gy), Z: 1}, Block: cuda.Dim3{X: uint32(r.k.NumWarps * 32), Y: 1, Z: 1}, SharedMem: r.smem}
	if err := r.fn.Launch(cfg, args...); err != nil {
		t.Fatalf("launch %s: %v", r.k.Name, err)
	}
	if err := gpuCtx.Synchronize(); err != nil {
		t.Fatalf("%s: %v", r.k.Name, err)
	}
}

// timeIt returns the median time in ms of fn over iters runs.
func timeIt(t testing.TB, iters int, fn func()) float64 {
	ctx := gpuCtx
	fn()
	ctx.Synchronize()
	var ts []float64
	for i := 0; i < iters; i++ {
		a, _ := ctx.NewEvent(0)
		b, _ := ctx.NewEvent(0)
		a.Record(nil)
		fn()
		b.Record(nil)
		b.Synchronize()
		ms, _ := b.Since(a)
		ts = append(ts, float64(ms))
		a.Destroy()
		b.Destroy()
	}
	sort.Float64s(ts)
	return ts[len(ts)/2]
}

func up[T any](t testing.TB, x []T) cuda.DevicePtr {
	p, err := cuda.Upload(gpuCtx, x)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func down[T any](t testing.TB, x []T, p cuda.DevicePtr) []T {
	if err := cuda.Download(gpuCtx, x, p); err != nil {
		t.Fatal(err)
	}
	return x
}

func zeros[T any](t testing.TB, n int) cuda.DevicePtr {
	var z T
	p, err := gpuCtx.Alloc(n * int(unsafe.Sizeof(z)))
	if err != nil {
		t.Fatal(err)
	}
	gpuCtx.MemsetD8(p, 0, n*int(unsafe.Sizeof(z)))
	return p
}

func closeTo(got, want, rtol, atol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= atol+rtol*math.Abs(want)
}

func checkF32(t *testing.T, what string, got []float32, want []float64, rtol, atol float64) {
	t.Helper()
	bad := 0
	for i := range want {
		if !closeTo(float64(got[i]), want[i], rtol, atol) {
			if bad < 5 {
				t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d wrong", what, bad, len(want))
	}
}

func build(t testing.TB, m *ir.Module, nw int) *Result {
	return compileIR(t, m, nw)
}

func forEachPTX(t *testing.T, name string, m *ir.Module, nw int, fn func(t *testing.T, r *kernelRun)) {
	testGPU(t)
	res := build(t, m, nw)
	for tc, ptx := range toolchains(t, name, res) {
		t.Run(tc, func(t *testing.T) { fn(t, load(t, ptx, res.Kernels[0])) })
	}
}

func randF32(n int, lo, hi float64, seed int64) []float32 {
	r := rand.New(rand.NewSource(seed))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return x
}

func TestGPUVectorAdd(t *testing.T) {
	forEachPTX(t, "vector_add", vectorAddIR(1024, false), 4, func(t *testing.T, r *kernelRun) {
		n := 1000003
		x, y := randF32(n, -1, 1, 1), randF32(n, -1, 1, 2)
		px, py, po := up(t, x), up(t, y), zeros[float32](t, n+64)
		r.launch(t, (n+1023)/1024, px, py, po, int32(n))
		got := down(t, make([]float32, n+64), po)
		want := make([]float64, n+64)
		for i := 0; i < n; i++ {
			want[i] = float64(x[i] + y[i])
		}
		checkF32(t, "out", got, want, 0, 0)
	})
}

func TestGPUSoftmax(t *testing.T) {
	forEachPTX(t, "softmax", softmaxIR(8192, 16), 16, func(t *testing.T, r *kernelRun) {
		rows, cols := 64, 8000
		x := randF32(rows*cols, -5, 5, 3)
		px, po := up(t, x), zeros[float32](t, rows*cols)
		r.launch(t, rows, po, px, int32(cols), int32(cols), int32(cols))
		got := down(t, make([]float32, rows*cols), po)
		want := make([]float64, rows*cols)
		for i := 0; i < rows; i++ {
			mx := math.Inf(-1)
			for j := 0; j < cols; j++ {
				mx = math.Max(mx, float64(x[i*cols+j]))
			}
			s := 0.0
			for j := 0; j < cols; j++ {
				s += math.Exp(float64(x[i*cols+j]) - mx)
			}
			for j := 0; j < cols; j++ {
				want[i*cols+j] = math.Exp(float64(x[i*cols+j])-mx) / s
			}
		}
		checkF32(t, "softmax", got, want, 1e-4, 1e-9)
	})
}

func TestGPULayerNorm(t *testing.T) {
	forEachPTX(t, "layer_norm", layerNormIR(1024), 8, func(t *testing.T, r *kernelRun) {
		rows, n := 48, 3008
		x := randF32(rows*n, -3, 3, 4)
		w, b := randF32(n, 0.5, 1.5, 5), randF32(n, -1, 1, 6)
		px, pw, pb := up(t, x), up(t, w), up(t, b)
		py, pm, pr := zeros[float32](t, rows*n), zeros[float32](t, rows), zeros[float32](t, rows)
		r.launch(t, rows, px, py, pw, pb, pm, pr, int32(n), int32(n), float32(1e-5))
		got := down(t, make([]float32, rows*n), py)
		want := make([]float64, rows*n)
		for i := 0; i < rows; i++ {
			mean, vr := 0.0, 0.0
			for j := 0; j < n; j++ {
				mean += float64(x[i*n+j])
			}
			mean /= float64(n)
			for j := 0; j < n; j++ {
				d := float64(x[i*n+j]) - mean
				vr += d * d
			}
			rstd := 1 / math.Sqrt(vr/float64(n)+1e-5)
			for j := 0; j < n; j++ {
				want[i*n+j] = (float64(x[i*n+j])-mean)*rstd*float64(w[j]) + float64(b[j])
			}
		}
		checkF32(t, "y", got, want, 1e-4, 1e-4)
	})
}

func bf16bits(x float64) uint16 { return floats.Encode(floats.BF16, x) }
func bf16val(b uint16) float64  { return floats.Decode(floats.BF16, b) }

// randBF16Operands are the operands A [M, K] and B [K, N] of a bf16
// matmul, uniform in [-1, 1) from seed (A drawn first).
func randBF16Operands(M, N, K int, seed int64) (a, b []uint16) {
	rnd := rand.New(rand.NewSource(seed))
	a, b = make([]uint16, M*K), make([]uint16, K*N)
	for i := range a {
		a[i] = bf16bits(rnd.Float64()*2 - 1)
	}
	for i := range b {
		b[i] = bf16bits(rnd.Float64()*2 - 1)
	}
	return a, b
}

// checkBF16Matmul compares C [M, N] (bf16) with the float64 product of A
// and B.
func checkBF16Matmul(t *testing.T, a, b, c []uint16, M, N, K int) {
	t.Helper()
	got, want := make([]float32, M*N), make([]float64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := 0.0
			for k := 0; k < K; k++ {
				s += bf16val(a[i*K+k]) * bf16val(b[k*N+j])
			}
			want[i*N+j], got[i*N+j] = s, float32(bf16val(c[i*N+j]))
		}
	}
	checkF32(t, "c", got, want, 1e-2, 1e-2)
}

func TestGPUMatmul(t *testing.T) {
	for _, mc := range matmulConfigs {
		m := matmulIR(mc.bm, mc.bn, mc.bk, 8, mc.warps, ir.BF16)
		m.Funcs[0].Attrs["num_stages"] = int64(mc.stages)
		t.Run(mc.name(), func(t *testing.T) { testMatmul(t, mc.name(), m, mc.warps, mc.bm, mc.bn) })
	}
}

func testMatmul(t *testing.T, name string, m *ir.Module, nw, bm, bn int) {
	forEachPTX(t, name, m, nw, func(t *testing.T, r *kernelRun) {
		M, N, K := 400, 272, 208
		a, b := randBF16Operands(M, N, K, 7)
		pa, pb, pc := up(t, a), up(t, b), zeros[uint16](t, M*N)
		grid := ((M + bm - 1) / bm) * ((N + bn - 1) / bn)
		r.launch(t, grid, pa, pb, pc, int32(M), int32(N), int32(K), int32(K), int32(N), int32(N))
		checkBF16Matmul(t, a, b, down(t, make([]uint16, M*N), pc), M, N, K)
	})
}

func TestGPUReduce2D(t *testing.T) {
	forEachPTX(t, "reduce2d", reduce2dIR(64, 128, 4), 4, func(t *testing.T, r *kernelRun) {
		R, C := 64, 128
		x := randF32(R*C, -1, 1, 8)
		px, ps, pm := up(t, x), zeros[float32](t, R), zeros[float32](t, C)
		r.launch(t, 1, px, ps, pm)
		rs, cm := make([]float64, R), make([]float64, C)
		for c := range cm {
			cm[c] = math.Inf(-1)
		}
		for i := 0; i < R; i++ {
			for j := 0; j < C; j++ {
				rs[i] += float64(x[i*C+j])
				cm[j] = math.Max(cm[j], float64(x[i*C+j]))
			}
		}
		checkF32(t, "rowsum", down(t, make([]float32, R), ps), rs, 1e-5, 1e-5)
		checkF32(t, "colmax", down(t, make([]float32, C), pm), cm, 0, 0)
	})
}

func TestGPUCumsum(t *testing.T) {
	forEachPTX(t, "cumsum", cumsumIR(1024, 4), 4, func(t *testing.T, r *kernelRun) {
		n := 1024
		xi := make([]int32, n)
		for i := range xi {
			xi[i] = int32(i%7 - 3)
		}
		xf := randF32(n, 0, 1, 9)
		pxi, pyi, pzi := up(t, xi), zeros[int32](t, n), zeros[int32](t, n)
		pxf, pyf := up(t, xf), zeros[float32](t, n)
		r.launch(t, 1, pxi, pyi, pzi, pxf, pyf)
		yi, zi := down(t, make([]int32, n), pyi), down(t, make([]int32, n), pzi)
		s, total := int32(0), int32(0)
		for _, v := range xi {
			total += v
		}
		bad := 0
		for i := range xi {
			s += xi[i]
			if yi[i] != s || zi[i] != total-s+xi[i] {
				if bad < 5 {
					t.Errorf("i=%d: cumsum %d (want %d), reverse %d (want %d)", i, yi[i], s, zi[i], total-s+xi[i])
				}
				bad++
			}
		}
		want := make([]float64, n)
		acc := 0.0
		for i := range xf {
			acc += float64(xf[i])
			want[i] = acc
		}
		checkF32(t, "cumsum f32", down(t, make([]float32, n), pyf), want, 1e-5, 1e-4)
	})
}

func TestGPUCasts(t *testing.T) {
	forEachPTX(t, "casts", castsIR(512), 4, func(t *testing.T, r *kernelRun) {
		n := 512
		x := randF32(n, -600, 600, 10)
		specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 1.5, 2.5, -2.5, 65504, 70000, 448, 500, 1e-8, -1e-8, 3.0e-5, 123.456}
		copy(x, specials)
		for i := 16; i < 64; i++ {
			x[i] = float32(math.Ldexp(1.0+float64(i)/64, i-40))
		}
		px := up(t, x)
		outs := make([]cuda.DevicePtr, 7)
		for i := range outs {
			outs[i] = zeros[float32](t, n)
		}
		r.launch(t, 1, px, outs[0], outs[1], outs[2], outs[3], outs[4], outs[5], outs[6])
		for i, d := range []ir.DType{ir.BF16, ir.F16, ir.F8E4M3, ir.F8E5M2} {
			want := make([]float64, n)
			for j := range x {
				want[j] = d.Round(float64(x[j]))
			}
			checkF32(t, d.String(), down(t, make([]float32, n), outs[i]), want, 0, 0)
		}
		gi := down(t, make([]int32, n), outs[4])
		gb := down(t, make([]float32, n), outs[5])
		g8 := down(t, make([]int8, n), outs[6])
		for j := range x {
			w := int32(x[j])
			if gi[j] != w || gb[j] != float32(w)+0.5 || g8[j] != int8(w) {
				t.Errorf("x=%v: i32 %d i8 %d back %v", x[j], gi[j], g8[j], gb[j])
			}
		}
	})
}

func TestGPUMath(t *testing.T) {
	m, names := mathIR(512)
	forEachPTX(t, "mathfn", m, 4, func(t *testing.T, r *kernelRun) {
		n := 512
		x := randF32(n, 0.01, 4, 11)
		for i := 0; i < 64; i++ {
			x[i] = float32(-3 + 6*float64(i)/64)
		}
		px, po := up(t, x), zeros[float32](t, n*len(names))
		r.launch(t, 1, px, po)
		got := down(t, make([]float32, n*len(names)), po)
		fs := map[string]func(float64) float64{
			"exp": math.Exp, "exp2": math.Exp2, "log": math.Log, "log2": math.Log2, "sqrt": math.Sqrt,
			"rsqrt":   func(v float64) float64 { return 1 / math.Sqrt(v) },
			"sigmoid": func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }, "tanh": math.Tanh, "abs": math.Abs,
			"neg": func(v float64) float64 { return -v }, "min": func(v float64) float64 { return math.Min(v, 0.5) },
			"max": func(v float64) float64 { return math.Max(v, 0.5) }, "poly": func(v float64) float64 { return v*v - v },
		}
		for j, name := range names {
			want := make([]float64, n)
			for i := range x {
				want[i] = fs[name](float64(x[i]))
			}
			tol := 2e-6
			if name == "tanh" {
				tol = 2e-3
			}
			checkF32(t, name, got[j*n:(j+1)*n], want, tol, 1e-6)
		}
	})
}

func TestGPUTranspose(t *testing.T) {
	forEachPTX(t, "transpose", transIR(64, 32), 4, func(t *testing.T, r *kernelRun) {
		R, C := 64, 32
		x := randF32(R*C, -1, 1, 12)
		px, py, pz := up(t, x), zeros[float32](t, R*C), zeros[float32](t, R*C)
		r.launch(t, 1, px, py, pz)
		want := make([]float64, R*C)
		for i := 0; i < R; i++ {
			for j := 0; j < C; j++ {
				want[j*R+i] = float64(x[i*C+j])
			}
		}
		checkF32(t, "trans", down(t, make([]float32, R*C), py), want, 0, 0)
		for i := range want {
			want[i] = float64(x[i])
		}
		checkF32(t, "reshape", down(t, make([]float32, R*C), pz), want, 0, 0)
	})
}

func TestGPUAtomics(t *testing.T) {
	forEachPTX(t, "atomics", atomicIR(), 4, func(t *testing.T, r *kernelRun) {
		n := 10000
		idx, x := make([]int32, n), make([]int32, n)
		for i := range idx {
			idx[i] = int32((i * 7919) % 61)
			x[i] = int32((i*104729)%100003 - 50000)
		}
		pi, ph, px, pm := up(t, idx), zeros[float32](t, 61), up(t, x), up(t, []int32{math.MinInt32})
		progs := (n + 255) / 256
		pc, pt := zeros[int32](t, 1), zeros[int32](t, progs)
		r.launch(t, progs, pi, ph, px, pm, int32(n), pc, pt)
		tickets := down(t, make([]int32, progs), pt)
		seen := map[int32]bool{}
		for _, tk := range tickets {
			seen[tk] = true
		}
		if c := down(t, make([]int32, 1), pc)[0]; c != int32(progs) || len(seen) != progs {
			t.Errorf("scalar atomic: count %d, %d distinct tickets, want %d", c, len(seen), progs)
		}
		want := make([]float64, 61)
		mx := int32(math.MinInt32)
		for i := range idx {
			want[idx[i]]++
			if x[i] > mx {
				mx = x[i]
			}
		}
		checkF32(t, "hist", down(t, make([]float32, 61), ph), want, 0, 0)
		if g := down(t, make([]int32, 1), pm)[0]; g != mx {
			t.Errorf("max = %d, want %d", g, mx)
		}
	})
}

func f16bits(x float64) uint16 { return floats.Encode(floats.F16, x) }
func f16val(b uint16) float64  { return floats.Decode(floats.F16, b) }

func TestGPUAttention(t *testing.T) {
	forEachPTX(t, "attention", attentionIR(64, 64, 64, 4, 0.125), 4, func(t *testing.T, r *kernelRun) {
		M, N, D := 64, 64, 64
		rnd := rand.New(rand.NewSource(13))
		mk := func(n int) []uint16 {
			v := make([]uint16, n)
			for i := range v {
				v[i] = f16bits(rnd.Float64()*2 - 1)
			}
			return v
		}
		q, k, v := mk(M*D), mk(N*D), mk(N*D)
		po := zeros[float32](t, M*D)
		r.launch(t, 1, up(t, q), up(t, k), up(t, v), po)
		want := make([]float64, M*D)
		for i := 0; i < M; i++ {
			s := make([]float64, N)
			mx := math.Inf(-1)
			for j := 0; j < N; j++ {
				for d := 0; d < D; d++ {
					s[j] += f16val(q[i*D+d]) * f16val(k[j*D+d])
				}
				s[j] *= 0.125
				mx = math.Max(mx, s[j])
			}
			l := 0.0
			for j := range s {
				s[j] = math.Exp(s[j] - mx)
				l += s[j]
			}
			for d := 0; d < D; d++ {
				o := 0.0
				for j := 0; j < N; j++ {
					o += ir.F16.Round(s[j]) * f16val(v[j*D+d])
				}
				want[i*D+d] = o / l
			}
		}
		checkF32(t, "o", down(t, make([]float32, M*D), po), want, 5e-3, 5e-3)
	})
}

// ---- benchmarks against a device-to-device copy (run with -test.run GPUPerf)

func TestGPUPerf(t *testing.T) {
	ctx := testGPU(t)
	const n = 1 << 28 // 1 GiB of f32 per operand
	bytes := n * 4
	a, _ := ctx.Alloc(bytes)
	b, _ := ctx.Alloc(bytes)
	c, _ := ctx.Alloc(bytes)
	defer ctx.Free(a)
	defer ctx.Free(b)
	defer ctx.Free(c)
	ctx.MemsetD32(a, math.Float32bits(1), n)
	ctx.MemsetD32(b, math.Float32bits(2), n)
	copyMs := timeIt(t, 20, func() { ctx.CopyDtoD(c, a, bytes) })
	copyBW := 2 * float64(bytes) / copyMs / 1e6
	t.Logf("D2D copy 1 GiB: %.3f ms, %.0f GB/s", copyMs, copyBW)
	report := func(name string, ms, moved float64) {
		bw := moved / ms / 1e6
		t.Logf("%s: %.3f ms, %.0f GB/s = %.1f%% of copy", name, ms, bw, 100*bw/copyBW)
	}
	for _, blk := range []int{1024, 2048, 4096} {
		for _, nw := range []int{4, 8} {
			res := build(t, vectorAddIR(blk, true), nw)
			for tc, ptx := range toolchains(t, fmt.Sprintf("vector_add_%d_%d", blk, nw), res) {
				r := load(t, ptx, res.Kernels[0])
				ms := timeIt(t, 20, func() {
					r.fn.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: uint32(n / blk), Y: 1, Z: 1}, Block: cuda.Dim3{X: uint32(nw * 32), Y: 1, Z: 1}}, a, b, c, int32(n))
				})
				report(fmt.Sprintf("vector_add BLOCK=%d warps=%d [%s]", blk, nw, tc), ms, 3*float64(bytes))
			}
		}
	}
	rows, cols := 4096, 8192
	for _, sc := range softmaxConfigs {
		nw := sc[0]
		m := softmaxIR(8192, nw)
		m.Funcs[0].Attrs[AttrMinCTAsPerSM] = int64(sc[1])
		res := build(t, m, nw)
		for tc, ptx := range toolchains(t, fmt.Sprintf("softmax_%d_m%d", nw, sc[1]), res) {
			r := load(t, ptx, res.Kernels[0])
			ms := timeIt(t, 20, func() {
				r.fn.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: uint32(rows), Y: 1, Z: 1}, Block: cuda.Dim3{X: uint32(nw * 32), Y: 1, Z: 1}, SharedMem: r.smem},
					c, a, int32(cols), int32(cols), int32(cols))
			})
			report(fmt.Sprintf("softmax 4096x8192 warps=%d minctas=%d [%s]", nw, sc[1], tc), ms, 2*float64(rows*cols*4))
		}
	}
	const S = 4096
	ctx.MemsetD32(a, 0x3f803f80, S*S/2) // bf16 1.0 pairs
	ctx.MemsetD32(b, 0x3f803f80, S*S/2)
	for _, mc := range matmulConfigs {
		m := matmulIR(mc.bm, mc.bn, mc.bk, 8, mc.warps, ir.BF16)
		m.Funcs[0].Attrs["num_stages"] = int64(mc.stages)
		res := build(t, m, mc.warps)
		for tc, ptx := range toolchains(t, mc.name(), res) {
			r := load(t, ptx, res.Kernels[0])
			grid := (S / mc.bm) * (S / mc.bn)
			ms := timeIt(t, 10, func() {
				r.fn.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: uint32(grid), Y: 1, Z: 1}, Block: cuda.Dim3{X: uint32(32 * mc.warps), Y: 1, Z: 1}, SharedMem: r.smem},
					a, b, c, int32(S), int32(S), int32(S), int32(S), int32(S), int32(S))
			})
			t.Logf("matmul 4096^3 bf16 %s [%s]: %.3f ms, %.0f TFLOP/s", mc.name(), tc, ms, 2*float64(S)*S*S/ms/1e9)
		}
	}
}

func TestGPUMisc(t *testing.T) {
	forEachPTX(t, "misc", miscIR(), 4, func(t *testing.T, r *kernelRun) {
		x := randF32(256, -1, 1, 14)
		for _, flag := range []int32{1, 0} {
			po, pc := zeros[float32](t, 256), zeros[float32](t, 1)
			r.launch(t, 1, up(t, x), po, pc, flag)
			want := make([]float64, 256)
			sum := 0.0
			for i := range x {
				v := float64(x[i]) + 1
				if flag > 0 {
					v = float64(x[i]) * 2
				}
				want[255-i] = float64(float32(v))
				sum += float64(float32(v))
			}
			checkF32(t, fmt.Sprint("out flag=", flag), down(t, make([]float32, 256), po), want, 0, 0)
			checkF32(t, "sum", down(t, make([]float32, 1), pc), []float64{sum}, 1e-5, 1e-5)
		}
	})
}

func TestGPUMatmulTutorial(t *testing.T) {
	forEachPTX(t, "matmul_tutorial", matmulTutorialIR(128, 128, 32, 4), 4, func(t *testing.T, r *kernelRun) {
		M, N, K := 400, 272, 208
		a, b := randBF16Operands(M, N, K, 15)
		pc := zeros[uint16](t, M*N)
		r.launch2(t, (M+127)/128, (N+127)/128, up(t, a), up(t, b), pc, int32(M), int32(N), int32(K))
		checkBF16Matmul(t, a, b, down(t, make([]uint16, M*N), pc), M, N, K)
		// 4096^3 throughput
		const S = 4096
		pa, pb, pc2 := zeros[uint16](t, S*S), zeros[uint16](t, S*S), zeros[uint16](t, S*S)
		ms := timeIt(t, 10, func() {
			r.fn.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: S / 128, Y: S / 128, Z: 1}, Block: cuda.Dim3{X: 128, Y: 1, Z: 1}, SharedMem: r.smem},
				pa, pb, pc2, int32(S), int32(S), int32(S))
		})
		t.Logf("tutorial matmul 4096^3 bf16: %.3f ms, %.0f TFLOP/s", ms, 2*float64(S)*S*S/ms/1e9)
	})
}

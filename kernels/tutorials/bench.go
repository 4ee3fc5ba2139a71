package tutorials

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/timing"
	"github.com/tlego/tle/tle"
)

func init() {
	registry.RegisterSuite(&registry.Suite{
		Name: "tutorials",
		Doc:  "the tutorial kernels next to a device-to-device copy: vector add, softmax, matmuls, attention, compile time, launch cost",
		Help: `The tutorials suite measures a device-to-device copy in the same run as
the bandwidth ceiling, vector add at 1 GiB per operand, row softmax on
4096x8192 f32, matmul with mma.sync and as wgmma at several sizes, the TMA
matmuls (B^T, B [K, N], maps made on the device), the FP8 matmul, the
causal attention tutorial on torch SDPA's shapes, the time from source to
a loaded module, and the host-side cost of one launch of a cached kernel.
--parts runs some of its parts. TLE_BENCH_ATTENTION="BM:BN:STAGES:WARPS
..." replaces the attention configurations.

--peer FILE takes ../shared/peers' matmul_peers.json (cuBLAS bf16 and
cuBLASLt FP8 on the matmuls of their size) and sdpa_prefill.json (torch
SDPA's cuDNN and FA2 on the attention tutorial's rows), both of the same
session.`,
		Flags: func(fs *flag.FlagSet) func() (registry.Bench, error) {
			parts := fs.String("parts", "", "the parts to run, comma-separated ("+strings.Join(BenchParts, ",")+"); default all")
			return func() (registry.Bench, error) {
				var ps []string
				if *parts != "" {
					ps = strings.Split(*parts, ",")
				}
				for _, p := range ps {
					if !slices.Contains(BenchParts, p) {
						return nil, registry.ArgErr("--parts", "no part %q (the parts: %s)", p, strings.Join(BenchParts, ", "))
					}
				}
				return benchSuite{parts: ps}, nil
			}
		},
		Peers: addPeers,
	})
}

// benchSuite is the tutorials suite with its parts chosen (nil: all).
type benchSuite struct{ parts []string }

func (b benchSuite) Run(g *tle.GPU, o registry.RunOptions) ([]registry.Row, error) {
	return Bench(g, o, b.parts)
}

// Bench times the tutorial kernels on g with CUDA events (median of
// o.Reps launches after warm-up), next to a device-to-device copy
// measured in the same run, plus the host-side cost of launching a cached
// kernel and the time from source to a loaded module. parts, when not
// empty, names the parts to run (BenchParts lists them). On a dry GPU the
// compile part, which times the toolchain itself, gives its rows untimed.
func Bench(g *tle.GPU, o registry.RunOptions, parts []string) ([]registry.Row, error) {
	bch := &bencher{g: g, reps: o.Reps, r: rand.New(rand.NewPCG(1, 1))}
	fns := map[string]func() error{"copy": bch.copyAndVectorAdd, "softmax": bch.softmax, "matmul": bch.matmuls,
		"tma": bch.tmaMatmuls, "fp8": bch.fp8Matmuls, "attention": bch.attention, "compile": bch.compileTime, "launch": bch.launchCost}
	for _, p := range parts {
		if fns[p] == nil {
			return nil, fmt.Errorf("no bench part %q (the parts: %s)", p, strings.Join(BenchParts, ", "))
		}
	}
	var run []string
	for _, name := range BenchParts {
		if len(parts) == 0 || slices.Contains(parts, name) {
			run = append(run, name)
		}
	}
	for i, name := range run {
		bch.progress = func(what string) { o.Step(i, len(run), what) }
		if err := fns[name](); err != nil {
			return nil, err
		}
	}
	o.Step(len(run), len(run), "done")
	return bch.out, nil
}

// BenchParts are the parts of Bench, in the order it runs them: the copy
// and vector add, softmax, matmul on mma.sync and wgmma, the TMA matmuls,
// the FP8 matmul, the plain attention tutorial, the compile time and the
// launch cost.
var BenchParts = []string{"copy", "softmax", "matmul", "tma", "fp8", "attention", "compile", "launch"}

// bencher is what the parts of Bench share: the device, the repetitions,
// the random source of all inputs (in the order Bench draws them) and the
// rows so far.
type bencher struct {
	g        *tle.GPU
	reps     int
	progress func(string)
	r        *rand.Rand
	out      []registry.Row
}

// add appends a row of kernel on case c (config cfg) timed t, whose work
// is flops or bytes (the other 0).
func (bch *bencher) add(c, cfg, kernel string, t tle.Timing, flops, bytes float64) {
	bch.out = append(bch.out, registry.Row{Suite: "tutorials", Case: c, Config: cfg, Kernel: kernel, FLOPs: flops, Bytes: bytes}.Timed(t))
}

const gib = 1 << 30

// randBuf allocates n random elements of dt (never zeros).
func (bch *bencher) randBuf(dt ir.DType, n int) (*tle.DeviceBuffer, error) {
	return registry.RandomBuffer(bch.g, dt, n, bch.r.NormFloat64)
}

// copyAndVectorAdd measures a device-to-device copy of 1 GiB, the
// bandwidth ceiling, then vector add at 1 GiB per operand on the same
// buffers.
func (bch *bencher) copyAndVectorAdd() error {
	g := bch.g
	bch.progress("copy 1 GiB")
	src, err := bch.randBuf(ir.F32, gib/4)
	if err != nil {
		return err
	}
	dst, err := g.Alloc(ir.F32, gib/4)
	if err != nil {
		return err
	}
	t, err := g.Time(3, bch.reps, func() error { return g.CopyDtoD(dst, src, gib) })
	if err != nil {
		return err
	}
	bch.add("d2d copy", "1 GiB", "cuMemcpyDtoDAsync", t, 0, 2*gib)
	for _, block := range []string{"1024", "4096"} {
		if err := bch.vectorAdd(block, src, dst); err != nil {
			return err
		}
	}
	g.Free(src)
	g.Free(dst)
	return nil
}

// vectorAdd times vector_add with BLOCK = block on x and y of 2^28 f32.
func (bch *bencher) vectorAdd(block string, x, y *tle.DeviceBuffer) error {
	g := bch.g
	bch.progress("vector_add BLOCK=" + block)
	n := gib / 4
	k, err := load("vector_add.tle", "vector_add")
	if err != nil {
		return err
	}
	outb, err := g.Alloc(ir.F32, n)
	if err != nil {
		return err
	}
	bs := atoi(block)
	p, err := g.Prepare(k, tle.CompileOptions{Defines: map[string]string{"BLOCK": block}}, [3]int{(n + bs - 1) / bs, 1, 1}, x, y, outb, n)
	if err != nil {
		return err
	}
	t, err := g.Time(3, bch.reps, p.Launch)
	if err != nil {
		return err
	}
	bch.add("vector_add 2^28 f32", "BLOCK="+block, "vector_add", t, 0, 3*gib)
	p.Close()
	g.Free(outb)
	return nil
}

// softmax times the row softmax on 4096 x 8192 f32 (one read and one
// write of 128 MiB) with 8 and 16 warps (16 elements per thread in
// flight).
func (bch *bencher) softmax() error {
	g := bch.g
	for _, warps := range []int{8, 16} {
		bch.progress(fmt.Sprintf("softmax 4096x8192, %d warps", warps))
		const rows, cols = 4096, 8192
		k, err := load("softmax.tle", "softmax")
		if err != nil {
			return err
		}
		x, err := bch.randBuf(ir.F32, rows*cols)
		if err != nil {
			return err
		}
		y, err := g.Alloc(ir.F32, rows*cols)
		if err != nil {
			return err
		}
		p, err := g.Prepare(k, tle.CompileOptions{Defines: map[string]string{"BLOCK": "8192"}, NumWarps: warps}, [3]int{rows, 1, 1}, x, y, cols, cols)
		if err != nil {
			return err
		}
		t, err := g.Time(3, bch.reps, p.Launch)
		if err != nil {
			return err
		}
		bytes := 2.0 * rows * cols * 4
		bch.add("softmax 4096x8192 f32", fmt.Sprintf("%d warps", warps), "softmax", t, 0, bytes)
		p.Close()
		g.Free(x)
		g.Free(y)
	}
	return nil
}

// matmulRow times one bf16 matmul kernel (in its .tle file of the same
// name) on size^3 operands a and b, c = a b, with the launch arguments
// args gives, and adds its row.
func (bch *bencher) matmulRow(name, kernel, config string, size int, opts tle.CompileOptions, grid [3]int, args func(a, b, c *tle.DeviceBuffer) []any) error {
	return bch.matmulRowOf(ir.BF16, name, kernel, config, size, opts, grid, args)
}

// matmulRowOf is matmulRow with operands a and b of dtype dt (c is bf16).
func (bch *bencher) matmulRowOf(dt ir.DType, name, kernel, config string, size int, opts tle.CompileOptions, grid [3]int, args func(a, b, c *tle.DeviceBuffer) []any) error {
	g := bch.g
	bch.progress(fmt.Sprintf("%s %d^3 %s", name, size, config))
	k, err := load(kernel+".tle", kernel)
	if err != nil {
		return err
	}
	a, err := bch.randBuf(dt, size*size)
	if err != nil {
		return err
	}
	defer g.Free(a)
	b, err := bch.randBuf(dt, size*size)
	if err != nil {
		return err
	}
	defer g.Free(b)
	c, err := g.Alloc(ir.BF16, size*size)
	if err != nil {
		return err
	}
	defer g.Free(c)
	p, err := g.Prepare(k, opts, grid, args(a, b, c)...)
	if err != nil {
		return err
	}
	defer p.Close()
	t, err := g.Time(2, bch.reps, p.Launch)
	if err != nil {
		return err
	}
	flops := 2 * float64(size) * float64(size) * float64(size)
	bch.add(fmt.Sprintf("%s %d^3 %s", name, size, dt), config, kernel, t, flops, 0)
	return nil
}

// matmuls times matmul.tle with its dot on mma.sync
// (CompileOptions.DotMMASync), and as wgmma (the default).
func (bch *bencher) matmuls() error {
	for _, size := range []int{1024, 2048, 4096} {
		for _, cfg := range []struct {
			bm, bn, bk string
			warps      int
			wgmma      bool
		}{{"128", "128", "32", 4, false}, {"128", "256", "32", 8, false}, {"128", "128", "64", 4, true}, {"128", "256", "64", 8, true}} {
			name := "matmul (mma.sync)"
			if cfg.wgmma {
				name = "matmul (dot as wgmma)"
			}
			bm, bn := atoi(cfg.bm), atoi(cfg.bn)
			err := bch.matmulRow(name, "matmul", fmt.Sprintf("%sx%sx%s, %d warps", cfg.bm, cfg.bn, cfg.bk, cfg.warps), size,
				tle.CompileOptions{Defines: map[string]string{"BM": cfg.bm, "BN": cfg.bn, "BK": cfg.bk}, NumWarps: cfg.warps, DotMMASync: !cfg.wgmma},
				[3]int{(size + bm - 1) / bm, (size + bn - 1) / bn, 1},
				func(a, b, c *tle.DeviceBuffer) []any { return []any{a, b, c, size, size, size} })
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// tmaMatmuls times the matmul with TMA, an S-deep pipeline, a load role and
// two wgmma warpgroups (matmul_tma.tle), B given transposed ([N, K],
// K-major); then, with the 128x256x64 3-stage tile, B given as [K, N]
// (N-major; matmul_tma_nt.tle: B's stage is column-blocked, BN/64 TMA
// boxes, wgmma LBO between blocks) and the maps made on the device
// (matmul_make_desc.tle: A and Bt as pointers, make_desc per program).
func (bch *bencher) tmaMatmuls() error {
	descs := func(a, b, c *tle.DeviceBuffer, size int) []any {
		return []any{tle.DeviceDesc{Buf: a, Shape: []int{size, size}}, tle.DeviceDesc{Buf: b, Shape: []int{size, size}}, c, size, size, size}
	}
	type tmaRun struct {
		kernel, what, bn, s string
		sizes               []int
		args                func(a, b, c *tle.DeviceBuffer, size int) []any
	}
	for _, r := range []tmaRun{
		{"matmul_tma", "B^T", "256", "3", []int{1024, 2048, 4096, 8192}, descs},
		{"matmul_tma", "B^T", "128", "4", []int{1024, 2048, 4096, 8192}, descs},
		{"matmul_tma_nt", "B [K, N]", "256", "3", []int{4096, 8192}, descs},
		{"matmul_make_desc", "B^T, maps made on the device", "256", "3", []int{4096, 8192}, func(a, b, c *tle.DeviceBuffer, size int) []any {
			return []any{a, b, c, size, size, size, size, size}
		}},
	} {
		for _, size := range r.sizes {
			bn := atoi(r.bn)
			err := bch.matmulRow(r.kernel, r.kernel, fmt.Sprintf("%s, 128x%sx64, %s stages, lag 1", r.what, r.bn, r.s), size,
				tle.CompileOptions{Defines: map[string]string{"BM": "128", "BN": r.bn, "BK": "64", "S": r.s, "LAG": "1"}, Div16: []string{"M", "N", "K"}},
				[3]int{(size + 127) / 128, (size + bn - 1) / bn, 1},
				func(a, b, c *tle.DeviceBuffer) []any { return r.args(a, b, c, size) })
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// fp8Matmuls times matmul_fp8.tle (e4m3 operands, per-tensor scales, bf16
// out: what torch._scaled_mm computes) with the 128x256x128 3-stage tile
// and, BN = 128 with 4 stages, plain and with the two-accumulator form.
func (bch *bencher) fp8Matmuls() error {
	g := bch.g
	sa, err := g.Upload(ir.F32, []float64{0.5})
	if err != nil {
		return err
	}
	defer g.Free(sa)
	sb, err := g.Upload(ir.F32, []float64{2})
	if err != nil {
		return err
	}
	defer g.Free(sb)
	for _, cfg := range []struct{ bn, s, promote string }{{"256", "3", "0"}, {"128", "4", "0"}, {"128", "4", "4"}} {
		for _, size := range []int{4096, 8192} {
			bn := atoi(cfg.bn)
			defs := map[string]string{"BM": "128", "BN": cfg.bn, "BK": "128", "S": cfg.s, "LAG": "1", "PROMOTE": cfg.promote}
			err := bch.matmulRowOf(ir.F8E4M3, "matmul_fp8", "matmul_fp8", fmt.Sprintf("B^T, 128x%sx128, %s stages, lag 1, promote %s", cfg.bn, cfg.s, cfg.promote), size,
				tle.CompileOptions{Defines: defs, Div16: []string{"M", "N", "K"}},
				[3]int{(size + 127) / 128, (size + bn - 1) / bn, 1},
				func(a, b, c *tle.DeviceBuffer) []any {
					return []any{tle.DeviceDesc{Buf: a, Shape: []int{size, size}}, tle.DeviceDesc{Buf: b, Shape: []int{size, size}}, c, sa, sb, size, size, size}
				})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// attention times attention.tle, the plain causal attention forward, on
// torch SDPA's shapes (../shared/peers/sdpa_prefill.py: B 1, 32 heads, head
// dim 128, bf16, causal) at S = 4096, 8192 and 16384, with BN 64 and 128;
// the rate counts the causal half of the products, as the peer script does
// (4 * heads * S^2 * 128 / 2 flops). TLE_BENCH_ATTENTION="BM:BN:STAGES:WARPS
// ..." replaces the configurations (attentionBenchConfigs).
func (bch *bencher) attention() error {
	g := bch.g
	const heads, d = 32, 128
	k, err := load("attention.tle", "attention")
	if err != nil {
		return err
	}
	for _, sl := range []int{4096, 8192, 16384} {
		n := heads * sl * d
		var bufs [3]*tle.DeviceBuffer
		for i := range bufs {
			if bufs[i], err = bch.randBuf(ir.BF16, n); err != nil {
				return err
			}
			defer g.Free(bufs[i])
		}
		o, err := g.Alloc(ir.BF16, n)
		if err != nil {
			return err
		}
		defer g.Free(o)
		lse, err := g.Alloc(ir.F32, heads*sl)
		if err != nil {
			return err
		}
		defer g.Free(lse)
		for _, cfg := range strings.Fields(envOr("TLE_BENCH_ATTENTION", attentionBenchConfigs)) {
			f := strings.Split(cfg, ":")
			if len(f) != 4 {
				return fmt.Errorf("TLE_BENCH_ATTENTION: %q is not BM:BN:STAGES:WARPS", cfg)
			}
			bm, bn, st, warps := f[0], f[1], f[2], atoi(f[3])
			bch.progress(fmt.Sprintf("attention S=%d BM=%s BN=%s stages=%s warps=%d", sl, bm, bn, st, warps))
			opts := tle.CompileOptions{Defines: map[string]string{"BM": bm, "BN": bn, "HEAD_DIM": "128"}, NumWarps: warps, NumStages: atoi(st)}
			p, err := g.Prepare(k, opts, [3]int{(sl + atoi(bm) - 1) / atoi(bm), heads, 1}, bufs[0], bufs[1], bufs[2], o, lse, sl, 1/math.Sqrt(d))
			if err != nil {
				return err
			}
			t, err := g.Time(2, bch.reps, p.Launch)
			p.Close()
			if err != nil {
				return err
			}
			flops := 4 * float64(heads) * float64(sl) * float64(sl) * d / 2
			bch.add(fmt.Sprintf("attention causal B1 H32 S%d D128", sl), fmt.Sprintf("BM %s, BN %s, %s stages, %d warps", bm, bn, st, warps), "attention", t, flops, 0)
		}
	}
	return nil
}

// compileTime measures the time from source to a loaded module, the first
// time (an empty JIT cache directory, a specialisation not compiled before
// in this process), then again (the in-memory cache).
func (bch *bencher) compileTime() error {
	bch.progress("compile matmul: source to loaded module")
	if bch.g.Dry() { // it times the toolchain, which a dry GPU does not run
		for _, round := range []string{"first", "cached"} {
			bch.add("compile matmul", "source to loaded module, "+round, "matmul", tle.Timing{}, 0, 0)
		}
		return nil
	}
	dir, err := os.MkdirTemp("", "tle-bench-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	old, had := os.LookupEnv("TLE_CACHE_DIR")
	os.Setenv("TLE_CACHE_DIR", dir)
	for _, round := range []string{"first", "cached"} {
		start := time.Now()
		src, err := FS.ReadFile("matmul.tle")
		if err != nil {
			return err
		}
		prog, err := tle.Parse("matmul.tle", src)
		if err != nil {
			return err
		}
		k, _ := prog.Kernel("matmul")
		bin, err := k.Compile(tle.CompileOptions{Defines: map[string]string{"BM": "128", "BN": "128", "BK": "64"}, Div16: []string{"M", "N", "K"}}, tle.GPUOptions{})
		if err != nil {
			return err
		}
		if _, err := bch.g.LoadBinary(bin); err != nil {
			return err
		}
		ms := float64(time.Since(start).Microseconds()) / 1000
		bch.add("compile matmul", "source to loaded module, "+round, "matmul", tle.Timing{MedianMs: ms, MinMs: ms, Reps: 1}, 0, 0)
	}
	if had {
		os.Setenv("TLE_CACHE_DIR", old)
	} else {
		os.Unsetenv("TLE_CACHE_DIR")
	}
	return nil
}

// launchCost measures the host-side cost of one launch of a cached
// kernel: the enqueue calls alone, timed on the host, for a tiny vector
// add.
func (bch *bencher) launchCost() error {
	g := bch.g
	bch.progress("host launch cost")
	k, err := load("vector_add.tle", "vector_add")
	if err != nil {
		return err
	}
	x, _ := g.Alloc(ir.F32, 1024)
	p, err := g.Prepare(k, tle.CompileOptions{Defines: map[string]string{"BLOCK": "1024"}}, [3]int{1, 1, 1}, x, x, x, 1024)
	if err != nil {
		return err
	}
	// the engine on the host's clock: a sample is a batch of launches
	// enqueued, the GPU drained before each batch (Reset, not timed)
	const batch = 200
	res, err := timing.Run(timing.NewHostClock("host wall clock"), timing.Options{Reps: 50}, timing.Candidate{
		Name:  "launch",
		Reset: g.Synchronize,
		Run: func() error {
			for i := 0; i < batch; i++ {
				if err := p.Launch(); err != nil {
					return err
				}
			}
			return nil
		}})
	if err != nil {
		return err
	}
	r := res[0]
	t := tle.Timing{MedianMs: r.Median / batch, MinMs: r.Min / batch, LoMs: r.Lo / batch, HiMs: r.Hi / batch, Reps: len(r.Samples), Coverage: r.Coverage, Clock: r.Clock}
	if g.Dry() {
		t = tle.Timing{}
	}
	bch.add("host launch cost", "cached vector_add, per launch", "vector_add", t, 0, 0)
	p.Close()
	g.Free(x)
	return nil
}

func load(file, kernel string) (*tle.Kernel, error) {
	prog, err := tle.Load(FS, file)
	if err != nil {
		return nil, err
	}
	return prog.Kernel(kernel)
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// attentionBenchConfigs are the attention bench's BM:BN:STAGES:WARPS.
const attentionBenchConfigs = "128:64:3:8 128:128:2:8 128:128:3:8"

// envOr is the environment variable name, or def when it is unset or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

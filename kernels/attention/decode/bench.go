package decode

import (
	"fmt"
	"math/rand/v2"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// Workload is one of the spec's nine decode workloads (Hkv 1, Hq 8, page
// 64): the KV length of each request.
type Workload struct {
	Name string
	Lens []int64
}

func rep(n int, L int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = L
	}
	return out
}

// Workloads are the spec's nine decode workloads, in its order.
var Workloads = []Workload{
	{"uniform_512", rep(64, 512)},
	{"uniform_4096", rep(64, 4096)},
	{"skewed_mix", append(rep(32, 128), rep(32, 4096)...)},
	{"skewed_extreme", append(rep(15, 64), 16384)},
	{"one_64k_7x4k", append([]int64{65536}, rep(7, 4096)...)},
	{"one_64k_15x4k", append([]int64{65536}, rep(15, 4096)...)},
	{"one_64k_31x4k", append([]int64{65536}, rep(31, 4096)...)},
	{"one_128k_31x4k", append([]int64{131072}, rep(31, 4096)...)},
	{"two_32k_30x4k", append(rep(2, 32768), rep(30, 4096)...)},
}

// ExtraWorkloads are decode workloads beyond the spec's, timed only when
// named (tlec bench attn_decode --cases): large_mix_512 is 512 requests of
// 64 to 4096 tokens (64 (1 + 37 i mod 64)), more requests than an H200's
// program slots, where the fixed split runs a request a program.
var ExtraWorkloads = []Workload{
	{"large_mix_512", func() []int64 {
		out := make([]int64, 512)
		for i := range out {
			out[i] = int64(64 * (1 + 37*i%64))
		}
		return out
	}()},
}

// BenchVariant is one kernel configuration timed on every workload.
type BenchVariant struct {
	DType  string // paged.DTypeBF16 or paged.DTypeFP8 (quant type 1)
	Sq     int
	Layout string
}

// BenchVariants are issue 15's: BF16 and FP8 (quant 1), Sq 1 and 2, NHD
// and HND.
var BenchVariants = func() []BenchVariant {
	var out []BenchVariant
	for _, dt := range []string{paged.DTypeBF16, paged.DTypeFP8} {
		for _, sq := range []int{1, 2} {
			for _, l := range []string{paged.LayoutNHD, paged.LayoutHND} {
				out = append(out, BenchVariant{dt, sq, l})
			}
		}
	}
	return out
}()

// BenchResult is one measured (workload, variant).
type BenchResult struct {
	Case     string  `json:"case"`
	DType    string  `json:"dtype"`
	Quant    int     `json:"quant_type,omitempty"`
	Sq       int     `json:"sq"`
	Layout   string  `json:"layout"`
	B        int     `json:"B"`
	Splits   int     `json:"splits"`    // the most pieces of one request
	CTAs     int     `json:"ctas"`      // programs per SM the plan fills (Dims.CTAs)
	Cluster  int     `json:"cluster"`   // the decode kernel's cluster size (Dims.CL)
	Schedule string  `json:"schedule"`  // "fixed" or "dynamic" (Dims.Dynamic)
	Stages   int     `json:"stages"`    // the ring's depth
	Programs int     `json:"programs"`  // decode programs (pieces of all requests) per kv head
	Chunk    int     `json:"chunk"`     // 64-token tiles per piece
	Kernel   string  `json:"kernel"`    // the decode kernel timed
	Timing   string  `json:"timing"`    // "graph" (a CUDA graph replay a call) or "launches"
	Us       float64 `json:"median_us"` // the whole call: decode and combine
	MinUs    float64 `json:"min_us"`
	LoUs     float64 `json:"lo_us,omitempty"` // the median's interval (the timing engine's)
	HiUs     float64 `json:"hi_us,omitempty"`
	KVBytes  int64   `json:"kv_bytes"`
	TBps     float64 `json:"tb_per_s"`      // KVBytes / median
	CopyTBps float64 `json:"copy_tb_per_s"` // device-to-device copy rate of the same run (read + write bytes)
	FloorUs  float64 `json:"floor_us"`      // KVBytes at the copy rate
}

// BenchOptions tune Bench.
type BenchOptions struct {
	// RunOptions are the warm-up, repetitions and progress of every
	// suite.
	registry.RunOptions
	Workloads []Workload     // nil: all
	Variants  []BenchVariant // nil: all
	// CTAs is Params.CTAs (0: DefaultCTAs).
	CTAs int
	// Cluster is Params.Cluster (0: 1; ClusterAuto: ChooseCluster's).
	Cluster int
	// Schedule is Params.Schedule ("": the policy's).
	Schedule string
	// Launches times the call as two launches back to back (Runner.Launch)
	// instead of a CUDA graph replay (Runner.Capture), HPC-Ops' timing.
	Launches bool
}

// CopyRate measures the device-to-device copy rate of g in TB/s (bytes
// read plus written, 1 GiB copies, median of reps).
func CopyRate(g *tle.GPU, reps int) (float64, error) {
	const n = 1 << 30
	src, err := g.Alloc(ir.U8, n)
	if err != nil {
		return 0, err
	}
	defer g.Free(src)
	dst, err := g.Alloc(ir.U8, n)
	if err != nil {
		return 0, err
	}
	defer g.Free(dst)
	t, err := g.Time(3, reps, func() error { return g.CopyDtoD(dst, src, n) })
	if err != nil || t.MedianMs == 0 { // a dry GPU times nothing
		return 0, err
	}
	return 2 * n / t.MedianMs / 1e9, nil
}

// timeRunner times run's call (decode and combine): opts.Reps replays of
// its CUDA graph after opts.Warmup, one event pair each, or the two
// launches back to back (opts.Launches, or a driver that cannot capture
// the call); it reports which.
func timeRunner(g *tle.GPU, run *Runner, opts BenchOptions) (tle.Timing, string, error) {
	fn, timing := run.Launch, "launches"
	if !opts.Launches {
		// a driver that cannot capture the call (no graph entry points,
		// or none for programmatic edges) times the launches instead, and
		// says so in Timing
		if graph, err := run.Capture(); err == nil {
			defer graph.Close()
			fn, timing = graph.Launch, "graph"
		}
	}
	tm, err := g.Time(opts.Warmup, opts.Reps, fn)
	return tm, timing, err
}

// Bench times decode on g for every workload and variant with CUDA events:
// the median of opts.Reps calls (decode and combine; a CUDA graph replay
// each, as HPC-Ops' bench times its calls, or two launches back to back)
// after opts.Warmup, buffers and launches prepared once per row, the
// splits planned for g's SMs.
func Bench(g *tle.GPU, opts BenchOptions) ([]BenchResult, error) {
	if err := CheckCluster(opts.Cluster); err != nil {
		return nil, err
	}
	if err := CheckSchedule(opts.Schedule, opts.Cluster); err != nil {
		return nil, err
	}
	wls, vars := opts.Workloads, opts.Variants
	if wls == nil {
		wls = Workloads
	}
	if vars == nil {
		vars = BenchVariants
	}
	progress := opts.Step
	total := len(wls)*len(vars) + 1
	progress(0, total, "copy rate")
	sms, err := g.SMs()
	if err != nil {
		return nil, fmt.Errorf("the GPU's SM count: %w", err)
	}
	copyRate, err := CopyRate(g, max(opts.Reps, 5))
	if err != nil {
		return nil, fmt.Errorf("copy rate: %w", err)
	}
	r := rand.New(rand.NewPCG(1, 15))
	var out []BenchResult
	step := 1
	for _, w := range wls {
		res, err := benchWorkload(g, sms, r, w, vars, opts, copyRate, func(what string) {
			progress(step, total, w.Name+" "+what)
			step++
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.Name, err)
		}
		out = append(out, res...)
	}
	progress(total, total, "done")
	return out, nil
}

func benchWorkload(g *tle.GPU, sms int, r *rand.Rand, w Workload, vars []BenchVariant, opts BenchOptions, copyRate float64, done func(string)) ([]BenchResult, error) {
	const hkv, gq, page = 1, 8, 64
	b := len(w.Lens)
	var pages int
	maxBlocks := 0
	for _, L := range w.Lens {
		np := int((L + page - 1) / page)
		pages += np
		maxBlocks = max(maxBlocks, np)
	}
	blocks := pages + 1
	perm := r.Perm(blocks)
	table := make([]float64, b*maxBlocks)
	next := 0
	for i, L := range w.Lens {
		np := int((L + page - 1) / page)
		for j := range maxBlocks {
			if j < np {
				table[i*maxBlocks+j] = float64(perm[next])
				next++
			} else {
				table[i*maxBlocks+j] = 0
			}
		}
	}
	var bufs []*tle.DeviceBuffer
	defer func() {
		for _, x := range bufs {
			g.Free(x)
		}
	}()
	alloc := func(dt ir.DType, n int, fill bool) (*tle.DeviceBuffer, error) {
		x, err := g.Alloc(dt, n)
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, x)
		if fill {
			err = registry.FillRandom(g, x, r.NormFloat64)
		}
		return x, err
	}
	upload := func(dt ir.DType, data []float64) (*tle.DeviceBuffer, error) {
		x, err := g.Upload(dt, data)
		if err == nil {
			bufs = append(bufs, x)
		}
		return x, err
	}
	cacheN := blocks * page * hkv * paged.HeadDim
	caches := map[string][2]*tle.DeviceBuffer{}
	bt, err := upload(ir.I32, table)
	if err != nil {
		return nil, err
	}
	kl, err := upload(ir.I32, paged.Floats(w.Lens))
	if err != nil {
		return nil, err
	}
	ones, err := upload(ir.F32, make([]float64, 1))
	if err != nil {
		return nil, err
	}
	if err := g.UploadTo(ones, []float64{1}); err != nil {
		return nil, err
	}
	var tokens int64
	for _, L := range w.Lens {
		tokens += L
	}
	var out []BenchResult
	for _, v := range vars {
		fp8 := v.DType == paged.DTypeFP8
		dt := ir.BF16
		if fp8 {
			dt = ir.F8E4M3
		}
		kv, ok := caches[v.DType]
		if !ok {
			k, err := alloc(dt, cacheN, true)
			if err != nil {
				return nil, err
			}
			vv, err := alloc(dt, cacheN, true)
			if err != nil {
				return nil, err
			}
			kv = [2]*tle.DeviceBuffer{k, vv}
			caches[v.DType] = kv
		}
		d := &Dims{Dims: paged.Dims{B: b, Hq: hkv * gq, Hkv: hkv, G: gq, Page: page, Blocks: blocks, MaxBlocks: maxBlocks,
			Scale: paged.DefaultScale, FP8: fp8, Quant: 1, NHD: v.Layout == paged.LayoutNHD}, Sq: v.Sq, N: padRows(gq * v.Sq)}
		if !fp8 {
			d.Quant = 0
		}
		d.CTAs = opts.CTAs
		d.choosePieces(w.Lens, 0, sms, opts.Cluster, opts.Schedule)
		rows := b * v.Sq * d.Hq
		t := &DeviceInputs{KCache: kv[0], VCache: kv[1], BlockIDs: bt, KVLens: kl}
		if t.Q, err = alloc(dt, rows*paged.HeadDim, true); err != nil {
			return nil, err
		}
		if t.O, err = alloc(ir.BF16, rows*paged.HeadDim, false); err != nil {
			return nil, err
		}
		if t.LSE, err = alloc(ir.F32, rows, false); err != nil {
			return nil, err
		}
		if fp8 {
			if t.QScale, err = alloc(ir.F32, rows, false); err != nil {
				return nil, err
			}
			qs := make([]float64, rows)
			for i := range qs {
				qs[i] = 1
			}
			if err := g.UploadTo(t.QScale, qs); err != nil {
				return nil, err
			}
			t.KScale, t.VScale = ones, ones
		}
		run, err := NewRunner(g, d, t)
		if err != nil {
			return nil, err
		}
		tm, timing, err := timeRunner(g, run, opts)
		run.Close()
		if err != nil {
			return nil, err
		}
		bytes := tokens * hkv * paged.HeadDim * 2 * int64(dt.Bytes())
		res := BenchResult{Case: w.Name, DType: v.DType, Quant: d.Quant, Sq: v.Sq, Layout: v.Layout, B: b, Splits: d.Splits, CTAs: d.CTAs, Cluster: run.Cluster(), Schedule: d.schedule(), Stages: d.Stages(), Programs: d.Programs, Chunk: d.Chunk, Kernel: Plan(d).Decode, Timing: timing,
			Us: tm.MedianMs * 1e3, MinUs: tm.MinMs * 1e3, LoUs: tm.LoMs * 1e3, HiUs: tm.HiMs * 1e3, KVBytes: bytes, CopyTBps: copyRate}
		if tm.MedianMs > 0 { // a dry GPU times nothing
			res.TBps = float64(bytes) / tm.MedianMs / 1e9
		}
		if copyRate > 0 {
			res.FloorUs = float64(bytes) / copyRate / 1e6
		}
		out = append(out, res)
		done(fmt.Sprintf("%s sq %d %s", v.DType, v.Sq, v.Layout))
	}
	return out, nil
}

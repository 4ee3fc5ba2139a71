package kda

import (
	"fmt"
	"math/rand/v2"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// BenchConfig is one benchmark configuration: B = 1 (varlen when Seqlens
// has more than one entry), K = V = 128, lower_bound = -5, initial and
// final state.
type BenchConfig struct {
	Name    string
	Tag     string // the peer script's name (tools/gpu-kda-peers.sh, kda_peers.py): its keys hold "H<H>_<Tag>"
	H       int
	Seqlens []int
}

// PeerKey is the configuration's part of the peer file's keys, H96_fixed.
func (c BenchConfig) PeerKey() string { return fmt.Sprintf("H%d_%s", c.H, c.Tag) }

// BenchConfigs are FlashKDA's six configurations, then the peer script's
// two more (one short sequence, one long): kda_peers.py's CONFIGS, in order.
var BenchConfigs = []BenchConfig{
	{Name: "T=8192", Tag: "fixed", H: 96, Seqlens: []int{8192}},
	{Name: "varlen [1300,547,2048,963,271,3063]", Tag: "varlen6", H: 96, Seqlens: []int{1300, 547, 2048, 963, 271, 3063}},
	{Name: "varlen 1024x8", Tag: "1024x8", H: 96, Seqlens: repeat(1024, 8)},
	{Name: "T=8192", Tag: "fixed", H: 64, Seqlens: []int{8192}},
	{Name: "varlen [1300,547,2048,963,271,3063]", Tag: "varlen6", H: 64, Seqlens: []int{1300, 547, 2048, 963, 271, 3063}},
	{Name: "varlen 1024x8", Tag: "1024x8", H: 64, Seqlens: repeat(1024, 8)},
	{Name: "T=1024", Tag: "T1024", H: 96, Seqlens: []int{1024}},
	{Name: "T=32768", Tag: "T32768", H: 64, Seqlens: []int{32768}},
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// BenchResult is one measured configuration.
type BenchResult struct {
	Config   string `json:"config"`
	Tag      string `json:"tag"`
	H        int    `json:"H"`
	T        int    `json:"T"`
	N        int    `json:"N"`
	BlockV   int    `json:"block_v"`
	RecWarps int    `json:"rec_warps"` // the recurrence's warps (BlockV / 16)
	// PrepWarps and PrepBlockK are the preparation kernel's warps and K
	// block.
	PrepWarps  int     `json:"prep_warps"`
	PrepBlockK int     `json:"prep_block_k"`
	State      string  `json:"state"` // the state dtype, f32 or bf16
	Ms         float64 `json:"median_ms"`
	MinMs      float64 `json:"min_ms"`
	LoMs       float64 `json:"lo_ms,omitempty"` // the median's interval (the timing engine's)
	HiMs       float64 `json:"hi_ms,omitempty"`
	Bytes      int64   `json:"bytes"`    // bytes the op must move (inputs, o, states)
	TBps       float64 `json:"tb_per_s"` // Bytes / median time
	// PartsMs are the median ms of each kernel (preparation, recurrence)
	// timed on its own.
	PartsMs []float64 `json:"parts_ms,omitempty"`
}

// BenchOptions tune Bench.
type BenchOptions struct {
	// RunOptions are the warm-up, repetitions and progress of every
	// suite.
	registry.RunOptions
	// Params: BlockV, Fast, PrepWarps, PrepBlockK and StateDType (f32 when
	// empty) are honoured; the rest is FlashKDA's setting.
	Params Params
}

// benchHead is the bench's K and V.
const benchHead = 128

// CheckBenchParams checks what Bench honours of p (BenchOptions.Params) for
// the bench's head size, K = V = 128: the V block, the preparation kernel's
// warps and K block, and the state dtype. Errors name the parameter
// (ArgError).
func CheckBenchParams(p Params) error {
	if _, err := benchState(p.StateDType); err != nil {
		return err
	}
	if err := checkBlockV(p.BlockV, benchHead); err != nil {
		return err
	}
	if err := checkPrepWarps(p.PrepWarps); err != nil {
		return err
	}
	return checkPrepBlockK(p.PrepBlockK, benchHead)
}

// Bench times kda_fwd on g for each configuration with CUDA events (the
// median of opts.Reps launches after opts.Warmup), with buffers and the
// launch prepared once per configuration: a timed launch allocates nothing.
func Bench(g *tle.GPU, configs []BenchConfig, opts BenchOptions) ([]BenchResult, error) {
	if err := CheckBenchParams(opts.Params); err != nil {
		return nil, err
	}
	state, _ := benchState(opts.Params.StateDType)
	opts.Params.StateDType = state
	prepWarps, prepBlockK := opts.Params.PrepWarps, opts.Params.PrepBlockK
	if prepWarps == 0 {
		prepWarps = DefaultPrepWarps
	}
	if prepBlockK == 0 {
		prepBlockK = DefaultPrepBlockK(benchHead)
	}
	progress := opts.Step
	total := 2 * len(configs)
	var out []BenchResult
	for i, c := range configs {
		label := fmt.Sprintf("H=%d %s", c.H, c.Name)
		progress(2*i, total, "prepare "+label)
		run, err := prepareBench(g, c, opts.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		progress(2*i+1, total, "measure "+label)
		t, err := g.Time(opts.Warmup, opts.Reps, run.launch)
		var parts []float64
		for _, p := range run.parts() {
			if err != nil {
				break
			}
			var tp tle.Timing
			tp, err = g.Time(1, opts.Reps, p)
			parts = append(parts, tp.MedianMs)
		}
		run.free()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		progress(2*i+2, total, "done "+label)
		out = append(out, BenchResult{Config: c.Name, Tag: c.Tag, H: c.H, T: run.d.T, N: run.d.N, BlockV: run.bv,
			RecWarps: run.bv / Chunk, PrepWarps: prepWarps, PrepBlockK: prepBlockK, State: state,
			Ms: t.MedianMs, MinMs: t.MinMs, LoMs: t.LoMs, HiMs: t.HiMs, Bytes: run.bytes, TBps: float64(run.bytes) / t.MedianMs / 1e9, PartsMs: parts})
	}
	return out, nil
}

type benchRun struct {
	g      *tle.GPU
	d      *Dims
	bv     int
	bufs   []*tle.DeviceBuffer
	runner *Runner
	launch func() error // the forward pass, once
	bytes  int64
}

// benchState is the state dtype of a bench: f32 (also when empty) or bf16.
func benchState(s string) (string, error) {
	switch s {
	case "", StateF32:
		return StateF32, nil
	case StateBF16:
		return StateBF16, nil
	}
	return "", argErr("state_dtype", "want %q or %q, got %q", StateF32, StateBF16, s)
}

// parts are the kernels, each to be timed alone (after one launch of the
// whole).
func (r *benchRun) parts() []func() error {
	if r.runner == nil || len(r.runner.preps) < 2 {
		return nil
	}
	var fs []func() error
	for _, p := range r.runner.preps {
		fs = append(fs, p.Launch)
	}
	return fs
}

func (r *benchRun) free() {
	if r.runner != nil {
		r.runner.Close()
	}
	for _, b := range r.bufs {
		r.g.Free(b)
	}
}

func prepareBench(g *tle.GPU, c BenchConfig, base Params) (run *benchRun, err error) {
	const K, V = benchHead, benchHead
	T := 0
	cu := []int64{0}
	for _, s := range c.Seqlens {
		T += s
		cu = append(cu, int64(T))
	}
	d := &Dims{B: 1, T: T, H: c.H, K: K, V: V, N: len(c.Seqlens), CuSeqlens: cu}
	p := Params{Scale: DefaultScale(K), LowerBound: -5, StateDType: base.StateDType, FinalState: true, BlockV: base.BlockV, Fast: base.Fast,
		PrepWarps: base.PrepWarps, PrepBlockK: base.PrepBlockK}
	sdt := ir.F32
	if p.StateDType == StateBF16 {
		sdt = ir.BF16
	}
	bv := p.BlockV
	if bv == 0 {
		bv = DefaultBlockV(d)
	}
	run = &benchRun{g: g, d: d, bv: bv}
	defer func() {
		if err != nil {
			run.free()
		}
	}()
	r := rand.New(rand.NewPCG(7, uint64(c.H)))
	alloc := func(dt ir.DType, n int, fill func() float64) (*tle.DeviceBuffer, error) {
		var b *tle.DeviceBuffer
		var err error
		if fill == nil {
			b, err = g.Alloc(dt, n)
		} else {
			b, err = registry.RandomBuffer(g, dt, n, fill)
		}
		if err == nil {
			run.bufs = append(run.bufs, b)
		}
		return b, err
	}
	randn := func() float64 { return r.NormFloat64() }
	unit := func() float64 { return r.Float64() }
	t := &DeviceTensors{}
	state := d.N * c.H * V * K
	for _, s := range []struct {
		dst  **tle.DeviceBuffer
		dt   ir.DType
		n    int
		fill func() float64
	}{
		{&t.Q, ir.BF16, T * c.H * K, randn}, {&t.K, ir.BF16, T * c.H * K, randn}, {&t.V, ir.BF16, T * c.H * V, randn},
		{&t.G, ir.BF16, T * c.H * K, randn}, {&t.Beta, ir.BF16, T * c.H, randn},
		{&t.ALog, ir.F32, c.H, unit}, {&t.DtBias, ir.F32, c.H * K, unit},
		{&t.H0, sdt, state, randn}, {&t.HT, sdt, state, nil}, {&t.O, ir.BF16, T * c.H * V, nil},
	} {
		if *s.dst, err = alloc(s.dt, s.n, s.fill); err != nil {
			return nil, err
		}
	}
	run.bytes = int64(T*c.H)*int64(3*K+2*V+1)*2 + 2*int64(state)*int64(sdt.Bytes())
	p.BlockV = bv
	run.runner = NewRunner(g)
	run.launch = func() error { return run.runner.Launch(d, p, t) }
	return run, run.launch()
}

package attention

import (
	"fmt"
	"math/rand/v2"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// PrefillShape is one of issue 16's (q_len, kv_len) shapes: B 1, Hq 32,
// Hkv 4, page 64.
type PrefillShape struct {
	Name    string
	Lq, L   int64
	Hq, Hkv int
	Page    int
	B       int
}

// PrefillShapes are the three shapes.
var PrefillShapes = []PrefillShape{
	{"127x127", 127, 127, 32, 4, 64, 1},
	{"512x4096", 512, 4096, 32, 4, 64, 1},
	{"512x32768", 512, 32768, 32, 4, 64, 1},
}

// PrefillBenchVariant is one kernel configuration: dtype (with its quant
// type for fp8) and layout.
type PrefillBenchVariant struct {
	DType  string
	Quant  int
	Layout string
}

// PrefillBenchVariants: BF16 paged, FP8 quant 0 and 1, each NHD and HND
// (the block mask is not implemented, so its rows are absent).
var PrefillBenchVariants = func() []PrefillBenchVariant {
	var out []PrefillBenchVariant
	for _, v := range []PrefillBenchVariant{{DTypeBF16, 0, ""}, {DTypeFP8, 0, ""}, {DTypeFP8, 1, ""}} {
		for _, l := range []string{LayoutNHD, LayoutHND} {
			v.Layout = l
			out = append(out, v)
		}
	}
	return out
}()

// PrefillBenchResult is one measured (shape, variant).
type PrefillBenchResult struct {
	Case   string  `json:"case"`
	DType  string  `json:"dtype"`
	Quant  int     `json:"quant_type"`
	Layout string  `json:"layout"`
	Us     float64 `json:"median_us"`
	MinUs  float64 `json:"min_us"`
	FLOPs  float64 `json:"flops"`   // the visible causal work: 4 * 128 * Hq * sum_i (keys query i sees)
	TFLOPs float64 `json:"tflop_s"` // FLOPs / median
}

// PrefillBenchOptions tune PrefillBench.
type PrefillBenchOptions struct {
	Warmup, Reps int
	Shapes       []PrefillShape        // nil: all
	Variants     []PrefillBenchVariant // nil: all
	Progress     func(done, total int, what string)
}

// PrefillBench times prefill on g for every shape and variant with CUDA
// events: the median of opts.Reps back-to-back launches after
// opts.Warmup, buffers and the launch prepared once per row; random
// caches behind a shuffled page table, scales of 1.
func PrefillBench(g *tle.GPU, opts PrefillBenchOptions) ([]PrefillBenchResult, error) {
	shapes, vars := opts.Shapes, opts.Variants
	if shapes == nil {
		shapes = PrefillShapes
	}
	if vars == nil {
		vars = PrefillBenchVariants
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(int, int, string) {}
	}
	total := len(shapes) * len(vars)
	r := rand.New(rand.NewPCG(1, 16))
	var out []PrefillBenchResult
	for i, s := range shapes {
		for j, v := range vars {
			progress(i*len(vars)+j, total, s.Name+" "+v.DType+" "+v.Layout)
			res, err := benchPrefillRow(g, r, s, v, opts)
			if err != nil {
				return nil, fmt.Errorf("%s %s %s: %w", s.Name, v.DType, v.Layout, err)
			}
			out = append(out, res)
		}
	}
	progress(total, total, "done")
	return out, nil
}

func benchPrefillRow(g *tle.GPU, r *rand.Rand, s PrefillShape, v PrefillBenchVariant, opts PrefillBenchOptions) (PrefillBenchResult, error) {
	fp8 := v.DType == DTypeFP8
	dt := ir.BF16
	if fp8 {
		dt = ir.F8E4M3
	}
	b := s.B
	np := int((s.L + int64(s.Page) - 1) / int64(s.Page))
	blocks := b*np + 1
	perm := r.Perm(blocks)
	table := make([]float64, b*np)
	for i := range table {
		table[i] = float64(perm[i])
	}
	d := &PrefillDims{Dims: Dims{B: b, Sq: 1, Hq: s.Hq, Hkv: s.Hkv, G: s.Hq / s.Hkv, Page: s.Page, Blocks: blocks, MaxBlocks: np,
		Scale: DefaultScale, FP8: fp8, Quant: v.Quant, NHD: v.Layout == LayoutNHD, Splits: 1}, T: b * int(s.Lq),
		QT: int((s.Lq + PrefillTile - 1) / PrefillTile), Stages: prefillStages(s.Page)}
	if !fp8 {
		d.Quant = 0
	}
	var bufs []*tle.DeviceBuffer
	defer func() {
		for _, x := range bufs {
			g.Free(x)
		}
	}()
	var err error
	buf := func(dt ir.DType, n int, fill bool, data []float64) *tle.DeviceBuffer {
		if err != nil {
			return nil
		}
		var x *tle.DeviceBuffer
		if data != nil {
			x, err = g.Upload(dt, data)
		} else {
			x, err = g.Alloc(dt, n)
		}
		if err != nil {
			return nil
		}
		bufs = append(bufs, x)
		if fill {
			err = fillRandom(g, x, r)
		}
		return x
	}
	ones := func(n int) []float64 {
		o := make([]float64, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	cacheN := blocks * s.Page * s.Hkv * HeadDim
	kc := buf(dt, cacheN, true, nil)
	vc := buf(dt, cacheN, true, nil)
	q := buf(dt, d.T*s.Hq*HeadDim, true, nil)
	cu := make([]float64, b+1)
	lens := make([]float64, b)
	for i := range b {
		cu[i+1] = cu[i] + float64(s.Lq)
		lens[i] = float64(s.L)
	}
	cuq := buf(ir.I32, 0, false, cu)
	bt := buf(ir.I32, 0, false, table)
	kl := buf(ir.I32, 0, false, lens)
	o := buf(ir.BF16, d.T*s.Hq*HeadDim, false, nil)
	lse := buf(ir.F32, d.T*s.Hq, false, nil)
	mask := buf(ir.U8, 0, false, []float64{0}) // dense: MASK 0 never reads it
	var qs, ks, vs *tle.DeviceBuffer
	if fp8 {
		qs = buf(ir.F32, 0, false, ones(d.T*s.Hq))
		if d.Quant == 1 {
			ks, vs = buf(ir.F32, 0, false, ones(1)), buf(ir.F32, 0, false, ones(1))
		} else {
			ks, vs = buf(ir.F32, 0, false, ones(blocks*s.Page*s.Hkv)), buf(ir.F32, 0, false, ones(s.Hkv))
		}
	}
	if err != nil {
		return PrefillBenchResult{}, err
	}
	pl := PlanPrefill(d)
	k, err := PrefillKernel(pl.Kernel)
	if err != nil {
		return PrefillBenchResult{}, err
	}
	desc := func(x *tle.DeviceBuffer) tle.DeviceDesc {
		return tle.DeviceDesc{Buf: x, Shape: d.descShape(), Strides: d.descStrides()}
	}
	var args []any
	if fp8 {
		blk, tok, head := d.kScaleStrides()
		args = []any{desc(kc), desc(vc), q, qs, ks, vs, cuq, bt, kl, o, lse, mask, d.MaxBlocks, d.Hq, d.Scale, 1, blk, tok, head}
	} else {
		args = []any{desc(kc), desc(vc), q, cuq, bt, kl, o, lse, mask, d.MaxBlocks, d.Hq, d.Scale, 1}
	}
	prep, err := g.Prepare(k, pl.Options(), pl.Grid, args...)
	if err != nil {
		return PrefillBenchResult{}, fmt.Errorf("%s: %w", pl.Kernel, err)
	}
	defer prep.Close()
	if _, err := g.Time(opts.Warmup, 1, prep.Launch); err != nil {
		return PrefillBenchResult{}, err
	}
	tm, err := g.Time(0, max(opts.Reps, 1), prep.Launch)
	if err != nil {
		return PrefillBenchResult{}, err
	}
	flops := PrefillFLOPs(s)
	return PrefillBenchResult{Case: s.Name, DType: v.DType, Quant: d.Quant, Layout: v.Layout, Us: tm.MedianMs * 1e3, MinUs: tm.MinMs * 1e3,
		FLOPs: flops, TFLOPs: flops / tm.MedianMs / 1e9}, nil
}

// PrefillFLOPs is the visible causal work of shape s: query i of a
// request sees L - Lq + i + 1 keys, each costing 2 * 128 multiply-adds
// (QK and PV) per q head.
func PrefillFLOPs(s PrefillShape) float64 {
	var keys float64
	for i := range s.Lq {
		keys += float64(s.L - s.Lq + i + 1)
	}
	return 4 * HeadDim * float64(s.Hq) * keys * float64(s.B)
}

package prefill

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// Shape is one of issue 16's (q_len, kv_len) shapes: B 1, Hq 32,
// Hkv 4, page 64.
type Shape struct {
	Name    string
	Lq, L   int64
	Hq, Hkv int
	Page    int
	B       int
}

// Shapes are the three shapes.
var Shapes = []Shape{
	{"127x127", 127, 127, 32, 4, 64, 1},
	{"512x4096", 512, 4096, 32, 4, 64, 1},
	{"512x32768", 512, 32768, 32, 4, 64, 1},
}

// SelfShapes are issue 16's BF16 causal self-attention sizes
// (Lq = L = S; B 1, Hq 32, Hkv 4), run through identity page tables of 64.
var SelfShapes = []Shape{
	{"4096x4096", 4096, 4096, 32, 4, 64, 1},
	{"8192x8192", 8192, 8192, 32, 4, 64, 1},
	{"32768x32768", 32768, 32768, 32, 4, 64, 1},
}

// BenchRow is one row of the attn_prefill bench: a shape, a kernel
// configuration (dtype, quant type for fp8, layout), dense or block-sparse,
// and a shuffled page table or the identity one (self-attention).
type BenchRow struct {
	// Name is HPC-Ops' bench name for the same work (its bench.py), so a
	// script can join the two: prefill_fp8_q{0,1}_{dense,masked}_{nhd,hnd},
	// prefill_kvcache_bf16_{nhd,hnd} and prefill_bf16_nocache, then
	// "/{Lq}x{L}". BF16 masked rows (prefill_kvcache_bf16_masked_*) have
	// no HPC-Ops counterpart.
	Name     string
	Shape    Shape
	DType    string
	Quant    int
	Layout   string
	Masked   bool
	Identity bool // block_ids[i] = i over exactly the pages of L tokens
}

// BenchRows are the bench's rows in order: per shape of
// Shapes the 24 FP8 configurations' eight (quant 0/1 x dense/masked
// x NHD/HND, HPC-Ops' order), BF16 paged NHD/HND dense and masked; then
// BF16 causal self-attention (NHD) at SelfShapes.
func BenchRows() []BenchRow {
	var out []BenchRow
	dm := map[bool]string{false: "dense", true: "masked"}
	for _, s := range Shapes {
		for quant := range 2 {
			for _, masked := range []bool{false, true} {
				for _, l := range []string{paged.LayoutNHD, paged.LayoutHND} {
					out = append(out, BenchRow{Name: fmt.Sprintf("prefill_fp8_q%d_%s_%s/%s", quant, dm[masked], l, s.Name),
						Shape: s, DType: paged.DTypeFP8, Quant: quant, Layout: l, Masked: masked})
				}
			}
		}
		for _, masked := range []bool{false, true} {
			for _, l := range []string{paged.LayoutNHD, paged.LayoutHND} {
				name := "prefill_kvcache_bf16_" + l + "/" + s.Name
				if masked {
					name = "prefill_kvcache_bf16_masked_" + l + "/" + s.Name
				}
				out = append(out, BenchRow{Name: name, Shape: s, DType: paged.DTypeBF16, Layout: l, Masked: masked})
			}
		}
	}
	for _, s := range SelfShapes {
		out = append(out, BenchRow{Name: "prefill_bf16_nocache/" + s.Name, Shape: s, DType: paged.DTypeBF16, Layout: paged.LayoutNHD, Identity: true})
	}
	return out
}

// BenchMaskSeed seeds every masked row's mask (math/rand/v2 PCG),
// so the rows of one shape share one mask, as HPC-Ops' rows do (its seed
// is 10086 too, through torch's generator: the same rule, other draws).
const BenchMaskSeed = 10086

// BenchMask is the block mask of HPC-Ops' prefill bench for shape
// s, [B, Hq, cdiv(Lq, 128), cdiv(L, 128)] flattened, with kt its columns:
// per (request, head, q tile i) each tile is on when a uniform draw is >=
// 0.75 (density ~0.25); then the tiles past the q tile's causal frontier
// last = (L - Lq + min(128(i+1), Lq) - 1) / 128 are cleared, and the
// tile of its first row, first = (L - Lq + 128i) / 128, and last are set.
func BenchMask(r *rand.Rand, s Shape) (m []float64, kt int) {
	qt := int((s.Lq + Tile - 1) / Tile)
	kt = int((s.L + Tile - 1) / Tile)
	m = make([]float64, s.B*s.Hq*qt*kt)
	for bh := range s.B * s.Hq {
		for i := range qt {
			row := m[(bh*qt+i)*kt:][:kt]
			for j := range row {
				if r.Float64() >= 0.75 {
					row[j] = 1
				}
			}
			first := (s.L - s.Lq + int64(i)*Tile) / Tile
			last := (s.L - s.Lq + min(int64(i+1)*Tile, s.Lq) - 1) / Tile
			clear(row[last+1:])
			row[first], row[last] = 1, 1
		}
	}
	return m, kt
}

// MaskedFLOPs is the work of shape s under block mask m (kt
// columns, as BenchMask builds it; nil: dense, FLOPs):
// 4 * 128 * the sum over (request, head, query) of the keys it sees, a
// key being visible when causal and its 128-key tile is on.
func MaskedFLOPs(s Shape, m []float64, kt int) float64 {
	if m == nil {
		return FLOPs(s)
	}
	qt := int((s.Lq + Tile - 1) / Tile)
	var keys float64
	on := make([]float64, kt+1) // on[j]: keys in the on tiles before tile j
	for bh := range s.B * s.Hq {
		for i := range qt {
			row := m[(bh*qt+i)*kt:][:kt]
			for j, x := range row {
				on[j+1] = on[j] + x*Tile
			}
			for q := int64(i) * Tile; q < min(int64(i+1)*Tile, s.Lq); q++ {
				p := s.L - s.Lq + q // the last key query q sees
				j := p / Tile
				keys += on[j] + row[j]*float64(p-j*Tile+1)
			}
		}
	}
	return 4 * paged.HeadDim * keys
}

// BenchPlan is what a row needs before the GPU: its block mask (nil
// when dense), the mask's density (the mean over all its tiles, as
// HPC-Ops records it) and the visible and dense causal work.
type BenchPlan struct {
	Mask              []float64
	MaskKT            int
	Density           float64
	MaxTiles          int // the most active key tiles of one (request, head, q tile) program: a masked row's critical path
	FLOPs, DenseFLOPs float64
}

// PlanBench builds row's plan on the CPU, the mask masks' for the
// row's shape or, without one, drawn from BenchMaskSeed.
func PlanBench(row BenchRow, masks BenchMasks) BenchPlan {
	p := BenchPlan{DenseFLOPs: FLOPs(row.Shape)}
	p.FLOPs = p.DenseFLOPs
	if row.Masked {
		if m, ok := masks[row.Shape.Name]; ok {
			p.Mask, p.MaskKT = m, int((row.Shape.L+Tile-1)/Tile)
		} else {
			p.Mask, p.MaskKT = BenchMask(rand.New(rand.NewPCG(BenchMaskSeed, 0)), row.Shape)
		}
		var n float64
		for i, x := range p.Mask {
			n += x
			if i%p.MaskKT == p.MaskKT-1 { // the end of one (request, head, q tile) program's row
				var on int
				for _, y := range p.Mask[i+1-p.MaskKT : i+1] {
					on += int(y)
				}
				p.MaxTiles = max(p.MaxTiles, on)
			}
		}
		p.Density = n / float64(len(p.Mask))
		p.FLOPs = MaskedFLOPs(row.Shape, p.Mask, p.MaskKT)
	}
	return p
}

// BenchMasks are block masks by shape name (Shape.Name), each
// [B, Hq, cdiv(Lq, 128), cdiv(L, 128)] flattened, 0 or 1: the masked rows
// of those shapes take them instead of BenchMask's draw, so that
// two benches can walk one mask (HPC-Ops' draw comes from torch's
// generator; tools/hpc_masks.py saves it).
type BenchMasks map[string][]float64

// LoadBenchMasks reads DIR/mask_NAME.npy for each shape of
// Shapes that has one (any integer or bool dtype, the shape above,
// values 0 or 1); a shape without a file keeps the bench's own draw.
func LoadBenchMasks(dir string) (BenchMasks, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, argErr("masks", "%v", err)
	}
	masks := BenchMasks{}
	for _, s := range Shapes {
		path := filepath.Join(dir, "mask_"+s.Name+".npy")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		a, err := npy.ReadFile(path)
		if err != nil {
			return nil, argErr("masks", "%s: %v", path, err)
		}
		qt, kt := int((s.Lq+Tile-1)/Tile), int((s.L+Tile-1)/Tile)
		want := []int{s.B, s.Hq, qt, kt}
		if fmt.Sprint(a.Shape) != fmt.Sprint(want) || a.I64 == nil {
			return nil, argErr("masks", "%s: want an integer or bool array of shape %v (B, Hq, q tiles, key tiles of %s), got %s %v", path, want, s.Name, a.DType, a.Shape)
		}
		m := make([]float64, len(a.I64))
		for i, x := range a.I64 {
			if x != 0 && x != 1 {
				return nil, argErr("masks", "%s: element %d = %d; a block mask holds 0 or 1", path, i, x)
			}
			m[i] = float64(x)
		}
		masks[s.Name] = m
	}
	return masks, nil
}

// BenchResult is one measured row.
type BenchResult struct {
	Name        string  `json:"name"` // HPC-Ops' name (BenchRow.Name)
	Case        string  `json:"case"` // Lq x L
	DType       string  `json:"dtype"`
	Quant       int     `json:"quant_type"`
	Layout      string  `json:"layout"`
	Masked      bool    `json:"masked"`
	MaskDensity float64 `json:"mask_density,omitempty"` // the mean of the block mask's tiles
	MaxTiles    int     `json:"max_tiles,omitempty"`    // the most active key tiles of one program (BenchPlan.MaxTiles)
	Pages       string  `json:"pages"`                  // "shuffled" or "identity"
	Us          float64 `json:"median_us"`
	MinUs       float64 `json:"min_us"`
	LoUs        float64 `json:"lo_us,omitempty"` // the median's interval (the timing engine's)
	HiUs        float64 `json:"hi_us,omitempty"`
	FLOPs       float64 `json:"flops"`            // the visible work: 4 * 128 * sum over (head, query) of the keys it sees (causal, tile on)
	DenseFLOPs  float64 `json:"dense_flops"`      // the same without the mask (dense causal)
	TFLOPs      float64 `json:"tflop_s"`          // FLOPs / median
	Error       string  `json:"error,omitempty"`  // why the row has no time
	Kernel      string  `json:"kernel,omitempty"` // the kernel timed (attn_prefill_fp8_k128: 128 keys a step)
}

// result is row's result with plan p's figures and no timing.
func (row BenchRow) result(p BenchPlan) BenchResult {
	pages := "shuffled"
	if row.Identity {
		pages = "identity"
	}
	q := row.Quant
	if row.DType != paged.DTypeFP8 {
		q = 0
	}
	return BenchResult{Name: row.Name, Case: row.Shape.Name, DType: row.DType, Quant: q, Layout: row.Layout, Masked: row.Masked,
		MaskDensity: p.Density, MaxTiles: p.MaxTiles, Pages: pages, FLOPs: p.FLOPs, DenseFLOPs: p.DenseFLOPs}
}

// BenchOptions tune Bench.
type BenchOptions struct {
	// RunOptions are the warm-up, repetitions and progress of every
	// suite.
	registry.RunOptions
	Rows []BenchRow // nil: BenchRows()
	// KeyStep is Params.KeyStep for every row (0: the default, 128
	// keys a step at the bench's pages of 64; 64: one page a step).
	KeyStep int
	// Masks replace the masked rows' drawn masks by shape (nil: none).
	Masks BenchMasks
}

// Bench times prefill on g for every row with CUDA events: the
// median of opts.Reps back-to-back launches after opts.Warmup, buffers
// and the launch prepared once per row; random caches behind a shuffled
// page table (or the identity one), scales of 1. A row that fails keeps
// its place with Error set and the rest still run (so one bad kernel
// variant leaves the others' figures); the error joins every row's.
func Bench(g *tle.GPU, opts BenchOptions) ([]BenchResult, error) {
	rows := opts.Rows
	if rows == nil {
		rows = BenchRows()
	}
	progress := opts.Step
	r := rand.New(rand.NewPCG(1, 16))
	var out []BenchResult
	var errs []error
	for i, row := range rows {
		progress(i, len(rows), row.Name)
		res, err := benchRow(g, r, row, opts)
		if err != nil {
			res = row.result(PlanBench(row, opts.Masks))
			res.Error = err.Error()
			errs = append(errs, fmt.Errorf("%s: %w", row.Name, err))
		}
		out = append(out, res)
	}
	progress(len(rows), len(rows), "done")
	return out, errors.Join(errs...)
}

// benchDims are the sizes Validate would give row's inputs
// (a cache of blocks pages), built from the row's shape without them.
func benchDims(row BenchRow, plan BenchPlan, opts BenchOptions, blocks int) (*Dims, error) {
	s := row.Shape
	fp8 := row.DType == paged.DTypeFP8
	np := int((s.L + int64(s.Page) - 1) / int64(s.Page))
	d := &Dims{Dims: paged.Dims{B: s.B, Hq: s.Hq, Hkv: s.Hkv, G: s.Hq / s.Hkv, Page: s.Page, Blocks: blocks, MaxBlocks: np,
		Scale: paged.DefaultScale, FP8: fp8, Quant: row.Quant, NHD: row.Layout == paged.LayoutNHD}, T: s.B * int(s.Lq),
		Mask: plan.Mask != nil, MaskKT: plan.MaskKT}
	if !fp8 {
		d.Quant = 0
	}
	d.setQTiles(s.Lq)
	d.setKeyTiles(s.L)
	if err := d.setKeyStep(opts.KeyStep); err != nil { // the ring's stages too, as Validate
		return nil, err
	}
	return d, nil
}

func benchRow(g *tle.GPU, r *rand.Rand, row BenchRow, opts BenchOptions) (BenchResult, error) {
	s, plan := row.Shape, PlanBench(row, opts.Masks)
	fp8 := row.DType == paged.DTypeFP8
	dt := ir.BF16
	if fp8 {
		dt = ir.F8E4M3
	}
	b := s.B
	np := int((s.L + int64(s.Page) - 1) / int64(s.Page))
	blocks := b*np + 1
	table := make([]float64, b*np)
	if row.Identity {
		blocks = b * np // the cache holds exactly the K/V of the L tokens
		for i := range table {
			table[i] = float64(i)
		}
	} else {
		perm := r.Perm(blocks)
		for i := range table {
			table[i] = float64(perm[i])
		}
	}
	d, err := benchDims(row, plan, opts, blocks)
	if err != nil {
		return BenchResult{}, err
	}
	var bufs []*tle.DeviceBuffer
	defer func() {
		for _, x := range bufs {
			g.Free(x)
		}
	}()
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
			err = registry.FillRandom(g, x, r.NormFloat64)
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
	cacheN := blocks * s.Page * s.Hkv * paged.HeadDim
	kc := buf(dt, cacheN, true, nil)
	vc := buf(dt, cacheN, true, nil)
	q := buf(dt, d.T*s.Hq*paged.HeadDim, true, nil)
	cu := make([]float64, b+1)
	lens := make([]float64, b)
	for i := range b {
		cu[i+1] = cu[i] + float64(s.Lq)
		lens[i] = float64(s.L)
	}
	cuq := buf(ir.I32, 0, false, cu)
	bt := buf(ir.I32, 0, false, table)
	kl := buf(ir.I32, 0, false, lens)
	o := buf(ir.BF16, d.T*s.Hq*paged.HeadDim, false, nil)
	lse := buf(ir.F32, d.T*s.Hq, false, nil)
	mask, maskKT := buf(ir.U8, 0, false, []float64{0}), 1 // dense: MASK 0 never reads it
	if d.Mask {
		mask, maskKT = buf(ir.U8, 0, false, plan.Mask), d.MaskKT
	}
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
		return BenchResult{}, err
	}
	pl := Plan(d)
	k, err := Kernel(pl.Kernel)
	if err != nil {
		return BenchResult{}, err
	}
	desc := func(x *tle.DeviceBuffer) tle.DeviceDesc {
		return tle.DeviceDesc{Buf: x, Shape: d.DescShape(), Strides: d.DescStrides()}
	}
	var args []any
	if fp8 {
		blk, tok, head := d.KScaleStrides()
		args = []any{desc(kc), desc(vc), q, qs, ks, vs, cuq, bt, kl, o, lse, mask, d.MaxBlocks, d.Hq, d.Scale, maskKT, blk, tok, head}
	} else {
		args = []any{desc(kc), desc(vc), q, cuq, bt, kl, o, lse, mask, d.MaxBlocks, d.Hq, d.Scale, maskKT}
	}
	prep, err := g.Prepare(k, pl.Options(), pl.Grid, args...)
	if err != nil {
		return BenchResult{}, fmt.Errorf("%s: %w", pl.Kernel, err)
	}
	defer prep.Close()
	tm, err := g.Time(opts.Warmup, max(opts.Reps, 1), prep.Launch)
	if err != nil {
		return BenchResult{}, err
	}
	res := row.result(plan)
	res.Kernel = pl.Kernel
	res.Us, res.MinUs, res.TFLOPs = tm.MedianMs*1e3, tm.MinMs*1e3, plan.FLOPs/tm.MedianMs/1e9
	res.LoUs, res.HiUs = tm.LoMs*1e3, tm.HiMs*1e3
	return res, nil
}

// FLOPs is the visible causal work of shape s: query i of a
// request sees L - Lq + i + 1 keys, each costing 2 * 128 multiply-adds
// (QK and PV) per q head.
func FLOPs(s Shape) float64 {
	var keys float64
	for i := range s.Lq {
		keys += float64(s.L - s.Lq + i + 1)
	}
	return 4 * paged.HeadDim * float64(s.Hq) * keys * float64(s.B)
}

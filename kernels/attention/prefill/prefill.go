package prefill

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tlego/tle/kernels/attention"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// FS holds the .tle sources: attention.FS, where the file's imports
// (../paged/parts.tle) are found.
var FS = attention.FS

// argErr is a *paged.ArgError naming the argument.
var argErr = registry.ArgErr

// Tile is the number of query rows per program (two consumer
// warpgroups of 64 rows).
const Tile = 128

// Inputs are the tensors of one prefill call, row-major in the
// shapes the spec gives; float data is converted as for decode.Inputs.
type Inputs struct {
	// Q is [T, Hq, 128]: request b's new tokens are rows CuSeqlensQ[b] ..
	// CuSeqlensQ[b+1]-1.
	Q *tle.Tensor
	// CuSeqlensQ [B+1]: 0, then strictly increasing, ending at T.
	CuSeqlensQ []int64
	// KCache and VCache as in decode.Inputs, with the new tokens' K and V
	// already written.
	KCache, VCache *tle.Tensor
	// BlockIDs [B][max blocks] and KVLens [B] as in decode.Inputs: KVLens
	// are the total lengths L[b], including the Lq[b] new tokens.
	BlockIDs [][]int64
	KVLens   []int64
	// FP8 only: QScale [T, Hq]; KScale and VScale as in decode.Inputs.
	QScale, KScale, VScale *tle.Tensor
	// BlockMask, optional: [B, Hq, cdiv(max Lq, 128), cdiv(max L, 128)] of
	// 0 and 1 over 128 x 128 tiles. Row qt covers request b's query tokens
	// 128qt .. 128qt+127 (counted within the request), column kt its keys
	// 128kt .. 128kt+127; a key is visible when it is causal and its tile
	// is 1. No tile is forced on (keeping the diagonal is the mask
	// builder's business); a row that sees no key gives o 0, lse -inf.
	BlockMask *tle.Tensor
}

// MaxKeyTiles bounds the columns of a block mask: 1024 tiles of 128
// keys (131072 keys), the length of the kernel's compacted tile list.
const MaxKeyTiles = 1024

// Params are the scalar arguments.
type Params struct {
	Layout    string // paged.LayoutNHD or paged.LayoutHND
	DType     string // paged.DTypeBF16 or paged.DTypeFP8
	QuantType int    // FP8 scale layout, 0 or 1 (ignored for BF16)
	// Scale multiplies q·k; 0 means the default 128^-0.5.
	Scale float64
	// KeyStep is the keys a step of the KV walk: 128 or the page size.
	// FP8: 128 is the attn_prefill_fp8_k128 kernel (128/page pages a
	// step, one m64n128 QK^T wgmma over the step's page slots seen as one
	// [128, 128] shared view, the softmax and PV over 128 keys), the page
	// size attn_prefill_fp8 (one page a step); 0 is the default: 128 for
	// pages of 64, one page a step for 16 and 32. BF16: 128 is
	// attn_prefill_bf16_k128 (pages of 64 only: two page slots a step in
	// 64-column halves, one m64n128 QK^T a step chained over the halves,
	// two PV wgmmas, two consumer copies taking turns on the tensor
	// cores), the default there (0) since it measured faster than one page
	// a step on the H200 (docs/perf.md); the page size walks one page a
	// step (attn_prefill_bf16), the default for pages of 16 and 32.
	KeyStep int
}

// Outputs are o [T, Hq, 128] (bf16 values) and the log-sum-exp
// [T, Hq] of the scaled visible scores, in natural log (-inf for a row
// that sees no key; its o is 0).
type Outputs struct {
	O   *tle.Tensor
	LSE *tle.Tensor
}

// Dims are the sizes of one prefill call, from Validate:
// the paged cache's (paged.Dims) and prefill's own.
type Dims struct {
	paged.Dims
	T int // query rows
	// QT is the q tiles of Tile rows of the longest request,
	// cdiv(max Lq, 128): the grid's q tiles and the block mask's rows.
	QT     int
	Stages int // K/V ring stages (a page each, or KeyStep keys at 128)
	// KeyStep is the keys a step of the KV walk (Params.KeyStep
	// resolved: the page size or 128); 0 is one page a step.
	KeyStep int
	Mask    bool // a block mask is given
	MaskKT  int  // its columns: cdiv(max L, 128)
	// KeyTiles is the longest walk's 128-key steps: cdiv(max L, 128).
	KeyTiles int
}

// The FP8 kernel's register split (setmaxnreg per warpgroup: one
// producer, one transposer, two consumer warpgroups; 16 warps, 128 per
// thread at entry). The four warpgroups' sum times 128 must not exceed
// the SM's 65536 registers, or a consumer's setmaxnreg.inc waits forever.
const (
	fp8RegsProducer   = 24
	fp8RegsTransposer = 56
	fp8RegsConsumer   = 216
)

// The register split of attn_prefill_fp8_k128 (the same four warpgroups,
// the consumer a role of two copies), 128 (24 + 24 + 2 * 232) = 65536:
// one consumer copy holds acc, the step's scores and the previous step's
// PV tile (64 registers each) while both products run, and spills below
// 232; the transposer needs a group's words at a time since the backend
// interleaves its ldmatrix and stmatrix (before, it held the whole V^T and
// ran at 32, the consumers at 224), which measured faster on the H200
// over the long FP8 rows (docs/perf.md).
const (
	fp8K128RegsTransposer = 24
	fp8K128RegsConsumer   = 232
)

// fp8K128PeelSteps is the longest walk (in 128-key steps) for which
// attn_prefill_fp8_k128 peels its step 0 (PEEL 1: Q K^T alone before the
// loop, so a short walk's first product does not wait for V^T). Longer
// walks run step 0 in the loop (PEEL 0): on the H200 the peeled kernel's
// consumers ran the 512x32768 rows slower, the one-step 127x127 walks
// faster (docs/perf.md).
const fp8K128PeelSteps = 32

// pageStages is the depth of the K/V ring: 128 KB of bf16 pages (four
// pages of 64, eight of 32, sixteen of 16), half that for fp8 caches.
func pageStages(page int) int { return 256 / page }

// KeyStep is the wide step of the KV walk: 128 keys (a block mask's
// tile) from 128/page pages (FP8) or two pages of 64 (BF16).
const KeyStep = 128

// fp8K128Stages is the depth of attn_prefill_fp8_k128's ring: a stage
// is 128 keys of K and V and their V^T (48 KB of e4m3); its two consumer
// copies' layout scratch (each its own: they run at once) leave room for
// two stages in the 227 KB of a CTA, not three.
const fp8K128Stages = 2

// bf16K128Stages is the depth of attn_prefill_bf16_k128's ring: a
// stage is two bf16 pages of 64 keys of K and V (64 KB); two stages are
// the 128 KB of attn_prefill_bf16's four one-page stages (256 keys ahead
// either way): 179 KB with Q and the compiler's scratch (attn_prefill_bf16
// 195 KB); three would need 243 KB.
const bf16K128Stages = 2

// Validate checks every argument and returns the sizes; nothing
// runs. Every error is an *paged.ArgError naming the argument.
func Validate(in *Inputs, p Params) (*Dims, error) {
	if in == nil {
		return nil, errors.New("prefill: no inputs")
	}
	d := &Dims{}
	if err := d.CheckFormat(p.Layout, p.DType, p.QuantType, p.Scale); err != nil {
		return nil, err
	}

	if err := paged.CheckTensor("q", in.Q, 3, "[T, Hq, 128]"); err != nil {
		return nil, err
	}
	if in.Q.Shape[2] != paged.HeadDim {
		return nil, argErr("q", "head dim %d is unsupported: want 128 (shape %v)", in.Q.Shape[2], in.Q.Shape)
	}
	d.T, d.Hq = in.Q.Shape[0], in.Q.Shape[1]
	if d.Hq > tle.MaxGridYZ {
		return nil, argErr("q", "at most %d q heads, got %d", tle.MaxGridYZ, d.Hq)
	}

	// cu_seqlens_q: 0, strictly increasing, ending at T.
	cu := in.CuSeqlensQ
	if len(cu) < 2 {
		return nil, argErr("cu_seqlens_q", "want [B+1] offsets with B >= 1, got %d entries", len(cu))
	}
	d.B = len(cu) - 1
	if d.B > tle.MaxGridYZ {
		return nil, argErr("cu_seqlens_q", "at most %d requests, got %d", tle.MaxGridYZ, d.B)
	}
	if cu[0] != 0 {
		return nil, argErr("cu_seqlens_q", "cu_seqlens_q[0] = %d, want 0", cu[0])
	}
	maxQ := int64(0)
	for b := range d.B {
		if cu[b+1] <= cu[b] {
			return nil, argErr("cu_seqlens_q", "not increasing: cu_seqlens_q[%d] = %d, cu_seqlens_q[%d] = %d (every request needs a query token)", b, cu[b], b+1, cu[b+1])
		}
		maxQ = max(maxQ, cu[b+1]-cu[b])
	}
	if cu[d.B] != int64(d.T) {
		return nil, argErr("cu_seqlens_q", "ends at %d but q has %d rows", cu[d.B], d.T)
	}
	d.setQTiles(maxQ)

	if err := d.CheckCaches(in.KCache, in.VCache, p.Layout); err != nil {
		return nil, err
	}
	lq := func(b int) int64 { return cu[b+1] - cu[b] }
	if err := d.CheckTable(in.BlockIDs, in.KVLens, "B = len(cu_seqlens_q) - 1", lq, "the request's query tokens (cu_seqlens_q)"); err != nil {
		return nil, err
	}
	d.setKeyTiles(slices.Max(in.KVLens))
	if err := d.CheckInputValues(in.Q, in.KCache, in.VCache, in.QScale, in.KScale, in.VScale, in.BlockIDs, in.KVLens, d.T, "[T, Hq]"); err != nil {
		return nil, err
	}
	if int64(d.T)*int64(d.Hq)*paged.HeadDim > math.MaxInt32 {
		return nil, argErr("q", "%d x %d rows of 128 exceed 2^31 elements", d.T, d.Hq)
	}
	if in.BlockMask != nil {
		if err := d.checkMask(in.BlockMask, in.KVLens); err != nil {
			return nil, err
		}
	}
	if err := d.setKeyStep(p.KeyStep); err != nil {
		return nil, err
	}
	return d, nil
}

// fp8K128VStages is the depth of attn_prefill_fp8_k128's V and V^T rings
// (SV), K's depth: a third stage of V and V^T fits beside two of K and
// lets the producer load V a step earlier, but ran slower on the H200
// (docs/perf.md).
const fp8K128VStages = 2

// setKeyStep sets the keys a step of the KV walk (ks 0: the default, 128
// for pages of 64, else one page) and the ring's stages for it (after the
// cache geometry).
func (d *Dims) setKeyStep(ks int) error {
	switch {
	case ks == 0 && d.Page == 64:
		ks = KeyStep
	case ks == 0:
		ks = d.Page
	case ks == KeyStep && !d.FP8 && d.Page != 64:
		return argErr("key_step", "128 keys a step for BF16 takes pages of 64 (two page slots a step); pages of %d walk one page (key_step %d or 0)", d.Page, d.Page)
	case ks != d.Page && ks != KeyStep:
		return argErr("key_step", "want %d (one page a step) or 128 keys a step (0: the default), got %d", d.Page, ks)
	}
	d.KeyStep = ks
	if ks == KeyStep {
		d.Stages = fp8K128Stages
		if !d.FP8 {
			d.Stages = bf16K128Stages
		}
		return nil
	}
	d.Stages = pageStages(d.Page)
	return nil
}

// setKeyTiles sets the longest walk's 128-key steps from the longest
// request's maxL keys.
func (d *Dims) setKeyTiles(maxL int64) {
	d.KeyTiles = int((maxL + Tile - 1) / Tile)
}

// setQTiles sets the q tiles of the longest request's maxQ rows, for the
// grid and the block mask.
func (d *Dims) setQTiles(maxQ int64) {
	d.QT = int((maxQ + Tile - 1) / Tile)
}

// checkMask validates the block mask against the sizes already checked.
func (d *Dims) checkMask(m *tle.Tensor, lens []int64) error {
	maxL := slices.Max(lens)
	kt := int((maxL + Tile - 1) / Tile)
	if kt > MaxKeyTiles {
		return argErr("block_mask", "at most %d key tiles of 128 (%d keys), the longest request has %d", MaxKeyTiles, MaxKeyTiles*Tile, maxL)
	}
	want := []int{d.B, d.Hq, d.QT, kt}
	if len(m.Shape) != 4 || m.Shape[0] != want[0] || m.Shape[1] != want[1] || m.Shape[2] != want[2] || m.Shape[3] != want[3] {
		return argErr("block_mask", "shape %v, want [B, Hq, cdiv(max Lq, 128), cdiv(max L, 128)] = %v", m.Shape, want)
	}
	if len(m.Data) != d.B*d.Hq*d.QT*kt {
		return argErr("block_mask", "%d values for shape %v", len(m.Data), m.Shape)
	}
	for i, x := range m.Data {
		if x != 0 && x != 1 {
			return argErr("block_mask", "element %d is %v, want 0 or 1", i, x)
		}
	}
	d.Mask, d.MaskKT = true, kt
	return nil
}

var file = paged.NewKernels(FS, "prefill/prefill.tle")

// Kernel is one kernel of prefill.tle (attn_prefill_bf16,
// attn_prefill_bf16_k128, attn_prefill_fp8 or attn_prefill_fp8_k128),
// parsed and checked once per process.
func Kernel(name string) (*tle.Kernel, error) { return file.Kernel(name) }

// Launch is the kernel, its specialisation and grid for sizes d.
type Launch struct {
	Kernel  string
	Defines map[string]string
	Grid    [3]int
}

// Options are the kernel's compile options.
func (l Launch) Options() tle.CompileOptions {
	return tle.CompileOptions{Defines: l.Defines}
}

// Plan is the launch of validated sizes d: grid (QT, Hq, B), or
// (Hq, QT, B) for attn_prefill_bf16_k128, whose programs start every head's
// heaviest q tile before any lighter one (QT <= 32768 fits the grid's y:
// Validate caps T * Hq * 128 at 2^31 with Hq >= 4).
func Plan(d *Dims) Launch {
	it := strconv.Itoa
	name := "attn_prefill_bf16"
	defs := map[string]string{"PAGE": it(d.Page), "G": it(d.G), "S": it(d.Stages), "TB": it(paged.TableBlock), "MASK": "0", "KT_MAX": "1"}
	if d.Mask {
		// the list holds up to MaskKT tiles; a power of two for arange
		n := 1
		for n < d.MaskKT {
			n *= 2
		}
		defs["MASK"], defs["KT_MAX"] = "1", it(n)
	}
	if d.FP8 {
		name = "attn_prefill_fp8"
		if d.KeyStep == KeyStep {
			// 128 keys a step, whatever the page (attn_prefill_fp8_k128)
			// (its ring's depth is SK: the file's kernels are checked
			// together, and S stages of 128 keys would not fit)
			name = "attn_prefill_fp8_k128"
			defs["SK"] = defs["S"]
			delete(defs, "S")
		}
		defs["QUANT"] = it(d.Quant)
		// setmaxnreg of the producer, transposer and consumer warpgroups:
		// 128 * (RP + RT + 2 RC) <= 65536, the SM's registers
		defs["RP"], defs["RT"], defs["RC"] = it(fp8RegsProducer), it(fp8RegsTransposer), it(fp8RegsConsumer)
		if name == "attn_prefill_fp8_k128" {
			defs["RT"], defs["RC"] = it(fp8K128RegsTransposer), it(fp8K128RegsConsumer)
			defs["PEEL"] = "0"
			if d.KeyTiles <= fp8K128PeelSteps {
				defs["PEEL"] = "1"
			}
			defs["SV"] = it(fp8K128VStages)
		}
		return Launch{Kernel: name, Defines: defs, Grid: [3]int{d.QT, d.Hq, d.B}}
	}
	// BF16: setmaxnreg (producer 40, consumers 232), one program an SM
	if d.KeyStep == KeyStep {
		// 128 keys a step over two pages of 64 (attn_prefill_bf16_k128,
		// the default for pages of 64): 128 rows, attn_prefill_bf16's
		// register split, SB stages (a name of its own: the file's kernels
		// are checked together, and the FP8 kernels' SK ring must not size
		// this one's); heads fastest, so the heavy q tiles of all heads go
		// first (longest first across the grid, faster at self-attention,
		// docs/perf.md)
		defs["SB"], defs["PR"], defs["CR"] = defs["S"], "40", "232"
		delete(defs, "S")
		return Launch{Kernel: "attn_prefill_bf16_k128", Defines: defs, Grid: [3]int{d.Hq, d.QT, d.B}}
	}
	defs["PR"], defs["CR"] = "40", "232"
	return Launch{Kernel: name, Defines: defs, Grid: [3]int{d.QT, d.Hq, d.B}}
}

// Prefill validates the inputs and runs paged prefill attention on dev
// (the interpreter or a GPU; on a GPU every call copies the inputs in).
func Run(dev tle.Device, in *Inputs, p Params) (*Outputs, error) {
	d, err := Validate(in, p)
	if err != nil {
		return nil, err
	}
	pl := Plan(d)
	k, err := Kernel(pl.Kernel)
	if err != nil {
		return nil, err
	}
	// the caches are not copied: Run copies back only what the kernel
	// writes, and it never writes k or v (TestCachesNotWritten)
	cache := func(t *tle.Tensor) *tle.StridedTensor {
		return &tle.StridedTensor{Shape: d.DescShape(), Strides: d.DescStrides(), Data: t.Data}
	}
	out := &Outputs{O: tle.NewTensor(d.T, d.Hq, paged.HeadDim), LSE: tle.NewTensor(d.T, d.Hq)}
	args := map[string]any{
		"k": cache(in.KCache), "v": cache(in.VCache), "q": paged.Clone(in.Q),
		"cu_q":       &tle.Tensor{Shape: []int{d.B + 1}, Data: paged.Floats(in.CuSeqlensQ)},
		"block_ids":  &tle.Tensor{Shape: []int{d.B, d.MaxBlocks}, Data: d.FlatTable(in.BlockIDs, in.KVLens)},
		"kv_lens":    &tle.Tensor{Shape: []int{d.B}, Data: paged.Floats(in.KVLens)},
		"o":          &tle.Tensor{Shape: []int{d.T * d.Hq * paged.HeadDim}, Data: out.O.Data},
		"lse":        &tle.Tensor{Shape: []int{d.T * d.Hq}, Data: out.LSE.Data},
		"max_blocks": d.MaxBlocks, "Hq": d.Hq, "scale": d.Scale,
		"mask": &tle.Tensor{Shape: []int{1}, Data: []float64{0}}, "mask_kt": 1,
	}
	if d.Mask {
		args["mask"] = &tle.Tensor{Shape: []int{len(in.BlockMask.Data)}, Data: append([]float64(nil), in.BlockMask.Data...)}
		args["mask_kt"] = d.MaskKT
	}
	if d.FP8 {
		blk, tok, head := d.KScaleStrides()
		args["q_scale"], args["k_scale"], args["v_scale"] = paged.Clone(in.QScale), paged.Clone(in.KScale), paged.Clone(in.VScale)
		args["ks_blk"], args["ks_tok"], args["ks_head"] = blk, tok, head
	}
	if err := k.Run(dev, pl.Grid, pl.Options(), args); err != nil {
		return nil, fmt.Errorf("%s on %s: %w", pl.Kernel, dev.Name(), err)
	}
	return out, nil
}

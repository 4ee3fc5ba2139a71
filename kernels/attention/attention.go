// Package attention is paged decode attention written in .tle (decode.tle)
// and driven from Go: head dim 128, GQA groups of 4 and 8 (Hq = G * Hkv),
// pages of 16, 32 and 64 tokens, NHD and HND caches (the same kernel, the
// layout is in the TMA descriptors' strides), Sq = 1..4 query tokens per
// request (MTP: query s of request b sees keys j <= L[b] - Sq + s), BF16
// caches and FP8 (e4m3) caches with quant type 1 (q scale per (token, q
// head), K and V scales per tensor) or 0 (K scale per (token, kv head), V
// scale per kv head). The interface is ../shared/specs/attention.md's.
//
// # What runs
//
// Decode is two kernels: attn_decode_bf16 or attn_decode_fp8 over the grid
// (B, Hkv, splits), then attn_combine over the B*Sq*Hq output rows.
//
//   - One program per (request, kv head, split). The group's G*Sq query
//     rows, padded to N (8, 16 or 32: the next power of two, as a tile's
//     extent must be; G*Sq = 12 and 24 run as 16 and 32), are wgmma's N and
//     64 KV tokens its M: S^T = K Q^T [64, N] and O^T = V^T P^T [128, N], so
//     no query row is padded to 64 (m64nNk16 for bf16, m64nNk32 for e4m3).
//   - The request's page-table row is staged in shared memory (64 page ids
//     at a time); each 64-token tile is 64/page pages, each TMA-loaded as one
//     [1, 1, page, 128] box of a rank-4 descriptor over [blocks, heads,
//     tokens, dim] with the page id read from shared memory. NHD and HND
//     differ only in the descriptor's strides. Page ids past the request's
//     last page are never used (the first page is loaded instead, and
//     masked).
//   - Online softmax in base 2 (c = scale log2 e), keys past a row's limit
//     replaced by -1e30 and their probabilities by 0, V rows past L zeroed:
//     slots past a request's length may hold anything (NaN) and never reach
//     a sum.
//   - FP8: e4m3 wgmma for both products, P scaled by 256 before its e4m3
//     cast, each tile's PV into a fresh accumulator added in f32.
//   - Fixed split-K: split sp of request b takes tiles [sp*per, (sp+1)*per)
//     of its cdiv(L[b], 64) tiles (per = cdiv(tiles, splits)) and writes its
//     partial O and base-2 LSE to a workspace; attn_combine merges them with
//     weights exp2(LSE_c - max LSE). The number of splits is ChooseSplits'.
//
// The outputs are o [B*Sq, Hq, 128] (bf16 values) and lse [B*Sq, Hq], the
// log-sum-exp of the scaled scores in natural log (the workspace's partial
// LSEs are base 2).
//
// # Tests and measurements
//
// go test ./kernels/attention runs every dtype x page x layout x group x
// Sq combination on the interpreter (about 3 s) against a float64
// reference from gathered pages, and on a GPU when one is present; the
// GPU-only tests (a 128k request, the Runner) skip without one. On the GPU
// host: CGO_ENABLED=0 go test -c -o .gpu/attention.test ./kernels/attention,
// then (cd kernels/attention && TLE_REQUIRE_GPU=1 ../../.gpu/attention.test
// -test.v). tools/gpu-attn-decode.sh runs those tests (TEST=1), HPC-Ops'
// decode bench and `tlec bench attn_decode` in one session.
//
// # Not done yet (TODO)
//
//   - Dynamic split-K: an assign kernel that deals 64-token tiles of all
//     (request, kv head) pairs evenly over a persistent grid, built on the
//     GPU and reusable across steps of equal lengths; today the split is
//     fixed per call (ChooseSplits) and every request is cut into the same
//     number of splits.
//   - The cluster merge: partials of one output held in one cluster merged
//     in distributed shared memory (remote + distributed_barrier) instead of
//     the global combine.
//   - The producer/consumer form: a TMA producer warp running pages ahead
//     through a pipe of K/V stages and a consumer warpgroup; today one
//     warpgroup issues each tile's copies and waits for them (no overlap of
//     loads and math inside a CTA; CTAs overlap each other).
//   - K and V from shared memory straight into wgmma (a 64-token tile is
//     read into registers first, which serves pages of 16 and 32 tokens
//     alike) and P kept in registers (it is stored to shared memory as the
//     b operand of O^T = V^T P^T).
//   - The speed targets of issue 15 are unmeasured here (no GPU): see
//     tools/gpu-attn-decode.sh.
//
// # Prefill (prefill.tle, prefill.go, issue 16)
//
// Prefill takes q [T, Hq, 128] with varlen requests (cu_seqlens_q), the
// same paged caches, page table and FP8 scales (q scale per (token, q
// head)), and kv_lens counting the new tokens; query i of request b sees
// keys j <= L[b] - Lq[b] + i. It returns o [T, Hq, 128] and the natural-log
// LSE [T, Hq] (-inf, with o = 0, for a row that sees no key). One kernel,
// attn_prefill_bf16 or attn_prefill_fp8, over the grid (cdiv(max Lq, 128),
// Hq, B): one CTA per (128-row q tile, q head), the heaviest (last) q tiles
// first; the GQA group's heads share K/V through L2, not shared memory.
// A producer warp stages the page-table row in shared memory (64 ids at a
// time) and TMA-loads each page's K, then its V, into a ring of 256/page
// stages with separate full barriers and an empty barrier per stage; two
// consumer warpgroups (rows 0-63 and 64-127) run S = Q K^T (both operands
// in shared memory, K K-major), the base-2 online softmax and O += P V (P
// in registers). Pages past the tile's causal limit are never loaded, only
// the diagonal pages are masked, and V rows past L are zeroed in shared
// memory before the product (unread slots may hold NaN). FP8: e4m3 QK,
// each V page transposed in shared memory (ldmatrix.trans/prmt/stmatrix)
// for the e4m3 PV with P scaled by 256; pages of 16 run PV in bf16 (e4m3
// wgmma needs K = 32). `tlec op attn_prefill` runs it on issue 16's files.
// Interpreter tests cover pages 16/32/64, NHD/HND, G 4/8, quant types 0/1,
// Lq = 1, Lq = L, prefixes, Lq past one tile; TestPrefillGPU adds the
// (512, 4096) shape on a GPU.
//
// Not done yet for prefill (TODO):
//
//   - KV tiles of 128 keys: the KV walk is one page per step (QK is
//     m64nPAGEk16, so pages of 16 and 32 run narrow products and a
//     softmax step per page), because a wgmma B operand must be one
//     contiguous shared tile and TMA lands one page per box; several pages
//     into row ranges of one [128, 128] tile needs a row-slice view of a
//     shared buffer in the compiler.
//   - Overlap inside the consumers: each product is waited for at once
//     (no softmax hidden behind the next QK, no ping-pong between the two
//     warpgroups), and the persistent grid for many q tiles.
//   - The block-sparse mask (block_mask.npy is refused by name) and the
//     unpaged self-attention entry point. `tlec bench attn_prefill`
//     (PrefillBench) times the dense rows only (the three shapes x BF16,
//     FP8 quant 0/1 x NHD/HND) and has not run yet: every speed target of
//     issue 16 is unmeasured (no GPU here), as is the GPU accuracy
//     (TestPrefillGPU and the interpreter tests' GPU pass).
package attention

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// FS holds the .tle sources.
//
//go:embed *.tle
var FS embed.FS

// HeadDim is the only head dimension supported.
const HeadDim = 128

// Tile is the number of KV tokens per tile (wgmma's M).
const Tile = 64

// tableBlock is the number of page ids staged in shared memory at a time.
const tableBlock = 64

// MaxSplits bounds the number of splits of one (request, kv head).
const MaxSplits = 128

// Cache layouts (physical order of a page).
const (
	LayoutNHD = "nhd" // [blocks, page, Hkv, 128]
	LayoutHND = "hnd" // [blocks, Hkv, page, 128]
)

// Cache dtypes.
const (
	DTypeBF16 = "bf16"
	DTypeFP8  = "fp8"
)

// DecodeInputs are the tensors of one decode call, row-major in the shapes
// the spec gives. Float data is converted to the kernels' dtypes on the way
// in: bf16 for Q and the caches of a BF16 call (rounding to nearest even);
// for FP8, Q and the caches must hold values e4m3 represents exactly (the
// caches may hold NaN in slots no request reads), the scales are f32.
type DecodeInputs struct {
	// Q is [B*Sq, Hq, 128]: the Sq new tokens of request b are rows
	// b*Sq .. b*Sq+Sq-1.
	Q *tle.Tensor
	// KCache and VCache are [blocks, page, Hkv, 128] (nhd) or [blocks,
	// Hkv, page, 128] (hnd).
	KCache, VCache *tle.Tensor
	// BlockIDs holds B rows of one length (max blocks): token t of request
	// b is slot t % page of page BlockIDs[b][t / page]. Entries past a
	// request's pages are never read and may hold anything.
	BlockIDs [][]int64
	// KVLens are the KV lengths L[b] (they count the Sq new tokens).
	KVLens []int64
	// FP8 only: QScale [B*Sq, Hq]; KScale [1] (quant type 1) or one per
	// token and kv head in the cache's physical order ([blocks, page, Hkv]
	// for nhd, [blocks, Hkv, page] for hnd; quant type 0); VScale [1] (type
	// 1) or [Hkv] (type 0).
	QScale, KScale, VScale *tle.Tensor
}

// DecodeParams are the scalar arguments.
type DecodeParams struct {
	Layout string // LayoutNHD or LayoutHND
	DType  string // DTypeBF16 or DTypeFP8
	// QuantType is the FP8 scale layout, 0 or 1 (ignored for BF16).
	QuantType int
	// Sq is the number of query tokens per request, 1 to 4.
	Sq int
	// Scale multiplies q·k; 0 means the default 128^-0.5.
	Scale float64
	// Splits is the number of KV splits per (request, kv head), 1 to
	// MaxSplits; 0 lets ChooseSplits pick.
	Splits int
	// SMs is the device's multiprocessor count ChooseSplits fills (0: 132,
	// an H200's).
	SMs int
}

// DefaultScale is 128^-0.5.
var DefaultScale = 1 / math.Sqrt(HeadDim)

// DecodeOutputs are o [B*Sq, Hq, 128] (bf16 values) and the log-sum-exp
// [B*Sq, Hq] of the scaled scores, in natural log.
type DecodeOutputs struct {
	O   *tle.Tensor
	LSE *tle.Tensor
}

// Dims are the sizes of one call, derived by Validate.
type Dims struct {
	B, Sq, Hq, Hkv, G int
	Page, Blocks      int
	MaxBlocks         int
	N                 int // query rows per program: G*Sq rounded up to a power of two >= 8
	Splits            int
	Scale             float64
	FP8               bool
	Quant             int
	NHD               bool
}

// ArgError is a bad argument: Arg names it.
type ArgError struct {
	Arg string
	Msg string
}

func (e *ArgError) Error() string { return e.Arg + ": " + e.Msg }

func argErr(arg, format string, args ...any) error {
	return &ArgError{Arg: arg, Msg: fmt.Sprintf(format, args...)}
}

func checkTensor(name string, t *tle.Tensor, rank int, what string) error {
	if t == nil {
		return argErr(name, "missing (want %s)", what)
	}
	if len(t.Shape) != rank {
		return argErr(name, "want shape %s, got %v", what, t.Shape)
	}
	n := 1
	for _, d := range t.Shape {
		if d < 1 {
			return argErr(name, "dimensions must be positive, got shape %v", t.Shape)
		}
		if n > math.MaxInt32/d {
			return argErr(name, "shape %v is too large (more than 2^31 elements)", t.Shape)
		}
		n *= d
	}
	if n != len(t.Data) {
		return argErr(name, "shape %v holds %d elements but the data has %d", t.Shape, n, len(t.Data))
	}
	return nil
}

func checkShape(name string, t *tle.Tensor, what string, want ...int) error {
	if err := checkTensor(name, t, len(want), what); err != nil {
		return err
	}
	for i := range want {
		if t.Shape[i] != want[i] {
			return argErr(name, "want shape %s = %v, got %v", what, want, t.Shape)
		}
	}
	return nil
}

// Validate checks every argument and returns the sizes; nothing runs.
func Validate(in *DecodeInputs, p DecodeParams) (*Dims, error) {
	if in == nil {
		return nil, errors.New("attention: no inputs")
	}
	d := &Dims{Sq: p.Sq}
	switch p.Layout {
	case LayoutNHD:
		d.NHD = true
	case LayoutHND:
	default:
		return nil, argErr("layout", "want %q or %q, got %q", LayoutNHD, LayoutHND, p.Layout)
	}
	switch p.DType {
	case DTypeBF16:
	case DTypeFP8:
		d.FP8 = true
		if p.QuantType != 0 && p.QuantType != 1 {
			return nil, argErr("quant_type", "want 0 or 1, got %d", p.QuantType)
		}
		d.Quant = p.QuantType
	default:
		return nil, argErr("dtype", "want %q or %q, got %q", DTypeBF16, DTypeFP8, p.DType)
	}
	if p.Sq < 1 || p.Sq > 4 {
		return nil, argErr("sq", "want 1 to 4 query tokens per request, got %d", p.Sq)
	}
	d.Scale = p.Scale
	if d.Scale == 0 {
		d.Scale = DefaultScale
	}
	if math.IsNaN(d.Scale) || math.IsInf(d.Scale, 0) || d.Scale < 0 || d.Scale > math.MaxFloat32 {
		return nil, argErr("scale", "must be a positive finite f32, got %v", p.Scale)
	}

	if err := checkTensor("q", in.Q, 3, "[B*Sq, Hq, 128]"); err != nil {
		return nil, err
	}
	if in.Q.Shape[2] != HeadDim {
		return nil, argErr("q", "head dim %d is unsupported: want 128 (shape %v)", in.Q.Shape[2], in.Q.Shape)
	}
	if in.Q.Shape[0]%p.Sq != 0 {
		return nil, argErr("q", "%d rows are not a whole number of requests of sq = %d tokens (shape %v)", in.Q.Shape[0], p.Sq, in.Q.Shape)
	}
	d.B, d.Hq = in.Q.Shape[0]/p.Sq, in.Q.Shape[1]

	cacheWhat := "[blocks, page, Hkv, 128] (nhd)"
	if !d.NHD {
		cacheWhat = "[blocks, Hkv, page, 128] (hnd)"
	}
	if err := checkTensor("k_cache", in.KCache, 4, cacheWhat); err != nil {
		return nil, err
	}
	ks := in.KCache.Shape
	d.Blocks = ks[0]
	if d.NHD {
		d.Page, d.Hkv = ks[1], ks[2]
	} else {
		d.Hkv, d.Page = ks[1], ks[2]
	}
	if ks[3] != HeadDim {
		return nil, argErr("k_cache", "head dim %d is unsupported: want 128 (shape %v)", ks[3], ks)
	}
	if d.Page != 16 && d.Page != 32 && d.Page != 64 {
		return nil, argErr("k_cache", "page size %d is unsupported: want 16, 32 or 64 (shape %v, layout %s)", d.Page, ks, p.Layout)
	}
	if d.Hq%d.Hkv != 0 {
		return nil, argErr("q", "Hq = %d is not a multiple of the caches' Hkv = %d", d.Hq, d.Hkv)
	}
	d.G = d.Hq / d.Hkv
	if d.G != 4 && d.G != 8 {
		return nil, argErr("q", "GQA group Hq/Hkv = %d/%d = %d is unsupported: want 4 or 8", d.Hq, d.Hkv, d.G)
	}
	if d.Hkv > tle.MaxGridYZ {
		return nil, argErr("k_cache", "at most %d kv heads, got %d", tle.MaxGridYZ, d.Hkv)
	}
	d.N = padRows(d.G * d.Sq)
	if err := checkShape("v_cache", in.VCache, cacheWhat+" (k_cache's shape)", ks...); err != nil {
		return nil, err
	}

	// The page table and the lengths.
	if len(in.BlockIDs) != d.B {
		return nil, argErr("block_ids", "want %d rows (B = q rows / sq), got %d", d.B, len(in.BlockIDs))
	}
	d.MaxBlocks = len(in.BlockIDs[0])
	if d.MaxBlocks < 1 {
		return nil, argErr("block_ids", "rows must not be empty")
	}
	for b, row := range in.BlockIDs {
		if len(row) != d.MaxBlocks {
			return nil, argErr("block_ids", "row %d has %d entries, row 0 has %d", b, len(row), d.MaxBlocks)
		}
	}
	if d.B*d.MaxBlocks > math.MaxInt32 {
		return nil, argErr("block_ids", "too large: %d x %d entries", d.B, d.MaxBlocks)
	}
	if len(in.KVLens) != d.B {
		return nil, argErr("kv_lens", "want %d lengths (B), got %d", d.B, len(in.KVLens))
	}
	for b, L := range in.KVLens {
		if L < int64(p.Sq) {
			return nil, argErr("kv_lens", "kv_lens[%d] = %d is less than sq = %d (the lengths count the new tokens)", b, L, p.Sq)
		}
		if L > int64(d.MaxBlocks*d.Page) {
			return nil, argErr("kv_lens", "kv_lens[%d] = %d is past the %d pages of %d tokens block_ids gives (%d tokens)", b, L, d.MaxBlocks, d.Page, d.MaxBlocks*d.Page)
		}
		for i := int64(0); i < (L+int64(d.Page)-1)/int64(d.Page); i++ {
			if id := in.BlockIDs[b][i]; id < 0 || id >= int64(d.Blocks) {
				return nil, argErr("block_ids", "block_ids[%d][%d] = %d is out of range: the caches have %d blocks", b, i, id, d.Blocks)
			}
		}
	}

	// Values.
	if err := checkValues("q", in.Q, d.FP8, false); err != nil {
		return nil, err
	}
	if d.FP8 {
		for _, c := range []struct {
			name string
			t    *tle.Tensor
		}{{"k_cache", in.KCache}, {"v_cache", in.VCache}} {
			if err := checkValues(c.name, c.t, true, true); err != nil {
				return nil, err
			}
		}
		if err := checkShape("q_scale", in.QScale, "[B*Sq, Hq]", d.B*d.Sq, d.Hq); err != nil {
			return nil, err
		}
		kWhat, kShape, vWhat, vShape := "[1] (quant type 1)", []int{1}, "[1] (quant type 1)", []int{1}
		if d.Quant == 0 {
			kWhat, kShape = "[blocks, page, Hkv] (quant type 0, nhd)", []int{d.Blocks, d.Page, d.Hkv}
			if !d.NHD {
				kWhat, kShape = "[blocks, Hkv, page] (quant type 0, hnd)", []int{d.Blocks, d.Hkv, d.Page}
			}
			vWhat, vShape = "[Hkv] (quant type 0)", []int{d.Hkv}
		}
		if err := checkShape("k_scale", in.KScale, kWhat, kShape...); err != nil {
			return nil, err
		}
		if err := checkShape("v_scale", in.VScale, vWhat, vShape...); err != nil {
			return nil, err
		}
		for _, s := range []struct {
			name string
			t    *tle.Tensor
		}{{"q_scale", in.QScale}, {"k_scale", in.KScale}, {"v_scale", in.VScale}} {
			for i, x := range s.t.Data {
				if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
					return nil, argErr(s.name, "element %d is %v; scales must be finite f32", i, x)
				}
			}
		}
	} else {
		for _, s := range []struct {
			name string
			t    *tle.Tensor
		}{{"q_scale", in.QScale}, {"k_scale", in.KScale}, {"v_scale", in.VScale}} {
			if s.t != nil {
				return nil, argErr(s.name, "given for a bf16 call (scales are for fp8 only)")
			}
		}
	}

	d.Splits = p.Splits
	if d.Splits == 0 {
		d.Splits = ChooseSplits(d.B, d.Hkv, in.KVLens, p.SMs)
	}
	if d.Splits < 1 || d.Splits > MaxSplits {
		return nil, argErr("splits", "want 1 to %d (0: the policy's), got %d", MaxSplits, p.Splits)
	}
	if int64(d.B)*int64(d.Sq)*int64(d.Hq)*int64(d.Splits)*HeadDim > math.MaxInt32 {
		return nil, argErr("splits", "the workspace of %d splits for %d x %d output rows exceeds 2^31 elements", d.Splits, d.B*d.Sq, d.Hq)
	}
	return d, nil
}

// padRows is the N of G*Sq query rows: the next power of two of at least 8
// (arange, and so a tile's extent, must be a power of two).
func padRows(rows int) int {
	n := 8
	for n < rows {
		n *= 2
	}
	return n
}

// checkValues checks that t's values are finite (fp8: e4m3 values; a cache
// may also hold NaN, which only unread slots can hold usefully).
func checkValues(name string, t *tle.Tensor, fp8, nanOK bool) error {
	for i, x := range t.Data {
		if math.IsNaN(x) {
			if nanOK {
				continue
			}
			return argErr(name, "element %d is NaN", i)
		}
		if math.IsInf(x, 0) {
			return argErr(name, "element %d is %v; values must be finite", i, x)
		}
		if fp8 && ir.F8E4M3.Round(x) != x {
			return argErr(name, "element %d = %v is not an e4m3 value (fp8 inputs are given as the floats e4m3 represents exactly)", i, x)
		}
	}
	return nil
}

// ChooseSplits is the fixed split-K policy: the number of splits per
// (request, kv head) that fills sms multiprocessors (0: 132) about twice
// over without cutting the work finer than it must be.
//
// The work is T = Hkv * sum_b cdiv(L[b], 64) tiles; a grid of 2*sms
// programs would give each about W = max(2, cdiv(T, 2*sms)) tiles. The
// longest request (cdiv(max L, 64) tiles) needs cdiv(maxTiles, W) splits to
// be cut into pieces of W, so splits = cdiv(maxTiles, W), at most maxTiles
// and MaxSplits, at least 1. A batch that fills the machine already (B*Hkv
// programs of at most W tiles) gets one split; one long request beside
// short ones is cut finely (the short ones then leave most of their splits
// empty, and an empty split costs a program that writes its -1e30 LSE).
// Every request is cut into the same number of splits: balancing tiles
// across requests is the dynamic schedule's job (not done yet).
func ChooseSplits(b, hkv int, lens []int64, sms int) int {
	if sms <= 0 {
		sms = 132
	}
	var total, maxTiles int64
	for _, L := range lens {
		t := (L + Tile - 1) / Tile
		total += t
		maxTiles = max(maxTiles, t)
	}
	total *= int64(hkv)
	target := int64(2 * sms)
	w := max(2, (total+target-1)/target)
	s := (maxTiles + w - 1) / w
	s = min(s, maxTiles, MaxSplits)
	return int(max(s, 1))
}

var (
	loadOnce sync.Once
	progErr  error
	kernels  = map[string]*tle.Kernel{}
)

// Kernel is one kernel of decode.tle (attn_decode_bf16, attn_decode_fp8 or
// attn_combine), parsed and checked once per process.
func Kernel(name string) (*tle.Kernel, error) {
	loadOnce.Do(func() {
		prog, err := tle.Load(FS, "decode.tle")
		if err != nil {
			progErr = err
			return
		}
		for _, n := range []string{"attn_decode_bf16", "attn_decode_fp8", "attn_combine"} {
			k, err := prog.Kernel(n)
			if err != nil {
				progErr = err
				return
			}
			kernels[n] = k
		}
	})
	if progErr != nil {
		return nil, progErr
	}
	k, ok := kernels[name]
	if !ok {
		return nil, fmt.Errorf("attention: no kernel %s", name)
	}
	return k, nil
}

// Launches are the two kernels' specialisations and grids for sizes d.
type Launches struct {
	Decode, Combine            string // kernel names
	DecodeDefines, CombineDefs map[string]string
	DecodeGrid, CombineGrid    [3]int
}

// NumWarps is the warps per program of every kernel (one warpgroup).
const NumWarps = 4

// Plan is the launches of validated sizes d.
func Plan(d *Dims) Launches {
	it := strconv.Itoa
	name := "attn_decode_bf16"
	defs := map[string]string{"PAGE": it(d.Page), "G": it(d.G), "SQ": it(d.Sq), "N": it(d.N),
		"TB": it(tableBlock)}
	if d.FP8 {
		name = "attn_decode_fp8"
		defs["QUANT"] = it(d.Quant)
	}
	sp2 := 8 // few specialisations; masked rows cost nothing
	for sp2 < d.Splits {
		sp2 <<= 1
	}
	return Launches{
		Decode: name, Combine: "attn_combine",
		DecodeDefines: defs, CombineDefs: map[string]string{"SP2": it(sp2)},
		DecodeGrid: [3]int{d.B, d.Hkv, d.Splits}, CombineGrid: [3]int{d.B * d.Sq * d.Hq, 1, 1},
	}
}

// descShape and descStrides are the caches' descriptor: [blocks, Hkv,
// page, 128] with the strides of the physical layout.
func (d *Dims) descShape() []int { return []int{d.Blocks, d.Hkv, d.Page, HeadDim} }

func (d *Dims) descStrides() []int {
	if d.NHD {
		return []int{d.Page * d.Hkv * HeadDim, HeadDim, d.Hkv * HeadDim, 1}
	}
	return []int{d.Hkv * d.Page * HeadDim, d.Page * HeadDim, HeadDim, 1}
}

// kScaleStrides are the strides (block, slot, kv head) of a quant-type-0 K
// scale in the cache's physical order; zeros otherwise.
func (d *Dims) kScaleStrides() (blk, tok, head int) {
	if !d.FP8 || d.Quant != 0 {
		return 0, 0, 0
	}
	if d.NHD {
		return d.Page * d.Hkv, d.Hkv, 1
	}
	return d.Hkv * d.Page, 1, d.Page
}

func (d *Dims) flatTable(in *DecodeInputs) []float64 {
	out := make([]float64, 0, d.B*d.MaxBlocks)
	for b, row := range in.BlockIDs {
		np := int((in.KVLens[b] + int64(d.Page) - 1) / int64(d.Page))
		for i, id := range row {
			if i >= np && (id < math.MinInt32 || id > math.MaxInt32) {
				id = -1 // never read (the kernel masks entries past the request's pages); kept in i32's range
			}
			out = append(out, float64(id))
		}
	}
	return out
}

func floats(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func clone(t *tle.Tensor) *tle.Tensor {
	return &tle.Tensor{Shape: append([]int(nil), t.Shape...), Data: append([]float64(nil), t.Data...)}
}

// Decode validates the inputs and runs decode attention on dev (the
// interpreter or a GPU; on a GPU every call copies the inputs in: a Runner
// keeps them on the device).
func Decode(dev tle.Device, in *DecodeInputs, p DecodeParams) (*DecodeOutputs, error) {
	d, err := Validate(in, p)
	if err != nil {
		return nil, err
	}
	pl := Plan(d)
	dk, err := Kernel(pl.Decode)
	if err != nil {
		return nil, err
	}
	ck, err := Kernel(pl.Combine)
	if err != nil {
		return nil, err
	}
	rows := d.B * d.Sq
	partO := tle.NewTensor(rows * d.Hq * d.Splits * HeadDim)
	partL := tle.NewTensor(rows * d.Hq * d.Splits)
	cache := func(t *tle.Tensor) *tle.StridedTensor {
		return &tle.StridedTensor{Shape: d.descShape(), Strides: d.descStrides(), Data: append([]float64(nil), t.Data...)}
	}
	args := map[string]any{
		"k": cache(in.KCache), "v": cache(in.VCache), "q": clone(in.Q),
		"block_ids": &tle.Tensor{Shape: []int{d.B, d.MaxBlocks}, Data: d.flatTable(in)},
		"kv_lens":   &tle.Tensor{Shape: []int{d.B}, Data: floats(in.KVLens)},
		"part_o":    partO, "part_lse": partL,
		"max_blocks": d.MaxBlocks, "Hq": d.Hq, "scale": d.Scale, "SPLITS": d.Splits,
	}
	if d.FP8 {
		blk, tok, head := d.kScaleStrides()
		args["q_scale"], args["k_scale"], args["v_scale"] = clone(in.QScale), clone(in.KScale), clone(in.VScale)
		args["ks_blk"], args["ks_tok"], args["ks_head"] = blk, tok, head
	}
	opts := tle.CompileOptions{Defines: pl.DecodeDefines, NumWarps: NumWarps}
	if err := dk.Run(dev, pl.DecodeGrid, opts, args); err != nil {
		return nil, fmt.Errorf("%s on %s: %w", pl.Decode, dev.Name(), err)
	}
	out := &DecodeOutputs{O: tle.NewTensor(rows, d.Hq, HeadDim), LSE: tle.NewTensor(rows, d.Hq)}
	cargs := map[string]any{"part_o": partO, "part_lse": partL,
		"o":   &tle.Tensor{Shape: []int{rows * d.Hq * HeadDim}, Data: out.O.Data},
		"lse": &tle.Tensor{Shape: []int{rows * d.Hq}, Data: out.LSE.Data}, "SPLITS": d.Splits}
	if err := ck.Run(dev, pl.CombineGrid, tle.CompileOptions{Defines: pl.CombineDefs, NumWarps: NumWarps}, cargs); err != nil {
		return nil, fmt.Errorf("%s on %s: %w", pl.Combine, dev.Name(), err)
	}
	return out, nil
}

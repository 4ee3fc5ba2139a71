// Package paged is the paged KV cache that decode and prefill attention
// (packages decode and prefill) read, and what the two share about it:
// the format (head dim 128, pages of 16, 32 or 64 tokens, the NHD and HND
// layouts, BF16 and FP8 e4m3 caches with their quant types), the sizes a
// call's cache and page table fix (Dims) and the checks that derive them,
// the caches' TMA descriptor (a rank-4 view [blocks, Hkv, page, 128]
// whose strides say the layout) and the flattened page table the kernels
// read; and the host plumbing both ops use: the parsing of their op
// arguments (OpArgs), the lazy loading of their .tle files (Kernels) and
// the random fill of the benches' device buffers.
//
// A page table row of request b lists its pages: token t is slot t % page
// of page BlockIDs[b][t / page]; kv_lens[b] counts the request's tokens,
// the new ones included. Entries past a request's pages are never read.
// An FP8 call's scales are per tensor (quant type 1: q scale per (token, q
// head), K and V per tensor) or finer (quant type 0: K per (token, kv
// head) in the cache's physical order, V per kv head).
package paged

import (
	"errors"
	"fmt"
	"math"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// HeadDim is the only head dimension supported.
const HeadDim = 128

// TableBlock is the number of page ids a kernel stages in shared memory
// at a time (the kernels' TB).
const TableBlock = 64

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

// DefaultScale is 128^-0.5, the softmax scale of a call that gives none.
var DefaultScale = 1 / math.Sqrt(HeadDim)

// MaxLen bounds a request's KV length: the kernels count tokens in i32,
// and a walk of 128-key steps reaches up to two steps past a length.
const MaxLen = math.MaxInt32 - 2*128

// ArgError is a bad argument: Arg names it (registry.ArgError, shared by
// every op package).
type ArgError = registry.ArgError

var argErr = registry.ArgErr

// Dims are the sizes of a call that its paged KV cache and page table
// fix, shared by decode's and prefill's sizes (each embeds them).
type Dims struct {
	B, Hq, Hkv, G int // requests, q heads, kv heads, the GQA group Hq/Hkv
	Page, Blocks  int // tokens a page, pages in the caches
	MaxBlocks     int // the page table's columns
	Scale         float64
	FP8           bool
	Quant         int // the FP8 scales' layout, 0 or 1 (0 for BF16)
	NHD           bool
}

// CheckTensor checks that t is given, of rank rank (what names its
// shape), with positive dimensions, fewer than 2^31 elements and as many
// data values.
func CheckTensor(name string, t *tle.Tensor, rank int, what string) error {
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

// CheckShape is CheckTensor for the exact shape want.
func CheckShape(name string, t *tle.Tensor, what string, want ...int) error {
	if err := CheckTensor(name, t, len(want), what); err != nil {
		return err
	}
	for i := range want {
		if t.Shape[i] != want[i] {
			return argErr(name, "want shape %s = %v, got %v", what, want, t.Shape)
		}
	}
	return nil
}

// CheckValues checks that t's values are finite and stay finite in the
// dtype the kernel reads them as: e4m3 values exactly for fp8, and within
// bf16's range otherwise (1e39 is finite in an .npy file and +Inf in
// bf16). The error names the first bad element.
func CheckValues(name string, t *tle.Tensor, fp8 bool) error {
	for i, x := range t.Data {
		if fp8 && e4m3Normal(x) || !fp8 && math.Abs(x) <= bf16Max {
			continue // passes checkValue's rule, without the call
		}
		if err := checkValue(name, x, fp8); err != nil {
			return argErr(name, "element %d %s", i, err.Error())
		}
	}
	return nil
}

// bf16Max is bf16's largest finite value, (2 - 2^-7) * 2^127: a value no
// larger in magnitude rounds to a finite bf16.
const bf16Max = 0x1.fep127

// e4m3Normal reports whether x is a normal e4m3 value: exponent -6 to 8,
// no mantissa bits past e4m3's three, at most 448 (e4m3fn's largest).
// checkValue's fp8 rule passes every such x; zero, subnormals and the rest
// go to checkValue.
func e4m3Normal(x float64) bool {
	u := math.Float64bits(x)
	e := int(u>>52&0x7ff) - 1023
	return e >= -6 && e <= 8 && u&(1<<49-1) == 0 && math.Abs(x) <= 448
}

// checkValue is CheckValues' rule for one value x (the error says what is
// wrong with it after "element N").
func checkValue(name string, x float64, fp8 bool) error {
	switch {
	case math.IsNaN(x):
		return errors.New("is NaN; inputs the call reads must be finite")
	case math.IsInf(x, 0):
		return fmt.Errorf("is %v; inputs the call reads must be finite", x)
	case fp8 && ir.F8E4M3.Round(x) != x:
		return fmt.Errorf("= %v is not an e4m3 value (fp8 inputs are given as the floats e4m3 represents exactly)", x)
	case !fp8 && math.IsInf(ir.BF16.Round(x), 0):
		return fmt.Errorf("= %g does not fit bf16 (it would be %v there); inputs must be finite in the dtype the kernel reads", x, ir.BF16.Round(x))
	}
	return nil
}

// CheckCacheValues checks the slots of the cache c (k_cache or v_cache)
// that the call reads, request b's first kvLens[b] tokens in the pages
// blockIDs[b] gives, with CheckValues' rule; the other slots, which the
// call never reads, may hold anything. The error names the block, token,
// head and dimension of the first bad value.
func (d *Dims) CheckCacheValues(name string, c *tle.Tensor, blockIDs [][]int64, kvLens []int64) error {
	for b, L := range kvLens {
		for tok := int64(0); tok < L; tok++ {
			blk, slot := blockIDs[b][tok/int64(d.Page)], int(tok%int64(d.Page))
			for h := range d.Hkv {
				base := ((int(blk)*d.Page+slot)*d.Hkv + h) * HeadDim
				if !d.NHD {
					base = ((int(blk)*d.Hkv+h)*d.Page + slot) * HeadDim
				}
				for i, x := range c.Data[base : base+HeadDim] {
					if d.FP8 && e4m3Normal(x) || !d.FP8 && math.Abs(x) <= bf16Max {
						continue // passes checkValue's rule, without the call
					}
					if err := checkValue(name, x, d.FP8); err != nil {
						return argErr(name, "element %d (block %d, token %d, head %d, dim %d; request %d's token %d) %s",
							base+i, blk, slot, h, i, b, tok, err.Error())
					}
				}
			}
		}
	}
	return nil
}

// The checks decode and prefill share: the call's layout, dtype and scale,
// the paged caches, the page table with the lengths, and the values and
// FP8 scales. Each fills d and returns an ArgError naming the argument.

// CheckFormat reads the layout, the dtype (with the quant type for fp8)
// and the softmax scale (0: DefaultScale) into d.
func (d *Dims) CheckFormat(layout, dtype string, quantType int, scale float64) error {
	switch layout {
	case LayoutNHD:
		d.NHD = true
	case LayoutHND:
	default:
		return argErr("layout", "want %q or %q, got %q", LayoutNHD, LayoutHND, layout)
	}
	switch dtype {
	case DTypeBF16:
		if quantType != 0 { // a bf16 call has no quantisation: it would be ignored
			return argErr("quant_type", "%d given for dtype %q (fp8 only)", quantType, dtype)
		}
	case DTypeFP8:
		d.FP8 = true
		if quantType != 0 && quantType != 1 {
			return argErr("quant_type", "want 0 or 1, got %d", quantType)
		}
		d.Quant = quantType
	default:
		return argErr("dtype", "want %q or %q, got %q", DTypeBF16, DTypeFP8, dtype)
	}
	d.Scale = scale
	if d.Scale == 0 {
		d.Scale = DefaultScale
	}
	if math.IsNaN(d.Scale) || math.IsInf(d.Scale, 0) || d.Scale < 0 || d.Scale > math.MaxFloat32 {
		return argErr("scale", "must be a positive finite f32, got %v", scale)
	}
	return nil
}

// CheckCaches reads the caches' blocks, page size and kv heads into d (its
// Hq set) and checks them: head dim 128, pages of 16, 32 or 64 tokens, a
// GQA group of 4 or 8, v_cache the shape of k_cache.
func (d *Dims) CheckCaches(kc, vc *tle.Tensor, layout string) error {
	cacheWhat := "[blocks, page, Hkv, 128] (nhd)"
	if !d.NHD {
		cacheWhat = "[blocks, Hkv, page, 128] (hnd)"
	}
	if err := CheckTensor("k_cache", kc, 4, cacheWhat); err != nil {
		return err
	}
	ks := kc.Shape
	d.Blocks = ks[0]
	if d.NHD {
		d.Page, d.Hkv = ks[1], ks[2]
	} else {
		d.Hkv, d.Page = ks[1], ks[2]
	}
	if ks[3] != HeadDim {
		return argErr("k_cache", "head dim %d is unsupported: want 128 (shape %v)", ks[3], ks)
	}
	if d.Page != 16 && d.Page != 32 && d.Page != 64 {
		return argErr("k_cache", "page size %d is unsupported: want 16, 32 or 64 (shape %v, layout %s)", d.Page, ks, layout)
	}
	if d.Hq%d.Hkv != 0 {
		return argErr("q", "Hq = %d is not a multiple of the caches' Hkv = %d", d.Hq, d.Hkv)
	}
	d.G = d.Hq / d.Hkv
	if d.G != 4 && d.G != 8 {
		return argErr("q", "GQA group Hq/Hkv = %d/%d = %d is unsupported: want 4 or 8", d.Hq, d.Hkv, d.G)
	}
	if d.Hkv > tle.MaxGridYZ {
		return argErr("k_cache", "at most %d kv heads, got %d", tle.MaxGridYZ, d.Hkv)
	}
	return CheckShape("v_cache", vc, cacheWhat+" (k_cache's shape)", ks...)
}

// CheckTable checks the page table (d.B rows, rowsWhat saying where B comes
// from) and the lengths: kv_lens[b] at least minLen(b) (newTokens says
// what that counts), within the table's pages, every page it uses a block
// of the caches.
func (d *Dims) CheckTable(blockIDs [][]int64, kvLens []int64, rowsWhat string, minLen func(b int) int64, newTokens string) error {
	if len(blockIDs) != d.B {
		return argErr("block_ids", "want %d rows (%s), got %d", d.B, rowsWhat, len(blockIDs))
	}
	d.MaxBlocks = len(blockIDs[0])
	if d.MaxBlocks < 1 {
		return argErr("block_ids", "rows must not be empty")
	}
	for b, row := range blockIDs {
		if len(row) != d.MaxBlocks {
			return argErr("block_ids", "row %d has %d entries, row 0 has %d", b, len(row), d.MaxBlocks)
		}
	}
	if d.B*d.MaxBlocks > math.MaxInt32 {
		return argErr("block_ids", "too large: %d x %d entries", d.B, d.MaxBlocks)
	}
	if len(kvLens) != d.B {
		return argErr("kv_lens", "want %d lengths (B), got %d", d.B, len(kvLens))
	}
	for b, L := range kvLens {
		if m := minLen(b); L < m {
			return argErr("kv_lens", "kv_lens[%d] = %d is less than %s = %d (the lengths count the new tokens)", b, L, newTokens, m)
		}
		if L > MaxLen {
			return argErr("kv_lens", "kv_lens[%d] = %d: at most %d tokens (the kernels count them in i32)", b, L, MaxLen)
		}
		if L > int64(d.MaxBlocks*d.Page) {
			return argErr("kv_lens", "kv_lens[%d] = %d is past the %d pages of %d tokens block_ids gives (%d tokens)", b, L, d.MaxBlocks, d.Page, d.MaxBlocks*d.Page)
		}
		for i := int64(0); i < (L+int64(d.Page)-1)/int64(d.Page); i++ {
			if id := blockIDs[b][i]; id < 0 || id >= int64(d.Blocks) {
				return argErr("block_ids", "block_ids[%d][%d] = %d is out of range: the caches have %d blocks", b, i, id, d.Blocks)
			}
		}
	}
	return nil
}

// CheckInputValues checks q's values and, for fp8, the caches' values and
// the scales' shapes and values (q_scale [qRows, Hq], qWhat its shape's
// name); for bf16, that no scale is given.
func (d *Dims) CheckInputValues(q, kc, vc, qs, ks, vs *tle.Tensor, blockIDs [][]int64, kvLens []int64, qRows int, qWhat string) error {
	if err := CheckValues("q", q, d.FP8); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		t    *tle.Tensor
	}{{"k_cache", kc}, {"v_cache", vc}} {
		if err := d.CheckCacheValues(c.name, c.t, blockIDs, kvLens); err != nil {
			return err
		}
	}
	scales := []struct {
		name string
		t    *tle.Tensor
	}{{"q_scale", qs}, {"k_scale", ks}, {"v_scale", vs}}
	if !d.FP8 {
		for _, s := range scales {
			if s.t != nil {
				return argErr(s.name, "given for a bf16 call (scales are for fp8 only)")
			}
		}
		return nil
	}
	if err := CheckShape("q_scale", qs, qWhat, qRows, d.Hq); err != nil {
		return err
	}
	kWhat, kShape, vWhat, vShape := "[1] (quant type 1)", []int{1}, "[1] (quant type 1)", []int{1}
	if d.Quant == 0 {
		kWhat, kShape = "[blocks, page, Hkv] (quant type 0, nhd)", []int{d.Blocks, d.Page, d.Hkv}
		if !d.NHD {
			kWhat, kShape = "[blocks, Hkv, page] (quant type 0, hnd)", []int{d.Blocks, d.Hkv, d.Page}
		}
		vWhat, vShape = "[Hkv] (quant type 0)", []int{d.Hkv}
	}
	if err := CheckShape("k_scale", ks, kWhat, kShape...); err != nil {
		return err
	}
	if err := CheckShape("v_scale", vs, vWhat, vShape...); err != nil {
		return err
	}
	for _, s := range scales {
		for i, x := range s.t.Data {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
				return argErr(s.name, "element %d is %v; scales must be finite f32", i, x)
			}
			// the prefill kernels take a row's score max from the scores
			// before the row's scale (q scale, times the tensor's K scale
			// for quant type 1), which a negative scale would turn into
			// its min
			if x < 0 && (s.name == "q_scale" || s.name == "k_scale" && d.Quant == 1) {
				return argErr(s.name, "element %d is %v; q scales and a per-tensor k scale must not be negative", i, x)
			}
		}
	}
	return nil
}

// DescShape and DescStrides are the caches' descriptor: [blocks, Hkv,
// page, 128] with the strides of the physical layout.
func (d *Dims) DescShape() []int { return []int{d.Blocks, d.Hkv, d.Page, HeadDim} }

func (d *Dims) DescStrides() []int {
	if d.NHD {
		return []int{d.Page * d.Hkv * HeadDim, HeadDim, d.Hkv * HeadDim, 1}
	}
	return []int{d.Hkv * d.Page * HeadDim, d.Page * HeadDim, HeadDim, 1}
}

// KScaleStrides are the strides (block, slot, kv head) of a quant-type-0 K
// scale in the cache's physical order; zeros otherwise.
func (d *Dims) KScaleStrides() (blk, tok, head int) {
	if !d.FP8 || d.Quant != 0 {
		return 0, 0, 0
	}
	if d.NHD {
		return d.Page * d.Hkv, d.Hkv, 1
	}
	return d.Hkv * d.Page, 1, d.Page
}

// FlatTable is the page table blockIDs as the kernels read it, [B, max
// blocks] row-major, with the entries past a request's pages (of lengths
// kvLens) that i32 cannot hold replaced by -1.
func (d *Dims) FlatTable(blockIDs [][]int64, kvLens []int64) []float64 {
	out := make([]float64, 0, d.B*d.MaxBlocks)
	for b, row := range blockIDs {
		np := int((kvLens[b] + int64(d.Page) - 1) / int64(d.Page))
		for i, id := range row {
			if i >= np && (id < math.MinInt32 || id > math.MaxInt32) {
				id = -1 // never read (the kernel masks entries past the request's pages); kept in i32's range
			}
			out = append(out, float64(id))
		}
	}
	return out
}

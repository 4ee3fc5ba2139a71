package attention

import (
	"math"

	"github.com/tlego/tle/tle"
)

// PagedDims are the sizes of a call that its paged KV cache and page
// table fix, shared by decode (Dims) and prefill (PrefillDims).
type PagedDims struct {
	B, Hq, Hkv, G int // requests, q heads, kv heads, the GQA group Hq/Hkv
	Page, Blocks  int // tokens a page, pages in the caches
	MaxBlocks     int // the page table's columns
	Scale         float64
	FP8           bool
	Quant         int // the FP8 scales' layout, 0 or 1 (0 for BF16)
	NHD           bool
}

// The checks decode and prefill share: the call's layout, dtype and scale,
// the paged caches, the page table with the lengths, and the values and
// FP8 scales. Each fills d and returns an ArgError naming the argument.

// checkFormat reads the layout, the dtype (with the quant type for fp8)
// and the softmax scale (0: DefaultScale) into d.
func (d *PagedDims) checkFormat(layout, dtype string, quantType int, scale float64) error {
	switch layout {
	case LayoutNHD:
		d.NHD = true
	case LayoutHND:
	default:
		return argErr("layout", "want %q or %q, got %q", LayoutNHD, LayoutHND, layout)
	}
	switch dtype {
	case DTypeBF16:
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

// checkCaches reads the caches' blocks, page size and kv heads into d (its
// Hq set) and checks them: head dim 128, pages of 16, 32 or 64 tokens, a
// GQA group of 4 or 8, v_cache the shape of k_cache.
func (d *PagedDims) checkCaches(kc, vc *tle.Tensor, layout string) error {
	cacheWhat := "[blocks, page, Hkv, 128] (nhd)"
	if !d.NHD {
		cacheWhat = "[blocks, Hkv, page, 128] (hnd)"
	}
	if err := checkTensor("k_cache", kc, 4, cacheWhat); err != nil {
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
	return checkShape("v_cache", vc, cacheWhat+" (k_cache's shape)", ks...)
}

// checkTable checks the page table (d.B rows, rowsWhat saying where B comes
// from) and the lengths: kv_lens[b] at least minLen(b) (newTokens says
// what that counts), within the table's pages, every page it uses a block
// of the caches.
func (d *PagedDims) checkTable(blockIDs [][]int64, kvLens []int64, rowsWhat string, minLen func(b int) int64, newTokens string) error {
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
		if L > math.MaxInt32-2*PrefillTile {
			return argErr("kv_lens", "kv_lens[%d] = %d: at most %d tokens (the kernels count them in i32)", b, L, math.MaxInt32-2*PrefillTile)
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

// checkInputValues checks q's values and, for fp8, the caches' values and
// the scales' shapes and values (q_scale [qRows, Hq], qWhat its shape's
// name); for bf16, that no scale is given.
func (d *PagedDims) checkInputValues(q, kc, vc, qs, ks, vs *tle.Tensor, qRows int, qWhat string) error {
	if err := checkValues("q", q, d.FP8, false); err != nil {
		return err
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
	for _, c := range []struct {
		name string
		t    *tle.Tensor
	}{{"k_cache", kc}, {"v_cache", vc}} {
		if err := checkValues(c.name, c.t, true, true); err != nil {
			return err
		}
	}
	if err := checkShape("q_scale", qs, qWhat, qRows, d.Hq); err != nil {
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
	if err := checkShape("k_scale", ks, kWhat, kShape...); err != nil {
		return err
	}
	if err := checkShape("v_scale", vs, vWhat, vShape...); err != nil {
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

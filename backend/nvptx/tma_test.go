package nvptx

import (
	"slices"
	"strings"
	"testing"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

func TestPlanTMA(t *testing.T) {
	shared := func(vec, per, maxp int) *gpu.Shared {
		return &gpu.Shared{Vec: vec, PerPhase: per, MaxPhase: maxp, Order: []int{1, 0}}
	}
	cases := []struct {
		elem    ir.DType
		block   []int
		lay     *gpu.Shared
		box     []int
		swizzle int
		boxes   int
		err     string
	}{
		{ir.F32, []int{32, 64}, shared(1, 1, 1), []int{32, 64}, 0, 1, ""},
		{ir.BF16, []int{64, 128}, shared(1, 1, 1), []int{64, 128}, 0, 1, ""},
		{ir.BF16, []int{512, 32}, shared(1, 1, 1), []int{256, 32}, 0, 2, ""},
		{ir.BF16, []int{128, 64}, shared(8, 1, 8), []int{128, 64}, 128, 1, ""},
		{ir.F32, []int{64, 16}, shared(4, 2, 4), []int{64, 16}, 64, 1, ""},
		{ir.BF16, []int{64, 16}, shared(8, 4, 2), []int{64, 16}, 32, 1, ""},
		{ir.BF16, []int{64, 128}, shared(8, 1, 8), nil, 0, 0, "matches no TMA swizzle"},
		{ir.F32, []int{8, 3}, shared(1, 1, 1), nil, 0, 0, "not a multiple of 16"},
		{ir.F32, []int{8, 512}, shared(1, 1, 1), nil, 0, 0, "at most 256 elements wide"},
		{ir.F32, []int{1024}, &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: []int{0}}, []int{256}, 0, 4, ""},
	}
	for _, c := range cases {
		md := &ir.MemDesc{Shape: c.block, Elem: c.elem, Space: ir.Shared, Layout: c.lay}
		p, err := planTMA(&ir.Desc{Elem: c.elem, Block: c.block}, md)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v%s %s: error %v, want %q", c.block, c.elem, c.lay, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v%s %s: %v", c.block, c.elem, c.lay, err)
			continue
		}
		if !slices.Equal(p.box, c.box) || p.swizzle != c.swizzle || len(p.boxes) != c.boxes {
			t.Errorf("%v%s %s: box %v swizzle %d boxes %d, want %v %d %d", c.block, c.elem, c.lay, p.box, p.swizzle, len(p.boxes), c.box, c.swizzle, c.boxes)
		}
		for i, b := range p.boxes {
			if want := i * ir.NumElements(p.box) * c.elem.Bytes(); b.smem != want || b.coord[0] != i*p.box[0] {
				t.Errorf("%v: box %d at %+v", c.block, i, b)
			}
		}
	}
}

// TestPlanTMARank3To5: blocks of rank 3 to 5 into views that leave out
// their unit dimensions; a column-blocked (wgmma) view takes one box per
// column block, and block dimensions outside the view's rows one index
// per box. Every plan passed verifyTMAPlan (the element-by-element check).
func TestPlanTMARank3To5(t *testing.T) {
	wg := func(shape []int, elem ir.DType) *gpu.Shared {
		sh, err := gpu.WgmmaSharedLayout(shape, elem.Bytes(), ir.RowMajor(len(shape)))
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	plain := func(rank int) *gpu.Shared {
		return &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: ir.RowMajor(rank)}
	}
	type box struct {
		coord []int
		smem  int
	}
	cases := []struct {
		elem    ir.DType
		block   []int
		view    []int
		lay     *gpu.Shared
		box     []int
		swizzle int
		boxes   []box
		err     string
	}{
		// the paged KV cache's K tile: wgmma's [64, 128] bf16 layout is two
		// 64-column blocks of 8 KiB
		{ir.BF16, []int{1, 1, 64, 128}, []int{64, 128}, wg([]int{64, 128}, ir.BF16), []int{1, 1, 64, 64}, 128,
			[]box{{[]int{0, 0, 0, 0}, 0}, {[]int{0, 0, 0, 64}, 8192}}, ""},
		{ir.BF16, []int{1, 1, 1, 64, 128}, []int{64, 128}, wg([]int{64, 128}, ir.BF16), []int{1, 1, 1, 64, 64}, 128,
			[]box{{[]int{0, 0, 0, 0, 0}, 0}, {[]int{0, 0, 0, 0, 64}, 8192}}, ""},
		{ir.BF16, []int{1, 64, 128}, []int{64, 128}, wg([]int{64, 128}, ir.BF16), []int{1, 64, 64}, 128,
			[]box{{[]int{0, 0, 0}, 0}, {[]int{0, 0, 64}, 8192}}, ""},
		// a unit dimension between the rows and the columns (an NHD block)
		{ir.BF16, []int{1, 64, 1, 128}, []int{64, 128}, wg([]int{64, 128}, ir.BF16), []int{1, 64, 1, 64}, 128,
			[]box{{[]int{0, 0, 0, 0}, 0}, {[]int{0, 0, 0, 64}, 8192}}, ""},
		// fp8 rows of 128 bytes: one swizzle span, one box
		{ir.F8E4M3, []int{1, 1, 64, 128}, []int{64, 128}, wg([]int{64, 128}, ir.F8E4M3), []int{1, 1, 64, 128}, 128,
			[]box{{[]int{0, 0, 0, 0}, 0}}, ""},
		// the view keeps a unit dimension
		{ir.BF16, []int{1, 1, 64, 128}, []int{1, 64, 128}, plain(3), []int{1, 1, 64, 128}, 0,
			[]box{{[]int{0, 0, 0, 0}, 0}}, ""},
		// two planes of a column-blocked rank-3 view: one box per plane and column block
		{ir.BF16, []int{2, 64, 128}, []int{2, 64, 128}, &gpu.Shared{Vec: 8, PerPhase: 1, MaxPhase: 8, Order: []int{2, 1, 0}, BlockCols: 64}, []int{1, 64, 64}, 128,
			[]box{{[]int{0, 0, 0}, 0}, {[]int{0, 0, 64}, 8192}, {[]int{1, 0, 0}, 16384}, {[]int{1, 0, 64}, 24576}}, ""},
		// unswizzled: the whole block is one box
		{ir.BF16, []int{1, 1, 64, 128}, []int{64, 128}, plain(2), []int{1, 1, 64, 128}, 0,
			[]box{{[]int{0, 0, 0, 0}, 0}}, ""},
		// a unit outer dimension, then 512 rows: split there
		{ir.BF16, []int{1, 512, 32}, []int{512, 32}, plain(2), []int{1, 256, 32}, 0,
			[]box{{[]int{0, 0, 0}, 0}, {[]int{0, 256, 0}, 16384}}, ""},
		{ir.BF16, []int{1, 1, 64, 128}, []int{128, 64}, plain(2), nil, 0, nil, "the view must be the block less any of its dimensions of extent 1"},
		{ir.BF16, []int{2, 64, 128}, []int{64, 128}, plain(2), nil, 0, nil, "the view must be the block less any of its dimensions of extent 1"},
		// a swizzle whose rows do not restart with each plane: TMA's
		// swizzle runs on the flat row index, the view's on the plane's
		{ir.BF16, []int{2, 4, 64}, []int{2, 4, 64}, &gpu.Shared{Vec: 8, PerPhase: 1, MaxPhase: 8, Order: []int{2, 1, 0}}, nil, 0, nil, "no TMA box and swizzle serve this view"},
		{ir.BF16, []int{1, 64, 1}, []int{64}, plain(1), nil, 0, nil, "not a multiple of 16"},
	}
	for _, c := range cases {
		md := &ir.MemDesc{Shape: c.view, Elem: c.elem, Space: ir.Shared, Layout: c.lay}
		p, err := planTMA(&ir.Desc{Elem: c.elem, Block: c.block}, md)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v%s into %v %s: error %v, want %q", c.block, c.elem, c.view, c.lay, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v%s into %v %s: %v", c.block, c.elem, c.view, c.lay, err)
			continue
		}
		var got []box
		for _, b := range p.boxes {
			got = append(got, box{b.coord, b.smem})
		}
		if !slices.Equal(p.box, c.box) || p.swizzle != c.swizzle || !slices.EqualFunc(got, c.boxes, func(a, b box) bool { return a.smem == b.smem && slices.Equal(a.coord, b.coord) }) {
			t.Errorf("%v%s into %v %s: box %v swizzle %d boxes %v, want %v %d %v", c.block, c.elem, c.view, c.lay, p.box, p.swizzle, got, c.box, c.swizzle, c.boxes)
		}
	}
}

// TestVerifyTMAPlan: the element-by-element check refuses a plan whose
// boxes land elsewhere than the view's layout has the elements.
func TestVerifyTMAPlan(t *testing.T) {
	sh, err := gpu.WgmmaSharedLayout([]int{64, 128}, 2, []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	d := &ir.Desc{Elem: ir.BF16, Block: []int{1, 1, 64, 128}}
	md := &ir.MemDesc{Shape: []int{64, 128}, Elem: ir.BF16, Space: ir.Shared, Layout: sh}
	p, err := planTMA(d, md)
	if err != nil {
		t.Fatal(err)
	}
	vdims := []int{2, 3}
	if err := verifyTMAPlan(p, d, md, sh, vdims); err != nil {
		t.Fatal(err)
	}
	p.boxes[0].smem, p.boxes[1].smem = p.boxes[1].smem, p.boxes[0].smem // the column blocks swapped
	if err := verifyTMAPlan(p, d, md, sh, vdims); err == nil || !strings.Contains(err.Error(), "no TMA box and swizzle serve this view") {
		t.Errorf("swapped boxes: %v", err)
	}
	p, _ = planTMA(d, md)
	p.boxes[0] = p.boxes[1] // one column block twice, the other never
	if err := verifyTMAPlan(p, d, md, sh, vdims); err == nil || !strings.Contains(err.Error(), "two TMA boxes write") {
		t.Errorf("a box twice: %v", err)
	}
	p, _ = planTMA(d, md)
	p.swizzle = 64 // the map's swizzle is not the view's
	if err := verifyTMAPlan(p, d, md, sh, vdims); err == nil {
		t.Error("a 64B swizzle on a 128B view passed")
	}
}

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

package ir

import (
	"slices"
	"testing"
)

func TestBlockViewDims(t *testing.T) {
	for _, c := range []struct {
		block, view, dims []int
		ok                bool
	}{
		{[]int{64, 128}, []int{64, 128}, []int{0, 1}, true},
		{[]int{1, 1, 64, 128}, []int{64, 128}, []int{2, 3}, true},
		{[]int{1, 1, 64, 128}, []int{1, 64, 128}, []int{0, 2, 3}, true},
		{[]int{1, 64, 1, 128}, []int{64, 128}, []int{1, 3}, true},
		{[]int{1, 1, 1, 1, 64, 128}, []int{64, 128}, []int{4, 5}, true},
		{[]int{1, 1}, []int{1}, []int{0}, true},
		{[]int{1, 1}, []int{}, nil, true},
		{[]int{1, 1, 64, 128}, []int{128, 64}, nil, false},
		{[]int{1, 1, 64, 128}, []int{64, 1, 128}, nil, false}, // a unit dimension the block does not have there
		{[]int{2, 64, 128}, []int{64, 128}, nil, false},       // only extent-1 dimensions may be left out
		{[]int{64, 128}, []int{1, 64, 128}, nil, false},
		{[]int{64, 128}, []int{8192}, nil, false},
	} {
		dims, ok := BlockViewDims(c.block, c.view)
		if ok != c.ok || !slices.Equal(dims, c.dims) {
			t.Errorf("BlockViewDims(%v, %v) = %v, %v; want %v, %v", c.block, c.view, dims, ok, c.dims, c.ok)
		}
	}
}

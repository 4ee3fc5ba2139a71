package interp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestViewSpans: the runs viewSpans gives cover exactly the elements
// forEachOffset visits, on random views: permuted, reversed, broadcast (stride
// 0), of one element, of none, contiguous and not.
func TestViewSpans(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := range 3000 {
		rank := r.IntN(5)
		shape := make([]int, rank)
		n := 1
		for d := range shape {
			shape[d] = []int{1, 2, 3, 4, 8, 64}[r.IntN(6)]
			if n*shape[d] > 4096 { // small views: the runs, not the sizes, are the point
				shape[d] = 2
			}
			if r.IntN(40) == 0 {
				shape[d] = 0
			}
			n *= max(shape[d], 1)
		}
		// strides of a row-major layout of a padded shape, permuted, with some
		// reversed or broadcast
		strides := make([]int, rank)
		s := 1
		for _, d := range r.Perm(rank) {
			strides[d] = s
			s *= shape[d] + r.IntN(2)*r.IntN(3)
			if r.IntN(10) == 0 {
				strides[d] = 0
			}
		}
		off := 0
		for d := range strides {
			if r.IntN(5) == 0 && shape[d] > 0 {
				off += (shape[d] - 1) * strides[d]
				strides[d] = -strides[d]
			}
		}
		var want, got []int
		forEachOffset(shape, strides, off, func(e int) bool { want = append(want, e); return true })
		viewSpans(shape, strides, off, func(lo, n, step int) bool {
			if n < 1 || step < 1 {
				t.Fatalf("view %v %v %d: run (%d, %d, %d)", shape, strides, off, lo, n, step)
			}
			for i := range n {
				got = append(got, lo+i*step)
			}
			return true
		})
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(slices.Compact(want), slices.Compact(got)) {
			t.Fatalf("case %d: view %v %v %d: runs cover %v, want %v", it, shape, strides, off, got, want)
		}
	}
}

// TestShadowCells: fill, set, get and all on chunked cells agree with one
// cell per element, over random ranges that start and end inside chunks,
// cover them whole, and stride.
func TestShadowCells(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 63, 64, 65, 200, 1000} {
		s := newShadowCells[rcell](n)
		model := make([]rcell, n)
		for range 2000 {
			v := rcell{uint32(r.IntN(3)), opRef(r.IntN(2))}
			lo := r.IntN(n)
			step := 1
			if r.IntN(4) == 0 {
				step = 1 + r.IntN(70)
			}
			cnt := 1 + r.IntN((n-lo+step-1)/step)
			switch r.IntN(4) {
			case 0:
				s.set(lo, v)
				model[lo] = v
			case 1, 2:
				s.fill(lo, cnt, step, v)
				for i := range cnt {
					model[lo+i*step] = v
				}
			default:
				want := true
				for i := range cnt {
					if model[lo+i*step].clk > v.clk {
						want = false
					}
				}
				if got := s.all(lo, cnt, step, func(x rcell) bool { return x.clk <= v.clk }); got != want {
					t.Fatalf("n %d: all(%d, %d, %d) = %v, want %v", n, lo, cnt, step, got, want)
				}
			}
			for e := range n {
				if s.get(e) != model[e] {
					t.Fatalf("n %d: element %d holds %v, want %v", n, e, s.get(e), model[e])
				}
			}
		}
	}
}

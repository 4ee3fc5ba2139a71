package interp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tlego/tle/ir"
)

// TestTMABlockRows: tmaLoad and tmaStore, a row of the block at a time,
// agree with one element at a time on random tensors (strided, inner stride
// 1 or not; storage of 64 bits and narrower) and blocks that lie partly or
// wholly outside them.
func TestTMABlockRows(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := range 2000 {
		rank := 1 + r.IntN(3)
		d := &descVal{base: r.IntN(5), shape: make([]int, rank), strides: make([]int, rank), block: make([]int, rank)}
		s := 1 + r.IntN(2)
		for k := rank - 1; k >= 0; k-- {
			d.shape[k], d.block[k] = 1+r.IntN(9), 1+r.IntN(6)
			d.strides[k] = s
			s *= d.shape[k] + r.IntN(2)
		}
		mem := make([]int64, d.base+s+1)
		for i := range mem {
			mem[i] = int64(i + 1)
		}
		offs := make([]int, rank)
		for k := range offs {
			offs[k] = r.IntN(d.shape[k]+2*d.block[k]) - d.block[k]
		}
		// one element at a time: the buffer index of block element k, or -1
		n := ir.NumElements(d.block)
		addrs := make([]int, n)
		idx := make([]int, rank)
		for k := range n {
			addrs[k] = d.base
			for q := range rank {
				g := offs[q] + idx[q]
				if g < 0 || g >= d.shape[q] {
					addrs[k] = -1
					break
				}
				addrs[k] += g * d.strides[q]
			}
			for q := rank - 1; q >= 0; q-- {
				if idx[q]++; idx[q] < d.block[q] {
					break
				}
				idx[q] = 0
			}
		}
		// i64 storage is copied a row at a time, i32 read and written
		// through its elemMem
		for _, dt := range []ir.DType{ir.I64, ir.I32} {
			got := make([]int64, n)
			for i := range got {
				got[i] = -7
			}
			tmaLoad(got, FromInt64(dt, mem), &intMem, d, offs)
			want := make([]int64, n)
			for k, a := range addrs {
				if a >= 0 {
					want[k] = mem[a]
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("case %d, %v: load of %+v at %v: %v, want %v", it, dt, d, offs, got, want)
			}
			src := make([]int64, n)
			for i := range src {
				src[i] = -int64(i + 1)
			}
			b := FromInt64(dt, mem)
			tmaStore(b, &intMem, src, d, offs)
			gotMem, wantMem := make([]int64, len(mem)), slices.Clone(mem)
			for i := range gotMem {
				gotMem[i] = intMem.get(b, i)
			}
			for k, a := range addrs {
				if a >= 0 {
					wantMem[a] = src[k]
				}
			}
			if !slices.Equal(gotMem, wantMem) {
				t.Fatalf("case %d, %v: store of %+v at %v: %v, want %v", it, dt, d, offs, gotMem, wantMem)
			}
		}
	}
}

// TestDenseView: a view is dense when its elements follow one another in
// row-major order, dimensions of extent 1 aside.
func TestDenseView(t *testing.T) {
	for _, c := range []struct {
		shape, strides []int
		want           bool
	}{
		{[]int{64, 128}, []int{128, 1}, true},
		{[]int{1, 64, 128}, []int{999, 128, 1}, true},
		{[]int{64, 1, 128}, []int{128, 7, 1}, true},
		{[]int{}, []int{}, true},
		{[]int{64, 128}, []int{256, 1}, false}, // a column slice of wider rows
		{[]int{64, 128}, []int{1, 64}, false},  // transposed
		{[]int{64, 2}, []int{2, 2}, false},
	} {
		if got := denseView(c.shape, c.strides); got != c.want {
			t.Errorf("denseView(%v, %v) = %v, want %v", c.shape, c.strides, got, c.want)
		}
	}
}

package interp

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// TestVotes: ballot, prefix_count and popc against Go references on random
// masks of density about 1/4 (and all-false, all-true rows), for several
// lengths; prefix_count also where the length is not a multiple of 32.
func TestVotes(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{16, 32, 64, 256, 1024} {
		const rows = 3
		k := newKernel("votes", param("x", ptr(ir.U8)), param("idx", ptr(ir.I32)), param("words", ptr(ir.U32)), param("counts", ptr(ir.U32)))
		base := k.splat(k.bin(ir.OpMul, k.pid(0), k.ci(int64(n))), []int{n})
		offs := k.bin(ir.OpAdd, base, k.arange(n))
		m := k.cmp("ne", k.load(k.addptr(k.arg(0), offs), nil, nil), k.splat(k.ConstInt(0, ir.U8), []int{n}))
		k.store(k.addptr(k.arg(1), offs), k.Value(ir.OpPrefixCount, tile([]int{n}, ir.I32), []*ir.Value{m}, nil), nil)
		nw := n / ir.BallotWord
		if nw > 0 {
			w := k.Value(ir.OpBallot, tile([]int{nw}, ir.U32), []*ir.Value{m}, nil)
			woffs := k.bin(ir.OpAdd, k.splat(k.bin(ir.OpMul, k.pid(0), k.ci(int64(nw))), []int{nw}), k.arange(nw))
			k.store(k.addptr(k.arg(2), woffs), w, nil)
			k.store(k.addptr(k.arg(3), woffs), k.Value(ir.OpPopc, w.Type, []*ir.Value{w}, nil), nil)
		}
		mod := k.ret()
		require.NoError(t, ir.Verify(mod))

		mask := make([]float64, rows*n)
		for i := range mask {
			switch {
			case i < n: // row 0: density 1/4, values 1..255
				if r.IntN(4) == 0 {
					mask[i] = float64(1 + r.IntN(255))
				}
			case i >= 2*n: // row 2: all true
				mask[i] = float64(1 + r.IntN(255))
			} // row 1: all false
		}
		x := NewBuffer(ir.U8, rows*n)
		x.CopyFromFloat64(mask)
		idx := NewBuffer(ir.I32, rows*n)
		words, counts := NewBuffer(ir.U32, max(1, rows*nw)), NewBuffer(ir.U32, max(1, rows*nw))
		require.NoError(t, launchT(t, mod, [3]int{rows, 1, 1}, x, idx, words, counts), "n=%d", n)

		wantIdx := make([]int64, rows*n)
		wantWords := make([]int64, rows*nw)
		for row := 0; row < rows; row++ {
			c := int64(0)
			for i := row * n; i < (row+1)*n; i++ {
				wantIdx[i] = c
				if mask[i] != 0 {
					c++
					if nw > 0 {
						wantWords[i/32] |= 1 << (i % 32)
					}
				}
			}
		}
		require.Equal(t, wantIdx, idx.Int64(), "prefix_count, n=%d", n)
		if nw > 0 {
			require.Equal(t, wantWords, words.Int64(), "ballot, n=%d", n)
			wantCounts := make([]int64, len(wantWords))
			for i, w := range wantWords {
				wantCounts[i] = int64(bits.OnesCount32(uint32(w)))
			}
			require.Equal(t, wantCounts, counts.Int64(), "popc of the words, n=%d", n)
			require.Equal(t, int64(0xffffffff), words.Int64()[len(wantWords)-1], "an all-true word is all ones")
		}
	}
}

// TestPopc: popc of each integer dtype counts the bits of the element's
// pattern in that dtype (negative values in two's complement), on random
// values and the extremes, for tiles and scalars.
func TestPopc(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	const n = 64
	for _, d := range []ir.DType{ir.I8, ir.I16, ir.I32, ir.I64, ir.U8, ir.U16, ir.U32, ir.U64} {
		k := newKernel("popc", param("x", ptr(d)), param("out", ptr(d)))
		offs := k.arange(n)
		v := k.load(k.addptr(k.arg(0), offs), nil, nil)
		k.store(k.addptr(k.arg(1), offs), k.Value(ir.OpPopc, v.Type, []*ir.Value{v}, nil), nil)
		s := k.load(k.arg(0), nil, nil) // scalar: element 0 again
		k.store(k.addptr(k.arg(1), k.ci(n)), k.Value(ir.OpPopc, s.Type, []*ir.Value{s}, nil), nil)
		mod := k.ret()
		require.NoError(t, ir.Verify(mod))

		w := d.Bits()
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = d.WrapInt(int64(r.Uint64()))
		}
		vals[1], vals[2] = d.WrapInt(-1), 0
		x := FromInt64(d, vals) // held in d's width; loads give WrapInt's form
		out := NewBuffer(d, n+1)
		require.NoError(t, launchT(t, mod, [3]int{1, 1, 1}, x, out), "%v", d)
		want := make([]int64, n+1)
		for i, v := range vals {
			u := uint64(v)
			if w < 64 {
				u &= 1<<w - 1
			}
			want[i] = int64(bits.OnesCount64(u))
		}
		want[n] = want[0]
		require.Equal(t, want, out.Int64(), "%v", d)
		require.Equal(t, int64(w), want[1], "%v: popc(-1) is the width", d)
	}
}

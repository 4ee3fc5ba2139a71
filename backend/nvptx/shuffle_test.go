package nvptx

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/gpu"
)

// TestShufflePlanEmulated: the shuffle plans of warp-local conversions,
// emulated lane by lane (rounds of selected source words, shfl.idx to
// the lanes the tables name, prmt with the lanes' selectors), give every
// byte of every destination register of every warp the byte of the
// element the destination layout puts there. The f32 wgmma accumulator
// cast to 8 bits and read as wgmma's register a (FP8 attention's P) is
// one round a destination word, from two lanes of the quad; 16- and
// 32-bit conversions between the accumulator and the dot-operand layouts
// plan too.
func TestShufflePlanEmulated(t *testing.T) {
	type piece struct{ m, b int }
	for _, c := range []struct {
		shape  []int
		nw, eb int
		kw     int
		rounds int // per destination word, as a fraction: rounds == words*num/den
	}{
		{[]int{128, 64}, 8, 1, 4, 1}, {[]int{64, 64}, 4, 1, 4, 1}, {[]int{128, 128}, 8, 1, 4, 1}, {[]int{64, 32}, 4, 1, 4, 1},
		{[]int{128, 64}, 8, 2, 2, 0}, {[]int{64, 64}, 4, 4, 1, 0},
	} {
		name := fmt.Sprintf("%v warps=%d eb=%d", c.shape, c.nw, c.eb)
		src := gpu.MustLinear(&gpu.MMAv3{WarpsPerCTA: []int{c.nw, 1}}, c.shape)
		dst := gpu.MustLinear(&gpu.DotOperand{OpIdx: 0, Parent: &gpu.MMA{WarpsPerCTA: []int{c.nw, 1}}, KWidth: c.kw}, c.shape)
		p := planShuffle(src, dst, c.eb)
		if c.rounds == 0 {
			// 16/32-bit a operands: the same registers (regGather) or a plan
			if p != nil {
				require.LessOrEqual(t, len(p.rounds), len(p.words), name)
			}
			continue
		}
		require.NotNil(t, p, name)
		E := 4 / c.eb
		require.Len(t, p.words, dst.NumRegs()/E, name)
		require.Len(t, p.rounds, len(p.words), name+": one shfl a destination word")
		require.Equal(t, 3, p.qmask, name+": within quads")
		N := c.shape[1]
		for w := 0; w < c.nw; w++ {
			got := emulateShuffle(p, func(lane, sw int) [4]piece {
				var o [4]piece
				for by := 0; by < 4; by++ {
					cc := src.Coords(sw*E+by/c.eb, lane, w)
					o[by] = piece{cc[0]*N + cc[1], by % c.eb}
				}
				return o
			}, len(p.words))
			for l := 0; l < 32; l++ {
				for v := range p.words {
					for by := 0; by < 4; by++ {
						cc := dst.Coords(v*E+by/c.eb, l, w)
						require.Equal(t, piece{cc[0]*N + cc[1], by % c.eb}, got[l][v][by], "%s: warp %d lane %d word %d byte %d", name, w, l, v, by)
					}
				}
			}
		}
	}
}

// TestShufflePlanRejects: layouts with different warp bases (data across
// warps) get no plan, nor do conversions within threads.
func TestShufflePlanRejects(t *testing.T) {
	shape := []int{128, 64}
	src := gpu.MustLinear(&gpu.MMAv3{WarpsPerCTA: []int{8, 1}}, shape)
	other := gpu.MustLinear(&gpu.DotOperand{OpIdx: 0, Parent: &gpu.MMA{WarpsPerCTA: []int{4, 2}}, KWidth: 4}, shape)
	require.Nil(t, planShuffle(src, other, 1))
	require.Nil(t, planShuffle(src, src, 1))
	blocked := gpu.MustLinear(&gpu.Blocked{SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{2, 16}, WarpsPerCTA: []int{8, 1}, Order: []int{1, 0}}, shape)
	require.Nil(t, planShuffle(src, blocked, 4), "the warps hold other rows")
}

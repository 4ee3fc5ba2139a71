package gpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The vote layouts: the mask's layout passes VoteLayoutOK (and a layout
// with two elements per thread does not), and the ballot words' layout
// holds, in every thread, the words of the mask registers it holds: its
// bases are the mask's divided by 32, lanes replicated.
func TestVoteLayouts(t *testing.T) {
	for _, nw := range []int{1, 2, 4, 8, 16, 32} {
		for _, n := range []int{16, 32, 64, 256, 1024, 4096} {
			m, err := Linear(VoteLayout(nw), []int{n})
			require.NoError(t, err)
			require.True(t, VoteLayoutOK(m), "n=%d nw=%d: %v", n, nw, m)
			two, err := Linear(&Blocked{SizePerThread: []int{2}, ThreadsPerWarp: []int{32}, WarpsPerCTA: []int{nw}, Order: []int{0}}, []int{n})
			require.NoError(t, err)
			require.False(t, VoteLayoutOK(two), "n=%d nw=%d: %v", n, nw, two)
			distinct := false
			for _, b := range m.Warp {
				distinct = distinct || b[0] != 0
			}
			if distinct {
				require.Equal(t, 4*max(1, n/32), PrefixCountScratchBytes(m))
			} else {
				require.Zero(t, PrefixCountScratchBytes(m), "n=%d nw=%d", n, nw)
			}
			if n < 32 {
				continue
			}
			w, err := Linear(BallotLayout(nw), []int{n / 32})
			require.NoError(t, err)
			for _, b := range w.Lane {
				require.Equal(t, []int{0}, b)
			}
			require.Len(t, w.Warp, len(m.Warp))
			for i, b := range m.Warp {
				require.Equal(t, []int{b[0] / 32}, w.Warp[i], "n=%d nw=%d warp basis %d", n, nw, i)
			}
			require.Len(t, w.Reg, len(m.Reg))
			for i, b := range m.Reg {
				require.Equal(t, []int{b[0] / 32}, w.Reg[i], "n=%d nw=%d register basis %d", n, nw, i)
			}
		}
	}
}

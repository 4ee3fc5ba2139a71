package gpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The vote layouts: the mask's layout and every 1-D blocked layout pass
// VoteLayoutOK with their runs (and chunks, and scratch), a layout
// with copies on the low lanes does not, and the ballot words' layout
// holds, in every thread, the words of the mask registers it holds: its
// bases are the mask's divided by 32, lanes replicated.
func TestVoteLayouts(t *testing.T) {
	for _, nw := range []int{1, 2, 4, 8, 16, 32} {
		for _, n := range []int{16, 32, 64, 256, 1024, 4096} {
			m, err := Linear(VoteLayout(nw), []int{n})
			require.NoError(t, err)
			require.True(t, VoteLayoutOK(m), "n=%d nw=%d: %v", n, nw, m)
			require.Equal(t, 1, VoteRun(m))
			for _, run := range []int{1, 2, 4, 16} {
				l, err := Linear(&Blocked{SizePerThread: []int{run}, ThreadsPerWarp: []int{32}, WarpsPerCTA: []int{nw}, Order: []int{0}}, []int{n})
				require.NoError(t, err)
				require.True(t, VoteLayoutOK(l), "n=%d nw=%d run=%d: %v", n, nw, run, l)
				require.Equal(t, min(run, n), VoteRun(l))
				chunks := max(1, n/(32*run))
				require.Equal(t, chunks, VoteChunks(l))
				if nw > 1 && n > 32*run {
					require.Equal(t, 4*chunks, PrefixCountScratchBytes(l), "n=%d nw=%d run=%d", n, nw, run)
				} else {
					require.Zero(t, PrefixCountScratchBytes(l), "n=%d nw=%d run=%d", n, nw, run)
				}
			}
			// lanes 0 and 1 copies of each other, 2, 3, 4 along the tile:
			// not in lane order
			sl, err := Linear(&Slice{Dim: 0, Parent: &Blocked{SizePerThread: []int{1, 1}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{1, nw}, Order: []int{0, 1}}}, []int{n})
			require.NoError(t, err)
			require.False(t, VoteLayoutOK(sl), "n=%d nw=%d: %v", n, nw, sl)
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

package gpu

import "github.com/tlego/tle/ir"

// The layouts of the warp votes (ballot, prefix_count), which the layout
// pass gives their operands and results and the backend lowers from.

// VoteLayout is the layout a vote's 1-D mask of n elements takes over
// numWarps warps: one element per thread in order, element 32w+b on lane b
// (the blocked layout of one element per thread), so that a warp's
// vote.sync.ballot over one register is the 32-bit word of 32 consecutive
// elements.
func VoteLayout(numWarps int) *Blocked {
	return &Blocked{SizePerThread: []int{1}, ThreadsPerWarp: []int{32}, WarpsPerCTA: []int{numWarps}, Order: []int{0}}
}

// BallotLayout is the layout of ballot's [n/32] words when its mask is in
// VoteLayout(numWarps): every lane of a warp holds the words of that warp's
// registers, word r*numWarps + w in warp w's register r (the slice, along
// the lanes, of [n/32, 32] blocked with the lanes along dimension 1).
func BallotLayout(numWarps int) *Slice {
	return &Slice{Dim: 1, Parent: &Blocked{SizePerThread: []int{1, 1}, ThreadsPerWarp: []int{1, 32}, WarpsPerCTA: []int{numWarps, 1}, Order: []int{1, 0}}}
}

// VoteLayoutOK reports whether a 1-D layout holds its elements in lane
// order over runs: each thread holds runs of VoteRun consecutive elements
// in its low registers, and lane b's run of a warp follows lane b-1's (lane
// bases run*1, run*2, ..., run*16; those at or past the length zero: a tile
// shorter than 32 runs is held once by the low lanes, replicated by the
// others). Then a warp's ballot over the j-th register of its runs holds
// element j of each of 32 consecutive runs; with runs of one (VoteLayout),
// the 32-bit word of 32 consecutive elements, which ballot needs.
func VoteLayoutOK(ll *LinearLayout) bool {
	if len(ll.Shape) != 1 || len(ll.Lane) != 5 {
		return false
	}
	run := VoteRun(ll)
	for i, b := range ll.Lane {
		want := run << i
		if want >= ll.Shape[0] {
			want = 0
		}
		if b[0] != want {
			return false
		}
	}
	return true
}

// VoteRun is the number of consecutive elements a thread holds in its low
// registers (ContigRegs along the one dimension).
func VoteRun(ll *LinearLayout) int { return ll.ContigRegs(0) }

// VoteChunks is the number of chunks of a 1-D tile in a vote layout: the
// elements one warp's registers of one index hold at a time (32 runs; the
// whole tile when shorter).
func VoteChunks(ll *LinearLayout) int { return max(1, ll.Shape[0]/(ir.BallotWord*VoteRun(ll))) }

// PrefixCountScratchBytes is the shared scratch prefix_count over a mask in
// ll needs: one i32 count per chunk (VoteChunks) when several warps hold
// distinct chunks (a warp reads the counts of the chunks before its own),
// none when one warp's threads hold the whole tile.
func PrefixCountScratchBytes(ll *LinearLayout) int {
	for _, b := range ll.Warp {
		if b[0] != 0 {
			return 4 * VoteChunks(ll)
		}
	}
	return 0
}

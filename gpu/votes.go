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

// VoteLayoutOK reports whether a 1-D layout puts lane b's element at bit
// pattern b of the index (lane bases 1, 2, 4, 8, 16, the ones at or past
// the length zero): a warp's ballot over one register holds consecutive
// elements in lane order, and a tile shorter than 32 is held once by the
// low lanes, replicated by the others.
func VoteLayoutOK(ll *LinearLayout) bool {
	if len(ll.Shape) != 1 || len(ll.Lane) != 5 {
		return false
	}
	for i, b := range ll.Lane {
		want := 1 << i
		if want >= ll.Shape[0] {
			want = 0
		}
		if b[0] != want {
			return false
		}
	}
	return true
}

// VoteWords is the number of 32-element words of a 1-D tile of n elements
// (one for a tile shorter than 32).
func VoteWords(n int) int { return max(1, n/ir.BallotWord) }

// PrefixCountScratchBytes is the shared scratch prefix_count over a mask in
// ll needs: one i32 count per word when several warps hold distinct words
// (a warp reads the counts of the words before its own), none when one
// warp's threads hold the whole tile.
func PrefixCountScratchBytes(ll *LinearLayout) int {
	for _, b := range ll.Warp {
		if b[0] != 0 {
			return 4 * VoteWords(ll.Shape[0])
		}
	}
	return 0
}

package ir

// BallotWord is the number of mask elements one ballot word holds (the
// lanes of a warp).
const BallotWord = 32

// checkBallot checks ballot: a 1-D i1 tile of N elements, N a multiple of
// BallotWord, to an [N/32]u32 tile.
func (v *verifier) checkBallot(op, _ *Op) bool {
	in, ok := v.voteMask(op)
	if !ok {
		return false
	}
	if in[0]%BallotWord != 0 {
		v.errf(op, "mask has %d elements, not a multiple of %d", in[0], BallotWord)
		return false
	}
	v.sameType(op, "result", op.rt(), TileOf([]int{in[0] / BallotWord}, U32))
	return false // a tile result: no memdesc to check
}

// checkPrefixCount checks prefix_count: a 1-D i1 tile to an i32 tile of its
// shape.
func (v *verifier) checkPrefixCount(op, _ *Op) bool {
	in, ok := v.voteMask(op)
	if !ok {
		return false
	}
	v.sameType(op, "result", op.rt(), TileOf(in, I32))
	return false
}

// voteMask checks that the operand of a vote op is a 1-D i1 tile and
// returns its shape.
func (v *verifier) voteMask(op *Op) ([]int, bool) {
	t, ok := op.ot(0).(*Tile)
	if !ok || len(t.Shape) != 1 || Elem(t) != I1 {
		v.errf(op, "operand has type %s, want a 1-D i1 tile", typeString(op.ot(0)))
		return nil, false
	}
	return t.Shape, true
}

// checkPopc checks popc: element-wise on integers of at least 8 bits, the
// result of the operand's type.
func (v *verifier) checkPopc(op, _ *Op) bool {
	if !v.sameType(op, "result", op.rt(), op.ot(0)) {
		return false
	}
	if d := elemDType(op.ot(0)); !d.IsInt() || d == I1 {
		v.errf(op, "needs an integer operand (not i1), has %s", typeString(op.ot(0)))
	}
	return true
}

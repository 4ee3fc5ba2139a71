package lower

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// ballot, popc and prefix_count lower to their ops at their calls, with
// the result types the checker gives: [N/32]u32, the operand's type (an
// untyped constant as i32, or i64 when it does not fit), [N]i32.
func TestLowerVotes(t *testing.T) {
	m := lowerSource(t, "votes.tle", `kernel k(x *u8, out *i32, w *u32) {
    r := arange(0, 128)
    msk := load(x + r) != 0
    idx := prefix_count(msk)
    words := ballot(msk)
    store(w + arange(0, 4), popc(words))
    store(out + r, idx + popc(r.to(i8)).to(i32))
    store(out, popc(255) + popc(1<<40).to(i32))
}
`)
	text := ir.Print(m)
	type got struct {
		kind        ir.Kind
		operand, ty string
		line        int
	}
	var ops []got
	m.Func("k").Walk(func(op *ir.Op) {
		switch op.Kind {
		case ir.OpBallot, ir.OpPopc, ir.OpPrefixCount:
			ops = append(ops, got{op.Kind, op.Operands[0].Type.String(), op.Results[0].Type.String(), m.File.Position(op.Pos).Line})
		}
	})
	require.Equal(t, []got{
		{ir.OpPrefixCount, "[128]i1", "[128]i32", 4},
		{ir.OpBallot, "[128]i1", "[4]u32", 5},
		{ir.OpPopc, "[4]u32", "[4]u32", 6},
		{ir.OpPopc, "[128]i8", "[128]i8", 7},
		{ir.OpPopc, "i32", "i32", 8},
		{ir.OpPopc, "i64", "i64", 8},
	}, ops, text)
	m2, err := ir.Parse("votes.tir", []byte(text))
	require.NoError(t, err)
	require.NoError(t, ir.Verify(m2))
	require.Equal(t, text, ir.Print(m2))
}

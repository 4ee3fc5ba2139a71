package nvptx

import (
	"fmt"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// The warp votes. The layout pass gives a vote's mask a layout in which a
// warp's register holds 32 consecutive elements in lane order
// (gpu.VoteLayoutOK: lane b holds element 32w+b of word w), so that one
// vote.sync.ballot.b32 per register is the word of those elements, and
// every lane of the warp receives it. All 32 lanes of every warp run tile
// code, so the member mask is always full.

// voteBallot is vote.sync.ballot.b32 with every lane of the warp.
func (g *gen) voteBallot(pred value.Value) value.Value {
	f := g.md.intrinsic("llvm.nvvm.vote.ballot.sync", true, types.I32, types.I32, types.I1)
	g.md.convergent[f] = true
	return g.cur.NewCall(f, i32c(-1), pred)
}

// popcount is popc.b32 (popc.b64) of an integer value, in its own type
// (llc widens 8- and 16-bit values to 32 bits).
func (g *gen) popcount(x value.Value) value.Value {
	t, ok := x.Type().(*types.IntType)
	if !ok {
		g.failf("popc of %s", x.Type())
	}
	return g.cur.NewCall(g.md.intrinsic(fmt.Sprintf("llvm.ctpop.i%d", t.BitSize), true, t, t), x)
}

// voteMask is the mask operand of a vote op, checked to be in a vote layout.
func (g *gen) voteMask(op *ir.Op) *tval {
	m := g.val(op.Operands[0])
	if m.s != nil || m.ll == nil || !gpu.VoteLayoutOK(m.ll) {
		g.failf("%s: the mask's layout does not put element 32w+b on lane b (the layout pass converts it to %s)", op.Kind, gpu.VoteLayout(g.nw))
	}
	return m
}

// ballot lowers ballot(mask): one vote per mask register, the word going
// to the result register that holds it (gpu.BallotLayout: the words of a
// thread's mask registers, every lane holding its warp's).
func (g *gen) ballot(op *ir.Op) {
	m := g.voteMask(op)
	ll := m.ll
	out := g.newTile(op.Results[0].Type)
	w := out.ll
	ok := len(w.Warp) == len(ll.Warp) && ll.Shape[0] == w.Shape[0]*ir.BallotWord
	for _, b := range w.Lane {
		ok = ok && b[0] == 0
	}
	for i, b := range ll.Warp {
		ok = ok && i < len(w.Warp) && w.Warp[i][0]*ir.BallotWord == b[0]
	}
	if !ok {
		g.failf("ballot: the words' layout %v does not hold the words of the mask's registers %v", w, ll)
	}
	for r := range out.regs {
		src := g.regAt(ll, []int{w.RegCoords(r)[0] * ir.BallotWord})
		if src < 0 {
			g.failf("ballot: no mask register holds word register %d", r)
		}
		out.regs[r] = g.voteBallot(m.regs[src])
	}
	g.set(op.Results[0], out)
}

// laneMaskLt is %lanemask_lt: the bits of the lanes below this one.
func (g *gen) laneMaskLt() value.Value {
	var lt value.Value
	g.atEntry(func() {
		lt = g.cur.NewCall(g.md.inlineAsm(types.I32, nil, "mov.u32 $0, %lanemask_lt;", "=r", false))
	})
	return lt
}

// prefixCount lowers prefix_count(mask) (the result in the mask's layout):
// within a warp, the element on lane b of register r counts the true
// elements of its word below it, popc(ballot & %lanemask_lt); the words
// before its word are counted from their popcounts: those of the thread's
// own registers when one warp holds the whole tile, else through the op's
// shared scratch, one i32 per word, which every warp writes for its words
// and then reads whole. No shuffles: a word's popcount is already in every
// lane.
func (g *gen) prefixCount(op *ir.Op) {
	m := g.voteMask(op)
	ll := m.ll
	n := ll.Shape[0]
	out := g.newTile(op.Results[0].Type)
	if !out.ll.Equal(ll) {
		g.failf("prefix_count: the result's layout %v is not the mask's %v", out.ll, ll)
	}
	var lt, valid value.Value
	if n >= ir.BallotWord {
		lt = g.laneMaskLt()
	} else {
		// the low n lanes hold the tile, the others copies of them: count
		// the low lanes' votes below the lane's element
		g.atEntry(func() {
			lt = g.sub(g.shl(i32c(1), g.and(g.lane, i32c(int64(n-1)))), i32c(1))
		})
		valid = i32c(int64(1)<<n - 1)
	}
	words := make([]value.Value, len(m.regs))
	counts := make([]value.Value, len(m.regs))
	for r := range m.regs {
		words[r] = g.voteBallot(m.regs[r])
		if valid != nil {
			words[r] = g.and(words[r], valid)
		}
		counts[r] = g.popcount(words[r])
		out.regs[r] = g.popcount(g.and(words[r], lt))
	}
	wordOf := func(r int) int { return ll.RegCoords(r)[0] / ir.BallotWord }
	distinct := false
	for _, b := range ll.Warp {
		distinct = distinct || b[0] != 0
	}
	if !distinct {
		// the thread holds every word: add those before each register's
		nw := gpu.VoteWords(n)
		byWord := make([]int, nw)
		for i := range byWord {
			byWord[i] = -1
		}
		for r := range m.regs {
			byWord[wordOf(r)] = r
		}
		var before value.Value = i32c(0)
		for _, r := range byWord {
			if r < 0 {
				g.failf("prefix_count: the thread holds no register of a word of a one-warp tile")
			}
			out.regs[r] = g.add(out.regs[r], before)
			before = g.add(before, counts[r])
		}
		g.set(op.Results[0], out)
		return
	}
	g.prefixAcrossWarps(op, ll, counts, out)
	g.set(op.Results[0], out)
}

// prefixAcrossWarps adds to each register of out the count of the true
// elements in the words before its own, through the op's scratch: each
// warp writes its words' counts (every lane the same values), and after a
// barrier every thread reads all of them, adds them up in word order and
// picks, per register, the sum before its word by the warp's part of the
// word index.
func (g *gen) prefixAcrossWarps(op *ir.Op, ll *gpu.LinearLayout, counts []value.Value, out *tval) {
	nWords := gpu.VoteWords(ll.Shape[0])
	a := accum{g: g, d: ir.I32, kind: "sum"}
	off := g.smemOffset()
	scratch := g.scratchRange(gpu.PrefixCountScratchBytes(ll))
	wordOf := func(r int) int { return ll.RegCoords(r)[0] / ir.BallotWord }
	// the warp's part of the word index: the thread's base over 32 (its
	// lane part is below 32)
	var warpWord value.Value
	g.atEntry(func() { warpWord = g.lshr(g.threadBase(ll)[0], i32c(5)) })
	g.beforeSharedWriteR(scratch)
	for r := range counts {
		a.store(counts[r], g.smemByteBase(off, g.add(warpWord, i32c(int64(wordOf(r)))), 4))
	}
	g.beforeSharedReadR(scratch)
	// the counts of all words but the last, in 16-byte loads (the
	// scratch is aligned to gpu.SmemAlign)
	vec := 4
	for nWords%vec != 0 {
		vec /= 2
	}
	var c []value.Value
	for j := 0; j < nWords-1; j += vec {
		c = append(c, g.plainLoad(g.smemByteBase(off, i32c(int64(j)), 4), asShared, wordB32, vec)...)
	}
	before := make([]value.Value, nWords) // true elements in the words before word j
	var run value.Value = i32c(0)
	for j := range before {
		before[j] = run
		if j+1 < nWords {
			run = g.add(run, c[j])
		}
	}
	// the values the warp part takes, over the warps of the layout
	var parts []int
	seen := map[int]bool{}
	for w := 0; w < 1<<len(ll.Warp); w++ {
		p := 0
		for i, b := range ll.Warp {
			if w>>i&1 != 0 {
				p ^= b[0] / ir.BallotWord
			}
		}
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	for r := range out.regs {
		pre := before[wordOf(r)^parts[0]]
		for _, p := range parts[1:] {
			pre = g.cur.NewSelect(g.cur.NewICmp(enum.IPredEQ, warpWord, i32c(int64(p))), before[wordOf(r)^p], pre)
		}
		out.regs[r] = g.add(out.regs[r], pre)
	}
}

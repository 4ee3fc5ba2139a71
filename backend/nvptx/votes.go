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

// voteMask is the mask operand of a vote op, checked to be in a vote layout
// (gpu.VoteLayoutOK; with runs of one element when ballot needs words).
func (g *gen) voteMask(op *ir.Op, runs bool) *tval {
	m := g.val(op.Operands[0])
	if m.s != nil || m.ll == nil || !gpu.VoteLayoutOK(m.ll) || !runs && gpu.VoteRun(m.ll) != 1 {
		g.failf("%s: the mask's layout does not hold its elements in lane order (the layout pass converts it to %s)", op.Kind, gpu.VoteLayout(g.nw))
	}
	return m
}

// ballot lowers ballot(mask): one vote per mask register, the word going
// to the result register that holds it (gpu.BallotLayout: the words of a
// thread's mask registers, every lane holding its warp's).
func (g *gen) ballot(op *ir.Op) {
	m := g.voteMask(op, false)
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

// prefixCount lowers prefix_count(mask), the result in the mask's layout:
// lane order over runs of run consecutive elements per thread
// (gpu.VoteLayoutOK). A warp's registers of one run index, over its 32
// lanes, hold a chunk of 32*run consecutive elements; with b_j the ballot
// of the run's j-th registers, the element j of the run on lane l counts
//
//	popc(b_0 & lt) + ... + popc(b_{run-1} & lt)   the chunk's runs of the lanes below (%lanemask_lt)
//	+ mask[0] + ... + mask[j-1]                    its own run's elements before it
//	+ the counts of the chunks before this one
//
// (for runs longer than 2, the first line is the sum over the bits i of
// the lanes' run counts of popc(ballot(bit i) & lt) << i: fewer votes)
//
// the last from the chunks' popcounts: those of the thread's own registers
// when one warp holds the whole tile, else through the op's shared scratch,
// one i32 per chunk, which every warp writes for its chunks and then reads
// whole. No shuffles: a ballot is already in every lane.
func (g *gen) prefixCount(op *ir.Op) {
	m := g.voteMask(op, true)
	ll := m.ll
	n := ll.Shape[0]
	out := g.newTile(op.Results[0].Type)
	if !out.ll.Equal(ll) {
		g.failf("prefix_count: the result's layout %v is not the mask's %v", out.ll, ll)
	}
	run := gpu.VoteRun(ll)
	lanes := min(ir.BallotWord, n/run) // the lanes holding distinct runs
	var lt, valid value.Value
	if lanes == ir.BallotWord {
		lt = g.laneMaskLt()
	} else {
		// the low lanes hold the tile, the others copies of them: count
		// the low lanes' votes below the lane's run
		g.atEntry(func() {
			lt = g.sub(g.shl(i32c(1), g.and(g.lane, i32c(int64(lanes-1)))), i32c(1))
		})
		valid = i32c(int64(1)<<lanes - 1)
	}
	nChunks := gpu.VoteChunks(ll)
	chunkOf := func(r int) int { return ll.RegCoords(r)[0] / (ir.BallotWord * run) }
	groups := len(m.regs) / run          // register r is element r%run of group r/run's run
	below := make([]value.Value, groups) // per group: the lanes below, and its own run before
	counts := make([]value.Value, groups)
	vote := func(pred value.Value, shift int, bl, cnt value.Value) (value.Value, value.Value) {
		b := g.voteBallot(pred)
		if valid != nil {
			b = g.and(b, valid)
		}
		sh := i32c(int64(shift))
		return g.add(bl, g.shl(g.popcount(g.and(b, lt)), sh)), g.add(cnt, g.shl(g.popcount(b), sh))
	}
	for q := 0; q < groups; q++ {
		var bl, cnt, own value.Value = i32c(0), i32c(0), i32c(0)
		for j := 0; j < run; j++ {
			r := q*run + j
			if run <= 2 {
				bl, cnt = vote(m.regs[r], 0, bl, cnt)
			}
			out.regs[r] = own // completed below
			own = g.add(own, g.cur.NewZExt(m.regs[r], types.I32))
		}
		if run > 2 {
			// fewer votes: the bits of the run's count, bit i weighing 2^i
			// (log2(run)+1 ballots instead of run)
			for i := 0; i <= log2(run); i++ {
				bit := g.cur.NewICmp(enum.IPredNE, g.and(g.lshr(own, i32c(int64(i))), i32c(1)), i32c(0))
				bl, cnt = vote(bit, i, bl, cnt)
			}
		}
		below[q], counts[q] = bl, cnt
	}
	distinct := false
	for _, b := range ll.Warp {
		distinct = distinct || b[0] != 0
	}
	var before []value.Value // per group: the true elements in the chunks before its own
	if distinct {
		before = g.chunksBefore(ll, nChunks, groups, run, counts)
	} else {
		// the thread holds every chunk: add those before each group's
		byChunk := make([]int, nChunks)
		for i := range byChunk {
			byChunk[i] = -1
		}
		for q := 0; q < groups; q++ {
			byChunk[chunkOf(q*run)] = q
		}
		before = make([]value.Value, groups)
		var sum value.Value = i32c(0)
		for _, q := range byChunk {
			if q < 0 {
				g.failf("prefix_count: a chunk of a one-warp tile is in no register")
			}
			before[q] = sum
			sum = g.add(sum, counts[q])
		}
	}
	for r := range out.regs {
		out.regs[r] = g.add(g.add(out.regs[r], below[r/run]), before[r/run])
	}
	g.set(op.Results[0], out)
}

// chunksBefore is, per register group (a run), the count of the true
// elements in the chunks before its own, through the op's scratch: each
// warp writes its chunks' counts (every lane the same values), and after a
// barrier every thread reads all of them, adds them up in chunk order and
// picks, per group, the sum before its chunk by the warp's part of the
// chunk index.
func (g *gen) chunksBefore(ll *gpu.LinearLayout, nChunks, groups, run int, counts []value.Value) []value.Value {
	a := accum{g: g, d: ir.I32, kind: "sum"}
	off := g.smemOffset()
	scratch := g.scratchRange(gpu.PrefixCountScratchBytes(ll))
	span := ir.BallotWord * run
	chunkOf := func(q int) int { return ll.RegCoords(q * run)[0] / span }
	// the warp's part of the chunk index: the thread's base over the span
	// (its lane part is below it)
	var warpChunk value.Value
	g.atEntry(func() { warpChunk = g.lshr(g.threadBase(ll)[0], i32c(int64(log2(span)))) })
	g.beforeSharedWriteR(scratch)
	for q := 0; q < groups; q++ {
		a.store(counts[q], g.smemByteBase(off, g.add(warpChunk, i32c(int64(chunkOf(q)))), 4))
	}
	g.beforeSharedReadR(scratch)
	// the counts of all chunks but the last, in 16-byte loads (the
	// scratch is aligned to gpu.SmemAlign)
	vec := 4
	for nChunks%vec != 0 {
		vec /= 2
	}
	var c []value.Value
	for j := 0; j < nChunks-1; j += vec {
		c = append(c, g.plainLoad(g.smemByteBase(off, i32c(int64(j)), 4), asShared, wordB32, vec)...)
	}
	prefix := make([]value.Value, nChunks) // true elements in the chunks before chunk j
	var sum value.Value = i32c(0)
	for j := range prefix {
		prefix[j] = sum
		if j+1 < nChunks {
			sum = g.add(sum, c[j])
		}
	}
	// the values the warp part takes, over the warps of the layout
	var parts []int
	seen := map[int]bool{}
	for w := 0; w < 1<<len(ll.Warp); w++ {
		p := 0
		for i, b := range ll.Warp {
			if w>>i&1 != 0 {
				p ^= b[0] / span
			}
		}
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	out := make([]value.Value, groups)
	for q := range out {
		pre := prefix[chunkOf(q)^parts[0]]
		for _, p := range parts[1:] {
			pre = g.cur.NewSelect(g.cur.NewICmp(enum.IPredEQ, warpChunk, i32c(int64(p))), prefix[chunkOf(q)^p], pre)
		}
		out[q] = pre
	}
	return out
}

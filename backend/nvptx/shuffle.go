package nvptx

import (
	"fmt"
	"math/bits"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// Warp-local convert_layout through warp shuffles (no shared memory, no
// barrier).
//
// When the source and destination layouts have the same warp bases, every
// element a thread needs is held by a lane of its own warp, and since
// both layouts are linear, the lane and register of each destination
// element in the source are the same in every warp up to the warp's
// offset. planShuffle works in 32-bit words: a source word is E = 4/eb
// consecutive source registers (quad / pair / one element), a destination
// word E consecutive destination registers. In a round every lane sends
// one of its source words (chosen by its lane id: selp on predicates of
// the lane bits) and reads the word sent by one lane (shfl.sync.idx, the
// source lane a function of the lane id); each destination word is one
// prmt.b32 of the words of at most two rounds, with a selector that may
// depend on the lane id too. This is FlashAttention-3's permute of FP8 P
// (quad shuffles and byte permutes) found from the layouts: the f32 wgmma
// accumulator cast to 8 bits, read as wgmma's register a, is 8 rounds for
// 8 words a thread (two source lanes of its quad per word, two bytes from
// each).
//
// The plan is found greedily, the lane-dependent values are encoded as
// the emitted code computes them (shflTable: a constant, or the lane's
// bits outside the plan's lane mask plus a value chosen by its bits
// inside it, at most 3 of them), and then emulated lane by lane, byte by
// byte against the layouts (verifyShuffle) before it is used; any
// mismatch, more than two source words for one destination word, or more
// rounds than destination words, and convert_layout stays on shared
// memory.
type shflPlan struct {
	eb, E  int // element bytes, elements a word
	qmask  int // the lane bits data moves along
	rounds []shflRound
	words  []shflWord // per destination word
}

// shflRound: lane l reads the word lane recv(l) sends; lane s sends its
// source word send(s).
type shflRound struct {
	recv, send shflTable
	local      bool // every lane reads its own word: no shfl
}

// shflWord is prmt(round k0's word, round k1's word, sel(lane)).
type shflWord struct {
	k   [2]int
	sel shflTable
}

// shflTable is a value a function of the lane id: (lane &^ qmask if base)
// | the value of the first alt whose patterns hold lane & qmask, else def.
type shflTable struct {
	base bool
	def  int
	alts []shflAlt
}

type shflAlt struct {
	val  int
	pats []int
}

func (t shflTable) eval(lane, qmask int) int {
	v := t.def
	for _, a := range t.alts {
		for _, p := range a.pats {
			if lane&qmask == p {
				v = a.val
			}
		}
	}
	if t.base {
		v |= lane &^ qmask
	}
	return v
}

// encodeTable encodes tab (per lane) as a shflTable over the lane bits of
// qmask, base: tab[l] keeps l's bits outside qmask; false if tab depends on
// other bits.
func encodeTable(tab [32]int, qmask int, base bool) (shflTable, bool) {
	t := shflTable{base: base}
	byPat := map[int]int{}
	var order []int
	for l := 0; l < 32; l++ {
		v := tab[l]
		if base {
			if v&^qmask != l&^qmask {
				return t, false
			}
			v &= qmask
		}
		p := l & qmask
		if old, ok := byPat[p]; ok {
			if old != v {
				return t, false
			}
			continue
		}
		byPat[p] = v
		order = append(order, p)
	}
	t.def = byPat[order[0]]
	idx := map[int]int{}
	for _, p := range order {
		v := byPat[p]
		if v == t.def {
			continue
		}
		i, ok := idx[v]
		if !ok {
			i = len(t.alts)
			idx[v] = i
			t.alts = append(t.alts, shflAlt{val: v})
		}
		t.alts[i].pats = append(t.alts[i].pats, p)
	}
	return t, true
}

// shflNeed is a source word of a lane: (lane, word).
type shflNeed struct{ s, w int }

// planShuffle returns the shuffle plan converting src to dst (elements eb
// bytes), or nil where it does not apply or is not cheaper than shared
// memory.
func planShuffle(src, dst *gpu.LinearLayout, eb int) *shflPlan {
	if eb != 1 && eb != 2 && eb != 4 || len(src.Lane) != 5 || len(dst.Lane) != 5 ||
		!layBasesEq(src.Warp, dst.Warp) || len(src.Shape) != len(dst.Shape) {
		return nil
	}
	E := 4 / eb
	if src.NumRegs()%E != 0 || dst.NumRegs()%E != 0 {
		return nil
	}
	// where each coordinate (warp 0) is in src
	key := func(c []int) string { return fmt.Sprint(c) }
	at := map[string][2]int{}
	for l := 0; l < 32; l++ {
		for r := 0; r < src.NumRegs(); r++ {
			k := key(src.Coords(r, l, 0))
			if _, ok := at[k]; !ok {
				at[k] = [2]int{l, r}
			}
		}
	}
	nw := dst.NumRegs() / E
	// per destination word and lane: its source words and each element's
	// (need index, byte)
	type elemSrc struct{ n, b int }
	needs := make([][32][]shflNeed, nw)
	elems := make([][32][]elemSrc, nw)
	qmask := 0
	for v := 0; v < nw; v++ {
		for l := 0; l < 32; l++ {
			for e := 0; e < E; e++ {
				p, ok := at[key(dst.Coords(v*E+e, l, 0))]
				if !ok {
					return nil
				}
				qmask |= p[0] ^ l
				n := shflNeed{p[0], p[1] / E}
				i := -1
				for j, x := range needs[v][l] {
					if x == n {
						i = j
					}
				}
				if i < 0 {
					if len(needs[v][l]) == 2 {
						return nil
					}
					needs[v][l] = append(needs[v][l], n)
					i = len(needs[v][l]) - 1
				}
				elems[v][l] = append(elems[v][l], elemSrc{i, p[1] % E})
			}
		}
	}
	if qmask == 0 || bits.OnesCount(uint(qmask)) > 3 {
		return nil // within threads (regGather's), or too wide a table
	}
	type round struct{ recv, send [32]int }
	fresh := func() round {
		var r round
		for i := range r.recv {
			r.recv[i], r.send[i] = -1, -1
		}
		return r
	}
	put := func(r *round, l int, n shflNeed) bool {
		if (r.recv[l] != -1 && r.recv[l] != n.s) || (r.send[n.s] != -1 && r.send[n.s] != n.w) {
			return false
		}
		r.recv[l], r.send[n.s] = n.s, n.w
		return true
	}
	var rounds []round
	p := &shflPlan{eb: eb, E: E, qmask: qmask, words: make([]shflWord, nw)}
	slots := make([][32][2]int, nw) // per word, lane, need: the pair index (0: k0, 1: k1)
	for v := 0; v < nw; v++ {
		two := false
		for l := 0; l < 32; l++ {
			two = two || len(needs[v][l]) == 2
		}
		R := len(rounds)
		found := false
		for a := 0; a <= R+1 && !found; a++ {
			for b := a; b <= R+1 && !found; b++ {
				if two && a == b || !two && a != b {
					continue
				}
				get := func(k int) round {
					if k < R {
						return rounds[k]
					}
					return fresh()
				}
				ra, rb := get(a), get(b)
				ok := true
				var sl [32][2]int
				for l := 0; l < 32 && ok; l++ {
					ns := needs[v][l]
					if len(ns) == 1 {
						if put(&ra, l, ns[0]) {
							sl[l][0] = 0
						} else {
							ok = false
						}
						continue
					}
					ta, tb := ra, rb
					if put(&ta, l, ns[0]) && put(&tb, l, ns[1]) {
						ra, rb = ta, tb
						sl[l] = [2]int{0, 1}
						continue
					}
					ta, tb = ra, rb
					if put(&ta, l, ns[1]) && put(&tb, l, ns[0]) {
						ra, rb = ta, tb
						sl[l] = [2]int{1, 0}
						continue
					}
					ok = false
				}
				if !ok {
					continue
				}
				for len(rounds) <= b {
					rounds = append(rounds, fresh())
				}
				rounds[a], rounds[b] = ra, rb
				p.words[v].k = [2]int{a, b}
				slots[v] = sl
				found = true
			}
		}
		if !found {
			return nil
		}
	}
	if len(rounds) > nw {
		return nil // not cheaper than shared memory
	}
	for _, r := range rounds {
		local := true
		for l := 0; l < 32; l++ {
			if r.recv[l] == -1 {
				r.recv[l] = l
			}
			local = local && r.recv[l] == l
		}
		for l := 0; l < 32; l++ { // unread lanes send a word another lane of their pattern sends
			if r.send[l] == -1 {
				for m := 0; m < 32; m++ {
					if m&qmask == l&qmask && r.send[m] != -1 {
						r.send[l] = r.send[m]
						break
					}
				}
			}
			if r.send[l] == -1 {
				r.send[l] = 0
			}
		}
		recv, ok1 := encodeTable(r.recv, qmask, true)
		send, ok2 := encodeTable(r.send, qmask, false)
		if !ok1 || !ok2 {
			return nil
		}
		p.rounds = append(p.rounds, shflRound{recv: recv, send: send, local: local})
	}
	for v := range p.words {
		var sel [32]int
		for l := 0; l < 32; l++ {
			s := 0
			for e, x := range elems[v][l] {
				h := slots[v][l][x.n]
				if p.words[v].k[0] == p.words[v].k[1] {
					h = 0
				}
				for b := 0; b < eb; b++ {
					s |= (4*h + x.b*eb + b) << (4 * (e*eb + b))
				}
			}
			sel[l] = s
		}
		t, ok := encodeTable(sel, qmask, false)
		if !ok {
			return nil
		}
		p.words[v].sel = t
	}
	if !verifyShuffle(p, src, dst) {
		return nil
	}
	return p
}

func layBasesEq(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !layEq(a[i], b[i]) {
			return false
		}
	}
	return true
}

// emulateShuffle runs plan p on a warp whose lanes hold src words of
// element pieces (srcWord(lane, word) -> 4 bytes, each a piece id) the
// way the emitted code does (the tables evaluated by shflTable.eval),
// returning every lane's destination words.
func emulateShuffle[P comparable](p *shflPlan, srcWord func(lane, w int) [4]P, nw int) [32][][4]P {
	recvd := make([][32][4]P, len(p.rounds))
	for k, r := range p.rounds {
		for l := 0; l < 32; l++ {
			s := r.recv.eval(l, p.qmask)
			if r.local {
				s = l
			}
			recvd[k][l] = srcWord(s, r.send.eval(s, p.qmask))
		}
	}
	var out [32][][4]P
	for l := 0; l < 32; l++ {
		out[l] = make([][4]P, nw)
		for v, w := range p.words {
			sel := w.sel.eval(l, p.qmask)
			for by := 0; by < 4; by++ {
				n := sel >> (4 * by) & 7
				out[l][v][by] = recvd[w.k[n/4]][l][n%4]
			}
		}
	}
	return out
}

// verifyShuffle checks every byte of every destination register of every
// warp against the layouts: the byte it gets is that byte of the element
// the source layout holds at the coordinate dst gives the register.
func verifyShuffle(p *shflPlan, src, dst *gpu.LinearLayout) bool {
	type piece struct {
		c string
		b int
	}
	nw := dst.NumRegs() / p.E
	for w := 0; w < 1<<len(dst.Warp); w++ {
		srcWord := func(lane, sw int) [4]piece {
			var o [4]piece
			for by := 0; by < 4; by++ {
				r := sw*p.E + by/p.eb
				if r >= src.NumRegs() {
					return [4]piece{}
				}
				o[by] = piece{fmt.Sprint(src.Coords(r, lane, w)), by % p.eb}
			}
			return o
		}
		got := emulateShuffle(p, srcWord, nw)
		for l := 0; l < 32; l++ {
			for v := 0; v < nw; v++ {
				for by := 0; by < 4; by++ {
					want := piece{fmt.Sprint(dst.Coords(v*p.E+by/p.eb, l, w)), by % p.eb}
					if got[l][v][by] != want {
						return false
					}
				}
			}
		}
	}
	return true
}

// emitShuffle lowers src to dst by plan p (d: the elements' scratch dtype).
func (g *gen) emitShuffle(p *shflPlan, src *tval, dst *gpu.LinearLayout, toD, fromD func(value.Value) value.Value, d ir.DType) []value.Value {
	g.force(src)
	// lane-dependent values, once at the entry
	preds := map[string]value.Value{}
	pred := func(pats []int) value.Value {
		k := fmt.Sprint(pats)
		if v, ok := preds[k]; ok {
			return v
		}
		var v value.Value
		g.atEntry(func() {
			m := g.and(g.lane, i32c(int64(p.qmask)))
			for _, pt := range pats {
				c := g.cur.NewICmp(enum.IPredEQ, m, i32c(int64(pt)))
				if v == nil {
					v = c
				} else {
					v = g.cur.NewOr(v, c)
				}
			}
		})
		preds[k] = v
		return v
	}
	tables := map[string]value.Value{}
	table := func(t shflTable) value.Value {
		if !t.base && len(t.alts) == 0 {
			return i32c(int64(t.def))
		}
		k := fmt.Sprintf("%+v", t)
		if v, ok := tables[k]; ok {
			return v
		}
		ps := make([]value.Value, len(t.alts))
		for i, a := range t.alts {
			ps[i] = pred(a.pats)
		}
		var v value.Value
		g.atEntry(func() {
			v = i32c(int64(t.def))
			for i, a := range t.alts {
				v = g.cur.NewSelect(ps[i], i32c(int64(a.val)), v)
			}
			if t.base {
				v = g.or(v, g.and(g.lane, i32c(int64(31&^p.qmask))))
			}
		})
		tables[k] = v
		return v
	}
	// source words
	words := make([]value.Value, len(src.regs)/p.E)
	word := func(w int) value.Value {
		if words[w] == nil {
			r := w * p.E
			switch p.eb {
			case 1:
				words[w] = g.quad(src, r)
			case 2:
				words[w] = g.pair(src, r)
			default:
				x := toD(src.regs[r])
				if x.Type() != types.I32 {
					x = g.cur.NewBitCast(x, types.I32)
				}
				words[w] = x
			}
		}
		return words[w]
	}
	recvd := make([]value.Value, len(p.rounds))
	for k, r := range p.rounds {
		v := word(r.send.def)
		for _, a := range r.send.alts {
			v = g.cur.NewSelect(pred(a.pats), word(a.val), v)
		}
		if !r.local {
			v = g.shfl("idx", v, table(r.recv), 0x1f)
		}
		recvd[k] = v
	}
	out := make([]value.Value, 0, dst.NumRegs())
	for _, w := range p.words {
		a, b := recvd[w.k[0]], recvd[w.k[1]]
		var x value.Value
		if len(w.sel.alts) == 0 && w.sel.def == 0x3210 {
			x = a
		} else {
			asm := g.md.inlineAsm(types.I32, []types.Type{types.I32, types.I32, types.I32}, "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r", false)
			x = g.cur.NewCall(asm, a, b, table(w.sel))
		}
		if p.eb == 4 {
			mt := memType(d)
			if mt != types.I32 {
				x = g.cur.NewBitCast(x, mt)
			}
			out = append(out, fromD(x))
			continue
		}
		for _, e := range g.unpackWords([]value.Value{x}, d, wordB32, p.E) {
			out = append(out, fromD(e))
		}
	}
	return out
}

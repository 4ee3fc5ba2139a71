package nvptx

import (
	"fmt"
	"slices"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// Whole-view loads and stores of 8- and 16-bit tiles through ldmatrix and
// stmatrix (m8n8, .x1/.x2/.x4, .trans where the layout asks for it).
//
// An m8n8 b16 matrix is 8 rows of 16 bytes; lane 8i+k gives the address of
// row k of matrix i (any 16-byte-aligned address: the rows need not be
// adjacent), and every lane moves one 32-bit word per matrix:
//
//	plain:  lane l holds bytes 4*(l%4) .. +3 of row l/4
//	.trans: lane l holds the 16-bit element l/4 of rows 2*(l%4) and
//	        2*(l%4)+1 (low half, high half)
//
// A tile's linear layout fits an instruction when its lane bases and a
// word's register bases are exactly that mapping, with the 16 bytes of a
// row consecutive along the buffer's contiguous dimension. matrixPlan
// finds the words and proves the fit: it evaluates, for every lane and
// byte, which element the instruction moves (from the row addresses the
// lanes compute by the same formula as the emitted code) and compares it
// with the element the layout gives that register; any mismatch, and the
// access falls back to ld/st.shared. Addresses go through the buffer's
// shared layout (sharedIndex: swizzle, column blocks).
//
// # The transpose between buffers (FlashAttention-3's V^T)
//
// store(dst, load(src.T)) with src and dst contiguous along different
// dimensions a (src) and b (dst) gets, in the layout pass
// (passes.MatrixCopyLayout), a blocked layout of order [b, a] whose lanes
// are ldmatrix.trans's fragment on src and stmatrix's (plain) on dst, so
// that no data crosses lanes. For 16-bit types it is
//
//	register bit 0 -> b+1; lanes 0, 1 -> b+2, b+4; lanes 2, 3, 4 -> a+1, a+2, a+4
//
// and one word is the same two elements on both sides: ldmatrix.trans
// reads rows b, b+1 (a row of src is 8 elements along a) and stmatrix
// writes them as one 4-byte piece of a dst row (consecutive along b). For
// 8-bit types a 16-bit element of ldmatrix.trans is two bytes consecutive
// along a, so a word holds a 2x2 block [b0, b0+1] x [a0, a0+1], while
// stmatrix needs four bytes consecutive along b. The layout is
//
//	register bits 0, 1, 2 -> b+1, b+2, a+1; lanes 0, 1 -> b+4, b+8; lanes 2, 3, 4 -> a+2, a+4, a+8
//
// and two ldmatrix words X (rows b0, b0+1) and Y (rows b0+2, b0+3) of one
// thread make its two stmatrix words, one per a, with one prmt.b32 each
// (FA3's byte permute, selectors 0x6420 and 0x7531); [b, a] is an
// element's coordinates, b0 a multiple of 4 and a0 of 2:
//
//	 byte:    3        2        1        0
//	X = [b0+1,a0+1][b0+1,a0][b0,a0+1][b0,a0]      (from ldmatrix.trans)
//	Y = [b0+3,a0+1][b0+3,a0][b0+2,a0+1][b0+2,a0]
//
//	prmt(X, Y, 0x6420) = [b0+3,a0][b0+2,a0][b0+1,a0][b0,a0]   -> stmatrix, a = a0
//	prmt(X, Y, 0x7531) = [b0+3,a0+1][b0+2,a0+1][b0+1,a0+1][b0,a0+1] -> a = a0+1
//
// (prmt's selector nibble i picks byte i of the result from the eight
// bytes of {Y, X}, X's being 0-3). The registers the layout pass orders
// for the store (bits 0, 1 along b), so the load's words are the strided
// ones; packMatrixWord finds each store word's bytes in the ldmatrix words
// they came from and emits the prmt.
//
// The copy's load is lazy (copyLazyOK: the store follows in the same
// block with nothing in between that writes shared memory or owns shared
// bytes, and both buffers are allocs whose bytes are known and disjoint):
// each ldmatrix is emitted just before the first stmatrix that needs its
// words, where it records its read for the barriers (readingShared), so a
// thread holds one group's words at a time rather than the tile (a [128,
// 128] 8-bit V^T is 32 registers a thread, more than
// attn_prefill_fp8_k128's transposer role has). A partial tile,
// store(dst, where(m, load(src.T), 0)) (passes.MatrixCopyLoad), keeps the
// copy's layout and both instructions; its select is computed a register
// at a time when its stmatrix needs it (lazySelect), its words packed from
// the selected registers (no prmt).
type matrixPlan struct {
	trans bool
	eb    int     // element bytes (1 or 2)
	n     int     // matrices per instruction (1, 2, 4)
	words [][]int // the registers of each 32-bit word, lowest element first
	terms []matrixTerm
}

// matrixTerm adds coords to a lane's row address when bit bit of its lane
// id is set.
type matrixTerm struct {
	bit    int
	coords []int
}

// matrixOK reports whether the 16-byte rows of ldmatrix / stmatrix can be
// taken from a 2-D buffer of element size eb: rows of a multiple of 16
// bytes, and 16-byte pieces kept whole by the swizzle and the column
// blocks.
func matrixOK(md *ir.MemDesc, eb int) bool {
	sh := sharedLayoutOf(md)
	if len(md.Shape) != 2 || len(sh.Order) != 2 || (eb != 1 && eb != 2) {
		return false
	}
	seg := 16 / eb
	if sh.RowElems(md.Shape)%seg != 0 || md.Shape[sh.Order[0]]%seg != 0 {
		return false
	}
	return sh.MaxPhase == 1 || sh.Vec%seg == 0
}

// planMatrix returns how a tile of layout ll moves to or from a buffer
// whose contiguous dimension is c with one kind of instruction (plain or
// .trans), or nil when the layout is not that instruction's fragment.
func planMatrix(ll *gpu.LinearLayout, c, eb int, trans bool) *matrixPlan {
	if len(ll.Shape) != 2 || len(ll.Lane) != 5 {
		return nil
	}
	unit := func(v int) []int {
		u := make([]int, 2)
		u[c] = v
		return u
	}
	find := func(want []int) int {
		for i, b := range ll.Reg {
			if layEq(b, want) {
				return i
			}
		}
		return -1
	}
	// the register bits of a word's elements, lowest first
	var cands [][]int
	switch {
	case !trans && eb == 2:
		cands = [][]int{{find(unit(1))}}
	case !trans:
		cands = [][]int{{find(unit(1)), find(unit(2))}}
	default:
		// the second row of a .trans word: any register not along c
		for h, b := range ll.Reg {
			if b[c] != 0 {
				continue
			}
			if eb == 2 {
				cands = append(cands, []int{h})
			} else {
				cands = append(cands, []int{find(unit(1)), h})
			}
		}
	}
	for _, wb := range cands {
		if p := buildMatrixPlan(ll, c, eb, trans, wb); p != nil {
			return p
		}
	}
	return nil
}

func layEq(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func buildMatrixPlan(ll *gpu.LinearLayout, c, eb int, trans bool, wordBits []int) *matrixPlan {
	for _, b := range wordBits {
		if b < 0 {
			return nil
		}
	}
	var idx []int // register bits numbering the words
	for i := range ll.Reg {
		in := false
		for _, b := range wordBits {
			in = in || b == i
		}
		if !in {
			idx = append(idx, i)
		}
	}
	per := 4 / eb
	nw := 1 << len(idx)
	p := &matrixPlan{trans: trans, eb: eb, n: min(4, nw)}
	for w := 0; w < nw; w++ {
		base := 0
		for k, b := range idx {
			if w>>k&1 != 0 {
				base |= 1 << b
			}
		}
		regs := make([]int, per)
		for e := range regs {
			r := base
			for k, b := range wordBits {
				if e>>k&1 != 0 {
					r |= 1 << b
				}
			}
			regs[e] = r
		}
		p.words = append(p.words, regs)
	}
	regC := func(bit int) []int { return ll.RegCoords(1 << bit) }
	if trans {
		p.terms = []matrixTerm{{0, regC(wordBits[len(wordBits)-1])}, {1, ll.Lane[0]}, {2, ll.Lane[1]}}
	} else {
		p.terms = []matrixTerm{{0, ll.Lane[2]}, {1, ll.Lane[3]}, {2, ll.Lane[4]}}
	}
	if p.n >= 2 {
		p.terms = append(p.terms, matrixTerm{3, regC(idx[0])})
	}
	if p.n == 4 {
		p.terms = append(p.terms, matrixTerm{4, regC(idx[1])})
	}
	if !p.verify(ll, c) {
		return nil
	}
	return p
}

// rowStart is the in-warp coordinates of the row whose address lane gives
// in group g (the warp's base is added to both sides alike).
func (p *matrixPlan) rowStart(ll *gpu.LinearLayout, lane, g int) []int {
	rc := ll.RegCoords(p.words[g*p.n][0])
	out := append([]int(nil), rc...)
	for _, t := range p.terms {
		if lane>>t.bit&1 != 0 {
			for d := range out {
				out[d] ^= t.coords[d]
			}
		}
	}
	return out
}

// verify checks, for every lane, word and element, that the instruction
// moves the element the layout puts in that register.
func (p *matrixPlan) verify(ll *gpu.LinearLayout, c int) bool {
	seg, per := 16/p.eb, 4/p.eb
	for g := 0; g < len(p.words)/p.n; g++ {
		for l := 0; l < 32; l++ {
			for i := 0; i < p.n; i++ {
				for e := 0; e < per; e++ {
					var k, j int // row of matrix i, element in the row
					switch {
					case !p.trans:
						k, j = l/4, per*(l%4)+e
					case p.eb == 2:
						k, j = 2*(l%4)+e, l/4
					default:
						k, j = 2*(l%4)+e/2, 2*(l/4)+e%2
					}
					row := p.rowStart(ll, 8*i+k, g)
					if row[c]%seg != 0 {
						return false
					}
					row[c] += j
					if !layEq(ll.Coords(p.words[g*p.n+i][e], l, 0), row) {
						return false
					}
				}
			}
		}
	}
	return true
}

// matrixPlanFor picks the instruction (plain first, then .trans) that
// moves a tile of layout ll to or from the buffer md, or nil.
func matrixPlanFor(ll *gpu.LinearLayout, md *ir.MemDesc) *matrixPlan {
	eb := md.Elem.Bytes()
	if md.Elem.Bits() != 8*eb || !matrixOK(md, eb) || !layEq(ll.Shape, md.Shape) {
		return nil
	}
	c := sharedLayoutOf(md).Order[0]
	for _, trans := range []bool{false, true} {
		if p := planMatrix(ll, c, eb, trans); p != nil {
			return p
		}
	}
	return nil
}

// matrixAddrs returns, for each instruction group of p, the shared
// address (32-bit) each lane gives: computed at once, or, with lazy set,
// where the group's instruction is emitted (an address computed ahead
// would stay live until then).
func (g *gen) matrixAddrs(ref *memRef, ll *gpu.LinearLayout, p *matrixPlan, lazy bool) []func() value.Value {
	wb := g.warpBase(ll)
	lanePart := make([]value.Value, 2)
	g.atEntry(func() {
		for d := range lanePart {
			acc := wb[d]
			for _, t := range p.terms {
				if v := t.coords[d]; v != 0 {
					bit := g.and(g.lshr(g.lane, i32c(int64(t.bit))), i32c(1))
					acc = g.add(acc, g.shl(bit, i32c(int64(log2(v)))))
				}
			}
			lanePart[d] = acc
		}
	})
	out := make([]func() value.Value, len(p.words)/p.n)
	for gi := range out {
		rc := ll.RegCoords(p.words[gi*p.n][0])
		addr := func() value.Value {
			return g.sharedAddr32(ref, func() value.Value {
				return g.sharedIndex(ref.desc, []value.Value{g.add(lanePart[0], i32c(int64(rc[0]))), g.add(lanePart[1], i32c(int64(rc[1])))})
			}, p.eb)
		}
		if !lazy {
			a := addr()
			addr = func() value.Value { return a }
		}
		out[gi] = addr
	}
	return out
}

func (p *matrixPlan) instr(op string) string {
	tr := ""
	if p.trans {
		tr = ".trans"
	}
	return fmt.Sprintf("%s.sync.aligned.m8n8.x%d%s.shared.b16", op, p.n, tr)
}

// matrixLoad reads a whole view into a tile of layout ll with ldmatrix;
// nil when ll does not fit it. With lazy set (copyLazyOK), each ldmatrix
// is emitted where its registers are first needed: the store of the copy
// then interleaves ldmatrix and stmatrix, and the tile is never whole in
// registers (a 128 x 128 8-bit V^T is 32 registers a thread, more than
// attn_prefill_fp8_k128's transposer role has).
func (g *gen) matrixLoad(ref *memRef, ll *gpu.LinearLayout, lazy bool) *tval {
	p := matrixPlanFor(ll, ref.desc)
	if p == nil {
		return nil
	}
	span := refRange(ref)
	g.beforeSharedReadR(span)
	out := &tval{ll: ll, regs: make([]value.Value, ll.NumRegs()), cut: true}
	if p.eb == 2 {
		out.pairs = map[int]value.Value{}
	}
	mt := memType(ref.desc.Elem)
	outs := make([]string, p.n)
	fs := make([]types.Type, p.n)
	for i := range outs {
		outs[i] = fmt.Sprintf("$%d", i)
		fs[i] = types.I32
	}
	asm := g.md.inlineAsm(types.NewStruct(fs...), []types.Type{types.I32},
		fmt.Sprintf("%s {%s}, [$%d];", p.instr("ldmatrix"), strings.Join(outs, ", "), p.n),
		strings.Repeat("=r,", p.n)+"r,~{memory}", true)
	g.md.convergent[asm] = true
	addrs := g.matrixAddrs(ref, ll, p, lazy)
	for gi := range addrs {
		emit := func() {
			if lazy {
				g.readingShared(span)
			}
			call := g.cur.NewCall(asm, addrs[gi]())
			for i := 0; i < p.n; i++ {
				w := g.cur.NewExtractValue(call, uint64(i))
				regs := p.words[gi*p.n+i]
				for e, r := range regs {
					var x value.Value = w
					if e > 0 {
						x = g.cur.NewLShr(w, i32c(int64(8*p.eb*e)))
					}
					out.regs[r] = g.cur.NewTrunc(x, mt)
				}
				if p.eb == 2 && regs[1] == regs[0]+1 && regs[0]%2 == 0 {
					out.pairs[regs[0]] = w
				}
			}
		}
		if !lazy {
			emit()
			continue
		}
		if out.lazy == nil {
			out.lazy = map[int]func(){}
		}
		th := once(emit)
		for i := 0; i < p.n; i++ {
			for _, r := range p.words[gi*p.n+i] {
				out.lazy[r] = th
			}
		}
	}
	return out
}

// once returns f made idempotent: a lazy register group's emission.
func once(f func()) func() {
	done := false
	return func() {
		if !done {
			done = true
			f()
		}
	}
}

// allocBytes is the bytes of the alloc a shared view lies in (smemRoot),
// when it is an alloc that AllocateShared placed.
func allocBytes(v *ir.Value) (rng, bool) {
	root := smemRoot(v)
	md, isMD := root.Type.(*ir.MemDesc)
	if root.Def == nil || root.Def.Kind != ir.OpAlloc || !isMD {
		return rng{}, false
	}
	off, ok := root.Def.Attrs[gpu.AttrSmemOffset].(int64)
	if !ok {
		return rng{}, false
	}
	return viewBytes(int(off), md), true
}

// lazySelect lowers a select whose tile operand has lazy registers (the
// partial tile of a lazy copy, copyLazyOK): each result register is
// computed when first needed, after its operand's ldmatrix.
func (g *gen) lazySelect(op *ir.Op, ins []*tval, out *tval) {
	for i, t := range ins {
		if t.s == nil && len(t.regs) != len(out.regs) {
			g.failf("operand %d has %d registers, result %d (layouts differ)", i, len(t.regs), len(out.regs))
		}
	}
	out.lazy = map[int]func(){}
	for r := range out.regs {
		out.lazy[r] = once(func() {
			args := make([]value.Value, len(ins))
			for i, t := range ins {
				args[i] = regOf(t, r)
			}
			out.regs[r] = g.scalarOp(op, args)
		})
	}
}

// force emits every lazy register of t still pending, for lowerings that
// read t.regs directly.
func (g *gen) force(t *tval) {
	for r := range t.regs {
		t.ready(r)
	}
}

// copyLazyOK reports whether the local_load op, read by matrixLoad, may
// be emitted lazily at the store of a copy between buffers: its only
// user, directly or through one trans and one select against a constant
// (a partial tile; passes.MatrixCopyLoad), each with no other user, is a
// local_store into (or an alloc initialised from) another buffer later in
// the same block, and nothing in between writes shared memory (lazyOK's
// rule) or owns shared bytes (scratch). The store then issues each
// ldmatrix just before the stmatrix that first needs its words (the
// select's registers as lazy as the load's: lazySelect).
func (g *gen) copyLazyOK(op *ir.Op) bool {
	if !archAtLeast90(g.arch) {
		return false
	}
	chain, v, us := passes.MatrixCopyUses(op, func(x *ir.Value) []*ir.Op { return g.users[x] })
	if len(us) != 1 {
		return false
	}
	st := us[0]
	var dst *ir.Value
	switch {
	case st.Kind == ir.OpLocalStore && len(st.Operands) == 2 && st.Operands[1] == v:
		dst = st.Operands[0]
	case st.Kind == ir.OpAlloc && len(st.Operands) == 1 && st.Operands[0] == v:
		dst = st.Results[0]
	default:
		return false
	}
	// the source's bytes must stay untouched until the last ldmatrix: an
	// alloc's init may reuse a source dead after the load
	sr, ok1 := allocBytes(op.Operands[0])
	dr, ok2 := allocBytes(dst)
	if !ok1 || !ok2 || sr.overlaps(dr) {
		return false
	}
	return g.quietBetween(op, st, chain...) && !slices.ContainsFunc(opsBetween(op, st), func(o *ir.Op) bool {
		// an op with shared bytes of its own (scratch: a layout conversion,
		// a prefix count) may be placed over a source dead after the load
		_, owns := o.Attrs[gpu.AttrSmemOffset]
		return o.Kind == gpu.OpConvertLayout || (owns && !slices.Contains(chain, o))
	})
}

// matrixStore writes a tile into a whole view with stmatrix (sm_90); false
// when its layout does not fit it, or when the tile is not one just read
// from shared memory (a copy between buffers: the value of the current
// local_store or alloc is a local_load or its trans, or either selected
// against a constant; passes.MatrixCopyLoad). Other tiles whose
// layout happens to fit (a coalesced 8-bit tile, spt 4 and 4 lanes along
// the row) keep their st.shared.
func (g *gen) matrixStore(ref *memRef, t *tval) bool {
	if !archAtLeast90(g.arch) || t.ll == nil || !copiedFromShared(g.curOp) {
		return false
	}
	p := matrixPlanFor(t.ll, ref.desc)
	if p == nil {
		return false
	}
	g.beforeSharedWriteR(refRange(ref))
	ins := make([]string, p.n)
	ps := []types.Type{types.I32}
	cons := []string{"r"}
	for i := range ins {
		ins[i] = fmt.Sprintf("$%d", i+1)
		ps = append(ps, types.I32)
		cons = append(cons, "r")
	}
	asm := g.md.inlineAsm(types.Void, ps,
		fmt.Sprintf("%s [$0], {%s};", p.instr("stmatrix"), strings.Join(ins, ", ")),
		strings.Join(cons, ",")+",~{memory}", true)
	g.md.convergent[asm] = true
	for gi, addr := range g.matrixAddrs(ref, t.ll, p, t.lazy != nil) {
		args := []value.Value{addr()}
		for i := 0; i < p.n; i++ {
			args = append(args, g.packMatrixWord(t, p.words[gi*p.n+i], ref.desc.Elem))
		}
		g.cur.NewCall(asm, args...)
	}
	return true
}

// packMatrixWord packs the registers regs of t (lowest first) into one
// i32: the 16-bit pair t already holds, the word they were all cut from,
// one prmt.b32 of the two words they were cut from (the 8-bit transpose),
// or else shifts and ors.
func (g *gen) packMatrixWord(t *tval, regs []int, d ir.DType) value.Value {
	if len(regs) == 2 && regs[1] == regs[0]+1 && t.pairs != nil {
		if w, ok := t.pairs[regs[0]]; ok {
			return w
		}
	}
	if w := g.prmtWord(regsOf(t, regs), 32/len(regs)); w != nil {
		return w
	}
	return g.packWords(regsOf(t, regs), d, wordB32, 1)[0]
}

// prmtWord packs vals (bits wide, lowest first, 32 bits in all) into one
// i32 when they were all cut from at most two i32 words (cutFrom): the
// word itself, or one prmt.b32 of the two; nil otherwise.
func (g *gen) prmtWord(vals []value.Value, bits int) value.Value {
	from := make([]wordPos[value.Value], len(vals))
	for e, v := range vals {
		w, k, ok := cutFrom(v, bits)
		if !ok {
			return nil
		}
		from[e] = wordPos[value.Value]{w, k}
	}
	srcs, sel, ok := prmtSelector(from, bits)
	switch {
	case !ok:
		return nil
	case len(srcs) == 1 && sel == 0x3210:
		return srcs[0]
	case len(srcs) == 1:
		srcs = append(srcs, srcs[0])
	}
	asm := g.md.inlineAsm(types.I32, []types.Type{types.I32, types.I32}, fmt.Sprintf("prmt.b32 $0, $1, $2, 0x%04x;", sel), "=r,r,r", false)
	return g.cur.NewCall(asm, srcs[0], srcs[1])
}

// wordPos is where an element of a word comes from: piece k (of its
// width) of word w.
type wordPos[W comparable] struct {
	w W
	k int
}

// prmtSelector is the prmt.b32 that builds a word whose elements (bits
// wide, lowest first) are the pieces from of at most two source words:
// the sources (first = bytes 0-3 of prmt's {b, a}) and the selector, one
// nibble per result byte naming a source byte; false for more than two
// sources.
func prmtSelector[W comparable](from []wordPos[W], bits int) ([]W, int, bool) {
	var srcs []W
	sel := 0
	for e, f := range from {
		s := -1
		for i, x := range srcs {
			if x == f.w {
				s = i
			}
		}
		if s < 0 {
			if len(srcs) == 2 {
				return nil, 0, false
			}
			srcs = append(srcs, f.w)
			s = len(srcs) - 1
		}
		for b := 0; b < bits/8; b++ {
			sel |= (4*s + f.k*bits/8 + b) << (4 * (e*bits/8 + b))
		}
	}
	return srcs, sel, true
}

// copiedFromShared reports whether the tile op (a local_store or an alloc
// with init) writes was read from shared memory by a local_load, directly
// or through a trans and a select against a constant
// (passes.MatrixCopyLoad).
func copiedFromShared(op *ir.Op) bool {
	var v *ir.Value
	switch {
	case op == nil:
		return false
	case op.Kind == ir.OpLocalStore && len(op.Operands) == 2:
		v = op.Operands[1]
	case op.Kind == ir.OpAlloc && len(op.Operands) == 1:
		v = op.Operands[0]
	default:
		return false
	}
	return passes.MatrixCopyLoad(v) != nil
}

// regsOf returns registers regs of t, emitting those still lazy.
func regsOf(t *tval, regs []int) []value.Value {
	out := make([]value.Value, len(regs))
	for i, r := range regs {
		t.ready(r)
		out[i] = t.regs[r]
	}
	return out
}

// cutFrom recognises a register cut from an i32 word w: trunc(w) or
// trunc(lshr(w, k*bits)) to a bits-wide integer; it returns w and k.
func cutFrom(v value.Value, bits int) (value.Value, int, bool) {
	tr, ok := v.(*llvm.InstTrunc)
	if !ok || !intOfBits(tr.To, bits) {
		return nil, 0, false
	}
	x := tr.From
	k := 0
	if sh, ok := x.(*llvm.InstLShr); ok {
		c, ok := constInt(sh.Y)
		if !ok || c%int64(bits) != 0 {
			return nil, 0, false
		}
		x, k = sh.X, int(c)/bits
	}
	if x.Type() != types.I32 || k*bits >= 32 {
		return nil, 0, false
	}
	return x, k, true
}

func intOfBits(t types.Type, bits int) bool {
	it, ok := t.(*types.IntType)
	return ok && int(it.BitSize) == bits
}

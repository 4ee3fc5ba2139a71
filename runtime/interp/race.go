package interp

import "github.com/tlego/tle/ir"

// Shared-memory races between a CTA's roles (and a cluster's CTAs).
//
// The interpreter's memory is coherent and its goroutines interleave as
// the Go scheduler likes, so a kernel whose roles touch the same shared
// bytes with nothing ordering them usually computes the right answer
// here and a wrong one on the GPU, where a TMA refill overtakes a read or
// a reader sees a slot before its producer's stores. Every access to a
// shared-memory buffer (view loads and stores, pointer loads and stores
// through local_ptr and remote, TMA copies in and out, wgmma's shared
// operands) is therefore checked against the happens-before order the
// kernel's synchronisation builds, with vector clocks (one clock per
// goroutine of the cluster, FastTrack's epochs for the last write and
// read of each element):
//
//   - a role starts after its parent's accesses; the parent continues
//     after all of its roles' (warp_specialize forks and joins);
//   - an mbarrier orders every arrival on it (arrive, expect) before every
//     wait that sees a later phase complete (arrivals are read-modify-writes
//     of one object, so a wait acquires them all, not only its phase's);
//   - a TMA copy's writes belong to the issuing thread's copy engine, a
//     clock of its own that starts from the thread's and is published only
//     by the barrier the copy completes on: the issuer itself, and a thread
//     ordered after it some other way, must still wait for that barrier;
//   - a wgmma reads its shared operands until the wgmma_wait that retires
//     it, where the reads are recorded again;
//   - a pipe slot orders commit before wait and release before the next
//     acquire;
//   - distributed_barrier orders everything before it, on every CTA of the
//     cluster, before everything after it.
//   - across devices (devices.go), a device barrier orders its
//     participants the same way, and signal_wait acquires what the
//     signals it saw released; the parts of symmetric allocations are
//     shadowed for the launch, global memory like shared memory.
//
// Two accesses to one element by different goroutines, at least one a
// write, neither ordered before the other, are a race: the launch fails,
// naming the buffer, the element, both accesses' roles and positions.
// Atomics do not race with each other but do with plain accesses (an
// element keeps its last atomic's epoch); pipe fields have their own slot
// protocol (guard) and are not shadowed.

// vclock is a vector clock, indexed by goroutine id within a cluster.
type vclock []uint32

func (v vclock) get(g int) uint32 {
	if g < len(v) {
		return v[g]
	}
	return 0
}

// join returns v with every entry raised to o's (v may be reused).
func (v vclock) join(o vclock) vclock {
	for len(v) < len(o) {
		v = append(v, 0)
	}
	for g, c := range o {
		v[g] = max(v[g], c)
	}
	return v
}

func (v vclock) clone() vclock { return append(vclock(nil), v...) }

// epoch is one goroutine's clock at an access: gid << 32 | clock; 0 is none.
type epoch uint64

func mkEpoch(g int, c uint32) epoch { return epoch(uint64(g)<<32 | uint64(c)) }
func (e epoch) gid() int            { return int(e >> 32) }
func (e epoch) clk() uint32         { return uint32(e) }

// before reports whether the access of epoch e happens before now for a
// goroutine whose clock is vc (or is that goroutine's own).
func (e epoch) before(vc vclock, self int) bool {
	return e == 0 || e.gid() == self || e.clk() <= vc.get(e.gid())
}

// raceShadow is a shared-memory buffer's shadow: each element's last
// write and atomic epochs and, per goroutine that read the buffer, the
// clock of its last read of each element (a column; a write checks every
// column: a read older than the last write was ordered before it, so it is
// ordered before a write ordered after that one too), with the ops that
// made them. The ops are launch.raceOps indices (opRef), which keeps the
// shadows free of pointers for the garbage collector.
//
// Each of these is a chunked array (shadowCells): an access checks and
// records a range of elements (a tile's rows, a TMA box, a wgmma operand)
// a chunk at a time, and a chunk the access covers whole is one cell
// whatever its size, so a kernel that moves whole tiles pays per chunk,
// not per element. A race is reported element by element in the access's
// own order (raceElem), so the report names the same element as a check
// of one element at a time would.
type raceShadow struct {
	n    int
	w    shadowCells[wcell]
	a    *shadowCells[wcell] // last atomic (nil until the buffer's first atomic)
	cols []*readCol
}

// wcell is an element's last write (or atomic): its epoch and op.
type wcell struct {
	e  epoch
	op opRef
}

// rcell is an element's last read by one goroutine: its clock and op.
type rcell struct {
	clk uint32
	op  opRef
}

// readCol is one goroutine's reads of a buffer.
type readCol struct {
	gid int
	r   shadowCells[rcell]
}

type opRef int32

func newRaceShadow(n int) *raceShadow {
	return &raceShadow{n: n, w: newShadowCells[wcell](n)}
}

// col is goroutine g's read column (made on its first read; b.mu held).
func (sh *raceShadow) col(g int) *readCol {
	for _, c := range sh.cols {
		if c.gid == g {
			return c
		}
	}
	c := &readCol{gid: g, r: newShadowCells[rcell](sh.n)}
	sh.cols = append(sh.cols, c)
	return c
}

// clear reports whether an access of kind k by goroutine gid (clock vc)
// to the n elements lo, lo+step, ... races with nothing recorded: every
// last write (and atomic, unless k is one) is ordered before it and, for
// a write or atomic, every other goroutine's last read too.
func (sh *raceShadow) clear(lo, n, step int, k raceKind, gid int, vc vclock) bool {
	before := func(x wcell) bool { return x.e.before(vc, gid) }
	if !sh.w.all(lo, n, step, before) {
		return false
	}
	if sh.a != nil && k != raceAtomic && !sh.a.all(lo, n, step, before) {
		return false
	}
	if k == raceRead {
		return true
	}
	for _, c := range sh.cols {
		if c.gid == gid {
			continue
		}
		seen := vc.get(c.gid)
		if !c.r.all(lo, n, step, func(x rcell) bool { return x.clk <= seen }) {
			return false
		}
	}
	return true
}

// record records an access that clear passed (col: gid's read column, for
// a read), as raceElem would element by element.
func (sh *raceShadow) record(lo, n, step int, k raceKind, gid int, vc vclock, ref opRef, col *readCol) {
	switch k {
	case raceRead:
		col.r.fill(lo, n, step, rcell{vc[gid], ref})
	case raceWrite:
		sh.w.fill(lo, n, step, wcell{mkEpoch(gid, vc[gid]), ref})
		if sh.a != nil {
			sh.a.fill(lo, n, step, wcell{})
		}
	default:
		sh.atomics().fill(lo, n, step, wcell{mkEpoch(gid, vc[gid]), ref})
	}
}

// atomics is the buffer's atomic cells, made on its first atomic.
func (sh *raceShadow) atomics() *shadowCells[wcell] {
	if sh.a == nil {
		a := newShadowCells[wcell](sh.n)
		sh.a = &a
	}
	return sh.a
}

// shadowChunk is the elements of a shadow chunk (1 << shadowBits).
const (
	shadowBits  = 6
	shadowChunk = 1 << shadowBits
)

// shadowCells is one cell per element of a buffer, in chunks of
// shadowChunk elements: a chunk whose elements all hold one cell is that
// cell (uni) with no per-element array (dense nil); it gets one when an
// access covers part of it with another cell, and gives it back (to free,
// for the next such chunk) when an access covers it whole again.
type shadowCells[T comparable] struct {
	n     int
	uni   []T
	dense [][]T
	free  [][]T
}

func newShadowCells[T comparable](n int) shadowCells[T] {
	c := (n + shadowChunk - 1) >> shadowBits
	return shadowCells[T]{n: n, uni: make([]T, c), dense: make([][]T, c)}
}

// get is element e's cell.
func (s *shadowCells[T]) get(e int) T {
	c := e >> shadowBits
	if d := s.dense[c]; d != nil {
		return d[e&(shadowChunk-1)]
	}
	return s.uni[c]
}

// set makes element e's cell v.
func (s *shadowCells[T]) set(e int, v T) {
	c := e >> shadowBits
	d := s.dense[c]
	if d == nil {
		if s.uni[c] == v {
			return
		}
		d = s.split(c)
	}
	d[e&(shadowChunk-1)] = v
}

// split gives chunk c its per-element array, each element holding the
// chunk's cell.
func (s *shadowCells[T]) split(c int) []T {
	var d []T
	if k := len(s.free); k > 0 {
		d, s.free = s.free[k-1], s.free[:k-1]
	} else {
		d = make([]T, shadowChunk)
	}
	u := s.uni[c]
	for i := range d {
		d[i] = u
	}
	s.dense[c] = d
	return d
}

// all reports whether ok holds for the cell of every element lo, lo+step,
// ... (n of them), calling it once per chunk held whole and once per run of
// equal cells in the others.
func (s *shadowCells[T]) all(lo, n, step int, ok func(T) bool) bool {
	if n <= 0 {
		return true
	}
	if step != 1 && n > 1 {
		last := s.get(lo)
		if !ok(last) {
			return false
		}
		for i := 1; i < n; i++ {
			if x := s.get(lo + i*step); x != last {
				if !ok(x) {
					return false
				}
				last = x
			}
		}
		return true
	}
	hi := lo + n
	for c := lo >> shadowBits; c<<shadowBits < hi; c++ {
		d := s.dense[c]
		if d == nil {
			if !ok(s.uni[c]) {
				return false
			}
			continue
		}
		base := c << shadowBits
		run := d[max(lo, base)-base : min(hi, base+shadowChunk)-base]
		last := run[0]
		if !ok(last) {
			return false
		}
		for _, x := range run[1:] {
			if x != last {
				if !ok(x) {
					return false
				}
				last = x
			}
		}
	}
	return true
}

// fill makes the cell of every element lo, lo+step, ... (n of them) v.
func (s *shadowCells[T]) fill(lo, n, step int, v T) {
	if n <= 0 {
		return
	}
	if step != 1 && n > 1 {
		for i := range n {
			s.set(lo+i*step, v)
		}
		return
	}
	hi := lo + n
	for c := lo >> shadowBits; c<<shadowBits < hi; c++ {
		base := c << shadowBits
		from, to := max(lo, base), min(hi, base+shadowChunk)
		if from == base && (to == base+shadowChunk || to == s.n) { // the whole chunk
			s.uni[c] = v
			if d := s.dense[c]; d != nil {
				s.free = append(s.free, d)
				s.dense[c] = nil
			}
			continue
		}
		d := s.dense[c]
		if d == nil {
			if s.uni[c] == v {
				continue
			}
			d = s.split(c)
		}
		run := d[from-base : to-base]
		for i := range run {
			run[i] = v
		}
	}
}

// opRef is op's index in l.raceOps (added on first use).
func (l *launch) opRef(op *ir.Op) opRef {
	l.raceMu.Lock()
	defer l.raceMu.Unlock()
	if i, ok := l.raceOpIdx[op]; ok {
		return opRef(i)
	}
	if l.raceOpIdx == nil {
		l.raceOpIdx = map[*ir.Op]int32{}
	}
	i := int32(len(l.raceOps))
	l.raceOps = append(l.raceOps, op)
	l.raceOpIdx[op] = i
	return opRef(i)
}

func (l *launch) opOf(r opRef) *ir.Op {
	l.raceMu.Lock()
	defer l.raceMu.Unlock()
	return l.raceOps[r]
}

// raceKind is what an access does to an element.
type raceKind int

const (
	raceRead raceKind = iota
	raceWrite
	raceAtomic
)

// raceClock gives t its goroutine id and first clock: a CTA's thread
// (parent nil), or a role started by parent, which inherits parent's clock
// and reuses the id of a role parent already joined, whose last clock
// parent's covers (so warp_specialize in a loop does not grow the clocks).
func (t *thread) raceClock(parent *thread) {
	t.agid, t.parent = -1, parent
	if parent != nil {
		t.vc = parent.vc.clone()
	}
	t.gid = t.newGID(parent, t.who())
	t.vc[t.gid]++
}

// newGID is a goroutine id for what (parent's free ones first), with t.vc
// long enough to index it.
func (t *thread) newGID(parent *thread, what string) int {
	cl := t.c.cl
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var g int
	if parent != nil && len(parent.freeGIDs) > 0 {
		g = parent.freeGIDs[len(parent.freeGIDs)-1]
		parent.freeGIDs = parent.freeGIDs[:len(parent.freeGIDs)-1]
		cl.who[g] = what
	} else {
		g = len(cl.who)
		cl.who = append(cl.who, what)
	}
	for len(t.vc) <= g {
		t.vc = append(t.vc, 0)
	}
	return g
}

// joined is parent's side of the end of a role rt: parent's clock takes
// rt's (and its copy engine's), and their ids become parent's to reuse.
func (parent *thread) joined(rt *thread) {
	parent.acquire(rt.vc)
	parent.freeGIDs = append(parent.freeGIDs, rt.gid)
	if rt.agid >= 0 {
		parent.acquire(rt.avc)
		parent.freeGIDs = append(parent.freeGIDs, rt.agid)
	}
}

// tmaClock is the epoch of t's next TMA copy: its copy engine's clock
// takes t's and advances, and t starts a new epoch, so that t's later
// accesses are not published with the copy's bytes.
func (t *thread) tmaClock() {
	if t.agid < 0 {
		t.agid = t.newGID(t.parent, t.who()+"'s TMA copies")
	}
	t.avc = t.avc.join(t.vc)
	for len(t.avc) <= t.agid {
		t.avc = append(t.avc, 0)
	}
	t.avc[t.agid] = max(t.avc[t.agid], t.vc.get(t.agid)) + 1
	t.vc[t.gid]++
}

// release is a synchronising write of t (an arrival, a commit): into
// what the object carries goes t's clock, and t starts a new epoch.
func (t *thread) release(into *vclock) {
	*into = into.join(t.vc)
	t.vc[t.gid]++
}

// acquire is a synchronising read: t's clock takes what the object carried.
func (t *thread) acquire(from vclock) { t.vc = t.vc.join(from) }

// raceAccess checks and records t's access to elements offs of buffer b by
// op (offs nil: the view v's elements), before the access touches them:
// of two racing accesses the second to check fails, so the interpreter's
// own memory is never accessed by two goroutines at once for it.
func (t *thread) raceAccess(op *ir.Op, b *Buffer, v *view, offs []int, write bool) error {
	k := raceRead
	if write {
		k = raceWrite
	}
	return t.raceAccessAs(op, b, v, offs, k, t.gid, t.vc)
}

// raceAccessAs is raceAccess as goroutine gid with clock vc (a thread's
// copy engine). A view is checked and recorded as ranges (viewSpans); only
// when a range races are its elements checked one at a time, in the view's
// order, for the report.
func (t *thread) raceAccessAs(op *ir.Op, b *Buffer, v *view, offs []int, k raceKind, gid int, vc vclock) error {
	sh := b.shadow
	if sh == nil {
		return nil
	}
	ref := t.c.l.opRef(op)
	b.mu.Lock()
	defer b.mu.Unlock()
	var col *readCol
	if k == raceRead {
		col = sh.col(gid)
	}
	if v != nil && viewSpans(v.shape, v.strides, v.off, func(lo, n, step int) bool {
		return sh.clear(lo, n, step, k, gid, vc)
	}) {
		viewSpans(v.shape, v.strides, v.off, func(lo, n, step int) bool {
			sh.record(lo, n, step, k, gid, vc, ref, col)
			return true
		})
		return nil
	}
	var err error
	visit := func(e int) bool {
		err = t.raceElem(op, ref, b, e, k, gid, vc, col)
		return err == nil
	}
	if v != nil {
		forEachOffset(v.shape, v.strides, v.off, visit)
		return err
	}
	for _, e := range offs {
		if !visit(e) {
			break
		}
	}
	return err
}

// raceOne is raceAccess of element e of b (a pointer's lane), before the
// lane touches it.
func (t *thread) raceOne(op *ir.Op, b *Buffer, e int, write bool) error {
	ref := t.c.l.opRef(op)
	b.mu.Lock()
	defer b.mu.Unlock()
	k, col := raceWrite, (*readCol)(nil)
	if !write {
		k, col = raceRead, b.shadow.col(t.gid)
	}
	return t.raceElem(op, ref, b, e, k, t.gid, t.vc, col)
}

// raceElem checks and records one access of kind k by op (ref) to element
// e of b as goroutine gid with clock vc (col: gid's read column, for a
// read; b.mu held).
func (t *thread) raceElem(op *ir.Op, ref opRef, b *Buffer, e int, k raceKind, gid int, vc vclock, col *readCol) error {
	sh := b.shadow
	if w := sh.w.get(e); !w.e.before(vc, gid) {
		return t.raceErr(op, b, e, k, raceWrite, w.e, w.op)
	}
	if sh.a != nil && k != raceAtomic {
		if a := sh.a.get(e); !a.e.before(vc, gid) {
			return t.raceErr(op, b, e, k, raceAtomic, a.e, a.op)
		}
	}
	if k == raceRead {
		col.r.set(e, rcell{vc[gid], ref})
		return nil
	}
	for _, c := range sh.cols {
		if c.gid == gid {
			continue
		}
		if r := c.r.get(e); r.clk > vc.get(c.gid) {
			return t.raceErr(op, b, e, k, raceRead, mkEpoch(c.gid, r.clk), r.op)
		}
	}
	me := wcell{mkEpoch(gid, vc[gid]), ref}
	if k == raceWrite {
		sh.w.set(e, me)
		if sh.a != nil {
			sh.a.set(e, wcell{})
		}
		return nil
	}
	sh.atomics().set(e, me)
	return nil
}

var raceVerbs = [...]string{raceRead: "read", raceWrite: "write", raceAtomic: "atomic"}

func (t *thread) raceErr(op *ir.Op, b *Buffer, e int, k, otherK raceKind, other epoch, otherRef opRef) error {
	t.c.cl.mu.Lock()
	who := t.c.cl.who[other.gid()]
	t.c.cl.mu.Unlock()
	where := t.c.l.where(t.c.l.opOf(otherRef))
	if b.sym != nil {
		return t.errAt(op, "race on symmetric buffer %s (device %d's part) element %d: this %s is not ordered after the %s by %s at %s (no distributed_barrier or signal_wait between them; either may see the other's bytes)",
			t.c.l.symNames[b], b.symRank, e, raceVerbs[k], raceVerbs[otherK], who, where)
	}
	return t.errAt(op, "shared-memory race on %s element %d: this %s is not ordered after the %s by %s at %s (no barrier wait, pipe or role join between them; on the GPU either may see the other's bytes)",
		b.name, e, raceVerbs[k], raceVerbs[otherK], who, where)
}

// forEachOffset calls f with the buffer offset of every element of the
// view (shape, strides, off) in row-major order until f returns false.
func forEachOffset(shape, strides []int, off int, f func(int) bool) {
	n := ir.NumElements(shape)
	if n == 0 {
		return
	}
	idx := make([]int, len(shape))
	for k := 0; k < n; k++ {
		if !f(off) {
			return
		}
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			off += strides[d]
			if idx[d] < shape[d] {
				break
			}
			off -= strides[d] * shape[d]
			idx[d] = 0
		}
	}
}

// viewSpans calls f(lo, n, step) for runs of elements lo, lo+step, ...
// (n of them) that together are the elements of the view (shape, strides,
// off), in no particular order, until f returns false; it reports whether
// f never did. Dimensions of one element or stride 0 add no elements, a
// negative stride is walked from its other end, and dimensions are sorted
// by stride and merged where one continues another, so a tile whose rows
// follow one another is one run however it is viewed.
func viewSpans(shape, strides []int, off int, f func(lo, n, step int) bool) bool {
	var shBuf, stBuf [8]int
	sh, st := shBuf[:0], stBuf[:0]
	for d, n := range shape {
		if n == 0 {
			return true
		}
		s := strides[d]
		if n == 1 || s == 0 {
			continue
		}
		if s < 0 {
			off += (n - 1) * s
			s = -s
		}
		// insert by stride, largest first
		i := len(st)
		sh, st = append(sh, 0), append(st, 0)
		for i > 0 && st[i-1] < s {
			sh[i], st[i] = sh[i-1], st[i-1]
			i--
		}
		sh[i], st[i] = n, s
	}
	// merge each dimension into the one inside it when it continues it
	m := 0
	for d := 1; d < len(sh); d++ {
		if st[m] == st[d]*sh[d] {
			sh[m], st[m] = sh[m]*sh[d], st[d]
			continue
		}
		m++
		sh[m], st[m] = sh[d], st[d]
	}
	if len(sh) > 0 {
		sh, st = sh[:m+1], st[:m+1]
	}
	if len(sh) == 0 {
		return f(off, 1, 1)
	}
	inner := len(sh) - 1
	n, step := sh[inner], st[inner]
	var idxBuf [8]int
	idx := idxBuf[:0]
	if inner <= len(idxBuf) {
		idx = idxBuf[:inner]
	} else {
		idx = make([]int, inner)
	}
	for {
		if !f(off, n, step) {
			return false
		}
		d := inner - 1
		for ; d >= 0; d-- {
			idx[d]++
			off += st[d]
			if idx[d] < sh[d] {
				break
			}
			off -= st[d] * sh[d]
			idx[d] = 0
		}
		if d < 0 {
			return true
		}
	}
}

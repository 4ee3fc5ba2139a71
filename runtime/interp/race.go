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
type raceShadow struct {
	w    []epoch
	wop  []opRef
	a    []epoch // last atomic (nil until the buffer's first atomic)
	aop  []opRef
	cols []*readCol
}

// readCol is one goroutine's reads of a buffer.
type readCol struct {
	gid int
	clk []uint32
	op  []opRef
}

type opRef int32

func newRaceShadow(n int) *raceShadow {
	return &raceShadow{w: make([]epoch, n), wop: make([]opRef, n)}
}

// col is goroutine g's read column (made on its first read; b.mu held).
func (sh *raceShadow) col(g int) *readCol {
	for _, c := range sh.cols {
		if c.gid == g {
			return c
		}
	}
	c := &readCol{gid: g, clk: make([]uint32, len(sh.w)), op: make([]opRef, len(sh.w))}
	sh.cols = append(sh.cols, c)
	return c
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
// copy engine).
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
	if w := sh.w[e]; !w.before(vc, gid) {
		return t.raceErr(op, b, e, k, raceWrite, w, sh.wop[e])
	}
	if sh.a != nil && k != raceAtomic {
		if a := sh.a[e]; !a.before(vc, gid) {
			return t.raceErr(op, b, e, k, raceAtomic, a, sh.aop[e])
		}
	}
	if k == raceRead {
		col.clk[e], col.op[e] = vc[gid], ref
		return nil
	}
	for _, c := range sh.cols {
		if c.gid != gid && c.clk[e] > vc.get(c.gid) {
			return t.raceErr(op, b, e, k, raceRead, mkEpoch(c.gid, c.clk[e]), c.op[e])
		}
	}
	me := mkEpoch(gid, vc[gid])
	if k == raceWrite {
		sh.w[e], sh.wop[e] = me, ref
		if sh.a != nil {
			sh.a[e] = 0
		}
		return nil
	}
	if sh.a == nil {
		sh.a, sh.aop = make([]epoch, len(sh.w)), make([]opRef, len(sh.w))
	}
	sh.a[e], sh.aop[e] = me, ref
	return nil
}

var raceVerbs = [...]string{raceRead: "read", raceWrite: "write", raceAtomic: "atomic"}

func (t *thread) raceErr(op *ir.Op, b *Buffer, e int, k, otherK raceKind, other epoch, otherRef opRef) error {
	t.c.cl.mu.Lock()
	who := t.c.cl.who[other.gid()]
	t.c.cl.mu.Unlock()
	where := t.c.l.where(t.c.l.opOf(otherRef))
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

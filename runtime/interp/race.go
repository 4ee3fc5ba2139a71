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
//   - an mbarrier phase orders every arrival in it (arrive, expect, and a
//     copy's bytes, attributed to the issuing thread at the copy) before
//     every wait that sees the phase complete;
//   - a pipe slot orders commit before wait and release before the next
//     acquire;
//   - distributed_barrier orders everything before it, on every CTA of the
//     cluster, before everything after it.
//
// Two accesses to one element by different goroutines, at least one a
// write, neither ordered before the other, are a race: the launch fails,
// naming the buffer, the element, both accesses' roles and positions.
// Atomics are not checked (they may race by design); pipe fields have
// their own slot protocol (guard) and are not shadowed.

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
// write and read epochs (reads by several goroutines not ordered with each
// other keep one epoch per goroutine in shared) and the ops that made them.
type raceShadow struct {
	w, r     []epoch
	wop, rop []*ir.Op
	shared   map[int]map[int]uint32
}

func newRaceShadow(n int) *raceShadow {
	return &raceShadow{w: make([]epoch, n), r: make([]epoch, n), wop: make([]*ir.Op, n), rop: make([]*ir.Op, n)}
}

// raceClock gives t its goroutine id and first clock (a CTA's thread, or
// a role started by parent, which inherits parent's clock).
func (t *thread) raceClock(parent *thread) {
	cl := t.c.cl
	cl.mu.Lock()
	t.gid = len(cl.who)
	cl.who = append(cl.who, t.who())
	cl.mu.Unlock()
	if parent != nil {
		t.vc = parent.vc.clone()
	}
	for len(t.vc) <= t.gid {
		t.vc = append(t.vc, 0)
	}
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
	sh := b.shadow
	if sh == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var err error
	visit := func(e int) bool {
		if err = t.raceElem(op, b, sh, e, write); err != nil {
			return false
		}
		return true
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
	b.mu.Lock()
	defer b.mu.Unlock()
	return t.raceElem(op, b, b.shadow, e, write)
}

func (t *thread) raceElem(op *ir.Op, b *Buffer, sh *raceShadow, e int, write bool) error {
	me := mkEpoch(t.gid, t.vc[t.gid])
	if w := sh.w[e]; !w.before(t.vc, t.gid) {
		return t.raceErr(op, b, e, write, true, w, sh.wop[e])
	}
	if write {
		if rs := sh.shared[e]; rs != nil {
			for g, c := range rs {
				if r := mkEpoch(g, c); !r.before(t.vc, t.gid) {
					return t.raceErr(op, b, e, true, false, r, sh.rop[e])
				}
			}
			delete(sh.shared, e)
		} else if r := sh.r[e]; !r.before(t.vc, t.gid) {
			return t.raceErr(op, b, e, true, false, r, sh.rop[e])
		}
		sh.w[e], sh.wop[e], sh.r[e] = me, op, 0
		return nil
	}
	switch rs := sh.shared[e]; {
	case rs != nil:
		rs[t.gid] = t.vc[t.gid]
	case sh.r[e].before(t.vc, t.gid):
		sh.r[e] = me
	default:
		// a second reader not ordered after the first: keep both
		if sh.shared == nil {
			sh.shared = map[int]map[int]uint32{}
		}
		sh.shared[e] = map[int]uint32{sh.r[e].gid(): sh.r[e].clk(), t.gid: t.vc[t.gid]}
	}
	sh.rop[e] = op
	return nil
}

func (t *thread) raceErr(op *ir.Op, b *Buffer, e int, write, otherWrite bool, other epoch, otherOp *ir.Op) error {
	verb, otherVerb := "read", "read"
	if write {
		verb = "write"
	}
	if otherWrite {
		otherVerb = "write"
	}
	t.c.cl.mu.Lock()
	who := t.c.cl.who[other.gid()]
	t.c.cl.mu.Unlock()
	where := "?"
	if otherOp != nil {
		where = t.c.l.where(otherOp)
	}
	return t.errAt(op, "shared-memory race on %s element %d: this %s is not ordered after the %s by %s at %s (no barrier wait, pipe or role join between them; on the GPU either may see the other's bytes)",
		b.name, e, verb, otherVerb, who, where)
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

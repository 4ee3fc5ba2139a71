package interp

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tlego/tle/ir"
)

// cluster is the synchronisation domain of one CTA cluster: every goroutine
// of its CTAs (main threads and warp roles) and every pipe, mbarrier and
// distributed barrier they use. One mutex guards all of that state, so a
// deadlock check sees a consistent picture: the cluster is deadlocked when
// every live goroutine is registered as a waiter and no waiter's condition
// holds.
type cluster struct {
	l        *launch
	mu       sync.Mutex
	cond     *sync.Cond
	live     int
	waiters  []*waiter
	finished []*thread
	ctas     []*cta
	db       dbState // the cluster's distributed barrier
	// meshes across devices (devices.go): barriers by group, flags' clocks
	dbs   map[[3]int]*dbState
	flags map[flagKey]vclock
	// the race check (race.go): each goroutine's description by id
	who []string
}

func newCluster(l *launch, size int) *cluster {
	c := &cluster{l: l, live: size, ctas: make([]*cta, size)}
	c.cond = sync.NewCond(&c.mu)
	return c
}

type waiter struct {
	t     *thread
	op    *ir.Op
	ready func() bool
	what  func() string
}

func (w *waiter) describe() string {
	return fmt.Sprintf("%s waits at %s in %s", w.t.who(), w.t.c.l.whereInlined(w.op), w.what())
}

func (c *cluster) wake() {
	c.mu.Lock()
	c.cond.Broadcast()
	c.mu.Unlock()
}

// block waits, with c.mu held, until ready() holds, the launch stops, or the
// cluster deadlocks.
func (c *cluster) block(t *thread, op *ir.Op, ready func() bool, what func() string) error {
	if ready() {
		return nil
	}
	w := &waiter{t: t, op: op, ready: ready, what: what}
	c.waiters = append(c.waiters, w)
	defer func() {
		for k, x := range c.waiters {
			if x == w {
				c.waiters = append(c.waiters[:k], c.waiters[k+1:]...)
				break
			}
		}
	}()
	for {
		if c.l.stopped.Load() {
			return errStopped
		}
		if err := c.deadlockLocked(); err != nil {
			return err
		}
		c.cond.Wait()
		if ready() {
			return nil
		}
	}
}

// deadlockLocked reports (and fails the launch with) a deadlock when every
// live goroutine of the cluster waits on a condition that does not hold.
func (c *cluster) deadlockLocked() error {
	if c.l.stopped.Load() || c.live == 0 || len(c.waiters) < c.live {
		return nil
	}
	for _, w := range c.waiters {
		if w.ready() {
			return nil
		}
	}
	ws := append([]*waiter(nil), c.waiters...)
	sort.SliceStable(ws, func(a, b int) bool {
		if ws[a].t.c.dev != ws[b].t.c.dev {
			return ws[a].t.c.dev < ws[b].t.c.dev
		}
		if ws[a].t.c.linear != ws[b].t.c.linear {
			return ws[a].t.c.linear < ws[b].t.c.linear
		}
		if ws[a].t.c.rank != ws[b].t.c.rank {
			return ws[a].t.c.rank < ws[b].t.c.rank
		}
		return ws[a].t.roleIdx < ws[b].t.roleIdx
	})
	parts := make([]string, len(ws))
	for k, w := range ws {
		parts[k] = w.describe()
	}
	domain := "the cluster"
	if c.l.oneDomain() {
		domain = "every device's programs"
	}
	msg := "deadlock: every goroutine of " + domain + " is blocked: " + strings.Join(parts, "; ")
	if len(c.finished) > 0 {
		names := make([]string, len(c.finished))
		for k, t := range c.finished {
			names[k] = t.who()
		}
		msg += "; finished: " + strings.Join(names, ", ")
	}
	err := c.l.errAt(ws[0].op, "%s", msg)
	c.l.fail(err, ws[0].t.c.linear)
	c.cond.Broadcast()
	return err
}

// exit accounts for a finished goroutine. The last role of a
// warp_specialize hands its liveness back to the CTA's main thread.
func (c *cluster) exit(t *thread) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.ws != nil {
		t.ws.remaining--
		if t.ws.remaining == 0 {
			return
		}
	}
	c.live--
	c.finished = append(c.finished, t)
	c.deadlockLocked()
	c.cond.Broadcast()
}

// ---- pipes

type slotState int

const (
	slotEmpty slotState = iota
	slotWriting
	slotFull
	slotReading
)

func (s slotState) String() string {
	return [...]string{"empty (released)", "being written (acquired)", "full (committed)", "being read (waited)"}[s]
}

type pslot struct {
	state                         slotState
	idx                           int64 // index of the current round
	acquired, committed, released int64 // rounds done
	closed                        bool
	full, empty                   vclock // the clocks commit and release carry (race.go)
}

type pipeField struct {
	name  string
	buf   *Buffer
	shape []int
	n     int
}

type pipeState struct {
	name   string
	cap    int
	fields []pipeField
	slots  []pslot
	cl     *cluster
}

// slotHandle is the value pipe_acquire / pipe_wait return.
type slotHandle struct {
	p      *pipeState
	slot   int
	idx    int64
	writer bool
	closed bool
	guard  *guard
}

// guard ties a view of a pipe slot field to the protocol: its elements are
// readable between wait and release (reader) or acquire and commit (writer)
// of index idx only.
type guard struct {
	p      *pipeState
	slot   int
	idx    int64
	writer bool
}

// check returns "" when the access is allowed, else why not.
func (g *guard) check(write bool) string {
	cl := g.p.cl
	cl.mu.Lock()
	defer cl.mu.Unlock()
	s := &g.p.slots[g.slot]
	what := "read of"
	if write {
		what = "write to"
	}
	cur := fmt.Sprintf("the slot is %v", s.state)
	if s.idx != g.idx && s.state != slotEmpty {
		cur += fmt.Sprintf(" for index %d", s.idx)
	}
	if g.writer {
		if s.state == slotWriting && s.idx == g.idx {
			return ""
		}
		return fmt.Sprintf("%s pipe %s slot %d (index %d) outside acquire..commit: %s", what, g.p.name, g.slot, g.idx, cur)
	}
	if write {
		return fmt.Sprintf("write to pipe %s slot %d (index %d) through a slot from wait: a slot is writable only between acquire and commit", g.p.name, g.slot, g.idx)
	}
	if s.state == slotReading && s.idx == g.idx {
		return ""
	}
	return fmt.Sprintf("read of pipe %s slot %d (index %d) outside wait..release: %s", g.p.name, g.slot, g.idx, cur)
}

// pipeOp runs pipe_acquire, pipe_commit, pipe_close, pipe_wait and
// pipe_release: operand 0 is the pipe, operand 1 the index.
func (t *thread) pipeOp(in *instr) error {
	op, k := in.op, in.op.Kind
	p, ok := t.arg(in, 0).ref.(*pipeState)
	if !ok {
		return t.errAt(op, "%s: operand is not a pipe", k)
	}
	i := t.argInt(in, 1)
	switch k {
	case ir.OpPipeAcquire:
		h, err := t.pipeAcquire(op, p, i)
		if err != nil {
			return err
		}
		t.setRef(in, 0, h)
	case ir.OpPipeWait:
		h, err := t.pipeWait(op, p, i)
		if err != nil {
			return err
		}
		t.setRef(in, 0, h)
	case ir.OpPipeCommit:
		return t.pipeCommit(op, p, i, false)
	case ir.OpPipeClose:
		return t.pipeCommit(op, p, i, true)
	case ir.OpPipeRelease:
		return t.pipeRelease(op, p, i)
	}
	return nil
}

func (t *thread) pipeAcquire(op *ir.Op, p *pipeState, i int64) (*slotHandle, error) {
	if i < 0 {
		return nil, t.errAt(op, "pipe_acquire(%s, %d): negative index", p.name, i)
	}
	cl := p.cl
	cl.mu.Lock()
	defer cl.mu.Unlock()
	si, r := int(i%int64(p.cap)), i/int64(p.cap)
	s := &p.slots[si]
	if r < s.acquired {
		return nil, t.errAt(op, "pipe_acquire(%s, %d): index %d was already acquired (slot %d is %v for index %d)", p.name, i, i, si, s.state, s.idx)
	}
	err := cl.block(t, op, func() bool { return s.acquired == r && s.released == r }, func() string {
		return fmt.Sprintf("pipe_acquire(%s, %d): slot %d, phase %d, not yet released for index %d (the slot is %v for index %d)",
			p.name, i, si, r%2, i-int64(p.cap), s.state, s.idx)
	})
	if err != nil {
		return nil, err
	}
	s.state, s.idx = slotWriting, i
	s.acquired++
	t.acquire(s.empty)
	return &slotHandle{p: p, slot: si, idx: i, writer: true, guard: &guard{p: p, slot: si, idx: i, writer: true}}, nil
}

func (t *thread) pipeCommit(op *ir.Op, p *pipeState, i int64, closed bool) error {
	name := "pipe_commit"
	if closed {
		name = "pipe_close"
	}
	if i < 0 {
		return t.errAt(op, "%s(%s, %d): negative index", name, p.name, i)
	}
	si := int(i % int64(p.cap))
	s := &p.slots[si]
	if closed {
		t.c.cl.mu.Lock()
		implicit := !(s.state == slotWriting && s.idx == i) && !(s.state != slotEmpty && s.idx == i)
		t.c.cl.mu.Unlock()
		if implicit {
			// close without acquire: acquire the slot first
			if _, err := t.pipeAcquire(op, p, i); err != nil {
				return err
			}
		}
	}
	cl := p.cl
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if s.state != slotWriting || s.idx != i {
		if s.idx == i && (s.state == slotFull || s.state == slotReading) || i/int64(p.cap) < s.committed {
			return t.errAt(op, "%s(%s, %d): index %d was already committed", name, p.name, i, i)
		}
		return t.errAt(op, "%s(%s, %d): index %d was not acquired (slot %d is %v for index %d)", name, p.name, i, i, si, s.state, s.idx)
	}
	s.state = slotFull
	s.committed++
	s.closed = closed
	t.release(&s.full)
	cl.cond.Broadcast()
	return nil
}

func (t *thread) pipeWait(op *ir.Op, p *pipeState, i int64) (*slotHandle, error) {
	if i < 0 {
		return nil, t.errAt(op, "pipe_wait(%s, %d): negative index", p.name, i)
	}
	cl := p.cl
	cl.mu.Lock()
	defer cl.mu.Unlock()
	si, r := int(i%int64(p.cap)), i/int64(p.cap)
	s := &p.slots[si]
	if r < s.released {
		return nil, t.errAt(op, "pipe_wait(%s, %d): index %d was already released", p.name, i, i)
	}
	err := cl.block(t, op, func() bool { return s.committed > r }, func() string {
		return fmt.Sprintf("pipe_wait(%s, %d): slot %d, phase %d, not yet committed (the slot is %v for index %d)",
			p.name, i, si, r%2, s.state, s.idx)
	})
	if err != nil {
		return nil, err
	}
	if s.state != slotFull || s.idx != i {
		return nil, t.errAt(op, "pipe_wait(%s, %d): index %d was already waited (slot %d is %v)", p.name, i, i, si, s.state)
	}
	s.state = slotReading
	t.acquire(s.full)
	return &slotHandle{p: p, slot: si, idx: i, closed: s.closed, guard: &guard{p: p, slot: si, idx: i}}, nil
}

func (t *thread) pipeRelease(op *ir.Op, p *pipeState, i int64) error {
	cl := p.cl
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if i < 0 {
		return t.errAt(op, "pipe_release(%s, %d): negative index", p.name, i)
	}
	si := int(i % int64(p.cap))
	s := &p.slots[si]
	if s.state != slotReading || s.idx != i {
		return t.errAt(op, "pipe_release(%s, %d): index %d was not waited (slot %d is %v for index %d)", p.name, i, i, si, s.state, s.idx)
	}
	s.state = slotEmpty
	s.released++
	t.release(&s.empty)
	cl.cond.Broadcast()
	return nil
}

// ---- mbarriers

type barrierState struct {
	name    string
	count   int
	pending int   // arrivals missing in the current phase
	tx      int64 // transaction bytes outstanding in the current phase
	phase   int64 // completed phases
	cl      *cluster
	// the in-flight wgmma reads of the threads that arrived in the current
	// phase, and those of the last completed phase, which a waiter inherits
	// (wgmmareads.go)
	released, lastReleased []*wgmmaRead
	// the race check (race.go): the clocks of the current phase's arrivals
	// and of the last completed phase of each parity
	acc, total vclock
	done       [2]vclock
}

func (t *thread) barrierAlloc(in *instr) error {
	op := in.op
	count := op.Attrs.Int("count", 1)
	if count < 1 {
		return t.errAt(op, "barrier count must be at least 1, got %d", count)
	}
	name := t.valueName(in.res[0], "barrier")
	if bt, ok := op.Results[0].Type.(*ir.Barrier); ok && bt.Slots > 0 {
		arr := make([]*barrierState, bt.Slots)
		for i := range arr {
			arr[i] = &barrierState{name: fmt.Sprintf("%s[%d]", name, i), count: int(count), pending: int(count), cl: t.c.cl}
		}
		t.setRef(in, 0, arr)
		return nil
	}
	t.setRef(in, 0, &barrierState{name: name, count: int(count), pending: int(count), cl: t.c.cl})
	return nil
}

func (t *thread) barrierIndex(in *instr) error {
	arr, ok := t.arg(in, 0).ref.([]*barrierState)
	if !ok {
		return t.errAt(in.op, "barrier_index: operand is not a barrier array")
	}
	i := t.argInt(in, 1)
	if i < 0 || int(i) >= len(arr) {
		return t.errAt(in.op, "barrier index %d is outside [0, %d)", i, len(arr))
	}
	t.setRef(in, 0, arr[i])
	return nil
}

// barrierOp runs arrive, expect and wait: operand 0 is the barrier; expect
// takes its transaction bytes and wait its phase parity as operand 1.
func (t *thread) barrierOp(in *instr) error {
	b, ok := t.arg(in, 0).ref.(*barrierState)
	if !ok {
		return t.errAt(in.op, "%s: operand 0 is not a barrier", in.op.Kind)
	}
	switch in.op.Kind {
	case ir.OpBarrierExpect:
		return t.barrierArrive(in.op, b, t.argInt(in, 1))
	case ir.OpBarrierWait:
		return t.barrierWait(in.op, b, t.argInt(in, 1))
	}
	return t.barrierArrive(in.op, b, 0)
}

// barrierPhase gives the parity of the barrier's current (incomplete)
// phase: the one a wait passes once the next arrivals and bytes are in
// (PTX: mbarrier.test_wait.parity of the other parity).
func (t *thread) barrierPhase(in *instr) error {
	b, ok := t.arg(in, 0).ref.(*barrierState)
	if !ok {
		return t.errAt(in.op, "%s: operand 0 is not a barrier", in.op.Kind)
	}
	b.cl.mu.Lock()
	p := b.phase % 2
	b.cl.mu.Unlock()
	t.out(in, 0).i[0] = p
	return nil
}

// arriveLocked records one arrival expecting bytes (cl.mu held).
func (t *thread) arriveLocked(op *ir.Op, b *barrierState, bytes int64) error {
	if b.pending == 0 {
		return t.errAt(op, "barrier %s: more than %d arrivals in phase %d (its %d transaction bytes are still outstanding)", b.name, b.count, b.phase, b.tx)
	}
	b.tx += bytes
	b.pending--
	b.released = append(b.released, t.wgmmaReads...)
	t.release(&b.acc)
	b.maybeComplete()
	return nil
}

func (b *barrierState) maybeComplete() {
	if b.pending == 0 && b.tx == 0 {
		b.total, b.acc = b.total.join(b.acc), nil
		b.done[b.phase%2] = b.total.clone()
		b.phase++
		b.pending = b.count
		b.lastReleased, b.released = b.released, nil
		b.cl.cond.Broadcast()
	}
}

func (t *thread) barrierArrive(op *ir.Op, b *barrierState, bytes int64) error {
	b.cl.mu.Lock()
	defer b.cl.mu.Unlock()
	return t.arriveLocked(op, b, bytes)
}

// completeTx is a bulk copy by t completing bytes on b: the copy's writes,
// of t's copy engine (tmaClock), are ordered before the phase's waits.
func (b *barrierState) completeTx(t *thread, bytes int64) {
	b.cl.mu.Lock()
	defer b.cl.mu.Unlock()
	b.acc = b.acc.join(t.avc)
	b.tx -= bytes
	b.maybeComplete()
}

// barrierWait blocks until the phase of parity `parity` completes, that is
// until the barrier's current phase parity differs from it (PTX
// mbarrier.try_wait.parity).
func (t *thread) barrierWait(op *ir.Op, b *barrierState, parity int64) error {
	if parity != 0 && parity != 1 {
		return t.errAt(op, "wait(%s, %d): the phase must be 0 or 1", b.name, parity)
	}
	b.cl.mu.Lock()
	defer b.cl.mu.Unlock()
	defer func() { t.inherited = append(t.inherited[:0], b.lastReleased...) }()
	defer func() { t.acquire(b.done[parity]) }()
	return b.cl.block(t, op, func() bool { return b.phase%2 != parity }, func() string {
		s := fmt.Sprintf("wait(%s, phase %d): the barrier is in phase %d (%d completed), %d of %d arrivals missing",
			b.name, parity, b.phase, b.phase, b.pending, b.count)
		if b.tx != 0 {
			s += fmt.Sprintf(", %d transaction bytes outstanding", b.tx)
		}
		if b.phase%2 == parity && b.phase > 0 {
			s += fmt.Sprintf(" (phase mismatch: phase %d already completed; waiting for parity %d means phase %d)", b.phase-1, parity, b.phase)
		}
		return s
	})
}

// distributedBarrier synchronises the CTAs of the cluster: one arrival per
// CTA; the last arrival releases everyone.
func (t *thread) distributedBarrier(op *ir.Op) error {
	c := t.c.cl
	c.mu.Lock()
	defer c.mu.Unlock()
	c.db.size = len(c.ctas)
	return t.barrierArrival(op, &c.db)
}

// dbState is one distributed barrier: its generation, arrivals, the
// clocks of the arrivals (acc) and of its last release (clock, race.go).
type dbState struct {
	gen, count, size int
	acc, clock       vclock
}

// barrierArrival arrives on b (with c.mu held) and waits for its other
// size-1 arrivals; the last one releases everyone.
func (t *thread) barrierArrival(op *ir.Op, b *dbState) error {
	c := t.c.cl
	gen := b.gen
	b.count++
	t.release(&b.acc)
	if b.count == b.size {
		b.count = 0
		b.gen++
		b.clock, b.acc = b.acc, nil
		c.cond.Broadcast()
		t.acquire(b.clock)
		return nil
	}
	defer func() { t.acquire(b.clock) }()
	return c.block(t, op, func() bool { return b.gen != gen }, func() string {
		return fmt.Sprintf("distributed_barrier: %d of %d CTAs arrived", b.count, b.size)
	})
}

package interp

import (
	"sync/atomic"

	"github.com/tlego/tle/ir"
)

// The interpreter runs wgmma at once, but on the GPU a wgmma reads its
// shared operands asynchronously until a wgmma_wait covers it (PTX ISA:
// wgmma.mma_async's shared-memory reads are complete only after a
// wgmma.wait_group that covers its group). A write into bytes an
// issued, not yet waited wgmma still reads — a TMA refill released too
// early, a store into a stage before the product that reads it is waited
// for — is a race on the GPU that the interpreter's results would not
// show; it is reported here as an error at the write.

// wgmmaRead is the span [lo, hi) of buf an in-flight wgmma reads.
type wgmmaRead struct {
	buf    *Buffer
	v      *view // the operand (its elements, for the race check)
	lo, hi int
	op     *ir.Op
	group  int64 // the issuing thread's wgmma group number
}

// pendingReads are a buffer's in-flight wgmma reads (Buffer.mu guards
// them; n counts them without the lock).
type pendingReads struct {
	n     atomic.Int32
	reads []*wgmmaRead
}

// wgmmaIssued records the shared-memory operands of wgmma op (views)
// as read until this thread's wgmma_wait covers the op's group.
func (t *thread) wgmmaIssued(op *ir.Op, views ...*view) {
	t.wgmmaGroup++
	for _, v := range views {
		if v == nil {
			continue
		}
		lo, hi := v.span()
		r := &wgmmaRead{buf: v.buf, v: v, lo: lo, hi: hi, op: op, group: t.wgmmaGroup}
		b := v.buf
		b.mu.Lock()
		b.pend.reads = append(b.pend.reads, r)
		b.pend.n.Add(1)
		b.mu.Unlock()
		t.wgmmaReads = append(t.wgmmaReads, r)
	}
}

// wgmmaWaited ends the reads of every group of this thread but the n
// most recent (wgmma_wait(n)); the race check records each retired read
// again, now: the product read its operands until this wait.
func (t *thread) wgmmaWaited(n int64) error {
	keep := t.wgmmaReads[:0]
	var err error
	for _, r := range t.wgmmaReads {
		if r.group > t.wgmmaGroup-n {
			keep = append(keep, r)
			continue
		}
		if err == nil {
			err = t.raceAccess(r.op, r.buf, r.v, nil, false)
		}
		b := r.buf
		b.mu.Lock()
		for i, x := range b.pend.reads {
			if x == r {
				b.pend.reads = append(b.pend.reads[:i], b.pend.reads[i+1:]...)
				b.pend.n.Add(-1)
				break
			}
		}
		b.mu.Unlock()
	}
	t.wgmmaReads = keep
	return err
}

// checkWgmmaReads refuses a write of [lo, hi) of b while an in-flight
// wgmma reads any of it.
func (t *thread) checkWgmmaReads(op *ir.Op, b *Buffer, lo, hi int) error {
	if b == nil {
		return nil
	}
	for _, r := range t.inherited {
		if r.buf == b && lo < r.hi && r.lo < hi {
			return t.errAt(op, "write to %s after a barrier another thread arrived on while its wgmma at %s still read it: wgmma_wait before the arrive (on the GPU wgmma reads shared memory until a wgmma_wait completes it)", b.name, t.c.l.where(r.op))
		}
	}
	if b.pend.n.Load() == 0 {
		return nil
	}
	b.mu.Lock()
	var hit *wgmmaRead
	for _, r := range b.pend.reads {
		if lo < r.hi && r.lo < hi {
			hit = r
			break
		}
	}
	b.mu.Unlock()
	if hit != nil {
		return t.errAt(op, "write to %s while the wgmma at %s may still read it: no wgmma_wait covers that product yet (on the GPU wgmma reads shared memory until a wgmma_wait completes it)", b.name, t.c.l.where(hit.op))
	}
	return nil
}

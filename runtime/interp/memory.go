package interp

import (
	"fmt"
	"slices"

	"github.com/tlego/tle/ir"
)

// access resolves packed pointers of one tile op to regions, caching the
// last region, and checks pipe guards and bounds.
type access struct {
	t     *thread
	op    *ir.Op
	write bool
	verb  string // "load from", "store to", "atomic on"
	id    int
	rg    *region
	// the pointer tile is consecutive (factSeq), the mask all on (factOn)
	seq, on bool
	// lazy: the pointers are p0 + k, never written out (factLazy)
	lazy bool
	p0   int64
}

// pointers returns the pointer operand (args[0]) of in, n lanes wide, and
// sets a.seq, a.lazy and a.on from its facts and those of the mask
// (args[k]). It returns nil for a lazy pointer tile: a.expand writes it out
// when the lanes must be gone through one by one.
func (a *access) pointers(in *instr, k, n int) []int64 {
	p := a.t.arg(in, 0)
	a.on = len(in.args) > k && a.t.arg(in, k).facts&factOn != 0
	if p.facts&factLazy != 0 && len(p.i) == 1 {
		a.seq, a.lazy, a.p0 = true, true, p.i[0]
		return nil
	}
	a.seq = p.facts&factSeq != 0 && len(p.i) == n
	return a.t.bcastI(p.i, n, 0)[:n]
}

// expand writes out a lazy pointer tile of n lanes (a.p0 + k) into scratch.
func (a *access) expand(n int) []int64 {
	s := scratch(&a.t.pool.scrI[0], n)
	for k := range s {
		s[k] = a.p0 + int64(k)
	}
	return s
}

func (a *access) resolve(p int64, lane int) (*region, error) {
	id, _ := unpack(p)
	if a.rg != nil && id == a.id {
		return a.rg, nil
	}
	rg := a.t.c.l.reg.get(id)
	if rg == nil {
		return nil, a.t.errAt(a.op, "%s an invalid pointer (lane %d)", a.verb, lane)
	}
	if rg.guard != nil {
		if msg := rg.guard.check(a.write); msg != "" {
			return nil, a.t.errAt(a.op, "%s", msg)
		}
	}
	a.id, a.rg = id, rg
	return rg, nil
}

// contiguous is the fast path of a load or store whose lanes are all on
// (mask nil or all non-zero) and address consecutive elements of one
// region, all in bounds: the first lane's offset and its region, resolved
// (guards checked) as a lane at a time would. Otherwise rg is nil and the
// access goes lane by lane, which reports the exact lane of any fault.
// a.seq and a.on are what the ops that made ptr and mask know (factSeq,
// factOn): the lanes need no scan for what those promise.
// ptr is nil when the pointers are a lazy addptr's (a.lazy: a.p0 + k).
func (a *access) contiguous(ptr, mask []int64, n int) (off int64, rg *region) {
	seq, on := a.seq, a.on
	if n < 2 {
		return 0, nil
	}
	p0 := a.p0
	if ptr != nil {
		p0 = ptr[0]
	}
	if !seq {
		for k, p := range ptr {
			if p != p0+int64(k) {
				return 0, nil
			}
		}
	}
	if mask != nil && !on {
		for _, m := range mask {
			if m == 0 {
				return 0, nil
			}
		}
	}
	id, off := unpack(p0)
	if last, _ := unpack(p0 + int64(n-1)); last != id || id == 0 {
		return 0, nil
	}
	rg = a.t.c.l.reg.get(id)
	if rg == nil || rg.guard != nil || off < int64(rg.lo) || off+int64(n) > int64(rg.hi) {
		return 0, nil
	}
	a.id, a.rg = id, rg
	return off, rg
}

func (a *access) oob(p int64, lane, n int) error {
	_, off := unpack(p)
	rg := a.rg
	what := rg.name
	if rg.shared {
		what = "shared buffer " + rg.name
	}
	return a.t.errAt(a.op, "out-of-bounds %s %s: index %d is outside [0, %d) (lane %d of %d)", a.verb, what, off-int64(rg.lo), rg.hi-rg.lo, lane, n)
}

func (t *thread) maskOf(in *instr, k, n int) []int64 {
	if len(in.args) <= k {
		return nil
	}
	m := t.arg(in, k)
	if m.i == nil || m.facts&factOn != 0 {
		return nil // no mask, or one all on: every lane is
	}
	return t.bcastI(m.i, n, 2)[:n]
}

func (t *thread) load(in *instr) error {
	so := t.info(in.res[0])
	n := so.n
	a := access{t: t, op: in.op, verb: "load from"}
	ptr := a.pointers(in, 1, n)
	mask := t.maskOf(in, 1, n)
	v := t.out(in, 0)
	var otherF []float64
	var otherI []int64
	if len(in.args) > 2 {
		o := t.arg(in, 2)
		// as it is: gatherLoad stretches a scalar (an unsplatted constant)
		if so.float {
			otherF = asF(o, t.info(in.args[2]))
		} else if o.i != nil {
			otherI = o.i
		}
	}
	if so.float {
		return gatherLoad(&a, in.op, so.dt, v.f, ptr, mask, otherF, &floatMem)
	}
	return gatherLoad(&a, in.op, so.dt, v.i, ptr, mask, otherI, &intMem)
}

// gatherLoad reads dst[k] = *ptr[k] for the lanes the mask keeps (other, or
// zero, elsewhere; other of one element stands for all), resolving each pointer's region once per run of lanes
// in the same region and checking bounds. m reaches the buffer's elements
// of dst's kind.
func gatherLoad[T float64 | int64](a *access, op *ir.Op, dt ir.DType, dst []T, ptr, mask []int64, other []T, m *elemMem[T]) error {
	if off, rg := a.contiguous(ptr, mask, len(dst)); rg != nil && rg.buf.shadow == nil && m.kind(rg.buf) {
		m.read(rg.buf, dst, int(off)) // one bounds check, one copy (widening)
		return nil
	}
	if ptr == nil {
		ptr = a.expand(len(dst))
	}
	var lo, hi int64
	curID := -1
	var src []T
	var curBuf *Buffer
	n := len(dst)
	for k := 0; k < n; k++ {
		if mask != nil && mask[k] == 0 {
			if len(other) == n {
				dst[k] = other[k]
			} else if other != nil {
				dst[k] = other[0]
			} else {
				dst[k] = 0
			}
			continue
		}
		p := ptr[k]
		id, off := unpack(p)
		if id != curID {
			rg, err := a.resolve(p, k)
			if err != nil {
				return err
			}
			if !m.kind(rg.buf) {
				return a.t.errAt(op, "load of %v from %s, a buffer of %v", dt, rg.name, rg.buf.dtype)
			}
			src = m.wide(rg.buf)
			curID, lo, hi, curBuf = id, int64(rg.lo), int64(rg.hi), rg.buf
		}
		if off < lo || off >= hi {
			return a.oob(p, k, n)
		}
		if curBuf.shadow != nil {
			if err := a.t.raceOne(op, curBuf, int(off), false); err != nil {
				return err
			}
		}
		if src != nil {
			dst[k] = src[off]
			continue
		}
		// storage in the dtype (global memory, never race-checked): widen
		// the run of on lanes at consecutive in-bounds offsets at once (a
		// row of a 2-D tile)
		r := 1
		for k+r < n && curBuf.shadow == nil && ptr[k+r] == p+int64(r) && off+int64(r) < hi && (mask == nil || mask[k+r] != 0) {
			r++
		}
		m.read(curBuf, dst[k:k+r], int(off))
		k += r - 1
	}
	return nil
}

func (t *thread) store(in *instr) error {
	sp, sv := t.info(in.args[0]), t.info(in.args[1])
	n := max(sp.n, sv.n)
	a := access{t: t, op: in.op, write: true, verb: "store to"}
	ptr := a.pointers(in, 2, n)
	mask := t.maskOf(in, 2, n)
	val := t.arg(in, 1)
	if val.f != nil {
		return scatterStore(&a, sv.dt, t.bcastF(val.f, n, 1)[:n], ptr, mask, &floatMem, true)
	}
	return scatterStore(&a, sv.dt, t.bcastI(val.i, n, 1)[:n], ptr, mask, &intMem, false)
}

// elemMem is how the memory ops reach a buffer's elements of one kind
// (floatMem: float64 tiles, intMem: int64 tiles) whatever the buffer's
// storage (Buffer): a float written must be exact in the buffer's dtype,
// an integer is wrapped to it.
type elemMem[T float64 | int64] struct {
	kind  func(*Buffer) bool      // the buffer holds elements of this kind
	wide  func(*Buffer) []T       // the storage, when it is a []T (else nil)
	get   func(*Buffer, int) T    // element k
	set   func(*Buffer, int, T)   // element k = x
	read  func(*Buffer, []T, int) // dst = elements [off, off+len(dst))
	write func(*Buffer, int, []T) // elements [off, off+len(src)) = src
}

var floatMem = elemMem[float64]{
	kind: func(b *Buffer) bool { return b.dtype.IsFloat() },
	wide: func(b *Buffer) []float64 {
		if b.st == stF64 {
			return b.f
		}
		return nil
	},
	get:   (*Buffer).getF,
	set:   (*Buffer).setF,
	read:  (*Buffer).readF,
	write: (*Buffer).writeF,
}

var intMem = elemMem[int64]{
	kind: func(b *Buffer) bool { return !b.dtype.IsFloat() },
	wide: func(b *Buffer) []int64 {
		if b.st == stI64 {
			return b.i
		}
		return nil
	},
	get:   (*Buffer).getI,
	set:   (*Buffer).setI,
	read:  (*Buffer).readI,
	write: (*Buffer).writeI,
}

// scatterStore writes *ptr[k] = src[k], of dtype dt, for the lanes the mask
// keeps: floats (isFloat, T float64) rounded to a buffer of another float
// dtype, integers wrapped to the value set of the buffer's dtype (as wrap).
// Regions and bounds are checked as gatherLoad does; m reaches the
// buffer's elements of src's kind. The conversion is chosen once per region
// and a buffer of []T storage is indexed directly, which keeps the loop of
// a store that needs no conversion tight.
func scatterStore[T float64 | int64](a *access, dt ir.DType, src []T, ptr, mask []int64, m *elemMem[T], isFloat bool) error {
	if off, rg := a.contiguous(ptr, mask, len(src)); rg != nil && rg.buf.shadow == nil && rg.buf.pend.n.Load() == 0 && len(a.t.inherited) == 0 {
		// a store whose floats need no rounding (the buffer holds src's
		// dtype), or of integers (write wraps them)
		if md := rg.buf.dtype; m.kind(rg.buf) && (!isFloat || md == dt) {
			m.write(rg.buf, int(off), src)
			return nil
		}
	}
	if ptr == nil {
		ptr = a.expand(len(src))
	}
	var lo, hi int64
	curID := -1
	var mem []T
	var md ir.DType
	var rgBuf *Buffer
	convert := false
	n := len(src)
	for k := range src {
		if mask != nil && mask[k] == 0 {
			continue
		}
		p := ptr[k]
		id, off := unpack(p)
		if id != curID {
			rg, err := a.resolve(p, k)
			if err != nil {
				return err
			}
			if !m.kind(rg.buf) {
				return a.t.errAt(a.op, "store of %v to %s, a buffer of %v", dt, rg.name, rg.buf.dtype)
			}
			mem = m.wide(rg.buf)
			curID, lo, hi, md = id, int64(rg.lo), int64(rg.hi), rg.buf.dtype
			rgBuf = rg.buf
			if isFloat {
				convert = md != dt
			} else {
				convert = md != ir.I64 && md != ir.U64
			}
		}
		if off < lo || off >= hi {
			return a.oob(p, k, n)
		}
		if rgBuf != nil && (rgBuf.pend.n.Load() != 0 || len(a.t.inherited) > 0) {
			if err := a.t.checkWgmmaReads(a.op, rgBuf, int(off), int(off)+1); err != nil {
				return err
			}
		}
		if rgBuf.shadow != nil {
			if err := a.t.raceOne(a.op, rgBuf, int(off), true); err != nil {
				return err
			}
		}
		x := src[k]
		if convert {
			if isFloat {
				x = T(roundOne(md, float64(x)))
			} else {
				x = T(md.WrapInt(int64(x)))
			}
		}
		if mem != nil {
			mem[off] = x
		} else {
			m.set(rgBuf, int(off), x)
		}
	}
	return nil
}

// atomic runs atomic_rmw and atomic_cas. Each element is read, combined and
// written under the lock of its buffer, so atomics from parallel CTAs and
// roles are exact.
func (t *thread) atomic(in *instr) error {
	op := in.op
	so := t.info(in.res[0])
	n := so.n
	ptr := t.bcastI(t.arg(in, 0).i, n, 0)[:n]
	cas := op.Kind == ir.OpAtomicCAS
	kind := op.Attrs.String("kind")
	var mask []int64
	vk := 1
	if cas {
		vk = 2
		mask = t.maskOf(in, 3, n)
	} else {
		mask = t.maskOf(in, 2, n)
	}
	v := t.out(in, 0)
	a := access{t: t, op: op, write: true, verb: "atomic on"}
	var locked *region
	defer func() {
		if locked != nil {
			locked.buf.mu.Unlock()
		}
	}()
	var valF, cmpF []float64
	var valI, cmpI []int64
	if so.float {
		valF = t.bcastF(t.arg(in, vk).f, n, 1)[:n]
		if cas {
			cmpF = t.bcastF(t.arg(in, 1).f, n, 2)[:n]
		}
	} else {
		valI = t.bcastI(t.arg(in, vk).i, n, 1)[:n]
		if cas {
			cmpI = t.bcastI(t.arg(in, 1).i, n, 2)[:n]
		}
	}
	for k := 0; k < n; k++ {
		if mask != nil && mask[k] == 0 {
			if v.f != nil {
				v.f[k] = 0
			} else {
				v.i[k] = 0
			}
			continue
		}
		rg, err := a.resolve(ptr[k], k)
		if err != nil {
			return err
		}
		_, off := unpack(ptr[k])
		if off < int64(rg.lo) || off >= int64(rg.hi) {
			return a.oob(ptr[k], k, n)
		}
		if rg != locked {
			if locked != nil {
				locked.buf.mu.Unlock()
			}
			rg.buf.mu.Lock()
			locked = rg
		}
		if rg.buf.shadow != nil {
			if err := t.raceElem(op, t.c.l.opRef(op), rg.buf, int(off), raceAtomic, t.gid, t.vc, nil); err != nil {
				return err
			}
		}
		dt := rg.buf.dtype
		if so.float {
			if !dt.IsFloat() {
				return t.errAt(op, "float atomic on %s, a buffer of %v", rg.name, dt)
			}
			old := rg.buf.getF(int(off))
			x := valF[k]
			var nv float64
			switch {
			case cas:
				nv = old
				if old == cmpF[k] {
					nv = x
				}
			case kind == "add":
				nv = old + x
			case kind == "max":
				nv = old
				if x > old || old != old {
					nv = x
				}
			case kind == "min":
				nv = old
				if x < old || old != old {
					nv = x
				}
			case kind == "xchg":
				nv = x
			default:
				return t.errAt(op, "atomic %q is not defined on %v", kind, dt)
			}
			rg.buf.setF(int(off), roundOne(dt, nv))
			v.f[k] = old
			continue
		}
		if dt.IsFloat() {
			return t.errAt(op, "integer atomic on %s, a buffer of %v", rg.name, dt)
		}
		old := rg.buf.getI(int(off))
		x := valI[k]
		u := dt.IsUnsigned()
		var nv int64
		switch {
		case cas:
			nv = old
			if old == cmpI[k] {
				nv = x
			}
		case kind == "add":
			nv = old + x
		case kind == "max":
			nv = old
			if less(old, x, u) {
				nv = x
			}
		case kind == "min":
			nv = old
			if less(x, old, u) {
				nv = x
			}
		case kind == "xchg":
			nv = x
		case kind == "and":
			nv = old & x
		case kind == "or":
			nv = old | x
		case kind == "xor":
			nv = old ^ x
		default:
			return t.errAt(op, "unknown atomic kind %q", kind)
		}
		rg.buf.setI(int(off), nv)
		v.i[k] = old
	}
	return nil
}

// ---- shared memory

// view is a memdesc value: a strided window of a shared buffer (an alloc, a
// pipe field slot, or a peer CTA's alloc), optionally guarded by a pipe slot.
type view struct {
	buf     *Buffer
	off     int
	shape   []int
	strides []int
	guard   *guard
	name    string
	alloc   int // alloc index, -1 for pipe fields
}

func (v *view) span() (int, int) {
	hi := v.off
	for d, s := range v.shape {
		if s == 0 {
			return v.off, v.off
		}
		hi += (s - 1) * v.strides[d]
	}
	return v.off, hi + 1
}

func (t *thread) viewArg(in *instr, k int) (*view, error) {
	v, ok := t.arg(in, k).ref.(*view)
	if !ok {
		return nil, t.errAt(in.op, "%s: operand %d is not a shared-memory buffer", in.op.Kind, k)
	}
	return v, nil
}

func (t *thread) checkView(op *ir.Op, v *view, write bool) error {
	if v.guard != nil {
		if msg := v.guard.check(write); msg != "" {
			return t.errAt(op, "%s", msg)
		}
	}
	return nil
}

// smemBuffer returns CTA c's buffer for alloc index k, creating it (shared
// memory is static on the GPU: a peer may address it before c runs the alloc).
func (t *thread) smemBuffer(c *cta, k int) *Buffer {
	cl := t.c.cl
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if b := c.smem[k]; b != nil {
		return b
	}
	op := t.c.l.prog.allocs[k]
	md := op.Results[0].Type.(*ir.MemDesc)
	b := newWideBuffer(md.Elem, ir.NumElements(md.Shape))
	b.shadow = newRaceShadow(ir.NumElements(md.Shape))
	b.name = op.Results[0].Name
	if b.name == "" {
		b.name = fmt.Sprintf("alloc@%s", t.c.l.where(op))
	}
	c.smem[k] = b
	return b
}

func stridesOf(shape, order []int) []int {
	if len(order) != len(shape) {
		return rowMajorStrides(shape)
	}
	st := make([]int, len(shape))
	s := 1
	for _, d := range order {
		st[d] = s
		s *= shape[d]
	}
	return st
}

func (t *thread) alloc(in *instr) error {
	md, ok := t.info(in.res[0]).typ.(*ir.MemDesc)
	if !ok {
		return t.errAt(in.op, "alloc must give a memdesc")
	}
	b := t.smemBuffer(t.c, in.alloc)
	v := &view{buf: b, shape: md.Shape, strides: stridesOf(md.Shape, md.Order), name: b.name, alloc: in.alloc}
	if len(in.args) > 0 {
		init := t.arg(in, 0)
		if err := t.writeView(in.op, v, init, t.info(in.args[0])); err != nil {
			return err
		}
	}
	t.setRef(in, 0, v)
	return nil
}

// writeView stores a tile (or a scalar, splatted) into v in logical row-major
// order, rounding to the buffer's dtype.
func (t *thread) writeView(op *ir.Op, v *view, x val, sx *slotInfo) error {
	if x.f != nil {
		return writeElems(t, op, v, sx.dt, v.buf.f, x.f, &t.pool.scrF[0], roundSlice)
	}
	return writeElems(t, op, v, sx.dt, v.buf.i, x.i, &t.pool.scrI[0], wrapSlice)
}

// writeElems is writeView of the elements xs, of dtype dt, into mem, v's
// buffer's storage of their kind; a scalar is splatted in scratch *scr, and
// fix converts a copy of the elements for a buffer of another dtype.
func writeElems[T float64 | int64](t *thread, op *ir.Op, v *view, dt ir.DType, mem, xs []T, scr *[]T, fix func(ir.DType, []T)) error {
	if mem == nil {
		return t.errAt(op, "storing %v into %s, a buffer of %v", dt, v.name, v.buf.dtype)
	}
	n := ir.NumElements(v.shape)
	src := bcast(scr, xs, n)
	if len(src) != n {
		return t.errAt(op, "storing %d elements into %s of shape %v", len(src), v.name, v.shape)
	}
	if dt != v.buf.dtype {
		src = append([]T(nil), src...)
		fix(v.buf.dtype, src)
	}
	lo, hi := v.span()
	if err := t.checkWgmmaReads(op, v.buf, lo, hi); err != nil {
		return err
	}
	if err := t.raceAccess(op, v.buf, v, nil, true); err != nil {
		return err
	}
	scatter(mem, src, v.shape, v.strides, v.off)
	return nil
}

func (t *thread) memIndex(in *instr) error {
	v, err := t.viewArg(in, 0)
	if err != nil {
		return err
	}
	i := t.argInt(in, 1)
	if len(v.shape) == 0 {
		return t.errAt(in.op, "memdesc_index of a rank-0 buffer")
	}
	if i < 0 || i >= int64(v.shape[0]) {
		return t.errAt(in.op, "out-of-bounds slot %d of %s: its leading dimension is %d", i, v.name, v.shape[0])
	}
	nv := *v
	nv.off = v.off + int(i)*v.strides[0]
	nv.shape, nv.strides = v.shape[1:], v.strides[1:]
	t.setRef(in, 0, &nv)
	return nil
}

func (t *thread) memTrans(in *instr) error {
	v, err := t.viewArg(in, 0)
	if err != nil {
		return err
	}
	perm := in.op.Attrs.Ints("perm")
	if len(perm) == 0 && len(v.shape) == 2 {
		perm = []int{1, 0}
	}
	if len(perm) != len(v.shape) {
		return t.errAt(in.op, "memdesc_trans: permutation %v for rank %d", perm, len(v.shape))
	}
	nv := *v
	nv.shape, nv.strides = make([]int, len(perm)), make([]int, len(perm))
	for k, p := range perm {
		nv.shape[k], nv.strides[k] = v.shape[p], v.strides[p]
	}
	t.setRef(in, 0, &nv)
	return nil
}

// memReshape views the same storage with another shape: the view must be
// contiguous and row-major (strides of its shape), which the checker's
// rule (a row-major view, leading dimensions merged or split) guarantees
// for views of allocs and their slots.
func (t *thread) memReshape(in *instr) error {
	v, err := t.viewArg(in, 0)
	if err != nil {
		return err
	}
	md, ok := t.info(in.res[0]).typ.(*ir.MemDesc)
	if !ok {
		return t.errAt(in.op, "memdesc_reshape must give a memdesc")
	}
	if !slices.Equal(v.strides, rowMajorStrides(v.shape)) {
		return t.errAt(in.op, "memdesc_reshape of %s: the view (shape %v, strides %v) is not contiguous row-major", v.name, v.shape, v.strides)
	}
	if ir.NumElements(md.Shape) != ir.NumElements(v.shape) {
		return t.errAt(in.op, "memdesc_reshape of %s: %v and %v hold different numbers of elements", v.name, v.shape, md.Shape)
	}
	nv := *v
	nv.shape, nv.strides = md.Shape, rowMajorStrides(md.Shape)
	t.setRef(in, 0, &nv)
	return nil
}

func (t *thread) regionOf(v *view) (int, error) {
	lo, hi := v.span()
	key := regionKey{buf: v.buf, lo: lo, hi: hi, guard: v.guard}
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.regions[key]; ok {
		return id, nil
	}
	if c.regions == nil {
		c.regions = map[regionKey]int{}
	}
	id, ok := c.l.reg.add(&region{buf: v.buf, lo: lo, hi: hi, name: v.name, guard: v.guard, shared: true})
	if !ok {
		return 0, fmt.Errorf("too many shared-memory pointer regions")
	}
	c.regions[key] = id
	return id, nil
}

func (t *thread) localPtr(in *instr) error {
	v, err := t.viewArg(in, 0)
	if err != nil {
		return err
	}
	if len(in.args)-1 != len(v.shape) {
		return t.errAt(in.op, "local_ptr: %d indices for %s of rank %d", len(in.args)-1, v.name, len(v.shape))
	}
	id, err := t.regionOf(v)
	if err != nil {
		return t.errAt(in.op, "%v", err)
	}
	out := t.out(in, 0)
	n := len(out.i)
	base := pack(id, int64(v.off))
	for k := range out.i {
		out.i[k] = base
	}
	for d := range v.shape {
		idx := t.arg(in, d+1).i
		if idx == nil {
			return t.errAt(in.op, "local_ptr: index %d is not an integer", d)
		}
		idx = t.bcastI(idx, n, 0)[:n]
		s := int64(v.strides[d])
		for k := range out.i {
			out.i[k] += idx[k] * s
		}
	}
	return nil
}

func (t *thread) localLoad(in *instr) error {
	v, err := t.viewArg(in, 0)
	if err != nil {
		return err
	}
	if err := t.checkView(in.op, v, false); err != nil {
		return err
	}
	out := t.out(in, 0)
	if ir.NumElements(v.shape) != len(out.f)+len(out.i) {
		return t.errAt(in.op, "local_load of %s with shape %v into %v", v.name, v.shape, t.info(in.res[0]).typ)
	}
	if out.f != nil {
		return gatherView(t, in.op, v, out.f, v.buf.f, "floats")
	}
	return gatherView(t, in.op, v, out.i, v.buf.i, "integers")
}

// gatherView is local_load of v into dst from mem, v's buffer's storage of
// dst's kind (what).
func gatherView[T float64 | int64](t *thread, op *ir.Op, v *view, dst, mem []T, what string) error {
	if mem == nil {
		return t.errAt(op, "local_load of %s from %s, a buffer of %v", what, v.name, v.buf.dtype)
	}
	if err := t.raceAccess(op, v.buf, v, nil, false); err != nil {
		return err
	}
	gather(dst, mem, v.shape, v.strides, v.off)
	return nil
}

func (t *thread) localStore(in *instr) error {
	v, err := t.viewArg(in, 0)
	if err != nil {
		return err
	}
	if err := t.checkView(in.op, v, true); err != nil {
		return err
	}
	return t.writeView(in.op, v, t.arg(in, 1), t.info(in.args[1]))
}

// readView gathers v in logical row-major order (scratch k), as floats.
func (t *thread) readViewF(op *ir.Op, v *view, k int) ([]float64, error) {
	if err := t.checkView(op, v, false); err != nil {
		return nil, err
	}
	if v.buf.f == nil {
		return nil, t.errAt(op, "%s holds %v, not floats", v.name, v.buf.dtype)
	}
	if err := t.raceAccess(op, v.buf, v, nil, false); err != nil {
		return nil, err
	}
	n := ir.NumElements(v.shape)
	dst := scratch(&t.pool.scrF[k], n)
	gather(dst, v.buf.f, v.shape, v.strides, v.off)
	return dst, nil
}

// ---- pipes

func (t *thread) pipeAlloc(in *instr) error {
	pt, ok := t.info(in.res[0]).typ.(*ir.Pipe)
	if !ok || pt.Capacity < 1 {
		return t.errAt(in.op, "pipe_alloc needs a pipe type with a positive capacity")
	}
	p := &pipeState{name: t.valueName(in.res[0], "pipe"), cap: pt.Capacity, slots: make([]pslot, pt.Capacity), cl: t.c.cl}
	for _, f := range pt.Fields {
		n := ir.NumElements(f.Shape)
		b := newWideBuffer(f.Elem, n*pt.Capacity)
		b.name = p.name + "." + f.Name
		p.fields = append(p.fields, pipeField{name: f.Name, buf: b, shape: f.Shape, n: n})
	}
	t.setRef(in, 0, p)
	return nil
}

func (t *thread) slotField(in *instr) error {
	h, ok := t.arg(in, 0).ref.(*slotHandle)
	if !ok {
		return t.errAt(in.op, "slot_field: operand is not a slot")
	}
	name := in.op.Attrs.String("name")
	for _, f := range h.p.fields {
		if f.name == name {
			t.setRef(in, 0, &view{buf: f.buf, off: h.slot * f.n, shape: f.shape, strides: rowMajorStrides(f.shape),
				guard: h.guard, name: f.buf.name, alloc: -1})
			return nil
		}
	}
	return t.errAt(in.op, "pipe %s has no field %q", h.p.name, name)
}

// ---- clusters

func (t *thread) remote(in *instr) error {
	v, err := t.viewArg(in, 0)
	if err != nil {
		return err
	}
	rank := t.argInt(in, 1)
	peers := t.c.peers
	if rank < 0 || rank >= int64(len(peers)) {
		return t.errAt(in.op, "remote: rank %d is outside the cluster of %d CTAs", rank, len(peers))
	}
	if v.alloc < 0 {
		return t.errAt(in.op, "remote: %s is not an alloc'ed buffer", v.name)
	}
	peer := peers[rank]
	nv := *v
	nv.buf = t.smemBuffer(peer, v.alloc)
	nv.name = fmt.Sprintf("%s of CTA rank %d", v.name, rank)
	t.setRef(in, 0, &nv)
	return nil
}

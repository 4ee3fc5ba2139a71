package interp

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/tlego/tle/ir"
)

// thread is one goroutine of a CTA: its main thread, or one warp role.
type thread struct {
	c       *cta
	pool    *pool
	role    string
	copy    string // " copy k" for copy k of a role with copies, else ""
	roleIdx int    // -1 for the main thread
	ws      *wsState
	cur     *ir.Op
	// the wgmma groups this thread issued and the shared-memory reads of
	// those no wgmma_wait has covered yet (wgmmareads.go)
	wgmmaGroup int64
	wgmmaReads []*wgmmaRead
	// the reads other threads had in flight when they arrived on the
	// barrier this thread last waited for: on the GPU nothing orders this
	// thread's writes after their end
	inherited []*wgmmaRead
	// the race check (race.go): the goroutine id in the cluster and vector
	// clock, those of its TMA copies (agid -1 before the first), the ids of
	// joined roles free for reuse, and the thread that started this role
	gid, agid int
	vc, avc   vclock
	freeGIDs  []int
	parent    *thread
}

type wsState struct{ remaining int }

func (t *thread) who() string {
	if t.roleIdx >= 0 {
		return fmt.Sprintf("role %q%s of %s", t.role, t.copy, t.c.where())
	}
	return t.c.where()
}

func (t *thread) errAt(op *ir.Op, format string, args ...any) error {
	return t.c.l.errAt(op, "%s [%s]", fmt.Sprintf(format, args...), t.who())
}

func (t *thread) runGuarded(b *block) (err error) {
	defer func() {
		if r := recover(); r != nil {
			kind := ir.Kind("?")
			if t.cur != nil {
				kind = t.cur.Kind
			}
			err = t.errAt(t.cur, "internal interpreter error in %s: %v\n%s", kind, r, firstLines(string(debug.Stack()), 12))
		}
	}()
	return t.run(b)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func (t *thread) run(b *block) error {
	for _, s := range b.entryFrees {
		t.free(s)
	}
	stopped := &t.c.l.stopped
	for _, in := range b.code {
		if stopped.Load() {
			return errStopped
		}
		t.cur = in.op
		if err := t.exec(in); err != nil {
			return err
		}
		for _, s := range in.frees {
			t.free(s)
		}
	}
	return nil
}

func (t *thread) free(s int) {
	t.pool.put(t.c.regs[s])
	t.c.regs[s] = val{}
}

func (t *thread) info(s int) *slotInfo { return &t.c.l.prog.slots[s] }

// newVal allocates the value of slot s (not yet stored in the frame).
func (t *thread) newVal(s int) val {
	si := t.info(s)
	switch {
	case si.ref:
		return val{}
	case si.float:
		return val{f: t.pool.getF(si.n)}
	}
	return val{i: t.pool.getI(si.n)}
}

// out allocates and stores result k of in.
func (t *thread) out(in *instr, k int) val {
	v := t.newVal(in.res[k])
	t.c.regs[in.res[k]] = v
	return v
}

func (t *thread) arg(in *instr, k int) val { return t.c.regs[in.args[k]] }

// setFacts records what op in knows of its result k's elements.
func (t *thread) setFacts(in *instr, k int, f facts) { t.c.regs[in.res[k]].facts = f }

func (t *thread) setRef(in *instr, k int, r any) { t.c.regs[in.res[k]] = val{ref: r} }

func intOf(v val) int64 {
	if v.i != nil {
		return v.i[0]
	}
	if v.f != nil {
		return ir.TruncInt(v.f[0])
	}
	return 0
}

func (t *thread) argInt(in *instr, k int) int64 { return intOf(t.arg(in, k)) }

// clone copies v into fresh arrays of this thread's pool.
func (t *thread) clone(v val) val {
	if v.f != nil {
		c := t.pool.getF(len(v.f))
		copy(c, v.f)
		return val{f: c}
	}
	if v.i != nil {
		c := t.pool.getI(len(v.i))
		copy(c, v.i)
		return val{i: c}
	}
	return v
}

// bcastF returns x stretched to n elements (a scalar is splatted into scratch k).
func (t *thread) bcastF(x []float64, n, k int) []float64 { return bcast(&t.pool.scrF[k], x, n) }

func (t *thread) bcastI(x []int64, n, k int) []int64 { return bcast(&t.pool.scrI[k], x, n) }

// bcast returns x if it has n elements, else its first element splatted
// into the scratch array *scr (grown to n).
func bcast[T float64 | int64](scr *[]T, x []T, n int) []T {
	if len(x) == n {
		return x
	}
	s := scratch(scr, n)
	v := x[0]
	for j := range s {
		s[j] = v
	}
	return s
}

// scratch returns the first n elements of the scratch array *scr, growing
// it first if it is shorter.
func scratch[T float64 | int64](scr *[]T, n int) []T {
	if cap(*scr) < n {
		*scr = make([]T, n)
	}
	return (*scr)[:n]
}

// ---- dispatch

func (t *thread) exec(in *instr) error {
	op := in.op
	l := t.c.l
	switch k := op.Kind; k {
	case ir.OpConstant:
		return t.constant(in)
	case ir.OpProgramID, ir.OpNumPrograms:
		axis := op.Attrs.Int("axis", 0)
		if axis < 0 || axis > 2 {
			return t.errAt(op, "%s: axis %d is not 0, 1 or 2", k, axis)
		}
		v := t.out(in, 0)
		if k == ir.OpProgramID {
			v.i[0] = int64(t.c.pid[axis])
		} else {
			v.i[0] = int64(l.grid[axis])
		}
	case ir.OpArange:
		start := op.Attrs.Int("start", 0)
		v := t.out(in, 0)
		for j := range v.i {
			v.i[j] = start + int64(j)
		}
		t.setFacts(in, 0, factSeq)
	case ir.OpSplat:
		return t.splat(in)
	case ir.OpBroadcast:
		return t.broadcast(in)
	case ir.OpExpandDims, ir.OpReshape:
		src := t.arg(in, 0)
		v := t.out(in, 0)
		if si, so := t.info(in.args[0]), t.info(in.res[0]); si.n != so.n || si.float != so.float {
			return t.errAt(op, "%s from %v to %v changes the number of elements", k, si.typ, so.typ)
		}
		copy(v.f, src.f)
		copy(v.i, src.i)
	case ir.OpTrans:
		return t.trans(in)
	case ir.OpGather:
		return t.gatherOp(in)
	case ir.OpButterfly:
		return t.butterfly(in)
	case ir.OpJoin:
		return t.join(in)
	case ir.OpSplit:
		return t.split(in)
	case ir.OpFlip:
		return t.flip(in)
	case ir.OpExtractSlice:
		return t.extractSlice(in)
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpRem, ir.OpMin, ir.OpMax,
		ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpShl, ir.OpShr, ir.OpDivRN, ir.OpUMulHi, ir.OpAtan2, ir.OpPow:
		return t.binary(in)
	case ir.OpNeg, ir.OpNot, ir.OpAbs, ir.OpExp, ir.OpExp2, ir.OpLog, ir.OpLog2, ir.OpSqrt,
		ir.OpRsqrt, ir.OpSigmoid, ir.OpTanh, ir.OpErf, ir.OpRoundTF32,
		ir.OpSin, ir.OpCos, ir.OpTan, ir.OpAsin, ir.OpAcos, ir.OpAtan, ir.OpSinh, ir.OpCosh, ir.OpLog1p, ir.OpExpm1,
		ir.OpFloor, ir.OpCeil, ir.OpTrunc, ir.OpRound:
		return t.unary(in)
	case ir.OpCmp:
		return t.cmp(in)
	case ir.OpSelect:
		return t.sel(in)
	case ir.OpFMA:
		return t.fma(in)
	case ir.OpCast:
		return t.cast(in)
	case ir.OpBitcast:
		return t.bitcast(in)
	case ir.OpPtrToInt:
		return t.ptrToInt(in)
	case ir.OpIntToPtr:
		return t.intToPtr(in)
	case ir.OpAddPtr:
		return t.addptr(in)
	case ir.OpLoad:
		return t.load(in)
	case ir.OpStore:
		return t.store(in)
	case ir.OpAtomicRMW, ir.OpAtomicCAS:
		return t.atomic(in)
	case ir.OpDot:
		return t.dotOp(in)
	case ir.OpReduce:
		return t.reduce(in)
	case ir.OpScan:
		return t.scan(in)
	case ir.OpPrint:
		return t.print(in)
	case ir.OpAssert:
		return t.assert(in)
	case ir.OpAssume:
		return t.assume(in)
	case ir.OpAxisHint:
		return t.axisHint(in)
	case ir.OpFor:
		return t.forOp(in)
	case ir.OpIf:
		return t.ifOp(in)
	case ir.OpWarpSpecialize:
		return t.warpSpecialize(in)
	case ir.OpAlloc:
		return t.alloc(in)
	case ir.OpMemIndex:
		return t.memIndex(in)
	case ir.OpMemTrans:
		return t.memTrans(in)
	case ir.OpMemReshape:
		return t.memReshape(in)
	case ir.OpLocalPtr:
		return t.localPtr(in)
	case ir.OpLocalLoad:
		return t.localLoad(in)
	case ir.OpLocalStore:
		return t.localStore(in)
	case ir.OpBarrierAlloc:
		return t.barrierAlloc(in)
	case ir.OpBarrierIndex:
		return t.barrierIndex(in)
	case ir.OpBarrierArrive, ir.OpBarrierExpect, ir.OpBarrierWait:
		return t.barrierOp(in)
	case ir.OpBarrierPhase:
		return t.barrierPhase(in)
	case ir.OpPipeAlloc:
		return t.pipeAlloc(in)
	case ir.OpPipeAcquire, ir.OpPipeCommit, ir.OpPipeClose, ir.OpPipeWait, ir.OpPipeRelease:
		return t.pipeOp(in)
	case ir.OpSlotField:
		return t.slotField(in)
	case ir.OpSlotClosed:
		h, ok := t.arg(in, 0).ref.(*slotHandle)
		if !ok {
			return t.errAt(op, "slot_closed: operand is not a slot")
		}
		v := t.out(in, 0)
		v.i[0] = 0
		if h.closed {
			v.i[0] = 1
		}
	case ir.OpCopy:
		return t.copyOp(in)
	case ir.OpMakeDesc:
		return t.makeDesc(in)
	case ir.OpWgmma:
		return t.wgmma(in)
	case ir.OpWgmmaWait:
		return t.wgmmaWaited(op.Attrs.Int("pending", 0))
	case ir.OpDeviceMesh:
		t.setRef(in, 0, meshDims(op))
	case ir.OpShardID:
		return t.shardID(in)
	case ir.OpRemote:
		return t.remote(in)
	case ir.OpDistributedBarrier:
		if t.c.l.oneDomain() {
			return t.meshBarrier(op)
		}
		return t.distributedBarrier(op)
	case ir.OpRemotePtr:
		return t.remotePtr(in)
	case ir.OpSignal:
		return t.signal(in)
	case ir.OpSignalWait:
		return t.signalWait(in)
	case ir.OpGridDepWait, ir.OpLaunchDependents:
		// programmatic dependent launch: the interpreter's launches are
		// sequential (a launch returns when every program finished, its
		// writes visible), so the previous kernel has always completed
		// before a wait, and there is no dependent to let start early
	case ir.OpDebugBarrier:
		// a CTA-wide barrier: the program's main thread runs the whole
		// CTA's tile code in order, so everything before the barrier is
		// already done; a role is only some of the CTA's warps, and the
		// others never arrive (the checker rejects this first)
		if t.roleIdx >= 0 {
			return t.errAt(op, "debug_barrier inside role %q: a CTA-wide barrier deadlocks in a warp role", t.role)
		}
	case ir.OpBallot:
		return t.ballot(in)
	case ir.OpPopc:
		return t.popc(in)
	case ir.OpPrefixCount:
		return t.prefixCount(in)
	case ir.OpAsm:
		return t.errAt(op, "asm is GPU-only; the interpreter cannot run it")
	case ir.OpCall:
		return t.errAt(op, "call to %q was not inlined", op.Attrs.String("callee"))
	case ir.OpRole:
		return t.errAt(op, "role outside warp_specialize")
	default:
		return t.errAt(op, "the interpreter does not support %s", k)
	}
	return nil
}

// valueName names a buffer, pipe or barrier in messages: its source
// variable, else its kind and position.
func (t *thread) valueName(s int, kind string) string {
	if n := t.info(s).name; n != "" {
		return n
	}
	return fmt.Sprintf("%s@%s", kind, t.c.l.where(t.cur))
}

func (t *thread) constant(in *instr) error {
	si := t.info(in.res[0])
	var fv float64
	var iv int64
	switch x := in.op.Attrs["value"].(type) {
	case int64:
		fv, iv = float64(x), x
	case int:
		fv, iv = float64(x), int64(x)
	case float64:
		fv, iv = x, floatToInt(si.dt, x)
	case bool:
		if x {
			fv, iv = 1, 1
		}
	default:
		return t.errAt(in.op, "constant with a value of type %T", x)
	}
	if in.lazy && !si.ref {
		// its users stretch it: one element
		if si.float {
			v := val{f: t.pool.getF(1)}
			v.f[0] = roundOne(si.dt, fv)
			t.c.regs[in.res[0]] = v
			return nil
		}
		if !si.ptr {
			iv = wrap(si.dt, iv)
		}
		v := val{i: t.pool.getI(1), facts: factUni}
		v.i[0] = iv
		if iv != 0 {
			v.facts |= factOn
		}
		t.c.regs[in.res[0]] = v
		return nil
	}
	v := t.out(in, 0)
	if v.f != nil {
		fv = roundOne(si.dt, fv)
		for j := range v.f {
			v.f[j] = fv
		}
	} else {
		if !si.ptr {
			iv = wrap(si.dt, iv)
		}
		for j := range v.i {
			v.i[j] = iv
		}
	}
	return nil
}

// ---- control flow

// moveOut passes the values a terminator yields to dst slots: a value owned
// by the block and yielded once is moved; anything else is copied.
func (t *thread) moveOut(b *block, dst []int) {
	if b.term == nil || len(dst) == 0 {
		return
	}
	regs := t.c.regs
	vals := make([]val, len(dst))
	var moved []int
	for k, s := range b.term.args {
		if k >= len(dst) {
			break
		}
		if b.owned[s] && !contains(moved, s) {
			vals[k] = regs[s]
			moved = append(moved, s)
		} else {
			vals[k] = t.clone(regs[s])
		}
	}
	for _, s := range moved {
		regs[s] = val{}
	}
	for k, s := range dst {
		if regs[s].f != nil || regs[s].i != nil {
			t.pool.put(regs[s])
		}
		regs[s] = vals[k]
	}
}

func (t *thread) forOp(in *instr) error {
	op := in.op
	if len(in.regions) != 1 || len(in.args) < 3 {
		return t.errAt(op, "malformed for")
	}
	body := in.regions[0]
	lb, ub, step := t.argInt(in, 0), t.argInt(in, 1), t.argInt(in, 2)
	if step <= 0 {
		return t.errAt(op, "for: step %d must be positive", step)
	}
	inits := in.args[3:]
	if len(body.args) != len(inits)+1 || len(in.res) != len(inits) {
		return t.errAt(op, "for: %d loop-carried values but %d region arguments and %d results", len(inits), len(body.args)-1, len(in.res))
	}
	regs := t.c.regs
	for k, s := range inits {
		regs[body.args[k+1]] = t.clone(regs[s])
	}
	ivSlot := body.args[0]
	ivInfo := t.info(ivSlot)
	stopped := &t.c.l.stopped
	while, hasWhile := op.Attrs["while"].(int64)
	for iv := lb; iv < ub; iv += step {
		// once per iteration, so that a loop whose body has no op (run
		// checks before each one) still stops when the launch does
		if stopped.Load() {
			return errStopped
		}
		if hasWhile {
			// a while loop, or one holding a break: it runs while its
			// flag is true
			if c := regs[body.args[1+while]]; c.i == nil || c.i[0] == 0 {
				break
			}
		}
		v := t.newVal(ivSlot)
		if v.f != nil {
			v.f[0] = float64(iv)
		} else {
			v.i[0] = wrap(ivInfo.dt, iv)
		}
		regs[ivSlot] = v
		if err := t.run(body); err != nil {
			return err
		}
		t.moveOut(body, body.args[1:])
		if regs[ivSlot].f != nil || regs[ivSlot].i != nil {
			t.free(ivSlot)
		}
	}
	for k, s := range in.res {
		regs[s] = regs[body.args[k+1]]
		regs[body.args[k+1]] = val{}
	}
	return nil
}

func (t *thread) ifOp(in *instr) error {
	cond := t.arg(in, 0)
	taken := -1
	if (cond.i != nil && cond.i[0] != 0) || (cond.f != nil && cond.f[0] != 0) {
		taken = 0
	} else if len(in.regions) > 1 {
		taken = 1
	}
	if taken < 0 {
		if len(in.res) > 0 {
			return t.errAt(in.op, "if with results needs an else region")
		}
		return nil
	}
	b := in.regions[taken]
	if err := t.run(b); err != nil {
		return err
	}
	t.moveOut(b, in.res)
	return nil
}

func (t *thread) warpSpecialize(in *instr) error {
	if len(in.regions) != 1 {
		return t.errAt(in.op, "malformed warp_specialize")
	}
	var roles []*instr
	for _, r := range in.regions[0].code {
		if r.op.Kind != ir.OpRole || len(r.regions) != 1 {
			return t.errAt(r.op, "warp_specialize may hold only roles, found %s", r.op.Kind)
		}
		roles = append(roles, r)
	}
	if len(roles) == 0 {
		return nil
	}
	cl := t.c.cl
	ws := &wsState{remaining: len(roles)}
	cl.mu.Lock()
	cl.live += len(roles) - 1
	cl.mu.Unlock()
	errs := make([]error, len(roles))
	rts := make([]*thread, len(roles))
	for k, r := range roles {
		rt := &thread{c: t.c, role: r.op.Attrs.String("name"), roleIdx: k, ws: ws}
		if rt.role == "" {
			rt.role = fmt.Sprint(k)
		}
		if i, n := ir.RoleCopy(r.op); n > 1 {
			rt.copy = fmt.Sprintf(" copy %d", i)
		}
		rt.raceClock(t)
		rts[k] = rt
	}
	var wg sync.WaitGroup
	for k, r := range roles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := rolePools.Get().(*pool)
			rt := rts[k]
			rt.pool = p
			err := rt.runGuarded(r.regions[0])
			t.c.l.fail(err, t.c.linear)
			errs[k] = err
			cl.exit(rt)
			rolePools.Put(p)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return errStopped // recorded by the role already
		}
	}
	for _, rt := range rts {
		t.joined(rt)
	}
	t.vc[t.gid]++
	return nil
}

// ---- clusters

func (t *thread) shardID(in *instr) error {
	op := in.op
	dims, ok := t.arg(in, 0).ref.([3]int)
	if !ok {
		return t.errAt(op, "shard_id: operand is not a mesh")
	}
	axis := -1
	switch a := op.Attrs["axis"].(type) {
	case string:
		switch strings.TrimPrefix(a, "cluster_") {
		case "x", "0":
			axis = 0
		case "y", "1":
			axis = 1
		case "z", "2":
			axis = 2
		}
	case int64:
		axis = int(a)
	case int:
		axis = a
	}
	if axis == 3 || op.Attrs["axis"] == "device" {
		v := t.out(in, 0)
		v.i[0] = int64(t.c.dev)
		return nil
	}
	if axis < 0 || axis > 2 {
		return t.errAt(op, "shard_id: unknown axis %v", op.Attrs["axis"])
	}
	v := t.out(in, 0)
	v.i[0] = int64(t.c.pid[axis] % dims[axis])
	return nil
}

// splat fills a tile with its scalar operand, rounded to the dtype once;
// a lazy splat, whose users all stretch a one-element operand, stays one
// element (factUni).
func (t *thread) splat(in *instr) error {
	op := in.op
	src := t.arg(in, 0)
	if in.lazy && len(src.f)+len(src.i) == 1 {
		// its users stretch it: one element, rounded to the dtype
		si := t.info(in.res[0])
		if si.float {
			v := val{f: t.pool.getF(1)}
			v.f[0] = roundOne(si.dt, asF(src, t.info(in.args[0]))[0])
			t.c.regs[in.res[0]] = v
			return nil
		}
		if src.i == nil {
			return t.errAt(op, "splat of a float into %v", si.dt)
		}
		v := val{i: t.pool.getI(1), facts: factUni}
		v.i[0] = src.i[0]
		if v.i[0] != 0 {
			v.facts |= factOn
		}
		t.c.regs[in.res[0]] = v
		return nil
	}
	v := t.out(in, 0)
	switch {
	case v.f != nil && len(src.f)+len(src.i) == 1:
		// one rounding, then a fill (roundSlice rounds each element
		// as roundOne does)
		x := roundOne(t.info(in.res[0]).dt, asF(src, t.info(in.args[0]))[0])
		for j := range v.f {
			v.f[j] = x
		}
		t.setFacts(in, 0, factUni)
	case v.f != nil:
		copy(v.f, t.bcastF(asF(src, t.info(in.args[0])), len(v.f), 0))
		roundSlice(t.info(in.res[0]).dt, v.f)
	case len(src.i) == 1:
		x := src.i[0]
		for j := range v.i {
			v.i[j] = x
		}
		f := factUni
		if x != 0 {
			f |= factOn
		}
		if len(v.i) == 1 {
			f |= factSeq
		}
		t.setFacts(in, 0, f)
	default:
		copy(v.i, t.bcastI(src.i, len(v.i), 0))
	}
	return nil
}

package interp

import (
	"errors"
	"fmt"

	"github.com/tlego/tle/ir"
)

// Meshes across devices (docs/distributed.md). LaunchDevices runs a
// kernel on n simulated devices in one process: each device runs the whole
// grid on its own arguments. A symmetric allocation (NewSymmetric) is one
// buffer per device, the same allocation on every rank: remote(ptr, rank,
// mesh) maps a pointer into the local part to the same offset in rank's
// part. A kernel with a device mesh (or a launch on more than one device)
// runs every CTA of every device concurrently in one synchronisation
// domain (runDevices), so that device barriers, signals, the deadlock
// check and the race check's vector clocks span the devices.

// Symmetric is a symmetric allocation: one buffer per device rank, all of
// one dtype and length.
type Symmetric struct {
	bufs []*Buffer
}

// NewSymmetric makes a symmetric allocation of the buffers, bufs[r] being
// rank r's part; they must have one dtype and one length and be part of no
// other symmetric allocation.
func NewSymmetric(bufs ...*Buffer) (*Symmetric, error) {
	if len(bufs) == 0 {
		return nil, errors.New("interp: a symmetric allocation needs a buffer per device")
	}
	s := &Symmetric{bufs: bufs}
	for r, b := range bufs {
		switch {
		case b == nil:
			return nil, fmt.Errorf("interp: symmetric allocation: rank %d's buffer is nil", r)
		case b.dtype != bufs[0].dtype || b.Len() != bufs[0].Len():
			return nil, fmt.Errorf("interp: symmetric allocation: rank %d's buffer is %d %v, rank 0's %d %v (every rank's part must be alike)", r, b.Len(), b.dtype, bufs[0].Len(), bufs[0].dtype)
		case b.sym != nil:
			return nil, fmt.Errorf("interp: symmetric allocation: rank %d's buffer is already part of one", r)
		}
	}
	for r, b := range bufs {
		b.sym, b.symRank = s, r
	}
	return s, nil
}

// On is rank r's part of the allocation.
func (s *Symmetric) On(r int) *Buffer { return s.bufs[r] }

// Ranks is the number of parts.
func (s *Symmetric) Ranks() int { return len(s.bufs) }

// LaunchDevices runs kernel on len(args) simulated devices: args[d] is
// device d's argument list, as Launch takes one. A pointer argument is
// either a buffer of that device alone or rank d's part of a symmetric
// allocation (Symmetric.On(d)); scalars may differ per device. A kernel
// whose device_mesh has a device axis must be launched on that many
// devices. Errors name the device and program (device 1 program (0, 0,
// 0)); a race between devices and a deadlock across them are errors as
// within a cluster.
func LaunchDevices(m *ir.Module, kernel string, grid [3]int, args [][]Arg, opts Options) error {
	if len(args) == 0 {
		return fmt.Errorf("interp: launching %s on no devices", kernel)
	}
	return launchOn(m, kernel, grid, args, opts)
}

// maxDomainCTAs bounds the CTAs of all devices run in one domain (their
// vector clocks grow with their number).
const maxDomainCTAs = 4096

// oneDomain reports a launch whose CTAs of all devices share one domain.
func (l *launch) oneDomain() bool { return l.ndev > 1 || l.prog.devices > 0 }

func (l *launch) onDevice(dev int) string {
	if l.ndev > 1 {
		return fmt.Sprintf(" on device %d", dev)
	}
	return ""
}

// bindDevices binds each device's arguments and gives the symmetric
// buffers race shadows.
func (l *launch) bindDevices(devArgs [][]Arg) error {
	l.ndev = len(devArgs)
	if d := l.prog.devices; d > 0 && d != l.ndev {
		return fmt.Errorf("interp: launching %s: its device_mesh has %d devices, the launch %d (LaunchDevices with one argument list per device)", l.kernel, d, l.ndev)
	}
	if l.oneDomain() && l.nprog*l.ndev > maxDomainCTAs {
		return fmt.Errorf("interp: launching %s: %d programs on %d devices: the interpreter runs at most %d programs of all devices at once", l.kernel, l.nprog, l.ndev, maxDomainCTAs)
	}
	if !l.oneDomain() {
		return l.bindArgs(devArgs[0], 0)
	}
	l.symIDs, l.owners, l.symNames = map[*Symmetric][]int{}, map[*Buffer]int{}, map[*Buffer]string{}
	l.dparams = make([][]val, l.ndev)
	for d, args := range devArgs {
		if err := l.bindArgs(args, d); err != nil {
			return err
		}
		l.dparams[d] = l.params
	}
	l.params = l.dparams[0]
	for s, ids := range l.symIDs {
		for r, id := range ids {
			if id == 0 {
				return fmt.Errorf("interp: launching %s: device %d was not given its part of a symmetric allocation the others were", l.kernel, r)
			}
		}
		for _, b := range s.bufs[:l.ndev] {
			b.shadow = newRaceShadow(b.Len())
			l.shadowed = append(l.shadowed, b)
		}
	}
	return nil
}

// ownBuffer checks that buffer b, an argument of device dev, is that
// device's: its own or its part of a symmetric allocation.
func (l *launch) ownBuffer(b *Buffer, dev int) error {
	if l.owners == nil {
		return nil
	}
	if b.sym != nil {
		if b.symRank != dev {
			return fmt.Errorf("rank %d's part of a symmetric allocation given to device %d (give each device its own part, Symmetric.On(d))", b.symRank, dev)
		}
		if b.sym.Ranks() < l.ndev {
			return fmt.Errorf("a symmetric allocation of %d ranks on %d devices", b.sym.Ranks(), l.ndev)
		}
		return nil
	}
	if o, ok := l.owners[b]; ok && o != dev {
		return fmt.Errorf("the buffer is device %d's argument too; each device needs its own buffer (or a symmetric allocation, interp.NewSymmetric)", o)
	}
	l.owners[b] = dev
	return nil
}

// noteSym records the region id of a symmetric buffer's part.
func (l *launch) noteSym(b *Buffer, id int, name string) {
	if b.sym == nil || l.symIDs == nil {
		return
	}
	l.symNames[b] = name
	ids := l.symIDs[b.sym]
	if ids == nil {
		ids = make([]int, l.ndev)
		l.symIDs[b.sym] = ids
	}
	if ids[b.symRank] == 0 {
		ids[b.symRank] = id
	}
}

// unshadow drops the race shadows bindDevices gave symmetric buffers.
func (l *launch) unshadow() {
	for _, b := range l.shadowed {
		b.shadow = nil
	}
}

// runDevices runs every CTA of every device as goroutines of one domain.
func (l *launch) runDevices(wk *worker) {
	cl := newCluster(l, l.ndev*l.nprog)
	cl.dbs, cl.flags = map[[3]int]*dbState{}, map[flagKey]vclock{}
	for d := range l.ndev {
		for c := range l.nprog / l.csize {
			k := (d*(l.nprog/l.csize) + c) * l.csize
			l.clusterCTAs(cl, cl.ctas[k:k+l.csize], c, d)
		}
	}
	defer l.track(cl)(func(int) int { return l.nprog })
	l.runAll(wk, cl)
}

// meshBarrier is distributed_barrier in a domain of devices: the CTAs it
// synchronises are, by the op's axis and group (devices split into groups
// of consecutive ranks), the CTA cluster on its device (a mesh without a
// device axis, or axis "cluster"), the programs of the same id on the
// group's devices (axis "device"), or the CTA cluster on the group's
// devices (neither).
func (t *thread) meshBarrier(op *ir.Op) error {
	c, l := t.c.cl, t.c.l
	m, _ := op.Operands[0].Type.(*ir.Mesh)
	axis, _ := op.Attrs["axis"].(string)
	g := l.ndev
	if n, ok := op.Attrs["group"].(int64); ok && n > 0 {
		g = int(n)
	}
	var key [3]int
	var size int
	switch grp := t.c.dev / g; {
	case m == nil || m.Devices == 0 || axis == "cluster":
		key, size = [3]int{0, t.c.dev, t.c.ci}, l.csize
	case axis == "device":
		key, size = [3]int{1, grp, t.c.linear}, g
	default:
		key, size = [3]int{2, grp, t.c.ci}, g*l.csize
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.dbs[key]
	if b == nil {
		b = &dbState{size: size}
		c.dbs[key] = b
	}
	return t.barrierArrival(op, b)
}

// remotePtr maps the pointers of operand 0 (into a symmetric allocation)
// to the same offsets in device rank's part.
func (t *thread) remotePtr(in *instr) error {
	l := t.c.l
	p := t.arg(in, 0)
	rank := t.argInt(in, 1)
	if rank < 0 || rank >= int64(l.ndev) {
		return t.errAt(in.op, "remote: rank %d is outside the %d devices", rank, l.ndev)
	}
	n := t.info(in.res[0]).n
	lazy := p.facts&factLazy != 0 && len(p.i) == 1
	var src []int64
	if !lazy {
		src = t.bcastI(p.i, n, 0)[:n]
	}
	v := t.out(in, 0)
	lastID, peerID := -1, 0
	for k := range n {
		ptr := int64(0)
		if lazy {
			ptr = p.i[0] + int64(k)
		} else {
			ptr = src[k]
		}
		id, off := unpack(ptr)
		if id != lastID {
			rg := l.reg.get(id)
			if rg == nil {
				return t.errAt(in.op, "remote of an invalid pointer (lane %d)", k)
			}
			if rg.sym == nil || l.symIDs == nil {
				return t.errAt(in.op, "remote: %s is not a symmetric allocation (lane %d): only a symmetric allocation (interp.NewSymmetric, the symmetric names of Kernel.RunDevices, tlec run --symmetric) has a part on every device", rg.name, k)
			}
			lastID, peerID = id, l.symIDs[rg.sym][rank]
		}
		v.i[k] = pack(peerID, off)
	}
	if lazy || p.facts&factSeq != 0 {
		t.setFacts(in, 0, factSeq)
	}
	return nil
}

// flagKey is one flag: an element of a buffer.
type flagKey struct {
	buf *Buffer
	off int
}

// flagAt resolves the scalar flag pointer operand k: its region and
// element, checked in bounds.
func (t *thread) flagAt(in *instr, k int) (*region, int, error) {
	ptr := t.arg(in, k).i[0]
	id, off := unpack(ptr)
	rg := t.c.l.reg.get(id)
	if rg == nil {
		return nil, 0, t.errAt(in.op, "%s: an invalid flag pointer", in.op.Kind)
	}
	if off < int64(rg.lo) || off >= int64(rg.hi) {
		return nil, 0, t.errAt(in.op, "%s: out-of-bounds flag: index %d is outside [0, %d) of %s", in.op.Kind, off-int64(rg.lo), rg.hi-rg.lo, rg.name)
	}
	return rg, int(off), nil
}

// signal sets or adds to the flag on device rank, a release at system
// scope: what the signalling goroutine did before happens before what a
// signal_wait that sees the flag does after.
func (t *thread) signal(in *instr) error {
	op, l := in.op, t.c.l
	rg, off, err := t.flagAt(in, 0)
	if err != nil {
		return err
	}
	rank := t.argInt(in, 1)
	if rank < 0 || rank >= int64(l.ndev) {
		return t.errAt(op, "signal: rank %d is outside the %d devices", rank, l.ndev)
	}
	if rg.sym == nil || l.symIDs == nil {
		return t.errAt(op, "signal: the flag is in %s, not a symmetric allocation (interp.NewSymmetric, the symmetric names of Kernel.RunDevices, tlec run --symmetric)", rg.name)
	}
	peer := l.reg.get(l.symIDs[rg.sym][rank])
	x := t.argInt(in, 3)
	c := t.c.cl
	c.mu.Lock()
	defer c.mu.Unlock()
	// flags are read and written under the domain's lock (c.mu), never
	// the buffer's: the race check takes c.mu with a buffer's lock held
	b := peer.buf
	if op.Attrs.String("op") == "add" {
		x += b.getI(off)
	}
	b.setI(off, b.dtype.WrapInt(x))
	key := flagKey{b, off}
	// an add continues the chain of the flag's earlier writes (a wait that
	// reads it acquires every adder, as atomic read-modify-writes do on the
	// GPU); a set replaces it: a wait that reads it acquires this signaller
	// alone, as a st.release does
	var vc vclock
	if op.Attrs.String("op") == "add" {
		vc = c.flags[key]
	}
	t.release(&vc)
	c.flags[key] = vc
	c.cond.Broadcast()
	return nil
}

// signalWait blocks until the local flag compares true to the value, an
// acquire at system scope of the signals that wrote it.
func (t *thread) signalWait(in *instr) error {
	op := in.op
	rg, off, err := t.flagAt(in, 0)
	if err != nil {
		return err
	}
	want := t.argInt(in, 1)
	cmp := op.Attrs.String("cmp")
	b := rg.buf
	read := func() int64 { return b.getI(off) } // under c.mu, as signal writes
	ready := func() bool { return compareFlag(read(), want, cmp) }
	c := t.c.cl
	c.mu.Lock()
	defer c.mu.Unlock()
	err = c.block(t, op, ready, func() string {
		return fmt.Sprintf("signal_wait: flag %s[%d] is %d, waiting until it is %s %d", rg.name, off, read(), cmp, want)
	})
	if err == nil {
		t.acquire(c.flags[flagKey{b, off}])
	}
	return err
}

func compareFlag(x, y int64, cmp string) bool {
	switch cmp {
	case "eq":
		return x == y
	case "ne":
		return x != y
	case "gt":
		return x > y
	case "le":
		return x <= y
	case "lt":
		return x < y
	}
	return x >= y
}

package nccl

import (
	"fmt"
	"runtime"
	"unsafe"
)

// UniqueID is an ncclUniqueId: made by one rank (ncclGetUniqueId) and
// shared with the others before they make their communicators.
type UniqueID [128]byte

// UniqueID is ncclGetUniqueId.
func (l *Library) UniqueID() (UniqueID, error) {
	var id UniqueID
	err := l.check("ncclGetUniqueId", call(l.ncclGetUniqueId, uintptr(unsafe.Pointer(&id))), 0)
	return id, err
}

// DataType is an ncclDataType_t.
type DataType int32

const (
	Int8     DataType = 0
	Uint8    DataType = 1
	Int32    DataType = 2
	Uint32   DataType = 3
	Int64    DataType = 4
	Uint64   DataType = 5
	Float16  DataType = 6
	Float32  DataType = 7
	Float64  DataType = 8
	BFloat16 DataType = 9
)

// Size is the element's size in bytes.
func (t DataType) Size() int {
	switch t {
	case Int8, Uint8:
		return 1
	case Float16, BFloat16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64:
		return 8
	}
	return 0
}

// RedOp is an ncclRedOp_t.
type RedOp int32

const (
	Sum  RedOp = 0
	Prod RedOp = 1
	Max  RedOp = 2
	Min  RedOp = 3
	Avg  RedOp = 4
)

// Comm is one rank's communicator.
type Comm struct {
	lib        *Library
	h          uintptr
	Rank, Size int
	Device     Device
}

// Library is the NCCL the communicator belongs to.
func (c *Comm) Library() *Library { return c.lib }

// InitRank makes rank's communicator of a clique of world ranks sharing
// id (ncclCommInitRankScalable with one id, default config), with dev's
// context current: NCCL takes the calling thread's device. It waits for
// every rank to join, as NCCL does.
func (l *Library) InitRank(id UniqueID, world, rank int, dev Device) (*Comm, error) {
	switch {
	case world < 1:
		return nil, fmt.Errorf("nccl: world size %d: want at least 1", world)
	case rank < 0 || rank >= world:
		return nil, fmt.Errorf("nccl: rank %d out of range for a world of %d", rank, world)
	case dev == nil:
		return nil, fmt.Errorf("nccl: rank %d: no device", rank)
	}
	if err := keepNVLSOff(); err != nil {
		return nil, err
	}
	processDevices.Store(dev.Ordinal(), dev)
	c := &Comm{lib: l, Rank: rank, Size: world, Device: dev}
	err := dev.Do(func() error {
		return l.check("ncclCommInitRankScalable", call(l.ncclCommInitRankScalable,
			uintptr(unsafe.Pointer(&c.h)), uintptr(world), uintptr(rank), 1, uintptr(unsafe.Pointer(&id)), 0), 0)
	})
	if err != nil {
		return nil, fmt.Errorf("rank %d of %d on device %d: %w", rank, world, dev.Ordinal(), err)
	}
	return c, c.checkIdentity()
}

// InitAll makes one communicator per device, rank i on devs[i], in this
// process (ncclCommInitAll with the devices' ordinals).
func (l *Library) InitAll(devs []Device) ([]*Comm, error) {
	if len(devs) == 0 {
		return nil, fmt.Errorf("nccl: InitAll of no devices")
	}
	ords := make([]int32, len(devs))
	seen := map[int]int{}
	for i, d := range devs {
		if d == nil {
			return nil, fmt.Errorf("nccl: InitAll: device %d is nil", i)
		}
		if j, ok := seen[d.Ordinal()]; ok {
			return nil, fmt.Errorf("nccl: InitAll: ranks %d and %d are both device %d (one rank per GPU)", j, i, d.Ordinal())
		}
		seen[d.Ordinal()] = i
		processDevices.Store(d.Ordinal(), d)
		ords[i] = int32(d.Ordinal())
	}
	if err := keepNVLSOff(); err != nil {
		return nil, err
	}
	hs := make([]uintptr, len(devs))
	if err := l.check("ncclCommInitAll", call(l.ncclCommInitAll, uintptr(unsafe.Pointer(&hs[0])), uintptr(len(devs)), uintptr(unsafe.Pointer(&ords[0]))), 0); err != nil {
		return nil, fmt.Errorf("%d devices %v: %w", len(devs), ords, err)
	}
	keep(ords)
	cs := make([]*Comm, len(devs))
	for i := range devs {
		cs[i] = &Comm{lib: l, h: hs[i], Rank: i, Size: len(devs), Device: devs[i]}
		if err := cs[i].checkIdentity(); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// checkIdentity compares NCCL's rank and size with the ones asked for.
func (c *Comm) checkIdentity() error {
	var n, r int32
	if err := c.lib.check("ncclCommCount", call(c.lib.ncclCommCount, c.h, uintptr(unsafe.Pointer(&n))), c.h); err != nil {
		return err
	}
	if err := c.lib.check("ncclCommUserRank", call(c.lib.ncclCommUserRank, c.h, uintptr(unsafe.Pointer(&r))), c.h); err != nil {
		return err
	}
	if int(n) != c.Size || int(r) != c.Rank {
		return fmt.Errorf("nccl: the communicator is rank %d of %d, rank %d of %d was asked for", r, n, c.Rank, c.Size)
	}
	return nil
}

// Destroy is ncclCommDestroy.
func (c *Comm) Destroy() error {
	if c == nil || c.h == 0 {
		return nil
	}
	h := c.h
	c.h = 0
	return c.Device.Do(func() error { return c.lib.check("ncclCommDestroy", call(c.lib.ncclCommDestroy, h), 0) })
}

// AsyncError is ncclCommGetAsyncError: nil while the communicator is
// healthy, the error a collective met otherwise (a peer gone).
func (c *Comm) AsyncError() error {
	if c.h == 0 {
		return fmt.Errorf("nccl: rank %d's communicator is destroyed", c.Rank)
	}
	var r int32
	if err := c.lib.check("ncclCommGetAsyncError", call(c.lib.ncclCommGetAsyncError, c.h, uintptr(unsafe.Pointer(&r))), c.h); err != nil {
		return err
	}
	if r != 0 && Result(r) != 7 { // ncclInProgress is not an error
		return fmt.Errorf("rank %d: %w", c.Rank, c.lib.check("ncclCommGetAsyncError", uintptr(uint32(r)), c.h))
	}
	return nil
}

func (c *Comm) live(what string) error {
	if c == nil || c.h == 0 {
		return fmt.Errorf("nccl: %s on a destroyed communicator", what)
	}
	return nil
}

// AllReduce is ncclAllReduce of count elements from send into recv
// (device addresses), enqueued on stream (0: the legacy default stream).
func (c *Comm) AllReduce(send, recv uint64, count int, t DataType, op RedOp, stream uintptr) error {
	if err := c.live("AllReduce"); err != nil {
		return err
	}
	return c.Device.Do(func() error {
		return c.lib.check("ncclAllReduce", call(c.lib.ncclAllReduce, uintptr(send), uintptr(recv), uintptr(count), uintptr(t), uintptr(op), c.h, stream), c.h)
	})
}

// AllGather is ncclAllGather: sendcount elements from every rank, in rank
// order, into recv (sendcount*Size elements).
func (c *Comm) AllGather(send, recv uint64, sendcount int, t DataType, stream uintptr) error {
	if err := c.live("AllGather"); err != nil {
		return err
	}
	return c.Device.Do(func() error {
		return c.lib.check("ncclAllGather", call(c.lib.ncclAllGather, uintptr(send), uintptr(recv), uintptr(sendcount), uintptr(t), c.h, stream), c.h)
	})
}

// ReduceScatter is ncclReduceScatter: send has recvcount*Size elements;
// rank r gets the reduction of block r.
func (c *Comm) ReduceScatter(send, recv uint64, recvcount int, t DataType, op RedOp, stream uintptr) error {
	if err := c.live("ReduceScatter"); err != nil {
		return err
	}
	return c.Device.Do(func() error {
		return c.lib.check("ncclReduceScatter", call(c.lib.ncclReduceScatter, uintptr(send), uintptr(recv), uintptr(recvcount), uintptr(t), uintptr(op), c.h, stream), c.h)
	})
}

// Group runs fn between ncclGroupStart and ncclGroupEnd on one OS thread
// (NCCL's group state is the thread's): a thread driving several ranks
// issues their calls inside one group.
func (l *Library) Group(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := l.check("ncclGroupStart", call(l.ncclGroupStart), 0); err != nil {
		return err
	}
	ferr := fn()
	if err := l.check("ncclGroupEnd", call(l.ncclGroupEnd), 0); err != nil && ferr == nil {
		ferr = err
	}
	return ferr
}

// AllGatherBytes gathers b (the same length on every rank) from every
// rank through the communicator, in rank order, and waits for it: the
// host-side exchange the heap and the launch check use.
func (c *Comm) AllGatherBytes(b []byte) ([][]byte, error) {
	if err := c.live("AllGatherBytes"); err != nil {
		return nil, err
	}
	n := len(b)
	if n == 0 {
		return nil, fmt.Errorf("nccl: AllGatherBytes of nothing")
	}
	d := c.Device
	buf, err := d.Alloc(n * (c.Size + 1))
	if err != nil {
		return nil, err
	}
	defer d.Free(buf)
	recv := buf + uint64(n)
	if err := d.CopyHtoD(buf, b); err != nil {
		return nil, err
	}
	if err := c.AllGather(buf, recv, n, Uint8, 0); err != nil {
		return nil, fmt.Errorf("rank %d: %w", c.Rank, err)
	}
	if err := d.Synchronize(); err != nil {
		return nil, err
	}
	all := make([]byte, n*c.Size)
	if err := d.CopyDtoH(all, recv); err != nil {
		return nil, err
	}
	out := make([][]byte, c.Size)
	for r := range out {
		out[r] = all[r*n : (r+1)*n]
	}
	return out, nil
}

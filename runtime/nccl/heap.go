package nccl

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"unsafe"
)

// winCollSymmetric is NCCL_WIN_COLL_SYMMETRIC (nccl.h, 2.27);
// winAlign is NCCL_WIN_REQUIRED_ALIGNMENT.
const (
	winCollSymmetric = 0x01
	winAlign         = 4096
)

// HeapAlign is the alignment of the heap's parts: the sync area's size is
// rounded up to it, and every buffer starts at a multiple of it.
const HeapAlign = 256

func roundUp(n, a int) int { return (n + a - 1) / a * a }

// Heap is one rank's part of the symmetric heap of a communicator: the
// same size and layout on every rank. The device-barrier area ("sync",
// zeroed once here and never again) is at offset 0; buffers follow, each
// at the same offset on every rank when every rank allocates the same
// sizes in the same order. A kernel of a device mesh reaches rank r's
// copy of a pointer p into the heap at p + Bases[r] - Bases[Rank].
type Heap struct {
	Comm      *Comm
	Mode      HeapMode
	Size      int      // bytes of each rank's part
	SyncBytes int      // the sync area at offset 0, a multiple of HeapAlign
	Base      uint64   // this rank's part, as its kernels address it
	Bases     []uint64 // every rank's part as this rank addresses it, in rank order; Bases[Rank] == Base
	BasesDev  uint64   // Bases on this rank's device: the kernels' heap_bases

	next   int     // the bump allocator's offset
	win    uintptr // PeerPointers: the window
	opened []uint64
}

// heapHeader is what every rank says of its heap before it is shared.
type heapHeader struct {
	size, sync  int
	mode        HeapMode
	pid         int
	host        uint64
	ordinal     int
	base        uint64
	version     Version
	ipc         [64]byte
	hasIPC      bool
	rank, world int
}

const heapHeaderBytes = 192

func (h heapHeader) encode() []byte {
	b := make([]byte, heapHeaderBytes)
	le := binary.LittleEndian
	for i, v := range []uint64{0x544c4548454150, uint64(h.size), uint64(h.sync), uint64(h.mode), uint64(h.pid), h.host,
		uint64(h.ordinal), h.base, uint64(h.version.Major*10000 + h.version.Minor*100 + h.version.Patch), b2u(h.hasIPC),
		uint64(h.rank), uint64(h.world)} {
		le.PutUint64(b[8*i:], v)
	}
	copy(b[128:], h.ipc[:])
	return b
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func decodeHeapHeader(b []byte) (heapHeader, bool) {
	le := binary.LittleEndian
	u := func(i int) uint64 { return le.Uint64(b[8*i:]) }
	if len(b) != heapHeaderBytes || u(0) != 0x544c4548454150 {
		return heapHeader{}, false
	}
	h := heapHeader{size: int(u(1)), sync: int(u(2)), mode: HeapMode(u(3)), pid: int(u(4)), host: u(5),
		ordinal: int(u(6)), base: u(7), version: DecodeVersion(int(u(8))), hasIPC: u(9) == 1, rank: int(u(10)), world: int(u(11))}
	copy(h.ipc[:], b[128:])
	return h, true
}

// heapPID is the process a rank runs in (a test makes every rank its own).
var heapPID = func(*Comm) int { return os.Getpid() }

func hostID() uint64 {
	name, _ := os.Hostname()
	f := fnv.New64a()
	f.Write([]byte(name))
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		f.Write(b)
	}
	return f.Sum64()
}

// NewHeap makes the communicator's symmetric heap: every rank calls it
// with the same sizes (checked: ranks that disagree get an error naming
// both). size is the bytes for buffers; syncBytes the device-barrier
// area, rounded up to HeapAlign. The heap's memory and peer addresses
// come from the library's HeapMode: NCCL's allocator, a symmetric window
// and ncclGetPeerDevicePointer (2.29+), or cuMemAlloc with the driver's
// peer access (ranks of one process) or IPC handles (other processes of
// the host). A peer this rank cannot load from and store to is an error.
func NewHeap(c *Comm, size, syncBytes int) (*Heap, error) {
	if err := c.live("NewHeap"); err != nil {
		return nil, err
	}
	if size < 0 || syncBytes < 0 {
		return nil, fmt.Errorf("nccl: NewHeap(size %d, syncBytes %d): sizes must not be negative", size, syncBytes)
	}
	h := &Heap{Comm: c, Mode: c.lib.Heap, SyncBytes: roundUp(syncBytes, HeapAlign)}
	// whole pages: NCCL registers windows at NCCL_WIN_REQUIRED_ALIGNMENT
	// (4096) and maps memory by pages
	h.Size = roundUp(h.SyncBytes+roundUp(max(size, 1), HeapAlign), winAlign)
	h.next = h.SyncBytes
	dev := c.Device
	var err error
	if h.Base, err = h.alloc(); err != nil {
		return nil, fmt.Errorf("rank %d: the symmetric heap (%d bytes): %w", c.Rank, h.Size, err)
	}
	ok := false
	defer func() {
		if !ok {
			h.Close()
		}
	}()
	me := heapHeader{size: h.Size, sync: h.SyncBytes, mode: h.Mode, pid: heapPID(c), host: hostID(),
		ordinal: dev.Ordinal(), base: h.Base, version: c.lib.Version, rank: c.Rank, world: c.Size}
	if h.Mode == DriverPeers {
		if ipc, err := dev.IPCHandle(h.Base); err == nil {
			me.ipc, me.hasIPC = ipc, true
		}
	}
	raw, err := c.AllGatherBytes(me.encode())
	if err != nil {
		return nil, fmt.Errorf("rank %d: sharing the heap: %w", c.Rank, err)
	}
	peers := make([]heapHeader, c.Size)
	for r, b := range raw {
		p, good := decodeHeapHeader(b)
		if !good || p.rank != r || p.world != c.Size {
			return nil, fmt.Errorf("nccl: rank %d: rank %d's heap header is garbled (the all-gather moved the wrong bytes)", c.Rank, r)
		}
		peers[r] = p
	}
	if err := checkHeaders(peers); err != nil {
		return nil, err
	}
	h.Bases = make([]uint64, c.Size)
	h.Bases[c.Rank] = h.Base
	switch h.Mode {
	case PeerPointers:
		err = h.peerPointers()
	default:
		err = h.driverPeers(peers)
	}
	// Every rank learns whether every other reached its peers, so that
	// none waits in a later collective for a rank that gave up.
	status := make([]byte, 8)
	if err != nil {
		status[0] = 1
	}
	all, xerr := c.AllGatherBytes(status)
	if err != nil {
		return nil, err
	}
	if xerr != nil {
		return nil, fmt.Errorf("rank %d: sharing whether the peers are reachable: %w", c.Rank, xerr)
	}
	for r, st := range all {
		if st[0] != 0 {
			return nil, fmt.Errorf("nccl: rank %d could not map every peer's heap (its error says why)", r)
		}
	}
	if err := dev.Zero(h.Base, h.SyncBytes); err != nil {
		return nil, fmt.Errorf("rank %d: zeroing the sync area: %w", c.Rank, err)
	}
	if h.BasesDev, err = dev.Alloc(8 * c.Size); err != nil {
		return nil, err
	}
	tab := make([]byte, 8*c.Size)
	for r, b := range h.Bases {
		binary.LittleEndian.PutUint64(tab[8*r:], b)
	}
	if err := dev.CopyHtoD(h.BasesDev, tab); err != nil {
		return nil, err
	}
	if err := dev.Synchronize(); err != nil {
		return nil, err
	}
	// Every rank's sync area is zero before any rank launches.
	if _, err := c.AllGatherBytes([]byte("heap-ok!")); err != nil {
		return nil, fmt.Errorf("rank %d: the heap's closing barrier: %w", c.Rank, err)
	}
	ok = true
	return h, nil
}

// checkHeaders compares every rank's heap with rank 0's.
func checkHeaders(peers []heapHeader) error {
	for r, p := range peers {
		if p.size != peers[0].size || p.sync != peers[0].sync {
			return fmt.Errorf("nccl: the ranks disagree on the symmetric heap: rank 0 asks for %d bytes (sync area %d), rank %d for %d (sync area %d)",
				peers[0].size, peers[0].sync, r, p.size, p.sync)
		}
		if p.mode != peers[0].mode {
			return fmt.Errorf("nccl: the ranks disagree on the heap's mode: rank 0 has NCCL %s (%s), rank %d NCCL %s (%s); use one NCCL on every rank",
				peers[0].version, peers[0].mode, r, p.version, p.mode)
		}
	}
	return nil
}

func (h *Heap) alloc() (uint64, error) {
	c := h.Comm
	if h.Mode != PeerPointers {
		return c.Device.Alloc(h.Size)
	}
	var p uint64
	err := c.Device.Do(func() error {
		return c.lib.check("ncclMemAlloc", call(c.lib.ncclMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(h.Size)), c.h)
	})
	return p, err
}

// peerPointers registers the heap as a symmetric window and asks NCCL for
// every peer's address of it.
func (h *Heap) peerPointers() error {
	c := h.Comm
	l := c.lib
	err := c.Device.Do(func() error {
		return l.check("ncclCommWindowRegister", call(l.ncclCommWindowRegister, c.h, uintptr(h.Base), uintptr(h.Size),
			uintptr(unsafe.Pointer(&h.win)), winCollSymmetric), c.h)
	})
	if err != nil {
		return fmt.Errorf("rank %d: registering the heap as a symmetric window: %w", c.Rank, err)
	}
	for r := range h.Bases {
		if r == c.Rank {
			continue // the rank's own address of its part: where its buffers are
		}
		var p uint64
		if err := l.check("ncclGetPeerDevicePointer", call(l.ncclGetPeerDevicePointer, h.win, 0, uintptr(r), uintptr(unsafe.Pointer(&p))), c.h); err != nil {
			return fmt.Errorf("rank %d: rank %d's part of the heap: %w", c.Rank, r, err)
		}
		if p == 0 {
			return fmt.Errorf("nccl: rank %d cannot load from or store to rank %d's memory (NCCL puts it outside this GPU's NVLink domain); a device mesh needs every GPU reachable by load/store", c.Rank, r)
		}
		h.Bases[r] = p
	}
	return nil
}

// driverPeers maps every peer's part: by address with peer access for a
// rank of this process, through its IPC handle for another process.
func (h *Heap) driverPeers(peers []heapHeader) error {
	c := h.Comm
	dev := c.Device
	me := peers[c.Rank]
	for r, p := range peers {
		if r == c.Rank {
			continue
		}
		if p.host != me.host {
			return fmt.Errorf("nccl: rank %d runs on another host than rank %d; a device mesh needs the GPUs of one host (one NVLink domain)", r, c.Rank)
		}
		ok, err := dev.CanAccessPeer(p.ordinal)
		if err != nil {
			return fmt.Errorf("rank %d: can device %d reach device %d: %w", c.Rank, dev.Ordinal(), p.ordinal, err)
		}
		if !ok {
			return fmt.Errorf("nccl: rank %d's device %d cannot access rank %d's device %d (no peer-to-peer path: cuDeviceCanAccessPeer is 0)", c.Rank, dev.Ordinal(), r, p.ordinal)
		}
		if p.pid == me.pid {
			pd, found := processDevices.Load(p.ordinal)
			if !found {
				return fmt.Errorf("nccl: rank %d's device %d is in this process but has no communicator here", r, p.ordinal)
			}
			if err := dev.EnablePeerAccess(pd.(Device)); err != nil {
				return fmt.Errorf("rank %d: peer access to rank %d: %w", c.Rank, r, err)
			}
			h.Bases[r] = p.base
			continue
		}
		if !p.hasIPC {
			return fmt.Errorf("nccl: rank %d's heap has no IPC handle (the driver lacks cuIpcGetMemHandle)", r)
		}
		q, err := dev.OpenIPCHandle(p.ipc)
		if err != nil {
			return fmt.Errorf("rank %d: mapping rank %d's heap (IPC handle): %w", c.Rank, r, err)
		}
		h.opened = append(h.opened, q)
		h.Bases[r] = q
	}
	return nil
}

// Buffer is a part of the heap: the same offset on every rank.
type Buffer struct {
	Offset, Bytes int
	Ptr           uint64 // this rank's address
}

// Alloc takes n bytes of the heap (at a multiple of HeapAlign). Every rank
// must make the same allocations in the same order: the launch check
// compares them.
func (h *Heap) Alloc(n int) (Buffer, error) {
	if n <= 0 {
		return Buffer{}, fmt.Errorf("nccl: heap Alloc(%d): want a positive size", n)
	}
	if h.next+n > h.Size {
		return Buffer{}, fmt.Errorf("nccl: rank %d: the symmetric heap (%d bytes, %d after the sync area) has %d bytes left, %d asked", h.Comm.Rank, h.Size, h.Size-h.SyncBytes, h.Size-h.next, n)
	}
	b := Buffer{Offset: h.next, Bytes: n, Ptr: h.Base + uint64(h.next)}
	h.next = roundUp(h.next+n, HeapAlign)
	return b, nil
}

// Sync is the device-barrier area's address on this rank (offset 0).
func (h *Heap) Sync() uint64 { return h.Base }

// Contains says whether [p, p+n) lies in this rank's part of the heap.
func (h *Heap) Contains(p uint64, n int) bool {
	return p >= h.Base+uint64(h.SyncBytes) && p+uint64(n) <= h.Base+uint64(h.Size)
}

// Close releases the heap: the window, the mapped peers, the memory.
func (h *Heap) Close() error {
	if h == nil || h.Base == 0 {
		return nil
	}
	c := h.Comm
	dev := c.Device
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, q := range h.opened {
		keep(dev.CloseIPCHandle(q))
	}
	h.opened = nil
	if h.BasesDev != 0 {
		keep(dev.Free(h.BasesDev))
		h.BasesDev = 0
	}
	if h.Mode == PeerPointers {
		if h.win != 0 && c.h != 0 {
			keep(dev.Do(func() error {
				return c.lib.check("ncclCommWindowDeregister", call(c.lib.ncclCommWindowDeregister, c.h, h.win), c.h)
			}))
		}
		h.win = 0
		keep(dev.Do(func() error { return c.lib.check("ncclMemFree", call(c.lib.ncclMemFree, uintptr(h.Base)), 0) }))
	} else {
		keep(dev.Free(h.Base))
	}
	h.Base = 0
	return first
}

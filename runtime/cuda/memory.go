package cuda

import (
	"fmt"
	"unsafe"
)

// DevicePtr is a CUdeviceptr.
type DevicePtr uint64

// Alloc is cuMemAlloc: n bytes of device memory (256-byte aligned).
func (c *Context) Alloc(n int) (DevicePtr, error) {
	if n <= 0 {
		return 0, fmt.Errorf("cuda: Alloc of %d bytes", n)
	}
	var p DevicePtr
	if err := c.do("cuMemAlloc_v2", c.d.cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(n)); err != nil {
		return 0, err
	}
	return p, nil
}

// Free is cuMemFree. Freeing 0 does nothing.
func (c *Context) Free(p DevicePtr) error {
	if p == 0 {
		return nil
	}
	return c.do("cuMemFree_v2", c.d.cuMemFree, uintptr(p))
}

// MemGetInfo is cuMemGetInfo: free and total device memory in bytes.
func (c *Context) MemGetInfo() (free, total uint64, err error) {
	err = c.do("cuMemGetInfo_v2", c.d.cuMemGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total)))
	return
}

// HostBuffer is page-locked host memory from cuMemAllocHost: it is not Go
// memory, so it may be handed to asynchronous copies freely.
type HostBuffer struct {
	c     *Context
	Bytes []byte
}

// AllocHost is cuMemAllocHost.
func (c *Context) AllocHost(n int) (*HostBuffer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("cuda: AllocHost of %d bytes", n)
	}
	var p uintptr
	if err := c.do("cuMemAllocHost_v2", c.d.cuMemAllocHost, uintptr(unsafe.Pointer(&p)), uintptr(n)); err != nil {
		return nil, err
	}
	return &HostBuffer{c: c, Bytes: unsafe.Slice((*byte)(uptr(p)), n)}, nil
}

// Free is cuMemFreeHost.
func (h *HostBuffer) Free() error {
	if h.Bytes == nil {
		return nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(h.Bytes)))
	h.Bytes = nil
	return h.c.do("cuMemFreeHost", h.c.d.cuMemFreeHost, p)
}

// stream handle of s (nil: the legacy default stream, 0).
func (s *Stream) handle() uintptr {
	if s == nil {
		return 0
	}
	return s.h
}

// CopyHtoD is cuMemcpyHtoD of len(src) bytes.
func (c *Context) CopyHtoD(dst DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	err := c.do("cuMemcpyHtoD_v2", c.d.cuMemcpyHtoD, uintptr(dst), uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)))
	keep(src)
	return err
}

// CopyDtoH is cuMemcpyDtoH of len(dst) bytes.
func (c *Context) CopyDtoH(dst []byte, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	err := c.do("cuMemcpyDtoH_v2", c.d.cuMemcpyDtoH, uintptr(unsafe.Pointer(&dst[0])), uintptr(src), uintptr(len(dst)))
	keep(dst)
	return err
}

// CopyDtoD is cuMemcpyDtoD of n bytes.
func (c *Context) CopyDtoD(dst, src DevicePtr, n int) error {
	if n == 0 {
		return nil
	}
	return c.do("cuMemcpyDtoD_v2", c.d.cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(n))
}

// CopyHtoDAsync is cuMemcpyHtoDAsync. With pageable (Go) memory the driver
// has staged src by the time it returns, so src may be reused at once; use a
// HostBuffer for copies that really overlap.
func (c *Context) CopyHtoDAsync(dst DevicePtr, src []byte, s *Stream) error {
	if len(src) == 0 {
		return nil
	}
	err := c.do("cuMemcpyHtoDAsync_v2", c.d.cuMemcpyHtoDAsync, uintptr(dst), uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)), s.handle())
	keep(src)
	return err
}

// CopyDtoHAsync is cuMemcpyDtoHAsync. Into pageable (Go) memory the driver
// returns only once the copy is complete; into a HostBuffer it is
// asynchronous, and dst must stay untouched until the stream is synchronised.
func (c *Context) CopyDtoHAsync(dst []byte, src DevicePtr, s *Stream) error {
	if len(dst) == 0 {
		return nil
	}
	err := c.do("cuMemcpyDtoHAsync_v2", c.d.cuMemcpyDtoHAsync, uintptr(unsafe.Pointer(&dst[0])), uintptr(src), uintptr(len(dst)), s.handle())
	keep(dst)
	return err
}

// CopyDtoDAsync is cuMemcpyDtoDAsync.
func (c *Context) CopyDtoDAsync(dst, src DevicePtr, n int, s *Stream) error {
	if n == 0 {
		return nil
	}
	return c.do("cuMemcpyDtoDAsync_v2", c.d.cuMemcpyDtoDAsync, uintptr(dst), uintptr(src), uintptr(n), s.handle())
}

// MemsetD8 is cuMemsetD8: n bytes set to v.
func (c *Context) MemsetD8(dst DevicePtr, v byte, n int) error {
	return c.do("cuMemsetD8_v2", c.d.cuMemsetD8, uintptr(dst), uintptr(v), uintptr(n))
}

// MemsetD8Async is cuMemsetD8Async.
func (c *Context) MemsetD8Async(dst DevicePtr, v byte, n int, s *Stream) error {
	return c.do("cuMemsetD8Async", c.d.cuMemsetD8Async, uintptr(dst), uintptr(v), uintptr(n), s.handle())
}

// MemsetD32 is cuMemsetD32: n 32-bit words set to v (dst 4-byte aligned).
func (c *Context) MemsetD32(dst DevicePtr, v uint32, n int) error {
	return c.do("cuMemsetD32_v2", c.d.cuMemsetD32, uintptr(dst), uintptr(v), uintptr(n))
}

// MemsetD32Async is cuMemsetD32Async.
func (c *Context) MemsetD32Async(dst DevicePtr, v uint32, n int, s *Stream) error {
	return c.do("cuMemsetD32Async", c.d.cuMemsetD32Async, uintptr(dst), uintptr(v), uintptr(n), s.handle())
}

// AsBytes views a slice of plain values (numbers, or structs of numbers:
// no Go pointers) as its bytes, for the copy functions.
func AsBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// Upload allocates device memory for src and copies it there.
func Upload[T any](c *Context, src []T) (DevicePtr, error) {
	b := AsBytes(src)
	p, err := c.Alloc(max(len(b), 1))
	if err != nil {
		return 0, err
	}
	if err := c.CopyHtoD(p, b); err != nil {
		c.Free(p)
		return 0, err
	}
	return p, nil
}

// Download copies len(dst) elements from src into dst.
func Download[T any](c *Context, dst []T, src DevicePtr) error {
	return c.CopyDtoH(AsBytes(dst), src)
}

// create is the cu*Create call name, fn, of a handle with flags.
func (c *Context) create(name string, fn uintptr, flags uint32) (uintptr, error) {
	var h uintptr
	err := c.do(name, fn, uintptr(unsafe.Pointer(&h)), uintptr(flags))
	return h, err
}

// destroy is the cu*Destroy call name, fn, of the handle *h, which it
// zeroes first; a zero handle is already destroyed (or was never made).
func (c *Context) destroy(name string, fn uintptr, h *uintptr) error {
	if *h == 0 {
		return nil
	}
	x := *h
	*h = 0
	return c.do(name, fn, x)
}

// Stream is a CUstream. A nil *Stream means the legacy default stream.
type Stream struct {
	c *Context
	h uintptr
}

// NewStream is cuStreamCreate with StreamDefault or StreamNonBlocking.
func (c *Context) NewStream(flags uint32) (*Stream, error) {
	h, err := c.create("cuStreamCreate", c.d.cuStreamCreate, flags)
	if err != nil {
		return nil, err
	}
	return &Stream{c: c, h: h}, nil
}

// Handle is the CUstream.
func (s *Stream) Handle() uintptr { return s.handle() }

// Synchronize is cuStreamSynchronize.
func (s *Stream) Synchronize() error {
	return s.c.do("cuStreamSynchronize", s.c.d.cuStreamSynchronize, s.h)
}

// Done is cuStreamQuery: true when all work in the stream has completed.
func (s *Stream) Done() (bool, error) {
	if err := s.c.enter(); err != nil {
		return false, err
	}
	r := call(s.c.d.cuStreamQuery, s.h)
	s.c.leave()
	if Result(r) == ErrorNotReady {
		return false, nil
	}
	return r == 0, s.c.d.check("cuStreamQuery", r)
}

// WaitEvent is cuStreamWaitEvent: later work in s waits for e.
func (s *Stream) WaitEvent(e *Event) error {
	return s.c.do("cuStreamWaitEvent", s.c.d.cuStreamWaitEvent, s.h, e.h, 0)
}

// Destroy is cuStreamDestroy.
func (s *Stream) Destroy() error {
	return s.c.destroy("cuStreamDestroy_v2", s.c.d.cuStreamDestroy, &s.h)
}

// Event is a CUevent.
type Event struct {
	c *Context
	h uintptr
}

// NewEvent is cuEventCreate (flags: EventDefault, EventBlockingSync,
// EventDisableTiming).
func (c *Context) NewEvent(flags uint32) (*Event, error) {
	h, err := c.create("cuEventCreate", c.d.cuEventCreate, flags)
	if err != nil {
		return nil, err
	}
	return &Event{c: c, h: h}, nil
}

// Record is cuEventRecord on s (nil: default stream).
func (e *Event) Record(s *Stream) error {
	return e.c.do("cuEventRecord", e.c.d.cuEventRecord, e.h, s.handle())
}

// Synchronize is cuEventSynchronize.
func (e *Event) Synchronize() error {
	return e.c.do("cuEventSynchronize", e.c.d.cuEventSynchronize, e.h)
}

// Since is cuEventElapsedTime(start, e) in milliseconds; both events must
// have completed.
func (e *Event) Since(start *Event) (float32, error) {
	var ms float32
	err := e.c.do("cuEventElapsedTime", e.c.d.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), start.h, e.h)
	return ms, err
}

// Destroy is cuEventDestroy.
func (e *Event) Destroy() error {
	return e.c.destroy("cuEventDestroy_v2", e.c.d.cuEventDestroy, &e.h)
}

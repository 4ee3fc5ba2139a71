package cuda

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Several GPUs: peer access between the contexts of one process, and IPC
// handles that map one process's allocation into another's.

// Do runs fn with c current on the calling goroutine's OS thread, locked
// for the duration: for libraries that take the calling thread's device
// (NCCL's communicator init, its memory allocator).
func (c *Context) Do(fn func() error) error {
	if err := c.enter(); err != nil {
		return err
	}
	defer c.leave()
	return fn()
}

// CanAccessPeer is cuDeviceCanAccessPeer: whether device dev can read and
// write device peer's memory directly (NVLink or PCIe peer to peer).
func (d *Driver) CanAccessPeer(dev, peer int) (bool, error) {
	if err := d.needOptional("cuDeviceCanAccessPeer", d.cuDeviceCanAccessPeer); err != nil {
		return false, err
	}
	a, err := d.Device(dev)
	if err != nil {
		return false, err
	}
	b, err := d.Device(peer)
	if err != nil {
		return false, err
	}
	var v int32
	if err := d.check("cuDeviceCanAccessPeer", call(d.cuDeviceCanAccessPeer, uintptr(unsafe.Pointer(&v)), uintptr(a.h), uintptr(b.h))); err != nil {
		return false, err
	}
	return v != 0, nil
}

// ErrorPeerAccessAlreadyEnabled is CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED.
const ErrorPeerAccessAlreadyEnabled Result = 704

// EnablePeerAccess is cuCtxEnablePeerAccess: kernels of c may then use
// peer's memory by its address. Enabling it twice is not an error.
func (c *Context) EnablePeerAccess(peer *Context) error {
	if err := c.d.needOptional("cuCtxEnablePeerAccess", c.d.cuCtxEnablePeerAccess); err != nil {
		return err
	}
	if peer == nil || peer.h == 0 {
		return fmt.Errorf("cuda: EnablePeerAccess from device %d to a closed or nil context", c.Dev.Ordinal)
	}
	err := c.do("cuCtxEnablePeerAccess", c.d.cuCtxEnablePeerAccess, peer.h, 0)
	if e, ok := err.(*Error); ok && e.Code == ErrorPeerAccessAlreadyEnabled {
		return nil
	}
	if err != nil {
		return fmt.Errorf("device %d to device %d: %w", c.Dev.Ordinal, peer.Dev.Ordinal, err)
	}
	return nil
}

// IPCHandle is a CUipcMemHandle: 64 opaque bytes naming an allocation
// for other processes.
type IPCHandle [64]byte

// ipcHandle is CUipcMemHandle as the C call takes it (by value).
type ipcHandle struct{ Reserved [64]byte }

// IPCMemHandle is cuIpcGetMemHandle of an allocation made by Alloc.
func (c *Context) IPCMemHandle(p DevicePtr) (IPCHandle, error) {
	var h IPCHandle
	if err := c.d.needOptional("cuIpcGetMemHandle", c.d.cuIpcGetMemHandle); err != nil {
		return h, err
	}
	err := c.do("cuIpcGetMemHandle", c.d.cuIpcGetMemHandle, uintptr(unsafe.Pointer(&h)), uintptr(p))
	return h, err
}

// ipcLazyEnablePeerAccess is CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.
const ipcLazyEnablePeerAccess = 1

// OpenIPCMemHandle is cuIpcOpenMemHandle_v2 with lazy peer access: the
// address, in c, of another process's allocation. The handle is a
// 64-byte struct passed by value, which purego.RegisterFunc lays out as
// the C ABI does.
func (c *Context) OpenIPCMemHandle(h IPCHandle) (DevicePtr, error) {
	if err := c.d.needOptional("cuIpcOpenMemHandle_v2", c.d.cuIpcOpenMemHandle); err != nil {
		return 0, err
	}
	var fn func(p *DevicePtr, h ipcHandle, flags uint32) int32
	purego.RegisterFunc(&fn, c.d.cuIpcOpenMemHandle)
	if err := c.enter(); err != nil {
		return 0, err
	}
	var p DevicePtr
	r := fn(&p, ipcHandle{Reserved: h}, ipcLazyEnablePeerAccess)
	c.leave()
	if err := c.d.check("cuIpcOpenMemHandle_v2", uintptr(uint32(r))); err != nil {
		return 0, err
	}
	return p, nil
}

// CloseIPCMemHandle is cuIpcCloseMemHandle of an address OpenIPCMemHandle
// returned.
func (c *Context) CloseIPCMemHandle(p DevicePtr) error {
	if err := c.d.needOptional("cuIpcCloseMemHandle", c.d.cuIpcCloseMemHandle); err != nil {
		return err
	}
	return c.do("cuIpcCloseMemHandle", c.d.cuIpcCloseMemHandle, uintptr(p))
}

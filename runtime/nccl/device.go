package nccl

import (
	"fmt"
	"sync"

	"github.com/tlego/tle/runtime/cuda"
)

// Device is what the communicators and the heap need of a GPU. CUDADevice
// makes one of a runtime/cuda context; the tests use a stand-in.
type Device interface {
	Ordinal() int
	// Do runs fn on a locked OS thread with the device's context
	// current: NCCL takes the calling thread's device.
	Do(fn func() error) error
	Alloc(n int) (uint64, error)
	Free(p uint64) error
	Zero(p uint64, n int) error
	CopyHtoD(p uint64, b []byte) error
	CopyDtoH(b []byte, p uint64) error
	Synchronize() error

	// For the heap without NCCL's peer pointers (DriverPeers):
	CanAccessPeer(peerOrdinal int) (bool, error)
	EnablePeerAccess(peer Device) error // ranks of one process
	IPCHandle(p uint64) ([64]byte, error)
	OpenIPCHandle(h [64]byte) (uint64, error) // ranks of several processes
	CloseIPCHandle(p uint64) error
}

// CUDADevice is a Device of a runtime/cuda context.
func CUDADevice(c *cuda.Context) Device { return cudaDevice{c} }

type cudaDevice struct{ c *cuda.Context }

func (d cudaDevice) Ordinal() int             { return d.c.Dev.Ordinal }
func (d cudaDevice) Do(fn func() error) error { return d.c.Do(fn) }
func (d cudaDevice) Alloc(n int) (uint64, error) {
	p, err := d.c.Alloc(n)
	return uint64(p), err
}
func (d cudaDevice) Free(p uint64) error               { return d.c.Free(cuda.DevicePtr(p)) }
func (d cudaDevice) Zero(p uint64, n int) error        { return d.c.MemsetD8(cuda.DevicePtr(p), 0, n) }
func (d cudaDevice) CopyHtoD(p uint64, b []byte) error { return d.c.CopyHtoD(cuda.DevicePtr(p), b) }
func (d cudaDevice) CopyDtoH(b []byte, p uint64) error { return d.c.CopyDtoH(b, cuda.DevicePtr(p)) }
func (d cudaDevice) Synchronize() error                { return d.c.Synchronize() }
func (d cudaDevice) CanAccessPeer(peer int) (bool, error) {
	return d.c.Driver().CanAccessPeer(d.c.Dev.Ordinal, peer)
}
func (d cudaDevice) EnablePeerAccess(peer Device) error {
	p, ok := peer.(cudaDevice)
	if !ok {
		return fmt.Errorf("nccl: peer access from device %d to a device of another kind (%T)", d.Ordinal(), peer)
	}
	return d.c.EnablePeerAccess(p.c)
}
func (d cudaDevice) IPCHandle(p uint64) ([64]byte, error) {
	h, err := d.c.IPCMemHandle(cuda.DevicePtr(p))
	return h, err
}
func (d cudaDevice) OpenIPCHandle(h [64]byte) (uint64, error) {
	p, err := d.c.OpenIPCMemHandle(h)
	return uint64(p), err
}
func (d cudaDevice) CloseIPCHandle(p uint64) error { return d.c.CloseIPCMemHandle(cuda.DevicePtr(p)) }

// processDevices are the devices of this process by ordinal, for peer
// access between the ranks one process drives (DriverPeers).
var processDevices sync.Map // int -> Device

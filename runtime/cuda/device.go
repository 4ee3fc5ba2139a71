package cuda

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// DeviceCount is cuDeviceGetCount.
func (d *Driver) DeviceCount() (int, error) {
	var n int32
	if err := d.check("cuDeviceGetCount", call(d.cuDeviceGetCount, uintptr(unsafe.Pointer(&n)))); err != nil {
		return 0, err
	}
	return int(n), nil
}

// Device is a CUdevice of a loaded driver.
type Device struct {
	d       *Driver
	Ordinal int
	h       int32
}

// Device is cuDeviceGet.
func (d *Driver) Device(ordinal int) (*Device, error) {
	var h int32
	if err := d.check("cuDeviceGet", call(d.cuDeviceGet, uintptr(unsafe.Pointer(&h)), uintptr(ordinal))); err != nil {
		return nil, err
	}
	return &Device{d: d, Ordinal: ordinal, h: h}, nil
}

// Name is cuDeviceGetName.
func (dev *Device) Name() (string, error) {
	buf := make([]byte, 256)
	if err := dev.d.check("cuDeviceGetName", call(dev.d.cuDeviceGetName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(dev.h))); err != nil {
		return "", err
	}
	for i, c := range buf {
		if c == 0 {
			return string(buf[:i]), nil
		}
	}
	return string(buf), nil
}

// Attribute is cuDeviceGetAttribute.
func (dev *Device) Attribute(a DeviceAttribute) (int, error) {
	var v int32
	if err := dev.d.check("cuDeviceGetAttribute", call(dev.d.cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a), uintptr(dev.h))); err != nil {
		return 0, err
	}
	return int(v), nil
}

// TotalMem is cuDeviceTotalMem.
func (dev *Device) TotalMem() (uint64, error) {
	var v uint64
	if err := dev.d.check("cuDeviceTotalMem_v2", call(dev.d.cuDeviceTotalMem, uintptr(unsafe.Pointer(&v)), uintptr(dev.h))); err != nil {
		return 0, err
	}
	return v, nil
}

// Props are the device facts the compiler and launcher use.
type Props struct {
	Name                      string
	Major, Minor              int // compute capability
	SMCount                   int
	MaxThreadsPerBlock        int
	WarpSize                  int
	MaxSharedPerBlock         int // without opt-in (48 KB)
	MaxSharedPerBlockOptin    int // cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) limit
	MaxSharedPerSM            int
	MaxRegistersPerBlock      int
	MaxRegistersPerSM         int
	L2CacheSize               int
	ClockKHz                  int
	MemoryClockKHz            int
	MemoryBusWidth            int // bits
	TotalMem                  uint64
	ClusterLaunch             bool
	TensorMapAccessSupported  bool
	MaxThreadsPerMultiprocess int
}

// Arch is the PTX target of the device, with the "a" suffix for
// architecture-specific features from sm_90 on (sm_90a on Hopper).
func (p Props) Arch() string {
	s := fmt.Sprintf("sm_%d%d", p.Major, p.Minor)
	if p.Major >= 9 {
		s += "a"
	}
	return s
}

// Props reads the attributes in Props.
func (dev *Device) Props() (Props, error) {
	var p Props
	var err error
	if p.Name, err = dev.Name(); err != nil {
		return p, err
	}
	get := func(a DeviceAttribute, dst *int) {
		if err == nil {
			*dst, err = dev.Attribute(a)
		}
	}
	var cl, tm int
	get(AttrComputeCapabilityMajor, &p.Major)
	get(AttrComputeCapabilityMinor, &p.Minor)
	get(AttrMultiprocessorCount, &p.SMCount)
	get(AttrMaxThreadsPerBlock, &p.MaxThreadsPerBlock)
	get(AttrWarpSize, &p.WarpSize)
	get(AttrMaxSharedMemoryPerBlock, &p.MaxSharedPerBlock)
	get(AttrMaxSharedMemoryPerBlockOptin, &p.MaxSharedPerBlockOptin)
	get(AttrMaxSharedMemoryPerSM, &p.MaxSharedPerSM)
	get(AttrMaxRegistersPerBlock, &p.MaxRegistersPerBlock)
	get(AttrMaxRegistersPerSM, &p.MaxRegistersPerSM)
	get(AttrL2CacheSize, &p.L2CacheSize)
	get(AttrClockRate, &p.ClockKHz)
	get(AttrMemoryClockRate, &p.MemoryClockKHz)
	get(AttrGlobalMemoryBusWidth, &p.MemoryBusWidth)
	get(AttrMaxThreadsPerMultiprocessor, &p.MaxThreadsPerMultiprocess)
	get(AttrClusterLaunch, &cl)
	get(AttrTensorMapAccessSupported, &tm)
	if err != nil {
		return p, err
	}
	p.ClusterLaunch, p.TensorMapAccessSupported = cl != 0, tm != 0
	p.TotalMem, err = dev.TotalMem()
	return p, err
}

// Context is a device's primary context, retained. Its methods make it
// current on the calling OS thread for the duration of each call (see the
// package documentation), so a Context may be used from any goroutine.
type Context struct {
	d       *Driver
	Dev     *Device
	h       uintptr
	setArgs [1]uintptr // {h}: cuCtxSetCurrent's arguments, read-only after Open
}

// Open loads the process-wide driver and retains the primary context of
// device ordinal.
func Open(ordinal int) (*Context, error) {
	d, err := Load()
	if err != nil {
		return nil, err
	}
	return d.Open(ordinal)
}

// Open retains the primary context of device ordinal (cuDevicePrimaryCtxRetain).
func (d *Driver) Open(ordinal int) (*Context, error) {
	n, err := d.DeviceCount()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("%w: device %d requested, %d present", ErrNoDevice, ordinal, n)
	}
	dev, err := d.Device(ordinal)
	if err != nil {
		return nil, err
	}
	var h uintptr
	if err := d.check("cuDevicePrimaryCtxRetain", call(d.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&h)), uintptr(dev.h))); err != nil {
		return nil, err
	}
	return &Context{d: d, Dev: dev, h: h, setArgs: [1]uintptr{h}}, nil
}

// Driver returns the driver the context belongs to.
func (c *Context) Driver() *Driver { return c.d }

// Handle is the CUcontext.
func (c *Context) Handle() uintptr { return c.h }

// Close releases the primary context (cuDevicePrimaryCtxRelease). Objects
// made in it must not be used afterwards.
func (c *Context) Close() error {
	if c.h == 0 {
		return nil
	}
	c.h = 0
	return c.d.check("cuDevicePrimaryCtxRelease_v2", call(c.d.cuDevicePrimaryCtxRelease, uintptr(c.Dev.h)))
}

// enter locks the goroutine to its OS thread and makes c current there;
// every successful enter is paired with leave.
func (c *Context) enter() error {
	if c.h == 0 {
		return fmt.Errorf("cuda: context of device %d is closed", c.Dev.Ordinal)
	}
	runtime.LockOSThread()
	if r := callArgs(c.d.cuCtxSetCurrent, c.setArgs[:]); r != 0 {
		runtime.UnlockOSThread()
		return c.d.check("cuCtxSetCurrent", r)
	}
	return nil
}

func (c *Context) leave() { runtime.UnlockOSThread() }

// do runs one driver call with c current and converts its CUresult.
//
//go:uintptrescapes
func (c *Context) do(name string, fn uintptr, args ...uintptr) error {
	if err := c.enter(); err != nil {
		return err
	}
	r, _, _ := purego.SyscallN(fn, args...)
	c.leave()
	return c.d.check(name, uintptr(uint32(r)))
}

// Synchronize is cuCtxSynchronize.
func (c *Context) Synchronize() error {
	return c.do("cuCtxSynchronize", c.d.cuCtxSynchronize)
}

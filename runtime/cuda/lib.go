package cuda

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// DefaultLibrary is the driver library opened when $TLE_LIBCUDA is unset.
const DefaultLibrary = "libcuda.so.1"

// ErrNoDriver is matched (errors.Is) by every error saying that the CUDA
// driver library could not be loaded or lacks an entry point.
var ErrNoDriver = errors.New("cuda: no CUDA driver")

// ErrNoDevice is matched by errors saying the driver loaded but sees no GPU.
var ErrNoDevice = errors.New("cuda: no CUDA device")

// LoadError says why the driver library could not be used.
type LoadError struct {
	Library string // file passed to dlopen
	Reason  string // dlerror() text, or the missing symbol
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("cuda: %s could not be loaded: %s", e.Library, e.Reason)
}

// Is makes errors.Is(err, ErrNoDriver) true.
func (e *LoadError) Is(target error) bool { return target == ErrNoDriver }

// Driver is a loaded CUDA driver library with its entry points resolved.
// Most programs use the process-wide one through Load, Open or Available.
type Driver struct {
	Library string
	handle  uintptr
	Version int // cuDriverGetVersion, e.g. 13000

	cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString           uintptr
	cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, cuDeviceGetAttribute   uintptr
	cuDeviceTotalMem                                                       uintptr
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease                    uintptr
	cuCtxSetCurrent, cuCtxGetCurrent, cuCtxSynchronize                     uintptr
	cuMemAlloc, cuMemFree, cuMemAllocHost, cuMemFreeHost, cuMemGetInfo     uintptr
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD                               uintptr
	cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync                uintptr
	cuMemsetD8, cuMemsetD8Async, cuMemsetD32, cuMemsetD32Async             uintptr
	cuStreamCreate, cuStreamDestroy, cuStreamSynchronize, cuStreamQuery    uintptr
	cuStreamWaitEvent                                                      uintptr
	cuEventCreate, cuEventRecord, cuEventSynchronize, cuEventElapsedTime   uintptr
	cuEventDestroy                                                         uintptr
	cuModuleLoadDataEx, cuModuleUnload, cuModuleGetFunction                uintptr
	cuFuncSetAttribute, cuFuncGetAttribute                                 uintptr
	cuLaunchKernel                                                         uintptr
	cuLaunchKernelEx, cuTensorMapEncodeTiled, cuOccupancyMaxActiveClusters uintptr // optional (CUDA 12)
	cuOccupancyMaxActiveBlocksPerMultiprocessor                            uintptr // optional
	cuStreamBeginCapture, cuStreamEndCapture, cuGraphInstantiateWithFlags  uintptr // optional (graphs)
	cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy                      uintptr // optional (graphs)
	cuDeviceCanAccessPeer, cuCtxEnablePeerAccess                           uintptr // optional (several GPUs)
	cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle             uintptr // optional (several processes)
	missingOptional                                                        map[string]bool
}

// symbol tables: the C name each field resolves to (the _v2 names are what
// cuda.h's macros select; the driver keeps exporting all of them).
func (d *Driver) required() []sym {
	return []sym{
		{"cuInit", &d.cuInit}, {"cuDriverGetVersion", &d.cuDriverGetVersion},
		{"cuGetErrorName", &d.cuGetErrorName}, {"cuGetErrorString", &d.cuGetErrorString},
		{"cuDeviceGet", &d.cuDeviceGet}, {"cuDeviceGetCount", &d.cuDeviceGetCount},
		{"cuDeviceGetName", &d.cuDeviceGetName}, {"cuDeviceGetAttribute", &d.cuDeviceGetAttribute},
		{"cuDeviceTotalMem_v2", &d.cuDeviceTotalMem},
		{"cuDevicePrimaryCtxRetain", &d.cuDevicePrimaryCtxRetain},
		{"cuDevicePrimaryCtxRelease_v2", &d.cuDevicePrimaryCtxRelease},
		{"cuCtxSetCurrent", &d.cuCtxSetCurrent}, {"cuCtxGetCurrent", &d.cuCtxGetCurrent},
		{"cuCtxSynchronize", &d.cuCtxSynchronize},
		{"cuMemAlloc_v2", &d.cuMemAlloc}, {"cuMemFree_v2", &d.cuMemFree},
		{"cuMemAllocHost_v2", &d.cuMemAllocHost}, {"cuMemFreeHost", &d.cuMemFreeHost},
		{"cuMemGetInfo_v2", &d.cuMemGetInfo},
		{"cuMemcpyHtoD_v2", &d.cuMemcpyHtoD}, {"cuMemcpyDtoH_v2", &d.cuMemcpyDtoH},
		{"cuMemcpyDtoD_v2", &d.cuMemcpyDtoD},
		{"cuMemcpyHtoDAsync_v2", &d.cuMemcpyHtoDAsync}, {"cuMemcpyDtoHAsync_v2", &d.cuMemcpyDtoHAsync},
		{"cuMemcpyDtoDAsync_v2", &d.cuMemcpyDtoDAsync},
		{"cuMemsetD8_v2", &d.cuMemsetD8}, {"cuMemsetD8Async", &d.cuMemsetD8Async},
		{"cuMemsetD32_v2", &d.cuMemsetD32}, {"cuMemsetD32Async", &d.cuMemsetD32Async},
		{"cuStreamCreate", &d.cuStreamCreate}, {"cuStreamDestroy_v2", &d.cuStreamDestroy},
		{"cuStreamSynchronize", &d.cuStreamSynchronize}, {"cuStreamQuery", &d.cuStreamQuery},
		{"cuStreamWaitEvent", &d.cuStreamWaitEvent},
		{"cuEventCreate", &d.cuEventCreate}, {"cuEventRecord", &d.cuEventRecord},
		{"cuEventSynchronize", &d.cuEventSynchronize}, {"cuEventElapsedTime", &d.cuEventElapsedTime},
		{"cuEventDestroy_v2", &d.cuEventDestroy},
		{"cuModuleLoadDataEx", &d.cuModuleLoadDataEx}, {"cuModuleUnload", &d.cuModuleUnload},
		{"cuModuleGetFunction", &d.cuModuleGetFunction},
		{"cuFuncSetAttribute", &d.cuFuncSetAttribute}, {"cuFuncGetAttribute", &d.cuFuncGetAttribute},
		{"cuLaunchKernel", &d.cuLaunchKernel},
	}
}

func (d *Driver) optional() []sym {
	return []sym{
		{"cuLaunchKernelEx", &d.cuLaunchKernelEx},
		{"cuTensorMapEncodeTiled", &d.cuTensorMapEncodeTiled},
		{"cuOccupancyMaxActiveClusters", &d.cuOccupancyMaxActiveClusters},
		{"cuOccupancyMaxActiveBlocksPerMultiprocessor", &d.cuOccupancyMaxActiveBlocksPerMultiprocessor},
		{"cuStreamBeginCapture_v2", &d.cuStreamBeginCapture}, {"cuStreamEndCapture", &d.cuStreamEndCapture},
		{"cuGraphInstantiateWithFlags", &d.cuGraphInstantiateWithFlags}, {"cuGraphLaunch", &d.cuGraphLaunch},
		{"cuGraphExecDestroy", &d.cuGraphExecDestroy}, {"cuGraphDestroy", &d.cuGraphDestroy},
		{"cuDeviceCanAccessPeer", &d.cuDeviceCanAccessPeer}, {"cuCtxEnablePeerAccess", &d.cuCtxEnablePeerAccess},
		{"cuIpcGetMemHandle", &d.cuIpcGetMemHandle}, {"cuIpcOpenMemHandle_v2", &d.cuIpcOpenMemHandle},
		{"cuIpcCloseMemHandle", &d.cuIpcCloseMemHandle},
	}
}

type sym struct {
	name string
	addr *uintptr
}

var (
	defaultOnce sync.Once
	defaultDrv  *Driver
	defaultErr  error
)

// Load returns the process-wide driver: libcuda.so.1, or the library named by
// $TLE_LIBCUDA, opened and initialised (cuInit) on the first call. The error
// (the same on every call) matches ErrNoDriver when the library is missing,
// and wraps the CUresult when cuInit fails (CUDA_ERROR_NO_DEVICE: ErrNoDevice).
func Load() (*Driver, error) {
	defaultOnce.Do(func() {
		lib := os.Getenv("TLE_LIBCUDA")
		if lib == "" {
			lib = DefaultLibrary
		}
		defaultDrv, defaultErr = LoadFrom(lib)
	})
	return defaultDrv, defaultErr
}

// LoadFrom opens a specific driver library (a path, or a name dlopen
// searches for), resolves its entry points and calls cuInit(0). Tests use it
// with a stand-in library; the library stays loaded for the process.
func LoadFrom(lib string) (*Driver, error) {
	h, err := dlopen(lib)
	if err != nil {
		return nil, &LoadError{Library: lib, Reason: err.Error()}
	}
	d := &Driver{Library: lib, handle: h, missingOptional: map[string]bool{}}
	for _, s := range d.required() {
		p, err := dlsym(h, s.name)
		if err != nil || p == 0 {
			return nil, &LoadError{Library: lib, Reason: "missing symbol " + s.name + " (driver too old?)"}
		}
		*s.addr = p
	}
	for _, s := range d.optional() {
		p, err := dlsym(h, s.name)
		if err != nil || p == 0 {
			d.missingOptional[s.name] = true
			continue
		}
		*s.addr = p
	}
	if err := d.check("cuInit", call(d.cuInit, 0)); err != nil {
		return nil, err
	}
	var v int32
	if err := d.check("cuDriverGetVersion", call(d.cuDriverGetVersion, uintptr(unsafe.Pointer(&v)))); err != nil {
		return nil, err
	}
	d.Version = int(v)
	return d, nil
}

// Available returns nil when a CUDA driver loads and sees at least one
// device, and otherwise an error saying why (fit for t.Skip).
func Available() error {
	d, err := Load()
	if err != nil {
		return err
	}
	n, err := d.DeviceCount()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: cuDeviceGetCount returned 0", ErrNoDevice)
	}
	return nil
}

// call invokes a C function. It is marked uintptrescapes so that a Go pointer
// converted to uintptr in the call expression stays alive, and in place, for
// the duration of the call (the unsafe.Pointer rule for syscalls). The
// result is the C int return value (CUresult, nvvmResult), zero-extended.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return uintptr(uint32(r))
}

// callArgs is call for the hot path: args is an existing slice (a field of a
// long-lived object), so no variadic slice is built, and nothing allocates.
// The arguments must not be Go pointers.
func callArgs(fn uintptr, args []uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return uintptr(uint32(r))
}

// callPtr is call for functions returning a pointer.
//
//go:uintptrescapes
func callPtr(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// Result is a CUresult.
type Result int32

// Error is a failed driver call.
type Error struct {
	Func string // the entry point, e.g. "cuModuleLoadDataEx"
	Code Result
	Name string // cuGetErrorName, e.g. "CUDA_ERROR_INVALID_PTX"
	Desc string // cuGetErrorString
	Log  string // the JIT error log, for module loads
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Func)
	b.WriteString(": ")
	b.WriteString(e.Name)
	if e.Desc != "" {
		b.WriteString(" (")
		b.WriteString(e.Desc)
		b.WriteString(")")
	}
	if e.Log != "" {
		b.WriteString(": ")
		b.WriteString(strings.TrimRight(e.Log, "\n\x00 "))
	}
	return b.String()
}

// Is makes errors.Is(err, ErrNoDevice) true for CUDA_ERROR_NO_DEVICE.
func (e *Error) Is(target error) bool {
	return target == ErrNoDevice && e.Code == ErrorNoDevice
}

// check turns a CUresult into an error (nil for CUDA_SUCCESS).
func (d *Driver) check(fn string, r uintptr) error {
	if r == 0 {
		return nil
	}
	return d.newError(fn, Result(int32(uint32(r))))
}

func (d *Driver) newError(fn string, code Result) *Error {
	e := &Error{Func: fn, Code: code}
	var p uintptr
	if d.cuGetErrorName != 0 && call(d.cuGetErrorName, uintptr(code), uintptr(unsafe.Pointer(&p))) == 0 && p != 0 {
		e.Name = cString(p)
	}
	if e.Name == "" {
		e.Name = code.fallbackName()
	}
	p = 0
	if d.cuGetErrorString != 0 && call(d.cuGetErrorString, uintptr(code), uintptr(unsafe.Pointer(&p))) == 0 && p != 0 {
		e.Desc = cString(p)
	}
	return e
}

// needOptional reports a clean error for an entry point the driver lacks.
func (d *Driver) needOptional(name string, p uintptr) error {
	if p == 0 {
		return &LoadError{Library: d.Library, Reason: "missing symbol " + name + " (needs a CUDA 12 driver)"}
	}
	return nil
}

// cString copies a NUL-terminated C string.
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	base := uptr(p)
	n := 0
	for *(*byte)(unsafe.Add(base, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(base), n))
}

// uptr converts an address outside the Go heap (from C) to unsafe.Pointer
// without the uintptr->unsafe.Pointer conversion vet warns about.
func uptr(p uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&p))
}

// cBytes returns s as a NUL-terminated byte slice.
func cBytes(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// keep is runtime.KeepAlive, named for the call sites that pass slices.
func keep(x any) { runtime.KeepAlive(x) }

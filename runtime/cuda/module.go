package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// jitLogSize is the size of each JIT log buffer (error and info).
const jitLogSize = 64 << 10

// Module is a loaded CUmodule.
type Module struct {
	c *Context
	h uintptr
	// InfoLog is the JIT's informational log (ptxas -v style: registers,
	// shared memory, spills) from loading the module.
	InfoLog string
}

// LoadPTX loads PTX text (cuModuleLoadDataEx; the driver JIT-compiles it for
// the device). When the JIT fails, the returned *Error carries ptxas's
// message in Log, and its Error() includes it.
func (c *Context) LoadPTX(ptx []byte) (*Module, error) {
	img := ptx
	if len(img) == 0 || img[len(img)-1] != 0 {
		img = make([]byte, len(ptx)+1)
		copy(img, ptx)
	}
	return c.LoadImage(img)
}

// LoadImage loads a module image (PTX NUL-terminated, cubin or fatbin) with
// cuModuleLoadDataEx, collecting the JIT error and info logs.
func (c *Context) LoadImage(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, errors.New("cuda: LoadImage of an empty image")
	}
	errLog := make([]byte, jitLogSize)
	infoLog := make([]byte, jitLogSize)
	opts := []JITOption{
		JITErrorLogBuffer, JITErrorLogBufferSizeBytes,
		JITInfoLogBuffer, JITInfoLogBufferSizeBytes,
		JITLogVerbose,
	}
	// The option values: pointers for the buffers, integers cast to void*
	// for the sizes (the driver writes the bytes used back into those slots).
	vals := []uintptr{
		uintptr(unsafe.Pointer(&errLog[0])), jitLogSize,
		uintptr(unsafe.Pointer(&infoLog[0])), jitLogSize,
		1,
	}
	// vals holds addresses of Go memory that C reads during the call: pin it.
	var pin runtime.Pinner
	pin.Pin(&errLog[0])
	pin.Pin(&infoLog[0])
	pin.Pin(&vals[0])
	pin.Pin(&opts[0])
	pin.Pin(&image[0])
	defer pin.Unpin()

	var h uintptr
	if err := c.enter(); err != nil {
		return nil, err
	}
	r := call(c.d.cuModuleLoadDataEx, uintptr(unsafe.Pointer(&h)), uintptr(unsafe.Pointer(&image[0])),
		uintptr(len(opts)), uintptr(unsafe.Pointer(&opts[0])), uintptr(unsafe.Pointer(&vals[0])))
	c.leave()
	info := logText(infoLog, vals[3])
	if r != 0 {
		e := c.d.newError("cuModuleLoadDataEx", Result(int32(uint32(r))))
		e.Log = logText(errLog, vals[1])
		if e.Log == "" {
			e.Log = info
		}
		return nil, e
	}
	return &Module{c: c, h: h, InfoLog: info}, nil
}

// logText extracts a JIT log: the driver reports the bytes it used in the
// size slot; the text also ends at the first NUL.
func logText(buf []byte, used uintptr) string {
	n := int(uint32(used))
	if n <= 0 || n > len(buf) {
		n = len(buf)
	}
	b := buf[:n]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(bytes.TrimRight(b, "\n "))
}

// Unload is cuModuleUnload.
func (m *Module) Unload() error {
	return m.c.destroy("cuModuleUnload", m.c.d.cuModuleUnload, &m.h)
}

// Function is a CUfunction.
type Function struct {
	c    *Context
	m    *Module
	h    uintptr
	Name string
}

// Function is cuModuleGetFunction.
func (m *Module) Function(name string) (*Function, error) {
	var h uintptr
	cname := cBytes(name)
	if err := m.c.do("cuModuleGetFunction", m.c.d.cuModuleGetFunction, uintptr(unsafe.Pointer(&h)), m.h, uintptr(unsafe.Pointer(&cname[0]))); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", name, err)
	}
	return &Function{c: m.c, m: m, h: h, Name: name}, nil
}

// Handle is the CUfunction.
func (f *Function) Handle() uintptr { return f.h }

// Context is the context the function was loaded in.
func (f *Function) Context() *Context { return f.c }

// Attribute is cuFuncGetAttribute.
func (f *Function) Attribute(a FuncAttribute) (int, error) {
	var v int32
	err := f.c.do("cuFuncGetAttribute", f.c.d.cuFuncGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a), f.h)
	return int(v), err
}

// SetAttribute is cuFuncSetAttribute.
func (f *Function) SetAttribute(a FuncAttribute, v int) error {
	return f.c.do("cuFuncSetAttribute", f.c.d.cuFuncSetAttribute, f.h, uintptr(a), uintptr(uint32(int32(v))))
}

// SetMaxDynamicSharedMemory allows launches with up to n bytes of dynamic
// shared memory (required above 48 KB; at most Props.MaxSharedPerBlockOptin
// minus the kernel's static shared memory).
func (f *Function) SetMaxDynamicSharedMemory(n int) error {
	return f.SetAttribute(FuncMaxDynamicSharedSizeBytes, n)
}

// NumRegs is the register count per thread.
func (f *Function) NumRegs() (int, error) { return f.Attribute(FuncNumRegs) }

// LocalSize is the local memory (spill) bytes per thread.
func (f *Function) LocalSize() (int, error) { return f.Attribute(FuncLocalSizeBytes) }

// StaticShared is the static shared memory in bytes.
func (f *Function) StaticShared() (int, error) { return f.Attribute(FuncSharedSizeBytes) }

// ResidentPerSM is cuOccupancyMaxActiveBlocksPerMultiprocessor: how many
// CTAs of block threads and dynSmem bytes of dynamic shared memory one SM
// holds at once (registers, shared memory, threads and the CTA limit).
func (f *Function) ResidentPerSM(block, dynSmem int) (int, error) {
	fn := f.c.d.cuOccupancyMaxActiveBlocksPerMultiprocessor
	if fn == 0 {
		return 0, fmt.Errorf("cuOccupancyMaxActiveBlocksPerMultiprocessor: not exported by %s", f.c.d.Library)
	}
	var n int32
	err := f.c.do("cuOccupancyMaxActiveBlocksPerMultiprocessor", fn, uintptr(unsafe.Pointer(&n)), f.h, uintptr(block), uintptr(dynSmem))
	return int(n), err
}

package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// ErrNoNVVM is matched (errors.Is) by errors saying libNVVM could not be
// loaded.
var ErrNoNVVM = errors.New("cuda: libNVVM not available")

// NVVMLoadError lists where libNVVM was looked for and why each failed.
type NVVMLoadError struct{ Tried []string }

func (e *NVVMLoadError) Error() string {
	return "cuda: libnvvm.so could not be loaded (set $TLE_LIBNVVM or $CUDA_HOME); tried: " + strings.Join(e.Tried, "; ")
}

// Is makes errors.Is(err, ErrNoNVVM) true.
func (e *NVVMLoadError) Is(target error) bool { return target == ErrNoNVVM }

// NVVMError is a failed libNVVM call.
type NVVMError struct {
	Func string
	Code int    // nvvmResult
	Msg  string // nvvmGetErrorString
	Log  string // the program log, for verification and compilation
}

func (e *NVVMError) Error() string {
	s := fmt.Sprintf("%s: %s (nvvmResult %d)", e.Func, e.Msg, e.Code)
	if e.Log != "" {
		s += ":\n" + strings.TrimRight(e.Log, "\n\x00 ")
	}
	return s
}

// NVVM is a loaded libNVVM. Its methods are safe for concurrent use; a mutex
// serialises the calls.
type NVVM struct {
	Path   string
	handle uintptr
	mu     sync.Mutex

	nvvmGetErrorString, nvvmVersion, nvvmIRVersion                uintptr
	nvvmCreateProgram, nvvmDestroyProgram, nvvmAddModuleToProgram uintptr
	nvvmCompileProgram, nvvmVerifyProgram                         uintptr
	nvvmGetCompiledResultSize, nvvmGetCompiledResult              uintptr
	nvvmGetProgramLogSize, nvvmGetProgramLog                      uintptr
}

var (
	nvvmOnce sync.Once
	nvvmLib  *NVVM
	nvvmErr  error
)

// NVVMCandidates lists the libNVVM files LoadNVVM tries, in order:
// $TLE_LIBNVVM, $CUDA_HOME and $CUDA_PATH (nvvm/lib64/libnvvm.so),
// /usr/local/cuda, /usr/local/cuda-* (newest first), /opt/cuda, then the
// bare sonames for the dynamic loader's own search (LD_LIBRARY_PATH and the
// ldconfig cache).
func NVVMCandidates() []string {
	var c []string
	if p := os.Getenv("TLE_LIBNVVM"); p != "" {
		c = append(c, p)
	}
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"} {
		if h := os.Getenv(env); h != "" {
			c = append(c, filepath.Join(h, "nvvm", "lib64", "libnvvm.so"))
		}
	}
	c = append(c, "/usr/local/cuda/nvvm/lib64/libnvvm.so")
	versioned, _ := filepath.Glob("/usr/local/cuda-*/nvvm/lib64/libnvvm.so")
	sort.Sort(sort.Reverse(sort.StringSlice(versioned)))
	c = append(c, versioned...)
	c = append(c, "/opt/cuda/nvvm/lib64/libnvvm.so",
		"libnvvm.so", "libnvvm.so.4", "libnvvm.so.3")
	return c
}

// LoadNVVM returns the process-wide libNVVM, found on the first call (see
// NVVMCandidates); the error matches ErrNoNVVM and lists what was tried.
func LoadNVVM() (*NVVM, error) {
	nvvmOnce.Do(func() {
		le := &NVVMLoadError{}
		for _, p := range NVVMCandidates() {
			if strings.ContainsRune(p, '/') {
				if _, err := os.Stat(p); err != nil {
					le.Tried = append(le.Tried, p+" (absent)")
					continue
				}
			}
			n, err := LoadNVVMFrom(p)
			if err == nil {
				nvvmLib = n
				return
			}
			le.Tried = append(le.Tried, fmt.Sprintf("%s (%v)", p, err))
		}
		nvvmErr = le
	})
	return nvvmLib, nvvmErr
}

// LoadNVVMFrom opens a specific libNVVM.
func LoadNVVMFrom(path string) (*NVVM, error) {
	h, err := dlopen(path)
	if err != nil {
		return nil, err
	}
	n := &NVVM{Path: path, handle: h}
	for _, s := range []sym{
		{"nvvmGetErrorString", &n.nvvmGetErrorString}, {"nvvmVersion", &n.nvvmVersion},
		{"nvvmIRVersion", &n.nvvmIRVersion}, {"nvvmCreateProgram", &n.nvvmCreateProgram},
		{"nvvmDestroyProgram", &n.nvvmDestroyProgram}, {"nvvmAddModuleToProgram", &n.nvvmAddModuleToProgram},
		{"nvvmCompileProgram", &n.nvvmCompileProgram}, {"nvvmVerifyProgram", &n.nvvmVerifyProgram},
		{"nvvmGetCompiledResultSize", &n.nvvmGetCompiledResultSize}, {"nvvmGetCompiledResult", &n.nvvmGetCompiledResult},
		{"nvvmGetProgramLogSize", &n.nvvmGetProgramLogSize}, {"nvvmGetProgramLog", &n.nvvmGetProgramLog},
	} {
		p, err := dlsym(h, s.name)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("missing symbol %s", s.name)
		}
		*s.addr = p
	}
	return n, nil
}

func (n *NVVM) check(fn string, r uintptr) *NVVMError {
	if r == 0 {
		return nil
	}
	return &NVVMError{Func: fn, Code: int(int32(uint32(r))), Msg: cString(callPtr(n.nvvmGetErrorString, r))}
}

func errOrNil(e *NVVMError) error {
	if e == nil {
		return nil
	}
	return e
}

// Version is nvvmVersion.
func (n *NVVM) Version() (major, minor int, err error) {
	var a, b int32
	err = errOrNil(n.check("nvvmVersion", call(n.nvvmVersion, uintptr(unsafe.Pointer(&a)), uintptr(unsafe.Pointer(&b)))))
	return int(a), int(b), err
}

// IRVersion is nvvmIRVersion: the NVVM IR and debug-metadata versions the
// library accepts (for !nvvmir.version).
func (n *NVVM) IRVersion() (major, minor, dbgMajor, dbgMinor int, err error) {
	var a, b, c, d int32
	err = errOrNil(n.check("nvvmIRVersion", call(n.nvvmIRVersion, uintptr(unsafe.Pointer(&a)), uintptr(unsafe.Pointer(&b)),
		uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&d)))))
	return int(a), int(b), int(c), int(d), err
}

// NVVMModule is one IR module (text or bitcode) added to a program.
type NVVMModule struct {
	Name string
	IR   []byte
}

// Compile creates a program from the modules, compiles it with the options
// (e.g. "-arch=compute_90a", "-opt=3") and returns the PTX and the program
// log. On failure the *NVVMError carries the log.
func (n *NVVM) Compile(modules []NVVMModule, options ...string) (ptx []byte, log string, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var prog uintptr
	if e := n.check("nvvmCreateProgram", call(n.nvvmCreateProgram, uintptr(unsafe.Pointer(&prog)))); e != nil {
		return nil, "", e
	}
	defer func() { call(n.nvvmDestroyProgram, uintptr(unsafe.Pointer(&prog))) }()
	for _, m := range modules {
		if len(m.IR) == 0 {
			return nil, "", fmt.Errorf("nvvmAddModuleToProgram: module %q is empty", m.Name)
		}
		name := cBytes(m.Name)
		if e := n.check("nvvmAddModuleToProgram", call(n.nvvmAddModuleToProgram, prog,
			uintptr(unsafe.Pointer(&m.IR[0])), uintptr(len(m.IR)), uintptr(unsafe.Pointer(&name[0])))); e != nil {
			e.Log = n.programLog(prog)
			return nil, e.Log, fmt.Errorf("module %q: %w", m.Name, e)
		}
		runtime.KeepAlive(m.IR)
	}
	// options: a const char** array of NUL-terminated strings, all Go memory
	// read by C during the call, so pinned.
	var pin runtime.Pinner
	defer pin.Unpin()
	var optv []uintptr
	for _, o := range options {
		b := cBytes(o)
		pin.Pin(&b[0])
		optv = append(optv, uintptr(unsafe.Pointer(&b[0])))
	}
	var optp uintptr
	if len(optv) > 0 {
		pin.Pin(&optv[0])
		optp = uintptr(unsafe.Pointer(&optv[0]))
	}
	r := call(n.nvvmCompileProgram, prog, uintptr(len(optv)), optp)
	log = n.programLog(prog)
	if e := n.check("nvvmCompileProgram", r); e != nil {
		e.Log = log
		return nil, log, e
	}
	var size uintptr
	if e := n.check("nvvmGetCompiledResultSize", call(n.nvvmGetCompiledResultSize, prog, uintptr(unsafe.Pointer(&size)))); e != nil {
		return nil, log, e
	}
	buf := make([]byte, size+1)
	if e := n.check("nvvmGetCompiledResult", call(n.nvvmGetCompiledResult, prog, uintptr(unsafe.Pointer(&buf[0])))); e != nil {
		return nil, log, e
	}
	for len(buf) > 0 && buf[len(buf)-1] == 0 {
		buf = buf[:len(buf)-1]
	}
	return buf, log, nil
}

func (n *NVVM) programLog(prog uintptr) string {
	var size uintptr
	if call(n.nvvmGetProgramLogSize, prog, uintptr(unsafe.Pointer(&size))) != 0 || size <= 1 {
		return ""
	}
	buf := make([]byte, size)
	if call(n.nvvmGetProgramLog, prog, uintptr(unsafe.Pointer(&buf[0]))) != 0 {
		return ""
	}
	return strings.TrimRight(string(buf), "\x00\n ")
}

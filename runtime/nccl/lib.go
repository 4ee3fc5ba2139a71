package nccl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// SystemLibrary is the name handed to the system loader last.
const SystemLibrary = "libnccl.so.2"

// EnvLibrary names the environment variable that points at a library.
const EnvLibrary = "TLE_NCCL"

// ErrNoNCCL is matched (errors.Is) by every error saying that no usable
// NCCL library was found: none loaded, a symbol is missing, or it is too
// old.
var ErrNoNCCL = errors.New("nccl: no usable NCCL library")

// Version is an NCCL release.
type Version struct{ Major, Minor, Patch int }

// MinVersion is the oldest NCCL this package drives: 2.23 added
// ncclCommInitRankScalable, the init call that takes the unique id by
// pointer.
var MinVersion = Version{2, 23, 0}

// PeerPointerVersion is the release whose host API gives peer pointers
// of a symmetric window (ncclGetPeerDevicePointer, 2.29).
var PeerPointerVersion = Version{2, 29, 0}

// DecodeVersion reads ncclGetVersion's code: NCCL_VERSION(X,Y,Z) is
// X*1000+Y*100+Z up to 2.8 and X*10000+Y*100+Z after.
func DecodeVersion(code int) Version {
	if code >= 10000 {
		return Version{code / 10000, code % 10000 / 100, code % 100}
	}
	return Version{code / 1000, code % 1000 / 100, code % 100}
}

// Less orders releases.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// HeapMode is how the symmetric heap's peer addresses are made, chosen
// at run time from the library's version and symbols.
type HeapMode int

const (
	// PeerPointers: ncclMemAlloc, ncclCommWindowRegister with
	// NCCL_WIN_COLL_SYMMETRIC, and ncclGetPeerDevicePointer (NCCL 2.29+).
	PeerPointers HeapMode = iota + 1
	// DriverPeers: cuMemAlloc, and the driver's peer access (ranks of one
	// process) or IPC handles exchanged over the communicator (ranks of
	// several processes).
	DriverPeers
)

func (m HeapMode) String() string {
	switch m {
	case PeerPointers:
		return "NCCL symmetric windows and ncclGetPeerDevicePointer"
	case DriverPeers:
		return "driver peer access and IPC handles"
	}
	return fmt.Sprintf("HeapMode(%d)", int(m))
}

// LoadError says why no library could be used: every place tried, with
// the reason each failed.
type LoadError struct {
	Tried   []string // the libraries tried, in order, each "where: path"
	Reasons []string // why each failed (dlerror, a missing symbol)
}

func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString("nccl: no NCCL library could be loaded")
	for i := range e.Tried {
		fmt.Fprintf(&b, "\n  %s: %s", e.Tried[i], e.Reasons[i])
	}
	fmt.Fprintf(&b, "\n(install NCCL, e.g. pip install nvidia-nccl-cu13, or set %s to libnccl.so.2's path)", EnvLibrary)
	return b.String()
}

// Is makes errors.Is(err, ErrNoNCCL) true.
func (e *LoadError) Is(target error) bool { return target == ErrNoNCCL }

// VersionError says a library is older than this package needs.
type VersionError struct {
	Library    string
	Have, Need Version
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("nccl: %s is NCCL %s; TLE-Go needs %s or later (ncclCommInitRankScalable); point %s at a newer libnccl.so.2", e.Library, e.Have, e.Need, EnvLibrary)
}

// Is makes errors.Is(err, ErrNoNCCL) true.
func (e *VersionError) Is(target error) bool { return target == ErrNoNCCL }

// Result is an ncclResult_t.
type Result int32

var resultNames = [...]string{"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
	"ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress", "ncclTimeout"}

func (r Result) String() string {
	if r >= 0 && int(r) < len(resultNames) {
		return resultNames[r]
	}
	return fmt.Sprintf("ncclResult(%d)", int32(r))
}

// Error is a failed NCCL call.
type Error struct {
	Func string // the entry point
	Code Result
	Desc string // ncclGetErrorString
	Last string // ncclGetLastError, when it says something
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", e.Func, e.Code)
	if e.Desc != "" {
		s += " (" + e.Desc + ")"
	}
	if e.Last != "" {
		s += ": " + e.Last
	}
	return s
}

// Library is an opened NCCL with its entry points resolved.
type Library struct {
	Path    string  // what was opened
	Where   string  // how it was found: "option", "$TLE_NCCL", "python site-packages", "system loader"
	Version Version // ncclGetVersion
	Heap    HeapMode

	handle uintptr

	ncclGetVersion, ncclGetUniqueId, ncclGetErrorString, ncclGetLastError uintptr
	ncclCommInitRankScalable, ncclCommInitAll, ncclCommDestroy            uintptr
	ncclCommGetAsyncError, ncclCommCount, ncclCommUserRank                uintptr
	ncclAllReduce, ncclAllGather, ncclReduceScatter                       uintptr
	ncclGroupStart, ncclGroupEnd                                          uintptr
	ncclMemAlloc, ncclMemFree                                             uintptr // optional (2.19)
	ncclCommWindowRegister, ncclCommWindowDeregister                      uintptr // optional (2.27)
	ncclGetPeerDevicePointer                                              uintptr // optional (2.29)
}

type sym struct {
	name string
	addr *uintptr
}

func (l *Library) required() []sym {
	return []sym{
		{"ncclGetVersion", &l.ncclGetVersion}, {"ncclGetUniqueId", &l.ncclGetUniqueId},
		{"ncclGetErrorString", &l.ncclGetErrorString}, {"ncclGetLastError", &l.ncclGetLastError},
		{"ncclCommInitRankScalable", &l.ncclCommInitRankScalable}, {"ncclCommInitAll", &l.ncclCommInitAll},
		{"ncclCommDestroy", &l.ncclCommDestroy}, {"ncclCommGetAsyncError", &l.ncclCommGetAsyncError},
		{"ncclCommCount", &l.ncclCommCount}, {"ncclCommUserRank", &l.ncclCommUserRank},
		{"ncclAllReduce", &l.ncclAllReduce}, {"ncclAllGather", &l.ncclAllGather},
		{"ncclReduceScatter", &l.ncclReduceScatter},
		{"ncclGroupStart", &l.ncclGroupStart}, {"ncclGroupEnd", &l.ncclGroupEnd},
	}
}

func (l *Library) optional() []sym {
	return []sym{
		{"ncclMemAlloc", &l.ncclMemAlloc}, {"ncclMemFree", &l.ncclMemFree},
		{"ncclCommWindowRegister", &l.ncclCommWindowRegister}, {"ncclCommWindowDeregister", &l.ncclCommWindowDeregister},
		{"ncclGetPeerDevicePointer", &l.ncclGetPeerDevicePointer},
	}
}

// Options say where the library is.
type Options struct {
	// Library is libnccl.so.2's path (or a name dlopen searches for);
	// empty: $TLE_NCCL, then the python packages, then the system loader.
	Library string
}

// Candidate is a library to try and how it was found.
type Candidate struct{ Where, Path string }

// Candidates lists the libraries Open tries, in order. An explicit one
// (Options.Library or $TLE_NCCL) is the only one: a library the user
// named that fails to load is an error, not a reason to take another.
func Candidates(o Options) []Candidate {
	if o.Library != "" {
		return []Candidate{{"option", o.Library}}
	}
	if p := os.Getenv(EnvLibrary); p != "" {
		return []Candidate{{"$" + EnvLibrary, p}}
	}
	var cs []Candidate
	for _, dir := range sitePackages() {
		p := filepath.Join(dir, "nvidia", "nccl", "lib", SystemLibrary)
		if _, err := os.Stat(p); err == nil {
			cs = append(cs, Candidate{"python site-packages", p})
		}
	}
	return append(cs, Candidate{"system loader", SystemLibrary})
}

// sitePackages lists python3's site-packages directories: what python3
// on $PATH says (site.getsitepackages, the user site, sys.path), then the
// usual places of a virtual environment ($VIRTUAL_ENV, $CONDA_PREFIX) and
// of the system, without duplicates.
func sitePackages() []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	if py, err := exec.LookPath("python3"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, py, "-c",
			"import site, sys\nfor d in site.getsitepackages() + [site.getusersitepackages()] + sys.path: print(d)").Output()
		cancel()
		if err == nil {
			for _, l := range strings.Split(string(out), "\n") {
				add(strings.TrimSpace(l))
			}
		}
	}
	for _, root := range []string{os.Getenv("VIRTUAL_ENV"), os.Getenv("CONDA_PREFIX"), "/usr/local", "/usr"} {
		if root == "" {
			continue
		}
		for _, pat := range []string{"lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages"} {
			ms, _ := filepath.Glob(filepath.Join(root, pat))
			for _, m := range ms {
				add(m)
			}
		}
	}
	return dirs
}

var (
	openMu sync.Mutex
	opened = map[string]*Library{} // by path: dlopen gives one handle per file anyway
)

// Open finds, opens and checks the library (see Candidates): its required
// entry points, its version (MinVersion), and the heap mode it allows.
// The library stays loaded for the process; opening one path again
// returns the same *Library. Errors match ErrNoNCCL.
func Open(o Options) (*Library, error) {
	le := &LoadError{}
	for _, c := range Candidates(o) {
		l, err := openOne(c)
		if err == nil {
			return l, nil
		}
		var ve *VersionError
		if c.Where == "option" || c.Where == "$"+EnvLibrary {
			if errors.As(err, &ve) {
				return nil, err
			}
			le.Tried, le.Reasons = append(le.Tried, c.Where+": "+c.Path), append(le.Reasons, err.Error())
			return nil, le
		}
		le.Tried, le.Reasons = append(le.Tried, c.Where+": "+c.Path), append(le.Reasons, err.Error())
	}
	return nil, le
}

func openOne(c Candidate) (*Library, error) {
	openMu.Lock()
	defer openMu.Unlock()
	if l, ok := opened[c.Path]; ok {
		return l, nil
	}
	h, err := dlopen(c.Path)
	if err != nil {
		return nil, err
	}
	l := &Library{Path: c.Path, Where: c.Where, handle: h}
	// The version first: a library too old for a required symbol is
	// better reported by its version than by the symbol.
	if p, err := dlsym(h, "ncclGetVersion"); err == nil && p != 0 {
		l.ncclGetVersion = p
		var v int32
		if r := call(p, uintptr(unsafe.Pointer(&v))); r != 0 {
			return nil, fmt.Errorf("ncclGetVersion: %s", Result(int32(uint32(r))))
		}
		l.Version = DecodeVersion(int(v))
		if l.Version.Less(MinVersion) {
			return nil, &VersionError{Library: c.Path, Have: l.Version, Need: MinVersion}
		}
	}
	for _, s := range l.required() {
		p, err := dlsym(h, s.name)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("missing symbol %s (NCCL older than %s?)", s.name, MinVersion)
		}
		*s.addr = p
	}
	for _, s := range l.optional() {
		if p, err := dlsym(h, s.name); err == nil {
			*s.addr = p
		}
	}
	l.Heap = chooseHeap(l.Version, l.ncclMemAlloc != 0 && l.ncclMemFree != 0 && l.ncclCommWindowRegister != 0 &&
		l.ncclCommWindowDeregister != 0 && l.ncclGetPeerDevicePointer != 0)
	opened[c.Path] = l
	return l, nil
}

// chooseHeap picks the heap mode: NCCL's peer pointers from 2.29 on when
// every entry point of that path is there, the driver's otherwise.
func chooseHeap(v Version, peerSymbols bool) HeapMode {
	if !v.Less(PeerPointerVersion) && peerSymbols {
		return PeerPointers
	}
	return DriverPeers
}

// call invokes a C function returning ncclResult_t; uintptrescapes keeps
// a Go pointer converted in the call expression alive and in place.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return uintptr(uint32(r))
}

//go:uintptrescapes
func callPtr(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// check turns an ncclResult_t into an error.
func (l *Library) check(fn string, r uintptr, comm uintptr) error {
	if r == 0 {
		return nil
	}
	code := Result(int32(uint32(r)))
	e := &Error{Func: fn, Code: code}
	e.Desc = cString(callPtr(l.ncclGetErrorString, uintptr(code)))
	e.Last = cString(callPtr(l.ncclGetLastError, comm))
	return e
}

// cString copies a NUL-terminated C string.
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	base := *(*unsafe.Pointer)(unsafe.Pointer(&p))
	n := 0
	for *(*byte)(unsafe.Add(base, n)) != 0 && n < 1<<16 {
		n++
	}
	return string(unsafe.Slice((*byte)(base), n))
}

// keepNVLSOff sets NCCL_NVLS_ENABLE=0 before a communicator is made
// (NVLink SHARP uses multicast objects, which TLE-Go keeps off), and
// refuses another value set by the user.
func keepNVLSOff() error {
	if v, ok := os.LookupEnv("NCCL_NVLS_ENABLE"); ok && strings.TrimSpace(v) != "0" {
		return fmt.Errorf("nccl: NCCL_NVLS_ENABLE=%s: TLE-Go keeps NVLink SHARP (multicast) off; unset it or set it to 0", v)
	}
	return os.Setenv("NCCL_NVLS_ENABLE", "0")
}

// keep is runtime.KeepAlive.
func keep(x any) { runtime.KeepAlive(x) }

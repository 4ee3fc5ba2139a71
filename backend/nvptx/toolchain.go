package nvptx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Toolchain turns LLVM IR (as EmitLLVM prints it) into PTX for an arch such
// as "sm_90a".
type Toolchain interface {
	Name() string
	PTX(llvmIR string, arch string) (string, error)
}

// UsesTensormaps reports whether LLVM IR from EmitLLVM builds tensor maps
// on the device (make_desc), which needs PTX 8.3.
func UsesTensormaps(llvmIR string) bool { return strings.Contains(llvmIR, "tensormap.replace.") }

// ---- llc

// LLC runs LLVM's static compiler (llc-19 or a newer llc).
type LLC struct {
	Path string // the llc binary
}

// Name is "llc".
func (*LLC) Name() string { return "llc" }

// FindLLC looks for an llc able to target sm_90a: $TLE_LLC, then llc-19 ..
// llc-22 on PATH, then an llc reporting LLVM 19 or newer.
func FindLLC() (string, error) {
	if p := os.Getenv("TLE_LLC"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("TLE_LLC=%s: %v", p, err)
		}
		return p, nil
	}
	for v := 22; v >= 19; v-- {
		if p, err := exec.LookPath(fmt.Sprintf("llc-%d", v)); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("llc"); err == nil {
		out, _ := exec.Command(p, "--version").Output()
		if m := regexp.MustCompile(`LLVM version (\d+)`).FindSubmatch(out); m != nil {
			if v, _ := strconv.Atoi(string(m[1])); v >= 19 {
				return p, nil
			}
			return "", fmt.Errorf("%s is LLVM %s; sm_90a needs LLVM 19 or newer", p, m[1])
		}
	}
	return "", errors.New("no llc-19 (or newer llc) on PATH; install llvm-19 or set TLE_LLC")
}

// PTX runs llc. On failure the error names the command line that reproduces
// it, with the IR kept in the temporary file it names.
func (l *LLC) PTX(llvmIR, arch string) (string, error) {
	f, err := os.CreateTemp("", "tle-*.ll")
	if err != nil {
		return "", err
	}
	path := f.Name()
	if _, err := f.WriteString(llvmIR); err != nil {
		f.Close()
		return "", err
	}
	f.Close()
	ptx := "+ptx80" // what toolchain.md verified; tensormap.replace needs 8.3
	if UsesTensormaps(llvmIR) {
		ptx = "+ptx83"
	}
	args := []string{"-O3", "-mtriple=" + Triple, "-mcpu=" + arch, "-mattr=" + ptx, path, "-o", "-"}
	cmd := exec.Command(l.Path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("llc failed (%v); reproduce with:\n  %s %s\n%s", err, l.Path, strings.Join(args[:len(args)-2], " ")+" -o out.ptx", stderr.String())
	}
	os.Remove(path)
	return stdout.String(), nil
}

// ---- libNVVM

// NVVMCompiler is the part of libNVVM the backend needs; runtime/cuda
// provides it (loaded at run time, no cgo).
type NVVMCompiler interface {
	Compile(ir string, opts []string) (ptx string, log string, err error)
}

// NVVM compiles through libNVVM after rewriting the IR into its LLVM 7
// dialect.
type NVVM struct {
	C NVVMCompiler
}

// Name is "nvvm".
func (*NVVM) Name() string { return "nvvm" }

// PTX rewrites the IR with ToNVVMDialect and compiles it for
// compute_<arch>.
func (n *NVVM) PTX(llvmIR, arch string) (string, error) {
	ir := ToNVVMDialect(llvmIR)
	opts := []string{"-arch=" + strings.Replace(arch, "sm_", "compute_", 1)}
	ptx, log, err := n.C.Compile(ir, opts)
	if err != nil {
		f, ferr := os.CreateTemp("", "tle-nvvm-*.ll")
		where := ""
		if ferr == nil {
			f.WriteString(ir)
			f.Close()
			where = fmt.Sprintf("\nthe IR given to libNVVM is in %s (options %s)", f.Name(), strings.Join(opts, " "))
		}
		return "", fmt.Errorf("libNVVM failed: %v\n%s%s", err, log, where)
	}
	return ptx, nil
}

var (
	reByval   = regexp.MustCompile(`byval\([^()]*\)`)
	reNewAttr = regexp.MustCompile(`\s(?:willreturn|nofree|nosync|mustprogress|noundef|immarg|nocallback)\b|\smemory\([^()]*\)`)
	reMDID    = regexp.MustCompile(`!(\d+)\b`)
)

// ToNVVMDialect rewrites LLVM IR printed by EmitLLVM into the LLVM 7 dialect
// libNVVM takes for sm_90a (shared/specs/toolchain.md): it adds
// !nvvmir.version, prints byval without its type, and drops attributes newer
// than LLVM 7. The IR is already typed-pointer, freeze-free and fneg-free.
func ToNVVMDialect(ir string) string {
	ir = reByval.ReplaceAllString(ir, "byval")
	ir = reNewAttr.ReplaceAllString(ir, "")
	next := 0
	for _, m := range reMDID.FindAllStringSubmatch(ir, -1) {
		if v, _ := strconv.Atoi(m[1]); v >= next {
			next = v + 1
		}
	}
	if !strings.Contains(ir, "!nvvmir.version") {
		ir += fmt.Sprintf("\n!nvvmir.version = !{!%d}\n!%d = !{i32 2, i32 0}\n", next, next)
	}
	return ir
}

// ---- selection

var (
	nvvmMu     sync.Mutex
	nvvmLoader func() (NVVMCompiler, error)
)

// RegisterNVVM installs the function that loads libNVVM (runtime/cuda calls
// it); Select uses it for the nvvm toolchain.
func RegisterNVVM(load func() (NVVMCompiler, error)) {
	nvvmMu.Lock()
	nvvmLoader = load
	nvvmMu.Unlock()
}

func loadNVVM() (NVVMCompiler, error) {
	nvvmMu.Lock()
	load := nvvmLoader
	nvvmMu.Unlock()
	if load == nil {
		return nil, errors.New("no libNVVM loader registered (runtime/cuda registers one)")
	}
	return load()
}

// Select returns the toolchain named "llc", "nvvm" or "auto" (llc when an
// llc-19 is installed, else libNVVM), and a sentence saying which was chosen
// and why the other was not.
func Select(name string) (Toolchain, string, error) {
	switch name {
	case "llc":
		p, err := FindLLC()
		if err != nil {
			return nil, "", err
		}
		return &LLC{Path: p}, "llc at " + p + " (requested)", nil
	case "nvvm":
		c, err := loadNVVM()
		if err != nil {
			return nil, "", fmt.Errorf("libNVVM: %w", err)
		}
		return &NVVM{C: c}, "libNVVM (requested)", nil
	case "auto", "":
		p, lerr := FindLLC()
		if lerr == nil {
			return &LLC{Path: p}, "llc at " + p + " (auto: llc is preferred when installed; libNVVM not needed)", nil
		}
		c, nerr := loadNVVM()
		if nerr == nil {
			return &NVVM{C: c}, "libNVVM (auto: llc skipped: " + lerr.Error() + ")", nil
		}
		return nil, "", fmt.Errorf("no PTX toolchain: llc: %v; libNVVM: %v", lerr, nerr)
	}
	return nil, "", fmt.Errorf("unknown toolchain %q (want auto, llc or nvvm)", name)
}

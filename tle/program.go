package tle

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/lower"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/passes"
)

// Program is one parsed and checked .tle source file. Its kernels may still
// have unbound compile-time parameters: they are checked symbolically, and
// bound when a kernel is compiled.
type Program struct {
	name string
	src  []byte
	file *ast.File
	info *check.Info
	programCache
}

// Parse parses and checks src as the file name. Errors are a diag.List with
// every problem found, each with its position. A source parsed from memory
// has no folder to import from: its imports are errors (use Load or
// LoadFile).
func Parse(name string, src []byte) (*Program, error) {
	return parse(name, src, nil)
}

// parse parses name and the files it imports (read reads them, by the path
// parser.Load resolved) and checks the program.
func parse(name string, src []byte, read parser.ReadFunc) (*Program, error) {
	f, err := parser.Load(name, src, read)
	if err != nil {
		return nil, err
	}
	info, errs := check.Check(f, check.Config{})
	if errs.HasErrors() {
		return nil, errs
	}
	return &Program{name: name, src: src, file: f, info: info}, nil
}

// LoadFile reads, parses and checks a .tle file (of at most 16 MiB:
// a wrong path, say /dev/zero, is an error rather than a crash). Its
// imports are read from disk, relative to the importing file's folder.
func LoadFile(path string) (*Program, error) {
	src, err := fileio.ReadFile(path, fileio.MaxSourceBytes)
	if err != nil {
		return nil, err
	}
	return parse(filepath.ToSlash(path), src, ReadDisk)
}

// ReadDisk reads an imported file from disk (its slash-separated path
// relative to the working directory or absolute), as LoadFile does.
func ReadDisk(name string) ([]byte, error) {
	return fileio.ReadFile(filepath.FromSlash(name), fileio.MaxSourceBytes)
}

// Load reads a .tle file from a file system, typically an embed.FS, and the
// files it imports from the same file system (an import that leaves it, a
// "../x.tle" of a file at its root, is an error):
//
//	//go:embed kernels/*.tle
//	var kernels embed.FS
//	prog, err := tle.Load(kernels, "kernels/softmax.tle")
func Load(fsys fs.FS, path string) (*Program, error) {
	if fsys == nil {
		return nil, fmt.Errorf("tle: Load of %s from a nil fs.FS", path)
	}
	if st, err := fs.Stat(fsys, path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("tle: Load: %s is a directory, not a .tle file", path)
	}
	src, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	return parse(filepath.ToSlash(path), src, func(name string) ([]byte, error) {
		if !fs.ValidPath(name) {
			return nil, fmt.Errorf("%s is outside the file system the program was loaded from", name)
		}
		return fs.ReadFile(fsys, name)
	})
}

// Name is the file name the program was parsed as ("" for a nil program).
func (p *Program) Name() string {
	if p == nil {
		return ""
	}
	return p.name
}

// Source is the program's text.
func (p *Program) Source() []byte {
	if p == nil {
		return nil
	}
	return p.src
}

// Kernels lists the program's kernel names, sorted.
func (p *Program) Kernels() []string {
	if p == nil {
		return nil
	}
	var names []string
	for _, d := range p.file.Decls {
		if k, ok := d.(*ast.KernelDecl); ok {
			names = append(names, k.Name.Name)
		}
	}
	sort.Strings(names)
	return names
}

// Kernel looks a kernel up by name.
func (p *Program) Kernel(name string) (*Kernel, error) {
	if p == nil {
		return nil, errors.New("tle: Kernel of a nil *tle.Program (use one from tle.Load, LoadFile or Parse)")
	}
	for _, d := range p.file.Decls {
		if k, ok := d.(*ast.KernelDecl); ok && k.Name.Name == name {
			return &Kernel{prog: p, decl: k}, nil
		}
	}
	return nil, fmt.Errorf("%s has no kernel %q (kernels: %v)", p.name, name, p.Kernels())
}

// Kernel is one kernel of a program.
type Kernel struct {
	prog *Program
	decl *ast.KernelDecl
}

// Param describes a kernel parameter.
type Param struct {
	Name  string
	Type  string // as written: *f32, i32, desc[bf16, 64, 64], ...
	Const bool   // a compile-time parameter, bound with Defines
}

// Name is the kernel's name ("" for a nil kernel).
func (k *Kernel) Name() string {
	if k == nil {
		return ""
	}
	return k.decl.Name.Name
}

// Program is the program the kernel belongs to.
func (k *Kernel) Program() *Program {
	if k == nil {
		return nil
	}
	return k.prog
}

// Params lists the kernel's parameters in order.
func (k *Kernel) Params() []Param {
	if k == nil {
		return nil
	}
	var out []Param
	for _, p := range k.decl.Params {
		out = append(out, Param{Name: p.Name.Name, Type: string(k.prog.src[p.Type.Pos():p.Type.End()]), Const: p.Const})
	}
	return out
}

// ParamsWith lists the kernel's parameters as Params does, with each
// dtype parameter (T const dtype) that defines binds written as its dtype
// in the other parameters' types: x *T with T=bf16 is x *bf16.
func (k *Kernel) ParamsWith(defines map[string]string) []Param {
	ps := k.Params()
	bound := map[string]string{}
	for _, p := range k.decl.Params {
		if n, ok := p.Type.(*ast.NamedType); ok && p.Const && n.Name.Name == "dtype" {
			if d, ok := defines[p.Name.Name]; ok {
				bound[p.Name.Name] = d
			}
		}
	}
	if len(bound) == 0 {
		return ps
	}
	word := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	for i := range ps {
		if !ps[i].Const {
			ps[i].Type = word.ReplaceAllStringFunc(ps[i].Type, func(w string) string {
				if d, ok := bound[w]; ok {
					return d
				}
				return w
			})
		}
	}
	return ps
}

// IR checks the kernel with its bindings, lowers it to the tile IR and runs
// the pass pipeline. The module holds the kernel alone (helpers inlined).
func (k *Kernel) IR(opts CompileOptions) (*IRModule, error) {
	if k == nil {
		return nil, errNilKernel("IR")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if errs := k.checkBound(opts.Defines); errs != nil {
		return nil, errs
	}
	m, err := lower.Kernel(k.prog.file, k.Name(), lower.Options{Defines: opts.Defines, NumWarps: opts.NumWarps})
	if err != nil {
		return nil, err
	}
	opts.annotate(m.Func(k.Name()))
	err = passes.Run(m, passes.Options{VerifyEach: opts.VerifyEach, DumpAfter: opts.DumpAfter, DumpDir: opts.DumpDir, Observe: opts.view.observer()})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// unbound lists the kernel's compile-time parameters that defines does
// not bind, in order.
func (k *Kernel) unbound(defines map[string]string) []*ast.Param {
	var out []*ast.Param
	for _, p := range k.decl.Params {
		if _, ok := defines[p.Name.Name]; p.Const && !ok {
			out = append(out, p)
		}
	}
	return out
}

// checkBound re-checks the kernel with the bindings (so a bad -D value is
// reported at the parameter) and makes sure every compile-time parameter of
// this kernel is bound. The file passed Check unbound when it was loaded,
// so only this kernel and its helpers are checked again.
func (k *Kernel) checkBound(defines map[string]string) diag.List {
	var errs diag.List
	for _, p := range k.unbound(defines) {
		errs.Add(k.prog.file.File, p.Pos(), p.End(), "compile-time parameter %s of kernel %s is not bound: pass -D %s=VALUE", p.Name.Name, k.Name(), p.Name.Name)
	}
	if errs != nil {
		return errs
	}
	if _, errs := check.Check(k.prog.file, check.Config{Defines: defines, Kernel: k.Name()}); errs.HasErrors() {
		return errs
	}
	return nil
}

// errNilKernel is the error of a method called on a nil *Kernel.
func errNilKernel(method string) error {
	return fmt.Errorf("tle: %s of a nil *tle.Kernel (use one from Program.Kernel)", method)
}

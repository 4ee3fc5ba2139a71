package tle

import (
	"errors"
	"strings"

	"github.com/tlego/tle/diag"
)

// CheckTarget reports what of the kernel would not build for the GPU target
// g.Arch ("sm_90a" when empty): it compiles the kernel with opts through the
// pass pipeline and the backend down to LLVM IR (Build with emit "ll": no
// PTX toolchain runs), and returns the first error, with its position in
// the source when the compiler knows it (always a *diag.Diagnostic or a
// diag.List). A kernel with compile-time parameters that opts.Defines does
// not bind cannot be compiled: CheckTarget then returns a
// *diag.Diagnostic of severity diag.Note at the kernel's name, saying which
// parameters to bind. It is what `tlec check --arch` runs.
func (k *Kernel) CheckTarget(opts CompileOptions, g GPUOptions) error {
	if k == nil {
		return errNilKernel("CheckTarget")
	}
	g = g.withDefaults()
	if err := CheckArch(g.Arch); err != nil {
		return err
	}
	file := k.prog.file.File
	var unbound, binds []string
	for _, p := range k.unbound(opts.Defines) {
		unbound = append(unbound, p.Name.Name)
		binds = append(binds, "-D "+p.Name.Name+"=VALUE")
	}
	if len(unbound) > 0 {
		d := diag.Errorf(file, k.decl.Name.Pos(), "kernel %s was not compiled for %s: its compile-time parameters %s are not bound (bind them with %s)",
			k.Name(), g.Arch, strings.Join(unbound, ", "), strings.Join(binds, " "))
		if len(unbound) == 1 {
			d.Msg = "kernel " + k.Name() + " was not compiled for " + g.Arch + ": its compile-time parameter " + unbound[0] +
				" is not bound (bind it with " + binds[0] + ")"
		}
		d.Severity = diag.Note
		return d
	}
	_, err := k.Build(opts, g, "ll")
	if err == nil {
		return nil
	}
	var l diag.List
	var d *diag.Diagnostic
	if errors.As(err, &l) || errors.As(err, &d) {
		return err
	}
	// an error the compiler has no position for: at the kernel
	return diag.Errorf(file, k.decl.Name.Pos(), "kernel %s does not build for %s: %v", k.Name(), g.Arch, err)
}

// CheckTarget runs Kernel.CheckTarget on every kernel of the program and
// returns what they report, sorted by position, as one diag.List: nil when
// nothing is reported, and a List of notes alone (kernels not compiled)
// when nothing failed but not every kernel was compiled; its HasErrors
// tells the two apart. An unknown g.Arch is a plain error.
func (p *Program) CheckTarget(opts CompileOptions, g GPUOptions) error {
	if err := CheckArch(g.withDefaults().Arch); err != nil {
		return err
	}
	var out diag.List
	for _, name := range p.Kernels() {
		k, err := p.Kernel(name)
		if err != nil {
			return err
		}
		err = k.CheckTarget(opts, g)
		var l diag.List
		var d *diag.Diagnostic
		switch {
		case err == nil:
		case errors.As(err, &l):
			out = append(out, l...)
		case errors.As(err, &d):
			out = append(out, d)
		default:
			out = append(out, diag.Errorf(p.file.File, k.decl.Name.Pos(), "kernel %s: %v", name, err))
		}
	}
	if len(out) == 0 {
		return nil
	}
	out.Sort()
	return out
}

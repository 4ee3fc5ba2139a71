package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/format"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/tle"
)

type checkFlags struct {
	defines multiFlag
	arch    string
}

func init() {
	register(&command{
		name:    "check",
		usage:   "[-D NAME=VALUE]... [--arch sm_90a] FILE...",
		summary: "check .tle files and report every error",
		help: `Check parses and type-checks each file and prints every error found,
sorted by position, as FILE:LINE:COL: error: message, followed by the source
line and a caret. Unbound compile-time (const) parameters are checked
symbolically; -D NAME=VALUE binds one, specialising the kernels that take it.

--arch TARGET (the flag of tlec build: ` + strings.Join(tle.Targets(), ", ") + `)
also reports what would not build for that GPU target: each kernel whose
compile-time parameters are all bound is compiled through the GPU passes
and the backend down to LLVM IR (as tlec build --emit ll, without a PTX
toolchain), and what fails is reported at its position like a check error.
A kernel with unbound compile-time parameters is only checked, and a note
says which to bind.
The exit status is 1 when any file has errors.`,
		flags: func(fs *flag.FlagSet) any {
			c := &checkFlags{}
			registerDefines(fs, &c.defines)
			fs.StringVar(&c.arch, "arch", "", "also compile the kernels for this GPU `target` (as tlec build --arch) and report what would not build")
			return c
		},
		run: runCheck,
	})
	register(&command{
		name:    "fmt",
		usage:   "[-w] [FILE...]",
		summary: "format .tle files canonically",
		help: `Fmt prints each file in the one canonical format (docs/language.md,
"Formatting"). With -w it rewrites the files in place instead, touching only
those that change. With no files it formats standard input to standard
output. A file with syntax errors is reported and left untouched.`,
		flags: func(fs *flag.FlagSet) any {
			return fs.Bool("w", false, "write the result back to each file instead of printing it")
		},
		run: runFmt,
	})
}

// parseDefines turns -D arguments into a map, reporting the first bad one
// (a name bound twice is an error, as a repeated --arg is).
func parseDefines(e *env, cmd string, ds []string) (map[string]string, bool) {
	out, err := defineMap(ds)
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec %s: %v\n", cmd, err)
		return nil, false
	}
	return out, true
}

func defineMap(ds []string) (map[string]string, error) {
	out := map[string]string{}
	for _, d := range ds {
		name, value, err := check.ParseDefine(d)
		if err != nil {
			return nil, err
		}
		if first, dup := out[name]; dup {
			return nil, fmt.Errorf("-D %s: %s is bound twice (first -D %s=%s); bind each compile-time parameter once", d, name, name, first)
		}
		out[name] = value
	}
	return out, nil
}

func runCheck(e *env, cfg any, files []string) int {
	c := cfg.(*checkFlags)
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "tlec check: no files named\nusage: tlec check [-D NAME=VALUE]... [--arch sm_90a] FILE...")
		return 2
	}
	defines, ok := parseDefines(e, "check", c.defines)
	if !ok {
		return 2
	}
	if c.arch != "" {
		if err := tle.CheckArch(c.arch); err != nil {
			fmt.Fprintf(e.stderr, "tlec check: %v\n", err)
			return 2
		}
	}
	status := 0
	for _, path := range files {
		src, err := fileio.ReadFile(path, fileio.MaxSourceBytes)
		if err != nil {
			fmt.Fprintf(e.stderr, "tlec check: %v\n", err)
			status = 1
			continue
		}
		errs := checkSource(path, src, defines)
		if len(errs) > 0 {
			errs.Format(e.stderr)
			if errs.HasErrors() {
				status = 1
				continue
			}
		}
		if c.arch != "" && checkTarget(e, path, src, defines, c.arch) {
			status = 1
		}
	}
	return status
}

// checkTarget compiles the kernels of a file that checks for arch and prints
// what would not build; it reports whether anything was an error.
func checkTarget(e *env, path string, src []byte, defines map[string]string, arch string) bool {
	prog, err := tle.LoadFile(path)
	if err == nil {
		err = prog.CheckTarget(tle.CompileOptions{Defines: defines}, tle.GPUOptions{Arch: arch})
	}
	if err == nil {
		return false
	}
	printError(e.stderr, "check", err)
	var l diag.List
	return !errors.As(err, &l) || l.HasErrors()
}

// checkSource parses and checks one file and returns its diagnostics.
func checkSource(name string, src []byte, defines map[string]string) diag.List {
	f, err := parser.Load(filepath.ToSlash(name), src, tle.ReadDisk)
	if err != nil {
		var l diag.List
		if errors.As(err, &l) {
			return l
		}
		return diag.List{diag.Errorf(diag.NewFile(name, src), 0, "%v", err)}
	}
	_, errs := check.Check(f, check.Config{Defines: defines})
	return errs
}

func runFmt(e *env, cfg any, files []string) int {
	write := *cfg.(*bool)
	if len(files) == 0 {
		if write {
			fmt.Fprintln(e.stderr, "tlec fmt: -w needs file names")
			return 2
		}
		src, err := io.ReadAll(e.stdin)
		if err != nil {
			fmt.Fprintf(e.stderr, "tlec fmt: reading standard input: %v\n", err)
			return 1
		}
		out, err := format.Source("<stdin>", src)
		if err != nil {
			printError(e.stderr, "fmt", err)
			return 1
		}
		e.stdout.Write(out)
		return 0
	}
	status := 0
	for _, path := range files {
		src, err := fileio.ReadFile(path, fileio.MaxSourceBytes)
		if err != nil {
			fmt.Fprintf(e.stderr, "tlec fmt: %v\n", err)
			status = 1
			continue
		}
		out, err := format.Source(path, src)
		if err != nil {
			printError(e.stderr, "fmt", err)
			status = 1
			continue
		}
		if !write {
			e.stdout.Write(out)
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		if err := writeFileAtomic(path, out); err != nil {
			fmt.Fprintf(e.stderr, "tlec fmt: %v\n", err)
			status = 1
		}
	}
	return status
}

// printError prints a diag.List with excerpts, or any other error plainly.
func printError(w io.Writer, cmd string, err error) {
	var l diag.List
	if errors.As(err, &l) {
		l.Format(w)
		return
	}
	var d *diag.Diagnostic
	if errors.As(err, &d) {
		d.Format(w)
		return
	}
	fmt.Fprintf(w, "tlec %s: %v\n", cmd, err)
}

// writeFileAtomic replaces path's target (links are written through)
// with data through a temporary file, so that an interrupted write never
// leaves half a file (fileio.WriteAtomic).
func writeFileAtomic(path string, data []byte) error {
	return fileio.WriteAtomic(path, 0o666, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

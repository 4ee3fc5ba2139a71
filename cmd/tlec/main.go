// Command tlec is the TLE-Go compiler driver: it checks, formats, builds and
// runs .tle kernels, runs registered ops and benchmarks them.
//
// Flags may come before or after file names in every command. `tlec help`
// lists the commands; `tlec help CMD` describes one. This package holds
// flags, I/O and printing only: the compiler lives in the packages it calls.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/tle"
)

// version is the compiler version; it is part of the JIT cache key.
const version = tle.Version

// maxPTXBytes bounds a PTX file for tlec run --ptx (the other bounded
// reads: fileio.MaxSourceBytes, registry.MaxParamsBytes), so that a wrong
// path (a multi-gigabyte file) is an error, not an out-of-memory crash.
const maxPTXBytes = 256 << 20

// command is one tlec subcommand.
type command struct {
	name    string
	usage   string // the synopsis after "tlec NAME"
	summary string
	help    string // longer description printed by `tlec help NAME`
	flags   func(fs *flag.FlagSet) any
	// argFlags, when set instead of flags, declares flags that depend on
	// the arguments (bench: the suite's own).
	argFlags func(fs *flag.FlagSet, args []string) any
	run      func(env *env, cfg any, args []string) int
}

// env carries the process's streams so that commands are testable.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func main() {
	fileio.CleanupOnSignal() // an interrupted --save, -o or fmt -w leaves no temporary file
	os.Exit(runGuarded(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

// exitInternal is the exit status of a run that hit a bug in tlec.
const exitInternal = 3

// runGuarded is run with a last line of defence: a panic is a bug in tlec,
// never the way an error is reported, so it is printed as an internal error
// with a request to report it (and the stack, which the report needs).
func runGuarded(e *env, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "tlec: internal error: %v\n\n%s\n", r, debug.Stack())
			fmt.Fprintf(e.stderr, "This is a bug in tlec, not in your input. Please report it with the command line\n(tlec %s) and the files it names.\n", strings.Join(args, " "))
			code = exitInternal
		}
	}()
	return run(e, args)
}

// run dispatches a command line and returns the exit status: 0 on success, 1
// when the input has errors, 2 for a usage error.
func run(e *env, args []string) int {
	if len(args) == 0 {
		usage(e.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "tlec: unknown command %q\n", name)
		usage(e.stderr)
		return 2
	}
	fs := flag.NewFlagSet("tlec "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg any
	if c.flags != nil {
		cfg = c.flags(fs)
	}
	if c.argFlags != nil {
		cfg = c.argFlags(fs, args[1:])
	}
	once := onceFlags(fs)
	pos, err := parseInterspersed(fs, args[1:])
	once.restore() // the flags as declared: their help shows their own types and defaults
	if once.err != nil {
		err = once.err
	}
	if errors.Is(err, flag.ErrHelp) {
		if h, ok := cfg.(interface{ helpText() (usage, help string) }); ok {
			u, text := h.helpText()
			commandHelp(e.stdout, &command{name: c.name, usage: u, help: text}, fs)
			return 0
		}
		commandHelp(e.stdout, c, fs)
		return 0
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec %s: %v\n", c.name, err)
		fmt.Fprintf(e.stderr, "usage: tlec %s %s\n", c.name, c.usage)
		return 2
	}
	return c.run(e, cfg, pos)
}

// parseInterspersed parses flags wherever they appear among the positional
// arguments (the flag package alone stops at the first non-flag); "--" ends
// flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "tlec is the TLE-Go compiler: kernels for Hopper GPUs, written in .tle.")
	fmt.Fprintln(w, "\nUsage:\n\n\ttlec <command> [arguments]\n\nThe commands are:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "\t%-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nUse \"tlec help <command>\" for more information about a command.")
}

func commandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: tlec %s %s\n\n%s\n", c.name, c.usage, strings.TrimSpace(c.help))
	if fs != nil {
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		if b.Len() > 0 {
			fmt.Fprintf(w, "\nFlags:\n%s", b.String())
		}
	}
}

func init() {
	register(&command{
		name:    "help",
		usage:   "[command]",
		summary: "describe a command",
		help:    "Help prints the list of commands, or the usage, description and flags of one.",
		run: func(e *env, _ any, args []string) int {
			if len(args) == 0 {
				usage(e.stdout)
				return 0
			}
			c, ok := commands[args[0]]
			if !ok {
				fmt.Fprintf(e.stderr, "tlec help: unknown command %q\n", args[0])
				return 2
			}
			fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
			if c.flags != nil {
				c.flags(fs)
			}
			if c.argFlags != nil {
				c.argFlags(fs, args[1:])
			}
			commandHelp(e.stdout, c, fs)
			return 0
		},
	})
	register(&command{
		name:    "version",
		usage:   "",
		summary: "print the compiler version",
		help:    "Version prints the tlec version, which is also part of every JIT cache key.",
		run: func(e *env, _ any, _ []string) int {
			fmt.Fprintf(e.stdout, "tlec %s\n", version)
			return 0
		},
	})
}

// multiFlag is a repeatable string flag (-D NAME=VALUE, --arg NAME=VALUE).
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// repeatable marks multiFlag as a flag that may be given many times.
func (m *multiFlag) repeatable() {}

// onceGuard refuses a single-valued flag given twice: --grid 4 --grid 1
// would otherwise run the last one silently. err is the first repeat.
type onceGuard struct {
	err     error
	wrapped map[*flag.Flag]flag.Value // each wrapped flag's own value
}

// restore puts every flag's own value back (flag's help reads a value's
// type and zero value, which a wrapper would hide).
func (g *onceGuard) restore() {
	for f, v := range g.wrapped {
		f.Value = v
	}
}

// onceFlags wraps every flag of fs that is not repeatable (multiFlag) so
// that a second value is an error naming the flag and both values.
func onceFlags(fs *flag.FlagSet) *onceGuard {
	g := &onceGuard{wrapped: map[*flag.Flag]flag.Value{}}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(interface{ repeatable() }); !ok {
			g.wrapped[f] = f.Value
			f.Value = &onceValue{Value: f.Value, name: f.Name, guard: g}
		}
	})
	return g
}

// onceValue is a flag value that may be set once.
type onceValue struct {
	flag.Value
	name  string
	first string
	set   bool
	guard *onceGuard
}

// String is the value's text ("" for the zero onceValue that flag makes
// to tell a default from the zero value).
func (v *onceValue) String() string {
	if v.Value == nil {
		return ""
	}
	return v.Value.String()
}

func (v *onceValue) Set(s string) error {
	if v.set {
		err := fmt.Errorf("--%s is given twice (%s, then %s): give it once", v.name, v.first, s)
		if v.guard.err == nil {
			v.guard.err = err
		}
		return err
	}
	v.set, v.first = true, s
	return v.Value.Set(s)
}

// IsBoolFlag keeps a boolean flag valueless (--json, not --json=true).
func (v *onceValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/tlego/tle/tle"
)

// compileFlags are the flags that say how a kernel is compiled, declared
// once for every command that compiles kernels: tlec build and tlec run
// today, tlec bench when it takes them. Each has the name, default and
// meaning it has in tlec build, so `tlec help CMD` describes them alike
// wherever they appear. A command keeps one in its flags, registers it on
// its flag set and asks it for the API's options once the flags are
// parsed:
//
//	type benchFlags struct {
//		compile compileFlags
//		...
//	}
//
//	flags: func(fs *flag.FlagSet) any {
//		b := &benchFlags{}
//		b.compile.register(fs)
//		...
//	}
//
//	opts, err := b.compile.options()  // -D, warps, stages, dumps...: tle.CompileOptions
//	g, err := b.compile.gpuOptions()  // --arch, --toolchain: tle.GPUOptions
//
// An error from either is a usage error (exit status 2), printed after the
// command's name ("tlec bench: ..."). The values themselves (warps a power
// of two, stages at most tle.MaxNumStages...) are checked by the API when
// it compiles, as for any Go caller.
type compileFlags struct {
	defines    multiFlag
	target     targetFlags
	numWarps   int
	numStages  int
	minCTAs    int
	loopAddr   bool
	dotWgmma   bool
	verifyEach bool
	dumpAfter  string
	dumpDir    string
}

// register declares the compile flags on fs.
func (c *compileFlags) register(fs *flag.FlagSet) {
	registerDefines(fs, &c.defines)
	c.target.register(fs)
	fs.IntVar(&c.numWarps, "num-warps", 0, "warps per CTA outside warp_specialize (0: 4)")
	fs.IntVar(&c.numStages, "num-stages", 0, "software-pipeline depth of the loads feeding a loop's products (0: 3; 1: none)")
	fs.IntVar(&c.minCTAs, "min-ctas", 0, "CTAs per SM that ptxas must make room for (the minctasm annotation; 0: none)")
	fs.BoolVar(&c.loopAddr, "loop-addresses", false, "compute per-thread addresses in each iteration of the outermost loops instead of at the kernel's entry (fewer registers live across a persistent loop)")
	fs.BoolVar(&c.dotWgmma, "dot-wgmma", true, "run dots whose operands are loaded from global memory as wgmma where their shapes allow (sm_90a); --dot-wgmma=false keeps mma.sync")
	fs.BoolVar(&c.verifyEach, "verify-each", false, "verify the IR after every pass")
	fs.StringVar(&c.dumpAfter, "dump-after", "", dumpAfterHelp())
	fs.StringVar(&c.dumpDir, "dump-dir", ".", "where --dump-after writes")
}

// options are the compile options the flags ask for; an error is a bad or
// repeated -D binding.
func (c *compileFlags) options() (tle.CompileOptions, error) {
	defines, err := defineMap(c.defines)
	if err != nil {
		return tle.CompileOptions{}, err
	}
	o := tle.CompileOptions{Defines: defines, NumWarps: c.numWarps, NumStages: c.numStages, MinCTAsPerSM: c.minCTAs,
		LoopAddresses: c.loopAddr, DotMMASync: !c.dotWgmma, VerifyEach: c.verifyEach, DumpAfter: c.dumpAfter, DumpDir: c.dumpDir}
	if err := o.Validate(); err != nil {
		return tle.CompileOptions{}, flagError(err)
	}
	return o, nil
}

// gpuOptions are the target and toolchain the flags ask for; an error is
// an --arch that is not among tle.Targets.
func (c *compileFlags) gpuOptions() (tle.GPUOptions, error) { return c.target.gpuOptions() }

// targetFlags are the compile flags that choose the GPU target and the
// PTX toolchain: part of compileFlags, and all of them that tlec bench
// takes (a suite sets each kernel's own options).
type targetFlags struct {
	arch      string
	toolchain string
}

// register declares --arch and --toolchain on fs.
func (t *targetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.arch, "arch", "sm_90a", "the GPU architecture: "+strings.Join(tle.Targets(), ", "))
	fs.StringVar(&t.toolchain, "toolchain", "", "the PTX toolchain: auto, llc or nvvm (default: $TLE_TOOLCHAIN, else auto)")
}

// gpuOptions are the target and toolchain the flags ask for, validated.
func (t *targetFlags) gpuOptions() (tle.GPUOptions, error) {
	g := tle.GPUOptions{Arch: t.arch, Toolchain: t.toolchain}
	if err := g.Validate(); err != nil {
		return tle.GPUOptions{}, flagError(err)
	}
	return g, nil
}

// registerDefines declares -D, which binds compile-time parameters, on
// fs: for the compile flags and for tlec check.
func registerDefines(fs *flag.FlagSet, defines *multiFlag) {
	fs.Var(defines, "D", "bind a compile-time parameter: `NAME=VALUE` (repeatable)")
}

// dumpAfterHelp is the help text of the --dump-after flag, from the pass
// table (tle.PassNames).
func dumpAfterHelp() string {
	names, gpu := tle.PassNames()
	var tile, dev []string
	for i, n := range names {
		if gpu[i] {
			dev = append(dev, n)
		} else {
			tile = append(tile, n)
		}
	}
	return "dump the IR after `PASS` (or all) as <kernel>_<seq>__<pass>.tir; passes: " + strings.Join(tile, ", ") +
		"; on the GPU only: " + strings.Join(dev, ", ")
}

// flagError names the flag behind an options error ("num warps 3: ..." is
// --num-warps 3's).
func flagError(err error) error {
	msg := err.Error()
	for _, f := range []struct{ api, flag string }{{"num warps ", "--num-warps "}, {"num stages ", "--num-stages "},
		{"min CTAs per SM ", "--min-ctas "}, {"dump after ", "--dump-after "}, {"toolchain ", "--toolchain "}, {"arch ", "--arch "}} {
		if strings.HasPrefix(msg, f.api) {
			return errors.New(f.flag + strings.TrimPrefix(msg, f.api))
		}
	}
	return err
}

// load is what build and run do first: the compile options and the GPU
// target from the flags, then FILE and its kernel (kernel, or the file's
// one). On failure it has printed the error after "tlec CMD: " and code is
// the exit status: 2 for a bad flag or kernel name, 1 for errors in FILE.
func (c *compileFlags) load(e *env, cmd, file, kernel string) (k *tle.Kernel, opts tle.CompileOptions, g tle.GPUOptions, code int) {
	opts, err := c.options()
	if err == nil {
		g, err = c.gpuOptions()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec %s: %v\n", cmd, err)
		return nil, opts, g, 2
	}
	prog, err := tle.LoadFile(file)
	if err != nil {
		printError(e.stderr, cmd, err)
		return nil, opts, g, 1
	}
	if k, err = pickKernel(prog, kernel); err != nil {
		fmt.Fprintf(e.stderr, "tlec %s: %v\n", cmd, err)
		return nil, opts, g, 2
	}
	return k, opts, g, 0
}

// launchFlags are the flags of a command that launches one kernel as tlec
// run does (run, bench FILE.tle, tune): which kernel, the grid, the
// arguments, the device, a time limit and the compile flags.
type launchFlags struct {
	kernel  string
	grid    string
	args    multiFlag
	device  string
	timeout time.Duration
	compile compileFlags
}

// register declares them; verb completes "the kernel to ...", and timeout
// is the --timeout default with what it stops.
func (l *launchFlags) register(fs *flag.FlagSet, verb string, timeout time.Duration, timeoutHelp string) {
	fs.StringVar(&l.kernel, "kernel", "", "the kernel to "+verb)
	fs.StringVar(&l.grid, "grid", "", "CTAs to launch: X[,Y[,Z]]")
	fs.Var(&l.args, "arg", "a runtime argument: `NAME=VALUE` (repeatable; a number, a .npy file, zeros:AxB, rand:AxB for random data, None)")
	fs.StringVar(&l.device, "device", "auto", "auto, cpu or cuda")
	fs.DurationVar(&l.timeout, "timeout", timeout, timeoutHelp)
	l.compile.register(fs)
}

package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/tlego/tle/tle"
)

type buildFlags struct {
	kernel     string
	defines    multiFlag
	arch       string
	emit       string
	out        string
	toolchain  string
	numWarps   int
	minCTAs    int
	loopAddr   bool
	numStages  int
	dotWgmma   bool
	verifyEach bool
	dumpAfter  string
	dumpDir    string
}

func init() {
	register(&command{
		name:    "build",
		usage:   "FILE --kernel NAME [-D NAME=VALUE]... [--arch sm_90a] --emit tir|ll|ptx [-o OUT] [--toolchain auto|llc|nvvm]",
		summary: "compile a kernel to tile IR, LLVM IR or PTX",
		help: `Build compiles one kernel of FILE, specialised with -D, and writes the
stage named by --emit: the tile IR after every pass (tir), the LLVM IR for
NVPTX (ll) or PTX (ptx), to -o or standard output.

PTX comes from llc-19 or libNVVM (--toolchain; auto prefers llc when it is
installed and says on standard error which it used and why). PTX written
here runs on a GPU host through tlec run --ptx FILE, so a machine with LLVM
and no GPU can build what a GPU host without LLVM runs. When PTX generation
fails, the error shows the command that reproduces it.

--arch names the target: ` + strings.Join(tle.Targets(), ", ") + ` (the default
sm_90a is Hopper with wgmma; TMA, clusters and mbarrier transactions need
sm_90 or sm_90a; earlier targets keep every dot on mma.sync).`,
		flags: func(fs *flag.FlagSet) any {
			b := &buildFlags{}
			fs.StringVar(&b.kernel, "kernel", "", "the kernel to build")
			fs.Var(&b.defines, "D", "bind a compile-time parameter: `NAME=VALUE` (repeatable)")
			fs.StringVar(&b.arch, "arch", "sm_90a", "the GPU architecture")
			fs.StringVar(&b.emit, "emit", "ptx", "what to write: tir, ll or ptx")
			fs.StringVar(&b.out, "o", "", "output file (default: standard output)")
			fs.StringVar(&b.toolchain, "toolchain", "auto", "auto, llc or nvvm")
			fs.IntVar(&b.numWarps, "num-warps", 0, "warps per CTA outside warp_specialize (0: 4)")
			fs.IntVar(&b.minCTAs, "min-ctas", 0, "CTAs per SM that ptxas must make room for (the minctasm annotation; 0: none)")
			fs.BoolVar(&b.loopAddr, "loop-addresses", false, "compute per-thread addresses in each iteration of the outermost loops instead of at the kernel's entry (fewer registers live across a persistent loop)")
			fs.IntVar(&b.numStages, "num-stages", 0, "software-pipeline depth of the loads feeding a loop's products (0: 3; 1: none)")
			fs.BoolVar(&b.dotWgmma, "dot-wgmma", true, "run dots whose operands are loaded from global memory as wgmma where their shapes allow (sm_90a); --dot-wgmma=false keeps mma.sync")
			fs.BoolVar(&b.verifyEach, "verify-each", false, "verify the IR after every pass")
			fs.StringVar(&b.dumpAfter, "dump-after", "", dumpAfterHelp())
			fs.StringVar(&b.dumpDir, "dump-dir", ".", "where --dump-after writes")
			return b
		},
		run: runBuild,
	})
}

func runBuild(e *env, cfg any, files []string) int {
	b := cfg.(*buildFlags)
	if len(files) != 1 {
		fmt.Fprintf(e.stderr, "tlec build: name exactly one .tle file (got %d)\n", len(files))
		return 2
	}
	if b.kernel == "" {
		fmt.Fprintln(e.stderr, "tlec build: --kernel is required")
		return 2
	}
	defines, ok := parseDefines(e, "build", b.defines)
	if !ok {
		return 2
	}
	if err := tle.CheckArch(b.arch); err != nil {
		fmt.Fprintf(e.stderr, "tlec build: %v\n", err)
		return 2
	}
	prog, err := tle.LoadFile(files[0])
	if err != nil {
		printError(e.stderr, "build", err)
		return 1
	}
	k, err := prog.Kernel(b.kernel)
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec build: %v\n", err)
		return 2
	}
	opts := tle.CompileOptions{Defines: defines, NumWarps: b.numWarps, MinCTAsPerSM: b.minCTAs, LoopAddresses: b.loopAddr, NumStages: b.numStages, DotMMASync: !b.dotWgmma, VerifyEach: b.verifyEach, DumpAfter: b.dumpAfter, DumpDir: b.dumpDir}
	art, err := k.Build(opts, tle.GPUOptions{Arch: b.arch, Toolchain: b.toolchain}, b.emit)
	if err != nil {
		printError(e.stderr, "build", err)
		return 1
	}
	text := art.TIR
	switch b.emit {
	case "ll":
		text = art.LLVMIR
	case "ptx":
		text = art.Binary.PTX
		fmt.Fprintf(e.stderr, "tlec build: PTX from %s\n", art.Binary.Toolchain)
	}
	if b.out == "" {
		fmt.Fprint(e.stdout, text)
		return 0
	}
	if err := writeFileAtomic(b.out, []byte(text)); err != nil {
		fmt.Fprintf(e.stderr, "tlec build: %v\n", err)
		return 1
	}
	return 0
}

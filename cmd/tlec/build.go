package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/tlego/tle/tle"
)

type buildFlags struct {
	kernel  string
	emit    string
	out     string
	compile compileFlags
}

func init() {
	register(&command{
		name:    "build",
		usage:   "FILE [--kernel NAME] [-D NAME=VALUE]... [--arch sm_90a] --emit tir|ll|ptx [-o OUT] [--toolchain auto|llc|nvvm]",
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
			fs.StringVar(&b.kernel, "kernel", "", "the kernel to build (may be left out when FILE has one)")
			fs.StringVar(&b.emit, "emit", "ptx", "what to write: tir, ll or ptx")
			fs.StringVar(&b.out, "o", "", "output file (default: standard output)")
			b.compile.register(fs)
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
	k, opts, gopts, code := b.compile.load(e, "build", files[0], b.kernel)
	if k == nil {
		return code
	}
	art, err := k.Build(opts, gopts, b.emit)
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

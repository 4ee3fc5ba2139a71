package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/tlego/tle/tle"
)

type buildFlags struct {
	kernel  string
	emit    string
	out     string
	html    string
	compile compileFlags
}

func init() {
	register(&command{
		name:    "build",
		usage:   "FILE [--kernel NAME] [-D NAME=VALUE]... [--arch sm_90a] --emit tir|ll|ptx [-o OUT] [--toolchain auto|llc|nvvm] [--html OUT.html]",
		summary: "compile a kernel to tile IR, LLVM IR or PTX",
		help: `Build compiles one kernel of FILE, specialised with -D, and writes the
stage named by --emit: the tile IR after every pass (tir), the LLVM IR for
NVPTX (ll) or PTX (ptx), to -o or standard output.

PTX comes from llc-19 or libNVVM (--toolchain; auto prefers llc when it is
installed and says on standard error which it used and why). PTX written
here runs on a GPU host through tlec run --ptx FILE, so a machine with LLVM
and no GPU can build what a GPU host without LLVM runs. When PTX generation
fails, the error shows the command that reproduces it.

--html OUT.html writes, instead of an --emit stage, the pass viewer: one
self-contained page with the source, the tile IR after every pass (what
each changed marked), the LLVM IR and the PTX in columns; a click on a
value or a source line highlights it in every column. TLE_HTML=KERNEL does
the same for the JIT (KERNEL.html in the dump directory).

--arch names the target: ` + strings.Join(tle.Targets(), ", ") + ` (the default
sm_90a is Hopper with wgmma; TMA, clusters and mbarrier transactions need
sm_90 or sm_90a; earlier targets keep every dot on mma.sync).`,
		flags: func(fs *flag.FlagSet) any {
			b := &buildFlags{}
			fs.StringVar(&b.kernel, "kernel", "", "the kernel to build (may be left out when FILE has one)")
			fs.StringVar(&b.emit, "emit", "ptx", "what to write: tir, ll or ptx")
			fs.StringVar(&b.out, "o", "", "output file (default: standard output)")
			fs.StringVar(&b.html, "html", "", "write the pass viewer page (source, tile IR after each pass, LLVM IR, PTX) to this file instead of an --emit stage")
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
	if b.html != "" {
		start := time.Now()
		page, err := k.PassHTML(opts, gopts)
		if page != nil {
			if werr := writeFileAtomic(b.html, page); werr != nil {
				fmt.Fprintf(e.stderr, "tlec build: %v\n", werr)
				return 1
			}
			fmt.Fprintf(e.stderr, "tlec build: wrote %s (%d KiB in %s)\n", b.html, (len(page)+1023)/1024, time.Since(start).Round(time.Millisecond))
		}
		if err != nil {
			printError(e.stderr, "build", err)
			return 1
		}
		return 0
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

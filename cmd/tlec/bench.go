package main

import (
	"flag"
)

func init() {
	register(&command{
		name:    "bench",
		usage:   "SUITE [--reps N] [--warmup N] [--json] [--dry-run] [--peer FILE]... [--plot OUT.svg|png] [--arch A] [--toolchain T] [suite flags] | FILE.tle --grid ... [--arg ...] [--compare OTHER.tle] | plot REPORT.json... -o OUT.svg|png",
		summary: "time a kernel, a suite of kernels on the GPU (tlec bench list), or plot a suite's report",
		help:    benchHelp(),
		argFlags: func(fs *flag.FlagSet, args []string) any {
			for _, a := range args {
				if a == "--" {
					break
				}
				if isTLEFile(a) {
					b := &fileBenchFlags{}
					b.register(fs)
					return b
				}
			}
			return benchFlagsFor(fs, args)
		},
		run: func(e *env, cfg any, args []string) int {
			if fb, ok := cfg.(*fileBenchFlags); ok {
				return runFileBench(e, fb, args)
			}
			sf := cfg.(*suiteFlags)
			switch {
			case len(args) > 0 && args[0] == "list":
				if len(args) > 1 {
					return usageError(e, "bench list takes no arguments")
				}
				return runBenchList(e)
			case len(args) > 0 && args[0] == "builds":
				return runBenchBuilds(e, args[1:], sf.ll, sf.ptx)
			case len(args) > 0 && args[0] == "plot":
				return runBenchPlot(e, args[1:], sf.out)
			}
			return runSuiteBench(e, sf, args)
		},
	})
}

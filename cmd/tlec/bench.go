package main

import (
	"flag"
)

func init() {
	register(&command{
		name:    "bench",
		usage:   "SUITE [--reps N] [--warmup N] [--json] [--dry-run] [--peer FILE]... [--arch A] [--toolchain T] [suite flags]",
		summary: "time a suite of kernels on the GPU (tlec bench list)",
		help:    benchHelp(),
		argFlags: func(fs *flag.FlagSet, args []string) any {
			return benchFlagsFor(fs, args)
		},
		run: func(e *env, cfg any, args []string) int {
			sf := cfg.(*suiteFlags)
			switch {
			case len(args) > 0 && args[0] == "list":
				if len(args) > 1 {
					return usageError(e, "bench list takes no arguments")
				}
				return runBenchList(e)
			case len(args) > 0 && args[0] == "builds":
				return runBenchBuilds(e, args[1:], sf.ll)
			}
			return runSuiteBench(e, sf, args)
		},
	})
}

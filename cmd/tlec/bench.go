package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/tlego/tle/kernels/tutorials"
	"github.com/tlego/tle/tle"
)

type benchFlags struct {
	reps int
	json bool
}

func init() {
	register(&command{
		name:    "bench",
		usage:   "SUITE [--reps N] [--json]",
		summary: "time kernels on the GPU (suites: tutorials)",
		help: `Bench times a suite of kernels on the GPU with CUDA events and prints the
median of --reps launches after warm-up, with the achieved rate. The
tutorials suite measures a device-to-device copy in the same run as the
bandwidth ceiling, vector add at 1 GiB per operand, row softmax on
4096x8192 f32, matmul with mma.sync at several sizes, and the host-side
cost of one launch of a cached kernel. Progress goes to standard error.`,
		flags: func(fs *flag.FlagSet) any {
			b := &benchFlags{}
			fs.IntVar(&b.reps, "reps", 50, "timed launches per configuration")
			fs.BoolVar(&b.json, "json", false, "print the results as JSON")
			return b
		},
		run: runBench,
	})
}

func runBench(e *env, cfg any, args []string) int {
	b := cfg.(*benchFlags)
	if len(args) != 1 || args[0] != "tutorials" {
		fmt.Fprintln(e.stderr, "tlec bench: name one suite: tutorials")
		return 2
	}
	if b.reps < 1 {
		fmt.Fprintln(e.stderr, "tlec bench: --reps must be at least 1")
		return 2
	}
	g, err := tle.OpenGPU()
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec bench: no GPU: %v\n", err)
		return 1
	}
	res, err := tutorials.Bench(g, b.reps, func(s string) { fmt.Fprintf(e.stderr, "tlec bench: %s\n", s) })
	if err != nil {
		printError(e.stderr, "bench", err)
		return 1
	}
	if b.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
		return 0
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "kernel\tconfig\tmedian ms\trate\t")
	for _, r := range res {
		fmt.Fprintf(w, "%s\t%s\t%.4f\t%.3f %s\t\n", r.Name, r.Config, r.Ms, r.Rate, r.Unit)
	}
	w.Flush()
	return 0
}

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tlego/tle/kernels/kda"
	"github.com/tlego/tle/kernels/tutorials"
	"github.com/tlego/tle/tle"
)

type benchFlags struct {
	reps    int
	warmup  int
	json    bool
	blockV  int
	fast    bool
	variant string
	configs string
	parts   string
}

func init() {
	register(&command{
		name:    "bench",
		usage:   "SUITE [--reps N] [--json]",
		summary: "time kernels on the GPU (suites: tutorials, kda_fwd)",
		help: `Bench times a suite of kernels on the GPU with CUDA events and prints the
median of --reps launches after warm-up, with the achieved rate. The
tutorials suite measures a device-to-device copy in the same run as the
bandwidth ceiling, vector add at 1 GiB per operand, row softmax on
4096x8192 f32, matmul with mma.sync at several sizes, and the host-side
cost of one launch of a cached kernel; --parts runs some of its parts
(copy, softmax, matmul, tma, fp8, attention, compile, launch). Progress goes to
standard error.

The kda_fwd suite runs FlashKDA's six configurations of KDA forward (H 96
and 64; K = V = 128; T = 8192 with B = 1, varlen [1300,547,2048,963,271,3063]
and varlen 1024 x 8; lower_bound -5; f32 initial and final state) and prints
the median ms of --reps launches after --warmup, the bytes moved per second,
and the speed-up over FlashKDA's figure on an H200; a progress bar is drawn
on standard error. --block-v and --fast choose the kernel's V block and
precision variant; --variant v3|v1|v2[:WARPS] the kernels (the default v3:
kda_v3.tle's preparation and recurrence; v1, v2: the fused kda_fwd.tle,
kda_fwd_v2.tle) and, after a colon, their
warps per program (4 or 8; for v3 those of the preparation kernel, 1 to 8,
the recurrence running one warp per 16 V columns). v3 also prints each
kernel's median timed alone. --configs picks configurations by their
1-based index in the table (1,4).`,
		flags: func(fs *flag.FlagSet) any {
			b := &benchFlags{}
			fs.IntVar(&b.reps, "reps", 50, "timed launches per configuration")
			fs.BoolVar(&b.json, "json", false, "print the results as JSON")
			fs.IntVar(&b.warmup, "warmup", 10, "untimed launches before timing (kda_fwd)")
			fs.IntVar(&b.blockV, "block-v", 0, "V columns per program (kda_fwd; 0: the default)")
			fs.BoolVar(&b.fast, "fast", false, "kda_fwd without the hi/lo split of the intra-chunk products")
			fs.StringVar(&b.variant, "variant", "", "kda_fwd kernel variant, v3 (default), v1 or v2, and optionally :WARPS (v2:8; for v3 the preparation kernel's warps)")
			fs.StringVar(&b.configs, "configs", "", "kda_fwd configurations to run, as 1-based indices into the table (1,4); default all")
			fs.StringVar(&b.parts, "parts", "", "tutorials parts to run, comma-separated (copy,softmax,matmul,tma,fp8,attention,compile,launch); default all")
			return b
		},
		run: runBench,
	})
}

func runBench(e *env, cfg any, args []string) int {
	b := cfg.(*benchFlags)
	if len(args) != 1 || (args[0] != "tutorials" && args[0] != "kda_fwd") {
		fmt.Fprintln(e.stderr, "tlec bench: name one suite: tutorials or kda_fwd")
		return 2
	}
	if b.reps < 1 {
		fmt.Fprintln(e.stderr, "tlec bench: --reps must be at least 1")
		return 2
	}
	if b.warmup < 0 {
		fmt.Fprintln(e.stderr, "tlec bench: --warmup must not be negative")
		return 2
	}
	for _, p := range strings.Split(b.parts, ",") {
		if b.parts != "" && !slices.Contains(tutorials.BenchParts, p) {
			fmt.Fprintf(e.stderr, "tlec bench: --parts: no part %q (the tutorials parts: %s)\n", p, strings.Join(tutorials.BenchParts, ", "))
			return 2
		}
	}
	g, err := tle.OpenGPU()
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec bench: %s needs a GPU, and there is none: %v\n", args[0], err)
		return 1
	}
	if args[0] == "kda_fwd" {
		return benchKDA(e, g, b)
	}
	var parts []string
	if b.parts != "" {
		parts = strings.Split(b.parts, ",")
	}
	res, err := tutorials.Bench(g, b.reps, parts, func(s string) { fmt.Fprintf(e.stderr, "tlec bench: %s\n", s) })
	if err != nil {
		printError(e.stderr, "bench", err)
		return 1
	}
	if b.json {
		return printJSON(e, res)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "kernel\tconfig\tmedian ms\trate\t")
	for _, r := range res {
		fmt.Fprintf(w, "%s\t%s\t%.4f\t%.3f %s\t\n", r.Name, r.Config, r.Ms, r.Rate, r.Unit)
	}
	w.Flush()
	return 0
}

func benchKDA(e *env, g *tle.GPU, b *benchFlags) int {
	variant, warps := b.variant, 0
	if i := strings.IndexByte(variant, ':'); i >= 0 {
		n, err := strconv.Atoi(variant[i+1:])
		if err != nil {
			fmt.Fprintf(e.stderr, "tlec bench: --variant %q: want NAME or NAME:WARPS\n", b.variant)
			return 2
		}
		variant, warps = variant[:i], n
	}
	configs := kda.BenchConfigs
	if b.configs != "" {
		configs = nil
		for _, f := range strings.Split(b.configs, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || i < 1 || i > len(kda.BenchConfigs) {
				fmt.Fprintf(e.stderr, "tlec bench: --configs %q: want 1-based indices in [1, %d], comma-separated\n", b.configs, len(kda.BenchConfigs))
				return 2
			}
			configs = append(configs, kda.BenchConfigs[i-1])
		}
	}
	bar := newProgressBar(e.stderr)
	res, err := kda.Bench(g, configs, kda.BenchOptions{
		Warmup: b.warmup, Reps: b.reps,
		Params:   kda.Params{BlockV: b.blockV, Fast: b.fast, Variant: variant, NumWarps: warps},
		Progress: bar.update,
	})
	bar.done()
	if err != nil {
		printError(e.stderr, "bench", err)
		return 1
	}
	if b.json {
		return printJSON(e, res)
	}
	if len(res) > 0 {
		fmt.Fprintf(e.stdout, "kda_fwd variant %s, %d warps, block_v %d\n", res[0].Variant, res[0].NumWarps, res[0].BlockV)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "H\tconfig\tmedian ms\tmin ms\tTB/s\tFlashKDA ms\tspeed-up\tkernels ms\t")
	geo, n := 1.0, 0
	for _, r := range res {
		var parts []string
		for _, p := range r.PartsMs {
			parts = append(parts, fmt.Sprintf("%.4f", p))
		}
		fmt.Fprintf(w, "%d\t%s\t%.4f\t%.4f\t%.3f\t%.3f\t%.2fx\t%s\t\n", r.H, r.Config, r.Ms, r.MinMs, r.TBps, r.FlashKDAMs, r.Speedup, strings.Join(parts, " + "))
		if r.Speedup > 0 {
			geo *= r.Speedup
			n++
		}
	}
	w.Flush()
	if n > 0 {
		fmt.Fprintf(e.stdout, "geometric-mean speed-up over FlashKDA: %.3fx\n", math.Pow(geo, 1/float64(n)))
	}
	return 0
}

// printJSON writes v indented to standard output.
func printJSON(e *env, v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(e.stderr, "tlec bench: %v\n", err)
		return 1
	}
	return 0
}

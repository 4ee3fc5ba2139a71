package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tlego/tle/tle"
)

// fileBenchFlags are tlec bench FILE.tle's flags: tlec run's, the
// engine's settings, the work for a rate and what to compare with.
type fileBenchFlags struct {
	launchFlags
	reps     int
	warmup   int
	flops    float64
	bytes    float64
	flushL2  bool
	graph    bool
	compare  string
	compareD multiFlag
}

func (b *fileBenchFlags) register(fs *flag.FlagSet) {
	b.launchFlags.register(fs, "time", tle.DefaultTimeout, "stop the interpreter's runs after this long in all")
	fs.IntVar(&b.reps, "reps", 50, "timed runs of each kernel (rounds)")
	fs.IntVar(&b.warmup, "warmup", 10, "untimed runs of each kernel before timing")
	fs.Float64Var(&b.flops, "flops", 0, "the kernel's floating-point operations, for a TFLOP/s rate")
	fs.Float64Var(&b.bytes, "bytes", 0, "the bytes the kernel moves, for a TB/s rate")
	fs.BoolVar(&b.flushL2, "flush-l2", false, "write a buffer twice the L2's size before every timed run (GPU)")
	fs.BoolVar(&b.graph, "graph", false, "time replays of a CUDA graph of the launch (GPU)")
	fs.StringVar(&b.compare, "compare", "", "time the same kernel of `OTHER.tle` with the same arguments, interleaved, and say whether they differ")
	fs.Var(&b.compareD, "compare-D", "time the kernel again with this binding over -D's, interleaved: `NAME=VALUE` (repeatable)")
}

func (b *fileBenchFlags) helpText() (usage, help string) { return fileBenchUsage, benchHelp() }

const fileBenchUsage = "FILE.tle [--kernel K] --grid X[,Y[,Z]] [--arg NAME=VALUE]... [-D NAME=VALUE]... [--flops N] [--bytes N] [--reps N] [--warmup N] [--flush-l2] [--graph] [--compare OTHER.tle | --compare-D NAME=VALUE...] [--device auto|cpu|cuda]"

// isTLEFile says whether a bench argument names a .tle file (any other
// names a suite).
func isTLEFile(arg string) bool { return strings.HasSuffix(arg, ".tle") }

// runFileBench is tlec bench FILE.tle: the kernel launched as tlec run
// launches it, timed by the engine (and a second kernel interleaved with
// it with --compare or --compare-D).
func runFileBench(e *env, b *fileBenchFlags, files []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "tlec bench: "+format+"\n", a...)
		return 2
	}
	if len(files) != 1 {
		return fail("name one .tle file (got %d)", len(files))
	}
	switch {
	case b.reps < 1:
		return fail("--reps %d: want at least 1", b.reps)
	case b.warmup < 0:
		return fail("--warmup %d: want 0 or more", b.warmup)
	case b.flops < 0 || b.bytes < 0:
		return fail("--flops and --bytes are counts: want 0 or more")
	case b.timeout <= 0:
		return fail("--timeout %v: want a positive duration", b.timeout)
	case b.compare != "" && !isTLEFile(b.compare):
		return fail("--compare %s: name a .tle file", b.compare)
	}
	grid, err := parseGrid(b.grid)
	if err != nil {
		return fail("--grid: %v", err)
	}
	k, opts, gopts, code := b.compile.load(e, "bench", files[0], b.kernel)
	if k == nil {
		return code
	}
	dev, err := pickDevice(e, "bench", b.device, gopts)
	if err != nil {
		return fail("%v", err)
	}
	args, _, err := buildArgs(k, opts.Defines, b.args)
	if err != nil {
		return fail("%v", err)
	}
	runs := []tle.KernelRun{{Name: filepath.Base(files[0]) + ":" + k.Name(), Kernel: k, Grid: grid, Options: opts, Args: args}}
	if b.compare != "" || len(b.compareD) > 0 {
		other, oopts := k, opts
		name := runs[0].Name
		if b.compare != "" {
			if other, _, _, code = b.compile.load(e, "bench", b.compare, k.Name()); other == nil {
				return code
			}
			name = filepath.Base(b.compare) + ":" + other.Name()
		}
		if len(b.compareD) > 0 {
			over, err := defineMap(b.compareD)
			if err != nil {
				return fail("--compare-D: %v", err)
			}
			oopts.Defines = maps.Clone(opts.Defines)
			if oopts.Defines == nil {
				oopts.Defines = map[string]string{}
			}
			maps.Copy(oopts.Defines, over)
			runs[0].Name += " " + defineText(opts.Defines)
			name += " " + defineText(oopts.Defines)
		}
		if name == runs[0].Name {
			return fail("--compare: the second kernel is the first one again")
		}
		// its own copy of every argument: the two kernels never share a buffer
		oargs, _, err := buildArgs(other, oopts.Defines, b.args)
		if err != nil {
			return fail("--compare: %v", err)
		}
		runs = append(runs, tle.KernelRun{Name: name, Kernel: other, Grid: grid, Options: oopts, Args: oargs})
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	ts, err := tle.BenchKernels(ctx, dev, tle.BenchOptions{Warmup: b.warmup, Reps: b.reps, FlushL2: b.flushL2, Graph: b.graph}, runs...)
	if err != nil {
		printError(e.stderr, "bench", err)
		return 1
	}
	fmt.Fprintf(e.stdout, "grid %dx%dx%d on %s; %d runs of each after %d warm-up; timed by %s\n", grid[0], grid[1], grid[2], dev.Name(), b.reps, b.warmup, ts[0].Clock)
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "kernel\tmedian us\tinterval us\tmin us\trate\t")
	for _, t := range ts {
		fmt.Fprintf(w, "%s\t%.2f\t[%.2f, %.2f] %.0f%%\t%.2f\t%s\t\n", t.Name, t.MedianMs*1e3, t.LoMs*1e3, t.HiMs*1e3, 100*t.Coverage, t.MinMs*1e3, b.rate(t.MedianMs))
	}
	w.Flush()
	if len(ts) == 2 {
		cmp, err := tle.Compare(ts[0], ts[1], 0)
		if err != nil {
			printError(e.stderr, "bench", err)
			return 1
		}
		fmt.Fprintln(e.stdout, cmp.Verdict())
		fmt.Fprintf(e.stdout, "test: %s\n", tle.CompareTest)
	}
	return 0
}

// rate is the work over ms as TFLOP/s and TB/s, "-" without --flops or
// --bytes.
func (b *fileBenchFlags) rate(ms float64) string {
	var out []string
	if b.flops > 0 && ms > 0 {
		out = append(out, fmt.Sprintf("%.4g TFLOP/s", b.flops/ms/1e9))
	}
	if b.bytes > 0 && ms > 0 {
		out = append(out, fmt.Sprintf("%.4g TB/s", b.bytes/ms/1e9))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

// defineText is a binding set as -D flags, sorted.
func defineText(d map[string]string) string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(d)) {
		out = append(out, "-D "+n+"="+d[n])
	}
	if len(out) == 0 {
		return "(no -D)"
	}
	return strings.Join(out, " ")
}

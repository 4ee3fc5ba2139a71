package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/kernels/registry/perfplot"
	"github.com/tlego/tle/tle"
)

// tuneFlags are tlec tune's flags.
type tuneFlags struct {
	launchFlags
	reps    int
	budget  time.Duration
	jobs    int
	flops   float64
	bytes   float64
	jsonOut bool
	plot    string
	dryRun  bool
	retune  bool
	export  string
}

func init() {
	register(&command{
		name:    "tune",
		usage:   "FILE [--kernel K] --arg NAME=VALUE... [-D NAME=VALUE]... [--grid X[,Y[,Z]]] [--json] [--plot OUT.svg|png] [--dry-run] [--export FILE] [--retune] [--budget 20s] [--jobs N]",
		summary: "choose a kernel's configuration from its tune block, timed on the GPU",
		help: `Tune chooses the configuration of one kernel for the key bucket of its
arguments, among the configurations of its tune block (docs/language.md,
"Tuning spaces"). It prunes the configurations that do not build (the
shared-memory budget, the tile and register limits; each built to LLVM IR,
in parallel, --jobs at a time), compiles the rest, checks each one's
output against the default's on the same inputs, and times them
interleaved through the timing engine within --budget; near ties are
re-timed together. Timings are cached per configuration beside the JIT
cache, so a configuration added later is the only one timed. It prints
every configuration: its time with its interval, its rate, or why it was
pruned or rejected, and says whether the winner is distinguishable from
the runner-up.

--dry-run lists the space and what is pruned and why, without a GPU (only
the integer arguments of the key and the grid are needed). On the
interpreter the default is chosen, and said so. --export FILE adds the
choice to FILE; TLE_TUNE_IMPORT=FILE (or tle.ImportTuning) makes a
process take it without tuning. TLE_LOG=tune says what ran and why.`,
		flags: func(fs *flag.FlagSet) any {
			t := &tuneFlags{}
			t.launchFlags.register(fs, "tune", 30*time.Minute, "stop tuning after this long")
			fs.Lookup("grid").Usage = "CTAs to launch when the tune block has no grid: X[,Y[,Z]]"
			fs.IntVar(&t.reps, "reps", 30, "timed rounds at most")
			fs.DurationVar(&t.budget, "budget", 20*time.Second, "the time budget of the timing")
			fs.IntVar(&t.jobs, "jobs", 0, "parallel builds (0: one a CPU)")
			fs.Float64Var(&t.flops, "flops", 0, "the kernel's floating-point operations, for a TFLOP/s rate")
			fs.Float64Var(&t.bytes, "bytes", 0, "the bytes the kernel moves, for a TB/s rate")
			fs.BoolVar(&t.jsonOut, "json", false, "print the result as JSON")
			fs.StringVar(&t.plot, "plot", "", "draw the configurations side by side, the winner marked: `OUT.svg|png`")
			fs.BoolVar(&t.dryRun, "dry-run", false, "list the space and what is pruned, without a GPU")
			fs.BoolVar(&t.retune, "retune", false, "time every configuration again, cache or not")
			fs.StringVar(&t.export, "export", "", "add the choice to `FILE` (for TLE_TUNE_IMPORT)")
			return t
		},
		run: runTune,
	})
}

func runTune(e *env, cfg any, files []string) int {
	t := cfg.(*tuneFlags)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "tlec tune: "+format+"\n", a...)
		return 2
	}
	if len(files) != 1 {
		return fail("name one .tle file (got %d)", len(files))
	}
	k, opts, gopts, code := t.compile.load(e, "tune", files[0], t.kernel)
	if k == nil {
		return code
	}
	space, ok := k.TuneSpace()
	if !ok {
		return fail("kernel %s declares no tune block", k.Name())
	}
	var grid [3]int
	if t.grid != "" {
		g, err := parseGrid(t.grid)
		if err != nil {
			return fail("--grid: %v", err)
		}
		grid = g
	} else if space.Grid == nil {
		return fail("--grid: required, the tune block of %s has no grid", k.Name())
	}
	o := tle.TuneOptions{Grid: grid, Options: opts, GPU: gopts, Bench: tle.BenchOptions{Reps: t.reps},
		Budget: t.budget, Jobs: t.jobs, Retune: t.retune, DryRun: t.dryRun}
	var args map[string]any
	var dev tle.Device
	if t.dryRun {
		// only the integers: the key and the grid
		args = map[string]any{}
		for _, a := range t.args {
			n, v, _ := strings.Cut(a, "=")
			if i, err := strconv.ParseInt(v, 0, 64); err == nil {
				args[n] = i
			}
		}
	} else {
		var err error
		if dev, err = pickDevice(e, "tune", t.device, gopts); err != nil {
			return fail("%v", err)
		}
		if args, _, err = buildArgs(k, opts.Defines, t.args); err != nil {
			return fail("%v", err)
		}
	}
	bar := newProgressBar(e.stderr)
	total := -1
	if isTerminal(e.stderr) {
		o.Progress = func(done, n int, what string) {
			if n != total {
				bar.done()
				bar, total = newProgressBar(e.stderr), n
			}
			bar.update(done, n, what)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
	defer cancel()
	res, err := k.Tune(ctx, dev, args, o)
	bar.done()
	if err != nil {
		printError(e.stderr, "tune", err)
		return 1
	}
	if t.jsonOut {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	} else {
		t.print(e.stdout, res)
	}
	if t.export != "" && !t.dryRun {
		if err := tle.ExportTuning(t.export, k, res); err != nil {
			printError(e.stderr, "tune", err)
			return 1
		}
	}
	if t.plot != "" {
		if err := t.draw(res); err != nil {
			printError(e.stderr, "tune", err)
			return 1
		}
	}
	return 0
}

func (t *tuneFlags) print(w io.Writer, res *tle.TuneResult) {
	pruned := 0
	for _, r := range res.Rows {
		if r.Pruned != "" {
			pruned++
		}
	}
	fmt.Fprintf(w, "%s [%s] on %s: %d configurations, %d pruned\n", res.Kernel, res.Bucket, res.Device, len(res.Rows), pruned)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\tconfig\tbindings\tgrid\tmedian us\tinterval us\trate\tnote")
	for _, r := range res.Rows {
		mark := ""
		if r.IsWinner {
			mark = "*"
		}
		med, iv, rate, note := "-", "-", "-", r.Pruned
		if r.Timing != nil {
			med = fmt.Sprintf("%.2f", r.Timing.MedianMs*1e3)
			iv = fmt.Sprintf("[%.2f, %.2f]", r.Timing.LoMs*1e3, r.Timing.HiMs*1e3)
			rate = tuneRate(t.flops, t.bytes, r.Timing.MedianMs)
			switch {
			case r.Cached && r.Retimed:
				note = "cached, re-timed as a near tie"
			case r.Cached:
				note = "cached"
			case r.Retimed:
				note = "re-timed as a near tie"
			}
		}
		if note == "" {
			note = "builds"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%dx%dx%d\t%s\t%s\t%s\t%s\n", mark, r.Config.Name, r.Config.ID(), r.Grid[0], r.Grid[1], r.Grid[2], med, iv, rate, note)
	}
	tw.Flush()
	fmt.Fprintf(w, "chosen: %s (%s): %s, in %s\n", res.Winner.Name, res.Winner.ID(), res.Source, tookText(res.TookMs))
	if res.Note != "" {
		fmt.Fprintln(w, res.Note)
	}
}

// tookText is the time a choice took: milliseconds below a second.
func tookText(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.1f s", ms/1000)
}

func tuneRate(flops, bytes, ms float64) string {
	var out []string
	if flops > 0 && ms > 0 {
		out = append(out, fmt.Sprintf("%.4g TFLOP/s", flops/ms/1e9))
	}
	if bytes > 0 && ms > 0 {
		out = append(out, fmt.Sprintf("%.4g TB/s", bytes/ms/1e9))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

// draw is --plot: the timed configurations as a bench report's rows, the
// winner's name marked with a star.
func (t *tuneFlags) draw(res *tle.TuneResult) error {
	rep := registry.Report{Suite: "tune " + res.Kernel, Device: res.Device}
	for _, r := range res.Rows {
		if r.Timing == nil {
			continue
		}
		name := r.Config.Name
		if r.IsWinner {
			name = "* " + name
		}
		rep.Rows = append(rep.Rows, registry.Row{Suite: "tune", Case: res.Bucket, Config: name, Kernel: res.Kernel,
			MedianUs: r.Timing.MedianMs * 1e3, MinUs: r.Timing.MinMs * 1e3, LoUs: r.Timing.LoMs * 1e3, HiUs: r.Timing.HiMs * 1e3})
	}
	if len(rep.Rows) == 0 {
		return fmt.Errorf("--plot: nothing was timed (a dry run, or the interpreter)")
	}
	return writePlot(t.plot, perfplot.Input{Name: "TLE-Go", Report: rep})
}

// isTerminal says whether w is a terminal (where a progress bar is drawn).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/kernels/registry/perfplot"
	"github.com/tlego/tle/tle"
)

// maxPeerBytes bounds a --peer file (a peer's JSON of one session).
const maxPeerBytes = 64 << 20

// suiteFlags are the flags every suite takes; the suite adds its own.
type suiteFlags struct {
	suite  *registry.Suite
	make   func() (registry.Bench, error)
	reps   int
	warmup int
	json   bool
	dryRun bool
	peers  multiFlag
	ll     string // bench builds --ll
	ptx    bool   // bench builds --ptx
	out    string // bench plot -o
	plot   string
	target targetFlags
}

// benchHelp is `tlec help bench`: what bench does, and the suites.
func benchHelp() string {
	var b strings.Builder
	b.WriteString(`Bench times a suite of kernels on the GPU with CUDA events: the median
and minimum of --reps launches after --warmup, the achieved rate, the
floor where the suite has one, and the figures of peers timed in the same
session (--peer FILE, repeatable: each file a peer's JSON that the suite
reads). Progress goes to standard error.

--json prints one schema for every suite: {"suite", "device", "dry_run",
"rows": [{"suite", "case", "config", "kernel", "median_us", "min_us",
"rate", "unit", "flops", "bytes", "floor_us", "peers", "facts"}],
"builds"}. --dry-run needs no GPU: it runs the suite on a dry GPU (an
H200's facts, nothing launched) and lists every case with its FLOPs and
bytes and every kernel build the timed run compiles.

Every time comes from the timing engine (runtime/timing): warm-up, then
rounds that interleave the candidates being compared, CUDA events around
each run, and the median with a distribution-free 95% interval (order
statistics: lo_us and hi_us in --json) and the minimum.

tlec bench FILE.tle times one kernel as tlec run launches it (the same
--kernel, --grid, --arg and compile flags; --arg NAME=rand:AxB gives random
data, seeded, never zero) and prints the median with its interval, the
minimum and, with --flops N or --bytes N, the rate. On the interpreter it
times the interpreter, and says so. --flush-l2 writes a buffer twice the
L2's size before every timed run; --graph times replays of a CUDA graph of
the launch. The buffers the kernel writes are restored before every run.
--compare OTHER.tle (the same kernel name and arguments) or --compare-D
NAME=VALUE (the same kernel with other bindings) times a second kernel in
the same rounds and says whether the two differ by more than noise: a
paired sign test on the per-round time ratios, whose 95% interval for the
median ratio must exclude 1.

tlec bench SUITE --plot OUT.svg|png draws the rows against their floor and
peers, as Triton's perf_report does: medians with their intervals, floor
and peers on a log scale above, each peer's and the floor's time over ours
below. tlec bench plot REPORT.json... -o OUT.svg|png draws saved --json
reports the same way (a second report: an A/B series beside the first).

tlec bench list prints the suites; tlec bench SUITE --help a suite's own
description and flags. tlec bench builds [SUITE...] prints every build of
the suites' dry runs at their default settings as "kernel binding sha256"
of its LLVM IR, sorted (--ll DIR also writes each LLVM IR), so that two
commits' lists show whether a change touched a timed kernel; without
names it leaves out the suites of a mesh of GPUs (allreduce, allgather,
reducescatter), which bench builds NAME... builds.

The suites:
`)
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, s := range registry.Suites() {
		fmt.Fprintf(w, "  %s\t%s\n", s.Name, s.Doc)
	}
	w.Flush()
	return b.String()
}

// suiteFor finds the suite an argument list names: the first argument that
// is a suite's name. Flags may come before it.
func suiteFor(args []string) *registry.Suite {
	for _, a := range args {
		if a == "--" {
			break
		}
		if s, ok := registry.LookupSuite(a); ok {
			return s
		}
	}
	return nil
}

// benchFlagsFor declares the common flags and, when args name a suite,
// that suite's own.
func benchFlagsFor(fs *flag.FlagSet, args []string) any {
	b := &suiteFlags{}
	fs.IntVar(&b.reps, "reps", 50, "timed launches per case")
	fs.IntVar(&b.warmup, "warmup", 10, "untimed launches before timing")
	fs.BoolVar(&b.json, "json", false, "print the report as JSON (one schema for every suite)")
	fs.BoolVar(&b.dryRun, "dry-run", false, "list the cases, their FLOPs and bytes and the builds, on a dry GPU (no GPU needed)")
	fs.Var(&b.peers, "peer", "a peer's JSON of the same session for the suite to read (`FILE`, repeatable)")
	b.target.register(fs)
	if len(args) > 0 && slices.Contains(args, "builds") {
		fs.StringVar(&b.ll, "ll", "", "bench builds: also write each build's LLVM IR into `DIR`")
		fs.BoolVar(&b.ptx, "ptx", false, "bench builds: hash each build's PTX (llc-19) instead of its LLVM IR")
	}
	if len(args) > 0 && slices.Contains(args, "plot") {
		fs.StringVar(&b.out, "o", "", "bench plot: the picture to write, `OUT.svg` or OUT.png")
	}
	fs.StringVar(&b.plot, "plot", "", "also draw the rows against their floor and peers into `OUT.svg` or OUT.png (tlec bench plot draws saved --json reports)")
	if b.suite = suiteFor(args); b.suite != nil {
		b.make = b.suite.Flags(fs)
	}
	return b
}

func runSuiteBench(e *env, b *suiteFlags, args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "tlec bench: "+format+"\n", a...)
		return 2
	}
	if len(args) != 1 || b.suite == nil {
		var names []string
		for _, s := range registry.Suites() {
			names = append(names, s.Name)
		}
		if len(args) == 1 {
			return fail("no suite %q (suites: %s)", args[0], strings.Join(names, ", "))
		}
		return fail("name one suite (%s), or list", strings.Join(names, ", "))
	}
	if b.reps < 1 {
		return fail("--reps %d: want at least 1", b.reps)
	}
	if b.warmup < 0 {
		return fail("--warmup %d: want 0 or more", b.warmup)
	}
	if b.plot != "" {
		if b.dryRun {
			return fail("--plot: a dry run times nothing to draw")
		}
		if _, err := perfplot.Format(b.plot); err != nil {
			return fail("--plot %v", err)
		}
	}
	s := b.suite
	gopts, err := b.target.gpuOptions()
	if err != nil {
		return fail("%v", err)
	}
	bench, err := b.make()
	if err != nil {
		return fail("%s: %v", s.Name, err)
	}
	if len(b.peers) > 0 && s.Peers == nil {
		return fail("--peer: the %s suite reads no peer file", s.Name)
	}
	var peers [][]byte
	for _, path := range b.peers {
		raw, err := fileio.ReadFile(path, maxPeerBytes)
		if err != nil {
			return fail("--peer %s: %v", path, err)
		}
		peers = append(peers, raw)
	}
	o := registry.RunOptions{Warmup: b.warmup, Reps: b.reps}
	if len(peers) > 0 || b.dryRun {
		// the dry run checks every case and every peer figure the rows
		// need before a GPU is looked for
		g := tle.DryGPU(tle.H200).With(gopts)
		rows, dryErr := bench.Run(g, o)
		if dryErr != nil && len(rows) == 0 {
			printError(e.stderr, "bench", dryErr)
			return 1
		}
		for i, raw := range peers {
			if err := s.Peers(raw, rows); err != nil {
				fmt.Fprintf(e.stderr, "tlec bench: --peer %s: %v\n", b.peers[i], err)
				return 1
			}
		}
		if b.dryRun {
			rep := registry.Report{Suite: s.Name, Device: g.Name(), DryRun: true, Rows: rows}
			for _, bl := range g.Builds() {
				rep.Builds = append(rep.Builds, bl.Key())
			}
			code := printReport(e, rep, b.json)
			if dryErr != nil { // some rows failed; the others were printed
				printError(e.stderr, "bench", dryErr)
				return 1
			}
			return code
		}
	}
	g0, err := tle.OpenGPU()
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec bench: %s needs a GPU, and there is none (--dry-run lists its cases without one): %v\n", s.Name, err)
		return 1
	}
	g := g0.With(gopts)
	bar := newProgressBar(e.stderr)
	o.Progress = bar.update
	rows, runErr := bench.Run(g, o)
	bar.done()
	if runErr != nil && len(rows) == 0 {
		printError(e.stderr, "bench", runErr)
		return 1
	}
	for _, raw := range peers {
		if err := s.Peers(raw, rows); err != nil {
			printError(e.stderr, "bench", err)
			return 1
		}
	}
	rep := registry.Report{Suite: s.Name, Device: g.Name(), Rows: rows}
	code := printReport(e, rep, b.json)
	if b.plot != "" {
		if err := writePlot(b.plot, perfplot.Input{Name: "TLE-Go", Report: rep}); err != nil {
			fmt.Fprintf(e.stderr, "tlec bench: --plot: %v\n", err)
			code = 1
		}
	}
	if runErr != nil { // some rows failed; the others were printed
		printError(e.stderr, "bench", runErr)
		return 1
	}
	return code
}

// printReport writes rep as JSON or as the one text table.
func printReport(e *env, rep registry.Report, asJSON bool) int {
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(e.stderr, "tlec bench: %v\n", err)
			return 1
		}
		return 0
	}
	printTable(e.stdout, rep)
	return 0
}

// printTable is the text form of every suite's report: a row per case,
// the peers' medians and speed-ups in columns, and each peer's geometric
// mean speed-up after the table.
func printTable(out io.Writer, rep registry.Report) {
	var peers []string
	floor := false
	for _, r := range rep.Rows {
		floor = floor || r.FloorUs > 0
		for _, p := range r.Peers {
			if !slices.Contains(peers, p.Name) {
				peers = append(peers, p.Name)
			}
		}
	}
	fmt.Fprintf(out, "%s on %s\n", rep.Suite, rep.Device)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	head := "case\tconfig\t"
	if rep.DryRun {
		head += "kernel\tGFLOP\tMB\t"
		for _, p := range peers {
			head += p + " us\t"
		}
	} else {
		head += "median us\tmin us\trate\t"
		if floor {
			head += "floor us\t"
		}
		for _, p := range peers {
			head += p + " us\tx\t"
		}
	}
	fmt.Fprintln(w, head)
	logs := make([]float64, len(peers))
	counts := make([]int, len(peers))
	for _, r := range rep.Rows {
		line := r.Case + "\t" + r.Config + "\t"
		if rep.DryRun {
			line += fmt.Sprintf("%s\t%.3f\t%.3f\t", r.Kernel, r.FLOPs/1e9, r.Bytes/1e6)
			for _, name := range peers {
				cell := "-\t"
				for _, p := range r.Peers {
					if p.Name == name {
						cell = fmt.Sprintf("%.1f\t", p.MedianUs)
					}
				}
				line += cell
			}
			fmt.Fprintln(w, line)
			continue
		}
		line += fmt.Sprintf("%.1f\t%.1f\t%s\t", r.MedianUs, r.MinUs, rate(r))
		if floor {
			line += fmt.Sprintf("%.1f\t", r.FloorUs)
		}
		for i, name := range peers {
			cell := "-\t-\t"
			for _, p := range r.Peers {
				if p.Name == name {
					cell = fmt.Sprintf("%.1f\t%.3f\t", p.MedianUs, p.Speedup)
					if p.Speedup > 0 {
						logs[i] += math.Log(p.Speedup)
						counts[i]++
					}
				}
			}
			line += cell
		}
		fmt.Fprintln(w, line)
	}
	w.Flush()
	for i, name := range peers {
		if counts[i] > 0 {
			fmt.Fprintf(out, "speed-up over %s: geometric mean %.3fx over %d cases\n", name, math.Exp(logs[i]/float64(counts[i])), counts[i])
		}
	}
	if rep.DryRun {
		fmt.Fprintf(out, "%d cases, %d builds (tlec bench builds %s lists them with their LLVM IR's hash)\n", len(rep.Rows), len(rep.Builds), rep.Suite)
	}
}

func rate(r registry.Row) string {
	if r.Unit == "" {
		return "-"
	}
	return fmt.Sprintf("%.3f %s", r.Rate, r.Unit)
}

// runBenchList prints the suites.
func runBenchList(e *env) int {
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, s := range registry.Suites() {
		fmt.Fprintf(w, "%s\t%s\n", s.Name, s.Doc)
	}
	w.Flush()
	return 0
}

// runBenchBuilds prints every build of the named suites' dry runs (all
// suites when none is named) at their default settings, sorted, as
// "kernel binding sha256" of the build's LLVM IR (with ptx, of its PTX
// from llc: two LLVM IRs that llc turns into the same PTX run the same
// machine code); with llDir it also writes each LLVM IR (or PTX) there.
func runBenchBuilds(e *env, names []string, llDir string, ptx bool) int {
	ss, err := buildSuites(names)
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec bench builds: %v\n", err)
		return 2
	}
	if llDir != "" {
		if err := os.MkdirAll(llDir, 0o755); err != nil {
			fmt.Fprintf(e.stderr, "tlec bench builds: --ll: %v\n", err)
			return 1
		}
	}
	seen := map[string]bool{}
	var lines []string
	for _, s := range ss {
		fs := flag.NewFlagSet(s.Name, flag.ContinueOnError)
		bench, err := s.Flags(fs)()
		if err != nil {
			fmt.Fprintf(e.stderr, "tlec bench builds: %s: %v\n", s.Name, err)
			return 1
		}
		g := tle.DryGPU(tle.H200)
		if _, err := bench.Run(g, registry.RunOptions{Warmup: 1, Reps: 1}); err != nil {
			fmt.Fprintf(e.stderr, "tlec bench builds: %s: %v\n", s.Name, err)
			return 1
		}
		for _, b := range g.Builds() {
			key := b.Kernel.Name() + " " + b.Binding()
			if seen[b.Key()] {
				continue
			}
			seen[b.Key()] = true
			emit, opts, ext := "ll", tle.GPUOptions{}, ".ll"
			if ptx {
				emit, opts, ext = "ptx", tle.GPUOptions{Toolchain: "llc"}, ".ptx"
			}
			art, err := b.Kernel.Build(b.Options, opts, emit)
			if err != nil {
				printError(e.stderr, "bench builds", fmt.Errorf("%s: %w", key, err))
				return 1
			}
			text := art.LLVMIR
			if ptx {
				text = art.Binary.PTX
			}
			sum := sha256.Sum256([]byte(text))
			lines = append(lines, key+" "+hex.EncodeToString(sum[:]))
			if llDir != "" {
				name := filepath.Join(llDir, b.Kernel.Name()+"-"+hex.EncodeToString(sum[:6])+ext)
				if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
					fmt.Fprintf(e.stderr, "tlec bench builds: --ll: %v\n", err)
					return 1
				}
			}
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(e.stdout, l)
	}
	return 0
}

// buildSuites are the suites bench builds builds: those named, else every
// suite but those of a mesh of GPUs (registry.Suite.Mesh).
func buildSuites(names []string) ([]*registry.Suite, error) {
	var ss []*registry.Suite
	for _, n := range names {
		s, ok := registry.LookupSuite(n)
		if !ok {
			return nil, fmt.Errorf("no suite %q (tlec bench list)", n)
		}
		ss = append(ss, s)
	}
	if len(names) == 0 {
		for _, s := range registry.Suites() {
			if !s.Mesh {
				ss = append(ss, s)
			}
		}
	}
	return ss, nil
}

// helpText is `tlec bench SUITE --help`'s text: the suite's own.
func (b *suiteFlags) helpText() (usage, help string) {
	if b.suite == nil {
		return "SUITE [--reps N] [--warmup N] [--json] [--dry-run] [--peer FILE]... [suite flags]", benchHelp()
	}
	return b.suite.Name + " [--reps N] [--warmup N] [--json] [--dry-run] [--peer FILE]... [suite flags]", b.suite.Help
}

// usageError prints a usage error of tlec bench and returns 2.
func usageError(e *env, msg string) int {
	fmt.Fprintf(e.stderr, "tlec bench: %s\n", msg)
	return 2
}

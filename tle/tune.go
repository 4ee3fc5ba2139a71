package tle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/runtime/interp"
)

// This file is the tuner: a kernel's tuning space (its tune block, or one
// given through the Go API), the choice of a configuration per key bucket,
// and the cache of per-configuration timings beside the JIT cache.
//
// Design (after triton.autotune's configs/key/prune_configs_by/restore_value,
// triton-lang/triton#6261 and #9822/#9916 for a disk cache that keeps each
// configuration's timing apart, triton-dejavu and triton#4020 for choices
// made ahead of deployment, TileLang's parallel compilation):
//  1. the space: the default, the named configs, the product; where
//     failures are listed, never built;
//  2. pruning: every configuration is checked and built to LLVM IR (the
//     shared-memory budget, the tile and register limits) in parallel, each
//     within a timeout; a failure is a reason, logged under TLE_LOG=tune;
//  3. on a GPU the survivors are compiled to PTX (in parallel), run once on
//     the same inputs and compared with the default (a mismatch is
//     rejected with its error), then timed interleaved by the engine;
//  4. near-ties (intervals that overlap the best's) are re-timed together,
//     and the result says whether the winner is distinguishable;
//  5. each configuration's timing is cached on its own (a new config times
//     only itself), atomically, under a key of the source, kernel, bucket,
//     device and compiler version;
//  6. the choice itself is cached beside them, with the space it was made
//     over (triton#6261's best-config file): another process asking for
//     the same bucket reads one file and builds nothing, unless the space
//     or the GPU options changed.

// TuneKey is a runtime argument of a space's key and its bucketing rule:
// "exact", "pow2" (the next power of two) or "mult" (the next multiple of
// Mult).
type TuneKey struct {
	Name string
	Rule string
	Mult int64
}

// TuneConfig is one configuration: const parameters and launch options
// (warps, ctas_per_sm, stages) by name.
type TuneConfig struct {
	Name string
	Vals map[string]int64
	// Excluded is the where constraint the configuration fails, if any.
	Excluded string
}

// ID is the configuration's identity (its bindings, sorted), which keys
// its cached timing: renaming a config keeps it.
func (c TuneConfig) ID() string { return check.TuneConfig{Vals: c.Vals}.ID() }

// Options are base with the configuration applied: const parameters as
// Defines, warps, ctas_per_sm and stages as NumWarps, MinCTAsPerSM and
// NumStages.
func (c TuneConfig) Options(base CompileOptions) CompileOptions {
	o := base
	o.Defines = maps.Clone(base.Defines)
	if o.Defines == nil {
		o.Defines = map[string]string{}
	}
	for n, v := range c.Vals {
		switch n {
		case "warps":
			o.NumWarps = int(v)
		case "ctas_per_sm":
			o.MinCTAsPerSM = int(v)
		case "stages":
			o.NumStages = int(v)
		default:
			o.Defines[n] = strconv.FormatInt(v, 10)
		}
	}
	return o
}

// TuneSpace is a kernel's tuning space.
type TuneSpace struct {
	Keys    []TuneKey
	Default TuneConfig
	// Configs are every configuration, the default first.
	Configs []TuneConfig
	// Grid gives a configuration's grid from the integer arguments; nil:
	// TuneOptions.Grid.
	Grid func(args map[string]int64, c TuneConfig) ([3]int, error)
}

// TuneSpace is the kernel's tune block as a TuneSpace (false when the
// kernel has none).
func (k *Kernel) TuneSpace() (*TuneSpace, bool) {
	s := k.prog.info.Tunes[k.Name()]
	if s == nil {
		return nil, false
	}
	conv := func(c check.TuneConfig) TuneConfig {
		return TuneConfig{Name: c.Name, Vals: c.Vals, Excluded: c.Excluded}
	}
	out := &TuneSpace{Default: conv(s.Default)}
	for _, key := range s.Keys {
		out.Keys = append(out.Keys, TuneKey{Name: key.Name, Rule: key.Rule, Mult: key.Mult})
	}
	for _, c := range s.Configs {
		out.Configs = append(out.Configs, conv(c))
	}
	if s.Grid != nil {
		exprs := s.Grid
		out.Grid = func(args map[string]int64, c TuneConfig) ([3]int, error) {
			env := maps.Clone(args)
			maps.Copy(env, c.Vals)
			g := [3]int{1, 1, 1}
			for i, e := range exprs {
				v, err := check.EvalTune(e, env)
				if err != nil {
					return g, fmt.Errorf("grid: %v", err)
				}
				g[i] = int(v)
			}
			return g, nil
		}
	}
	return out, true
}

// TuneOptions drive Kernel.Tune.
type TuneOptions struct {
	// Space overrides the kernel's tune block.
	Space *TuneSpace
	// Grid is the grid when the space gives none.
	Grid [3]int
	// Options are the base compile options (Defines for what the space
	// leaves unbound).
	Options CompileOptions
	GPU     GPUOptions
	// Bench sets the engine (Reps 0: 30, Warmup 0: 5).
	Bench BenchOptions
	// Budget bounds the timing of one key (0: 20s): fewer rounds when the
	// configurations are slow.
	Budget time.Duration
	// Jobs bounds the parallel builds (0: GOMAXPROCS); CompileTimeout
	// bounds one configuration's (0: 2 minutes).
	Jobs           int
	CompileTimeout time.Duration
	// CacheDir holds the timings ("": CacheDir()/tune); Retune ignores them.
	CacheDir string
	Retune   bool
	// Tolerance is the largest relative difference from the default's
	// output (0: 2e-2, bf16's rounding).
	Tolerance float64
	// DryRun lists the space and prunes it, without running anything.
	DryRun bool
	// Off turns tuning off (as TLE_TUNE=off does): an imported choice, else
	// the default, and nothing is timed.
	Off bool
	// Progress, when set, hears each step: done of total.
	Progress func(done, total int, what string)
}

// TuneRow is one configuration's outcome.
type TuneRow struct {
	Config   TuneConfig
	Grid     [3]int
	Pruned   string  // why it was not timed ("" when timed)
	Timing   *Timing // nil when pruned
	Cached   bool    // the timing came from the cache
	Retimed  bool    // re-timed as a near tie
	IsWinner bool
}

// TuneResult is the choice for one key bucket.
type TuneResult struct {
	Kernel string
	Bucket string // the key's bucketed values: M=4096,N=4096
	Device string
	Winner TuneConfig
	// Source says why the winner: "tuned", "cached", "imported",
	// "default: the interpreter", "default: dry run".
	Source string
	// Distinguishable says whether the winner beats the runner-up beyond
	// noise (a paired sign test on their last common rounds); Note says so
	// in words.
	Distinguishable bool
	Note            string
	Rows            []TuneRow
	// TookMs is the wall time of the choice (from the cached choice: a
	// file read).
	TookMs float64 `json:"took_ms"`
}

func tuneLog(format string, args ...any) {
	if strings.Contains(","+os.Getenv("TLE_LOG")+",", ",tune,") {
		fmt.Fprintf(os.Stderr, "tle: tune: "+format+"\n", args...)
	}
}

// intArgs are the integer scalar arguments by name.
func intArgs(args map[string]any) map[string]int64 {
	out := map[string]int64{}
	for n, a := range args {
		v := reflect.ValueOf(a)
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			out[n] = v.Int()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out[n] = int64(v.Uint())
		}
	}
	return out
}

// Bucket is the key's bucketed values for args.
func (s *TuneSpace) Bucket(args map[string]any) (string, error) {
	ints := intArgs(args)
	var parts []string
	for _, k := range s.Keys {
		v, ok := ints[k.Name]
		if !ok {
			return "", fmt.Errorf("tune: key argument %s is not given as an integer", k.Name)
		}
		ck := check.TuneKey{Name: k.Name, Rule: k.Rule, Mult: k.Mult}
		parts = append(parts, fmt.Sprintf("%s=%d", k.Name, ck.Bucket(v)))
	}
	if len(parts) == 0 {
		return "all", nil
	}
	return strings.Join(parts, ","), nil
}

// tuneEnv is what the tuner does on a device: tests give a fake.
type tuneEnv struct {
	gpu     bool
	device  string
	dev     Device // runs the output checks
	compile func(k *Kernel, o CompileOptions, g GPUOptions) error
	bench   func(ctx context.Context, o BenchOptions, runs []KernelRun) ([]Timing, error)
	prune   func(k *Kernel, o CompileOptions, g GPUOptions) error
}

func envFor(dev Device) tuneEnv {
	env := tuneEnv{device: dev.Name(), dev: dev,
		prune: func(k *Kernel, o CompileOptions, g GPUOptions) error { return k.CheckTarget(o, g) }}
	if g, ok := dev.(*GPU); ok {
		env.gpu = true
		env.compile = func(k *Kernel, o CompileOptions, gg GPUOptions) error { _, err := k.Compile(o, gg); return err }
		env.bench = func(ctx context.Context, o BenchOptions, runs []KernelRun) ([]Timing, error) {
			return BenchKernels(ctx, g, o, runs...)
		}
	}
	return env
}

// Tune chooses the kernel's configuration for args on dev: an imported
// choice, else the cached timings (timing only the configurations not
// cached), else a tuning now; on the interpreter, the default, said so.
func (k *Kernel) Tune(ctx context.Context, dev Device, args map[string]any, o TuneOptions) (*TuneResult, error) {
	if k == nil {
		return nil, errNilKernel("Tune")
	}
	if err := checkDevice("Tune", dev); err != nil && !o.DryRun {
		return nil, err
	}
	env := tuneEnv{device: "no device (dry run: built, not run)",
		prune: func(k *Kernel, o CompileOptions, g GPUOptions) error { return k.CheckTarget(o, g) }}
	if dev != nil {
		env = envFor(dev)
	}
	start := time.Now()
	res, err := k.tune(ctx, env, args, o)
	if res != nil {
		res.TookMs = float64(time.Since(start).Microseconds()) / 1e3
	}
	return res, err
}

func (k *Kernel) tune(ctx context.Context, env tuneEnv, args map[string]any, o TuneOptions) (*TuneResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	s := o.Space
	if s == nil {
		var ok bool
		if s, ok = k.TuneSpace(); !ok {
			return nil, fmt.Errorf("tune: kernel %s declares no tuning space (a tune block) and none is given", k.Name())
		}
	}
	bucket, err := s.Bucket(args)
	if err != nil {
		return nil, err
	}
	res := &TuneResult{Kernel: k.Name(), Bucket: bucket, Device: env.device, Winner: s.Default}
	ints := intArgs(args)
	grid := func(c TuneConfig) ([3]int, error) {
		if s.Grid == nil {
			return o.Grid, nil
		}
		return s.Grid(ints, c)
	}
	progress := func(done, total int, what string) {
		if o.Progress != nil {
			o.Progress(done, total, what)
		}
	}
	if !o.DryRun && !env.gpu {
		res.Source = "default: the interpreter is not tuned (its times say nothing of a GPU's)"
		tuneLog("%s [%s] on %s: %s: %s", k.Name(), bucket, env.device, res.Source, s.Default.ID())
		for _, c := range s.Configs {
			res.Rows = append(res.Rows, TuneRow{Config: c, Pruned: "not run: the interpreter", IsWinner: c.ID() == s.Default.ID()})
		}
		return res, nil
	}
	if !o.DryRun {
		if c, ok := importedChoice(k, bucket, env.device, s); ok {
			res.Winner, res.Source = c, "imported"
			tuneLog("%s [%s]: imported choice %s", k.Name(), bucket, c.ID())
			return res, nil
		}
		if o.Off || os.Getenv("TLE_TUNE") == "off" {
			res.Source = "default: tuning is off"
			tuneLog("%s [%s]: %s: %s", k.Name(), bucket, res.Source, s.Default.ID())
			return res, nil
		}
	}

	cache := tuneCache{dir: o.CacheDir, prefix: k.tunePrefix(bucket, env.device, o.Options, o.GPU)}
	if cache.dir == "" {
		cache.dir = filepath.Join(CacheDir(), "tune")
	}
	spaceSum := s.sum()
	if !o.DryRun && !o.Retune {
		if c, ok := cache.getChoice(spaceSum); ok {
			c.Kernel, c.Bucket, c.Device, c.Source = k.Name(), bucket, env.device, "cached"
			tuneLog("%s [%s]: cached choice %s: nothing built or timed", k.Name(), bucket, c.Winner.ID())
			return c, nil
		}
	}

	// 1-2. Prune: the where constraints, then a build of each to LLVM IR.
	rows := make([]TuneRow, len(s.Configs))
	for i, c := range s.Configs {
		rows[i] = TuneRow{Config: c, Pruned: c.Excluded}
		if g, err := grid(c); err != nil {
			rows[i].Pruned = err.Error()
		} else {
			rows[i].Grid = g
		}
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	timeout := o.CompileTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	b := &tuneBuilder{ctx: ctx, rows: rows, opts: o.Options, jobs: jobs, timeout: timeout, progress: progress,
		pruned: func(r *TuneRow) { tuneLog("%s [%s]: pruned %s: %s", k.Name(), bucket, r.Config.Name, r.Pruned) }}
	build := b.run
	for i := range rows {
		if rows[i].Pruned != "" {
			tuneLog("%s [%s]: pruned %s: %s", k.Name(), bucket, rows[i].Config.Name, rows[i].Pruned)
		}
	}
	if err := build("build", func(co CompileOptions) error { return env.prune(k, co, o.GPU) }); err != nil {
		return nil, err
	}
	res.Rows = rows
	if rows[0].Pruned != "" {
		return nil, fmt.Errorf("tune: the default configuration of %s does not build: %s", k.Name(), rows[0].Pruned)
	}
	if o.DryRun {
		res.Source = "default: dry run (nothing timed)"
		rows[0].IsWinner = true
		return res, nil
	}
	if env.compile != nil {
		if err := build("compile", func(co CompileOptions) error { return env.compile(k, co, o.GPU) }); err != nil {
			return nil, err
		}
	}

	// 3. Cached timings; the rest are checked against the default and timed.
	var todo []int
	for i := range rows {
		if rows[i].Pruned != "" {
			continue
		}
		if !o.Retune {
			if t, rejected, ok := cache.get(rows[i].Config); ok {
				rows[i].Timing, rows[i].Pruned, rows[i].Cached = t, rejected, true
				continue
			}
		}
		todo = append(todo, i)
	}
	if len(todo) > 0 {
		if err := k.checkOutputs(ctx, env, args, rows, todo, o, grid); err != nil {
			return nil, err
		}
		var timed []int
		for _, i := range todo {
			if rows[i].Pruned == "" {
				timed = append(timed, i)
			} else {
				cache.putRejected(rows[i].Config, rows[i].Pruned)
			}
		}
		if err := k.timeRows(ctx, env, args, rows, timed, o, progress); err != nil {
			return nil, err
		}
		for _, i := range timed {
			cache.put(rows[i].Config, rows[i].Timing)
		}
		res.Source = "tuned"
	} else {
		res.Source = "cached"
	}

	// 4. The choice; near ties re-timed together.
	order := timedOrder(rows)
	if len(order) == 0 {
		return nil, fmt.Errorf("tune: no configuration of %s survived", k.Name())
	}
	if len(order) > 1 {
		var tied []int
		best := rows[order[0]].Timing
		for _, i := range order[1:] {
			if t := rows[i].Timing; t.LoMs <= best.HiMs {
				tied = append(tied, i)
			}
		}
		if len(tied) > 0 {
			group := append([]int{order[0]}, tied...)
			tuneLog("%s [%s]: %d near ties of %s re-timed together", k.Name(), bucket, len(tied), rows[order[0]].Config.Name)
			ro := o
			ro.Bench.Reps = 2 * max(30, o.Bench.Reps)
			if err := k.timeRows(ctx, env, args, rows, group, ro, progress); err != nil {
				return nil, err
			}
			for _, i := range group {
				rows[i].Retimed = true
				cache.put(rows[i].Config, rows[i].Timing)
			}
			order = timedOrder(rows)
			if cmp, err := Compare(*rows[order[0]].Timing, *rows[order[1]].Timing, o.Bench.Level); err == nil {
				res.Distinguishable = cmp.Distinguishable
			}
		} else {
			res.Distinguishable = true
		}
		if !res.Distinguishable {
			res.Note = fmt.Sprintf("%s is not distinguishable from %s (a paired sign test at the rounds they shared): either may be the faster", rows[order[0]].Config.Name, rows[order[1]].Config.Name)
		}
	} else {
		res.Distinguishable = true
	}
	rows[order[0]].IsWinner = true
	res.Winner = rows[order[0]].Config
	cache.putChoice(spaceSum, res)
	tuneLog("%s [%s] on %s: %s %s (%s)", k.Name(), bucket, env.device, res.Source, res.Winner.Name, res.Winner.ID())
	return res, nil
}

// tuneBuilder builds the configurations not yet pruned, jobs at a time,
// each within timeout, and prunes those whose build fails.
type tuneBuilder struct {
	ctx      context.Context
	rows     []TuneRow
	opts     CompileOptions
	jobs     int
	timeout  time.Duration
	progress func(done, total int, what string)
	pruned   func(r *TuneRow) // says why r was pruned
}

// run builds each remaining configuration with fn; what names the step
// (build, compile) in the reasons and the progress.
func (b *tuneBuilder) run(what string, fn func(CompileOptions) error) error {
	eg, _ := errgroup.WithContext(b.ctx)
	eg.SetLimit(b.jobs)
	total := 0
	for i := range b.rows {
		if b.rows[i].Pruned == "" {
			total++
		}
	}
	var mu sync.Mutex
	done := 0
	for i := range b.rows {
		if b.rows[i].Pruned != "" {
			continue
		}
		r := &b.rows[i]
		eg.Go(func() error {
			errc := make(chan error, 1)
			go func() { errc <- fn(r.Config.Options(b.opts)) }()
			var err error
			select {
			case err = <-errc:
			case <-time.After(b.timeout):
				err = fmt.Errorf("%s took longer than %v", what, b.timeout)
			case <-b.ctx.Done():
				err = b.ctx.Err()
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				r.Pruned = what + ": " + firstLine(err.Error())
				b.pruned(r)
			}
			done++
			b.progress(done, total, what+" "+r.Config.Name)
			return nil
		})
	}
	return eg.Wait()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// timedOrder is the timed rows, fastest median first.
func timedOrder(rows []TuneRow) []int {
	var out []int
	for i, r := range rows {
		if r.Pruned == "" && r.Timing != nil {
			out = append(out, i)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return rows[out[a]].Timing.MedianMs < rows[out[b]].Timing.MedianMs })
	return out
}

// timeRows times rows[idx] interleaved, within the budget: a probe of a
// few rounds says how long a round takes, and the rounds are cut to fit.
func (k *Kernel) timeRows(ctx context.Context, env tuneEnv, args map[string]any, rows []TuneRow, idx []int, o TuneOptions, progress func(int, int, string)) error {
	if len(idx) == 0 {
		return nil
	}
	runs := make([]KernelRun, len(idx))
	for j, i := range idx {
		runs[j] = KernelRun{Name: rows[i].Config.Name, Kernel: k, Grid: rows[i].Grid, Options: rows[i].Config.Options(o.Options), Args: args}
	}
	bo := o.Bench
	if bo.Reps <= 0 {
		bo.Reps = 30
	}
	if bo.Warmup <= 0 {
		bo.Warmup = 5
	}
	budget := o.Budget
	if budget <= 0 {
		budget = 20 * time.Second
	}
	probe, err := env.bench(ctx, BenchOptions{Warmup: 1, Reps: 3, FlushL2: bo.FlushL2, Level: bo.Level}, runs)
	if err != nil {
		return err
	}
	var round float64
	for _, t := range probe {
		round += t.MedianMs
	}
	if round > 0 {
		fit := int(float64(budget.Milliseconds()) / round)
		bo.Reps = max(5, min(bo.Reps, fit-bo.Warmup))
	}
	progress(0, len(runs), fmt.Sprintf("timing %d configurations, %d rounds", len(runs), bo.Reps))
	ts, err := env.bench(ctx, bo, runs)
	if err != nil {
		return err
	}
	for j, i := range idx {
		t := ts[j]
		rows[i].Timing = &t
	}
	progress(len(runs), len(runs), "timed")
	return nil
}

// checkOutputs runs the default and each configuration of todo once on
// copies of the same inputs and rejects the configurations whose written
// buffers differ from the default's.
func (k *Kernel) checkOutputs(ctx context.Context, env tuneEnv, args map[string]any, rows []TuneRow, todo []int, o TuneOptions, grid func(TuneConfig) ([3]int, error)) error {
	tol := o.Tolerance
	if tol <= 0 {
		tol = 2e-2
	}
	run := func(c TuneConfig) (map[string][]float64, error) {
		cp := cloneArgs(args)
		g, err := grid(c)
		if err != nil {
			return nil, err
		}
		// a nil pointer argument is Triton's None, as in Run
		co := k.noneDefines(c.Options(o.Options), func(name string, _ int) bool { return isNilArg(cp[name]) && hasKey(cp, name) })
		if err := k.RunContext(ctx, env.dev, g, co, cp); err != nil {
			return nil, err
		}
		w, err := k.written(co)
		if err != nil {
			return nil, err
		}
		bound, err := k.bindArgs(cp, co.Defines)
		if err != nil {
			return nil, err
		}
		out := map[string][]float64{}
		for _, b := range bound {
			if !w[b.param.name] {
				continue
			}
			if b.tensor != nil {
				out[b.param.name] = slices.Clone(b.tensor.Data)
			} else if b.typed != nil {
				buf, err := interp.FromSlice(b.param.dt, b.typed)
				if err != nil {
					return nil, err
				}
				out[b.param.name] = buf.Float64()
			}
		}
		return out, nil
	}
	want, err := run(rows[0].Config)
	if err != nil {
		return fmt.Errorf("tune: the default configuration of %s: %w", k.Name(), err)
	}
	for _, i := range todo {
		if i == 0 {
			continue
		}
		got, err := run(rows[i].Config)
		if err == nil {
			err = compareOutputs(want, got, tol)
		}
		if err != nil {
			rows[i].Pruned = "rejected: " + firstLine(err.Error())
			tuneLog("%s: %s %s", k.Name(), rows[i].Config.Name, rows[i].Pruned)
		}
	}
	return nil
}

func compareOutputs(want, got map[string][]float64, tol float64) error {
	names := slices.Sorted(maps.Keys(want))
	for _, n := range names {
		a, b := want[n], got[n]
		if len(a) != len(b) {
			return fmt.Errorf("%s has %d elements, the default's %d", n, len(b), len(a))
		}
		scale := 0.0
		for _, v := range a {
			scale = math.Max(scale, math.Abs(v))
		}
		scale = math.Max(scale, 1e-30)
		for j := range a {
			if d := math.Abs(a[j] - b[j]); d > tol*scale || math.IsNaN(b[j]) != math.IsNaN(a[j]) {
				return fmt.Errorf("output %s differs from the default's at %d: %g, want %g (tolerance %g of %g)", n, j, b[j], a[j], tol, scale)
			}
		}
	}
	return nil
}

// cloneArgs copies every buffer argument (Tensors, Arrays, slices), so
// that each configuration runs on the same inputs.
func cloneArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for n, a := range args {
		switch v := a.(type) {
		case *Tensor:
			t := *v
			t.Data = slices.Clone(v.Data)
			out[n] = &t
			continue
		}
		rv := reflect.ValueOf(a)
		switch {
		case rv.Kind() == reflect.Slice:
			c := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
			reflect.Copy(c, rv)
			out[n] = c.Interface()
		case rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct && rv.Elem().FieldByName("Data").Kind() == reflect.Slice:
			c := reflect.New(rv.Elem().Type())
			c.Elem().Set(rv.Elem())
			d := rv.Elem().FieldByName("Data")
			nd := reflect.MakeSlice(d.Type(), d.Len(), d.Len())
			reflect.Copy(nd, d)
			c.Elem().FieldByName("Data").Set(nd)
			out[n] = c.Interface()
		default:
			out[n] = a
		}
	}
	return out
}

// tunePrefix keys a bucket's timings: the compiler, the source, the
// kernel, its parameter types, the bucket, the device, the base options
// and the target and toolchain.
func (k *Kernel) tunePrefix(bucket, device string, base CompileOptions, g GPUOptions) string {
	h := sha256.New()
	fmt.Fprintf(h, "tle-go tune %s %s\x00%s\x00", Version, buildID(), k.Name())
	h.Write(k.prog.src)
	fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%s\x00%s\x00", bucket, device, bindingKey(base), g.Arch, g.Toolchain)
	for _, p := range k.Params() {
		fmt.Fprintf(h, "%s:%s,", p.Name, p.Type)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// tuneCache keeps one file per configuration under dir/prefix/, each
// written atomically: concurrent processes each leave a whole file, and
// an entry that does not parse or whose checksum fails is timed again.
type tuneCache struct{ dir, prefix string }

type tuneEntry struct {
	Config string           `json:"config"`
	Timing Timing           `json:"timing"`
	Sum    string           `json:"sum"`
	Vals   map[string]int64 `json:"vals"`
	// Rejected is why the configuration's output was refused (no Timing).
	Rejected string `json:"rejected,omitempty"`
}

func (e tuneEntry) sum() string {
	b, _ := json.Marshal(struct {
		C, R string
		T    Timing
	}{e.Config, e.Rejected, e.Timing})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

func (c tuneCache) path(cfg TuneConfig) string {
	h := sha256.Sum256([]byte(cfg.ID()))
	return filepath.Join(c.dir, c.prefix, hex.EncodeToString(h[:12])+".json")
}

// get is cfg's cached timing, or the reason its output was rejected.
func (c tuneCache) get(cfg TuneConfig) (t *Timing, rejected string, ok bool) {
	p := c.path(cfg)
	b, err := fileio.ReadFile(p, 16<<20)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			tuneLog("cache %s: %v: timing again", p, err)
		}
		return nil, "", false
	}
	var e tuneEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Config != cfg.ID() || e.Sum != e.sum() {
		tuneLog("cache entry %s of %s is corrupt: timing again", p, cfg.Name)
		return nil, "", false
	}
	if e.Rejected != "" {
		tuneLog("cache hit: %s, rejected before: %s", cfg.Name, e.Rejected)
		return nil, e.Rejected, true
	}
	tuneLog("cache hit: %s", cfg.Name)
	tm := e.Timing
	return &tm, "", true
}

func (c tuneCache) putRejected(cfg TuneConfig, why string) {
	c.write(tuneEntry{Config: cfg.ID(), Vals: cfg.Vals, Rejected: why})
}

func (c tuneCache) put(cfg TuneConfig, t *Timing) {
	if t == nil {
		return
	}
	c.write(tuneEntry{Config: cfg.ID(), Timing: *t, Vals: cfg.Vals})
}

func (c tuneCache) write(e tuneEntry) {
	cfg := TuneConfig{Vals: e.Vals}
	e.Sum = e.sum()
	p := c.path(cfg)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tuneLog("cache: %v", err)
		return
	}
	err := fileio.WriteAtomic(p, 0o644, func(w io.Writer) error { return json.NewEncoder(w).Encode(e) })
	if err != nil {
		tuneLog("cache: %v", err)
	}
}

// sum identifies the space a choice was made over: its configurations
// (bindings and exclusions, the default first). The source, the bucket,
// the device and the options are the cache prefix's.
func (s *TuneSpace) sum() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", s.Default.ID())
	for _, c := range s.Configs {
		fmt.Fprintf(h, "%s\x00%s\x00", c.ID(), c.Excluded)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// choiceEntry is a bucket's cached choice: the result as it was made, and
// the space it was made over.
type choiceEntry struct {
	Space  string      `json:"space"`
	Result *TuneResult `json:"result"`
	Sum    string      `json:"sum"`
}

func (e choiceEntry) sum() string {
	b, _ := json.Marshal(struct {
		S string
		R *TuneResult
	}{e.Space, e.Result})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// choicePath is beside the per-configuration entries' folder, not in it.
func (c tuneCache) choicePath() string {
	return filepath.Join(c.dir, c.prefix+".choice.json")
}

// getChoice is the cached choice made over the space of sum space, its
// timed rows marked cached; false when there is none, it was made over
// another space, or it does not parse or check.
func (c tuneCache) getChoice(space string) (*TuneResult, bool) {
	p := c.choicePath()
	b, err := fileio.ReadFile(p, 16<<20)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			tuneLog("cache %s: %v: choosing again", p, err)
		}
		return nil, false
	}
	var e choiceEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Result == nil || e.Sum != e.sum() {
		tuneLog("cached choice %s is corrupt: choosing again", p)
		return nil, false
	}
	if e.Space != space {
		tuneLog("cached choice %s was made over another space: choosing again", p)
		return nil, false
	}
	for i := range e.Result.Rows {
		if e.Result.Rows[i].Timing != nil {
			e.Result.Rows[i].Cached = true
		}
	}
	return e.Result, true
}

func (c tuneCache) putChoice(space string, res *TuneResult) {
	e := choiceEntry{Space: space, Result: res}
	e.Sum = e.sum()
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		tuneLog("cache: %v", err)
		return
	}
	if err := fileio.WriteAtomic(c.choicePath(), 0o644, func(w io.Writer) error { return json.NewEncoder(w).Encode(e) }); err != nil {
		tuneLog("cache: %v", err)
	}
}

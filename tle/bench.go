package tle

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tlego/tle/internal/hostmem"
	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/runtime/timing"
)

// BenchOptions are the timing engine's settings (package runtime/timing:
// warm-up, rounds interleaving the cases, the median with its interval).
type BenchOptions struct {
	// Warmup is the untimed runs of each case before timing.
	Warmup int
	// Reps is the timed runs of each case: one per round (at least 1).
	Reps int
	// FlushL2 writes a buffer twice the size of the GPU's L2 (the
	// driver's L2 attribute) before every timed run, outside its events:
	// each run starts with a cold L2, as nvbench's cold measurements do.
	FlushL2 bool
	// Graph captures each case's launches once as a CUDA graph and times
	// its replays: the host's launch cost is out of the figure, as in a
	// serving loop that replays a step (cases given as Fn cannot be
	// captured and are refused).
	Graph bool
	// Level is the confidence level of the intervals (0: 0.95).
	Level float64
}

// BenchCase is one thing GPU.Bench times: launches, or a function.
type BenchCase struct {
	Name string
	// Launches are prepared launches enqueued in order as the timed
	// operation (or replayed as one graph with BenchOptions.Graph).
	Launches []GraphStep
	// Fn is the timed operation when there are no Launches: it enqueues
	// work on the GPU's default stream.
	Fn func() error
	// Restore are buffers the case writes: each is copied once before
	// timing and copied back before every run, outside the timed events,
	// so that every run reads the same inputs (an in-place update, an
	// accumulation, a kernel that reads what it wrote). Kernel.Writes
	// names a kernel's.
	Restore []*DeviceBuffer
}

// Comparison says whether two timings of one run differ by more than
// noise: timing.Comparison (a paired sign test over the rounds).
type Comparison = timing.Comparison

// CompareTest names the test Compare makes.
const CompareTest = timing.Test

// Compare compares two timings from the same GPU.Bench or BenchKernels
// call (their samples are paired by round) at level (0: 0.95).
func Compare(a, b Timing, level float64) (Comparison, error) {
	return timing.Compare(timing.Result{Name: a.Name, Samples: a.Samples}, timing.Result{Name: b.Name, Samples: b.Samples}, level)
}

// timingOf is a result of the engine as a Timing.
func timingOf(r timing.Result) Timing {
	return Timing{Name: r.Name, MedianMs: r.Median, MinMs: r.Min, Reps: len(r.Samples), LoMs: r.Lo, HiMs: r.Hi,
		Coverage: r.Coverage, Samples: r.Samples, Clock: r.Clock}
}

// String is the timing in one line: median with its interval, minimum,
// runs and clock.
func (t Timing) String() string {
	us := func(ms float64) string { return fmt.Sprintf("%.2f", ms*1e3) }
	return fmt.Sprintf("median %s us [%s, %s] (%.0f%% interval), min %s us, %d runs, %s",
		us(t.MedianMs), us(t.LoMs), us(t.HiMs), 100*t.Coverage, us(t.MinMs), t.Reps, t.Clock)
}

// eventClock is the engine's clock on a GPU: CUDA events recorded on the
// default stream, where every launch of a GPU goes, kept for reuse.
type eventClock struct {
	g   *GPU
	evs []*cuda.Event
	n   int
}

func (c *eventClock) Name() string { return "CUDA events on " + c.g.name }

func (c *eventClock) Mark() (int, error) {
	if c.n == len(c.evs) {
		e, err := c.g.ctx.NewEvent(cuda.EventDefault)
		if err != nil {
			return 0, err
		}
		c.evs = append(c.evs, e)
	}
	if err := c.evs[c.n].Record(nil); err != nil {
		return 0, err
	}
	c.n++
	return c.n - 1, nil
}

func (c *eventClock) Sync() error { return c.g.ctx.Synchronize() }

func (c *eventClock) Elapsed(a, b int) (float64, error) {
	ms, err := c.evs[b].Since(c.evs[a])
	return float64(ms), err
}

func (c *eventClock) Reset() { c.n = 0 }

func (c *eventClock) close() {
	for _, e := range c.evs {
		e.Destroy()
	}
	c.evs = nil
}

// Bench times the cases on g with the engine, interleaved round by round,
// and returns a Timing per case, in order (compare two with Compare). On
// a dry GPU each case runs once and the timings are zero.
func (g *GPU) Bench(o BenchOptions, cases ...BenchCase) ([]Timing, error) {
	if err := g.check("Bench"); err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, errors.New("tle: Bench of no cases")
	}
	if o.Reps < 1 {
		return nil, fmt.Errorf("tle: Bench needs at least one rep, got %d", o.Reps)
	}
	runs := make([]func() error, len(cases))
	var cleanup []func()
	defer func() {
		for _, f := range slices.Backward(cleanup) {
			f()
		}
	}()
	for i, c := range cases {
		switch {
		case c.Fn != nil && len(c.Launches) > 0:
			return nil, fmt.Errorf("tle: Bench: case %s has both launches and a function", c.Name)
		case c.Fn != nil && o.Graph:
			return nil, fmt.Errorf("tle: Bench: case %s is a function; only launches replay as a graph", c.Name)
		case c.Fn != nil:
			runs[i] = c.Fn
		case len(c.Launches) == 0:
			return nil, fmt.Errorf("tle: Bench: case %s has nothing to run", c.Name)
		case o.Graph:
			gr, err := g.Capture(c.Launches...)
			if err != nil {
				return nil, fmt.Errorf("case %s: %w", c.Name, err)
			}
			cleanup = append(cleanup, func() { gr.Close() })
			runs[i] = gr.Launch
		default:
			steps := c.Launches
			runs[i] = func() error {
				for _, s := range steps {
					if err := s.Launch.LaunchWith(s.Options); err != nil {
						return err
					}
				}
				return nil
			}
		}
	}
	if g.dry != nil {
		out := make([]Timing, len(cases))
		for i, c := range cases {
			if err := runs[i](); err != nil {
				return nil, err
			}
			out[i] = Timing{Name: c.Name, Reps: o.Reps, Clock: "none (dry run)"}
		}
		return out, nil
	}
	cands := make([]timing.Candidate, len(cases))
	for i, c := range cases {
		cands[i] = timing.Candidate{Name: c.Name, Run: runs[i]}
		if len(c.Restore) == 0 {
			continue
		}
		reset, free, err := g.restorer(c.Restore)
		cleanup = append(cleanup, free)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		cands[i].Reset = reset
	}
	opts := timing.Options{Warmup: o.Warmup, Reps: o.Reps, Level: o.Level}
	if o.FlushL2 {
		flush, err := g.l2Flusher()
		if err != nil {
			return nil, err
		}
		opts.Flush = flush
	}
	clock := &eventClock{g: g}
	defer clock.close()
	res, err := timing.Run(clock, opts, cands...)
	if err != nil {
		return nil, err
	}
	out := make([]Timing, len(res))
	for i, r := range res {
		out[i] = timingOf(r)
	}
	return out, nil
}

// restorer copies bufs aside (in stream order: what they hold once the
// work enqueued so far is done) and returns the function that copies them
// back, and the one that frees the copies.
func (g *GPU) restorer(bufs []*DeviceBuffer) (reset func() error, free func(), err error) {
	var saved []*DeviceBuffer
	free = func() {
		g.ctx.Synchronize()
		for _, s := range saved {
			g.Free(s)
		}
	}
	for _, b := range bufs {
		if b == nil || b.Ptr == 0 {
			return nil, free, errors.New("restoring a nil or freed buffer")
		}
		s, err := g.Alloc(b.DType, b.N)
		if err != nil {
			return nil, free, err
		}
		saved = append(saved, s)
		if err := g.CopyDtoD(s, b, b.Bytes()); err != nil {
			return nil, free, err
		}
	}
	reset = func() error {
		for i, b := range bufs {
			if err := g.CopyDtoD(b, saved[i], b.Bytes()); err != nil {
				return err
			}
		}
		return nil
	}
	return reset, free, nil
}

// l2Flusher is the L2 flush of BenchOptions.FlushL2: a memset, on the
// default stream, of a buffer twice the L2's size (the driver's
// attribute), allocated once per GPU and kept.
func (g *GPU) l2Flusher() (func() error, error) {
	owner := g
	if g.shared != nil {
		owner = g.shared
	}
	mu := g.lock()
	mu.Lock()
	defer mu.Unlock()
	if owner.flushPtr == 0 {
		l2, err := g.ctx.Dev.Attribute(cuda.AttrL2CacheSize)
		if err != nil {
			return nil, fmt.Errorf("the L2's size: %w", err)
		}
		n := 2 * max(l2, 1<<20)
		p, err := g.ctx.Alloc(n)
		if err != nil {
			return nil, fmt.Errorf("the L2 flush buffer (%d bytes): %w", n, err)
		}
		owner.flushPtr, owner.flushLen = p, n
	}
	p, n := owner.flushPtr, owner.flushLen
	return func() error { return g.ctx.MemsetD32Async(p, 0, n/4, nil) }, nil
}

// KernelRun is a kernel launched as Kernel.Run launches it: what
// BenchKernels times.
type KernelRun struct {
	// Name names the run in its Timing (the kernel's name when empty).
	Name    string
	Kernel  *Kernel
	Grid    [3]int
	Options CompileOptions
	// Args are Run's arguments, by parameter name.
	Args map[string]any
}

// BenchKernels times runs on dev with the engine, interleaved round by
// round, and returns a Timing per run, in order (compare two with
// Compare). The buffers each kernel writes (Kernel.Writes) are restored
// before every run, outside the timing, so that every run reads the
// arguments as given.
//
// On a GPU it times the kernel alone: the arguments are uploaded and the
// launch prepared once, then each run is one launch between CUDA events
// (or a graph replay, BenchOptions.Graph). On the interpreter (CPU()) it
// times the whole of Kernel.RunContext on the host's clock, and the
// Timing's Clock says that this is the interpreter's time, not a GPU's;
// FlushL2 and Graph are GPU options and are refused there. The
// arguments are left as the last run wrote them.
func BenchKernels(ctx context.Context, dev Device, o BenchOptions, runs ...KernelRun) ([]Timing, error) {
	if err := checkDevice("BenchKernels", dev); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, errors.New("tle: BenchKernels of no runs")
	}
	type prepared struct {
		bound   []*boundArg
		opts    CompileOptions
		written map[string]bool
	}
	ps := make([]prepared, len(runs))
	for i := range runs {
		r := &runs[i]
		if r.Kernel == nil {
			return nil, fmt.Errorf("tle: BenchKernels: run %d has no kernel", i)
		}
		if r.Name == "" {
			r.Name = r.Kernel.Name()
		}
		if err := checkGrid(r.Grid); err != nil {
			return nil, err
		}
		if err := r.Options.validate(); err != nil {
			return nil, err
		}
		// a nil pointer argument is Triton's None, as in Run
		opts := r.Kernel.noneDefines(r.Options, func(name string, _ int) bool { return isNilArg(r.Args[name]) && hasKey(r.Args, name) })
		bound, err := r.Kernel.bindArgs(r.Args, opts.Defines)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Name, err)
		}
		if name, ok := hasTable(bound); ok {
			return nil, fmt.Errorf("%s: argument %s: BenchKernels takes no PointerTable (Run does)", r.Name, name)
		}
		opts.Div16 = div16Of(bound)
		w, err := r.Kernel.written(opts)
		if err != nil {
			return nil, err
		}
		ps[i] = prepared{bound: bound, opts: opts, written: w}
	}
	if g, ok := dev.(*GPU); ok {
		cases := make([]BenchCase, len(runs))
		for i, r := range runs {
			args := make([]any, len(ps[i].bound))
			var restore []*DeviceBuffer
			for j, a := range ps[i].bound {
				if a.param.kind == scalarParam {
					args[j] = a.arg
					continue
				}
				b, err := g.uploadArg(a)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", r.Name, err)
				}
				defer g.Free(b)
				args[j] = b
				if a.param.kind == descParam {
					args[j] = DeviceDesc{Buf: b, Shape: a.desc.shape, Strides: a.desc.strides}
				}
				if ps[i].written[a.param.name] {
					restore = append(restore, b)
				}
			}
			p, err := g.Prepare(r.Kernel, r.Options, r.Grid, args...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.Name, err)
			}
			defer p.Close()
			cases[i] = BenchCase{Name: r.Name, Launches: []GraphStep{{Launch: p}}, Restore: restore}
		}
		return g.Bench(o, cases...)
	}
	if o.FlushL2 || o.Graph {
		return nil, fmt.Errorf("tle: BenchKernels on %s: flushing the L2 and replaying a graph need a GPU", dev.Name())
	}
	if ctx == nil {
		ctx = context.Background()
	}
	cands := make([]timing.Candidate, len(runs))
	for i, r := range runs {
		var saves []func()
		for _, a := range ps[i].bound {
			if !ps[i].written[a.param.name] {
				continue
			}
			if a.typed != nil {
				view := hostmem.SliceBytes(a.typed)
				keep := slices.Clone(view)
				saves = append(saves, func() { copy(view, keep) })
			} else {
				data := a.tensor.Data
				keep := slices.Clone(data)
				saves = append(saves, func() { copy(data, keep) })
			}
		}
		cands[i] = timing.Candidate{Name: r.Name,
			Run: func() error { return r.Kernel.RunContext(ctx, dev, r.Grid, r.Options, r.Args) },
			Reset: func() error {
				for _, s := range saves {
					s()
				}
				return nil
			}}
	}
	res, err := timing.Run(timing.NewHostClock("host wall clock: the interpreter's run, not a GPU"),
		timing.Options{Warmup: o.Warmup, Reps: o.Reps, Level: o.Level}, cands...)
	if err != nil {
		return nil, err
	}
	out := make([]Timing, len(res))
	for i, r := range res {
		out[i] = timingOf(r)
	}
	return out, nil
}

// uploadArg copies a bound pointer or desc argument into a new device
// buffer of its dtype.
func (g *GPU) uploadArg(a *boundArg) (*DeviceBuffer, error) {
	p := a.param
	var raw []byte
	if a.typed != nil {
		raw = hostmem.SliceBytes(a.typed) // the array itself, in its dtype
	} else {
		var err error
		if raw, err = npy.Encode(p.dt, a.tensor.Data); err != nil {
			return nil, fmt.Errorf("argument %s: %w", p.name, err)
		}
	}
	b, err := g.Alloc(p.dt, a.n)
	if err != nil {
		return nil, fmt.Errorf("argument %s: %w", p.name, err)
	}
	if g.dry == nil {
		if err := g.ctx.CopyHtoD(b.Ptr, raw); err != nil {
			g.Free(b)
			return nil, err
		}
	}
	return b, nil
}

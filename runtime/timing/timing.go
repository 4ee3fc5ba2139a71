// Package timing is the one timing engine of TLE-Go: every bench suite,
// `tlec bench FILE.tle` and the tuner time kernels through Run, and
// compare them with Compare.
//
// It is device-agnostic: a Clock marks points in the stream the work runs
// on (CUDA events on a GPU, the host's monotonic clock on the
// interpreter, a scripted clock in tests) and the engine decides what runs
// when and what the samples mean:
//
//   - warm-up: each candidate runs Warmup times, untimed, before any
//     sample (JIT loads, first-touch page faults, clocks ramping up);
//   - rounds that interleave the candidates: round r runs every candidate
//     once, in an order rotated by r (A B C, B C A, C A B, ...), so that
//     drift (clock boost, temperature, another tenant) hits all alike and
//     no candidate always runs first or after the same neighbour;
//   - before each timed run, outside its marks: the candidate's Reset (the
//     buffers a kernel writes restored from a pristine copy, so every run
//     sees the same inputs) and, when asked, Flush (the L2 evicted by
//     writing a buffer larger than it, as nvbench's cold measurements and
//     triton.testing.do_bench do);
//   - every mark of a run is recorded before the engine waits for any
//     (CUDA events are read after one synchronisation at the end, as
//     do_bench does), so the host is never waited for between runs;
//   - the result per candidate: the samples in round order, the median
//     with its distribution-free confidence interval (MedianInterval) and
//     the minimum.
//
// What it took from others: triton.testing.do_bench (warm-up, one event
// pair per run, the L2 cleared before each run by writing a large buffer,
// a median over the runs), do_bench_cudagraph (a replayed graph as the
// timed operation: the host's launch cost out of the picture; here an
// option of the caller, tle.BenchOptions.Graph), nvbench's cold
// measurements (the flush buffer sized from the device's L2 attribute,
// written with a memset on the timed stream) and nvbench's comparison
// script (a verdict that says when two timings are not told apart rather
// than a bare percentage). What it does differently: candidates are
// interleaved round by round instead of timed one after the other, and
// the median comes with an interval instead of fixed quantiles.
package timing

import (
	"errors"
	"fmt"
	"slices"
)

// A Clock marks points in the stream that the timed work runs on.
type Clock interface {
	// Name says what the clock measures, for reports: "CUDA events",
	// "host wall clock (the interpreter, not a GPU)".
	Name() string
	// Mark records a point after everything enqueued so far and returns
	// its index (0, 1, ... since the last Reset).
	Mark() (int, error)
	// Sync waits until every mark recorded so far has been reached.
	Sync() error
	// Elapsed is the milliseconds from mark a to mark b (after Sync).
	Elapsed(a, b int) (float64, error)
	// Reset forgets the marks; their storage may be reused.
	Reset()
}

// A Candidate is one operation to time.
type Candidate struct {
	Name string
	// Run is the timed operation: it enqueues the work (or does it, on
	// the host) between two marks.
	Run func() error
	// Reset, when not nil, runs before every run, timed or not, outside
	// the marks: it puts back what Run changes (the buffers a kernel
	// writes), so that every run sees the same inputs.
	Reset func() error
}

// Options are the engine's settings.
type Options struct {
	// Warmup is the untimed runs of each candidate before the rounds.
	Warmup int
	// Reps is the rounds: the timed runs of each candidate (at least 1).
	Reps int
	// Flush, when not nil, runs before every timed run (after Reset),
	// outside the marks: it evicts the caches.
	Flush func() error
	// Level is the confidence level of the intervals (0: DefaultLevel).
	Level float64
	// Trace, when not nil, is told each timed run as it is enqueued:
	// its round and candidate index (tests check the interleaving).
	Trace func(round, cand int)
}

// Result is one candidate's timing.
type Result struct {
	Name string
	// Samples are the timed runs' milliseconds, in round order.
	Samples []float64
	// Median (ms) with its interval [Lo, Hi] of the given Coverage, and
	// the fastest run.
	Median, Lo, Hi, Min float64
	Coverage            float64
	// Clock is what measured it (Clock.Name).
	Clock string
}

// Order is the order the candidates of round r run in: a rotation by r
// of 0..n-1, so over n rounds each candidate runs once in every position.
func Order(r, n int) []int {
	out := make([]int, n)
	for j := range out {
		out[j] = (r + j) % n
	}
	return out
}

// Run times the candidates on c with o and returns a result per
// candidate, in the order given.
func Run(c Clock, o Options, cands ...Candidate) ([]Result, error) {
	if c == nil {
		return nil, errors.New("timing: no clock")
	}
	if len(cands) == 0 {
		return nil, errors.New("timing: nothing to time")
	}
	if o.Reps < 1 {
		return nil, fmt.Errorf("timing: %d reps: want at least 1", o.Reps)
	}
	if o.Warmup < 0 {
		return nil, fmt.Errorf("timing: %d warm-up runs: want 0 or more", o.Warmup)
	}
	for i, cd := range cands {
		if cd.Run == nil {
			return nil, fmt.Errorf("timing: candidate %d (%s) has nothing to run", i, cd.Name)
		}
	}
	fail := func(cd Candidate, what string, err error) error {
		if len(cands) == 1 {
			return fmt.Errorf("%s: %w", what, err)
		}
		return fmt.Errorf("%s of %s: %w", what, cd.Name, err)
	}
	for range o.Warmup {
		for _, cd := range cands {
			if cd.Reset != nil {
				if err := cd.Reset(); err != nil {
					return nil, fail(cd, "restoring the inputs", err)
				}
			}
			if err := cd.Run(); err != nil {
				return nil, fail(cd, "warm-up", err)
			}
		}
	}
	if err := c.Sync(); err != nil {
		return nil, err
	}
	c.Reset()
	defer c.Reset()
	n := len(cands)
	marks := make([][2]int, n*o.Reps) // by candidate, then round
	for r := range o.Reps {
		for _, i := range Order(r, n) {
			cd := cands[i]
			if cd.Reset != nil {
				if err := cd.Reset(); err != nil {
					return nil, fail(cd, "restoring the inputs", err)
				}
			}
			if o.Flush != nil {
				if err := o.Flush(); err != nil {
					return nil, fmt.Errorf("flushing the L2: %w", err)
				}
			}
			if o.Trace != nil {
				o.Trace(r, i)
			}
			a, err := c.Mark()
			if err != nil {
				return nil, err
			}
			if err := cd.Run(); err != nil {
				return nil, fail(cd, "timed run", err)
			}
			b, err := c.Mark()
			if err != nil {
				return nil, err
			}
			marks[i*o.Reps+r] = [2]int{a, b}
		}
	}
	if err := c.Sync(); err != nil {
		return nil, err
	}
	out := make([]Result, n)
	for i, cd := range cands {
		res := Result{Name: cd.Name, Samples: make([]float64, o.Reps), Clock: c.Name()}
		for r := range o.Reps {
			m := marks[i*o.Reps+r]
			ms, err := c.Elapsed(m[0], m[1])
			if err != nil {
				return nil, err
			}
			res.Samples[r] = ms
		}
		iv, err := MedianInterval(res.Samples, o.Level)
		if err != nil {
			return nil, err
		}
		res.Median, res.Lo, res.Hi, res.Coverage = iv.Median, iv.Lo, iv.Hi, iv.Coverage
		res.Min = slices.Min(res.Samples)
		out[i] = res
	}
	return out, nil
}

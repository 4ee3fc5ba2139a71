package interp

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// spin is a kernel whose one loop of n iterations has an empty body, on
// every program of the grid.
func spin(n int64) *ir.Module {
	k := newKernel("spin", param("out", ptr(ir.F32)))
	k.at(3)
	k.forLoop(k.ci(0), k.ConstInt(n, ir.I64), k.ci(1), nil, func(iv *ir.Value, _ []*ir.Value) []*ir.Value { return nil })
	return k.ret()
}

func TestContextDeadlineStopsAnEmptyLoop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Launch(spin(1<<62), "spin", [3]int{64, 1, 1}, []Arg{NewBuffer(ir.F32, 1)}, Options{Context: ctx})
	require.Less(t, time.Since(start), 2*time.Second)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "interp: launch of spin timed out after ")
	require.ErrorContains(t, err, ": context deadline exceeded; 0 of 64 programs finished; still running: program")
	require.ErrorContains(t, err, "(0, 0, 0)")
}

func TestWatchdogIsTheContextDeadline(t *testing.T) {
	start := time.Now()
	err := Launch(spin(1<<62), "spin", [3]int{2, 1, 1}, []Arg{NewBuffer(ir.F32, 1)}, Options{Timeout: 200 * time.Millisecond, Workers: 1})
	require.Less(t, time.Since(start), 2*time.Second)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "the watchdog's limit of 200ms passed (interp.Options.Timeout; a deadline on the context replaces the default); 0 of 2 programs finished; still running: program (0, 0, 0)")
}

type stopCause struct{}

func (stopCause) Error() string { return "the user gave up" }

func TestCancelEndsEveryGoroutine(t *testing.T) {
	base := runtime.NumGoroutine()
	// a producer that spins before committing and a consumer blocked on
	// the pipe, in each of 8 programs
	k := newKernel("ws", param("out", ptr(ir.F32)))
	pp := k.pipe("pp", 1)
	k.warpSpecialize(
		role{"producer", func() {
			k.at(10)
			k.forLoop(k.ci(0), k.ConstInt(1<<62, ir.I64), k.ci(1), nil, func(*ir.Value, []*ir.Value) []*ir.Value { return nil })
		}},
		role{"consumer", func() { k.drainSlot(pp) }},
	)
	m := k.ret()
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(200*time.Millisecond, func() { cancel(stopCause{}) })
	err := Launch(m, "ws", [3]int{8, 1, 1}, []Arg{NewBuffer(ir.F32, 4)}, Options{Context: ctx, Workers: 4})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, stopCause{})
	msg := err.Error()
	require.Contains(t, msg, "interp: launch of ws was cancelled after ")
	require.Contains(t, msg, ": the user gave up; 0 of 8 programs finished; still running: programs (0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0); blocked: ")
	require.Contains(t, msg, `role "consumer" of program (0, 0, 0) waits at t.tle:12:5 in pipe_wait(pp, 0)`)
	waitGoroutines(t, base)
}

// waitGoroutines waits (a little) for the goroutine count to fall back to
// base.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	n := 0
	for range 100 {
		if n = runtime.NumGoroutine(); n <= base {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines after the launch, %d before", n, base)
}

func TestEndedContextStopsBeforeTheLaunch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Launch(spin(1<<62), "spin", [3]int{1, 1, 1}, []Arg{NewBuffer(ir.F32, 1)}, Options{Context: ctx})
	require.True(t, errors.Is(err, context.Canceled))
	require.EqualError(t, err, "interp: launch of spin not started: context canceled")
}

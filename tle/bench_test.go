package tle

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

const accSrc = `// out += x: a kernel that reads what it writes
kernel acc(x *f32, out *f32, n i32) {
    offs := program_id(0)*64 + arange(0, 64)
    m := offs < n
    store(out + offs, load(out + offs, mask: m, other: 0) + load(x + offs, mask: m, other: 0), mask: m)
}
`

// On the interpreter BenchKernels times Run on the host's clock and says
// so; the buffer the kernel writes (out, which it also reads) is restored
// before every run, so after 3 warm-up runs and 5 timed ones out holds one
// run's result, not eight; two runs interleave and compare.
func TestBenchKernelsInterp(t *testing.T) {
	prog, err := Parse("acc.tle", []byte(accSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("acc")
	require.NoError(t, err)
	x := &Array[float32]{Shape: []int{100}, Data: make([]float32, 100)}
	out := &Array[float32]{Shape: []int{100}, Data: make([]float32, 100)}
	for i := range x.Data {
		x.Data[i], out.Data[i] = float32(i), 1000
	}
	run := KernelRun{Kernel: k, Grid: [3]int{2, 1, 1}, Args: map[string]any{"x": x, "out": out, "n": 100}}
	ts, err := BenchKernels(context.Background(), CPU(), BenchOptions{Warmup: 3, Reps: 5}, run)
	require.NoError(t, err)
	require.Len(t, ts, 1)
	require.Equal(t, "acc", ts[0].Name)
	require.Len(t, ts[0].Samples, 5)
	require.Contains(t, ts[0].Clock, "the interpreter's run, not a GPU")
	require.LessOrEqual(t, ts[0].LoMs, ts[0].MedianMs)
	require.LessOrEqual(t, ts[0].MinMs, ts[0].LoMs)
	for i, v := range out.Data {
		require.Equal(t, float32(1000+i), v, "out[%d]: restored before every run", i)
	}
	w, err := k.Writes(CompileOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"out"}, w)

	other := run
	other.Name = "again"
	ts, err = BenchKernels(context.Background(), CPU(), BenchOptions{Reps: 6}, run, other)
	require.NoError(t, err)
	cmp, err := Compare(ts[0], ts[1], 0)
	require.NoError(t, err)
	require.Equal(t, 6, cmp.Rounds)

	_, err = BenchKernels(context.Background(), CPU(), BenchOptions{Reps: 2, FlushL2: true}, run)
	require.ErrorContains(t, err, "need a GPU")
	_, err = BenchKernels(context.Background(), CPU(), BenchOptions{Reps: 2}, KernelRun{Kernel: k, Grid: [3]int{1, 1, 1}, Args: map[string]any{"x": x}})
	require.ErrorContains(t, err, "missing")
}

// On the fake driver: a case's Restore buffers are put back before every
// run (the case sees its input as it was, though each run overwrites
// it), the L2 flush runs, timings come from CUDA events, and a Fn case
// cannot be a graph.
func TestGPUBenchRestoreFlush(t *testing.T) {
	g := fakeGPU(t)
	buf, err := g.Upload(ir.F32, []float64{1, 2, 3, 4})
	require.NoError(t, err)
	defer g.Free(buf)
	junk, err := g.Upload(ir.F32, []float64{9, 9, 9, 9})
	require.NoError(t, err)
	defer g.Free(junk)
	runs := 0
	fn := func() error {
		got, err := g.Download(buf)
		if err != nil {
			return err
		}
		require.Equal(t, []float64{1, 2, 3, 4}, got, "run %d reads the restored input", runs)
		runs++
		return g.CopyDtoD(buf, junk, buf.Bytes()) // the run writes its input
	}
	ts, err := g.Bench(BenchOptions{Warmup: 2, Reps: 6, FlushL2: true}, BenchCase{Name: "inplace", Fn: fn, Restore: []*DeviceBuffer{buf}})
	require.NoError(t, err)
	require.Equal(t, 8, runs)
	require.Len(t, ts[0].Samples, 6)
	require.Contains(t, ts[0].Clock, "CUDA events")
	require.Greater(t, ts[0].MedianMs, 0.0)
	require.NotZero(t, g.flushLen, "the flush buffer is kept")
	require.Equal(t, 2*62914560, g.flushLen, "twice the fake's L2")

	_, err = g.Bench(BenchOptions{Reps: 2, Graph: true}, BenchCase{Name: "f", Fn: fn})
	require.ErrorContains(t, err, "only launches replay as a graph")
	tm, err := g.Time(1, 3, func() error { return nil })
	require.NoError(t, err)
	require.Equal(t, 3, tm.Reps)
}

// BenchKernels on the fake GPU: arguments uploaded once, the launch
// prepared once, replayed as a graph when asked.
func TestBenchKernelsFakeGPU(t *testing.T) {
	g, k := fakeVadd(t)
	x := &Array[float32]{Shape: []int{4}, Data: []float32{1, 2, 3, 4}}
	out := &Array[float32]{Shape: []int{4}, Data: make([]float32, 4)}
	run := KernelRun{Name: "vadd", Kernel: k, Grid: [3]int{1, 1, 1}, Args: map[string]any{"x": x, "y": x, "out": out, "n": 4}}
	for _, graph := range []bool{false, true} {
		ts, err := BenchKernels(context.Background(), g, BenchOptions{Warmup: 1, Reps: 7, Graph: graph, FlushL2: true}, run, run)
		require.NoError(t, err)
		require.Len(t, ts, 2)
		require.Contains(t, ts[1].Clock, "CUDA events")
		require.Len(t, ts[1].Samples, 7)
	}
	dry := DryGPU(H200)
	ts, err := BenchKernels(context.Background(), dry, BenchOptions{Reps: 3}, run)
	require.NoError(t, err)
	require.Zero(t, ts[0].MedianMs)
	require.Len(t, dry.Builds(), 1)
}

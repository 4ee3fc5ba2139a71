package collectives

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/cuda/cudatest"
	"github.com/tlego/tle/tle"
)

// nccl-tests' bus bandwidth factors (doc/PERFORMANCE.md).
func TestBusFactor(t *testing.T) {
	for _, c := range []struct {
		suite string
		n     int
		want  float64
	}{
		{"allreduce", 8, 2 * 7.0 / 8}, {"allreduce", 2, 1}, {"allreduce", 1, 0},
		{"allgather", 8, 7.0 / 8}, {"allgather", 4, 0.75}, {"reducescatter", 2, 0.5},
	} {
		require.InDelta(t, c.want, BusFactor(c.suite, c.n), 1e-15, "%s on %d", c.suite, c.n)
	}
	// 1 GiB in 10 ms on 8 ranks: algbw 107.37 GB/s, all-reduce busbw 187.9
	alg, bus := Bandwidths("allreduce", 8, 1<<30, 10)
	require.InDelta(t, 107.374182, alg, 1e-6)
	require.InDelta(t, 107.374182*1.75, bus, 1e-6)
	alg, bus = Bandwidths("allgather", 4, 4<<20, 0.1)
	require.InDelta(t, 41.943040, alg, 1e-6)
	require.InDelta(t, 41.943040*0.75, bus, 1e-6)
	alg, bus = Bandwidths("allgather", 4, 4<<20, 0)
	require.Zero(t, alg+bus, "no time, no bandwidth")
}

func TestSizes(t *testing.T) {
	s := Sizes(4<<10, 1<<30)
	require.Len(t, s, 19, "4 KiB to 1 GiB in powers of two")
	require.Equal(t, int64(4096), s[0])
	require.Equal(t, int64(1<<30), s[18])
	require.Equal(t, []int64{4096}, Sizes(3000, 5000))
	require.Empty(t, Sizes(5000, 6000))
	for in, want := range map[string]int64{"4096": 4096, "4K": 4096, "4KiB": 4096, "1M": 1 << 20, "2GiB": 2 << 30, "12B": 12} {
		got, err := ParseBytes(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "x", "-4K", "0", "4TB", "1.5M"} {
		_, err := ParseBytes(bad)
		require.Error(t, err, bad)
	}
}

func TestPlan(t *testing.T) {
	l, err := Plan("allreduce-oneshot", 8, 1<<20, "bf16", Options{})
	require.NoError(t, err)
	require.Equal(t, "all_reduce_oneshot", l.Kernel)
	require.Equal(t, [3]int{1024, 1, 1}, l.Grid, "one program per 1024 elements")
	require.Equal(t, map[string]string{"WORLD": "8", "BLOCK": "1024", "T": "bf16"}, l.Defines)
	l, err = Plan("allreduce-twoshot", 8, 1<<20, "f32", Options{Block: 256})
	require.NoError(t, err)
	require.Equal(t, [3]int{512, 1, 1}, l.Grid, "chunks of n/8, 256 elements a program")
	l, err = Plan("reducescatter", 4, 1000, "f32", Options{Block: 32})
	require.NoError(t, err)
	require.Equal(t, "reduce_scatter", l.Kernel)
	require.Equal(t, [3]int{8, 1, 1}, l.Grid) // 250 per rank
	l, err = Plan("allgather", 4, 33, "f32", Options{Block: 32})
	require.NoError(t, err)
	require.Equal(t, [3]int{2, 1, 1}, l.Grid)
	for _, c := range []struct {
		op    string
		world int
		n     int
		o     Options
		want  string
	}{
		{"allreduce-twoshot", 3, 100, Options{}, "multiple of the devices"},
		{"reducescatter", 8, 12, Options{}, "multiple of the devices"},
		{"allgather", 8, 1 << 29, Options{}, "overflow i32"},
		{"allreduce-oneshot", 2, 0, Options{}, "0 elements"},
		{"allreduce-oneshot", 2, 10, Options{Block: 100}, "block 100"},
		{"broadcast", 2, 10, Options{}, `no collective "broadcast"`},
	} {
		_, err := Plan(c.op, c.world, c.n, "f32", c.o)
		require.ErrorContains(t, err, c.want, c.op)
	}
}

// Sizes become counts as nccl-tests makes them: size/elem, rounded down
// to a multiple of the ranks.
func TestCases(t *testing.T) {
	cs, err := Cases("allgather", BenchOptions{Devices: 3, DType: "f32", Sizes: []int64{4096, 1 << 30}})
	require.NoError(t, err)
	require.Equal(t, Case{Suite: "allgather", Size: 4096, Bytes: 4092, Count: 341, Elem: 4}, cs[0])
	require.Equal(t, int64(1<<30-4), cs[1].Bytes)
	cs, err = Cases("allreduce", BenchOptions{Devices: 8, DType: "bf16", Sizes: []int64{4096}})
	require.NoError(t, err)
	require.Equal(t, 2048, cs[0].Count, "all-reduce counts each rank's whole buffer")
	for _, c := range []struct {
		o    BenchOptions
		flag string
	}{
		{BenchOptions{Devices: 0, DType: "f32", Sizes: []int64{4096}}, "--devices"},
		{BenchOptions{Devices: 2, DType: "f16", Sizes: []int64{4096}}, "--dtype"},
		{BenchOptions{Devices: 8, DType: "f32", Sizes: []int64{16}}, "--min"},
		{BenchOptions{Devices: 2, DType: "f32", Sizes: []int64{4096}, Block: 3}, "--block"},
		{BenchOptions{Devices: 2, DType: "f32"}, "--min"},
	} {
		_, err := Cases("allreduce", c.o)
		var ae *registry.ArgError
		require.True(t, errors.As(err, &ae), "%+v: %v", c.o, err)
		require.Equal(t, c.flag, ae.Arg)
	}
}

func TestDryBench(t *testing.T) {
	g := tle.DryGPU(tle.H200)
	rs, err := Bench(g, "allreduce", BenchOptions{Devices: 4, DType: "bf16", Sizes: Sizes(4096, 16384)})
	require.NoError(t, err)
	require.Len(t, rs, 9)
	var kernels []string
	for _, r := range rs[:3] {
		kernels = append(kernels, r.Kernel)
		row := r.Row()
		require.Equal(t, "4KiB", row.Case)
		require.Equal(t, 4096.0, row.Bytes)
		require.Zero(t, row.MedianUs)
		require.Equal(t, 1.5, row.Facts["bus_factor"])
	}
	require.Equal(t, []string{"all_reduce_oneshot", "all_reduce_twoshot", "nccl"}, kernels)
	require.Len(t, g.Builds(), 2, "one build per .tle kernel: the sizes share them")
	// a timed row's rate is its busbw
	r := rs[0]
	r.Timing = tle.Timing{MedianMs: 0.01, MinMs: 0.01}
	r.AlgBW, r.BusBW = Bandwidths("allreduce", 4, r.Bytes, 0.01)
	row := r.Row()
	require.Equal(t, "GB/s busbw", row.Unit)
	require.InDelta(t, 4096/0.01e-3/1e9*1.5, row.Rate, 1e-9)
	require.Contains(t, row.Facts, "max_rel_diff_vs_nccl")
}

// On a host with two GPUs and NCCL: the .tle all-reduces, launched on the
// mesh with the device-mesh ABI, against NCCL's.
func TestGPUAllReduceMatchesNCCL(t *testing.T) {
	cudatest.Require(t)
	m, err := tle.OpenGPUMesh(2, tle.GPUMeshOptions{HeapBytes: 1 << 22, MaxPrograms: 64})
	if err != nil {
		if errors.Is(err, tle.ErrNoNCCL) || strings.Contains(err.Error(), "present") {
			t.Skipf("no mesh of 2 GPUs: %v", err)
		}
		t.Fatal(err)
	}
	defer m.Close()
	const n = 4096
	x, err := m.AllocSymmetric(tle.F32, n)
	require.NoError(t, err)
	scratch, err := m.AllocSymmetric(tle.F32, n)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 2))
	out, ref := make([]*tle.DeviceBuffer, 2), make([]*tle.DeviceBuffer, 2)
	for i := range 2 {
		g := m.GPU(i)
		require.NoError(t, g.UploadTo(x[i], randData(r, n, "f32")))
		out[i], err = g.Alloc(tle.F32, n)
		require.NoError(t, err)
		ref[i], err = g.Alloc(tle.F32, n)
		require.NoError(t, err)
	}
	require.NoError(t, m.NCCLAllReduce(x, ref))
	for _, algo := range []string{OneShot, TwoShot} {
		require.NoError(t, AllReduce(m, algo, x, scratch, out, Options{Block: 256}))
		require.NoError(t, m.Synchronize())
		for i := range 2 {
			got, err := m.GPU(i).Download(out[i])
			require.NoError(t, err)
			want, err := m.GPU(i).Download(ref[i])
			require.NoError(t, err)
			for j := range got {
				if math.Abs(got[j]-want[j]) > 1e-5*(1+math.Abs(want[j])) {
					t.Fatalf("%s rank %d element %d: %g, NCCL %g", algo, i, j, got[j], want[j])
				}
			}
		}
	}
}

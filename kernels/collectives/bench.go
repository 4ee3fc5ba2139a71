package collectives

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// The bandwidth suites (allreduce, allgather, reducescatter) time each
// .tle collective beside NCCL's own on a mesh of GPUs, over sizes as
// nccl-tests runs them, and report algbw and busbw as nccl-tests defines
// them (its doc/PERFORMANCE.md):
//
//	algbw = size / time
//	busbw = algbw * 2(n-1)/n   all-reduce (size: each rank's buffer)
//	busbw = algbw * (n-1)/n    all-gather, reduce-scatter (size: the
//	                           whole gathered or scattered buffer)

// Suites are the bench suites, by name, with the collective ops they time.
var Suites = map[string][]string{
	"allreduce":     {"allreduce-oneshot", "allreduce-twoshot"},
	"allgather":     {"allgather"},
	"reducescatter": {"reducescatter"},
}

// BusFactor is nccl-tests' bus bandwidth factor of suite on n ranks.
func BusFactor(suite string, n int) float64 {
	if n < 1 {
		return 0
	}
	f := float64(n-1) / float64(n)
	if suite == "allreduce" {
		return 2 * f
	}
	return f
}

// Sizes are the powers of two from lo to hi bytes, both included.
func Sizes(lo, hi int64) []int64 {
	var s []int64
	for b := int64(1); b <= hi && b > 0; b *= 2 {
		if b >= lo {
			s = append(s, b)
		}
	}
	return s
}

// ParseBytes reads a size: an integer with an optional K, M or G (or KiB,
// MiB, GiB; powers of 1024) suffix.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mul := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mul = strings.TrimSuffix(t, u.suf), u.m
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n < 1 || n > math.MaxInt64/mul {
		return 0, fmt.Errorf("%q is not a size (4096, 4K, 1MiB, 1G)", s)
	}
	return n * mul, nil
}

// BenchOptions are a suite's settings.
type BenchOptions struct {
	registry.RunOptions
	Devices int
	DType   string // bf16 or f32
	Sizes   []int64
	Block   int
}

// Case is one size of a suite: the elements each rank sends (count, as
// nccl-tests counts them: each rank's buffer for all-reduce, its share
// for all-gather and reduce-scatter) and the size the bandwidths divide.
type Case struct {
	Suite string
	Size  int64 // the size asked for (--min to --max): the case's name
	Bytes int64 // nccl-tests' size, the elements rounded to the devices
	Count int   // elements of each rank's x
	Elem  int   // bytes per element
}

// Cases are the suite's sizes as counts: size/elem elements, rounded
// down to a multiple of the ranks (nccl-tests rounds the same way), for
// all-gather and reduce-scatter the whole buffer's; a size too small for
// one element per rank is an error.
func Cases(suite string, o BenchOptions) ([]Case, error) {
	if _, ok := Suites[suite]; !ok {
		return nil, fmt.Errorf("collectives: no suite %q", suite)
	}
	if o.Devices < 1 {
		return nil, registry.ArgErr("--devices", "%d: want at least 1", o.Devices)
	}
	elem := map[string]int{"bf16": 2, "f32": 4}[o.DType]
	if elem == 0 {
		return nil, registry.ArgErr("--dtype", "%q: want bf16 or f32", o.DType)
	}
	if _, err := (Options{Block: o.Block}).block(); err != nil {
		return nil, registry.ArgErr("--block", "%v", err)
	}
	if len(o.Sizes) == 0 {
		return nil, registry.ArgErr("--min", "no size between --min and --max")
	}
	var cs []Case
	for _, size := range o.Sizes {
		total := size / int64(elem)
		total -= total % int64(o.Devices)
		if total < int64(o.Devices) {
			return nil, registry.ArgErr("--min", "%d bytes of %s hold fewer than one element per device (%d devices)", size, o.DType, o.Devices)
		}
		c := Case{Suite: suite, Size: size, Bytes: total * int64(elem), Count: int(total), Elem: elem}
		if suite != "allreduce" {
			c.Count = int(total) / o.Devices
		}
		for _, op := range Suites[suite] {
			if _, err := Plan(op, o.Devices, opInputs(op, c.Count, o.Devices), o.DType, Options{Block: o.Block}); err != nil {
				return nil, err
			}
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// opInputs is the n of a collective's kernel for a rank's count.
func opInputs(op string, count, world int) int {
	if op == "reducescatter" {
		return count * world
	}
	return count
}

// bufferSizes are the elements of each pointer argument of op's kernel
// for its n.
func bufferSizes(op string, n, world int) []int {
	switch op {
	case "allreduce-twoshot":
		return []int{n, n, n}
	case "allgather":
		return []int{n, world * n}
	case "reducescatter":
		return []int{n, n / world}
	}
	return []int{n, n}
}

// Result is one kernel on one case.
type Result struct {
	Case
	Devices    int
	DType      string
	Kernel     string // the .tle kernel, or "nccl"
	Timing     tle.Timing
	AlgBW      float64 // GB/s
	BusBW      float64 // GB/s
	MaxDiff    float64 // the largest |tle - nccl| on rank 0's output, relative to the largest |nccl|
	DeviceName string
}

// Row is the result as a registry row: Rate is busbw.
func (r Result) Row() registry.Row {
	row := registry.Row{Suite: r.Suite, Case: sizeName(r.Size), Config: fmt.Sprintf("%s, %d devices", r.DType, r.Devices),
		Kernel: r.Kernel, Bytes: float64(r.Bytes)}
	row = row.Timed(r.Timing)
	if r.Timing.MedianMs > 0 {
		row.Rate, row.Unit = r.BusBW, "GB/s busbw"
		row.Facts = map[string]any{"algbw_gbs": r.AlgBW, "busbw_gbs": r.BusBW, "count": r.Count}
		if r.Kernel != "nccl" {
			row.Facts["max_rel_diff_vs_nccl"] = r.MaxDiff
		}
	} else {
		row.Facts = map[string]any{"count": r.Count, "bus_factor": BusFactor(r.Suite, r.Devices)}
	}
	return row
}

func sizeName(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return fmt.Sprintf("%dB", b)
}

// Bandwidths are nccl-tests' algbw and busbw, in GB/s, of size bytes in ms
// milliseconds.
func Bandwidths(suite string, devices int, size int64, ms float64) (algbw, busbw float64) {
	if ms <= 0 {
		return 0, 0
	}
	algbw = float64(size) / (ms * 1e-3) / 1e9
	return algbw, algbw * BusFactor(suite, devices)
}

// Bench times the suite's kernels and NCCL's collective on every case. On
// a dry GPU it returns the cases untimed (no GPU, no NCCL needed);
// otherwise it opens a mesh of o.Devices GPUs of this host.
func Bench(g *tle.GPU, suite string, o BenchOptions) ([]Result, error) {
	cases, err := Cases(suite, o)
	if err != nil {
		return nil, err
	}
	kernels := func() []string {
		var ks []string
		for _, op := range Suites[suite] {
			l, _ := Plan(op, o.Devices, 1<<10*o.Devices, o.DType, Options{Block: o.Block})
			ks = append(ks, l.Kernel)
		}
		return append(ks, "nccl")
	}()
	if g.Dry() {
		// every case's launch of rank 0, recorded by the dry GPU: the
		// builds the timed run compiles
		var rs []Result
		dt := map[string]tle.DType{"bf16": tle.BF16, "f32": tle.F32}[o.DType]
		for _, c := range cases {
			for ki, kn := range kernels {
				if kn != "nccl" {
					op := Suites[suite][ki]
					l, _ := Plan(op, o.Devices, opInputs(op, c.Count, o.Devices), o.DType, Options{Block: o.Block})
					k, err := kernelOf(l.File, l.Kernel)
					if err != nil {
						return rs, err
					}
					var args []any
					for _, n := range bufferSizes(op, l.N, o.Devices) {
						b, err := g.Alloc(dt, n)
						if err != nil {
							return rs, err
						}
						args = append(args, b)
					}
					p, err := g.Prepare(k, tle.CompileOptions{Defines: l.Defines}, l.Grid, append(args, int32(l.N))...)
					if err != nil {
						return rs, fmt.Errorf("%s, %s: %w", kn, sizeName(c.Size), err)
					}
					p.Close()
				}
				rs = append(rs, Result{Case: c, Devices: o.Devices, DType: o.DType, Kernel: kn})
			}
		}
		return rs, nil
	}
	return benchMesh(suite, cases, kernels, o)
}

func benchMesh(suite string, cases []Case, kernels []string, o BenchOptions) ([]Result, error) {
	big := slices.MaxFunc(cases, func(a, b Case) int { return int(a.Bytes - b.Bytes) })
	block, _ := (Options{Block: o.Block}).block()
	xElems := opInputs(Suites[suite][0], big.Count, o.Devices) // every rank's x
	progs := 1
	for _, c := range cases {
		for _, op := range Suites[suite] {
			l, _ := Plan(op, o.Devices, opInputs(op, c.Count, o.Devices), o.DType, Options{Block: block})
			progs = max(progs, l.Grid[0])
		}
	}
	// x and two-shot's scratch are symmetric
	heap := 2*xElems*big.Elem + 4096
	m, err := tle.OpenGPUMesh(o.Devices, tle.GPUMeshOptions{HeapBytes: heap, MaxPrograms: progs})
	if err != nil {
		return nil, fmt.Errorf("the %s suite needs %d GPUs of this host and NCCL: %w", suite, o.Devices, err)
	}
	defer m.Close()
	dt := map[string]tle.DType{"bf16": tle.BF16, "f32": tle.F32}[o.DType]
	local := len(m.Ranks())
	x, err := m.AllocSymmetric(dt, xElems)
	if err != nil {
		return nil, err
	}
	scratch, err := m.AllocSymmetric(dt, xElems)
	if err != nil {
		return nil, err
	}
	outElems := map[string]int{"allreduce": big.Count, "allgather": big.Count * o.Devices, "reducescatter": big.Count}[suite]
	out := make([]*tle.DeviceBuffer, local)
	ref := make([]*tle.DeviceBuffer, local)
	rng := rand.New(rand.NewPCG(39, uint64(o.Devices)))
	for i := range local {
		g := m.GPU(i)
		if out[i], err = g.Alloc(dt, outElems); err != nil {
			return nil, err
		}
		defer g.Free(out[i])
		if ref[i], err = g.Alloc(dt, outElems); err != nil {
			return nil, err
		}
		defer g.Free(ref[i])
		data := make([]float64, xElems)
		for j := range data {
			data[j] = floats.Round(floats.BF16, rng.Float64()*2-1)
		}
		if err := g.UploadTo(x[i], data); err != nil {
			return nil, err
		}
	}
	view := func(bs []*tle.DeviceBuffer, n int) []*tle.DeviceBuffer {
		v := make([]*tle.DeviceBuffer, len(bs))
		for i, b := range bs {
			v[i] = &tle.DeviceBuffer{Ptr: b.Ptr, DType: b.DType, N: n}
		}
		return v
	}
	var results []Result
	total := len(cases) * len(kernels)
	for ci, c := range cases {
		n := opInputs(Suites[suite][0], c.Count, o.Devices)
		on := map[string]int{"allreduce": c.Count, "allgather": c.Count * o.Devices, "reducescatter": c.Count}[suite]
		xs, ss, outs, rs := view(x, n), view(scratch, n), view(out, on), view(ref, on)
		for ki, kn := range kernels {
			var launch func() error
			var closeFn func() error
			if kn == "nccl" {
				launch = map[string]func() error{
					"allreduce":     func() error { return m.NCCLAllReduce(xs, rs) },
					"allgather":     func() error { return m.NCCLAllGather(xs, rs) },
					"reducescatter": func() error { return m.NCCLReduceScatter(xs, rs) },
				}[suite]
			} else {
				op := Suites[suite][ki]
				l, err := Plan(op, o.Devices, opInputs(op, c.Count, o.Devices), o.DType, Options{Block: block})
				if err != nil {
					return results, err
				}
				k, err := kernelOf(l.File, l.Kernel)
				if err != nil {
					return results, err
				}
				args := make([][]any, local)
				for i := range args {
					args[i] = []any{xs[i], outs[i], int32(l.N)}
					if op == "allreduce-twoshot" {
						args[i] = []any{xs[i], ss[i], outs[i], int32(l.N)}
					}
				}
				p, err := m.Prepare(k, tle.CompileOptions{Defines: l.Defines}, l.Grid, args)
				if err != nil {
					return results, fmt.Errorf("%s, %s: %w", kn, sizeName(c.Bytes), err)
				}
				launch, closeFn = p.Launch, p.Close
			}
			t, err := timeMesh(m, o.RunOptions, launch)
			if closeFn != nil {
				closeFn()
			}
			if err != nil {
				return results, fmt.Errorf("%s, %s: %w", kn, sizeName(c.Bytes), err)
			}
			r := Result{Case: c, Devices: o.Devices, DType: o.DType, Kernel: kn, Timing: t, DeviceName: m.Name()}
			r.AlgBW, r.BusBW = Bandwidths(suite, o.Devices, c.Bytes, t.MedianMs)
			if kn != "nccl" {
				// the output of the last timed run against NCCL's
				if err := m.Synchronize(); err != nil {
					return results, err
				}
				if r.MaxDiff, err = maxDiff(m, outs[0], rs[0]); err != nil {
					return results, err
				}
			}
			results = append(results, r)
			o.Step(ci*len(kernels)+ki+1, total, fmt.Sprintf("%s %s", kn, sizeName(c.Bytes)))
		}
	}
	return results, nil
}

// timeMesh runs launch warmup times, then reps timed runs, each waiting
// for every GPU: host wall-clock time, as nccl-tests measures.
func timeMesh(m *tle.GPUMesh, o registry.RunOptions, launch func() error) (tle.Timing, error) {
	for range o.Warmup {
		if err := launch(); err != nil {
			return tle.Timing{}, err
		}
	}
	if err := m.Synchronize(); err != nil {
		return tle.Timing{}, err
	}
	reps := max(o.Reps, 1)
	samples := make([]float64, reps)
	for i := range samples {
		start := time.Now()
		if err := launch(); err != nil {
			return tle.Timing{}, err
		}
		if err := m.Synchronize(); err != nil {
			return tle.Timing{}, err
		}
		samples[i] = float64(time.Since(start).Nanoseconds()) / 1e6
	}
	sorted := slices.Sorted(slices.Values(samples))
	return tle.Timing{MedianMs: sorted[len(sorted)/2], MinMs: sorted[0], Reps: reps, Samples: samples, Clock: "host wall clock around every GPU of the mesh"}, nil
}

// maxDiff is max |a - b| over max |b| of rank 0's outputs.
func maxDiff(m *tle.GPUMesh, a, b *tle.DeviceBuffer) (float64, error) {
	g := m.GPU(0)
	x, err := g.Download(a)
	if err != nil {
		return 0, err
	}
	y, err := g.Download(b)
	if err != nil {
		return 0, err
	}
	var d, mag float64
	for i := range x {
		d = max(d, math.Abs(x[i]-y[i]))
		mag = max(mag, math.Abs(y[i]))
	}
	if mag == 0 {
		return d, nil
	}
	return d / mag, nil
}

package tutorials

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

var pdlDefs = map[string]string{"BLOCK": "256"}

const pdlN = 1000 // not a multiple of BLOCK: the tail is masked

// pdlWant is the pair's result for x: 2x + 1 in f32 (2x is exact).
func pdlWant(x []float64) []float64 {
	w := make([]float64, len(x))
	for i := range x {
		w[i] = 2*x[i] + 1
	}
	return round(ir.F32, w)
}

// TestPDL: the producer then the consumer, on every device (two Runs: on a
// GPU without the PDL launch option, so the builtins only have to be
// harmless there; TestPDLGPU makes the dependent launch).
func TestPDL(t *testing.T) {
	prod, cons := kernel(t, "pdl.tle", "pdl_producer"), kernel(t, "pdl.tle", "pdl_consumer")
	r := rand.New(rand.NewPCG(21, 22))
	grid := [3]int{cdiv(pdlN, 256), 1, 1}
	opts := tle.CompileOptions{Defines: pdlDefs}
	devs, noGPU := tle.Devices() // not devices(): a carried PTX file holds one kernel, the pair is two
	if noGPU != nil {
		t.Logf("GPU runs skipped: %v", noGPU)
	}
	for _, dev := range devs {
		x := round(ir.F32, randn(r, pdlN))
		y, out := poison(pdlN), poison(pdlN)
		require.NoError(t, prod.Run(dev, grid, opts, map[string]any{"x": &tle.Tensor{Shape: []int{pdlN}, Data: x}, "y": y, "n": pdlN}), dev.Name())
		require.NoError(t, cons.Run(dev, grid, opts, map[string]any{"y": y, "out": out, "n": pdlN}), dev.Name())
		require.Equal(t, pdlWant(x), out.Data, dev.Name())
	}
}

// TestPDLPTX: the griddepcontrol instructions, whole lines, in llc-19's PTX
// of the tutorial pair, the wait before the consumer's first load and the
// trigger after the producer's.
func TestPDLPTX(t *testing.T) {
	tletest.NeedLLC(t)
	for name, w := range map[string]string{"pdl_producer": `griddepcontrol\.launch_dependents;`, "pdl_consumer": `griddepcontrol\.wait;`} {
		b, err := kernel(t, "pdl.tle", name).Compile(tle.CompileOptions{Defines: pdlDefs}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err)
		at := tletest.PTXLine(w + `$`).FindStringIndex(b.PTX)
		require.NotNil(t, at, "%s: no %s line", name, w)
		ld := tletest.PTXLine(`ld\.global`).FindStringIndex(b.PTX)
		require.NotNil(t, ld)
		if name == "pdl_producer" {
			require.Less(t, ld[0], at[0], "%s: trigger before the load", name)
			require.False(t, b.GridDependencyWait)
		} else {
			require.Less(t, at[0], ld[0], "%s: load before the wait", name)
			require.True(t, b.GridDependencyWait)
		}
	}
}

// TestPDLGPU (GPU only): the producer, then the consumer as a programmatic
// dependent launch, give the interpreter's result; then the gap between the
// two kernels of a pair, with and without PDL, from %globaltimer read in
// both (the timed pair of pdl.tle) and from CUDA events around the pair,
// median over the pairs. The figures are logged (go test -v), not asserted.
func TestPDLGPU(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	opts := tle.CompileOptions{Defines: pdlDefs}
	const n = 1 << 16 // 256 programs of 256 elements
	grid := [3]int{n / 256, 1, 1}
	r := rand.New(rand.NewPCG(23, 24))
	xs := round(ir.F32, randn(r, n))
	buf := func(dt tle.DType, m int) *tle.DeviceBuffer {
		b, err := g.Alloc(dt, m)
		require.NoError(t, err)
		t.Cleanup(func() { g.Free(b) })
		return b
	}
	x, y, out := buf(tle.F32, n), buf(tle.F32, n), buf(tle.F32, n)
	require.NoError(t, g.UploadTo(x, xs))
	prepare := func(name string, args ...any) *tle.Prepared {
		p, err := g.Prepare(kernel(t, "pdl.tle", name), opts, grid, args...)
		require.NoError(t, err, name)
		t.Cleanup(func() { p.Close() })
		return p
	}
	check := func(what string) {
		got, err := g.Download(out)
		require.NoError(t, err)
		require.Equal(t, pdlWant(xs), got, what)
	}

	// correctness of the dependent launch
	prod, cons := prepare("pdl_producer", x, y, n), prepare("pdl_consumer", y, out, n)
	require.NoError(t, g.UploadTo(y, make([]float64, n)))
	require.NoError(t, prod.Launch())
	require.NoError(t, cons.LaunchWith(tle.LaunchOptions{PDL: true}))
	check("pdl_consumer with PDL")
	require.True(t, cons.Binary().GridDependencyWait)
	// the producer does not wait: a PDL launch of it is refused
	require.ErrorContains(t, prod.LaunchWith(tle.LaunchOptions{PDL: true}), "never calls grid_dependency_wait()")

	// the gap
	const pairs, warmup = 50, 5
	pt, ct := buf(tle.I64, 2*grid[0]), buf(tle.I64, 3*grid[0])
	tprod := prepare("pdl_producer_timed", x, y, pt, n)
	tcons := prepare("pdl_consumer_timed", y, out, ct, n)
	sleep, err := g.Prepare(kernel(t, "pdl.tle", "pdl_sleep"), opts, [3]int{1, 1, 1}, 10, 2000)
	require.NoError(t, err)
	defer sleep.Close()
	ctx := g.Context()
	times := func(b *tle.DeviceBuffer) []int64 {
		raw := make([]byte, b.Bytes())
		require.NoError(t, ctx.CopyDtoH(raw, b.Ptr))
		v := make([]int64, b.N)
		for i := range v {
			v[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		return v
	}
	median := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
	for _, pdl := range []bool{false, true} {
		var startGap, readGap, pairUs []float64
		for i := range warmup + pairs {
			ev0, err := ctx.NewEvent(0)
			require.NoError(t, err)
			ev1, err := ctx.NewEvent(0)
			require.NoError(t, err)
			// the sleep keeps the GPU busy while both kernels are queued,
			// so that they run back to back
			require.NoError(t, sleep.Launch())
			require.NoError(t, ev0.Record(nil))
			require.NoError(t, tprod.Launch())
			require.NoError(t, tcons.LaunchWith(tle.LaunchOptions{PDL: pdl}))
			require.NoError(t, ev1.Record(nil))
			require.NoError(t, ctx.Synchronize())
			ms, err := ev1.Since(ev0)
			require.NoError(t, err)
			ev0.Destroy()
			ev1.Destroy()
			if i < warmup {
				continue
			}
			p, c := times(pt), times(ct)
			var prodEnd, consStart, consRead int64 = 0, 1<<63 - 1, 1<<63 - 1
			for b := range grid[0] {
				prodEnd = max(prodEnd, p[2*b+1])
				consStart = min(consStart, c[3*b])
				consRead = min(consRead, c[3*b+1])
			}
			startGap = append(startGap, float64(consStart-prodEnd)/1e3)
			readGap = append(readGap, float64(consRead-prodEnd)/1e3)
			pairUs = append(pairUs, float64(ms)*1e3)
		}
		check("the timed pair")
		t.Logf("PDL=%-5v median over %d pairs: consumer start - producer end = %7.2f us, consumer past its wait - producer end = %7.2f us, pair (events) = %7.2f us",
			pdl, pairs, median(startGap), median(readGap), median(pairUs))
	}
}

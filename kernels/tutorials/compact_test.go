package tutorials

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// compactConfigs are the sizes the compaction tutorial is tested at: N
// elements a row over that many warps (N=256 at 4 warps is the binding
// tools/build-ptx.sh builds, for the carried-PTX runs).
var compactConfigs = []struct{ n, warps int }{{256, 4}, {256, 8}, {1024, 4}, {1024, 8}, {64, 1}, {32, 4}}

const compactRows = 9

// compactMask is rows rows of n bytes: nonzero (1..255) with probability
// density, except row 1 (all zero) and row 2 (all nonzero).
func compactMask(r *rand.Rand, rows, n int, density float64) []float64 {
	m := make([]float64, rows*n)
	for i := range m {
		row := i / n
		if row == 2 || row != 1 && r.Float64() < density {
			m[i] = float64(1 + r.IntN(255))
		}
	}
	return m
}

// compactWant is the plain Go compaction of each row: the indices of its
// nonzero bytes in order, in a list initialised to fill, and their count.
func compactWant(mask []float64, rows, n int, fill float64) (list, count []float64) {
	list = make([]float64, rows*n)
	count = make([]float64, rows)
	for i := range list {
		list[i] = fill
	}
	for row := 0; row < rows; row++ {
		k := 0
		for i := 0; i < n; i++ {
			if mask[row*n+i] != 0 {
				list[row*n+k] = float64(i)
				k++
			}
		}
		count[row] = float64(k)
	}
	return list, count
}

const compactFill = -7 // list entries from the count on keep it

// compactDevices are the devices one configuration runs on: devices(t,
// "compact") (with the carried PTX) for the binding build-ptx.sh uses, the
// interpreter and the GPU for the others.
func compactDevices(t *testing.T, kernelName string, n, warps int) []tle.Device {
	if kernelName == "compact" && n == 256 && warps == 4 {
		return devices(t, "compact")
	}
	devs, _ := tle.Devices()
	return devs
}

// TestCompact: the tutorial and its cumsum twin give the Go compaction on
// random masks of density 1/4 (and an all-zero and an all-nonzero row), on
// every device, at every size of compactConfigs.
func TestCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, name := range []string{"compact", "compact_cumsum"} {
		k := kernel(t, "compact.tle", name)
		for _, c := range compactConfigs {
			opts := tle.CompileOptions{Defines: map[string]string{"N": fmt.Sprint(c.n)}, NumWarps: c.warps}
			for _, dev := range compactDevices(t, name, c.n, c.warps) {
				what := fmt.Sprintf("%s N=%d warps=%d on %s", name, c.n, c.warps, dev.Name())
				mask := compactMask(r, compactRows, c.n, 0.25)
				wantList, wantCount := compactWant(mask, compactRows, c.n, compactFill)
				list, count := tle.NewTensor(compactRows*c.n), tle.NewTensor(compactRows)
				for i := range list.Data {
					list.Data[i] = compactFill
				}
				err := k.Run(dev, [3]int{compactRows, 1, 1}, opts, map[string]any{
					"mask": &tle.Tensor{Shape: []int{compactRows * c.n}, Data: mask}, "list": list, "count": count})
				require.NoError(t, err, what)
				require.Equal(t, wantCount, count.Data, "%s: counts", what)
				require.Equal(t, wantList, list.Data, "%s: lists", what)
			}
		}
	}
}

// compactWords is the Go form of compact_bits: per row, bit b of word w is
// set when byte 32w+b is nonzero.
func compactWords(mask []float64, rows, n int) []float64 {
	words := make([]float64, rows*n/32)
	for i, x := range mask {
		if x != 0 {
			words[i/32] += float64(uint32(1) << (i % 32))
		}
	}
	return words
}

// TestCompactBits: ballot's words and their popcounts against the Go
// bit words and counts, on every device, at every size of compactConfigs.
func TestCompactBits(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	k := kernel(t, "compact.tle", "compact_bits")
	for _, c := range compactConfigs {
		opts := tle.CompileOptions{Defines: map[string]string{"N": fmt.Sprint(c.n)}, NumWarps: c.warps}
		for _, dev := range compactDevices(t, "compact_bits", c.n, c.warps) {
			what := fmt.Sprintf("N=%d warps=%d on %s", c.n, c.warps, dev.Name())
			mask := compactMask(r, compactRows, c.n, 0.25)
			_, wantCount := compactWant(mask, compactRows, c.n, 0)
			words, count := tle.NewTensor(compactRows*c.n/32), tle.NewTensor(compactRows)
			err := k.Run(dev, [3]int{compactRows, 1, 1}, opts, map[string]any{
				"mask": &tle.Tensor{Shape: []int{compactRows * c.n}, Data: mask}, "words": words, "count": count})
			require.NoError(t, err, what)
			require.Equal(t, compactWords(mask, compactRows, c.n), words.Data, "%s: words", what)
			require.Equal(t, wantCount, count.Data, "%s: counts", what)
		}
	}
}

// TestCompactPTX: in llc-19's PTX of the tutorial, prefix_count and the
// count are warp votes (vote.sync.ballot.b32, popc.b32, %lanemask_lt) and
// there is no shuffle scan (no shfl.sync.up, .down or .idx: the only
// shuffles are the butterflies of the count's sum), and the mask is voted
// on in the layout its load gave it; the cumsum twin scans with
// shfl.sync.up.
func TestCompactPTX(t *testing.T) {
	tletest.NeedLLC(t)
	for _, c := range compactConfigs[:4] {
		opts := tle.CompileOptions{Defines: map[string]string{"N": fmt.Sprint(c.n)}, NumWarps: c.warps}
		b, err := kernel(t, "compact.tle", "compact").Compile(opts, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err)
		what := fmt.Sprintf("N=%d warps=%d", c.n, c.warps)
		for _, w := range []string{`vote\.sync\.ballot\.b32\s`, `popc\.b32\s`, `mov\.u32\s+%r\d+, %lanemask_lt;`} {
			require.Regexp(t, tletest.PTXLine(w), b.PTX, "%s: no %s", what, w)
		}
		for _, w := range []string{`shfl\.sync\.up`, `shfl\.sync\.idx`, `shfl\.sync\.down`} {
			require.NotRegexp(t, tletest.PTXLine(w), b.PTX, "%s: a shuffle scan (%s)", what, w)
		}
		cs, err := kernel(t, "compact.tle", "compact_cumsum").Compile(opts, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err)
		require.Regexp(t, tletest.PTXLine(`shfl\.sync\.up\.b32\s`), cs.PTX, "%s: cumsum without shfl.sync.up", what)
		// the mask stays in the layout of its load: no conversion through
		// shared memory (st.shared.u8) before the votes
		require.NotRegexp(t, tletest.PTXLine(`st\.shared(\.v\d)?\.u8\s`), b.PTX, "%s: the mask converted", what)
	}
}

// TestCompactGPU (GPU only): the tutorial and its cumsum twin on 8192 rows
// of 1024 bytes at 8 warps give the Go compaction, compact_bits the Go bit
// words, and the time of the two compactions is logged (go test -v):
// prefix_count's ballots against cumsum's shuffle scan. The SASS of the
// tutorial has VOTE.ANY (the ballot) and POPC, and no SHFL.UP.
func TestCompactGPU(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	const rows, n = 8192, 1024
	opts := tle.CompileOptions{Defines: map[string]string{"N": fmt.Sprint(n)}, NumWarps: 8}
	r := rand.New(rand.NewPCG(43, 44))
	mask := compactMask(r, rows, n, 0.25)
	wantList, wantCount := compactWant(mask, rows, n, compactFill)
	buf := func(dt tle.DType, m int) *tle.DeviceBuffer {
		b, err := g.Alloc(dt, m)
		require.NoError(t, err)
		t.Cleanup(func() { g.Free(b) })
		return b
	}
	mb, lb, cb := buf(tle.U8, rows*n), buf(tle.I32, rows*n), buf(tle.I32, rows)
	require.NoError(t, g.UploadTo(mb, mask))
	fill := make([]float64, rows*n)
	for i := range fill {
		fill[i] = compactFill
	}
	ms := map[string]float64{}
	for _, name := range []string{"compact", "compact_cumsum"} {
		p, err := g.Prepare(kernel(t, "compact.tle", name), opts, [3]int{rows, 1, 1}, mb, lb, cb)
		require.NoError(t, err, name)
		require.NoError(t, g.UploadTo(lb, fill))
		require.NoError(t, p.Launch())
		gotList, err := g.Download(lb)
		require.NoError(t, err)
		gotCount, err := g.Download(cb)
		require.NoError(t, err)
		require.Equal(t, wantCount, gotCount, "%s: counts", name)
		require.Equal(t, wantList, gotList, "%s: lists", name)
		tm, err := g.Time(5, 50, p.Launch)
		require.NoError(t, err, name)
		ms[name] = tm.MedianMs
		require.NoError(t, p.Close())
	}
	wb := buf(tle.U32, rows*n/32)
	p, err := g.Prepare(kernel(t, "compact.tle", "compact_bits"), opts, [3]int{rows, 1, 1}, mb, wb, cb)
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Launch())
	gotWords, err := g.Download(wb)
	require.NoError(t, err)
	gotCount, err := g.Download(cb)
	require.NoError(t, err)
	require.Equal(t, compactWords(mask, rows, n), gotWords, "compact_bits: words")
	require.Equal(t, wantCount, gotCount, "compact_bits: counts")
	t.Logf("%d rows of %d bytes, 8 warps: prefix_count %.4f ms, cumsum %.4f ms (%.2fx)",
		rows, n, ms["compact"], ms["compact_cumsum"], ms["compact_cumsum"]/ms["compact"])
}

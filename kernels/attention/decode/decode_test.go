package decode

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/attention/paged/pagedtest"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// runCase draws case c and runs it on every device of devs against the
// reference; it returns the largest errors of o and of the LSE.
func runCase(t *testing.T, devs []tle.Device, r *rand.Rand, c decodeCase) (eo, el float64) {
	t.Helper()
	m := makeCase(r, c)
	wo, wl := reference(m.in, m.p)
	for _, dev := range devs {
		start := time.Now()
		out, err := Run(dev, m.in, m.p)
		require.NoError(t, err, "%s on %s", c.name, dev.Name())
		do, dl := pagedtest.RequireClose(t, c.name+" on "+dev.Name(), fmt.Sprintf("(%v) ", time.Since(start).Round(time.Millisecond)), out.O.Data, out.LSE.Data, wo, wl, c.fp8)
		eo, el = max(eo, do), max(el, dl)
	}
	return eo, el
}

// TestDecodeQuick: one case of each dtype path on the interpreter and, when
// present, the GPU.
func TestDecodeQuick(t *testing.T) {
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []decodeCase{
		{name: "bf16", page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{70}, splits: 1},
		{name: "bf16 p16", page: 16, hkv: 2, g: 8, sq: 2, lens: []int64{100, 3}, splits: 2, nhd: true},
		{name: "fp8 q1", fp8: true, quant: 1, page: 32, hkv: 1, g: 8, sq: 3, lens: []int64{130}, splits: 2},
		{name: "fp8 q0", fp8: true, quant: 0, page: 64, hkv: 1, g: 4, sq: 4, lens: []int64{67, 5}, splits: 3, nhd: true},
		// several programs an SM: shallower rings, no setmaxnreg
		{name: "bf16 2 ctas an SM (3 stages)", page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{900, 3}, splits: 3, ctas: 2},
		{name: "fp8 q1 3 ctas an SM (2 stages)", fp8: true, quant: 1, page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{700}, splits: 2, ctas: 3, nhd: true},
		{name: "fp8 q0 2 ctas an SM", fp8: true, quant: 0, page: 64, hkv: 2, g: 4, sq: 4, lens: []int64{400, 129}, splits: 2, ctas: 2},
		// softmax scales other than the default (the kernels must read them)
		{name: "bf16 scale 0.3", page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{150}, splits: 2, scale: 0.3},
		{name: "fp8 q1 scale 0.3", fp8: true, quant: 1, page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{150}, splits: 2, scale: 0.3},
	} {
		runCase(t, devs, r, c)
	}
}

// TestDecodeZeroLength: a Runner's caller may rewrite a request's length
// to 0 between steps (a padding slot): its outputs are o 0 and lse -inf,
// never NaN, and the other requests are unaffected.
func TestDecodeZeroLength(t *testing.T) {
	for _, sched := range []string{ScheduleFixed, ScheduleDynamic} {
		testZeroLength(t, sched)
	}
}

func testZeroLength(t *testing.T, sched string) {
	r := rand.New(rand.NewPCG(17, 18))
	c := decodeCase{page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{300, 5}, splits: 2, sched: sched}
	if sched == ScheduleDynamic {
		c.splits, c.sms = 0, 1
	}
	m := makeCase(r, c)
	d, err := Validate(m.in, m.p)
	require.NoError(t, err)
	require.Equal(t, sched == ScheduleDynamic, d.Dynamic, sched)
	wo, wl := reference(m.in, m.p)
	m.in.KVLens[1] = 0
	rows := len(wo) / 2 // request 1's rows of o follow request 0's
	for _, dev := range tletest.Devices(t) {
		out, err := runWith(dev, m.in, d)
		require.NoError(t, err, dev.Name())
		require.LessOrEqual(t, pagedtest.MaxAbs(out.O.Data[:rows], wo[:rows]), pagedtest.BF16TolO, "%s: request 0", dev.Name())
		require.LessOrEqual(t, pagedtest.MaxAbs(out.LSE.Data[:len(wl)/2], wl[:len(wl)/2]), pagedtest.BF16TolLSE, "%s: request 0", dev.Name())
		requireEmptied(t, out.O.Data[rows:], out.LSE.Data[len(wl)/2:], dev.Name()+": the empty request")
	}
}

// requireEmptied requires the rows of a request of 0 tokens: o 0 and lse
// -inf, never NaN.
func requireEmptied(t *testing.T, o, lse []float64, what string) {
	t.Helper()
	for i, x := range o {
		if x != 0 { // require only on a failure (a call an element is slow)
			require.Equal(t, 0.0, x, "%s: o, element %d", what, i)
		}
	}
	for i, x := range lse {
		if !math.IsInf(x, -1) {
			require.True(t, math.IsInf(x, -1), "%s: lse, element %d = %v", what, i, x)
		}
	}
}

// TestDecodeDynamic: the dynamic schedule (span in decode.tle) on a few
// program slots (SMs x CTAs), so that programs finish one request and
// start the next, a request runs over several programs (its first slot a
// program's second), short requests lie whole in one program (written by
// the decode grid, not the combine), and the stages' phases run on
// across requests; BF16 and FP8 (quant 0 and 1), kv heads 1 and 2, Sq 1
// to 4. The policy (ChooseSchedule) picks it when the fixed split takes
// more than a wave of the slots and the lengths differ.
func TestDecodeDynamic(t *testing.T) {
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range []decodeCase{
		{name: "bf16 across requests", page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{300, 5, 130, 64, 1}, sms: 1, ctas: 3},
		{name: "bf16 hkv 2 sq 2", page: 64, hkv: 2, g: 4, sq: 2, lens: []int64{70, 900, 2, 129, 200}, sms: 2, ctas: 2, nhd: true, sched: ScheduleDynamic},
		{name: "bf16 one long request", page: 64, hkv: 1, g: 4, sq: 4, lens: []int64{2000, 64, 4}, sms: 2, ctas: 3, sched: ScheduleDynamic},
		{name: "fp8 q1", fp8: true, quant: 1, page: 64, hkv: 1, g: 8, sq: 3, lens: []int64{3, 500, 65, 190}, sms: 1, ctas: 3, nhd: true},
		{name: "fp8 q0", fp8: true, quant: 0, page: 64, hkv: 2, g: 4, sq: 1, lens: []int64{640, 1, 300, 129, 7}, sms: 2, ctas: 2},
	} {
		m := makeCase(r, c)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		require.True(t, d.Dynamic, "%s: the schedule", c.name)
		runCase(t, devs, r, c)
	}
	for _, c := range []struct {
		name string
		lens []int64
		sms  int
		want bool
	}{
		{"more requests than slots, lengths differ", []int64{300, 5, 130, 64}, 1, true},
		{"more requests than slots, one length", []int64{300, 300, 300, 300}, 1, false},
		{"pieces in one wave", []int64{300, 5, 130, 64}, 0, false},
	} {
		m := makeCase(r, decodeCase{page: 64, hkv: 1, g: 4, sq: 1, lens: c.lens, sms: c.sms, ctas: 3})
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		require.Equal(t, c.want, d.Dynamic, c.name)
	}
}

// TestDecodeRewritten: a Runner's lengths rewritten in place after the
// plan: requests that grew past what the combine was sized for (more
// partial slots than it merges at a time: several rounds) and requests
// rewritten to 0 tokens first, in the middle and last, under the dynamic
// schedule and under the cluster merge with a request a program (CHUNK 0,
// where an emptied request's program must not merge its unwritten partial).
// The emptied requests read o 0 and lse -inf, the others match the
// reference of their lengths.
func TestDecodeRewritten(t *testing.T) {
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range []struct {
		decodeCase
		zero  []int // requests rewritten to 0 tokens
		slots int   // the combine sized for this many partials a request (0: the plan's)
	}{
		{decodeCase{name: "dynamic, grown past the combine's slots", page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{900, 300, 700, 5}, sms: 4, ctas: 3, sched: ScheduleDynamic}, nil, 2},
		{decodeCase{name: "dynamic, first emptied", page: 64, hkv: 1, g: 4, sq: 2, lens: []int64{900, 300, 700, 5}, sms: 4, ctas: 3, sched: ScheduleDynamic}, []int{0}, 0},
		{decodeCase{name: "dynamic fp8, middle emptied", fp8: true, quant: 1, page: 64, hkv: 2, g: 4, sq: 1, lens: []int64{200, 300, 700, 64}, sms: 2, ctas: 3, sched: ScheduleDynamic, nhd: true}, []int{1, 2}, 0},
		{decodeCase{name: "cluster 4, a request a program, emptied", page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{100, 3, 64, 65, 7}, splits: 1, cluster: 4}, []int{1, 4}, 0},
		{decodeCase{name: "cluster 8 fp8, a request a program, emptied", fp8: true, quant: 0, page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{100, 3, 64}, splits: 1, cluster: 8, nhd: true}, []int{0}, 0},
	} {
		m := makeCase(r, c.decodeCase)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		if c.slots > 0 {
			d.Splits = c.slots
			require.Greater(t, d.dynamicSlots(m.in.KVLens), d.combinePieces(), c.name)
		}
		wo, wl := reference(m.in, m.p)
		for _, b := range c.zero {
			m.in.KVLens[b] = 0
		}
		ro, rl := c.sq*d.Hq*paged.HeadDim, c.sq*d.Hq // one request's o and lse
		for _, dev := range devs {
			out, err := runWith(dev, m.in, d)
			require.NoError(t, err, "%s on %s", c.name, dev.Name())
			for b := range c.lens {
				o, l := out.O.Data[b*ro:(b+1)*ro], out.LSE.Data[b*rl:(b+1)*rl]
				if slices.Contains(c.zero, b) {
					requireEmptied(t, o, l, fmt.Sprintf("%s on %s: request %d", c.name, dev.Name(), b))
					continue
				}
				pagedtest.RequireClose(t, fmt.Sprintf("%s on %s, request %d", c.name, dev.Name(), b), "", o, l, wo[b*ro:(b+1)*ro], wl[b*rl:(b+1)*rl], c.fp8)
			}
		}
	}
}

// TestDecodeMatrix runs every combination of dtype (bf16, fp8 quant 0 and
// 1), page (16, 32, 64), layout (NHD, HND), group (4, 8) and Sq (1..4) on
// the interpreter against the float64 reference, with lengths of one
// token (or Sq), lengths that end mid-page and mid-tile, several tiles,
// and splits 1, 2, 3 and the policy's (empty splits included). Every cache
// slot no request reads is NaN and the page table is shuffled with
// garbage past each request's pages.
func TestDecodeMatrix(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(7, 8))
	worst := map[string][2]float64{}
	i := 0
	for _, dt := range []struct {
		name  string
		fp8   bool
		quant int
	}{{"bf16", false, 0}, {"fp8q0", true, 0}, {"fp8q1", true, 1}} {
		for _, page := range []int{16, 32, 64} {
			for _, nhd := range []bool{false, true} {
				for _, g := range []int{4, 8} {
					for sq := 1; sq <= 4; sq++ {
						i++
						lens := []int64{int64(sq), int64(sq + 1 + r.IntN(60)), int64(65 + r.IntN(130))}
						if i%3 == 0 {
							lens = lens[1:] // no single-token request: the longest first
							lens[0], lens[1] = lens[1], lens[0]
						}
						c := decodeCase{fp8: dt.fp8, quant: dt.quant, nhd: nhd, page: page, hkv: 1 + i%2, g: g, sq: sq,
							lens: lens, splits: []int{1, 2, 3, 0}[i%4]}
						c.name = fmt.Sprintf("%s page %d nhd %v G %d Sq %d Hkv %d lens %v splits %d", dt.name, page, nhd, g, sq, c.hkv, lens, c.splits)
						eo, el := runCase(t, devs, r, c)
						w := worst[dt.name]
						worst[dt.name] = [2]float64{max(w[0], eo), max(w[1], el)}
					}
				}
			}
		}
	}
	for name, w := range worst {
		t.Logf("%s: worst max |o err| %.4g, worst max |lse err| %.4g", name, w[0], w[1])
	}
}

// TestGarbageIsThere checks the premise of the tests above: the unread
// slots of a request's last page and the unused blocks are NaN, and the
// page table holds ids out of range past each request's pages, so a kernel
// that read any of them would fail the comparison.
func TestGarbageIsThere(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := makeCase(r, decodeCase{page: 16, hkv: 1, g: 4, sq: 1, lens: []int64{20}, nhd: true})
	blk := int(m.in.BlockIDs[0][1]) // slots 4.. of the second page are past L = 20
	require.True(t, math.IsNaN(m.in.KCache.Data[((blk*16+4)*1+0)*paged.HeadDim]))
	require.True(t, math.IsNaN(m.in.VCache.Data[((blk*16+15)*1+0)*paged.HeadDim+127]))
	bad := m.in.BlockIDs[0][2]
	require.True(t, bad < 0 || bad >= int64(m.in.KCache.Shape[0]), "entry past the pages: %d", bad)
}

// TestDecodeLong crosses the kernel's page-table staging (64 page ids at a
// time: 1024 tokens of pages of 16, 4096 of pages of 64), with split
// boundaries inside a staged block, and the policy's splits on a skewed
// batch.
func TestDecodeLong(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []decodeCase{
		{name: "bf16 page 16 L 1500 one split", page: 16, hkv: 1, g: 8, sq: 1, lens: []int64{1500}, splits: 1, nhd: true},
		{name: "bf16 page 16 L 1500 three splits", page: 16, hkv: 1, g: 4, sq: 2, lens: []int64{1500, 2}, splits: 3},
		{name: "fp8q0 page 64 L 4200 one split", fp8: true, quant: 0, page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{4200}, splits: 1},
		{name: "fp8q1 page 32 skewed, policy", fp8: true, quant: 1, page: 32, hkv: 1, g: 8, sq: 1, lens: []int64{2100, 64, 1, 33}, splits: 0, nhd: true},
		// pieces of one tile: the combine merges 20 and 18 partials, 16 at a time
		{name: "bf16 page 64 L 1250 20 splits", page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{1250, 70}, splits: 20},
		{name: "fp8q0 page 64 L 1100 18 splits", fp8: true, quant: 0, page: 64, hkv: 2, g: 4, sq: 1, lens: []int64{1100}, splits: 18, nhd: true},
	} {
		runCase(t, devs, r, c)
	}
}

// TestDecodeReplan: the kernels run with a plan (chunk and programs) made
// for other lengths than the call's, as a Runner's is once the caller
// rewrites the lengths in place. Shorter lengths leave programs with no
// piece; longer ones no longer fit the programs in pieces of the chunk, and
// the kernels lengthen the pieces until they do (plan in decode.tle), down
// to one piece a request when there are only B programs.
func TestDecodeReplan(t *testing.T) {
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct {
		decodeCase
		planLens []int64
		fits     int // the call's pieces at the plan's chunk: -1 fewer than the programs, 1 more
	}{
		{decodeCase{name: "shorter", page: 64, hkv: 2, g: 4, sq: 2, lens: []int64{300, 77, 2}, splits: 3, nhd: true}, []int64{700, 300, 64}, -1},
		{decodeCase{name: "longer", page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{1500, 500, 3}, splits: 4}, []int64{1000, 64, 3}, 1},
		{decodeCase{name: "longer fp8q1", fp8: true, quant: 1, page: 64, hkv: 1, g: 8, sq: 3, lens: []int64{1500, 500, 3}, splits: 4, nhd: true}, []int64{1000, 64, 3}, 1},
		{decodeCase{name: "one piece a request", page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{400, 90}}, []int64{64, 2}, 1},
		{decodeCase{name: "longer page 16", page: 16, hkv: 1, g: 8, sq: 2, lens: []int64{900, 40}, splits: 3}, []int64{300, 40}, 1},
	} {
		m := makeCase(r, c.decodeCase)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		if c.splits == 0 {
			_, d.Chunk = ChooseChunk(d.B, d.Hkv, c.planLens, tle.H200.SMs)
		} else {
			d.Chunk = chunkOf(c.planLens, c.splits)
		}
		d.Splits, d.Programs = d.pieces(c.planLens)
		_, need := d.pieces(m.in.KVLens)
		switch c.fits {
		case -1:
			require.Less(t, need, d.Programs, c.name)
		case 1:
			require.Greater(t, need, d.Programs, c.name)
		}
		wo, wl := reference(m.in, m.p)
		for _, dev := range devs {
			out, err := runWith(dev, m.in, d)
			require.NoError(t, err, "%s on %s", c.name, dev.Name())
			pagedtest.RequireClose(t, c.name+" on "+dev.Name(), fmt.Sprintf("%d programs for %d pieces of %d tiles: ", d.Programs, need, d.Chunk), out.O.Data, out.LSE.Data, wo, wl, c.fp8)
		}
	}
}

// TestDecodeGPULong (GPU only): a request of 128k tokens beside short ones
// (one_128k_31x4k's shape, shortened to 3 companions), BF16 and FP8 quant
// 1 with the policy's splits, and one split of 16k tokens; the reference
// takes a few seconds on the host.
func TestDecodeGPULong(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []decodeCase{
		{name: "bf16 128k + 3 x 4k", page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{131072, 4096, 4096, 4000}},
		{name: "fp8q1 128k + 3 x 4k", fp8: true, quant: 1, page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{131072, 4096, 4096, 4001}},
		{name: "bf16 16k one split", page: 16, hkv: 1, g: 4, sq: 1, lens: []int64{16384}, splits: 1, nhd: true},
	} {
		runCase(t, []tle.Device{g}, r, c)
	}
}

// TestRunnerGPU (GPU only): the Runner path (inputs uploaded once,
// launches prepared once, three steps) gives Decode's accuracy, a second
// launch after the lengths change in place follows them, and so does a
// replay of the step captured as a CUDA graph before both; pages of 64 run
// the cluster merge (the policy's cluster size, and a forced 8) as cluster
// launches that are programmatic dependent launches too.
func TestRunnerGPU(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range []decodeCase{
		{name: "bf16 nhd page 32", page: 32, hkv: 2, g: 8, sq: 2, lens: []int64{300, 77, 2}, nhd: true},
		{name: "fp8q0 hnd page 16", fp8: true, quant: 0, page: 16, hkv: 1, g: 4, sq: 1, lens: []int64{1000, 1}},
		{name: "bf16 hnd page 64, the policy's clusters", page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{1024, 1000, 512, 7}, cluster: ClusterAuto}, // 8, 8, 4, 1 pieces: CL 8 holds each whole
		{name: "fp8q1 nhd page 64, clusters of 8", fp8: true, quant: 1, page: 64, hkv: 2, g: 4, sq: 2, lens: []int64{1300, 200, 70}, splits: 20, cluster: 8, nhd: true},
	} {
		m := makeCase(r, c)
		m.p.SMs = DeviceSMs(g)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		dev, err := Upload(g, m.in, d)
		require.NoError(t, err)
		run, err := NewRunner(g, d, dev)
		require.NoError(t, err)
		if c.page == Tile {
			require.Greater(t, d.CL, 1, "%s: the plan's clusters", c.name)
			if c.cluster > 0 {
				require.Equal(t, c.cluster, run.Cluster(), c.name)
			}
			t.Logf("%s: %d pieces, CL %d planned, %d launched", c.name, d.Programs, d.CL, run.Cluster())
		}
		to, tl := pagedtest.BF16TolO, pagedtest.BF16TolLSE
		if c.fp8 {
			to, tl = pagedtest.FP8TolO, pagedtest.FP8TolLSE
		}
		graph, err := run.Capture()
		require.NoError(t, err, c.name)
		for step := range 3 {
			if step > 0 { // shorter lengths, same shape
				for i := range m.in.KVLens {
					m.in.KVLens[i] = max(int64(c.sq), m.in.KVLens[i]-int64(1+i))
				}
				require.NoError(t, g.UploadTo(dev.KVLens, paged.Floats(m.in.KVLens)))
			}
			if step == 2 {
				// a replay of the graph captured before the first step reads
				// the new lengths and writes every output
				require.NoError(t, g.UploadTo(dev.O, make([]float64, dev.O.N)))
				require.NoError(t, graph.Launch())
			} else {
				require.NoError(t, run.Launch())
			}
			o, err := g.Download(dev.O)
			require.NoError(t, err)
			lse, err := g.Download(dev.LSE)
			require.NoError(t, err)
			wo, wl := reference(m.in, m.p)
			eo, el := pagedtest.MaxAbs(o, wo), pagedtest.MaxAbs(lse, wl)
			t.Logf("%s step %d: max |o err| %.4g, max |lse err| %.4g", c.name, step, eo, el)
			require.LessOrEqual(t, eo, to, c.name)
			require.LessOrEqual(t, el, tl, c.name)
		}
		require.NoError(t, graph.Close())
		run.Close()
		dev.Free(g)
	}
}

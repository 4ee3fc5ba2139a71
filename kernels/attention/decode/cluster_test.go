package decode

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/attention/paged/pagedtest"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// clusterLayout is how sizes d put the pieces of requests of lengths lens
// into the decode grid's clusters (the plan of decode.tle for lengths
// that fit the planned programs).
type clusterLayout struct {
	shared   bool   // a cluster holds pieces of two requests or more
	spans    bool   // a request's pieces lie in two clusters or more (merged partly in each, the rest by the combine)
	finished []bool // per request: all its pieces in one cluster (the decode grid writes its rows)
	padding  int    // programs past the pieces that pad the grid to whole clusters
}

func layoutOf(d *Dims, lens []int64) clusterLayout {
	cl := d.cluster()
	out := clusterLayout{finished: make([]bool, len(lens)), padding: d.gridX() - d.Programs}
	owners := map[int]map[int]bool{}
	start := 0
	for b, L := range lens {
		n := int(((L+Tile-1)/Tile + int64(d.Chunk) - 1) / int64(d.Chunk))
		if d.chunkArg() == 0 {
			n = 1 // program b takes request b
		}
		for p := start; p < start+n; p++ {
			if owners[p/cl] == nil {
				owners[p/cl] = map[int]bool{}
			}
			owners[p/cl][b] = true
		}
		out.finished[b] = n > 0 && start/cl == (start+n-1)/cl
		out.spans = out.spans || (n > 0 && !out.finished[b])
		start += n
	}
	for _, o := range owners {
		out.shared = out.shared || len(o) > 1
	}
	return out
}

// TestDecodeCluster forces the cluster merge's sizes (CL 2, 4 and 8) over
// mixes where a cluster holds pieces of several requests, a request spans
// several clusters (merged partly in each, the rest by attn_combine),
// padding programs fill the last cluster, every request is one piece (the
// kernels' CHUNK 0, padding programs past B), BF16 and FP8 (quant types 0
// and 1), Sq 1 to 3 and two kv heads, against the float64 reference.
func TestDecodeCluster(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(21, 22))
	type want struct{ shared, spans, padding bool }
	for _, c := range []struct {
		decodeCase
		want
	}{
		{decodeCase{page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{130, 64, 200, 70, 5}, splits: 2, cluster: 4}, want{true, true, true}},
		{decodeCase{page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{130, 64, 200, 70, 5}, splits: 2, cluster: 2, nhd: true}, want{true, true, true}},
		{decodeCase{page: 64, hkv: 2, g: 4, sq: 2, lens: []int64{1250, 70}, splits: 20, cluster: 8}, want{true, true, true}},
		{decodeCase{page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{1250, 70, 130}, splits: 20, cluster: 4, nhd: true}, want{true, true, true}},
		{decodeCase{fp8: true, quant: 1, page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{1250, 70}, splits: 20, cluster: 2}, want{false, true, false}},
		{decodeCase{fp8: true, quant: 1, page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{130, 64, 200, 70, 5}, splits: 2, cluster: 8, nhd: true}, want{true, false, true}},
		{decodeCase{fp8: true, quant: 0, page: 64, hkv: 2, g: 4, sq: 1, lens: []int64{700, 129, 1, 400}, splits: 4, cluster: 8}, want{true, true, true}},
		{decodeCase{fp8: true, quant: 0, page: 64, hkv: 1, g: 8, sq: 3, lens: []int64{900, 300, 65}, splits: 5, cluster: 4, nhd: true}, want{true, true, false}},
		// one piece a request (CHUNK 0): each request finished in its cluster
		{decodeCase{page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{100, 3, 64, 65, 7}, splits: 1, cluster: 4}, want{true, false, true}},
		{decodeCase{fp8: true, quant: 1, page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{100, 3, 64}, splits: 1, cluster: 8, nhd: true}, want{true, false, true}},
		// one program an SM (no setmaxnreg with clusters)
		{decodeCase{fp8: true, quant: 1, page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{300, 400, 100}, splits: 4, cluster: 4, ctas: 1}, want{true, true, false}},
		{decodeCase{page: 64, hkv: 1, g: 4, sq: 2, lens: []int64{300, 90, 2}, splits: 3, cluster: 2, ctas: 1, nhd: true}, want{true, true, true}},
	} {
		c.name = fmt.Sprintf("fp8 %v q%d G %d Sq %d Hkv %d lens %v splits %d CL %d", c.fp8, c.quant, c.g, c.sq, c.hkv, c.lens, c.splits, c.cluster)
		m := makeCase(r, c.decodeCase)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		require.Equal(t, c.cluster, d.CL, c.name)
		pl := Plan(d)
		require.Equal(t, it(c.cluster), pl.DecodeDefines["CL"], c.name)
		require.Equal(t, it(c.cluster), pl.CombineDefs["CLUSTER"], c.name)
		require.Zero(t, pl.DecodeGrid[0]%c.cluster, "%s: the grid is whole clusters", c.name)
		lay := layoutOf(d, c.lens)
		require.Equal(t, c.shared, lay.shared, "%s: a cluster holds pieces of several requests", c.name)
		require.Equal(t, c.spans, lay.spans, "%s: a request spans clusters", c.name)
		require.Equal(t, c.padding, lay.padding > 0, "%s: padding programs", c.name)
		runCase(t, devs, r, c.decodeCase)
	}
}

func it(n int) string { return fmt.Sprint(n) }

// TestDecodeClusterReplan: the cluster merge with a plan made for other
// lengths (a Runner's after the lengths are rewritten in place): a request
// rewritten to length 0 has no piece, so the pieces after it move down and
// the last planned programs idle (b >= B as well as the padding past P);
// longer lengths lengthen the pieces in the kernels (fewer pieces than
// programs, other cluster boundaries than planned).
func TestDecodeClusterReplan(t *testing.T) {
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(23, 24))
	for _, cl := range []int{2, 4, 8} {
		for _, fp8 := range []bool{false, true} {
			c := decodeCase{fp8: fp8, quant: 1, page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{300, 5, 200, 129}, splits: 3, cluster: cl, nhd: cl == 4}
			m := makeCase(r, c)
			d, err := Validate(m.in, m.p)
			require.NoError(t, err)
			wo, wl := reference(m.in, m.p)
			m.in.KVLens[1] = 0
			rows := len(wo) / 4 // request 1's rows of o
			for _, dev := range devs {
				out, err := runWith(dev, m.in, d)
				require.NoError(t, err, dev.Name())
				what := fmt.Sprintf("CL %d fp8 %v on %s", cl, fp8, dev.Name())
				for _, rg := range [][2]int{{0, 1}, {2, 4}} {
					o, lse := out.O.Data[rg[0]*rows:rg[1]*rows], out.LSE.Data[rg[0]*len(wl)/4:rg[1]*len(wl)/4]
					pagedtest.RequireClose(t, what, fmt.Sprintf("requests %d..%d: ", rg[0], rg[1]-1), o, lse, wo[rg[0]*rows:rg[1]*rows], wl[rg[0]*len(wl)/4:rg[1]*len(wl)/4], fp8)
				}
				for i, x := range out.O.Data[rows : 2*rows] {
					if x != 0 { // require only on a failure (a call an element is slow)
						require.Equal(t, 0.0, x, "%s: o of the empty request, element %d", what, i)
					}
				}
				for i, x := range out.LSE.Data[len(wl)/4 : 2*len(wl)/4] {
					if !math.IsInf(x, -1) {
						require.True(t, math.IsInf(x, -1), "%s: lse of the empty request, element %d = %v", what, i, x)
					}
				}
			}
		}
		// longer lengths than planned: the kernels lengthen the pieces
		c := decodeCase{page: 64, hkv: 1, g: 8, sq: 2, lens: []int64{1500, 500, 3, 260}, splits: 4, cluster: cl}
		m := makeCase(r, c)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		plan := []int64{1000, 64, 3, 200}
		d.Chunk = chunkOf(plan, c.splits)
		d.Splits, d.Programs = d.pieces(plan)
		_, need := d.pieces(m.in.KVLens)
		require.Greater(t, need, d.Programs)
		wo, wl := reference(m.in, m.p)
		for _, dev := range devs {
			out, err := runWith(dev, m.in, d)
			require.NoError(t, err, dev.Name())
			pagedtest.RequireClose(t, fmt.Sprintf("longer, CL %d on %s", cl, dev.Name()), fmt.Sprintf("%d programs for %d pieces of %d tiles: ", d.Programs, need, d.Chunk), out.O.Data, out.LSE.Data, wo, wl, false)
		}
	}
}

// TestDecodeClusterWrites checks who writes which rows, kernel by kernel:
// the decode grid writes o and lse of exactly the requests finished in a
// cluster (the others' rows keep what was there), and attn_combine then
// leaves those rows alone (poisoned after the decode grid, they stay so)
// and writes the rest from the leader slots. With CL 1 the decode grid
// writes no output.
func TestDecodeClusterWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	const poisonDecode, poisonCombine = 7168.0, -3072.0 // bf16 values (o is bf16)
	for _, c := range []decodeCase{
		{page: 64, hkv: 2, g: 4, sq: 2, lens: []int64{1250, 70, 130}, splits: 20, cluster: 4},
		{fp8: true, quant: 0, page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{1250, 70, 130}, splits: 20, cluster: 8, nhd: true},
		{page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{1250, 70, 130}, splits: 20, cluster: 1},
	} {
		m := makeCase(r, c)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		lay := layoutOf(d, c.lens)
		if c.cluster > 1 {
			require.Equal(t, []bool{false, true, false}, lay.finished, "CL %d", c.cluster)
		}
		wo, wl := reference(m.in, m.p)
		pl := Plan(d)
		dk, ck, err := pl.kernels()
		require.NoError(t, err)
		dev := tletest.Devices(t)[0] // the interpreter
		out := &Outputs{O: tletest.Filled(poisonDecode, len(wo)), LSE: tletest.Filled(poisonDecode, len(wl))}
		args, cargs := d.launchArgs(m.in, out)
		require.NoError(t, dk.Run(dev, pl.DecodeGrid, pl.DecodeOptions(), args))
		orow, lrow := len(wo)/len(c.lens), len(wl)/len(c.lens) // one request's values
		for b := range c.lens {
			o, lse := out.O.Data[b*orow:(b+1)*orow], out.LSE.Data[b*lrow:(b+1)*lrow]
			what := fmt.Sprintf("CL %d fp8 %v, request %d after the decode grid", c.cluster, c.fp8, b)
			if lay.finished[b] && c.cluster > 1 {
				pagedtest.RequireClose(t, what, "", o, lse, wo[b*orow:(b+1)*orow], wl[b*lrow:(b+1)*lrow], c.fp8)
				for i := range o {
					o[i] = poisonCombine
				}
				for i := range lse {
					lse[i] = poisonCombine
				}
				continue
			}
			for i := range o {
				require.Equal(t, poisonDecode, o[i], "%s: o element %d written", what, i)
			}
			for i := range lse {
				require.Equal(t, poisonDecode, lse[i], "%s: lse element %d written", what, i)
			}
		}
		require.NoError(t, ck.Run(dev, pl.CombineGrid, pl.CombineOptions(), cargs))
		for b := range c.lens {
			o, lse := out.O.Data[b*orow:(b+1)*orow], out.LSE.Data[b*lrow:(b+1)*lrow]
			what := fmt.Sprintf("CL %d fp8 %v, request %d after the combine", c.cluster, c.fp8, b)
			if lay.finished[b] && c.cluster > 1 {
				for i := range o {
					require.Equal(t, poisonCombine, o[i], "%s: o element %d rewritten", what, i)
				}
				continue
			}
			pagedtest.RequireClose(t, what, "", o, lse, wo[b*orow:(b+1)*orow], wl[b*lrow:(b+1)*lrow], c.fp8)
		}
	}
}

// TestChooseCluster: the cluster policy on the spec's workloads and its
// limits: one piece a request, the paged kernels, padding that
// would cost a wave, requests of length 0, and Params.Cluster's
// range.
func TestChooseCluster(t *testing.T) {
	for _, c := range []struct {
		name           string
		fp8            bool
		lens           []int64
		programs, want int // programs: 0 for the plan's
	}{
		{"uniform_512 bf16", false, rep(64, 512), 0, 4},
		{"uniform_512 fp8", true, rep(64, 512), 0, 4},
		{"skewed_extreme: the long request spans 16 clusters", false, append(rep(15, 64), 16384), 0, 1},
		{"one_64k_31x4k fp8", true, append([]int64{65536}, rep(31, 4096)...), 0, 1},
		{"one piece a request", false, rep(100, 64), 0, 1},
	} {
		d := &Dims{Dims: paged.Dims{B: len(c.lens), Hq: 8, Hkv: 1, G: 8, Page: Tile, FP8: c.fp8}, Sq: 1, N: 8}
		d.choosePieces(c.lens, 0, 0, ClusterAuto, ScheduleAuto)
		require.Equal(t, c.want, d.CL, "%s: %d programs of %d requests", c.name, d.Programs, d.B)
		require.LessOrEqual(t, d.gridX(), tle.H200.SMs*d.CTAs, "%s: one wave", c.name)
		require.True(t, d.CL == 1 || finishesAll(d.requestPieces(c.lens), d.CL), c.name)
	}
	// the smallest size that holds every request whole: 3 pieces each
	// straddle clusters of 2 and 4 (3..5, 6..8), fit none of 8 either
	// (6..8, then 9..11 across 8); 2, 2, 4 fit clusters of 4 (0..1, 2..3,
	// 4..7) but not of 2 only when misaligned
	require.Equal(t, 1, ChooseCluster(1, []int{3, 3, 3, 3}, 132))
	require.Equal(t, 4, ChooseCluster(1, []int{2, 2, 4}, 132))
	require.Equal(t, 2, ChooseCluster(1, []int{2, 2, 2, 0, 2}, 132))
	require.Equal(t, 4, ChooseCluster(1, []int{1, 3, 4, 0}, 132))
	require.Equal(t, 1, ChooseCluster(1, []int{1, 1, 1}, 132))  // one piece a request
	require.Equal(t, 1, ChooseCluster(1, []int{16, 16}, 132))   // more than MaxCluster pieces
	require.Equal(t, 4, ChooseCluster(1, []int{4, 4, 4}, 10))   // 12 programs in 2 waves of 10 either way
	require.Equal(t, 1, ChooseCluster(1, []int{2, 2, 2, 1}, 7)) // clusters of 2 pad 7 to 8: a second wave
	require.Equal(t, 2, ChooseCluster(1, []int{2, 2, 2, 1}, 8))

	r := rand.New(rand.NewPCG(27, 28))
	for _, c := range []decodeCase{
		{page: 16, hkv: 1, g: 4, sq: 1, lens: []int64{700, 70}, splits: 4},
		{page: 32, hkv: 1, g: 4, sq: 1, lens: []int64{700, 70}, splits: 4, cluster: ClusterAuto},
	} {
		m := makeCase(r, c)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		require.Equal(t, 1, d.CL, "page %d: no clusters", c.page)
		require.NotContains(t, Plan(d).DecodeDefines, "CL")
	}
	// asking pages of 16 or 32 for what only pages of 64 run is refused,
	// never silently ignored
	for _, c := range []struct {
		mutate func(*Params)
		want   string
	}{
		{func(p *Params) { p.Cluster = 2 }, "cluster: 2: the cluster merge runs with pages of 64 tokens; this call's hold 16"},
		{func(p *Params) { p.CTAs = 2 }, "ctas: 2: pages of 16 tokens run one program an SM"},
		{func(p *Params) { p.Schedule = ScheduleDynamic }, "schedule: the dynamic schedule runs on the kernels for pages of 64 tokens, not 16"},
	} {
		m := makeCase(r, decodeCase{page: 16, hkv: 1, g: 4, sq: 1, lens: []int64{700, 70}})
		c.mutate(&m.p)
		_, err := Validate(m.in, m.p)
		require.ErrorContains(t, err, c.want)
	}
	m := makeCase(r, decodeCase{page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{700, 70}})
	for _, bad := range []int{-2, 3, 16} {
		m.p.Cluster = bad
		_, err := Validate(m.in, m.p)
		require.ErrorContains(t, err, "cluster", "cluster %d", bad)
	}
	// the merge is opt-in: 0 is no clusters, ClusterAuto the policy's
	m = makeCase(r, decodeCase{page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{1024, 1000, 512, 7}})
	for cl, want := range map[int]int{0: 1, ClusterAuto: 8, 2: 2} {
		m.p.Cluster = cl
		d, err := Validate(m.in, m.p)
		require.NoError(t, err)
		require.Equal(t, want, d.CL, "cluster %d", cl)
	}
}

// TestOpCluster: the op's "cluster" parameter reaches Params and
// the op runs the cluster merge (pages of 64) as Decode does.
func TestOpCluster(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	m := makeCase(r, decodeCase{page: 64, hkv: 1, g: 4, sq: 2, lens: []int64{700, 70, 130}, splits: 5, nhd: true})
	table := make([]int64, 0, len(m.in.BlockIDs)*len(m.in.BlockIDs[0]))
	for _, row := range m.in.BlockIDs {
		table = append(table, row...)
	}
	in := map[string]*npy.Array{
		"q": npy.Float64(m.in.Q.Shape, m.in.Q.Data), "k_cache": npy.Float64(m.in.KCache.Shape, m.in.KCache.Data),
		"v_cache":   npy.Float64(m.in.VCache.Shape, m.in.VCache.Data),
		"block_ids": npy.Int("<i8", []int{len(m.in.BlockIDs), len(m.in.BlockIDs[0])}, table),
		"kv_lens":   npy.Int("<i8", []int{len(m.in.KVLens)}, m.in.KVLens),
	}
	params := map[string]any{"layout": "nhd", "sq": 2.0, "dtype": "bf16", "splits": 5.0, "cluster": 4.0}
	_, p, err := Op{}.Parse(in, params)
	require.NoError(t, err)
	require.Equal(t, 4, p.Cluster)
	d, err := Validate(m.in, p)
	require.NoError(t, err)
	require.Equal(t, 4, d.CL)
	out, err := Op{}.Run(tle.CPU(), in, params)
	require.NoError(t, err)
	wo, wl := reference(m.in, m.p)
	pagedtest.RequireClose(t, "op, cluster 4", "", out["o"].Float64s(), out["lse"].Float64s(), wo, wl, false)
}

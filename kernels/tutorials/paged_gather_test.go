package tutorials

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// paged_gather.tle's sizes.
const pgPage, pgD, pgNQ, pgMaxP = 64, 128, 16, 8

// pagedCache is a paged K cache of random values (every slot, used or
// not: garbage where no request reads) and a page table whose rows list
// shuffled page ids, padded past each request's pages with ids out of
// the cache's range, which the kernel must never use.
type pagedCache struct {
	b, h, blocks, layers int
	nPages               []int     // pages per request
	table                []float64 // [b, pgMaxP] page ids
	data                 []float64 // the cache, in the layout of strides
	strides              []int     // [layers,] blocks, heads, tokens, dim (elements)
	tokens               int       // the descriptor's token extent (< pgPage: TMA fills the rest with zeros)
}

// newPagedCache lays the cache out HND ([layers,] blocks, heads, tokens,
// dim) or NHD ([layers,] blocks, tokens, heads, dim); the descriptor always
// names [layers,] blocks, heads, tokens, dim.
func newPagedCache(r *rand.Rand, dt ir.DType, b, h, blocks, layers int, nPages []int, nhd bool) *pagedCache {
	c := &pagedCache{b: b, h: h, blocks: blocks, layers: layers, nPages: nPages, tokens: pgPage}
	c.data = round(dt, randn(r, layers*blocks*h*pgPage*pgD))
	if nhd {
		c.strides = []int{blocks * pgPage * h * pgD, pgPage * h * pgD, pgD, h * pgD, 1}
	} else {
		c.strides = []int{blocks * h * pgPage * pgD, h * pgPage * pgD, pgPage * pgD, pgD, 1}
	}
	perm := r.Perm(blocks)
	c.table = make([]float64, b*pgMaxP)
	next := 0
	for q := 0; q < b; q++ {
		for i := 0; i < pgMaxP; i++ {
			if i < nPages[q] {
				c.table[q*pgMaxP+i] = float64(perm[next])
				next++
			} else {
				c.table[q*pgMaxP+i] = float64(1000 + r.IntN(1000)) // garbage: not a page
			}
		}
	}
	if next > blocks {
		panic("more pages than blocks")
	}
	return c
}

// at is element (layer, block, head, token, dim) of the cache as the
// descriptor sees it: zero past its token extent.
func (c *pagedCache) at(l, blk, h, t, d int) float64 {
	if t >= c.tokens {
		return 0
	}
	s := c.strides
	return c.data[l*s[0]+blk*s[1]+h*s[2]+t*s[3]+d]
}

// shape and stridesFrom are the descriptor's, of rank 4 or 5.
func (c *pagedCache) shape(rank int) []int {
	sh := []int{c.layers, c.blocks, c.h, c.tokens, pgD}
	return sh[5-rank:]
}

func (c *pagedCache) strideList(rank int) []int { return append([]int(nil), c.strides[5-rank:]...) }

// want is the reference: kout [b, h, pgMaxP*pgPage, pgD] (NaN where no
// page is) and sout = K q^T [b, h, pgMaxP*pgPage, pgNQ] rounded to f32
// (nil q: no scores).
func (c *pagedCache) want(layer int, q []float64) (kout, sout []float64) {
	rows := pgMaxP * pgPage
	kout = make([]float64, c.b*c.h*rows*pgD)
	sout = make([]float64, c.b*c.h*rows*pgNQ)
	for i := range kout {
		kout[i] = math.NaN()
	}
	for i := range sout {
		sout[i] = math.NaN()
	}
	for b := 0; b < c.b; b++ {
		for h := 0; h < c.h; h++ {
			for i := 0; i < c.nPages[b]; i++ {
				blk := int(c.table[b*pgMaxP+i])
				for t := 0; t < pgPage; t++ {
					row := (b*c.h+h)*rows + i*pgPage + t
					for d := 0; d < pgD; d++ {
						kout[row*pgD+d] = c.at(layer, blk, h, t, d)
					}
					if q == nil {
						continue
					}
					for n := 0; n < pgNQ; n++ {
						s := 0.0
						for d := 0; d < pgD; d++ {
							s += kout[row*pgD+d] * q[((b*c.h+h)*pgNQ+n)*pgD+d]
						}
						sout[row*pgNQ+n] = ir.F32.Round(s)
					}
				}
			}
		}
	}
	return kout, sout
}

// checkPaged compares outputs: kout exactly (and NaN, unwritten, where no
// page is), sout within f32 accumulation error.
func checkPaged(t *testing.T, what string, kout, sout, wantK, wantS []float64, tol float64) {
	t.Helper()
	for i := range wantK {
		if math.IsNaN(wantK[i]) != math.IsNaN(kout[i]) || (!math.IsNaN(wantK[i]) && wantK[i] != kout[i]) {
			row, d := i/pgD, i%pgD
			t.Fatalf("%s: kout row %d dim %d = %v, want %v", what, row, d, kout[i], wantK[i])
		}
	}
	if sout == nil {
		return
	}
	var got, want []float64
	for i := range wantS {
		if math.IsNaN(wantS[i]) {
			require.True(t, math.IsNaN(sout[i]), "%s: sout %d written where no page is", what, i)
			continue
		}
		got, want = append(got, sout[i]), append(want, wantS[i])
	}
	require.Less(t, relRMS(got, want), tol, what)
}

// pagedTol is the bound on the scores' relative RMS error for operands of
// dtype dt on dev: f32 sums of exact products (1e-5), except fp8 on the
// tensor cores, whose sums keep about 13 bits (1.3e-4 measured on the H200;
// see TestWgmmaFP8).
func pagedTol(dt ir.DType, dev tle.Device) float64 {
	if dt.Bytes() == 1 && dev.Name() != tle.CPU().Name() {
		return 1e-3
	}
	return 1e-5
}

func pagedQ(r *rand.Rand, dt ir.DType, b, h int) []float64 {
	return round(dt, randn(r, b*h*pgNQ*pgD))
}

// TestPagedGather: the rank-4 kernel (bf16 and fp8) over HND and NHD
// caches (the same kernel, NHD through permuted strides), bound as a
// row-major tensor (HND) or a StridedTensor, with a shuffled page table;
// and a descriptor shorter than a page (tokens 40): TMA zero-fills the
// rows past it.
func TestPagedGather(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	const b, h, blocks = 3, 2, 16
	nPages := []int{3, 8, 1}
	for _, c := range []struct {
		kernel  string
		dt      ir.DType
		nhd     bool
		strided bool
		tokens  int
	}{
		{"paged_gather", ir.BF16, false, false, pgPage},
		{"paged_gather", ir.BF16, true, true, pgPage},
		{"paged_gather", ir.BF16, false, true, 40},
		{"paged_gather_f8", ir.F8E4M3, false, false, pgPage},
		{"paged_gather_f8", ir.F8E4M3, true, true, pgPage},
	} {
		k := kernel(t, "paged_gather.tle", c.kernel)
		for _, dev := range devices(t, c.kernel) {
			pc := newPagedCache(r, c.dt, b, h, blocks, 1, nPages, c.nhd)
			pc.tokens = c.tokens
			q := pagedQ(r, c.dt, b, h)
			var kd any = &tle.Tensor{Shape: pc.shape(4), Data: pc.data}
			if c.strided {
				kd = &tle.StridedTensor{Shape: pc.shape(4), Strides: pc.strideList(4), Data: pc.data}
			}
			kout, sout := poison(b*h*pgMaxP*pgPage*pgD), poison(b*h*pgMaxP*pgPage*pgNQ)
			err := k.Run(dev, [3]int{b, h, 1}, tle.CompileOptions{}, map[string]any{
				"k": kd, "block_ids": &tle.Tensor{Shape: []int{b, pgMaxP}, Data: pc.table},
				"n_pages": &tle.Tensor{Shape: []int{b}, Data: ints(nPages)}, "q": &tle.Tensor{Shape: []int{b * h * pgNQ, pgD}, Data: q},
				"kout": kout, "sout": sout, "H": h})
			require.NoError(t, err, "%s %s", c.kernel, dev.Name())
			wk, ws := pc.want(0, q)
			checkPaged(t, c.kernel+" "+dev.Name(), kout.Data, sout.Data, wk, ws, pagedTol(c.dt, dev))
		}
	}
}

// TestPagedGatherRanks: rank 3 ([blocks*heads, tokens, dim], the tiles
// stored back by a rank-4 TMA store), rank 5
// ([layers, blocks, heads, tokens, dim] at layer 1 of 2, NHD), and the
// maps made on the device by make_desc (rank 4, HND and NHD; rank 5).
func TestPagedGatherRanks(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	const b, h, blocks = 2, 3, 12
	nPages := []int{5, 2}
	table := func(pc *pagedCache) *tle.Tensor { return &tle.Tensor{Shape: []int{b, pgMaxP}, Data: pc.table} }
	np := &tle.Tensor{Shape: []int{b}, Data: ints(nPages)}

	k3 := kernel(t, "paged_gather.tle", "paged_gather_r3")
	for _, dev := range devices(t, "paged_gather_r3") {
		pc := newPagedCache(r, ir.BF16, b, h, blocks, 1, nPages, false)
		kout := poison(b * h * pgMaxP * pgPage * pgD)
		err := k3.Run(dev, [3]int{b, h, 1}, tle.CompileOptions{}, map[string]any{
			"k": &tle.Tensor{Shape: []int{blocks * h, pgPage, pgD}, Data: pc.data}, "block_ids": table(pc), "n_pages": np,
			"kout": &tle.Tensor{Shape: []int{b, h, pgMaxP * pgPage, pgD}, Data: kout.Data}, "H": h})
		require.NoError(t, err, dev.Name())
		wk, _ := pc.want(0, nil)
		checkPaged(t, "rank 3 "+dev.Name(), kout.Data, nil, wk, nil, 1e-5)
	}

	k5 := kernel(t, "paged_gather.tle", "paged_gather_r5")
	for _, dev := range devices(t, "paged_gather_r5") {
		pc := newPagedCache(r, ir.BF16, b, h, blocks, 2, nPages, true)
		q := pagedQ(r, ir.BF16, b, h)
		kout, sout := poison(b*h*pgMaxP*pgPage*pgD), poison(b*h*pgMaxP*pgPage*pgNQ)
		err := k5.Run(dev, [3]int{b, h, 1}, tle.CompileOptions{}, map[string]any{
			"k": &tle.StridedTensor{Shape: pc.shape(5), Strides: pc.strideList(5), Data: pc.data}, "block_ids": table(pc), "n_pages": np,
			"q": &tle.Tensor{Shape: []int{len(q)}, Data: q}, "kout": kout, "sout": sout, "H": h, "layer": 1})
		require.NoError(t, err, dev.Name())
		wk, ws := pc.want(1, q)
		checkPaged(t, "rank 5 "+dev.Name(), kout.Data, sout.Data, wk, ws, 1e-5)
	}

	kmd := kernel(t, "paged_gather.tle", "paged_gather_md")
	for _, nhd := range []bool{false, true} {
		for _, dev := range devices(t, "paged_gather_md") {
			pc := newPagedCache(r, ir.BF16, b, h, blocks, 1, nPages, nhd)
			q := pagedQ(r, ir.BF16, b, h)
			kout, sout := poison(b*h*pgMaxP*pgPage*pgD), poison(b*h*pgMaxP*pgPage*pgNQ)
			s := pc.strides
			err := kmd.Run(dev, [3]int{b, h, 1}, tle.CompileOptions{}, map[string]any{
				"cache": &tle.Tensor{Shape: []int{len(pc.data)}, Data: pc.data}, "n_blocks": blocks, "s_blk": s[1], "s_head": s[2], "s_tok": s[3],
				"block_ids": table(pc), "n_pages": np, "q": &tle.Tensor{Shape: []int{len(q)}, Data: q}, "kout": kout, "sout": sout, "H": h})
			require.NoError(t, err, dev.Name())
			wk, ws := pc.want(0, q)
			checkPaged(t, "make_desc rank 4 "+dev.Name(), kout.Data, sout.Data, wk, ws, 1e-5)
		}
	}

	kmd5 := kernel(t, "paged_gather.tle", "paged_gather_md5")
	for _, dev := range devices(t, "paged_gather_md5") {
		pc := newPagedCache(r, ir.BF16, b, h, blocks, 3, nPages, true)
		kout := poison(b * h * pgMaxP * pgPage * pgD)
		s := pc.strides
		err := kmd5.Run(dev, [3]int{b, h, 1}, tle.CompileOptions{}, map[string]any{
			"cache": &tle.Tensor{Shape: []int{len(pc.data)}, Data: pc.data}, "n_layers": 3, "n_blocks": blocks,
			"s_layer": s[0], "s_blk": s[1], "s_head": s[2], "s_tok": s[3],
			"block_ids": table(pc), "n_pages": np, "kout": kout, "H": h, "layer": 2})
		require.NoError(t, err, dev.Name())
		wk, _ := pc.want(2, nil)
		checkPaged(t, "make_desc rank 5 "+dev.Name(), kout.Data, nil, wk, nil, 1e-5)
	}
}

func ints(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// TestPagedGatherPTX checks the paged kernels' TMA with llc-19: rank-3, 4
// and 5 cp.async.bulk.tensor loads completing on the mbarrier (two boxes
// per page where wgmma's layout cuts the bf16 tile into 64-column blocks,
// one for fp8 rows of 128 bytes and for an unswizzled tile), the rank-4
// TMA store, the boxes and swizzle in the host maps' metadata, and the
// tensormap.replace sequence of make_desc at rank 4 and 5 (ptxas turns
// the loads into UTMALDG.3D/.4D/.5D on the GPU host).
func TestPagedGatherPTX(t *testing.T) {
	tletest.NeedLLC(t)
	load := func(rank int) string {
		co := `%r\d+` + strings.Repeat(`, %r\d+`, rank-1)
		return `cp\.async\.bulk\.tensor\.` + itoa(rank) + `d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{` + co + `\}\], \[%r\d+\];`
	}
	for _, c := range []struct {
		kernel   string
		rank     int
		boxes    int
		box      []int
		swizzle  int
		wgmma    string
		replaces []string // make_desc's map fields (box dims innermost first; MAP, REG, RD: registers)
	}{
		{"paged_gather", 4, 2, []int{1, 1, 64, 64}, 128, `m64n16k16\.f32\.bf16\.bf16`, nil},
		{"paged_gather_f8", 4, 1, []int{1, 1, 64, 128}, 128, `m64n16k32\.f32\.e4m3\.e4m3`, nil},
		{"paged_gather_r3", 3, 1, []int{1, 64, 128}, 0, "", nil},
		{"paged_gather_r5", 5, 2, []int{1, 1, 1, 64, 64}, 128, `m64n16k16\.f32\.bf16\.bf16`, nil},
		{"paged_gather_md", 4, 2, nil, 128, `m64n16k16\.f32\.bf16\.bf16`, []string{"rank.shared::cta.b1024.b32 [MAP], 3;",
			"box_dim.shared::cta.b1024.b32 [MAP], 0, 64;", "box_dim.shared::cta.b1024.b32 [MAP], 1, 64;",
			"box_dim.shared::cta.b1024.b32 [MAP], 2, 1;", "box_dim.shared::cta.b1024.b32 [MAP], 3, 1;",
			"global_stride.shared::cta.b1024.b64 [MAP], 2, RD;", "swizzle_mode.shared::cta.b1024.b32 [MAP], 3;"}},
		{"paged_gather_md5", 5, 1, nil, 0, "", []string{"rank.shared::cta.b1024.b32 [MAP], 4;",
			"box_dim.shared::cta.b1024.b32 [MAP], 0, 128;", "box_dim.shared::cta.b1024.b32 [MAP], 1, 64;",
			"box_dim.shared::cta.b1024.b32 [MAP], 4, 1;", "global_dim.shared::cta.b1024.b32 [MAP], 4, REG;",
			"global_stride.shared::cta.b1024.b64 [MAP], 3, RD;", "swizzle_mode.shared::cta.b1024.b32 [MAP], 0;"}},
	} {
		b, err := kernel(t, "paged_gather.tle", c.kernel).Compile(tle.CompileOptions{}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, c.kernel)
		require.Len(t, tletest.PTXLine(load(c.rank)).FindAllString(b.PTX, -1), c.boxes, "%s: rank-%d TMA loads", c.kernel, c.rank)
		require.Regexp(t, tletest.PTXLine(`mbarrier\.arrive\.expect_tx\.shared::cta\.b64 %st, \[%r\d+\], %r\d+;`), b.PTX, c.kernel)
		if c.box != nil {
			require.Equal(t, c.box, b.Descs[0].Box, c.kernel)
			require.Equal(t, c.swizzle, b.Descs[0].Swizzle, c.kernel)
		}
		if c.wgmma != "" {
			require.Regexp(t, tletest.PTXLine(`wgmma\.mma_async\.sync\.aligned\.`+c.wgmma), b.PTX, c.kernel)
		}
		for _, f := range c.replaces {
			re := strings.NewReplacer("MAP", `%r\d+`, "RD", `%rd\d+`, "REG", `%r\d+`).Replace(regexp.QuoteMeta(f))
			require.Regexp(t, tletest.PTXLine(`@%t tensormap\.replace\.tile\.`+re), b.PTX, "%s: %s", c.kernel, f)
		}
		if c.replaces != nil {
			require.Equal(t, 128, b.ScratchBytes, c.kernel)
			require.Regexp(t, tletest.PTXLine(`@%w tensormap\.cp_fenceproxy\.global\.shared::cta\.tensormap::generic\.release\.gpu\.sync\.aligned`), b.PTX, c.kernel)
		}
	}
	b, err := kernel(t, "paged_gather.tle", "paged_gather_r3").Compile(tle.CompileOptions{}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Len(t, tletest.PTXLine(`cp\.async\.bulk\.tensor\.4d\.global\.shared::cta\.bulk_group \[%rd\d+, \{%r\d+, %r\d+, %r\d+, %r\d+\}\], \[%r\d+\];`).FindAllString(b.PTX, -1), 1)
	require.Equal(t, []int{1, 1, 64, 128}, b.Descs[1].Box)
}

// TestPagedGatherDeviceDesc (GPU only): the rank-4 kernel launched through
// Prepare with a host map of an NHD cache, a tle.DeviceDesc whose strides
// permute it to the descriptor's [blocks, heads, tokens, dim].
func TestPagedGatherDeviceDesc(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	r := rand.New(rand.NewPCG(45, 46))
	const b, h, blocks = 2, 4, 20
	pc := newPagedCache(r, ir.BF16, b, h, blocks, 1, []int{8, 6}, true)
	q := pagedQ(r, ir.BF16, b, h)
	up := func(dt ir.DType, data []float64) *tle.DeviceBuffer {
		buf, err := g.Upload(dt, data)
		require.NoError(t, err)
		t.Cleanup(func() { g.Free(buf) })
		return buf
	}
	cache := up(ir.BF16, pc.data)
	kout := up(ir.BF16, poison(b*h*pgMaxP*pgPage*pgD).Data)
	sout := up(ir.F32, poison(b*h*pgMaxP*pgPage*pgNQ).Data)
	k := kernel(t, "paged_gather.tle", "paged_gather")
	p, err := g.Prepare(k, tle.CompileOptions{}, [3]int{b, h, 1},
		tle.DeviceDesc{Buf: cache, Shape: pc.shape(4), Strides: pc.strideList(4)},
		up(ir.I32, pc.table), up(ir.I32, ints(pc.nPages)), up(ir.BF16, q), kout, sout, h)
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Launch())
	gk, err := g.Download(kout)
	require.NoError(t, err)
	gs, err := g.Download(sout)
	require.NoError(t, err)
	wk, ws := pc.want(0, q)
	checkPaged(t, "Prepare with an NHD DeviceDesc", gk, gs, wk, ws, 1e-5)
}

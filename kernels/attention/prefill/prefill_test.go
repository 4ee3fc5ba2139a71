package prefill

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/attention/paged/pagedtest"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// prefillCase is one randomly generated prefill call: request b has
// qlens[b] new tokens and kv_lens[b] = lens[b] keys in all.
type prefillCase struct {
	name   string
	fp8    bool
	quant  int
	nhd    bool
	page   int
	hkv, g int
	qlens  []int64
	lens   []int64
	scale  float64 // Params.Scale (0: the default)
	ks     int     // Params.KeyStep (0: the default)
}

// makePrefill draws a case: the caches, page table and K/V scales are
// pagedtest.Draw's (shuffled pages, NaN in every unread slot, garbage ids
// past each request's pages; its q of one token a request is not used),
// q [T, Hq, 128] and q_scale [T, Hq] are drawn here (never zeros).
func makePrefill(r *rand.Rand, c prefillCase) (*Inputs, Params) {
	m := pagedtest.Draw(r, pagedtest.Case{FP8: c.fp8, Quant: c.quant, NHD: c.nhd, Page: c.page, Hkv: c.hkv, G: c.g, Sq: 1, Lens: c.lens})
	dt := ir.BF16
	if c.fp8 {
		dt = ir.F8E4M3
	}
	hq := c.hkv * c.g
	cu := []int64{0}
	for _, n := range c.qlens {
		cu = append(cu, cu[len(cu)-1]+n)
	}
	T := int(cu[len(cu)-1])
	q := tle.NewTensor(T, hq, paged.HeadDim)
	for i := range q.Data {
		q.Data[i] = dt.Round(r.NormFloat64())
	}
	in := &Inputs{Q: q, CuSeqlensQ: cu, KCache: m.KCache, VCache: m.VCache,
		BlockIDs: m.BlockIDs, KVLens: m.KVLens, KScale: m.KScale, VScale: m.VScale}
	p := Params{Layout: m.Layout, DType: m.DType, QuantType: m.Quant, Scale: c.scale, KeyStep: c.ks}
	if c.fp8 {
		in.QScale = tle.NewTensor(T, hq)
		for i := range in.QScale.Data {
			in.QScale.Data[i] = 0.5 + r.Float64()
		}
	}
	return in, p
}

// prefillReference is the float64 reference: pagedtest.Reference, decode's,
// run on each request alone with Sq = Lq[b] (query s sees keys j <= L -
// Lq + s, the bottom-right causal rule), so both ops share one reference;
// a block mask further hides the keys of tiles that are 0.
func prefillReference(in *Inputs, p Params) (o, lse []float64) {
	hq := in.Q.Shape[1]
	for b := range len(in.CuSeqlensQ) - 1 {
		t0, t1 := int(in.CuSeqlensQ[b]), int(in.CuSeqlensQ[b+1])
		sub := &pagedtest.Inputs{
			Q:      &tle.Tensor{Shape: []int{t1 - t0, hq, paged.HeadDim}, Data: in.Q.Data[t0*hq*paged.HeadDim : t1*hq*paged.HeadDim]},
			KCache: in.KCache, VCache: in.VCache, KScale: in.KScale, VScale: in.VScale,
			BlockIDs: in.BlockIDs[b : b+1], KVLens: in.KVLens[b : b+1],
			Layout: p.Layout, DType: p.DType, Quant: p.QuantType,
		}
		if in.QScale != nil {
			sub.QScale = &tle.Tensor{Shape: []int{t1 - t0, hq}, Data: in.QScale.Data[t0*hq : t1*hq]}
		}
		var vis func(t, hh, j int) bool
		if m := in.BlockMask; m != nil { // key j of row t is visible when its 128 x 128 tile is on
			qt, kt := m.Shape[2], m.Shape[3]
			vis = func(t, hh, j int) bool {
				return m.Data[((b*hq+hh)*qt+t/Tile)*kt+j/Tile] != 0
			}
		}
		ob, lb := pagedtest.Reference(sub, t1-t0, p.Scale, vis)
		o = append(o, ob...)
		lse = append(lse, lb...)
	}
	return o, lse
}

func runPrefill(t *testing.T, devs []tle.Device, r *rand.Rand, c prefillCase) (eo, el float64) {
	t.Helper()
	in, p := makePrefill(r, c)
	wo, wl := prefillReference(in, p)
	for _, dev := range devs {
		start := time.Now()
		out, err := Run(dev, in, p)
		require.NoError(t, err, "%s on %s", c.name, dev.Name())
		do, dl := pagedtest.RequireClose(t, c.name+" on "+dev.Name(), fmt.Sprintf("(%v) ", time.Since(start).Round(time.Millisecond)), out.O.Data, out.LSE.Data, wo, wl, c.fp8)
		eo, el = max(eo, do), max(el, dl)
	}
	return eo, el
}

// TestPrefillQuick: one small BF16 case with a prefix in the cache.
func TestPrefillQuick(t *testing.T) {
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(31, 32))
	runPrefill(t, devs, r, prefillCase{name: "bf16 quick", page: 32, hkv: 1, g: 4, qlens: []int64{40}, lens: []int64{90}})
	// a softmax scale other than the default (the kernels must read it)
	runPrefill(t, devs, r, prefillCase{name: "bf16 scale 0.3", page: 64, hkv: 1, g: 8, qlens: []int64{30}, lens: []int64{100}, scale: 0.3})
}

// TestPrefillMatrix runs pages 16, 32, 64 x NHD/HND x G 4/8 (Hkv 1 and 2)
// on the interpreter (and the GPU when present) against the float64
// reference, on varlen batches that mix: Lq = 1, Lq = L (no prefix),
// L > Lq (a prefix in the cache), Lq past one q tile and not a multiple of
// 128, L ending mid-page. Every unread cache slot is NaN and the page table
// is shuffled with garbage past each request's pages.
func TestPrefillMatrix(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(33, 34))
	batches := []struct{ qlens, lens []int64 }{
		{[]int64{1, 70, 9}, []int64{37, 70, 200}},
		{[]int64{150, 5}, []int64{181, 5}},
		{[]int64{130}, []int64{130}},
		{[]int64{33, 1, 60}, []int64{300, 1, 61}},
	}
	worst := [2]float64{}
	i := 0
	for _, page := range []int{16, 32, 64} {
		for _, nhd := range []bool{false, true} {
			for _, g := range []int{4, 8} {
				bt := batches[i%len(batches)]
				c := prefillCase{page: page, nhd: nhd, hkv: 1 + (i/2)%2, g: g, qlens: bt.qlens, lens: bt.lens}
				c.name = fmt.Sprintf("bf16 page %d nhd %v G %d Hkv %d qlens %v lens %v", page, nhd, g, c.hkv, bt.qlens, bt.lens)
				i++
				eo, el := runPrefill(t, devs, r, c)
				worst = [2]float64{max(worst[0], eo), max(worst[1], el)}
			}
		}
	}
	t.Logf("bf16: worst max |o err| %.4g, worst max |lse err| %.4g", worst[0], worst[1])
}

// TestPrefillNoNaN: the outputs hold no NaN anywhere even though every
// unread cache slot does (a direct check, beside the comparisons).
func TestPrefillNoNaN(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	in, p := makePrefill(r, prefillCase{page: 16, hkv: 1, g: 4, qlens: []int64{3, 17}, lens: []int64{20, 17}})
	require.True(t, math.IsNaN(in.KCache.Data[(int(in.BlockIDs[0][1])*16+4)*paged.HeadDim]), "slot 4 of request 0's second page is past L = 20")
	out, err := Run(tle.CPU(), in, p)
	require.NoError(t, err)
	for _, x := range append(out.O.Data, out.LSE.Data...) {
		if math.IsNaN(x) || math.IsInf(x, 0) { // require only on a failure (a call an element is slow)
			require.False(t, math.IsNaN(x) || math.IsInf(x, 0))
		}
	}
}

// TestValidatePrefill: each bad argument is refused before anything runs,
// by an paged.ArgError naming it.
func TestValidatePrefill(t *testing.T) {
	good := func(fp8 bool, quant int) (*Inputs, Params) {
		r := rand.New(rand.NewPCG(37, 38))
		return makePrefill(r, prefillCase{fp8: fp8, quant: quant, page: 32, hkv: 2, g: 4, nhd: true, qlens: []int64{30, 2}, lens: []int64{40, 2}})
	}
	for _, c := range []struct {
		arg    string
		fp8    bool
		quant  int
		mutate func(in *Inputs, p *Params)
	}{
		{"layout", false, 0, func(in *Inputs, p *Params) { p.Layout = "nchw" }},
		{"dtype", false, 0, func(in *Inputs, p *Params) { p.DType = "f16" }},
		{"quant_type", true, 0, func(in *Inputs, p *Params) { p.QuantType = 2 }},
		{"scale", false, 0, func(in *Inputs, p *Params) { p.Scale = math.Inf(1) }},
		{"key_step", false, 0, func(in *Inputs, p *Params) { p.KeyStep = 128 }}, // BF16: pages of 64 only
		{"key_step", false, 0, func(in *Inputs, p *Params) { p.KeyStep = 64 }},  // page 32: 32 or 128
		{"key_step", true, 1, func(in *Inputs, p *Params) { p.KeyStep = 64 }},   // page 32: 32 or 128
		{"key_step", true, 0, func(in *Inputs, p *Params) { p.KeyStep = -1 }},
		{"q", false, 0, func(in *Inputs, p *Params) { in.Q = nil }},
		{"q", false, 0, func(in *Inputs, p *Params) {
			in.Q = &tle.Tensor{Shape: []int{32, 8, 64}, Data: make([]float64, 32*8*64)}
		}},
		{"q", false, 0, func(in *Inputs, p *Params) { in.Q.Data[9] = math.NaN() }},
		{"q", false, 0, func(in *Inputs, p *Params) { // group 2
			in.Q = &tle.Tensor{Shape: []int{32, 4, 128}, Data: make([]float64, 32*4*128)}
		}},
		{"cu_seqlens_q", false, 0, func(in *Inputs, p *Params) { in.CuSeqlensQ = []int64{0} }},
		{"cu_seqlens_q", false, 0, func(in *Inputs, p *Params) { in.CuSeqlensQ = []int64{1, 30, 32} }},
		{"cu_seqlens_q", false, 0, func(in *Inputs, p *Params) { in.CuSeqlensQ = []int64{0, 32, 32} }}, // not increasing
		{"cu_seqlens_q", false, 0, func(in *Inputs, p *Params) { in.CuSeqlensQ = []int64{0, 20, 10} }},
		{"cu_seqlens_q", false, 0, func(in *Inputs, p *Params) { in.CuSeqlensQ = []int64{0, 30, 31} }}, // ends before T
		{"kv_lens", false, 0, func(in *Inputs, p *Params) { in.KVLens[0] = 29 }},                       // fewer keys than queries
		{"kv_lens", false, 0, func(in *Inputs, p *Params) { in.KVLens = in.KVLens[:1] }},
		{"kv_lens", false, 0, func(in *Inputs, p *Params) { in.KVLens[1] = int64(len(in.BlockIDs[1])*32 + 1) }},
		{"block_ids", false, 0, func(in *Inputs, p *Params) { in.BlockIDs = in.BlockIDs[:1] }},
		{"block_ids", false, 0, func(in *Inputs, p *Params) { in.BlockIDs[0][1] = -1 }},
		{"block_ids", false, 0, func(in *Inputs, p *Params) { in.BlockIDs[1][0] = int64(in.KCache.Shape[0]) }},
		{"k_cache", false, 0, func(in *Inputs, p *Params) {
			s := in.KCache.Shape
			in.KCache.Shape = []int{s[0] * 4, 8, s[2], s[3]} // page 8
		}},
		{"v_cache", false, 0, func(in *Inputs, p *Params) { in.VCache = nil }},
		{"q_scale", false, 0, func(in *Inputs, p *Params) { in.QScale = tle.NewTensor(32, 8) }}, // bf16 with a scale
		{"q_scale", true, 1, func(in *Inputs, p *Params) { in.QScale = tle.NewTensor(2, 8) }},
		{"q_scale", true, 0, func(in *Inputs, p *Params) { in.QScale.Data[3] = -0.5 }}, // negative
		{"k_scale", true, 1, func(in *Inputs, p *Params) { in.KScale.Data[0] = -0.5 }}, // negative per-tensor scale
		{"k_scale", true, 0, func(in *Inputs, p *Params) { in.KScale = tle.NewTensor(1) }},
		{"v_scale", true, 1, func(in *Inputs, p *Params) { in.VScale.Data[0] = math.NaN() }},
		{"k_cache", true, 1, func(in *Inputs, p *Params) { in.KCache.Data[5] = 0.3 }}, // not an e4m3 value
	} {
		in, p := good(c.fp8, c.quant)
		if c.fp8 {
			in.KCache.Data[5] = 1 // a slot the mutation may rewrite
		}
		_, err := Validate(in, p)
		require.NoError(t, err, "the unmutated case (%s)", c.arg)
		c.mutate(in, &p)
		_, err = Validate(in, p)
		var ae *paged.ArgError
		require.True(t, errors.As(err, &ae), "%s: want an paged.ArgError, got %v", c.arg, err)
		require.Equal(t, c.arg, ae.Arg, "%v", err)
		_, err = Run(tle.CPU(), in, p)
		require.ErrorAs(t, err, &ae, c.arg)
	}
}

// TestPrefillFP8: quant types 0 and 1, every page size, both layouts.
func TestPrefillFP8(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(39, 40))
	worst := map[int][2]float64{}
	i := 0
	for _, quant := range []int{0, 1} {
		for _, page := range []int{16, 32, 64} {
			for _, nhd := range []bool{false, true} {
				qlens, lens := []int64{1, 70, 9}, []int64{37, 70, 200}
				if i%2 == 1 {
					qlens, lens = []int64{150, 5}, []int64{181, 5}
				}
				g := []int{4, 8}[i%2]
				c := prefillCase{fp8: true, quant: quant, page: page, nhd: nhd, hkv: 1 + (i/2)%2, g: g, qlens: qlens, lens: lens}
				c.name = fmt.Sprintf("fp8q%d page %d nhd %v G %d Hkv %d qlens %v lens %v", quant, page, nhd, g, c.hkv, qlens, lens)
				i++
				eo, el := runPrefill(t, devs, r, c)
				w := worst[quant]
				worst[quant] = [2]float64{max(w[0], eo), max(w[1], el)}
			}
		}
	}
	for q, w := range worst {
		t.Logf("fp8 quant %d: worst max |o err| %.4g, worst max |lse err| %.4g", q, w[0], w[1])
	}
}

// TestPrefillLong crosses the producer's page-table staging (64 page ids
// at a time: 1024 tokens of pages of 16) and the ring's wrap many times,
// with a short query chunk at the end of a long prefix and two q tiles
// of a request whose prefix is longer than one staged block.
func TestPrefillLong(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(43, 44))
	for _, c := range []prefillCase{
		{name: "bf16 page 16 L 1100 Lq 5", page: 16, hkv: 1, g: 4, qlens: []int64{5}, lens: []int64{1100}},
		{name: "bf16 page 16 L 1250 Lq 200 + L 3", page: 16, hkv: 1, g: 4, nhd: true, qlens: []int64{200, 3}, lens: []int64{1250, 3}},
		{name: "fp8q0 page 16 L 1100 Lq 7", fp8: true, quant: 0, page: 16, hkv: 1, g: 8, nhd: true, qlens: []int64{7}, lens: []int64{1100}},
		{name: "fp8q1 page 32 L 2100 Lq 3", fp8: true, quant: 1, page: 32, hkv: 1, g: 4, qlens: []int64{3}, lens: []int64{2100}},
	} {
		c.name = "long " + c.name
		runPrefill(t, devs, r, c)
	}
}

// TestPrefillGPU (GPU only): the (512, 4096) shape at one kv head
// (Hq 8; the reference takes a few seconds on the host), BF16 and FP8
// quant 0 and 1 on pages of 64, and a 127-token request with no prefix
// beside it; FP8 at both key steps (128 keys and one page a step), with
// odd page counts (4000 keys: 63 pages) and pages of 16 at 128; BF16 one
// page a step and at 128 keys a step (the default for pages of 64) on the
// same shape, and an odd page count.
func TestPrefillGPU(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	r := rand.New(rand.NewPCG(45, 46))
	for _, c := range []prefillCase{
		{name: "bf16 512 x 4096 + 127 x 127 nhd key step 64", page: 64, hkv: 1, g: 8, nhd: true, qlens: []int64{512, 127}, lens: []int64{4096, 127}, ks: 64},
		{name: "bf16 512 x 4096 hnd page 16", page: 16, hkv: 1, g: 8, qlens: []int64{512}, lens: []int64{4096}},
		{name: "fp8q1 512 x 4096 + 127 x 127 hnd", fp8: true, quant: 1, page: 64, hkv: 1, g: 8, qlens: []int64{512, 127}, lens: []int64{4096, 127}},
		{name: "fp8q0 512 x 4096 nhd", fp8: true, quant: 0, page: 64, hkv: 1, g: 8, nhd: true, qlens: []int64{512}, lens: []int64{4096}},
		// the FP8 rows above walk 128 keys a step (the default at pages of
		// 64); these one page a step, and 128 keys a step over an odd page
		// count and pages of 16
		{name: "fp8q1 512 x 4096 + 127 x 127 hnd key step 64", fp8: true, quant: 1, page: 64, hkv: 1, g: 8, qlens: []int64{512, 127}, lens: []int64{4096, 127}, ks: 64},
		{name: "fp8q0 512 x 4096 nhd key step 64", fp8: true, quant: 0, page: 64, hkv: 1, g: 8, nhd: true, qlens: []int64{512}, lens: []int64{4096}, ks: 64},
		{name: "fp8q0 300 x 4000 + 70 x 100 nhd key step 128", fp8: true, quant: 0, page: 64, hkv: 1, g: 8, nhd: true, qlens: []int64{300, 70}, lens: []int64{4000, 100}, ks: 128},
		{name: "fp8q1 200 x 1000 hnd page 16 key step 128", fp8: true, quant: 1, page: 16, hkv: 1, g: 8, qlens: []int64{200}, lens: []int64{1000}, ks: 128},
		// BF16 at 128 keys a step (attn_prefill_bf16_k128): the
		// issue's shape, and an odd page count (4000 keys: 63 pages)
		{name: "bf16 512 x 4096 + 127 x 127 nhd key step 128", page: 64, hkv: 1, g: 8, nhd: true, qlens: []int64{512, 127}, lens: []int64{4096, 127}, ks: 128},
		{name: "bf16 300 x 4000 + 70 x 100 hnd key step 128", page: 64, hkv: 1, g: 8, qlens: []int64{300, 70}, lens: []int64{4000, 100}, ks: 128},
	} {
		runPrefill(t, []tle.Device{g}, r, c)
	}
}

// TestPrefillKeyStep: the FP8 walk of 128 keys a step
// (attn_prefill_fp8_k128: 128/page pages a step, one QK^T product over
// their slots seen as one [128, 128] view) against the float64 reference,
// and the walk of one page a step on the same inputs: odd page counts (the
// last step's missing pages repeat the last one and are hidden), Lq < L,
// L not a multiple of 128 nor of the page, Lq = L, several q tiles, quant
// types 0 and 1, NHD and HND, pages 64, 32 and 16 (NaN in every unread
// cache slot and garbage K scales past each request's keys).
func TestPrefillKeyStep(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(47, 48))
	for _, c := range []prefillCase{
		{name: "page 64 q0 hnd: 5 pages (odd), Lq < L", quant: 0, page: 64, hkv: 1, g: 4, qlens: []int64{100}, lens: []int64{300}},
		{name: "page 64 q1 nhd: 1, 3 and 4 pages", quant: 1, page: 64, hkv: 2, g: 4, nhd: true, qlens: []int64{1, 130, 7}, lens: []int64{65, 170, 256}},
		{name: "page 64 q0 nhd: Lq = L past two q tiles, L = 2 pages + 1", quant: 0, page: 64, hkv: 1, g: 8, nhd: true, qlens: []int64{129, 300}, lens: []int64{129, 300}},
		{name: "page 64 q1 hnd: a 1-page request and L = 128", quant: 1, page: 64, hkv: 1, g: 4, qlens: []int64{5, 128}, lens: []int64{40, 128}},
		{name: "page 32 q0 nhd: 4 pages a step, 7 pages", quant: 0, page: 32, hkv: 1, g: 4, nhd: true, qlens: []int64{70, 9}, lens: []int64{200, 37}},
		{name: "page 16 q1 hnd: 8 pages a step, 13 pages", quant: 1, page: 16, hkv: 2, g: 4, qlens: []int64{150, 1}, lens: []int64{200, 17}},
		{name: "page 16 q0 hnd: 8 pages a step", quant: 0, page: 16, hkv: 1, g: 8, qlens: []int64{33}, lens: []int64{161}},
	} {
		for _, ks := range []int{KeyStep, c.page} {
			c := c
			c.fp8, c.ks = true, ks
			c.name = fmt.Sprintf("fp8 key step %d, %s", ks, c.name)
			runPrefill(t, devs, r, c)
		}
	}
}

// TestPrefillLongWalk: attn_prefill_fp8_k128 with step 0 in its loop
// (PEEL 0, which the plan picks when the longest walk passes
// fp8K128PeelSteps steps of 128 keys): a walk of 34 steps (L 4300, not a
// multiple of the page) and, in the same call, a one-step walk, whose
// only PV runs after the loop; quant 0 and 1.
func TestPrefillLongWalk(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(53, 54))
	for _, q := range []int{0, 1} {
		c := prefillCase{name: fmt.Sprintf("fp8 q%d long walk", q), fp8: true, quant: q, page: 64, hkv: 1, g: 4, nhd: q == 1, qlens: []int64{3, 70}, lens: []int64{4300, 70}}
		in, p := makePrefill(r, c)
		d, err := Validate(in, p)
		require.NoError(t, err)
		require.Greater(t, d.KeyTiles, fp8K128PeelSteps)
		require.Equal(t, "0", Plan(d).Defines["PEEL"], "the long walk's plan runs step 0 in the loop")
		runPrefill(t, devs, r, c)
	}
}

// TestPrefillBF16KeyStep: the BF16 walk of 128 keys a step
// (attn_prefill_bf16_k128: two page slots of 64 a step, one m64n128
// QK^T product over both in 64-column halves, two consumer copies) and the
// walk of one page a step (attn_prefill_bf16) on the same inputs against
// the float64 reference: odd page counts (the last step's second slot
// repeats the last page, hidden), Lq < L, L not a multiple of 128 nor of
// the page, Lq = L past two q tiles, a 1-page request, NHD and HND, G 4
// and 8, a softmax scale other than the default (NaN in every unread cache
// slot, garbage ids past each request's pages).
func TestPrefillBF16KeyStep(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(51, 52))
	for _, c := range []prefillCase{
		{name: "hnd: 5 pages (odd), Lq < L", hkv: 1, g: 4, qlens: []int64{100}, lens: []int64{300}},
		{name: "nhd: 1, 3 and 4 pages", hkv: 2, g: 4, nhd: true, qlens: []int64{1, 130, 7}, lens: []int64{65, 170, 256}},
		{name: "nhd: Lq = L past two q tiles, L = 2 pages + 1", hkv: 1, g: 8, nhd: true, qlens: []int64{129, 300}, lens: []int64{129, 300}},
		{name: "hnd: a 1-page request and L = 128", hkv: 1, g: 4, qlens: []int64{5, 128}, lens: []int64{40, 128}},
		{name: "nhd: L 3 pages + 10, Lq 70, scale 0.3", hkv: 1, g: 8, nhd: true, qlens: []int64{70, 1}, lens: []int64{202, 63}, scale: 0.3},
	} {
		c.page = 64
		in, p := makePrefill(r, c)
		runBF16KeySteps(t, devs, "bf16 "+c.name, in, p)
	}
}

// runBF16KeySteps runs BF16 inputs in at 128 keys a step
// (attn_prefill_bf16_k128) and one page a step (attn_prefill_bf16)
// against one float64 reference; it returns the outputs of each step.
func runBF16KeySteps(t *testing.T, devs []tle.Device, name string, in *Inputs, p Params) map[int]*Outputs {
	t.Helper()
	wo, wl := prefillReference(in, p)
	outs := map[int]*Outputs{}
	for _, ks := range []int{KeyStep, 64} {
		p.KeyStep = ks
		d, err := Validate(in, p)
		require.NoError(t, err, name)
		require.Equal(t, map[int]string{128: "attn_prefill_bf16_k128", 64: "attn_prefill_bf16"}[ks], Plan(d).Kernel, name)
		for _, dev := range devs {
			out, err := Run(dev, in, p)
			require.NoError(t, err, "%s key step %d on %s", name, ks, dev.Name())
			for _, x := range out.O.Data {
				if math.IsNaN(x) { // require only on a failure (a call an element is slow)
					require.False(t, math.IsNaN(x), "%s key step %d: NaN in o", name, ks)
				}
			}
			pagedtest.RequireClose(t, fmt.Sprintf("%s key step %d on %s", name, ks, dev.Name()), "", out.O.Data, out.LSE.Data, wo, wl, false)
			outs[ks] = out
		}
	}
	return outs
}

// TestPrefillBF16KeyStepLong: BF16 at 128 keys a step past the producer's
// 64 staged page ids (32 steps of two pages) and round the ring of two
// stages many times, an odd page count at the end.
func TestPrefillBF16KeyStepLong(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(53, 54))
	c := prefillCase{name: "long bf16 key step 128 L 4500 Lq 9 + L 4200 Lq 200", page: 64, hkv: 1, g: 4, nhd: true,
		qlens: []int64{9, 200}, lens: []int64{4500, 4200}, ks: KeyStep}
	runPrefill(t, devs, r, c)
}

// TestPrefillBF16KeyStepNaN: 128 keys a step leaves no NaN in the outputs
// though every unread slot of the cache is NaN, the last page of request
// 0 half past L and repeated in its last step (3 pages).
func TestPrefillBF16KeyStepNaN(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	in, p := makePrefill(r, prefillCase{page: 64, hkv: 1, g: 4, qlens: []int64{3, 17}, lens: []int64{150, 17}, ks: KeyStep})
	require.True(t, math.IsNaN(in.VCache.Data[(int(in.BlockIDs[0][2])*64+30)*paged.HeadDim]), "slot 30 of request 0's third page is past L = 150")
	d, err := Validate(in, p)
	require.NoError(t, err)
	require.Equal(t, "attn_prefill_bf16_k128", Plan(d).Kernel)
	out, err := Run(tle.CPU(), in, p)
	require.NoError(t, err)
	for _, x := range append(out.O.Data, out.LSE.Data...) {
		if math.IsNaN(x) || math.IsInf(x, 0) { // require only on a failure (a call an element is slow)
			require.False(t, math.IsNaN(x) || math.IsInf(x, 0))
		}
	}
}

// TestPrefillKeyStepLong: 128 keys a step past the producer's 64 staged
// page ids (32 steps of two pages of 64, 8 of eight pages of 16) and round
// the ring of three stages many times, an odd page count at the end.
func TestPrefillKeyStepLong(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(49, 50))
	for _, c := range []prefillCase{
		{name: "page 64 q0 L 4500 Lq 9 + L 4200 Lq 200", quant: 0, page: 64, hkv: 1, g: 4, nhd: true, qlens: []int64{9, 200}, lens: []int64{4500, 4200}},
		{name: "page 16 q1 L 1100 Lq 7", quant: 1, page: 16, hkv: 1, g: 4, qlens: []int64{7}, lens: []int64{1100}},
	} {
		c.name = "long fp8 key step 128 " + c.name
		c.fp8, c.ks = true, KeyStep
		runPrefill(t, devs, r, c)
	}
}

// TestPrefillKeyStepPlan: FP8 pages of 64 walk 128 keys a step by default
// (attn_prefill_fp8_k128, SK stages), 16 and 32 one page a step; an
// explicit step picks either kernel; BF16 walks 128 keys a step by default
// for pages of 64 (attn_prefill_bf16_k128, two stages), one
// page a step otherwise; each kernel's grid.
func TestPrefillKeyStepPlan(t *testing.T) {
	for _, c := range []struct {
		fp8        bool
		page, ks   int
		kernel     string
		step, ring int
	}{
		{true, 64, 0, "attn_prefill_fp8_k128", 128, fp8K128Stages},
		{true, 64, 64, "attn_prefill_fp8", 64, 4},
		{true, 32, 0, "attn_prefill_fp8", 32, 8},
		{true, 32, 128, "attn_prefill_fp8_k128", 128, fp8K128Stages},
		{true, 16, 128, "attn_prefill_fp8_k128", 128, fp8K128Stages},
		{false, 64, 0, "attn_prefill_bf16_k128", 128, bf16K128Stages},
		{false, 64, 64, "attn_prefill_bf16", 64, 4},
		{false, 64, 128, "attn_prefill_bf16_k128", 128, bf16K128Stages},
		{false, 32, 0, "attn_prefill_bf16", 32, 8},
	} {
		d := &Dims{Dims: paged.Dims{Page: c.page, G: 4, B: 2, Hkv: 1, Hq: 4, FP8: c.fp8}}
		d.setQTiles(300)
		require.NoError(t, d.setKeyStep(c.ks), "%+v", c)
		require.Equal(t, c.step, d.KeyStep, "%+v", c)
		require.Equal(t, c.ring, d.Stages, "%+v", c)
		pl := Plan(d)
		require.Equal(t, c.kernel, pl.Kernel, "%+v", c)
		// attn_prefill_bf16_k128 puts the heads first (every head's
		// heaviest q tile before any lighter one), the others the q tiles
		grid := [3]int{d.QT, 4, 2}
		if c.kernel == "attn_prefill_bf16_k128" {
			grid = [3]int{4, d.QT, 2}
		}
		require.Equal(t, grid, pl.Grid, "%+v", c)
		// the 128-key kernels' rings have names of their own (the file's
		// kernels are checked together: one's ring must not size another)
		if ring := map[string]string{"attn_prefill_fp8_k128": "SK", "attn_prefill_bf16_k128": "SB"}[c.kernel]; ring != "" {
			require.Equal(t, fmt.Sprint(c.ring), pl.Defines[ring], "%+v", c)
			require.NotContains(t, pl.Defines, "S", "%+v", c)
		}
	}
}

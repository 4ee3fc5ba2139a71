package attention

import (
	"testing"

	"math"
	"math/rand/v2"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// decodeCase is one randomly generated decode call.
type decodeCase struct {
	name    string
	fp8     bool
	quant   int
	nhd     bool
	page    int
	hkv, g  int
	sq      int
	lens    []int64
	splits  int
	scale   float64 // DecodeParams.Scale (0: the default)
	ctas    int     // DecodeParams.CTAs (0: the default)
	cluster int     // DecodeParams.Cluster (0: the policy's)
	sms     int     // DecodeParams.SMs (0: tle.H200's)
	sched   string  // DecodeParams.Schedule ("": the policy's)
}

// made is a case's inputs with the float64 view of the dequantized
// operands the reference reads.
type made struct {
	in *DecodeInputs
	p  DecodeParams
}

// makeCase draws random inputs (never zeros): values rounded to the
// cache dtype, a shuffled page table with garbage (ids out of range,
// negative) past each request's pages, NaN in every cache slot no request
// reads (unused blocks, the tail of each request's last page), and for FP8
// scales drawn around 1 (garbage scales in the unused slots of a type-0 K
// scale).
func makeCase(r *rand.Rand, c decodeCase) made {
	b := len(c.lens)
	hq := c.hkv * c.g
	dt := ir.BF16
	if c.fp8 {
		dt = ir.F8E4M3
	}
	maxPages := 0
	total := 0
	for _, L := range c.lens {
		np := int((L + int64(c.page) - 1) / int64(c.page))
		maxPages = max(maxPages, np)
		total += np
	}
	maxBlocks := maxPages + 1 + r.IntN(2)
	blocks := total + 3
	perm := r.Perm(blocks)
	nan := math.NaN()
	shape := []int{blocks, c.page, c.hkv, HeadDim}
	if !c.nhd {
		shape = []int{blocks, c.hkv, c.page, HeadDim}
	}
	idx := func(blk, tok, h, dd int) int {
		if c.nhd {
			return ((blk*c.page+tok)*c.hkv+h)*HeadDim + dd
		}
		return ((blk*c.hkv+h)*c.page+tok)*HeadDim + dd
	}
	n := blocks * c.page * c.hkv * HeadDim
	kc, vc := make([]float64, n), make([]float64, n)
	for i := range kc {
		kc[i], vc[i] = nan, nan
	}
	var kscale []float64
	if c.fp8 && c.quant == 0 {
		kscale = make([]float64, blocks*c.page*c.hkv)
		for i := range kscale {
			kscale[i] = 1e30 * float64(i%3-1) // garbage where no key is
		}
	}
	table := make([][]int64, b)
	next := 0
	for q := range b {
		row := make([]int64, maxBlocks)
		L := int(c.lens[q])
		np := (L + c.page - 1) / c.page
		for i := range row {
			if i < np {
				blk := perm[next]
				next++
				row[i] = int64(blk)
				for tok := 0; tok < c.page && i*c.page+tok < L; tok++ {
					for h := range c.hkv {
						for dd := range HeadDim {
							kc[idx(blk, tok, h, dd)] = dt.Round(r.NormFloat64() * 2)
							vc[idx(blk, tok, h, dd)] = dt.Round(r.NormFloat64())
						}
						if kscale != nil {
							ks := 0.5 + r.Float64()
							if c.nhd {
								kscale[(blk*c.page+tok)*c.hkv+h] = ks
							} else {
								kscale[(blk*c.hkv+h)*c.page+tok] = ks
							}
						}
					}
				}
			} else if r.IntN(2) == 0 {
				row[i] = int64(blocks + 1000 + r.IntN(1000))
			} else {
				row[i] = -int64(1 + r.IntN(1000))
			}
		}
		table[q] = row
	}
	qd := make([]float64, b*c.sq*hq*HeadDim)
	for i := range qd {
		qd[i] = dt.Round(r.NormFloat64())
	}
	in := &DecodeInputs{
		Q:      &tle.Tensor{Shape: []int{b * c.sq, hq, HeadDim}, Data: qd},
		KCache: &tle.Tensor{Shape: shape, Data: kc}, VCache: &tle.Tensor{Shape: shape, Data: vc},
		BlockIDs: table, KVLens: append([]int64(nil), c.lens...),
	}
	p := DecodeParams{Layout: LayoutHND, DType: DTypeBF16, Sq: c.sq, Splits: c.splits, Scale: c.scale, CTAs: c.ctas, Cluster: c.cluster, SMs: c.sms, Schedule: c.sched}
	if c.nhd {
		p.Layout = LayoutNHD
	}
	if c.fp8 {
		p.DType, p.QuantType = DTypeFP8, c.quant
		qs := make([]float64, b*c.sq*hq)
		for i := range qs {
			qs[i] = 0.5 + r.Float64()
		}
		in.QScale = &tle.Tensor{Shape: []int{b * c.sq, hq}, Data: qs}
		if c.quant == 1 {
			in.KScale = &tle.Tensor{Shape: []int{1}, Data: []float64{0.5 + r.Float64()}}
			in.VScale = &tle.Tensor{Shape: []int{1}, Data: []float64{0.2 + 0.3*r.Float64()}}
		} else {
			ksShape := []int{blocks, c.page, c.hkv}
			if !c.nhd {
				ksShape = []int{blocks, c.hkv, c.page}
			}
			in.KScale = &tle.Tensor{Shape: ksShape, Data: kscale}
			vs := make([]float64, c.hkv)
			for i := range vs {
				vs[i] = 0.2 + 0.3*r.Float64()
			}
			in.VScale = &tle.Tensor{Shape: []int{c.hkv}, Data: vs}
		}
	}
	return made{in: in, p: p}
}

// reference is decode attention in float64 on the dequantized inputs,
// gathering each request's keys page by page: o [B*Sq, Hq, 128] and the
// natural-log LSE [B*Sq, Hq].
func reference(in *DecodeInputs, p DecodeParams) (o, lse []float64) {
	return referenceVis(in, p, nil)
}

// referenceVis is reference with a further visibility rule: vis(t, hh, j)
// false hides key j from row t, q head hh (nil: every causal key is
// visible). A row that sees no key gives o 0 and lse -inf.
func referenceVis(in *DecodeInputs, p DecodeParams, vis func(t, hh, j int) bool) (o, lse []float64) {
	sq := p.Sq
	rows, hq := in.Q.Shape[0], in.Q.Shape[1]
	nhd := p.Layout == LayoutNHD
	ks := in.KCache.Shape
	page, hkv := ks[2], ks[1]
	if nhd {
		page, hkv = ks[1], ks[2]
	}
	g := hq / hkv
	scale := p.Scale
	if scale == 0 {
		scale = DefaultScale
	}
	fp8 := p.DType == DTypeFP8
	at := func(data []float64, blk, tok, h int) []float64 {
		var base int
		if nhd {
			base = ((blk*page+tok)*hkv + h) * HeadDim
		} else {
			base = ((blk*hkv+h)*page + tok) * HeadDim
		}
		return data[base : base+HeadDim]
	}
	kScale := func(blk, tok, h int) float64 {
		if !fp8 {
			return 1
		}
		if p.QuantType == 1 {
			return in.KScale.Data[0]
		}
		if nhd {
			return in.KScale.Data[(blk*page+tok)*hkv+h]
		}
		return in.KScale.Data[(blk*hkv+h)*page+tok]
	}
	vScale := func(h int) float64 {
		if !fp8 {
			return 1
		}
		if p.QuantType == 1 {
			return in.VScale.Data[0]
		}
		return in.VScale.Data[h]
	}
	o = make([]float64, rows*hq*HeadDim)
	lse = make([]float64, rows*hq)
	for t := range rows {
		b, s := t/sq, t%sq
		L := int(in.KVLens[b])
		last := L - sq + s // keys 0..last
		for hh := range hq {
			h := hh / g
			qv := in.Q.Data[(t*hq+hh)*HeadDim : (t*hq+hh+1)*HeadDim]
			qs := 1.0
			if fp8 {
				qs = in.QScale.Data[t*hq+hh]
			}
			sc := make([]float64, last+1)
			mx := math.Inf(-1)
			seen := false
			for j := 0; j <= last; j++ {
				if vis != nil && !vis(t, hh, j) {
					sc[j] = math.Inf(-1)
					continue
				}
				seen = true
				blk := int(in.BlockIDs[b][j/page])
				kv := at(in.KCache.Data, blk, j%page, h)
				dot := 0.0
				for dd := range HeadDim {
					dot += qv[dd] * kv[dd]
				}
				sc[j] = dot * qs * kScale(blk, j%page, h) * scale
				mx = math.Max(mx, sc[j])
			}
			if !seen {
				lse[t*hq+hh] = math.Inf(-1)
				continue
			}
			sum := 0.0
			acc := make([]float64, HeadDim)
			for j := 0; j <= last; j++ {
				if math.IsInf(sc[j], -1) {
					continue
				}
				w := math.Exp(sc[j] - mx)
				sum += w
				blk := int(in.BlockIDs[b][j/page])
				vv := at(in.VCache.Data, blk, j%page, h)
				for dd := range HeadDim {
					acc[dd] += w * vv[dd]
				}
			}
			for dd := range HeadDim {
				o[(t*hq+hh)*HeadDim+dd] = acc[dd] / sum * vScale(h)
			}
			lse[t*hq+hh] = mx + math.Log(sum)
		}
	}
	return o, lse
}

// maxAbs is the largest |got - want| (NaN in got counts as infinite).
func maxAbs(got, want []float64) float64 {
	m := 0.0
	for i := range want {
		if got[i] == want[i] { // -inf where no key is seen
			continue
		}
		d := math.Abs(got[i] - want[i])
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		m = math.Max(m, d)
	}
	return m
}

// requireClose checks a call's outputs o and lse against the float64
// reference (wo, wl) within the bounds of the dtype path, logging the
// errors under what (and note), and returns them.
func requireClose(t *testing.T, what, note string, o, lse, wo, wl []float64, fp8 bool) (eo, el float64) {
	t.Helper()
	to, tl := bf16TolO, bf16TolLSE
	if fp8 {
		to, tl = fp8TolO, fp8TolLSE
	}
	eo, el = maxAbs(o, wo), maxAbs(lse, wl)
	t.Logf("%s: %smax |o err| %.4g, max |lse err| %.4g", what, note, eo, el)
	require.LessOrEqual(t, eo, to, "%s: o", what)
	require.LessOrEqual(t, el, tl, "%s: lse", what)
	return eo, el
}

// Package pagedtest draws random calls over a paged KV cache and checks
// decode and prefill against a float64 reference, for the tests of
// packages decode and prefill.
package pagedtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/tle"
)

// The spec's tolerances of o and the LSE.
const (
	BF16TolO, BF16TolLSE = 0.016, 0.01
	FP8TolO, FP8TolLSE   = 0.1, 0.05
)

// Case is the shape of a random call: the cache's dtype (FP8 with quant
// type Quant), layout, page size, kv heads and GQA group, Sq query tokens
// per request and the requests' lengths.
type Case struct {
	FP8    bool
	Quant  int
	NHD    bool
	Page   int
	Hkv, G int
	Sq     int
	Lens   []int64
}

// Inputs are a drawn call: Q [B*Sq, Hq, 128] (QScale [B*Sq, Hq] for FP8)
// over the caches, page table and lengths, with the layout, dtype and
// quant type naming them as the ops' parameters do.
type Inputs struct {
	Q, KCache, VCache      *tle.Tensor
	QScale, KScale, VScale *tle.Tensor
	BlockIDs               [][]int64
	KVLens                 []int64
	Layout, DType          string
	Quant                  int
}

// Draw draws random inputs (never zeros): values rounded to the
// cache dtype, a shuffled page table with garbage (ids out of range,
// negative) past each request's pages, NaN in every cache slot no request
// reads (unused blocks, the tail of each request's last page), and for FP8
// scales drawn around 1 (garbage scales in the unused slots of a type-0 K
// scale).
func Draw(r *rand.Rand, c Case) *Inputs {
	b := len(c.Lens)
	hq := c.Hkv * c.G
	dt := ir.BF16
	if c.FP8 {
		dt = ir.F8E4M3
	}
	maxPages := 0
	total := 0
	for _, L := range c.Lens {
		np := int((L + int64(c.Page) - 1) / int64(c.Page))
		maxPages = max(maxPages, np)
		total += np
	}
	maxBlocks := maxPages + 1 + r.IntN(2)
	blocks := total + 3
	perm := r.Perm(blocks)
	nan := math.NaN()
	shape := []int{blocks, c.Page, c.Hkv, paged.HeadDim}
	if !c.NHD {
		shape = []int{blocks, c.Hkv, c.Page, paged.HeadDim}
	}
	idx := func(blk, tok, h, dd int) int {
		if c.NHD {
			return ((blk*c.Page+tok)*c.Hkv+h)*paged.HeadDim + dd
		}
		return ((blk*c.Hkv+h)*c.Page+tok)*paged.HeadDim + dd
	}
	n := blocks * c.Page * c.Hkv * paged.HeadDim
	kc, vc := make([]float64, n), make([]float64, n)
	for i := range kc {
		kc[i], vc[i] = nan, nan
	}
	var kscale []float64
	if c.FP8 && c.Quant == 0 {
		kscale = make([]float64, blocks*c.Page*c.Hkv)
		for i := range kscale {
			kscale[i] = 1e30 * float64(i%3-1) // garbage where no key is
		}
	}
	table := make([][]int64, b)
	next := 0
	for q := range b {
		row := make([]int64, maxBlocks)
		L := int(c.Lens[q])
		np := (L + c.Page - 1) / c.Page
		for i := range row {
			if i < np {
				blk := perm[next]
				next++
				row[i] = int64(blk)
				for tok := 0; tok < c.Page && i*c.Page+tok < L; tok++ {
					for h := range c.Hkv {
						for dd := range paged.HeadDim {
							kc[idx(blk, tok, h, dd)] = dt.Round(r.NormFloat64() * 2)
							vc[idx(blk, tok, h, dd)] = dt.Round(r.NormFloat64())
						}
						if kscale != nil {
							ks := 0.5 + r.Float64()
							if c.NHD {
								kscale[(blk*c.Page+tok)*c.Hkv+h] = ks
							} else {
								kscale[(blk*c.Hkv+h)*c.Page+tok] = ks
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
	qd := make([]float64, b*c.Sq*hq*paged.HeadDim)
	for i := range qd {
		qd[i] = dt.Round(r.NormFloat64())
	}
	in := &Inputs{
		Q:      &tle.Tensor{Shape: []int{b * c.Sq, hq, paged.HeadDim}, Data: qd},
		KCache: &tle.Tensor{Shape: shape, Data: kc}, VCache: &tle.Tensor{Shape: shape, Data: vc},
		BlockIDs: table, KVLens: append([]int64(nil), c.Lens...),
	}
	in.Layout, in.DType = paged.LayoutHND, paged.DTypeBF16
	if c.NHD {
		in.Layout = paged.LayoutNHD
	}
	if c.FP8 {
		in.DType, in.Quant = paged.DTypeFP8, c.Quant
		qs := make([]float64, b*c.Sq*hq)
		for i := range qs {
			qs[i] = 0.5 + r.Float64()
		}
		in.QScale = &tle.Tensor{Shape: []int{b * c.Sq, hq}, Data: qs}
		if c.Quant == 1 {
			in.KScale = &tle.Tensor{Shape: []int{1}, Data: []float64{0.5 + r.Float64()}}
			in.VScale = &tle.Tensor{Shape: []int{1}, Data: []float64{0.2 + 0.3*r.Float64()}}
		} else {
			ksShape := []int{blocks, c.Page, c.Hkv}
			if !c.NHD {
				ksShape = []int{blocks, c.Hkv, c.Page}
			}
			in.KScale = &tle.Tensor{Shape: ksShape, Data: kscale}
			vs := make([]float64, c.Hkv)
			for i := range vs {
				vs[i] = 0.2 + 0.3*r.Float64()
			}
			in.VScale = &tle.Tensor{Shape: []int{c.Hkv}, Data: vs}
		}
	}
	return in
}

// Reference is attention in float64 on the dequantized inputs, gathering
// each request's keys page by page, query s of a request of Sq = sq
// tokens seeing its keys j <= L - sq + s (scale 0: the default): o [B*Sq,
// Hq, 128] and the natural-log LSE [B*Sq, Hq]. vis, when not nil, hides
// key j from row t, q head hh where it is false; a row that sees no key
// gives o 0 and lse -inf.
func Reference(in *Inputs, sq int, scale float64, vis func(t, hh, j int) bool) (o, lse []float64) {
	rows, hq := in.Q.Shape[0], in.Q.Shape[1]
	nhd := in.Layout == paged.LayoutNHD
	ks := in.KCache.Shape
	page, hkv := ks[2], ks[1]
	if nhd {
		page, hkv = ks[1], ks[2]
	}
	g := hq / hkv
	if scale == 0 {
		scale = paged.DefaultScale
	}
	fp8 := in.DType == paged.DTypeFP8
	at := func(data []float64, blk, tok, h int) []float64 {
		var base int
		if nhd {
			base = ((blk*page+tok)*hkv + h) * paged.HeadDim
		} else {
			base = ((blk*hkv+h)*page + tok) * paged.HeadDim
		}
		return data[base : base+paged.HeadDim]
	}
	kScale := func(blk, tok, h int) float64 {
		if !fp8 {
			return 1
		}
		if in.Quant == 1 {
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
		if in.Quant == 1 {
			return in.VScale.Data[0]
		}
		return in.VScale.Data[h]
	}
	o = make([]float64, rows*hq*paged.HeadDim)
	lse = make([]float64, rows*hq)
	for t := range rows {
		b, s := t/sq, t%sq
		L := int(in.KVLens[b])
		last := L - sq + s // keys 0..last
		for hh := range hq {
			h := hh / g
			qv := in.Q.Data[(t*hq+hh)*paged.HeadDim : (t*hq+hh+1)*paged.HeadDim]
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
				sc[j] = dot(qv, kv) * qs * kScale(blk, j%page, h) * scale
				mx = math.Max(mx, sc[j])
			}
			if !seen {
				lse[t*hq+hh] = math.Inf(-1)
				continue
			}
			sum := 0.0
			acc := make([]float64, paged.HeadDim)
			for j := 0; j <= last; j++ {
				if math.IsInf(sc[j], -1) {
					continue
				}
				w := math.Exp(sc[j] - mx)
				sum += w
				blk := int(in.BlockIDs[b][j/page])
				vv := at(in.VCache.Data, blk, j%page, h)
				vv = vv[:len(acc)]
				for dd := range acc {
					acc[dd] += w * vv[dd]
				}
			}
			for dd := range paged.HeadDim {
				o[(t*hq+hh)*paged.HeadDim+dd] = acc[dd] / sum * vScale(h)
			}
			lse[t*hq+hh] = mx + math.Log(sum)
		}
	}
	return o, lse
}

// dot is the float64 dot product of two rows of one length, in four
// running sums (the reference's inner loop: one sum would wait on each
// add's latency).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// MaxAbs is the largest |got - want| (NaN in got counts as infinite).
func MaxAbs(got, want []float64) float64 {
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

// RequireClose checks a call's outputs o and lse against the float64
// reference (wo, wl) within the bounds of the dtype path, logging the
// errors under what (and note), and returns them.
func RequireClose(t testing.TB, what, note string, o, lse, wo, wl []float64, fp8 bool) (eo, el float64) {
	t.Helper()
	to, tl := BF16TolO, BF16TolLSE
	if fp8 {
		to, tl = FP8TolO, FP8TolLSE
	}
	eo, el = MaxAbs(o, wo), MaxAbs(lse, wl)
	t.Logf("%s: %smax |o err| %.4g, max |lse err| %.4g", what, note, eo, el)
	require.LessOrEqual(t, eo, to, "%s: o", what)
	require.LessOrEqual(t, el, tl, "%s: lse", what)
	return eo, el
}

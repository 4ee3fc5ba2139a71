// Package pagedtest draws random calls over a paged KV cache and checks
// decode and prefill against a float64 reference, for the tests of
// packages decode and prefill.
package pagedtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
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
	fillNaN(kc)
	fillNaN(vc)
	fm, _ := dt.FloatFormat()
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
						// the draws in the order of one element at a time (k,
						// v, k, v, ...), rounded a row at a time
						at := idx(blk, tok, h, 0)
						kr, vr := kc[at:at+paged.HeadDim], vc[at:at+paged.HeadDim]
						for dd := range kr {
							kr[dd] = r.NormFloat64() * 2
							vr[dd] = r.NormFloat64()
						}
						floats.RoundSlice(fm, kr)
						floats.RoundSlice(fm, vr)
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
		qd[i] = r.NormFloat64()
	}
	floats.RoundSlice(fm, qd)
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

// fillNaN sets every element of xs to NaN, doubling a filled prefix with
// copy (memmove) rather than storing one element at a time.
func fillNaN(xs []float64) {
	if len(xs) == 0 {
		return
	}
	xs[0] = math.NaN()
	for n := 1; n < len(xs); n *= 2 {
		copy(xs[n:], xs[:n])
	}
}

// Reference is attention in float64 on the dequantized inputs, gathering
// each request's keys page by page, query s of a request of Sq = sq
// tokens seeing its keys j <= L - sq + s (scale 0: the default): o [B*Sq,
// Hq, 128] and the natural-log LSE [B*Sq, Hq]. vis, when not nil, hides
// key j from row t, q head hh where it is false; a row that sees no key
// gives o 0 and lse -inf.
//
// Each request's key and value rows and K scales are gathered from the
// pages once per kv head (not once per query row), and the rows of a
// query go two keys at a time through the QK dot and four at a time
// through the PV update; every score, weight and output element is still
// the same float64 operations in the same order as one key at a time
// (TestReferenceSameValues holds it to that, bit for bit).
func Reference(in *Inputs, sq int, scale float64, vis func(t, hh, j int) bool) (o, lse []float64) {
	rows, hq := in.Q.Shape[0], in.Q.Shape[1]
	if scale == 0 {
		scale = paged.DefaultScale
	}
	fp8 := in.DType == paged.DTypeFP8
	o = make([]float64, rows*hq*paged.HeadDim)
	lse = make([]float64, rows*hq)
	var kv []headKeys
	var r refRow
	cur := -1
	for t := range rows {
		b, s := t/sq, t%sq
		if b != cur {
			kv = gatherKeys(in, b, kv)
			cur = b
		}
		last := int(in.KVLens[b]) - sq + s // keys 0..last
		g := hq / len(kv)
		for hh := range hq {
			qs := 1.0
			if fp8 {
				qs = in.QScale.Data[t*hq+hh]
			}
			row := (t*hq + hh) * paged.HeadDim
			r.seeKeys(last, vis, t, hh)
			lse[t*hq+hh] = r.run(in.Q.Data[row:row+paged.HeadDim], qs, scale, &kv[hh/g], o[row:row+paged.HeadDim])
		}
	}
	return o, lse
}

// headKeys are one request's keys for one kv head, gathered from its
// pages: key and value rows, the K scale of each key (1 for BF16) and the
// V scale of the head.
type headKeys struct {
	k, v [][]float64
	ks   []float64
	vs   float64
}

// gatherKeys gathers request b's keys (all L of them) for every kv head,
// reusing the slices of into.
func gatherKeys(in *Inputs, b int, into []headKeys) []headKeys {
	nhd := in.Layout == paged.LayoutNHD
	sh := in.KCache.Shape
	page, hkv := sh[2], sh[1]
	if nhd {
		page, hkv = sh[1], sh[2]
	}
	fp8 := in.DType == paged.DTypeFP8
	L := int(in.KVLens[b])
	if cap(into) < hkv {
		into = make([]headKeys, hkv)
	}
	into = into[:hkv]
	for h := range into {
		hk := &into[h]
		hk.k, hk.v, hk.ks = hk.k[:0], hk.v[:0], hk.ks[:0]
		hk.vs = 1
		if fp8 {
			if in.Quant == 1 {
				hk.vs = in.VScale.Data[0]
			} else {
				hk.vs = in.VScale.Data[h]
			}
		}
		for j := range L {
			blk, tok := int(in.BlockIDs[b][j/page]), j%page
			sbase := (blk*hkv+h)*page + tok // the key's K scale; its rows at sbase*HeadDim
			if nhd {
				sbase = (blk*page+tok)*hkv + h
			}
			base := sbase * paged.HeadDim
			hk.k = append(hk.k, in.KCache.Data[base:base+paged.HeadDim])
			hk.v = append(hk.v, in.VCache.Data[base:base+paged.HeadDim])
			ks := 1.0
			if fp8 {
				if in.Quant == 1 {
					ks = in.KScale.Data[0]
				} else {
					ks = in.KScale.Data[sbase]
				}
			}
			hk.ks = append(hk.ks, ks)
		}
	}
	return into
}

// refRow holds the buffers of one query row's attention, reused from row
// to row.
type refRow struct {
	seen []int     // the keys the row sees, in order
	sc   []float64 // their scores
	acc  []float64 // the weighted sum of their values
}

// seeKeys lists the keys 0..last that row t, q head hh sees: those where
// vis is true (all when vis is nil).
func (r *refRow) seeKeys(last int, vis func(t, hh, j int) bool, t, hh int) {
	r.seen = r.seen[:0]
	for j := 0; j <= last; j++ {
		if vis == nil || vis(t, hh, j) {
			r.seen = append(r.seen, j)
		}
	}
}

// run is the attention of query row q (its q scale qs) over the keys of
// hk that seeKeys listed: it writes o and returns the LSE (-inf, o left
// 0, when the row sees no key).
func (r *refRow) run(q []float64, qs, scale float64, hk *headKeys, o []float64) float64 {
	if len(r.seen) == 0 {
		return math.Inf(-1)
	}
	seen := r.seen
	if cap(r.sc) < len(seen) {
		r.sc = make([]float64, len(seen))
	}
	sc := r.sc[:len(seen)]
	i := 0
	for ; i+2 <= len(seen); i += 2 {
		j0, j1 := seen[i], seen[i+1]
		d0, d1 := dot2(q, hk.k[j0], hk.k[j1])
		sc[i] = d0 * qs * hk.ks[j0] * scale
		sc[i+1] = d1 * qs * hk.ks[j1] * scale
	}
	if i < len(seen) {
		j := seen[i]
		sc[i] = dot(q, hk.k[j]) * qs * hk.ks[j] * scale
	}
	mx := math.Inf(-1)
	for _, x := range sc {
		mx = math.Max(mx, x)
	}
	// the keys whose weight is summed: a score of -inf has none
	n := 0
	for i, x := range sc {
		if !math.IsInf(x, -1) {
			seen[n], sc[n] = seen[i], x
			n++
		}
	}
	seen, sc = seen[:n], sc[:n]
	if r.acc == nil {
		r.acc = make([]float64, paged.HeadDim)
	}
	acc := r.acc[:paged.HeadDim]
	clear(acc)
	sum := 0.0
	i = 0
	for ; i+4 <= n; i += 4 {
		w0 := math.Exp(sc[i] - mx)
		w1 := math.Exp(sc[i+1] - mx)
		w2 := math.Exp(sc[i+2] - mx)
		w3 := math.Exp(sc[i+3] - mx)
		sum += w0
		sum += w1
		sum += w2
		sum += w3
		v0 := hk.v[seen[i]][:len(acc)]
		v1 := hk.v[seen[i+1]][:len(acc)]
		v2 := hk.v[seen[i+2]][:len(acc)]
		v3 := hk.v[seen[i+3]][:len(acc)]
		for dd := range acc {
			acc[dd] = acc[dd] + w0*v0[dd] + w1*v1[dd] + w2*v2[dd] + w3*v3[dd]
		}
	}
	for ; i < n; i++ {
		w := math.Exp(sc[i] - mx)
		sum += w
		vv := hk.v[seen[i]][:len(acc)]
		for dd := range acc {
			acc[dd] += w * vv[dd]
		}
	}
	o = o[:len(acc)]
	for dd := range acc {
		o[dd] = acc[dd] / sum * hk.vs
	}
	return mx + math.Log(sum)
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

// dot2 is dot(a, b0) and dot(a, b1), each in the same four running sums
// and order as dot, interleaved: eight independent sums keep more adds in
// flight, and each element of a is loaded once for both.
func dot2(a, b0, b1 []float64) (float64, float64) {
	b0, b1 = b0[:len(a)], b1[:len(a)]
	var s0, s1, s2, s3, u0, u1, u2, u3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		a0, a1, a2, a3 := a[i], a[i+1], a[i+2], a[i+3]
		s0 += a0 * b0[i]
		s1 += a1 * b0[i+1]
		s2 += a2 * b0[i+2]
		s3 += a3 * b0[i+3]
		u0 += a0 * b1[i]
		u1 += a1 * b1[i+1]
		u2 += a2 * b1[i+2]
		u3 += a3 * b1[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b0[i]
		u0 += a[i] * b1[i]
	}
	return (s0 + s1) + (s2 + s3), (u0 + u1) + (u2 + u3)
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

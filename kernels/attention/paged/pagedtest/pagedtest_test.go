package pagedtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tlego/tle/kernels/attention/paged"
)

// TestReferenceSameValues: Reference, which gathers each request's keys
// once and takes two keys at a time through the QK dot and four through
// the PV update, gives the same float64 values, bit for bit, as
// referenceOneKey, the reference one key at a time that it replaced:
// BF16 and FP8 (quant types 0 and 1), NHD and HND, pages of 16 and 64,
// G 1 to 8, Sq 1 to 3, odd and even key counts, a softmax scale, and
// visibility masks (rows that see no key, keys hidden one by one).
func TestReferenceSameValues(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for i, c := range []Case{
		{Page: 16, Hkv: 1, G: 4, Sq: 1, Lens: []int64{1, 37, 200}},
		{NHD: true, Page: 64, Hkv: 2, G: 3, Sq: 3, Lens: []int64{3, 130, 66}},
		{FP8: true, Quant: 0, Page: 16, Hkv: 2, G: 4, Sq: 2, Lens: []int64{2, 71, 160}},
		{FP8: true, Quant: 0, NHD: true, Page: 64, Hkv: 1, G: 8, Sq: 1, Lens: []int64{129, 5}},
		{FP8: true, Quant: 1, Page: 64, Hkv: 2, G: 1, Sq: 3, Lens: []int64{300, 4}},
	} {
		in := Draw(r, c)
		for _, scale := range []float64{0, 0.3} {
			for m, vis := range []func(t, hh, j int) bool{
				nil,
				func(t, hh, j int) bool { return (t*7+hh*3+j*j)%5 != 0 },
				func(t, hh, j int) bool { return t%3 != 1 && (j/16+hh)%2 == 0 },
			} {
				wo, wl := referenceOneKey(in, c.Sq, scale, vis)
				o, l := Reference(in, c.Sq, scale, vis)
				for k := range wo {
					if math.Float64bits(o[k]) != math.Float64bits(wo[k]) {
						t.Fatalf("case %d scale %v mask %d: o[%d] = %v, one key at a time %v", i, scale, m, k, o[k], wo[k])
					}
				}
				for k := range wl {
					if math.Float64bits(l[k]) != math.Float64bits(wl[k]) {
						t.Fatalf("case %d scale %v mask %d: lse[%d] = %v, one key at a time %v", i, scale, m, k, l[k], wl[k])
					}
				}
			}
		}
	}
}

// referenceOneKey is Reference as it was written first: each query row
// gathers its keys from the pages itself and takes them one at a time.
func referenceOneKey(in *Inputs, sq int, scale float64, vis func(t, hh, j int) bool) (o, lse []float64) {
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
				sc[j] = dotOneKey(qv, kv) * qs * kScale(blk, j%page, h) * scale
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

// dotOneKey is dot as referenceOneKey calls it.
func dotOneKey(a, b []float64) float64 {
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

package decode

import (
	"math/rand/v2"

	"github.com/tlego/tle/kernels/attention/paged/pagedtest"
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
	scale   float64 // Params.Scale (0: the default)
	ctas    int     // Params.CTAs (0: the default)
	cluster int     // Params.Cluster (0: the policy's)
	sms     int     // Params.SMs (0: tle.H200's)
	sched   string  // Params.Schedule ("": the policy's)
}

// made is a case's inputs and parameters.
type made struct {
	in *Inputs
	p  Params
}

// makeCase draws case c's inputs (pagedtest.Draw: NaN in every cache slot
// no request reads, garbage ids past each request's pages) and its
// parameters.
func makeCase(r *rand.Rand, c decodeCase) made {
	d := pagedtest.Draw(r, pagedtest.Case{FP8: c.fp8, Quant: c.quant, NHD: c.nhd, Page: c.page, Hkv: c.hkv, G: c.g, Sq: c.sq, Lens: c.lens})
	in := &Inputs{Q: d.Q, KCache: d.KCache, VCache: d.VCache, BlockIDs: d.BlockIDs, KVLens: d.KVLens, QScale: d.QScale, KScale: d.KScale, VScale: d.VScale}
	p := Params{Layout: d.Layout, DType: d.DType, QuantType: d.Quant, Sq: c.sq, Splits: c.splits, Scale: c.scale, CTAs: c.ctas, Cluster: c.cluster, SMs: c.sms, Schedule: c.sched}
	return made{in: in, p: p}
}

// reference is decode attention in float64 (pagedtest.Reference) on the
// inputs and parameters of a call: o [B*Sq, Hq, 128] and the natural-log
// LSE [B*Sq, Hq].
func reference(in *Inputs, p Params) (o, lse []float64) {
	return pagedtest.Reference(&pagedtest.Inputs{Q: in.Q, KCache: in.KCache, VCache: in.VCache, QScale: in.QScale, KScale: in.KScale, VScale: in.VScale,
		BlockIDs: in.BlockIDs, KVLens: in.KVLens, Layout: p.Layout, DType: p.DType, Quant: p.QuantType}, p.Sq, p.Scale, nil)
}

package prefill

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tlego/tle/tle"
)

// BenchmarkPrefillInterp times attn_prefill on the interpreter (race check
// on, as always) against its float64 Go reference on issue 32's shape: one
// request of Lq 512 new tokens after a prefix, L 4096 keys, Hq 16, Hkv 2,
// pages of 64, BF16. After a first run (which compiles the kernels) each is timed on its own; x-ref is the interpreter's
// time over the reference's. Slow (tens of seconds): skipped under -short.
//
//	go test ./kernels/attention/prefill -run XXX -bench PrefillInterp -benchtime 1x
func BenchmarkPrefillInterp(b *testing.B) {
	if testing.Short() {
		b.Skip("tens of seconds a run; not under -short")
	}
	in, p := makePrefill(rand.New(rand.NewPCG(5, 6)), prefillCase{page: 64, hkv: 2, g: 8, qlens: []int64{512}, lens: []int64{4096}})
	if _, err := Run(tle.CPU(), in, p); err != nil { // compiles the kernels
		b.Fatal(err)
	}
	var interp, ref time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := Run(tle.CPU(), in, p); err != nil {
			b.Fatal(err)
		}
		interp += time.Since(start)
		start = time.Now()
		prefillReference(in, p)
		ref += time.Since(start)
	}
	b.ReportMetric(interp.Seconds()/float64(b.N), "interp-s/op")
	b.ReportMetric(ref.Seconds()/float64(b.N), "ref-s/op")
	b.ReportMetric(interp.Seconds()/ref.Seconds(), "x-ref")
}

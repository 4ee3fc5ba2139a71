package decode

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tlego/tle/tle"
)

// BenchmarkDecodeInterp times attn_decode on the interpreter (race check
// on, as always) against its float64 Go reference on issue 32's shape: B 4
// of 2560 tokens (10k in all), Hq 16, Hkv 2, pages of 64, BF16, Sq 1. After a first run (which compiles the kernels) each
// is timed on its own; x-ref is the interpreter's time over the
// reference's. Slow (seconds): skipped under -short.
//
//	go test ./kernels/attention/decode -run XXX -bench DecodeInterp -benchtime 1x
func BenchmarkDecodeInterp(b *testing.B) {
	if testing.Short() {
		b.Skip("seconds a run; not under -short")
	}
	m := makeCase(rand.New(rand.NewPCG(3, 4)), decodeCase{page: 64, hkv: 2, g: 8, sq: 1, lens: []int64{2560, 2560, 2560, 2560}})
	if _, err := Run(tle.CPU(), m.in, m.p); err != nil { // compiles the kernels
		b.Fatal(err)
	}
	var interp, ref time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := Run(tle.CPU(), m.in, m.p); err != nil {
			b.Fatal(err)
		}
		interp += time.Since(start)
		start = time.Now()
		reference(m.in, m.p)
		ref += time.Since(start)
	}
	b.ReportMetric(interp.Seconds()/float64(b.N), "interp-s/op")
	b.ReportMetric(ref.Seconds()/float64(b.N), "ref-s/op")
	b.ReportMetric(interp.Seconds()/ref.Seconds(), "x-ref")
}

package attention

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// tolerances of the spec: o and the LSE.
const (
	bf16TolO, bf16TolLSE = 0.016, 0.01
	fp8TolO, fp8TolLSE   = 0.1, 0.05
)

func runCase(t *testing.T, dev tle.Device, r *rand.Rand, c decodeCase) (eo, el float64) {
	t.Helper()
	m := makeCase(r, c)
	start := time.Now()
	out, err := Decode(dev, m.in, m.p)
	require.NoError(t, err, c.name)
	wo, wl := reference(m.in, m.p)
	eo, el = maxAbs(out.O.Data, wo), maxAbs(out.LSE.Data, wl)
	to, tl := bf16TolO, bf16TolLSE
	if c.fp8 {
		to, tl = fp8TolO, fp8TolLSE
	}
	t.Logf("%s on %s: max |o err| %.4g, max |lse err| %.4g (%v)", c.name, dev.Name(), eo, el, time.Since(start).Round(time.Millisecond))
	require.LessOrEqual(t, eo, to, "%s on %s: o", c.name, dev.Name())
	require.LessOrEqual(t, el, tl, "%s on %s: lse", c.name, dev.Name())
	return eo, el
}

func TestDecodeQuick(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []decodeCase{
		{name: "bf16", page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{70}, splits: 1},
		{name: "bf16 p16", page: 16, hkv: 2, g: 8, sq: 2, lens: []int64{100, 3}, splits: 2, nhd: true},
		{name: "fp8 q1", fp8: true, quant: 1, page: 32, hkv: 1, g: 8, sq: 3, lens: []int64{130}, splits: 2},
		{name: "fp8 q0", fp8: true, quant: 0, page: 64, hkv: 1, g: 4, sq: 4, lens: []int64{67, 5}, splits: 3, nhd: true},
	} {
		runCase(t, tle.CPU(), r, c)
	}
}

var _ = fmt.Sprint

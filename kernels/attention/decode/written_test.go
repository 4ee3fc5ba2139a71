package decode

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCachesNotWritten: launchArgs hands the caller's caches to the
// kernels without a copy, which is sound because Run copies back only the
// arguments a kernel may write (Kernel.Writes) and neither kernel writes
// k or v, on each path (BF16, FP8 quant 0 and 1, the dynamic schedule, the
// cluster merge).
func TestCachesNotWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []decodeCase{
		{name: "bf16", page: 64, hkv: 1, g: 4, sq: 1, lens: []int64{70}, splits: 2},
		{name: "fp8 q0", fp8: true, quant: 0, page: 32, hkv: 2, g: 4, sq: 2, lens: []int64{100, 3}, splits: 2},
		{name: "fp8 q1", fp8: true, quant: 1, page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{130}, splits: 2},
		{name: "dynamic", page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{300, 5, 130}, sms: 1, ctas: 3, sched: ScheduleDynamic},
		{name: "cluster", page: 64, hkv: 1, g: 8, sq: 1, lens: []int64{900}, splits: 4, cluster: 2},
	} {
		m := makeCase(r, c)
		d, err := Validate(m.in, m.p)
		require.NoError(t, err, c.name)
		pl := Plan(d)
		dk, ck, err := pl.kernels()
		require.NoError(t, err, c.name)
		dw, err := dk.Writes(pl.DecodeOptions())
		require.NoError(t, err, c.name)
		cw, err := ck.Writes(pl.CombineOptions())
		require.NoError(t, err, c.name)
		for _, name := range append(dw, cw...) {
			require.NotContains(t, []string{"k", "v"}, name, "%s: a kernel writes a cache", c.name)
		}
		require.NotEmpty(t, dw, c.name)
	}
}

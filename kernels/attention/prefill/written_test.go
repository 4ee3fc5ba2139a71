package prefill

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCachesNotWritten: Run hands the caller's caches to the kernel
// without a copy, which is sound because Run copies back only the
// arguments the kernel may write (Kernel.Writes) and no prefill kernel
// writes k or v: BF16 (pages of 32 and 64, one page and 128 keys a step,
// with a block mask) and FP8 quant 0 and 1.
func TestCachesNotWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		prefillCase
		mask bool
	}{
		{prefillCase: prefillCase{name: "bf16 p32", page: 32, hkv: 1, g: 4, qlens: []int64{40}, lens: []int64{90}}},
		{prefillCase: prefillCase{name: "bf16 p64", page: 64, hkv: 1, g: 8, qlens: []int64{130}, lens: []int64{300}}},
		{prefillCase: prefillCase{name: "bf16 p64 one page a step", page: 64, hkv: 1, g: 8, qlens: []int64{30}, lens: []int64{100}, ks: 64}},
		{prefillCase: prefillCase{name: "bf16 masked", page: 64, hkv: 1, g: 4, qlens: []int64{200}, lens: []int64{300}}, mask: true},
		{prefillCase: prefillCase{name: "fp8 q0", fp8: true, quant: 0, page: 64, hkv: 1, g: 8, qlens: []int64{7}, lens: []int64{200}}},
		{prefillCase: prefillCase{name: "fp8 q1", fp8: true, quant: 1, page: 32, hkv: 1, g: 4, qlens: []int64{3}, lens: []int64{100}}},
	} {
		in, p := makePrefill(r, c.prefillCase)
		if c.mask {
			in.BlockMask = randomMask(r, in, 0.5, true)
		}
		d, err := Validate(in, p)
		require.NoError(t, err, c.name)
		pl := Plan(d)
		k, err := Kernel(pl.Kernel)
		require.NoError(t, err, c.name)
		w, err := k.Writes(pl.Options())
		require.NoError(t, err, c.name)
		require.NotEmpty(t, w, c.name)
		for _, name := range w {
			require.NotContains(t, []string{"k", "v"}, name, "%s: %s writes a cache", c.name, pl.Kernel)
		}
	}
}

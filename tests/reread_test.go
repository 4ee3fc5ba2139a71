package tests

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// rereadSrc exercises the layout pass's re-reads of shared memory
// (passes/testdata/layouts/reread.tir): on 2 warps the [16, 128] tile read
// from buf lives in the scan's layout ([16, 2] a thread), the cumsum runs
// in registers and the product goes to global memory as it is; on 4 warps
// the whole column of 16 is a thread's. Both devices must agree with the
// float64 reference.
const rereadSrc = `
kernel reread(x *bf16, g *f32, out *f32, sums *f32) {
    buf := alloc([16, 128], bf16)
    r := arange(0, 16)
    c := arange(0, 128)
    offs := r[:, None]*128 + c[None, :]
    store(buf, load(x + offs))
    gv := load(g + c)
    a := load(buf).to(f32)*2.0 + gv[None, :]
    G := cumsum(a, axis: 0)
    e := G * load(buf).to(f32)
    store(out + offs, e)
    store(sums + c, sum(G, axis: 0))
}
`

func TestRereadLayoutsRun(t *testing.T) {
	prog, err := tle.Parse("reread.tle", []byte(rereadSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("reread")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(41, 42))
	x, g := bf16Randn(r, 16*128), tletest.Round(ir.F32, tletest.Randn(r, 128))
	want, wantSums := make([]float64, 16*128), make([]float64, 128)
	for j := 0; j < 128; j++ {
		run := 0.0
		for i := 0; i < 16; i++ {
			run += x[i*128+j]*2 + g[j]
			want[i*128+j] = run * x[i*128+j]
			wantSums[j] += run
		}
	}
	for _, warps := range []int{2, 4} {
		for _, dev := range tletest.Devices(t) {
			out, sums := tle.NewTensor(16*128), tle.NewTensor(128)
			err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: warps}, map[string]any{
				"x": &tle.Tensor{Shape: []int{16 * 128}, Data: x}, "g": &tle.Tensor{Shape: []int{128}, Data: g},
				"out": out, "sums": sums})
			require.NoError(t, err, "%s, %d warps", dev.Name(), warps)
			require.Less(t, tletest.RelRMS(out.Data, want), 1e-6, "%s, %d warps", dev.Name(), warps)
			require.Less(t, tletest.RelRMS(sums.Data, wantSums), 1e-6, "%s, %d warps", dev.Name(), warps)
		}
	}
}

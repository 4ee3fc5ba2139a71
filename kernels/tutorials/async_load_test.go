package tutorials

import (
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// asyncLoadDefs are the bindings of the async_load tests (and of its line in
// tools/build-ptx.sh).
var asyncLoadDefs = map[string]string{"N": "96", "BM": "16", "BN": "128"}

func TestAsyncLoad(t *testing.T) {
	k := kernel(t, "async_load.tle", "async_load")
	r := rand.New(rand.NewPCG(11, 12))
	const M, N, BM, BN = 37, 96, 16, 128 // M is not a multiple of BM; columns N..BN read as 1.0
	for _, dev := range devices(t, "async_load") {
		x, y := round(ir.F32, randn(r, M*N)), round(ir.F32, randn(r, M*N))
		out := poison(M * N)
		err := k.Run(dev, [3]int{cdiv(M, BM), 1, 1}, tle.CompileOptions{Defines: asyncLoadDefs},
			map[string]any{"x": &tle.Tensor{Shape: []int{M, N}, Data: x}, "y": &tle.Tensor{Shape: []int{M, N}, Data: y}, "out": out, "M": M})
		require.NoError(t, err, dev.Name())
		want := make([]float64, M*N)
		for i := 0; i < M; i++ {
			s := float64(BN - N) // the padding columns, other = 1.0
			for j := 0; j < N; j++ {
				s += x[i*N+j]
			}
			for j := 0; j < N; j++ {
				want[i*N+j] = 2*x[i*N+j] + math.Exp(y[i*N+j])/2 + s
			}
		}
		require.Less(t, relRMS(out.Data, want), 1e-5, dev.Name())
	}
}

// TestAsyncLoadPTX checks that the async load is a cp.async copy with its
// commit and wait groups (llc-19, as CI does).
func TestAsyncLoadPTX(t *testing.T) {
	tletest.NeedLLC(t)
	k := kernel(t, "async_load.tle", "async_load")
	b, err := k.Compile(tle.CompileOptions{Defines: asyncLoadDefs}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for _, w := range []string{`cp\.async\.(cg|ca)\.shared\.global\s+\[`, `cp\.async\.commit_group;`, `cp\.async\.wait_group 0;`, `ld\.shared\.v4\.(f32|b32)\s+\{`} {
		require.Regexp(t, tletest.PTXLine(w), b.PTX, "no %s", w)
	}
	// the copy is issued before the independent load of y, the wait after it
	cp := regexp.MustCompile(`cp\.async\.commit_group`).FindStringIndex(b.PTX)
	ld := regexp.MustCompile(`ld\.global\.v4`).FindStringIndex(b.PTX)
	wt := regexp.MustCompile(`cp\.async\.wait_group`).FindStringIndex(b.PTX)
	require.True(t, cp[0] < ld[0] && ld[0] < wt[0], "commit %d, load of y %d, wait %d", cp[0], ld[0], wt[0])
}

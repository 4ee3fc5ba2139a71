package tutorials

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// layerNormBwdRef is the layer norm backward in float64: for y = xhat * w
// + b with xhat = (x - mean) * rstd over each row of x [rows, cols], the
// gradients of sum(y * dy): dx [rows, cols], dw and db [cols]; also the
// rows' mean and rstd (the forward's outputs the backward reads).
func layerNormBwdRef(rows, cols int, x, w, dy []float64, eps float64) (dx, dw, db, mean, rstd []float64) {
	dx, dw, db = make([]float64, rows*cols), make([]float64, cols), make([]float64, cols)
	mean, rstd = make([]float64, rows), make([]float64, rows)
	xhat := make([]float64, cols)
	for i := 0; i < rows; i++ {
		xr, dyr := x[i*cols:(i+1)*cols], dy[i*cols:(i+1)*cols]
		for _, v := range xr {
			mean[i] += v
		}
		mean[i] /= float64(cols)
		variance := 0.0
		for _, v := range xr {
			variance += (v - mean[i]) * (v - mean[i])
		}
		rstd[i] = 1 / math.Sqrt(variance/float64(cols)+eps)
		c1, c2 := 0.0, 0.0
		for j, v := range xr {
			xhat[j] = (v - mean[i]) * rstd[i]
			c1 += xhat[j] * w[j] * dyr[j]
			c2 += w[j] * dyr[j]
			dw[j] += dyr[j] * xhat[j]
			db[j] += dyr[j]
		}
		c1 /= float64(cols)
		c2 /= float64(cols)
		for j := range xr {
			dx[i*cols+j] = (w[j]*dyr[j] - (xhat[j]*c1 + c2)) * rstd[i]
		}
	}
	return dx, dw, db, mean, rstd
}

// TestLayerNormBwd runs Triton's layer-norm backward (tutorial 05) on the
// interpreter (TestLayerNormBwdGPU on the GPU): the dx kernel with its lock-protected partial sums of dw
// and db over GROUP_SIZE_M buffers, then the column sums, against the
// float64 gradients of the same inputs (x, w, dy rounded to T), in f16 (the
// tutorial's dtype) and f32. 100 rows over 40 buffers: each buffer sums 2
// or 3 rows in an order the lock decides; the dwdb kernel's BLOCK_SIZE_M 32
// masks the second of its two row blocks; 300 columns mask the tails of
// both kernels' column blocks. The partial buffers start as NaN (Triton's
// torch.empty): the first program of a buffer must store, not add. The
// locks and counts must be left released (0) and set (1).
//
// Error bounds (relative RMS over all elements): in f32 everything is f32
// arithmetic on a few hundred terms, 1e-5 (measured near 1e-7). In f16, dx
// is computed in f32 and rounded once to f16 (2^-11 relative at most,
// about 2.8e-4 RMS): bound 1e-3. dw and db are rounded to f16 each time a
// program stores its buffer (up to 3 times) and once more at the end, each
// rounding up to 2^-11 of the running sum: 4 roundings, bound 2e-3. A wrong
// xhat (a mean 1% off) or a lost row (a race) is far above both.
func TestLayerNormBwd(t *testing.T) { checkLayerNormBwd(t, tle.CPU()) }

// TestLayerNormBwdGPU is TestLayerNormBwd on the GPU; it skips without one
// (tletest.GPU).
func TestLayerNormBwdGPU(t *testing.T) {
	g := tletest.GPU(t)
	checkLayerNormBwd(t, g)
}

func checkLayerNormBwd(t *testing.T, dev tle.Device) {
	dx := kernel(t, "layer_norm_bwd.tle", "layer_norm_bwd_dx_fused")
	dwdb := kernel(t, "layer_norm_bwd.tle", "layer_norm_bwd_dwdb")
	const rows, cols, group, eps = 100, 300, 40, 1e-5
	r := rand.New(rand.NewPCG(5, 35))
	for _, c := range []struct {
		dt            ir.DType
		tdx, tdw, tdb float64
	}{{ir.F16, 1e-3, 2e-3, 2e-3}, {ir.F32, 1e-5, 1e-5, 1e-5}} {
		name := c.dt.String()
		x := randn(r, rows*cols)
		for i := range x {
			x[i] = -2.3 + 0.5*x[i]
		}
		x = round(c.dt, x)
		w := make([]float64, cols)
		for i := range w {
			w[i] = r.Float64()
		}
		w = round(c.dt, w)
		dy := randn(r, rows*cols)
		for i := range dy {
			dy[i] *= 0.1
		}
		dy = round(c.dt, dy)
		b := round(c.dt, randn(r, cols))
		wantDX, wantDW, wantDB, mean, rstd := layerNormBwdRef(rows, cols, x, w, dy, eps)
		{
			what := fmt.Sprintf("%s on %s", name, dev.Name())
			gotDX, pdw, pdb := poison(rows*cols), poison(group*cols), poison(group*cols)
			lock := tle.NewTensor(2 * group)
			err := dx.Run(dev, [3]int{rows, 1, 1}, tle.CompileOptions{Defines: map[string]string{"T": name, "GROUP_SIZE_M": fmt.Sprint(group), "BLOCK_SIZE_N": "512"}, NumWarps: 2},
				map[string]any{"DX": gotDX, "DY": &tle.Tensor{Shape: []int{rows, cols}, Data: dy}, "DW": pdw, "DB": pdb,
					"X": &tle.Tensor{Shape: []int{rows, cols}, Data: x}, "W": &tle.Tensor{Shape: []int{cols}, Data: w}, "B": &tle.Tensor{Shape: []int{cols}, Data: b},
					"Mean": &tle.Tensor{Shape: []int{rows}, Data: round(ir.F32, mean)}, "Rstd": &tle.Tensor{Shape: []int{rows}, Data: round(ir.F32, rstd)},
					"Lock": lock, "stride": cols, "N": cols, "eps": eps})
			require.NoError(t, err, what)
			for i, v := range lock.Data {
				require.Equal(t, float64(i/group), v, "%s: Lock[%d] (locks released, counts set)", what, i)
			}
			gotDW, gotDB := poison(cols), poison(cols)
			err = dwdb.Run(dev, [3]int{cdiv(cols, 128), 1, 1}, tle.CompileOptions{Defines: map[string]string{"T": name, "BLOCK_SIZE_M": "32", "BLOCK_SIZE_N": "128"}},
				map[string]any{"DW": pdw, "DB": pdb, "FINAL_DW": gotDW, "FINAL_DB": gotDB, "M": group, "N": cols})
			require.NoError(t, err, what)
			edx, edw, edb := relRMS(gotDX.Data, wantDX), relRMS(gotDW.Data, wantDW), relRMS(gotDB.Data, wantDB)
			t.Logf("%s: relative RMS error of dx %.3g, dw %.3g, db %.3g", what, edx, edw, edb)
			require.Less(t, edx, c.tdx, "%s: dx", what)
			require.Less(t, edw, c.tdw, "%s: dw", what)
			require.Less(t, edb, c.tdb, "%s: db", what)
		}
	}
}

// TestLayerNormBwdPTX compiles both kernels through llc-19: the lock's
// acq_rel compare-and-swap and release exchange with the barrier before
// it, and the reductions' shuffles.
func TestLayerNormBwdPTX(t *testing.T) {
	tletest.NeedLLC(t)
	t.Parallel()
	b, err := kernel(t, "layer_norm_bwd.tle", "layer_norm_bwd_dx_fused").Compile(tle.CompileOptions{
		Defines: map[string]string{"T": "f16", "GROUP_SIZE_M": "64", "BLOCK_SIZE_N": "1024"}}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for _, w := range []string{`atom\.acq_rel\.gpu\.global\.cas\.b32 `, `atom\.acq_rel\.gpu\.global\.exch\.b32 `, `shfl\.sync\.bfly\.b32\s`} {
		require.Regexp(t, tletest.PTXLine(w), b.PTX, "dx: no %s", w)
	}
	// the release is the last exchange; a barrier comes between the last
	// store of DW / DB and it
	exch := tletest.PTXLine(`@%p atom\.acq_rel\.gpu\.global\.exch\.b32 `).FindAllStringIndex(b.PTX, -1)
	require.Len(t, exch, 2, "the count's and the lock's exchanges")
	before := b.PTX[:exch[1][0]]
	bars := tletest.PTXLine(`bar\.sync\s+0;`).FindAllStringIndex(before, -1)
	stores := tletest.PTXLine(`(@%p\s+)?st\.global(\.\w+)*\s`).FindAllStringIndex(before, -1)
	require.NotEmpty(t, bars)
	require.NotEmpty(t, stores)
	require.Greater(t, bars[len(bars)-1][0], stores[len(stores)-1][0], "no barrier between the stores of DW, DB and the release")
	b, err = kernel(t, "layer_norm_bwd.tle", "layer_norm_bwd_dwdb").Compile(tle.CompileOptions{
		Defines: map[string]string{"T": "f16", "BLOCK_SIZE_M": "32", "BLOCK_SIZE_N": "128"}}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	for _, w := range []string{`ld\.global(\.\w+)*\s`, `st\.global(\.\w+)*\s`} {
		require.Regexp(t, tletest.PTXLine(w), b.PTX, "dwdb: no %s", w)
	}
}

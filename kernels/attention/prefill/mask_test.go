package prefill

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/attention/paged/pagedtest"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// randomMask draws a block mask for in: each 128 x 128 tile on with
// probability density, the diagonal tile of each q tile (the one holding
// its last row's causal limit) forced on when keepDiag.
func randomMask(r *rand.Rand, in *Inputs, density float64, keepDiag bool) *tle.Tensor {
	hq := in.Q.Shape[1]
	B := len(in.CuSeqlensQ) - 1
	maxQ, maxL := int64(0), int64(0)
	for b := range B {
		maxQ = max(maxQ, in.CuSeqlensQ[b+1]-in.CuSeqlensQ[b])
		maxL = max(maxL, in.KVLens[b])
	}
	qt, kt := int((maxQ+127)/128), int((maxL+127)/128)
	m := tle.NewTensor(B, hq, qt, kt)
	for b := range B {
		lq, L := in.CuSeqlensQ[b+1]-in.CuSeqlensQ[b], in.KVLens[b]
		for h := range hq {
			for i := range qt {
				for j := range kt {
					if r.Float64() < density {
						m.Data[((b*hq+h)*qt+i)*kt+j] = 1
					}
				}
				last := min(int64(i*128+127), lq-1)
				if keepDiag && int64(i*128) < lq {
					m.Data[((b*hq+h)*qt+i)*kt+int((L-lq+last)/128)] = 1
				}
			}
		}
	}
	return m
}

func runMasked(t *testing.T, devs []tle.Device, r *rand.Rand, c prefillCase, density float64, keepDiag bool, edit func(in *Inputs)) {
	t.Helper()
	in, p := makePrefill(r, c)
	in.BlockMask = randomMask(r, in, density, keepDiag)
	if edit != nil {
		edit(in)
	}
	wo, wl := prefillReference(in, p)
	for _, dev := range devs {
		out, err := Run(dev, in, p)
		require.NoError(t, err, "%s on %s", c.name, dev.Name())
		for _, x := range out.O.Data {
			if math.IsNaN(x) { // require only on a failure: a call an element costs more than the runs
				require.False(t, math.IsNaN(x), "%s: NaN in o", c.name)
			}
		}
		pagedtest.RequireClose(t, c.name+" on "+dev.Name(), "", out.O.Data, out.LSE.Data, wo, wl, c.fp8)
	}
}

// TestPrefillMask: random block masks (density 0.3, with and without the
// diagonal kept) on varlen batches, BF16 and FP8, pages 64 and 32, NHD and
// HND, against the float64 reference that hides the masked tiles.
func TestPrefillMask(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(61, 62))
	i := 0
	for _, fp8 := range []bool{false, true} {
		for _, page := range []int{64, 32} {
			for _, keep := range []bool{true, false} {
				c := prefillCase{fp8: fp8, quant: i % 2, page: page, nhd: i%2 == 0, hkv: 1, g: 4,
					qlens: []int64{200, 9}, lens: []int64{520, 300}}
				c.name = fmt.Sprintf("mask fp8 %v page %d keep diag %v", fp8, page, keep)
				i++
				runMasked(t, devs, r, c, 0.3, keep, nil)
				if fp8 { // the other FP8 walk: one page a step at 64, 128 keys at 32
					c.ks = KeyStep
					if page == 64 {
						c.ks = 64
					}
					c.name += fmt.Sprintf(" key step %d", c.ks)
					runMasked(t, devs, r, c, 0.3, keep, nil)
				}
			}
		}
	}
	// past the producer's 64 staged page ids (pages of 16, 300 pages)
	c := prefillCase{name: "mask page 16 L 4800 Lq 5", page: 16, hkv: 1, g: 4, qlens: []int64{5}, lens: []int64{4800}}
	runMasked(t, devs, r, c, 0.6, true, nil)
}

// TestPrefillMaskEmptyTile: a q tile whose mask row is all 0 gives o 0
// and lse -inf on its rows (never NaN); the other tile is dense.
func TestPrefillMaskEmptyTile(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(63, 64))
	for _, c := range []prefillCase{
		{name: "empty q tile bf16", page: 64},
		{name: "empty q tile fp8 (128 keys a step)", fp8: true, page: 64},
		{name: "empty q tile fp8 one page a step", fp8: true, page: 64, ks: 64},
		{name: "empty q tile fp8 q0 page 32, 128 keys a step", fp8: true, page: 32, ks: KeyStep},
	} {
		c.hkv, c.g, c.qlens, c.lens = 1, 4, []int64{150}, []int64{300}
		runMasked(t, devs, r, c, 1, true, func(in *Inputs) {
			m := in.BlockMask // [1, 4, 2, 3]: q tile 1 of head 2 sees nothing
			for kt := range 3 {
				m.Data[(2*2+1)*3+kt] = 0
			}
		})
	}
	in, p := makePrefill(r, prefillCase{page: 32, hkv: 1, g: 4, qlens: []int64{150}, lens: []int64{300}})
	in.BlockMask = tle.NewTensor(1, 4, 2, 3)
	out, err := Run(tle.CPU(), in, p)
	require.NoError(t, err)
	for _, x := range out.O.Data {
		if x != 0 {
			require.Equal(t, 0.0, x)
		}
	}
	for _, x := range out.LSE.Data {
		if !math.IsInf(x, -1) {
			require.True(t, math.IsInf(x, -1))
		}
	}
}

// TestPrefillBF16KeyStepMask: BF16 block masks at 128 keys a step (a step
// is one mask tile) and one page a step on the same inputs: random masks
// with and without the diagonal, NHD and HND, and a q tile whose mask row
// is all 0 (o 0, lse -inf on its rows at both steps).
func TestPrefillBF16KeyStepMask(t *testing.T) {
	t.Parallel()
	devs := tletest.Devices(t)
	r := rand.New(rand.NewPCG(65, 66))
	for i, keep := range []bool{true, false} {
		in, p := makePrefill(r, prefillCase{page: 64, nhd: i == 0, hkv: 1, g: 4, qlens: []int64{200, 9}, lens: []int64{520, 300}})
		in.BlockMask = randomMask(r, in, 0.3, keep)
		runBF16KeySteps(t, devs, fmt.Sprintf("mask bf16 keep diag %v", keep), in, p)
	}
	in, p := makePrefill(r, prefillCase{page: 64, hkv: 1, g: 4, qlens: []int64{150}, lens: []int64{300}})
	in.BlockMask = randomMask(r, in, 1, true)
	m := in.BlockMask // [1, 4, 2, 3]: q tile 1 of head 2 sees nothing
	for kt := range 3 {
		m.Data[(2*2+1)*3+kt] = 0
	}
	for ks, out := range runBF16KeySteps(t, devs, "empty q tile bf16", in, p) {
		for tk := 128; tk < 150; tk++ {
			require.Equal(t, 0.0, out.O.Data[(tk*4+2)*paged.HeadDim], "key step %d row %d", ks, tk)
			require.True(t, math.IsInf(out.LSE.Data[tk*4+2], -1), "key step %d row %d", ks, tk)
		}
	}
}

// TestValidatePrefillMask: a mask of the wrong shape or with a value
// other than 0 and 1 is refused, naming block_mask.
func TestValidatePrefillMask(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *tle.Tensor
	}{
		{"rank", tle.NewTensor(2, 8, 1)},
		{"q tiles", tle.NewTensor(2, 8, 2, 1)},
		{"key tiles", tle.NewTensor(2, 8, 1, 2)},
		{"heads", tle.NewTensor(2, 4, 1, 1)},
		{"value 2", &tle.Tensor{Shape: []int{2, 8, 1, 1}, Data: []float64{1, 0, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}}},
		{"short data", &tle.Tensor{Shape: []int{2, 8, 1, 1}, Data: []float64{1}}},
	} {
		r := rand.New(rand.NewPCG(37, 38))
		in, p := makePrefill(r, prefillCase{page: 32, hkv: 2, g: 4, nhd: true, qlens: []int64{30, 2}, lens: []int64{40, 2}})
		in.BlockMask = tle.NewTensor(2, 8, 1, 1)
		_, err := Validate(in, p)
		require.NoError(t, err, c.name)
		in.BlockMask = c.m
		_, err = Validate(in, p)
		var ae *paged.ArgError
		require.True(t, errors.As(err, &ae), "%s: want an paged.ArgError, got %v", c.name, err)
		require.Equal(t, "block_mask", ae.Arg, "%s: %v", c.name, err)
	}
}

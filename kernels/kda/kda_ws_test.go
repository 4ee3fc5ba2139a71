package kda

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// TestAccuracyWS runs TestAccuracy's cases (several H, T with tails,
// varlen with an empty sequence and ones shorter than a chunk, K != V,
// padded heads, both state dtypes, V blocks, the preparation's K blocks,
// the fast variant) through the forward pass with the warp-specialised
// recurrence (Params.Rec = RecWS) on the interpreter, whose pipe, race and
// deadlock checks run on every launch, against the float64 reference with
// TestAccuracy's bounds (relative RMS 0.005; 0.01 for a bf16 final state),
// and checks that it computes what kda_rec computes: the same products in
// the same order, so the same bits on the interpreter. On a GPU
// (TLE_REQUIRE_GPU=1 on the host) it runs there too, for compute-sanitizer.
func TestAccuracyWS(t *testing.T) {
	for _, dev := range devices(t) {
		for i, c := range accCases {
			accuracyWS(t, dev, i, c)
		}
	}
}

// accuracyWS is TestAccuracyWS's case i on dev: the bit-for-bit check
// against kda_rec on the interpreter only (on the GPU the two kernels'
// products may be laid out differently).
func accuracyWS(t *testing.T, dev tle.Device, i int, c accCase) {
	t.Run(dev.Name()+"/"+c.name, func(t *testing.T) {
		r := rand.New(rand.NewPCG(uint64(i+1), 0x6b6461))
		B := c.B
		if c.cu != nil {
			B = 1
		}
		in := randomInputs(r, B, c.T, c.H, c.K, c.V, c.cu, c.h0, c.state)
		p := Params{Scale: DefaultScale(c.K), LowerBound: -5, StateDType: c.state, FinalState: true, BlockV: c.bv, Fast: c.fast,
			PrepWarps: c.warps, PrepBlockK: c.kb, Rec: RecWS}
		out, err := Forward(dev, in, p)
		require.NoError(t, err)
		o, ht := reference(in, p)
		eo, eh := relRMS(out.O.Data, o), relRMS(out.HT.Data, ht)
		t.Logf("kda_rec_ws: relative RMS error o %.5f, final state %.5f", eo, eh)
		tolH := 0.005
		if c.state == StateBF16 {
			tolH = 0.01
		}
		require.LessOrEqual(t, eo, 0.005, "o")
		require.LessOrEqual(t, eh, tolH, "final state")

		if _, gpu := dev.(*tle.GPU); gpu {
			return
		}
		p.Rec = RecDefault
		def, err := Forward(tle.CPU(), in, p)
		require.NoError(t, err)
		require.Equal(t, def.O.Data, out.O.Data, "o as kda_rec computes it")
		require.Equal(t, def.HT.Data, out.HT.Data, "the final state as kda_rec computes it")
	})
}

// TestRecWSBuildsForGPU compiles kda_rec_ws to LLVM IR for NVPTX (no GPU or
// LLVM needed) for TestBuildsForGPU's specialisations: the chunk's products
// on mma.sync, the pipes on mbarriers.
func TestRecWSBuildsForGPU(t *testing.T) {
	_, recK, err := KernelsFor(RecWS)
	require.NoError(t, err)
	for _, c := range []struct {
		K, V, bv int
		h0       bool
		p        Params
	}{
		{128, 128, 64, false, Params{StateDType: StateBF16, FinalState: true, Fast: true, Rec: RecWS}},
		{128, 128, 16, false, Params{StateDType: StateF32, Rec: RecWS}},
		{48, 80, 16, true, Params{StateDType: StateF32, FinalState: true, Rec: RecWS}},
	} {
		d := &Dims{B: 1, T: 64, H: 4, K: c.K, V: c.V, N: 1}
		_, rec := Launches(d, c.p, c.bv, 4, c.h0)
		a, err := recK.Build(rec.Options(), tle.GPUOptions{}, "ll")
		require.NoError(t, err, "%v", rec.Defines)
		require.Contains(t, a.LLVMIR, "mma.sync", "%v", rec.Defines)
		require.Contains(t, a.LLVMIR, "mbarrier", "%v", rec.Defines)
	}
}

// Params.Rec names kda_rec or kda_rec_ws; anything else is an error naming
// it.
func TestRecParam(t *testing.T) {
	_, k, err := KernelsFor(RecWS)
	require.NoError(t, err)
	require.Equal(t, "kda_rec_ws", k.Name())
	_, k, err = KernelsFor(RecDefault)
	require.NoError(t, err)
	require.Equal(t, "kda_rec", k.Name())
	_, _, err = KernelsFor("tma")
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "rec", ae.Arg)
}

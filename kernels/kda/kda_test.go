package kda

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// devices are the interpreter, and the GPU when one is present.
var devices = tletest.Devices

type accCase struct {
	name    string
	B, T, H int
	K, V    int
	cu      []int64 // varlen boundaries (then B = 1)
	h0      bool
	state   string
	bv      int
	fast    bool
	warps   int // the preparation kernel's (0: the default)
	kb      int // PrepBlockK (0: the default)
}

var accCases = []accCase{
	// Fixed length with a tail (53 = 3*16 + 5), no initial state.
	{name: "fixed/no-h0/f32", B: 2, T: 53, H: 2, K: 32, V: 32, state: StateF32},
	{name: "fixed/h0/f32", B: 2, T: 53, H: 2, K: 32, V: 32, h0: true, state: StateF32},
	{name: "fixed/h0/bf16", B: 2, T: 53, H: 2, K: 32, V: 32, h0: true, state: StateBF16},
	{name: "fixed/no-h0/bf16", B: 1, T: 70, H: 2, K: 32, V: 64, state: StateBF16, bv: 32},
	// Varlen with tails, an empty sequence and one shorter than a chunk;
	// K != V and the V columns split over programs.
	{name: "varlen/h0/f32", T: 100, H: 2, K: 64, V: 32, cu: []int64{0, 7, 40, 40, 77, 100}, h0: true, state: StateF32, bv: 16},
	{name: "varlen/no-h0/f32", T: 100, H: 2, K: 64, V: 32, cu: []int64{0, 30, 33, 100}, state: StateF32},
	{name: "varlen/h0/bf16", T: 90, H: 2, K: 32, V: 64, cu: []int64{0, 16, 50, 90}, h0: true, state: StateBF16},
	// Head sizes that are not powers of two: padded, masked lanes.
	{name: "fixed/K48-V80/h0/f32", B: 1, T: 37, H: 2, K: 48, V: 80, h0: true, state: StateF32},
	// FlashKDA's head size.
	{name: "fixed/K128-V128/h0/f32", B: 1, T: 67, H: 2, K: 128, V: 128, h0: true, state: StateF32},
	{name: "fixed/K128-V128/bv32/h0/bf16", B: 1, T: 67, H: 2, K: 128, V: 128, h0: true, state: StateBF16, bv: 32},
	{name: "fixed/K16-V16/h0/f32", B: 1, T: 40, H: 2, K: 16, V: 16, h0: true, state: StateF32},
	// The preparation kernel over K blocks: two of the head, and four
	// of a padded head (48 of 64 columns: the last block all padding),
	// on 2 warps.
	{name: "fixed/K128-V128/kb64/h0/f32", B: 1, T: 67, H: 2, K: 128, V: 128, h0: true, state: StateF32, kb: 64},
	{name: "varlen/K48-V32/kb16/w2/h0/f32", T: 60, H: 2, K: 48, V: 32, cu: []int64{0, 9, 60}, h0: true, state: StateF32, kb: 16, warps: 2},
	// Without the hi/lo split.
	{name: "fast/varlen/h0/f32", T: 100, H: 2, K: 64, V: 64, cu: []int64{0, 21, 100}, h0: true, state: StateF32, fast: true},
}

// TestAccuracy checks o and the final state against the float64 token-by-
// token reference: relative RMS error <= 0.005 (0.01 for a bf16 state).
func TestAccuracy(t *testing.T) {
	t.Parallel()
	for _, dev := range devices(t) {
		for i, c := range accCases {
			t.Run(dev.Name()+"/"+c.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(i+1), 0x6b6461))
				B := c.B
				if c.cu != nil {
					B = 1
				}
				in := randomInputs(r, B, c.T, c.H, c.K, c.V, c.cu, c.h0, c.state)
				p := Params{Scale: DefaultScale(c.K), LowerBound: -5, StateDType: c.state, FinalState: true, BlockV: c.bv, Fast: c.fast,
					PrepWarps: c.warps, PrepBlockK: c.kb}
				out, err := Forward(dev, in, p)
				require.NoError(t, err)
				o, ht := reference(in, p)
				require.Equal(t, []int{B, c.T, c.H, c.V}, out.O.Shape)
				require.Equal(t, len(ht), len(out.HT.Data))
				for _, x := range out.O.Data {
					require.Equal(t, ir.BF16.Round(x), x, "o holds bf16 values")
				}
				if c.state == StateBF16 {
					for _, x := range out.HT.Data {
						require.Equal(t, ir.BF16.Round(x), x, "a bf16 final state holds bf16 values")
					}
				}
				eo, eh := relRMS(out.O.Data, o), relRMS(out.HT.Data, ht)
				t.Logf("relative RMS error: o %.5f, final state %.5f", eo, eh)
				tolH := 0.005
				if c.state == StateBF16 {
					tolH = 0.01
				}
				require.LessOrEqual(t, eo, 0.005, "o")
				require.LessOrEqual(t, eh, tolH, "final state")
			})
		}
	}
}

// TestPaddingTokensLeaveStateAlone: a sequence's final state does not
// depend on what follows it in the batch, and the tail of a chunk does not
// touch o beyond the sequence.
func TestNoFinalStateAndInputsUntouched(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	in := randomInputs(r, 1, 40, 2, 32, 32, []int64{0, 19, 40}, true, StateF32)
	before := append([]float64(nil), in.Q.Data...)
	h0 := append([]float64(nil), in.H0.Data...)
	in.Q.Data[0] = 0.123456789 // not a bf16 value: the kernel rounds its own copy
	before[0] = in.Q.Data[0]
	p := Params{Scale: 0.2, LowerBound: -1, StateDType: StateF32}
	out, err := Forward(tle.CPU(), in, p)
	require.NoError(t, err)
	require.Nil(t, out.HT)
	require.Equal(t, before, in.Q.Data, "Forward must not change its inputs")
	require.Equal(t, h0, in.H0.Data)
	o, _ := reference(in, p)
	require.LessOrEqual(t, relRMS(out.O.Data, o), 0.005)
}

// TestBadInputs: every bad argument is an error that names it.
func TestBadInputs(t *testing.T) {
	good := func() (*Inputs, Params) {
		r := rand.New(rand.NewPCG(1, 1))
		return randomInputs(r, 1, 20, 2, 32, 32, []int64{0, 5, 20}, true, StateF32),
			Params{Scale: 0.1, LowerBound: -5, StateDType: StateF32, FinalState: true}
	}
	in, p := good()
	_, err := Validate(in, p)
	require.NoError(t, err)
	cases := []struct {
		arg    string
		mutate func(in *Inputs, p *Params)
	}{
		{"q", func(in *Inputs, p *Params) { in.Q = nil }},
		{"q", func(in *Inputs, p *Params) { in.Q.Shape = []int{20, 2, 32} }},
		{"k", func(in *Inputs, p *Params) { in.K = tle.NewTensor(1, 20, 2, 16) }},
		{"v", func(in *Inputs, p *Params) { in.V = tle.NewTensor(1, 20, 3, 32) }},
		{"v", func(in *Inputs, p *Params) { in.V = tle.NewTensor(1, 20, 2, 40) }}, // V not a multiple of 16
		{"v", func(in *Inputs, p *Params) { in.V = tle.NewTensor(1, 20, 2, 272) }},
		{"q", func(in *Inputs, p *Params) {
			in.Q, in.K, in.G, in.DtBias = tle.NewTensor(1, 20, 2, 8), tle.NewTensor(1, 20, 2, 8), tle.NewTensor(1, 20, 2, 8), tle.NewTensor(2, 8)
		}},
		{"g", func(in *Inputs, p *Params) { in.G = tle.NewTensor(1, 19, 2, 32) }},
		{"beta", func(in *Inputs, p *Params) { in.Beta = tle.NewTensor(1, 20, 2, 1) }},
		{"A_log", func(in *Inputs, p *Params) { in.ALog = tle.NewTensor(3) }},
		{"dt_bias", func(in *Inputs, p *Params) { in.DtBias = tle.NewTensor(2) }},
		{"dt_bias", func(in *Inputs, p *Params) { in.DtBias.Data = in.DtBias.Data[1:] }},
		{"h0", func(in *Inputs, p *Params) { in.H0 = tle.NewTensor(1, 2, 32, 32) }},
		{"cu_seqlens", func(in *Inputs, p *Params) { in.CuSeqlens = []int64{0, 12, 5, 20} }},
		{"cu_seqlens", func(in *Inputs, p *Params) { in.CuSeqlens = []int64{0, 5, 21} }},
		{"cu_seqlens", func(in *Inputs, p *Params) { in.CuSeqlens = []int64{1, 5, 20} }},
		{"cu_seqlens", func(in *Inputs, p *Params) { in.CuSeqlens = []int64{0} }},
		{"cu_seqlens", func(in *Inputs, p *Params) { in.CuSeqlens = []int64{0, -1, 20} }},
		{"cu_seqlens", func(in *Inputs, p *Params) {
			for _, t := range []**tle.Tensor{&in.Q, &in.K, &in.G} {
				*t = tle.NewTensor(2, 10, 2, 32)
			}
			in.V, in.Beta = tle.NewTensor(2, 10, 2, 32), tle.NewTensor(2, 10, 2)
			in.CuSeqlens = []int64{0, 10}
		}},
		{"lower_bound", func(in *Inputs, p *Params) { p.LowerBound = 0 }},
		{"lower_bound", func(in *Inputs, p *Params) { p.LowerBound = -5.5 }},
		{"lower_bound", func(in *Inputs, p *Params) { p.LowerBound = math.NaN() }},
		{"scale", func(in *Inputs, p *Params) { p.Scale = math.Inf(1) }},
		{"state_dtype", func(in *Inputs, p *Params) { p.StateDType = "f16" }},
		{"block_v", func(in *Inputs, p *Params) { p.BlockV = 24 }},
		{"block_v", func(in *Inputs, p *Params) { p.BlockV = 64 }},
	}
	for i, c := range cases {
		in, p := good()
		c.mutate(in, &p)
		_, err := Forward(tle.CPU(), in, p)
		require.Error(t, err, "case %d (%s)", i, c.arg)
		var ae *ArgError
		require.True(t, errors.As(err, &ae), "case %d: %v", i, err)
		require.Equal(t, c.arg, ae.Arg, "case %d: %v", i, err)
		require.True(t, strings.HasPrefix(err.Error(), c.arg+": "), "case %d: %v", i, err)
	}
}

// TestOpBadInputs: the npy/params level of the op names the argument too.
func TestOpBadInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	in := randomInputs(r, 1, 20, 2, 32, 32, nil, false, StateF32)
	arrays := func() map[string]*npy.Array {
		m := map[string]*npy.Array{}
		for name, t := range map[string]*tle.Tensor{"q": in.Q, "k": in.K, "v": in.V, "g": in.G, "beta": in.Beta, "A_log": in.ALog, "dt_bias": in.DtBias} {
			m[name] = npy.Float64(t.Shape, append([]float64(nil), t.Data...))
		}
		return m
	}
	params := func() map[string]any { return map[string]any{"lower_bound": -5.0} }
	var op Op
	_, err := op.Run(tle.CPU(), arrays(), params())
	require.NoError(t, err)
	_, err = op.Run(tle.CPU(), arrays(), map[string]any{"lower_bound": -5.0, "prep_warps": 4.0})
	require.NoError(t, err)
	cases := []struct {
		arg    string
		mutate func(a map[string]*npy.Array, p map[string]any)
	}{
		{"q", func(a map[string]*npy.Array, p map[string]any) { delete(a, "q") }},
		{"v", func(a map[string]*npy.Array, p map[string]any) { a["v"] = npy.Int("<i8", []int{1}, []int64{1}) }},
		{"cu_seqlens", func(a map[string]*npy.Array, p map[string]any) {
			a["cu_seqlens"] = npy.Float64([]int{2}, []float64{0, 20})
		}},
		{"cu_seqlens", func(a map[string]*npy.Array, p map[string]any) {
			a["cu_seqlens"] = npy.Int("<i8", []int{1, 2}, []int64{0, 20})
		}},
		{"g", func(a map[string]*npy.Array, p map[string]any) { a["g"].F64[3] = math.NaN() }},
		{"bogus", func(a map[string]*npy.Array, p map[string]any) { a["bogus"] = npy.Float64([]int{1}, []float64{1}) }},
		{"lower_bound", func(a map[string]*npy.Array, p map[string]any) { delete(p, "lower_bound") }},
		{"lower_bound", func(a map[string]*npy.Array, p map[string]any) { p["lower_bound"] = "-5" }},
		{"scale", func(a map[string]*npy.Array, p map[string]any) { p["scale"] = true }},
		{"state_dtype", func(a map[string]*npy.Array, p map[string]any) { p["state_dtype"] = 32.0 }},
		{"fast", func(a map[string]*npy.Array, p map[string]any) { p["fast"] = 1.0 }},
		{"block_v", func(a map[string]*npy.Array, p map[string]any) { p["block_v"] = 16.5 }},
		{"prep_warps", func(a map[string]*npy.Array, p map[string]any) { p["prep_warps"] = 6.0 }},
		{"prep_warps", func(a map[string]*npy.Array, p map[string]any) { p["prep_warps"] = 2.5 }},
		{"sacle", func(a map[string]*npy.Array, p map[string]any) { p["sacle"] = 0.1 }},
	}
	for i, c := range cases {
		a, p := arrays(), params()
		c.mutate(a, p)
		_, err := op.Run(tle.CPU(), a, p)
		require.Error(t, err, "case %d (%s)", i, c.arg)
		require.True(t, strings.HasPrefix(err.Error(), c.arg+": "), "case %d: %v", i, err)
	}
}

// TestGPULarge is the check of the issue at FlashKDA's size (T = 8192,
// H = 96, K = V = 128; f32 and bf16 states, fixed length and varlen, with
// and without h0), on the GPU only; the reference is computed for a few
// heads. Set TLE_KDA_LARGE=0 to skip it.
func TestGPULarge(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	if os.Getenv("TLE_KDA_LARGE") == "0" {
		t.Skip("TLE_KDA_LARGE=0")
	}
	varlen := []int64{0, 1300, 1847, 3895, 4858, 5129, 8192}
	for _, c := range []struct {
		cu    []int64
		state string
		h0    bool
	}{{nil, StateF32, true}, {varlen, StateF32, true}, {varlen, StateBF16, true}, {nil, StateBF16, false}} {
		r := rand.New(rand.NewPCG(11, 12))
		in := randomInputs(r, 1, 8192, 96, 128, 128, c.cu, c.h0, c.state)
		p := Params{Scale: DefaultScale(128), LowerBound: -5, StateDType: c.state, FinalState: true}
		out, err := Forward(g, in, p)
		require.NoError(t, err)
		heads := func(h int) bool { return h == 0 || h == 57 || h == 95 }
		o, ht := referenceHeads(in, p, heads)
		pick := func(got, want []float64, inner int) (a, b []float64) {
			for i := range want {
				if heads((i / inner) % 96) {
					a, b = append(a, got[i]), append(b, want[i])
				}
			}
			return
		}
		go1, wo := pick(out.O.Data, o, 128)
		gh, wh := pick(out.HT.Data, ht, 128*128)
		eo, eh := relRMS(go1, wo), relRMS(gh, wh)
		t.Logf("cu_seqlens %v, %s state, h0 %v: relative RMS error o %.5f, final state %.5f", c.cu, c.state, c.h0, eo, eh)
		tolH := 0.005
		if c.state == StateBF16 {
			tolH = 0.01
		}
		require.LessOrEqual(t, eo, 0.005)
		require.LessOrEqual(t, eh, tolH)
	}
}

// TestBuildsForGPU compiles both kernels to LLVM IR for NVPTX (the Go
// part of the GPU compilation; no GPU or LLVM needed) for specialisations
// the op launches: FlashKDA's sizes with each V block, both state dtypes
// and precision variants, and a padded head size.
func TestBuildsForGPU(t *testing.T) {
	prepK, recK, err := Kernels()
	require.NoError(t, err)
	for _, c := range []struct {
		K, V, bv int
		h0       bool
		p        Params
	}{
		{128, 128, 64, false, Params{StateDType: StateBF16, FinalState: true, Fast: true}},
		{128, 128, 16, false, Params{StateDType: StateF32}},
		{48, 80, 16, true, Params{StateDType: StateF32, FinalState: true}},
	} {
		d := &Dims{B: 1, T: 64, H: 4, K: c.K, V: c.V, N: 1}
		prep, rec := Launches(d, c.p, c.bv, 4, c.h0)
		for _, k := range []struct {
			k *tle.Kernel
			l Launch
		}{{prepK, prep}, {recK, rec}} {
			a, err := k.k.Build(k.l.Options(), tle.GPUOptions{}, "ll")
			require.NoError(t, err, "%s %v", k.k.Name(), k.l.Defines)
			require.Contains(t, a.LLVMIR, "mma.sync", "%s %v", k.k.Name(), k.l.Defines)
		}
	}
}

// TestRunnerWarmAllocatesNothing: on a GPU, a second call of the same
// sizes allocates no device memory, and its result is right; a device
// buffer that is too small is an error naming it.
func TestRunnerWarmAllocatesNothing(t *testing.T) {
	g, err := tle.OpenGPU()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	r := NewRunner(g)
	defer r.Close()
	p := Params{Scale: DefaultScale(64), LowerBound: -5, StateDType: StateF32, FinalState: true}
	cu := []int64{0, 37, 37, 100, 160}
	_, err = r.Forward(randomInputs(rand.New(rand.NewPCG(3, 1)), 1, 160, 3, 64, 64, cu, true, StateF32), p)
	require.NoError(t, err)
	warm, preps := r.Allocs, slices.Clone(r.preps)
	in := randomInputs(rand.New(rand.NewPCG(3, 2)), 1, 160, 3, 64, 64, cu, true, StateF32)
	out, err := r.Forward(in, p)
	require.NoError(t, err)
	require.Equal(t, warm, r.Allocs, "a warm call allocates nothing")
	require.Equal(t, preps, r.preps, "a warm call reuses its prepared launches")
	o, ht := reference(in, p)
	require.LessOrEqual(t, relRMS(out.O.Data, o), 0.005)
	require.LessOrEqual(t, relRMS(out.HT.Data, ht), 0.005)

	d, err := Validate(in, p)
	require.NoError(t, err)
	small, err := g.Alloc(ir.BF16, 10)
	require.NoError(t, err)
	defer g.Free(small)
	err = r.Launch(d, p, &DeviceTensors{Q: small})
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "q", ae.Arg)
}

// The launch cache tells buffers apart by address, dtype and length.
func TestBufKey(t *testing.T) {
	a := &tle.DeviceBuffer{Ptr: 0x1000, DType: ir.BF16, N: 64}
	same := &tle.DeviceBuffer{Ptr: 0x1000, DType: ir.BF16, N: 64}
	require.Equal(t, bufKey(a, nil), bufKey(same, nil), "equal buffers in other structs")
	for _, b := range []*tle.DeviceBuffer{
		{Ptr: 0x2000, DType: ir.BF16, N: 64}, {Ptr: 0x1000, DType: ir.F32, N: 64}, {Ptr: 0x1000, DType: ir.BF16, N: 65}, nil,
	} {
		require.NotEqual(t, bufKey(a, nil), bufKey(b, nil), "%v", b)
	}
}

// TestRecurrenceCopiesWaitForReads: in kda_rec, the pipeliner's first
// cp.async copies reuse shared memory that the conversion of h0 has just
// read; a barrier must separate them (compute-sanitizer's racecheck found
// the hazard when it was missing).
func TestRecurrenceCopiesWaitForReads(t *testing.T) {
	_, rec, err := Kernels()
	require.NoError(t, err)
	d := &Dims{B: 1, T: 64, H: 2, K: 64, V: 64, N: 1}
	_, l := Launches(d, Params{StateDType: StateF32, FinalState: true}, 32, 4, true)
	a, err := rec.Build(l.Options(), tle.GPUOptions{}, "ll")
	require.NoError(t, err)
	pendingRead, sawRead := false, false
	for _, line := range strings.Split(a.LLVMIR, "\n") {
		switch {
		case strings.Contains(line, "llvm.nvvm.barrier0"):
			pendingRead = false
		case strings.Contains(line, "= load ") && strings.Contains(line, "addrspace(3)"), strings.Contains(line, "ldmatrix"):
			pendingRead, sawRead = true, true
		case strings.Contains(line, "cp.async.cg.shared.global"):
			require.True(t, sawRead, "the test expects shared reads (h0's conversion) before the first copy")
			require.False(t, pendingRead, "a cp.async overwrites shared memory read since the last barrier")
			return
		}
	}
	t.Fatal("no cp.async in kda_rec")
}

// Before sm_90 the recurrence builds; the preparation kernel, whose tiles
// come by TMA (make_desc), is refused there (a user error at its position,
// not PTX the driver would refuse). sm_90 builds both.
func TestOldTargets(t *testing.T) {
	prepK, recK, err := Kernels()
	require.NoError(t, err)
	d := &Dims{B: 1, T: 64, H: 2, K: 64, V: 64, N: 1}
	prep, rec := Launches(d, Params{StateDType: StateF32, FinalState: true}, 32, 4, true)
	_, err = prepK.Build(prep.Options(), tle.GPUOptions{Arch: "sm_80"}, "ll")
	require.ErrorContains(t, err, "make_desc: needs sm_90 or newer (tensormap.replace, a TMA descriptor)")
	_, err = recK.Build(rec.Options(), tle.GPUOptions{Arch: "sm_80"}, "ll")
	require.NoError(t, err)
	for _, k := range []struct {
		k *tle.Kernel
		l Launch
	}{{prepK, prep}, {recK, rec}} {
		_, err := k.k.Build(k.l.Options(), tle.GPUOptions{Arch: "sm_90"}, "ll")
		require.NoError(t, err, "%s on sm_90", k.k.Name())
	}
}

// TestPrepPTX: kda_prep at FlashKDA's head size, as Forward launches it, built
// for sm_90a with llc-19: the cumulative gate is a sequential sum in
// registers (no shfl.up), sigmoid takes one rcp.approx (no div.full), the
// inputs come by TMA, and an item crosses at most 24 CTA barriers (the
// compiler re-reads shared memory in the layout a use needs instead of
// converting through it).
func TestPrepPTX(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("llc-19"); err != nil {
		t.Skipf("llc-19 not installed: %v", err)
	}
	prepK, _, err := Kernels()
	require.NoError(t, err)
	d := &Dims{B: 1, T: 8192, H: 96, K: 128, V: 128, N: 1}
	for _, kb := range []int{0, 64} {
		prep, _ := Launches(d, Params{StateDType: StateF32, FinalState: true, PrepBlockK: kb}, 32, 512, true)
		require.Equal(t, DefaultPrepWarps, prep.NumWarps)
		a, err := prepK.Build(prep.Options(), tle.GPUOptions{Arch: "sm_90a", Toolchain: "llc"}, "ptx")
		require.NoError(t, err)
		ptx := a.Binary.PTX
		require.NotContains(t, ptx, "shfl.sync.up", "K block %d", kb)
		require.NotContains(t, ptx, "div.full", "K block %d", kb)
		block := kb
		if block == 0 {
			block = DefaultPrepBlockK(d.K)
		}
		perThread := Chunk * block / (32 * prep.NumWarps)
		require.Equal(t, perThread+1, strings.Count(ptx, "rcp.approx.ftz.f32"), "K block %d: one reciprocal per gate element of a thread, and beta's", kb)
		if kb == 0 {
			require.LessOrEqual(t, strings.Count(ptx, "bar.sync"), 24)
		}
		// q, k and g by TMA, a 3-D box each (per K block, in a loop over
		// the blocks when there are several), and dt_bias by one 2-D box
		require.Equal(t, 3, strings.Count(ptx, "cp.async.bulk.tensor.3d"), "K block %d", kb)
		require.Equal(t, 1, strings.Count(ptx, "cp.async.bulk.tensor.2d"), "K block %d", kb)
	}
}

package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/attention/prefill"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// prefillDir writes a small prefill problem (B 2 with Lq 20 and 3, L 37
// and 3, Hkv 1, G 4, page 16, NHD) as issue 16's files: q, cu_seqlens_q
// (int64), caches (NaN in unread slots), block_ids (int32, garbage past
// the pages), kv_lens (int32); it returns the inputs as the Go API takes
// them.
func prefillDir(t *testing.T, fp8 bool) (string, *prefill.Inputs, prefill.Params) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(41, 42))
	dt := ir.BF16
	if fp8 {
		dt = ir.F8E4M3
	}
	const blocks, page, hkv, hq = 6, 16, 1, 4
	lens := []int64{37, 3}
	cu := []int64{0, 20, 23}
	ids := [][]int64{{4, 0, 2, 99}, {5, -3, 7, 1000}}
	q := tle.NewTensor(23, hq, 128)
	k, v := pagedFiles(t, dir, r, dt, []int{blocks, page, hkv, 128}, page, lens, ids, q)
	in := &prefill.Inputs{Q: q, CuSeqlensQ: cu, KCache: k, VCache: v, BlockIDs: ids, KVLens: lens}
	f32 := func(name string, x *tle.Tensor) { writeF32(t, dir, name, x) }
	require.NoError(t, npy.WriteFile(filepath.Join(dir, "kv_lens.npy"), npy.Int("<i4", []int{2}, lens)))
	require.NoError(t, npy.WriteFile(filepath.Join(dir, "cu_seqlens_q.npy"), npy.Int("<i8", []int{3}, cu)))
	p := prefill.Params{Layout: paged.LayoutNHD, DType: paged.DTypeBF16}
	if fp8 { // quant type 0: K scales per (block, slot, kv head), V per kv head
		p.DType = paged.DTypeFP8
		in.QScale, in.KScale, in.VScale = tle.NewTensor(23, hq), tle.NewTensor(blocks, page, hkv), &tle.Tensor{Shape: []int{1}, Data: []float64{0.375}}
		for i := range in.QScale.Data {
			in.QScale.Data[i] = float64(float32(0.5 + r.Float64()))
		}
		for i := range in.KScale.Data {
			in.KScale.Data[i] = float64(float32(0.5 + r.Float64()))
		}
		f32("q_scale", in.QScale)
		f32("k_scale", in.KScale)
		f32("v_scale", in.VScale)
		writeParams(t, dir, `{"layout": "nhd", "dtype": "fp8", "quant_type": 0}`)
		return dir, in, p
	}
	writeParams(t, dir, `{"layout": "nhd", "dtype": "bf16", "scale": 0.08838834764831845}`)
	return dir, in, p
}

// TestOpAttnPrefill: tlec op attn_prefill on the interpreter writes o.npy
// and lse.npy equal to the Go API's results on the same inputs (quant_type
// is present and ignored for bf16).
func TestOpAttnPrefill(t *testing.T) {
	for _, fp8 := range []bool{false, true} {
		testOpAttnPrefill(t, fp8)
	}
}

func testOpAttnPrefill(t *testing.T, fp8 bool) {
	in, inputs, p := prefillDir(t, fp8)
	out := filepath.Join(t.TempDir(), "out")
	code, _, errs := runCLI("op", "attn_prefill", "--in", in, "--out", out, "--device", "cpu")
	require.Equal(t, 0, code, errs)
	want, err := prefill.Run(tle.CPU(), inputs, p)
	require.NoError(t, err)
	requireOpOutputs(t, out, map[string]*tle.Tensor{"o": want.O, "lse": want.LSE}, fp8)
}

// TestOpAttnPrefillKeyStep: params.json's key_step 128 runs the FP8
// walk of 128 keys a step (eight pages of 16) and gives the Go API's
// results with PrefillParams.KeyStep 128.
func TestOpAttnPrefillKeyStep(t *testing.T) {
	in, inputs, p := prefillDir(t, true)
	writeParams(t, in, `{"layout": "nhd", "dtype": "fp8", "quant_type": 0, "key_step": 128}`)
	out := filepath.Join(t.TempDir(), "out")
	code, _, errs := runCLI("op", "attn_prefill", "--in", in, "--out", out, "--device", "cpu")
	require.Equal(t, 0, code, errs)
	p.KeyStep = 128
	want, err := prefill.Run(tle.CPU(), inputs, p)
	require.NoError(t, err)
	requireOpOutputs(t, out, map[string]*tle.Tensor{"o": want.O, "lse": want.LSE}, true)
}

// TestOpAttnPrefillBad: every bad input exits 1 with the argument named on
// standard error, and nothing is written.
func TestOpAttnPrefillBad(t *testing.T) {
	for _, c := range []opBadCase{
		{arg: "layout", params: `{"layout": "nhwc", "dtype": "bf16"}`},
		{arg: "layout", params: `{"dtype": "bf16"}`},
		{arg: "dtype", params: `{"layout": "nhd", "dtype": "fp4"}`},
		{arg: "quant_type", params: `{"layout": "nhd", "dtype": "fp8"}`},
		{arg: "scale", params: `{"layout": "nhd", "dtype": "bf16", "scale": 0}`},
		{arg: "sq", params: `{"layout": "nhd", "dtype": "bf16", "sq": 1}`},
		{arg: "cu_seqlens_q", remove: "cu_seqlens_q"},
		{arg: "cu_seqlens_q", file: "cu_seqlens_q", arr: npy.Int("<i4", []int{3}, []int64{0, 20, 20})},
		{arg: "cu_seqlens_q", file: "cu_seqlens_q", arr: npy.Int("<i4", []int{3}, []int64{0, 20, 22})},
		{arg: "cu_seqlens_q", file: "cu_seqlens_q", arr: npy.Float32([]int{3}, []float32{0, 20, 23})},
		{arg: "kv_lens", file: "kv_lens", arr: npy.Int("<i4", []int{2}, []int64{19, 3})}, // fewer keys than queries
		{arg: "kv_lens", file: "kv_lens", arr: npy.Int("<i4", []int{2}, []int64{65, 3})},
		{arg: "block_ids", file: "block_ids", arr: npy.Int("<i8", []int{2, 4}, []int64{4, 0, 6, 99, 5, -3, 7, 1000})},
		{arg: "q", file: "q", arr: npy.Float32([]int{23, 4, 64}, make([]float32, 23*4*64))},
		{arg: "k_cache", file: "k_cache", arr: npy.Float32([]int{6, 8, 1, 128}, make([]float32, 6*8*128))},
		{arg: "v_cache", remove: "v_cache"},
		{arg: "q_scale", file: "q_scale", arr: npy.Float32([]int{23, 4}, make([]float32, 23*4))}, // bf16 with a scale
		{arg: "v_scale", fp8: true, file: "v_scale", arr: npy.Float32([]int{2}, []float32{1, 1})},
		{arg: "k_scale", fp8: true, remove: "k_scale"},
		{arg: "quant_type", fp8: true, params: `{"layout": "nhd", "dtype": "fp8", "quant_type": 3}`},
		{arg: "key_step", fp8: true, params: `{"layout": "nhd", "dtype": "fp8", "quant_type": 0, "key_step": 64}`}, // pages of 16: 16 or 128
		{arg: "key_step", params: `{"layout": "nhd", "dtype": "bf16", "key_step": 128}`},
		{arg: "key_step", params: `{"layout": "nhd", "dtype": "bf16", "key_step": "128"}`},
		{arg: "quant_type", params: `{"layout": "nhd", "dtype": "bf16", "quant_type": "x"}`}, // ignored by a bf16 call: refused
		{arg: "quant_type", params: `{"layout": "nhd", "dtype": "bf16", "quant_type": 1}`},
		{arg: "block_mask", file: "block_mask", arr: npy.Int("<i4", []int{2, 4, 1, 1}, make([]int64, 8))}, // not uint8
		{arg: "block_mask", file: "block_mask", arr: npy.Int("|u1", []int{2, 4, 1, 2}, make([]int64, 16))},
		{arg: "block_mask", file: "block_mask", arr: npy.Int("|u1", []int{2, 4, 1, 1}, []int64{1, 1, 2, 1, 0, 0, 0, 0})},
	} {
		errs := runOpBad(t, "attn_prefill", prefillDir, c)
		if c.remove != "" { // a required file is missing for tlec op, an fp8 scale for the op
			require.Regexp(t, "attn_prefill: (input )?"+c.arg+": missing", errs, c.arg)
		} else {
			require.Contains(t, errs, "attn_prefill: "+c.arg+":", c.arg)
		}
	}
}

// TestOpAttnPrefillMask: with block_mask.npy (uint8 [2, 4, 1, 1]) the op
// gives the Go API's masked results; a head whose only tile is 0 gives o 0
// and lse -inf.
func TestOpAttnPrefillMask(t *testing.T) {
	for _, fp8 := range []bool{false, true} {
		in, inputs, p := prefillDir(t, fp8)
		bits := []int64{1, 1, 0, 1, 0, 1, 1, 1}
		require.NoError(t, npy.WriteFile(filepath.Join(in, "block_mask.npy"), npy.Int("|u1", []int{2, 4, 1, 1}, bits)))
		inputs.BlockMask = &tle.Tensor{Shape: []int{2, 4, 1, 1}, Data: []float64{1, 1, 0, 1, 0, 1, 1, 1}}
		out := filepath.Join(t.TempDir(), "out")
		code, _, errs := runCLI("op", "attn_prefill", "--in", in, "--out", out, "--device", "cpu")
		require.Equal(t, 0, code, errs)
		want, err := prefill.Run(tle.CPU(), inputs, p)
		require.NoError(t, err)
		requireOpOutputs(t, out, map[string]*tle.Tensor{"o": want.O, "lse": want.LSE}, fp8)
		for tok := range 23 {
			for h := range 4 {
				off := map[bool]int{true: 2, false: 0}[tok < 20] // request 0 masks head 2, request 1 head 0
				if h == off {
					require.True(t, math.IsInf(want.LSE.Data[tok*4+h], -1), "token %d head %d", tok, h)
				} else {
					require.False(t, math.IsInf(want.LSE.Data[tok*4+h], 0), "token %d head %d", tok, h)
				}
			}
		}
	}
}

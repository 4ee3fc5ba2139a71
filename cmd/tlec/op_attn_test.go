package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/attention/decode"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// attnDir writes a small decode problem (B 2, Sq 2, Hkv 1, G 4, page 16,
// HND) as issue 15's files: q, caches (NaN in unread slots), block_ids
// (int32, garbage past the pages), kv_lens (int64), and for fp8 the scales
// of quant type 1; it returns the inputs as the Go API takes them.
func attnDir(t *testing.T, fp8 bool) (string, *decode.Inputs, decode.Params) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(21, 22))
	dt := ir.BF16
	if fp8 {
		dt = ir.F8E4M3
	}
	const blocks, page, hkv, hq, sq = 6, 16, 1, 4, 2
	lens := []int64{37, 2}
	ids := [][]int64{{4, 0, 2, 99}, {5, -3, 7, 1000}}
	q := tle.NewTensor(len(lens)*sq, hq, 128)
	k, v := pagedFiles(t, dir, r, dt, []int{blocks, hkv, page, 128}, page, lens, ids, q)
	in := &decode.Inputs{Q: q, KCache: k, VCache: v, BlockIDs: ids, KVLens: lens}
	p := decode.Params{Layout: paged.LayoutHND, DType: paged.DTypeBF16, Sq: sq}
	f32 := func(name string, x *tle.Tensor) { writeF32(t, dir, name, x) }
	require.NoError(t, npy.WriteFile(filepath.Join(dir, "kv_lens.npy"), npy.Int("<i8", []int{2}, lens)))
	if fp8 {
		p.DType, p.QuantType = paged.DTypeFP8, 1
		in.QScale = tle.NewTensor(len(lens)*sq, hq)
		for i := range in.QScale.Data {
			in.QScale.Data[i] = float64(float32(0.5 + r.Float64()))
		}
		in.KScale = &tle.Tensor{Shape: []int{1}, Data: []float64{0.75}}
		in.VScale = &tle.Tensor{Shape: []int{1}, Data: []float64{0.5}}
		f32("q_scale", in.QScale)
		f32("k_scale", in.KScale)
		f32("v_scale", in.VScale)
		writeParams(t, dir, `{"layout": "hnd", "sq": 2, "dtype": "fp8", "quant_type": 1}`)
	} else {
		writeParams(t, dir, `{"layout": "hnd", "sq": 2, "dtype": "bf16", "scale": 0.08838834764831845}`)
	}
	return dir, in, p
}

// TestOpAttnDecode: tlec op attn_decode on the interpreter writes o.npy and
// lse.npy equal to the Go API's results on the same inputs.
func TestOpAttnDecode(t *testing.T) {
	for _, fp8 := range []bool{false, true} {
		in, inputs, p := attnDir(t, fp8)
		out := filepath.Join(t.TempDir(), "out")
		code, _, errs := runCLI("op", "attn_decode", "--in", in, "--out", out, "--device", "cpu")
		require.Equal(t, 0, code, errs)
		want, err := decode.Run(tle.CPU(), inputs, p)
		require.NoError(t, err)
		requireOpOutputs(t, out, map[string]*tle.Tensor{"o": want.O, "lse": want.LSE}, fp8)
	}
}

// requireOpOutputs checks that the op wrote, into out, each tensor of want
// as NAME.npy in f32, element for element, with no NaN.
func requireOpOutputs(t *testing.T, out string, want map[string]*tle.Tensor, fp8 bool) {
	t.Helper()
	for name, w := range want {
		a, err := npy.ReadFile(filepath.Join(out, name+".npy"))
		require.NoError(t, err)
		require.Equal(t, "<f4", a.DType)
		require.Equal(t, w.Shape, a.Shape, name)
		for i := range w.Data {
			require.Equal(t, float32(w.Data[i]), float32(a.F64[i]), "%s %d (fp8 %v)", name, i, fp8)
			require.False(t, math.IsNaN(a.F64[i]))
		}
	}
}

// TestOpAttnDecodeBad: every bad input exits 1 with the argument named on
// standard error, and nothing is written.
func TestOpAttnDecodeBad(t *testing.T) {
	for _, c := range []opBadCase{
		{arg: "layout", params: `{"layout": "nhwc", "sq": 2, "dtype": "bf16"}`},
		{arg: "sq", params: `{"layout": "hnd", "sq": 7, "dtype": "bf16"}`},
		{arg: "sq", params: `{"layout": "hnd", "dtype": "bf16"}`},
		{arg: "dtype", params: `{"layout": "hnd", "sq": 2, "dtype": "fp4"}`},
		{arg: "quant_type", params: `{"layout": "hnd", "sq": 2, "dtype": "bf16", "quant_type": 1}`},
		{arg: "quant_type", fp8: true, params: `{"layout": "hnd", "sq": 2, "dtype": "fp8"}`},
		{arg: "scale", params: `{"layout": "hnd", "sq": 2, "dtype": "bf16", "scale": -1}`},
		{arg: "mask", params: `{"layout": "hnd", "sq": 2, "dtype": "bf16", "mask": 1}`},
		{arg: "cluster", params: `{"layout": "hnd", "sq": 2, "dtype": "bf16", "cluster": 3}`},
		{arg: "schedule", params: `{"layout": "hnd", "sq": 2, "dtype": "bf16", "schedule": "balanced"}`},
		{arg: "schedule", params: `{"layout": "hnd", "sq": 2, "dtype": "bf16", "schedule": 1}`},
		{arg: "schedule", params: `{"layout": "hnd", "sq": 2, "dtype": "bf16", "schedule": "dynamic", "cluster": 4}`},
		{arg: "kv_lens", file: "kv_lens", arr: npy.Int("<i4", []int{2}, []int64{65, 2})},
		{arg: "kv_lens", file: "kv_lens", arr: npy.Int("<i4", []int{2}, []int64{37, 1})},
		{arg: "kv_lens", file: "kv_lens", arr: npy.Float32([]int{2}, []float32{37, 2})},
		{arg: "block_ids", file: "block_ids", arr: npy.Int("<i8", []int{2, 4}, []int64{4, 0, 6, 99, 5, -3, 7, 1000})},
		{arg: "block_ids", file: "block_ids", arr: npy.Int("<i8", []int{1, 4}, []int64{4, 0, 2, 99})},
		{arg: "q", file: "q", arr: npy.Float32([]int{4, 4, 64}, make([]float32, 4*4*64))},
		{arg: "q", file: "q", arr: npy.Float32([]int{4, 3, 128}, make([]float32, 4*3*128))},
		{arg: "k_cache", file: "k_cache", arr: npy.Float32([]int{6, 1, 8, 128}, make([]float32, 6*8*128))},
		{arg: "v_cache", file: "v_cache", arr: npy.Float32([]int{6, 1, 32, 128}, make([]float32, 6*32*128))},
		{arg: "v_scale", fp8: true, remove: "v_scale"},
		{arg: "k_scale", fp8: true, file: "k_scale", arr: npy.Float32([]int{2}, []float32{1, 1})},
		{arg: "q_scale", file: "q_scale", arr: npy.Float32([]int{4, 4}, make([]float32, 16))},    // bf16 with a scale
		{arg: "q", fp8: true, file: "q", arr: npy.Float32([]int{4, 4, 128}, fill(4*4*128, 0.3))}, // not e4m3 values
	} {
		errs := runOpBad(t, "attn_decode", attnDir, c)
		require.Contains(t, errs, "attn_decode: "+c.arg+":", c.arg)
	}
}

func fill(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// pagedFiles draws a small paged problem's K and V caches of shape (the
// physical order, NHD or HND; one kv head, so token tok of block blk is
// row blk*page + tok either way) for requests of lengths lens over page
// table ids, NaN in every slot no request reads, and q; it writes q,
// k_cache, v_cache and block_ids (int32) into dir.
func pagedFiles(t *testing.T, dir string, r *rand.Rand, dt ir.DType, shape []int, page int, lens []int64, ids [][]int64, q *tle.Tensor) (k, v *tle.Tensor) {
	t.Helper()
	cache := func() *tle.Tensor {
		c := tle.NewTensor(shape...)
		for i := range c.Data {
			c.Data[i] = math.NaN()
		}
		for b, L := range lens {
			for tok := 0; tok < int(L); tok++ {
				blk := int(ids[b][tok/page])
				for d := range 128 {
					c.Data[(blk*page+tok%page)*128+d] = dt.Round(r.NormFloat64())
				}
			}
		}
		return c
	}
	k, v = cache(), cache()
	for i := range q.Data {
		q.Data[i] = dt.Round(r.NormFloat64())
	}
	writeF32(t, dir, "q", q)
	writeF32(t, dir, "k_cache", k)
	writeF32(t, dir, "v_cache", v)
	var flat []int64
	for _, row := range ids {
		flat = append(flat, row...)
	}
	require.NoError(t, npy.WriteFile(filepath.Join(dir, "block_ids.npy"), npy.Int("<i4", []int{len(ids), len(ids[0])}, flat)))
	return k, v
}

// writeF32 writes x as dir/NAME.npy in f32.
func writeF32(t *testing.T, dir, name string, x *tle.Tensor) {
	t.Helper()
	f := make([]float32, len(x.Data))
	for i, v := range x.Data {
		f[i] = float32(v)
	}
	require.NoError(t, npy.WriteFile(filepath.Join(dir, name+".npy"), npy.Float32(x.Shape, f)))
}

// opBadCase is one bad input of an op's files: params replaces
// params.json when not empty, file is rewritten with arr, remove is
// deleted.
type opBadCase struct {
	arg          string
	fp8          bool
	params, file string
	arr          *npy.Array
	remove       string
}

// runOpBad writes op's files with mk, applies c, runs tlec op on the
// interpreter and requires exit 1 with nothing written; it returns the
// standard error.
func runOpBad[I, P any](t *testing.T, op string, mk func(*testing.T, bool) (string, I, P), c opBadCase) string {
	t.Helper()
	in, _, _ := mk(t, c.fp8)
	if c.params != "" {
		writeParams(t, in, c.params)
	}
	if c.file != "" {
		require.NoError(t, npy.WriteFile(filepath.Join(in, c.file+".npy"), c.arr))
	}
	if c.remove != "" {
		require.NoError(t, os.Remove(filepath.Join(in, c.remove+".npy")))
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, errs := runCLI("op", op, "--in", in, "--out", out, "--device", "cpu")
	require.Equal(t, 1, code, "%s: %s", c.arg, errs)
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err), "%s: --out was created", c.arg)
	return errs
}

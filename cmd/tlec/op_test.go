package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/kda"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(&env{stdin: strings.NewReader(""), stdout: &o, stderr: &e}, args)
	return code, o.String(), e.String()
}

// kdaDir is a fresh --in directory holding kdaInputs (h0 if withH0) and
// params.json with params.
func kdaDir(t *testing.T, withH0 bool, params string) string {
	in := t.TempDir()
	kdaInputs(t, in, withH0)
	writeParams(t, in, params)
	return in
}

// kdaInputs writes a small KDA problem into dir as .npy files (float64 and
// float32 files; cu_seqlens as int64) and returns it.
func kdaInputs(t *testing.T, dir string, withH0 bool) *kda.Inputs {
	r := rand.New(rand.NewPCG(3, 5))
	const T, H, K, V = 37, 2, 32, 32
	randn := func(shape ...int) *tle.Tensor {
		x := tle.NewTensor(shape...)
		for i := range x.Data {
			x.Data[i] = r.NormFloat64()
		}
		return x
	}
	in := &kda.Inputs{
		Q: randn(1, T, H, K), K: randn(1, T, H, K), V: randn(1, T, H, V), G: randn(1, T, H, K),
		Beta: randn(1, T, H), ALog: randn(H), DtBias: randn(H, K), CuSeqlens: []int64{0, 20, 37},
	}
	files := map[string]*tle.Tensor{"q": in.Q, "k": in.K, "v": in.V, "g": in.G, "beta": in.Beta, "A_log": in.ALog, "dt_bias": in.DtBias}
	if withH0 {
		in.H0 = randn(2, H, V, K)
		files["h0"] = in.H0
	}
	for name, x := range files {
		f := make([]float32, len(x.Data))
		for i, v := range x.Data {
			f[i] = float32(v)
			x.Data[i] = float64(f[i])
		}
		a := npy.Float32(x.Shape, f)
		if name == "q" { // one file in f64, to show any float width is read
			a = npy.Float64(x.Shape, x.Data)
		}
		require.NoError(t, npy.WriteFile(filepath.Join(dir, name+".npy"), a))
	}
	require.NoError(t, npy.WriteFile(filepath.Join(dir, "cu_seqlens.npy"), npy.Int("<i8", []int{3}, []int64{0, 20, 37})))
	return in
}

func writeParams(t *testing.T, dir, js string) {
	require.NoError(t, os.WriteFile(filepath.Join(dir, "params.json"), []byte(js), 0o644))
}

func TestOpList(t *testing.T) {
	code, out, errs := runCLI("op", "list")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "kda_fwd")
	require.Contains(t, out, "cu_seqlens (optional)")
	require.Contains(t, out, "lower_bound")
}

// TestOpKDA runs kda_fwd end to end on the interpreter and compares the files
// with the Go API's result on the same inputs.
func TestOpKDA(t *testing.T) {
	for _, state := range []string{"f32", "bf16"} {
		in := t.TempDir()
		inputs := kdaInputs(t, in, true)
		writeParams(t, in, `{"scale": 0.125, "lower_bound": -4.5, "state_dtype": "`+state+`"}`)
		out := filepath.Join(t.TempDir(), "new", "dir") // created when missing
		code, _, errs := runCLI("op", "kda_fwd", "--in", in, "--out", out, "--device", "cpu")
		require.Equal(t, 0, code, errs)
		want, err := kda.Forward(tle.CPU(), inputs, kda.Params{Scale: 0.125, LowerBound: -4.5, StateDType: state, FinalState: true})
		require.NoError(t, err)
		o, err := npy.ReadFile(filepath.Join(out, "o.npy"))
		require.NoError(t, err)
		require.Equal(t, "<f4", o.DType)
		require.Equal(t, []int{1, 37, 2, 32}, o.Shape)
		require.Equal(t, want.O.Data, o.F64)
		ht, err := npy.ReadFile(filepath.Join(out, "ht.npy"))
		require.NoError(t, err)
		require.Equal(t, []int{2, 2, 32, 32}, ht.Shape)
		for i := range ht.F64 {
			require.Equal(t, float64(float32(want.HT.Data[i])), ht.F64[i])
		}
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		require.Len(t, entries, 2, "only o.npy and ht.npy, no temporary files")
	}

	// Without h0: no ht.npy; flags after the op name or before it.
	in := kdaDir(t, false, `{"lower_bound": -5}`)
	out := t.TempDir()
	code, _, errs := runCLI("op", "--device", "cpu", "kda_fwd", "--in", in, "--out", out)
	require.Equal(t, 0, code, errs)
	_, err := os.Stat(filepath.Join(out, "o.npy"))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(out, "ht.npy"))
	require.True(t, os.IsNotExist(err))
}

// TestOpErrors: each bad input is an error that names the argument, and
// --out is left untouched.
func TestOpErrors(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, in string)
		args   []string
		code   int
		substr string
	}{
		{"no op", nil, []string{}, 2, "name an op"},
		{"unknown op", nil, []string{"kda_bwd"}, 2, `unknown op "kda_bwd"`},
		{"no --in", nil, []string{"kda_fwd", "--out", "@out"}, 2, "--in DIR is required"},
		{"no --out", nil, []string{"kda_fwd", "--in", "@in"}, 2, "--out DIR is required"},
		{"bad device", nil, []string{"kda_fwd", "--in", "@in", "--out", "@out", "--device", "tpu"}, 2, `--device "tpu"`},
		{"missing q", func(t *testing.T, in string) { os.Remove(filepath.Join(in, "q.npy")) }, nil, 1, "input q: missing"},
		{"corrupt k", func(t *testing.T, in string) { os.WriteFile(filepath.Join(in, "k.npy"), []byte("nope"), 0o644) }, nil, 1, "input k:"},
		{"v shape", func(t *testing.T, in string) {
			npy.WriteFile(filepath.Join(in, "v.npy"), npy.Float32([]int{1, 37, 3, 32}, make([]float32, 37*3*32)))
		}, nil, 1, "kda_fwd: v: "},
		{"V unsupported", func(t *testing.T, in string) {
			npy.WriteFile(filepath.Join(in, "v.npy"), npy.Float32([]int{1, 37, 2, 24}, make([]float32, 37*2*24)))
		}, nil, 1, "kda_fwd: v: head size V = 24"},
		{"beta dtype", func(t *testing.T, in string) {
			npy.WriteFile(filepath.Join(in, "beta.npy"), npy.Int("<i4", []int{1, 37, 2}, make([]int64, 74)))
		}, nil, 1, "kda_fwd: beta: want a float array"},
		{"h0 shape", func(t *testing.T, in string) {
			npy.WriteFile(filepath.Join(in, "h0.npy"), npy.Float32([]int{1, 2, 32, 32}, make([]float32, 2*32*32)))
		}, nil, 1, "kda_fwd: h0: "},
		{"cu_seqlens decreasing", func(t *testing.T, in string) {
			npy.WriteFile(filepath.Join(in, "cu_seqlens.npy"), npy.Int("<i8", []int{3}, []int64{0, 30, 20}))
		}, nil, 1, "kda_fwd: cu_seqlens: must be non-decreasing"},
		{"cu_seqlens past T", func(t *testing.T, in string) {
			npy.WriteFile(filepath.Join(in, "cu_seqlens.npy"), npy.Int("<i8", []int{3}, []int64{0, 20, 40}))
		}, nil, 1, "kda_fwd: cu_seqlens: must end at T = 37"},
		{"cu_seqlens float", func(t *testing.T, in string) {
			npy.WriteFile(filepath.Join(in, "cu_seqlens.npy"), npy.Float32([]int{3}, []float32{0, 20, 37}))
		}, nil, 1, "kda_fwd: cu_seqlens: want a signed integer array"},
		{"lower_bound 0", func(t *testing.T, in string) { writeParams(t, in, `{"lower_bound": 0}`) }, nil, 1, "kda_fwd: lower_bound: must be in [-5, 0)"},
		{"no params.json", func(t *testing.T, in string) { os.Remove(filepath.Join(in, "params.json")) }, nil, 1, "kda_fwd: lower_bound: missing"},
		{"bad json", func(t *testing.T, in string) { writeParams(t, in, `{"lower_bound": -5,}`) }, nil, 1, "params.json"},
		{"json array", func(t *testing.T, in string) { writeParams(t, in, `[1, 2]`) }, nil, 1, "params.json"},
		{"state dtype", func(t *testing.T, in string) { writeParams(t, in, `{"lower_bound": -5, "state_dtype": "f16"}`) }, nil, 1, "kda_fwd: state_dtype:"},
		{"unknown param", func(t *testing.T, in string) { writeParams(t, in, `{"lower_bound": -5, "scael": 1}`) }, nil, 1, "kda_fwd: scael:"},
		{"--in missing", nil, []string{"kda_fwd", "--in", "@in/nope", "--out", "@out", "--device", "cpu"}, 1, "--in"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := kdaDir(t, true, `{"lower_bound": -5}`)
			if c.setup != nil {
				c.setup(t, in)
			}
			// --out exists with a file in it: it must be left as it is.
			out := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(out, "keep"), []byte("x"), 0o644))
			args := c.args
			if args == nil {
				args = []string{"kda_fwd", "--in", "@in", "--out", "@out", "--device", "cpu"}
			}
			full := []string{"op"}
			for _, a := range args {
				a = strings.ReplaceAll(a, "@in", in)
				full = append(full, strings.ReplaceAll(a, "@out", out))
			}
			code, _, errs := runCLI(full...)
			require.Equal(t, c.code, code, errs)
			require.Contains(t, errs, c.substr)
			entries, err := os.ReadDir(out)
			require.NoError(t, err)
			require.Len(t, entries, 1, "--out untouched")
		})
	}

	// A missing --out is not created on error.
	in := kdaDir(t, false, `{"lower_bound": -6}`)
	out := filepath.Join(t.TempDir(), "out")
	code, _, errs := runCLI("op", "kda_fwd", "--in", in, "--out", out, "--device", "cpu")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "lower_bound")
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err))
}

func TestBenchKDANeedsGPU(t *testing.T) {
	if _, err := tle.OpenGPU(); err == nil {
		t.Skip("a GPU is present: the bench would run")
	}
	code, _, errs := runCLI("bench", "kda_fwd", "--json")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "kda_fwd needs a GPU")
	code, _, errs = runCLI("bench", "kda")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `no suite "kda" (suites: allgather, allreduce, attn_decode, attn_prefill, kda_fwd, reducescatter, tutorials)`)
}

// TestBenchParts: an unknown --parts name is a usage error, before a GPU
// is looked for.
func TestBenchParts(t *testing.T) {
	code, _, errs := runCLI("bench", "tutorials", "--parts", "fp8,fp9")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `no part "fp9"`)
}

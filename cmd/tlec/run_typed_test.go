package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/npy"
)

// A .npy file of the parameter's element type is read straight into the
// buffer (an array in the dtype, no float64 copy), one of another type is
// converted through a Tensor as before, and zeros: is an array of the
// dtype; --save writes what the kernel computed either way, f32 and
// integers in their own type, other floats as f32.
func TestRunTypedArgs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "k.tle")
	require.NoError(t, os.WriteFile(src, []byte(`kernel k(x *f32, c *i32, h *bf16, z *u8, out *f32, ci *i32, hb *bf16, zo *u8) {
    o := arange(0, 4)
    store(out + o, load(x + o) * 2.0)
    store(ci + o, load(c + o) * -3)
    store(hb + o, load(h + o) * 2.0)
    store(zo + o, load(z + o) + 200)
}
`), 0o644))
	file := func(name string, a *npy.Array) string {
		p := filepath.Join(dir, name)
		require.NoError(t, npy.WriteFile(p, a))
		return p
	}
	x := file("x.npy", npy.Float32([]int{4}, []float32{1.5, -2, 3e-3, 4}))
	x64 := file("x64.npy", npy.Float64([]int{2, 2}, []float64{1.5, -2, 3e-3, 1.0000001}))
	c := file("c.npy", npy.Int("<i4", []int{4}, []int64{1, -2, 1 << 30, 7}))
	h := file("h.npy", npy.Float32([]int{4}, []float32{1, 1.00390625, -3, 0.1}))

	for _, xin := range []string{x, x64} {
		var stdout, stderr bytes.Buffer
		code := run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, []string{"run", src, "--device", "cpu", "--grid", "1",
			"--arg", "x=" + xin, "--arg", "c=" + c, "--arg", "h=" + h, "--arg", "z=zeros:4",
			"--arg", "out=zeros:2x2", "--arg", "ci=zeros:4", "--arg", "hb=zeros:4", "--arg", "zo=zeros:4",
			"--save", "out=" + filepath.Join(dir, "out.npy"), "--save", "ci=" + filepath.Join(dir, "ci.npy"),
			"--save", "hb=" + filepath.Join(dir, "hb.npy"), "--save", "zo=" + filepath.Join(dir, "zo.npy")})
		require.Equal(t, 0, code, "stderr: %s", stderr.String())
		xs := []float64{1.5, -2, float64(float32(3e-3)), 4}
		if xin == x64 {
			xs[3] = float64(float32(1.0000001))
			require.Contains(t, stdout.String(), "out: [2 2] f32 saved to")
		}
		read := func(name, descr string) *npy.Array {
			a, err := npy.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			require.Equal(t, descr, a.DType, name)
			return a
		}
		out := read("out.npy", "<f4")
		for i, v := range xs {
			require.Equal(t, float64(float32(v*2)), out.F64[i], "out[%d] from %s", i, filepath.Base(xin))
		}
		require.Equal(t, []int64{-3, 6, 1 << 30, -21}, read("ci.npy", "<i4").I64)                                  // -3<<30 wraps
		require.Equal(t, []float64{2, 2, -6, ir.BF16.Round(float64(float32(0.1))) * 2}, read("hb.npy", "<f4").F64) // h converted to bf16 (1.00390625 is one)
		require.Equal(t, []int64{200, 200, 200, 200}, read("zo.npy", "|u1").I64)
		require.Contains(t, stdout.String(), "ci: [4] i32 saved to "+filepath.Join(dir, "ci.npy")+" (min -21, max 1.07374e+09, mean 2.68435e+08, sum 1.07374e+09)")
	}

	// which files are read in place
	for _, c := range []struct {
		value string
		elem  ir.DType
		typed string // the array's Go type, or "" for a Tensor
	}{
		{x, ir.F32, "[]float32"}, {x64, ir.F32, ""}, {x64, ir.F64, "[]float64"}, {c, ir.I32, "[]int32"}, {c, ir.I64, ""},
		{h, ir.BF16, ""}, {"zeros:3x2", ir.BF16, "[]uint16"}, {"zeros:5", ir.I1, "[]bool"},
	} {
		a, err := readArg(c.value, c.elem)
		require.NoError(t, err)
		got := ""
		if a.tensor == nil {
			got = typeName(a.data)
		}
		require.Equal(t, c.typed, got, "%s as %v", filepath.Base(c.value), c.elem)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case []float32:
		return "[]float32"
	case []float64:
		return "[]float64"
	case []int32:
		return "[]int32"
	case []uint16:
		return "[]uint16"
	case []bool:
		return "[]bool"
	}
	return "?"
}

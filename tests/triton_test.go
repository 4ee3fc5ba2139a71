package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// The Triton-surface forms (docs/triton.md): each kernel is written as a
// Triton kernel would be, ported line by line, and run against a float64
// reference on random inputs.

// rownormSrc is Triton's layer-norm forward row, written once for every
// dtype: T const dtype bound with -D T=..., x.dtype, x.shape,
// p.dtype.element_ty, zeros_like and full_like.
const rownormSrc = `
kernel rownorm(x *T, out *T, w *f32, n_cols i32, eps f32, BLOCK const i32, T const dtype) {
    row := program_id(0)
    cols := arange(0, BLOCK)
    m := cols < n_cols
    v := load(x + row*n_cols + cols, mask: m, other: 0).to(f32)
    const W = v.shape[0]
    mean := sum(v, axis: 0) / cast(n_cols, f32)
    d := where(m, v - mean, zeros_like(v))
    rvar := rsqrt(sum(d*d, axis: 0)/cast(n_cols, f32) + eps)
    y := d * rvar * load(w + cols, mask: m, other: 0) * full_like(v, W/BLOCK)
    store(out + row*n_cols + cols, y.to(out.dtype.element_ty) + zeros(v.shape, x.dtype.element_ty), mask: m)
}
`

// rownormRef is the row's layer norm in float64 over inputs of dtype d,
// rounded to d.
func rownormRef(d ir.DType, x, w []float64, rows, cols int, eps float64) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < rows; r++ {
		v := x[r*cols : (r+1)*cols]
		var mean, vr float64
		for _, a := range v {
			mean += a
		}
		mean /= float64(cols)
		for _, a := range v {
			vr += (a - mean) * (a - mean)
		}
		vr /= float64(cols)
		for c, a := range v {
			out[r*cols+c] = d.Round((a - mean) / math.Sqrt(vr+eps) * w[c])
		}
	}
	return out
}

// TestDtypeGenericKernel runs one rownorm source as f16, bf16 and f32
// kernels on every device against the float64 reference.
func TestDtypeGenericKernel(t *testing.T) {
	prog, err := tle.Parse("rownorm.tle", []byte(rownormSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("rownorm")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(34, 1))
	const rows, cols = 8, 200
	for _, dev := range tletest.Devices(t) {
		for _, c := range []struct {
			dt  ir.DType
			tol float64
		}{{ir.F16, 2e-3}, {ir.BF16, 1e-2}, {ir.F32, 1e-6}} {
			x := tletest.Round(c.dt, tletest.Randn(r, rows*cols))
			w := tletest.Round(ir.F32, tletest.Randn(r, cols))
			out := tle.NewTensor(rows * cols)
			opts := tle.CompileOptions{Defines: map[string]string{"T": c.dt.String(), "BLOCK": "256"}}
			err := k.Run(dev, [3]int{rows, 1, 1}, opts, map[string]any{
				"x": &tle.Tensor{Shape: []int{rows * cols}, Data: x}, "out": out,
				"w": &tle.Tensor{Shape: []int{cols}, Data: w}, "n_cols": cols, "eps": 1e-5})
			require.NoError(t, err, "T=%s on %s", c.dt, dev.Name())
			want := rownormRef(c.dt, x, w, rows, cols, 1e-5)
			require.Less(t, tletest.RelRMS(out.Data, want), c.tol, "T=%s on %s", c.dt, dev.Name())
			for i, g := range out.Data {
				require.Equal(t, c.dt.Round(g), g, "T=%s: element %d is not a %s value", c.dt, i, c.dt)
			}
		}
	}
}

// TestDtypeGenericLLVM: each binding of T is its own build (the JIT's key
// holds the -D bindings) whose LLVM IR loads and stores T's type.
func TestDtypeGenericLLVM(t *testing.T) {
	prog, err := tle.Parse("rownorm.tle", []byte(rownormSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("rownorm")
	require.NoError(t, err)
	ll := map[string]string{}
	for dt, want := range map[string][]string{
		"f16":  {`i16 addrspace\(1\)\* %x, i16 addrspace\(1\)\* %out`, `fpext half %\w+ to float`, `fptrunc float %\w+ to half`},
		"bf16": {`i16 addrspace\(1\)\* %x, i16 addrspace\(1\)\* %out`, `cvt\.rn\.bf16\.f32`},
		"f32":  {`float addrspace\(1\)\* %x, float addrspace\(1\)\* %out`},
	} {
		a, err := k.Build(tle.CompileOptions{Defines: map[string]string{"T": dt, "BLOCK": "256"}}, tle.GPUOptions{}, "ll")
		require.NoError(t, err, "T=%s", dt)
		ll[dt] = a.LLVMIR
		for _, w := range want {
			require.Regexp(t, regexp.MustCompile(w), a.LLVMIR, "T=%s", dt)
		}
	}
	require.NotEqual(t, ll["f16"], ll["bf16"])
}

// optionalSrc is Triton's optional-tensor pattern: bias may be None (the
// host passes nil), and `if bias != None` and `if BM == BN` are pruned at
// compile time; the pruned `acc.T` branch has shapes valid only when BM ==
// BN.
const optionalSrc = `
kernel add_bias(x *f32, bias *f32, out *f32, BM const i32, BN const i32) {
    r := arange(0, BM)
    c := arange(0, BN)
    acc := load(x + r[:, None]*BN + c[None, :])
    if bias != None {
        acc += load(bias + c)[None, :]
    }
    if BM == BN {
        acc += acc.T
    }
    store(out + r[:, None]*BN + c[None, :], acc)
}
`

// TestOptionalTensor runs add_bias with a bias and with nil (None), square
// and not, against the float64 reference.
func TestOptionalTensor(t *testing.T) {
	prog, err := tle.Parse("optional.tle", []byte(optionalSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("add_bias")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(34, 2))
	for _, dev := range tletest.Devices(t) {
		for _, c := range []struct {
			bm, bn  int
			hasBias bool
		}{{16, 32, true}, {16, 32, false}, {32, 32, true}, {32, 32, false}} {
			x := tletest.Round(ir.F32, tletest.Randn(r, c.bm*c.bn))
			bias := tletest.Round(ir.F32, tletest.Randn(r, c.bn))
			var barg any // nil: None
			if c.hasBias {
				barg = &tle.Tensor{Shape: []int{c.bn}, Data: bias}
			}
			out := tle.NewTensor(c.bm * c.bn)
			opts := tle.CompileOptions{Defines: map[string]string{"BM": fmt.Sprint(c.bm), "BN": fmt.Sprint(c.bn)}}
			err := k.Run(dev, [3]int{1, 1, 1}, opts, map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}, "bias": barg, "out": out})
			require.NoError(t, err, "%+v on %s", c, dev.Name())
			for i := 0; i < c.bm; i++ {
				for j := 0; j < c.bn; j++ {
					a := func(i, j int) float64 {
						v := x[i*c.bn+j]
						if c.hasBias {
							v = float64(float32(v + bias[j]))
						}
						return v
					}
					want := a(i, j)
					if c.bm == c.bn {
						want = float64(float32(want + a(j, i)))
					}
					require.Equal(t, want, out.Data[i*c.bn+j], "%+v: element (%d, %d)", c, i, j)
				}
			}
		}
	}
	// a pointer bound to None takes nil only
	err = k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"BM": "16", "BN": "32", "bias": "None"}},
		map[string]any{"x": tle.NewTensor(512), "bias": tle.NewTensor(32), "out": tle.NewTensor(512)})
	require.ErrorContains(t, err, "argument bias (*f32) is bound to None (-D bias=None): pass nil")
}

// TestOptionalTensorLLVM: with bias None the kernel never reads it (the
// parameter stays, the host passes a null pointer); with a bias it does.
func TestOptionalTensorLLVM(t *testing.T) {
	prog, err := tle.Parse("optional.tle", []byte(optionalSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("add_bias")
	require.NoError(t, err)
	uses := regexp.MustCompile(`getelementptr inbounds float, float addrspace\(1\)\* %bias`)
	for _, none := range []bool{false, true} {
		defines := map[string]string{"BM": "64", "BN": "64"}
		if none {
			defines["bias"] = "None"
		}
		a, err := k.Build(tle.CompileOptions{Defines: defines}, tle.GPUOptions{}, "ll")
		require.NoError(t, err)
		require.Contains(t, a.LLVMIR, "float addrspace(1)* %bias,", "the parameter stays")
		require.Equal(t, !none, uses.MatchString(a.LLVMIR), "bias None: %v", none)
	}
}

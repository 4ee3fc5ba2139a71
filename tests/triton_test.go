package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
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

// dotSrc is one f32 product per input_precision (and allow_tf32: false,
// Triton's older spelling of "ieee"), an f16 product with out_dtype: f16,
// and a batched 3-D product.
const dotSrc = `
kernel dot_prec(a *f32, b *f32, c *f32, M const i32, N const i32, K const i32, P const i32) {
    rm := arange(0, M)
    rn := arange(0, N)
    rk := arange(0, K)
    x := load(a + rm[:, None]*K + rk[None, :])
    y := load(b + rk[:, None]*N + rn[None, :])
    acc := zeros([M, N], f32)
    if P == 0 {
        acc = dot(x, y, acc)
    } else if P == 1 {
        acc = dot(x, y, acc, input_precision: "tf32x3")
    } else if P == 2 {
        acc = dot(x, y, acc, input_precision: "ieee")
    } else {
        acc = dot(x, y, acc, allow_tf32: false)
    }
    store(c + rm[:, None]*N + rn[None, :], acc)
}

kernel dot_f16out(a *f16, b *f16, c *f16, M const i32, N const i32, K const i32) {
    rm := arange(0, M)
    rn := arange(0, N)
    rk := arange(0, K)
    x := load(a + rm[:, None]*K + rk[None, :])
    y := load(b + rk[:, None]*N + rn[None, :])
    acc := zeros([M, N], f16)
    acc = dot(x, y, acc, out_dtype: f16, max_num_imprecise_acc: 32)
    store(c + rm[:, None]*N + rn[None, :], acc)
}

kernel dot_batched(a *f32, b *f32, c *f32, B const i32, M const i32, N const i32, K const i32) {
    rb := arange(0, B)[:, None, None]
    rm := arange(0, M)
    rn := arange(0, N)
    rk := arange(0, K)
    x := load(a + rb*M*K + rm[None, :, None]*K + rk[None, None, :])
    y := load(b + rb*K*N + rk[None, :, None]*N + rn[None, None, :])
    store(c + rb*M*N + rm[None, :, None]*N + rn[None, None, :], dot(x, y, input_precision: "ieee"))
}
`

// matmulRef is a[B,M,K] x b[B,K,N] in float64, each operand first mapped
// by op.
func matmulRef(a, b []float64, B, M, K, N int, op func(float64) float64) []float64 {
	out := make([]float64, B*M*N)
	for bi := 0; bi < B; bi++ {
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				var s float64
				for k := 0; k < K; k++ {
					s += op(a[bi*M*K+i*K+k]) * op(b[bi*K*N+k*N+j])
				}
				out[bi*M*N+i*N+j] = s
			}
		}
	}
	return out
}

// TestDotPrecision runs each precision against the float64 product: tf32
// (the default) is off by tf32's 2^-11, tf32x3 and ieee within f32's
// rounding. On the interpreter ieee is exactly the float64 product rounded
// once, and tf32 exactly the product of the tf32-rounded operands rounded
// once; on the GPU (mma.sync and wgmma sum in their own order) tf32 and
// tf32x3 are within the same bounds, and ieee is refused at the dot.
func TestDotPrecision(t *testing.T) {
	prog, err := tle.Parse("dot.tle", []byte(dotSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("dot_prec")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(34, 3))
	const M, N, K = 64, 64, 64
	a := tletest.Round(ir.F32, tletest.Randn(r, M*K))
	b := tletest.Round(ir.F32, tletest.Randn(r, K*N))
	exact := matmulRef(a, b, 1, M, K, N, func(x float64) float64 { return x })
	tf32 := matmulRef(a, b, 1, M, K, N, floats.RoundTF32)
	ten := func(v []float64) *tle.Tensor { return &tle.Tensor{Shape: []int{len(v)}, Data: v} }
	for _, dev := range tletest.Devices(t) {
		cpu := dev.Name() == tle.CPU().Name()
		errs := map[int]float64{}
		for p := 0; p < 4; p++ {
			c := tle.NewTensor(M * N)
			opts := tle.CompileOptions{Defines: map[string]string{"M": "64", "N": "64", "K": "64", "P": fmt.Sprint(p)}}
			err := k.Run(dev, [3]int{1, 1, 1}, opts, map[string]any{"a": ten(a), "b": ten(b), "c": c})
			if !cpu && p >= 2 {
				require.ErrorContains(t, err, `input_precision "ieee" (or allow_tf32: false) does not run on the GPU`)
				continue
			}
			require.NoError(t, err, "P=%d on %s", p, dev.Name())
			errs[p] = tletest.RelRMS(c.Data, exact)
			switch {
			case cpu && p == 0:
				require.Equal(t, tletest.Round(ir.F32, tf32), c.Data, "tf32")
			case cpu && p >= 2:
				require.Equal(t, tletest.Round(ir.F32, exact), c.Data, "ieee (P=%d)", p)
			}
		}
		t.Logf("%s: relative RMS error against float64: tf32 %.2g, tf32x3 %.2g, ieee %.2g", dev.Name(), errs[0], errs[1], errs[2])
		require.Greater(t, errs[0], 1e-4, "tf32 rounds its operands")
		require.Less(t, errs[0], 2e-3)
		require.Less(t, errs[1], 1e-6, "tf32x3 is about f32")
		require.Less(t, errs[1], errs[0]/100)
		if cpu {
			require.Less(t, errs[2], 1e-7)
		}
	}
}

// TestDotOutDtypeAndBatched: out_dtype f16 (f32 accumulation rounded once
// to f16) and a batched 3-D dot, against float64.
func TestDotOutDtypeAndBatched(t *testing.T) {
	prog, err := tle.Parse("dot.tle", []byte(dotSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(34, 4))
	ten := func(v []float64) *tle.Tensor { return &tle.Tensor{Shape: []int{len(v)}, Data: v} }
	k, err := prog.Kernel("dot_f16out")
	require.NoError(t, err)
	a := tletest.Round(ir.F16, tletest.Randn(r, 32*32))
	b := tletest.Round(ir.F16, tletest.Randn(r, 32*32))
	c := tle.NewTensor(32 * 32)
	require.NoError(t, k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"M": "32", "N": "32", "K": "32"}},
		map[string]any{"a": ten(a), "b": ten(b), "c": c}))
	want := tletest.Round(ir.F16, tletest.Round(ir.F32, matmulRef(a, b, 1, 32, 32, 32, func(x float64) float64 { return x })))
	require.Equal(t, want, c.Data)

	k, err = prog.Kernel("dot_batched")
	require.NoError(t, err)
	const B, M, N, K = 4, 16, 32, 16
	a = tletest.Round(ir.F32, tletest.Randn(r, B*M*K))
	b = tletest.Round(ir.F32, tletest.Randn(r, B*K*N))
	c = tle.NewTensor(B * M * N)
	require.NoError(t, k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"B": "4", "M": "16", "N": "32", "K": "16"}},
		map[string]any{"a": ten(a), "b": ten(b), "c": c}))
	require.Equal(t, tletest.Round(ir.F32, matmulRef(a, b, B, M, K, N, func(x float64) float64 { return x })), c.Data)
}

// TestDotPrecisionLLVM: tf32x3 is three tf32 mma.sync products per step on
// operands split with cvt.rna.tf32.f32; "ieee" and a batched dot are
// refused for the GPU at the dot's position.
func TestDotPrecisionLLVM(t *testing.T) {
	prog, err := tle.Parse("dot.tle", []byte(dotSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("dot_prec")
	require.NoError(t, err)
	mma := regexp.MustCompile(`mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32`)
	calls := map[string]int{}
	for p, name := range map[string]string{"0": "tf32", "1": "tf32x3"} {
		a, err := k.Build(tle.CompileOptions{Defines: map[string]string{"M": "64", "N": "64", "K": "32", "P": p}, DotMMASync: true}, tle.GPUOptions{}, "ll")
		require.NoError(t, err, name)
		calls[name] = len(regexp.MustCompile(`call .*`+mma.String()).FindAllString(a.LLVMIR, -1))
	}
	require.Positive(t, calls["tf32"])
	require.Equal(t, 3*calls["tf32"], calls["tf32x3"], "tf32x3: three products")
	for p, want := range map[string]string{
		"2": `dot.tle:14:15: error: dot: input_precision "ieee" (or allow_tf32: false) does not run on the GPU`,
		"3": `dot.tle:16:15: error: dot: input_precision "ieee" (or allow_tf32: false) does not run on the GPU`,
	} {
		_, err := k.Build(tle.CompileOptions{Defines: map[string]string{"M": "64", "N": "64", "K": "32", "P": p}}, tle.GPUOptions{}, "ll")
		require.ErrorContains(t, err, want)
	}
	k, err = prog.Kernel("dot_batched")
	require.NoError(t, err)
	_, err = k.Build(tle.CompileOptions{Defines: map[string]string{"B": "2", "M": "64", "N": "64", "K": "32"}}, tle.GPUOptions{}, "ll")
	require.ErrorContains(t, err, "error: dot: a batched 3-D dot does not run on the GPU yet")
}

// loopSrc: a while loop (Go's for cond { }), break and continue in a
// counted loop, a while loop with a break, and nested loops whose inner
// break leaves only the inner one.
const loopSrc = `
kernel collatz(x *i32, out *i32) {
    i := program_id(0)
    v := load(x + i)
    steps := 0
    for v != 1 {
        if v%2 == 0 {
            v = v / 2
        } else {
            v = 3*v + 1
        }
        steps += 1
    }
    store(out + i, steps)
}

kernel first_above(x *f32, out *i32, n i32, lim f32) {
    row := program_id(0)
    idx := -1
    odd := 0.0
    for i := range n {
        v := load(x + row*n + i)
        if v > lim {
            idx = i
            break
        }
        if i%2 == 0 {
            continue
        }
        odd += v
    }
    store(out + 2*row, idx)
    store(out + 2*row + 1, cast(odd*1000, i32))
}

kernel while_break(x *f32, out *f32, n i32, lim f32) {
    row := program_id(0)
    i := 0
    acc := zeros([16], f32)
    for i < n {
        v := load(x + row*n*16 + i*16 + arange(0, 16))
        if max(v) > lim {
            break
        }
        acc += v
        i += 1
    }
    store(out + row*16 + arange(0, 16), acc)
}

kernel nested(x *f32, out *i32, n i32, lim f32) {
    row := program_id(0)
    count := 0
    for j := range n {
        for i := range n {
            if load(x + row*n*n + j*n + i) > lim {
                break
            }
            count += 1
        }
    }
    store(out + row, count)
}
`

// TestLoops runs the loops on every device against references written as
// plain Go loops.
func TestLoops(t *testing.T) {
	prog, err := tle.Parse("loops.tle", []byte(loopSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(34, 5))
	ten := func(v []float64) *tle.Tensor { return &tle.Tensor{Shape: []int{len(v)}, Data: v} }
	for _, dev := range tletest.Devices(t) {
		opts := tle.CompileOptions{}
		// collatz
		k, err := prog.Kernel("collatz")
		require.NoError(t, err)
		const P = 64
		xs := make([]float64, P)
		want := make([]float64, P)
		for i := range xs {
			v := 1 + r.IntN(1000)
			xs[i] = float64(v)
			for v != 1 {
				if v%2 == 0 {
					v /= 2
				} else {
					v = 3*v + 1
				}
				want[i]++
			}
		}
		out := tle.NewTensor(P)
		require.NoError(t, k.Run(dev, [3]int{P, 1, 1}, opts, map[string]any{"x": ten(xs), "out": out}))
		require.Equal(t, want, out.Data, "collatz on %s", dev.Name())

		// break and continue
		k, err = prog.Kernel("first_above")
		require.NoError(t, err)
		const n = 40
		x := tletest.Round(ir.F32, tletest.Randn(r, P*n))
		out = tle.NewTensor(2 * P)
		require.NoError(t, k.Run(dev, [3]int{P, 1, 1}, opts, map[string]any{"x": ten(x), "out": out, "n": n, "lim": 1.8}))
		for row := 0; row < P; row++ {
			idx, odd := -1, float32(0)
			for i := 0; i < n; i++ {
				v := x[row*n+i]
				if v > float64(float32(1.8)) {
					idx = i
					break
				}
				if i%2 == 0 {
					continue
				}
				odd += float32(v)
			}
			require.Equal(t, float64(idx), out.Data[2*row], "first_above row %d on %s", row, dev.Name())
			require.Equal(t, float64(int32(odd*1000)), out.Data[2*row+1], "first_above row %d on %s", row, dev.Name())
		}

		// a while loop with a break
		k, err = prog.Kernel("while_break")
		require.NoError(t, err)
		const steps = 12
		x = tletest.Round(ir.F32, tletest.Randn(r, P*steps*16))
		out = tle.NewTensor(P * 16)
		require.NoError(t, k.Run(dev, [3]int{P, 1, 1}, opts, map[string]any{"x": ten(x), "out": out, "n": steps, "lim": 2.2}))
		for row := 0; row < P; row++ {
			acc := make([]float32, 16)
			for i := 0; i < steps; i++ {
				v := x[row*steps*16+i*16 : row*steps*16+i*16+16]
				big := false
				for _, e := range v {
					big = big || e > float64(float32(2.2))
				}
				if big {
					break
				}
				for c := range acc {
					acc[c] += float32(v[c])
				}
			}
			for c := range acc {
				require.Equal(t, float64(acc[c]), out.Data[row*16+c], "while_break row %d on %s", row, dev.Name())
			}
		}

		// an inner break leaves the inner loop only
		k, err = prog.Kernel("nested")
		require.NoError(t, err)
		const m = 12
		x = tletest.Round(ir.F32, tletest.Randn(r, P*m*m))
		out = tle.NewTensor(P)
		require.NoError(t, k.Run(dev, [3]int{P, 1, 1}, opts, map[string]any{"x": ten(x), "out": out, "n": m, "lim": 1.5}))
		for row := 0; row < P; row++ {
			count := 0
			for j := 0; j < m; j++ {
				for i := 0; i < m; i++ {
					if x[row*m*m+j*m+i] > float64(float32(1.5)) {
						break
					}
					count++
				}
			}
			require.Equal(t, float64(count), out.Data[row], "nested row %d on %s", row, dev.Name())
		}
	}
}

// TestLoopsLLVM: a while loop's header tests its flag with the bound, and
// a loop with break exits on its flag too.
func TestLoopsLLVM(t *testing.T) {
	prog, err := tle.Parse("loops.tle", []byte(loopSrc))
	require.NoError(t, err)
	for _, name := range []string{"collatz", "first_above", "while_break", "nested"} {
		k, err := prog.Kernel(name)
		require.NoError(t, err)
		a, err := k.Build(tle.CompileOptions{}, tle.GPUOptions{}, "ll")
		require.NoError(t, err, name)
		require.Regexp(t, regexp.MustCompile(`(?m)^\s+%\w+ = icmp slt i32 %\w+, \S+\n\s+%\w+ = and i1 %\w+, %\w+\n\s+br i1 %\w+, label`), a.LLVMIR, name)
	}
}

// staticSrc: static_range unrolled with a compile-time i in each copy (its
// if pruned per copy), range(...) with num_stages and loop_unroll_factor,
// static_assert.
const staticSrc = `
kernel unrolled(x *f32, out *f32, n i32, BLOCK const i32, U const i32) {
    cols := arange(0, BLOCK)
    acc := zeros([BLOCK], f32)
    for k := range static_range(3) {
        static_assert(k < 3, "k is below 3")
        v := load(x + k*BLOCK + cols)
        if k == 0 {
            acc = v
        } else {
            acc += v * (k + 1)
        }
    }
    total := zeros([BLOCK], f32)
    for i := range(1, n, 2, num_stages: 2, loop_unroll_factor: U) {
        total += load(x + i*BLOCK + cols) * cast(i, f32)
    }
    store(out + cols, acc)
    store(out + BLOCK + cols, total)
}

kernel bad_assert(x *f32, W const i32) {
    static_assert(W%32 == 0, "W must be a multiple of 32")
    store(x + arange(0, 64), cast(W, f32))
}
`

// TestStaticLoops runs static_range and an unrolled range (loop_unroll_factor
// 1 to 4, over a count that is not a multiple of it) against float64.
func TestStaticLoops(t *testing.T) {
	prog, err := tle.Parse("static.tle", []byte(staticSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("unrolled")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(34, 6))
	const B, n = 32, 11
	x := tletest.Round(ir.F32, tletest.Randn(r, n*B))
	for _, dev := range tletest.Devices(t) {
		for u := 1; u <= 4; u++ {
			out := tle.NewTensor(2 * B)
			opts := tle.CompileOptions{Defines: map[string]string{"BLOCK": "32", "U": fmt.Sprint(u)}}
			require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, opts, map[string]any{"x": &tle.Tensor{Shape: []int{len(x)}, Data: x}, "out": out, "n": n}))
			for c := 0; c < B; c++ {
				acc := float32(x[c])
				for kk := 1; kk < 3; kk++ {
					acc += float32(x[kk*B+c]) * float32(kk+1)
				}
				var total float32
				for i := 1; i < n; i += 2 {
					total += float32(x[i*B+c]) * float32(i)
				}
				require.Equal(t, float64(acc), out.Data[c], "static_range, column %d, U=%d on %s", c, u, dev.Name())
				require.Equal(t, float64(total), out.Data[B+c], "range, column %d, U=%d on %s", c, u, dev.Name())
			}
		}
	}
	k, err = prog.Kernel("bad_assert")
	require.NoError(t, err)
	err = k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"W": "48"}}, map[string]any{"x": tle.NewTensor(64)})
	require.ErrorContains(t, err, "static.tle:23:5: error: static_assert failed: W must be a multiple of 32")
}

// mmLoopSrc is a K loop whose range sets num_stages and loop_unroll_factor.
const mmLoopSrc = `
kernel mm(a *f16, b *f16, c *f32, K i32, S const i32, U const i32) {
    rm := arange(0, 64)
    rn := arange(0, 64)
    rk := arange(0, 32)
    acc := zeros([64, 64], f32)
    for k := range(0, K, 32, num_stages: S, loop_unroll_factor: U) {
        x := load(a + rm[:, None]*K + (k + rk)[None, :])
        y := load(b + (k + rk)[:, None]*64 + rn[None, :])
        acc = dot(x, y, acc)
    }
    store(c + rm[:, None]*64 + rn[None, :], acc)
}
`

// TestRangeOptionsLLVM: num_stages 1 keeps the loop's loads synchronous
// (no cp.async), 3 pipelines them; loop_unroll_factor 2 has two products
// per iteration.
func TestRangeOptionsLLVM(t *testing.T) {
	prog, err := tle.Parse("mm.tle", []byte(mmLoopSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("mm")
	require.NoError(t, err)
	build := func(s, u string) string {
		a, err := k.Build(tle.CompileOptions{Defines: map[string]string{"S": s, "U": u}}, tle.GPUOptions{}, "ll")
		require.NoError(t, err, "S=%s U=%s", s, u)
		return a.LLVMIR
	}
	mma := regexp.MustCompile(`call [^\n]*wgmma\.mma_async`)
	one, three, unrolled := build("1", "1"), build("3", "1"), build("1", "2")
	require.NotContains(t, one, "cp.async")
	require.Contains(t, three, "cp.async")
	require.Len(t, mma.FindAllString(unrolled, -1), 2*len(mma.FindAllString(one, -1)))
	require.NotEmpty(t, mma.FindAllString(one, -1))
}

// TestLayerNormPort runs docs/examples/layer_norm_port.tle, Triton's
// tutorial 05 forward kernel ported line by line (docs/triton.md), as f16
// and bf16, with a bias and with None, on every device against float64.
func TestLayerNormPort(t *testing.T) {
	prog, err := tle.LoadFile("../docs/examples/layer_norm_port.tle")
	require.NoError(t, err)
	k, err := prog.Kernel("layer_norm_fwd_fused")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(34, 7))
	const rows, n, stride = 5, 300, 304
	ten := func(v []float64) *tle.Tensor { return &tle.Tensor{Shape: []int{len(v)}, Data: v} }
	for _, dev := range tletest.Devices(t) {
		for _, dt := range []ir.DType{ir.F16, ir.BF16} {
			for _, bias := range []bool{true, false} {
				x := tletest.Round(dt, tletest.Randn(r, rows*stride))
				w := tletest.Round(dt, tletest.Randn(r, n))
				b := tletest.Round(dt, tletest.Randn(r, n))
				y, mean, rstd := tle.NewTensor(rows*stride), tle.NewTensor(rows), tle.NewTensor(rows)
				var barg any
				if bias {
					barg = ten(b)
				}
				opts := tle.CompileOptions{Defines: map[string]string{"T": dt.String(), "BLOCK_SIZE": "128"}}
				require.NoError(t, k.Run(dev, [3]int{rows, 1, 1}, opts, map[string]any{"X": ten(x), "Y": y, "W": ten(w), "B": barg,
					"Mean": mean, "Rstd": rstd, "stride": stride, "N": n, "eps": 1e-5}))
				var got, want []float64
				for row := 0; row < rows; row++ {
					xs := x[row*stride : row*stride+n]
					var m, v float64
					for _, a := range xs {
						m += a
					}
					m /= n
					for _, a := range xs {
						v += (a - m) * (a - m)
					}
					rs := 1 / math.Sqrt(v/n+1e-5)
					require.InEpsilon(t, m, mean.Data[row], 1e-5)
					require.InEpsilon(t, rs, rstd.Data[row], 1e-5)
					for c, a := range xs {
						ref := (a - m) * rs * w[c]
						if bias {
							ref += b[c]
						}
						want = append(want, dt.Round(ref))
						got = append(got, y.Data[row*stride+c])
					}
				}
				tol := map[ir.DType]float64{ir.F16: 2e-3, ir.BF16: 1e-2}[dt]
				require.Less(t, tletest.RelRMS(got, want), tol, "T=%s bias %v on %s", dt, bias, dev.Name())
			}
		}
	}
	// and it builds for the GPU, bias or not
	for _, b := range []string{"", "None"} {
		defines := map[string]string{"T": "f16", "BLOCK_SIZE": "1024"}
		if b != "" {
			defines["B"] = b
		}
		_, err := k.Build(tle.CompileOptions{Defines: defines}, tle.GPUOptions{}, "ll")
		require.NoError(t, err, "B=%q", b)
	}
}

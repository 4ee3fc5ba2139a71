package tests

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/lower"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
	"github.com/tlego/tle/runtime/interp"
	"github.com/tlego/tle/tle"
)

// The elide-transpose pass turns a transposed shared view feeding wgmma into
// the wgmma's trans flag on the plain buffer: wgmma(sa, sb.T, acc) and
// wgmma(sa, sb, acc, trans_b: true) must compile to the same wgmma
// instructions and compute the same product (c = a @ b^T, b stored [N, K]).
// The third kernel double-transposes a (sa.T.T), which cancels.
var elideTransposeSrc = elideTransposeKernelSrc("viewT", "wgmma(sa, sb.T, zeros([64, 64], f32))") +
	elideTransposeKernelSrc("flag", "wgmma(sa, sb, zeros([64, 64], f32), trans_b: true)") +
	elideTransposeKernelSrc("doubleT", "wgmma(sa.T.T, sb.T, zeros([64, 64], f32))")

// elideTransposeKernelSrc is a kernel name of elideTransposeSrc: a and b
// loaded into shared buffers sa and sb, c = the product mma.
func elideTransposeKernelSrc(name, mma string) string {
	return `
kernel ` + name + `(a *bf16, b *bf16, c *f32) {
    r := arange(0, 64)
    tile := r[:, None]*64 + r[None, :]
    sa := alloc([64, 64], bf16)
    sb := alloc([64, 64], bf16)
    store(sa, load(a + tile))
    store(sb, load(b + tile))
    acc := ` + mma + `
    wgmma_wait(0)
    store(c + tile, acc)
}
`
}

func elideTransposeKernel(t *testing.T, name string) *tle.Kernel {
	t.Helper()
	prog, err := tle.Parse("elide_transpose.tle", []byte(elideTransposeSrc))
	require.NoError(t, err)
	k, err := prog.Kernel(name)
	require.NoError(t, err)
	return k
}

// TestElideTransposeIR: after the pipeline no memdesc_trans is left and the
// wgmma reads the plain buffers with trans_b set, saying what it folded.
func TestElideTransposeIR(t *testing.T) {
	for _, name := range []string{"viewT", "doubleT"} {
		m, err := elideTransposeKernel(t, name).IR(tle.CompileOptions{VerifyEach: true})
		require.NoError(t, err, name)
		text := ir.Print(m)
		require.NotContains(t, text, "memdesc_trans(", name)
		var mma *ir.Op
		m.Funcs[0].Walk(func(op *ir.Op) {
			if op.Kind == ir.OpWgmma {
				mma = op
			}
		})
		require.NotNil(t, mma, name)
		require.False(t, mma.Attrs.Bool("trans_a"), name)
		require.True(t, mma.Attrs.Bool("trans_b"), name)
		for j, want := range []string{"sa", "sb"} {
			require.Equal(t, ir.OpAlloc, mma.Operands[j].Def.Kind, "%s: operand %d reads the buffer itself", name, j)
			require.Equal(t, want, mma.Operands[j].Name, name)
		}
		require.Contains(t, mma.Attrs.String("elided"), "b: memdesc_trans of ", name)
		require.Contains(t, mma.Attrs.String("elided"), "-> trans_b = true", name)
	}
}

// TestElideTransposePTX compiles the three kernels to PTX with llc-19 and
// requires the same wgmma instructions (forms, descriptors' registers and
// transpose immediates) from each. viewT and doubleT are also compiled with
// elide-transpose disabled, the backend then describing the transposed
// views themselves: the same instructions again, so the flag on the plain
// buffer means to the backend exactly what the view meant.
func TestElideTransposePTX(t *testing.T) {
	if _, err := exec.LookPath("llc-19"); err != nil {
		t.Skip("llc-19 not installed (CI installs llvm-19)")
	}
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	wgmmaLine := regexp.MustCompile(`(?m)^\s+wgmma\.\S.*$`)
	ptx := map[string][]string{}
	lines := func(b *tle.Binary) []string {
		var out []string
		for _, l := range wgmmaLine.FindAllString(b.PTX, -1) {
			out = append(out, strings.TrimSpace(l))
		}
		return out
	}
	for _, name := range []string{"viewT", "flag", "doubleT"} {
		b, err := elideTransposeKernel(t, name).Compile(tle.CompileOptions{}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, name)
		ptx[name] = lines(b)
	}
	for _, name := range []string{"viewT", "doubleT"} {
		b, err := tle.CompileModule(lowerWithout(t, name, "elide-transpose"), name, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, name+" without elide-transpose")
		ptx[name+" (views kept)"] = lines(b)
	}
	// b stored [N, K] is K-major: transpose immediates 0, 0; 4 k16 steps
	mma := regexp.MustCompile(`^wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){31}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1, 0, 0;$`)
	n := 0
	for _, l := range ptx["flag"] {
		if strings.HasPrefix(l, "wgmma.mma_async") {
			require.Regexp(t, mma, l)
			n++
		}
	}
	require.Equal(t, 4, n, "4 k16 steps:\n%s", strings.Join(ptx["flag"], "\n"))
	require.Equal(t, ptx["flag"], ptx["viewT"], "wgmma(sa, sb.T, acc) and wgmma(sa, sb, acc, trans_b: true)")
	require.Equal(t, ptx["flag"], ptx["doubleT"], "wgmma(sa.T.T, sb.T, acc) and wgmma(sa, sb, acc, trans_b: true)")
	require.Equal(t, ptx["flag"], ptx["viewT (views kept)"], "wgmma(sa, sb.T, acc) not elided and wgmma(sa, sb, acc, trans_b: true)")
	require.Equal(t, ptx["flag"], ptx["doubleT (views kept)"], "wgmma(sa.T.T, sb.T, acc) not elided and wgmma(sa, sb, acc, trans_b: true)")
}

// TestElideTransposeInterp runs the kernels on the interpreter: the same
// result, c = a @ b^T, from each, both through the full pipeline (the
// transposes elided) and with elide-transpose disabled (the interpreter
// reading the memdesc_trans views).
func TestElideTransposeInterp(t *testing.T) {
	const n = 64
	a, b := tle.NewTensor(n, n), tle.NewTensor(n, n)
	for i := range a.Data {
		// small halves: exact in bf16, sums exact in f32
		a.Data[i] = float64((i*7)%9-4) / 2
		b.Data[i] = float64((i*5+3)%11-5) / 2
	}
	want := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for l := 0; l < n; l++ {
				s += a.Data[i*n+l] * b.Data[j*n+l]
			}
			want[i*n+j] = s
		}
	}
	for _, name := range []string{"viewT", "flag", "doubleT"} {
		c := tle.NewTensor(n, n)
		err := elideTransposeKernel(t, name).Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{VerifyEach: true},
			map[string]any{"a": a, "b": b, "c": c})
		require.NoError(t, err, name)
		require.Equal(t, want, c.Data, name)

		// the same kernel without the pass: the views stay and the
		// interpreter runs them
		m := lowerWithout(t, name, "elide-transpose")
		if name != "flag" {
			require.Contains(t, ir.Print(m), "memdesc_trans(", name)
		}
		out := interp.FromFloat64(ir.F32, make([]float64, n*n))
		args := []interp.Arg{interp.FromFloat64(ir.BF16, a.Data), interp.FromFloat64(ir.BF16, b.Data), out}
		require.NoError(t, interp.Launch(m, name, [3]int{1, 1, 1}, args, interp.Options{}), name)
		require.Equal(t, want, out.Float64(), name+" without elide-transpose")
	}
}

// lowerWithout lowers kernel name of elideTransposeSrc and runs the pass
// pipeline with pass disabled.
func lowerWithout(t *testing.T, name, pass string) *ir.Module {
	t.Helper()
	f, err := parser.ParseFile("elide_transpose.tle", []byte(elideTransposeSrc))
	require.NoError(t, err)
	_, errs := check.Check(f, check.Config{})
	require.False(t, errs.HasErrors(), "%v", errs)
	m, err := lower.Kernel(f, name, lower.Options{})
	require.NoError(t, err)
	require.NoError(t, passes.Run(m, passes.Options{VerifyEach: true, Disable: []string{pass}}))
	return m
}

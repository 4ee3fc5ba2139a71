package lower

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/ir"
)

// TestEveryBuiltinLowers checks the lowerings against the builtin table:
// every row has one (an alias row, that of the builtin it aliases), and
// every lowering is a row's.
func TestEveryBuiltinLowers(t *testing.T) {
	rows := map[string]bool{}
	for _, b := range check.Builtins() {
		rows[b.CallName()] = true
		assert.NotNil(t, lowerings[loweringKey(b)], "%s has no lowering", b.CallName())
		if b.Recv == "" {
			assert.True(t, IsBuiltin(b.Name), b.Name)
		}
	}
	for key := range lowerings {
		assert.True(t, rows[key], "lowering %s is no builtin's", key)
	}
}

// TestKeywordArguments lowers calls that name their arguments as the
// builtin table does, methods included (the lowering once bound the slot
// and pipe methods' i by a name of its own).
func TestKeywordArguments(t *testing.T) {
	src := `kernel k(x *f32, out *f32) {
    buf := alloc(dtype: f32, shape: [2, 64])
    r := arange(end: 64, start: 0)
    store(buf.slot(i: 0), load(ptr: x + r))
    pp := pipe(capacity: 2, w: [64]f32)
    w := pp.acquire(i: 0)
    store(w.w, load(buf.slot(i: 0)))
    pp.commit(i: 0)
    s := pp.wait(i: 0)
    store(value: cast(dtype: f32, x: load(s.w)), ptr: out + r)
    pp.release(i: 0)
}
`
	m := lowerSource(t, "kw.tle", src)
	text := ir.Print(m)
	for _, op := range []string{"memdesc_index", "pipe_acquire", "pipe_commit", "pipe_wait", "pipe_release"} {
		assert.True(t, strings.Contains(text, op), "no %s in\n%s", op, text)
	}
}

// TestFMALowers checks fma lowers to one fma op of the promoted type: the
// untyped constants become constants of that dtype, a narrower operand is
// cast, a scalar splat, and a row and a column broadcast to the tile; three
// untyped constants give f32.
func TestFMALowers(t *testing.T) {
	src := `kernel k(a *f16, b *bf16, out *f32, f f32) {
    r := arange(0, 16)
    h := load(a + r)
    store(out + r, fma(h, load(b + r), f))
    store(out + r, cast(fma(h, h, 1), f32))
    store(out + r[:, None]*16 + r[None, :], fma(h[:, None], f, h[None, :]))
    store(out, fma(1, 2, 0.5))
}
`
	text := ir.Print(lowerSource(t, "fma.tle", src))
	for _, want := range []string{
		"fma(%", ") : [16]f32 loc(", // f16 * bf16 + f32
		"{value = 1.0} : [16]f16", ") : [16]f16 loc(", // fma(h, h, 1)
		") : [16,16]f32 loc(",
		"{value = 0.5} : f32",
	} {
		assert.Contains(t, text, want)
	}
	assert.Equal(t, 4, strings.Count(text, "= fma("), text)
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "= fma(") {
			assert.Regexp(t, `: (\[16\]f32|\[16\]f16|\[16,16\]f32|f32) loc`, l)
		}
	}
}

// TestDotScaledLowers: dot_scaled is no op of its own but Triton's
// emulation in ordinary ops ending in one dot, whose operands are the
// upcast and scaled tiles in the compute dtype (bf16; f16 with an fp16
// operand) at their unpacked shapes: fp4 packed along K, M or N doubles
// that dimension, and the scales are broadcast along K with a reshape.
func TestDotScaledLowers(t *testing.T) {
	src := `kernel k(a *u8, s *u8, b *f8e5m2, h *u16, out *f32) {
    m := arange(0, 32)
    k := arange(0, 64)
    g := arange(0, 2)
    x := load(a + m[:, None]*32 + m[None, :])
    xs := load(s + m[:, None]*2 + g[None, :])
    y := load(b + k[:, None]*32 + m[None, :])
    yn := load(a + k[:, None]*16 + arange(0, 16)[None, :])
    xm := load(a + arange(0, 16)[:, None]*64 + k[None, :])
    yh := load(h + k[:, None]*32 + m[None, :])
    store(out + m[:, None]*32 + m[None, :], dot_scaled(x, xs, "e2m1", y, xs, "e5m2"))
    store(out + m[:, None]*32 + m[None, :], dot_scaled(xm, None, "e2m1", yn, xs, "e2m1", lhs_k_pack: false, rhs_k_pack: false))
    store(out + m[:, None]*32 + m[None, :], dot_scaled(x, None, "e2m1", yh, None, "fp16"))
}
`
	m := lowerSource(t, "ds.tle", src)
	require.NoError(t, ir.Verify(m), ir.Print(m))
	var dots []*ir.Op
	m.Funcs[0].Walk(func(op *ir.Op) {
		if op.Kind == ir.OpDot {
			dots = append(dots, op)
		}
	})
	require.Len(t, dots, 3)
	for i, want := range []ir.DType{ir.BF16, ir.BF16, ir.F16} {
		a, b := dots[i].Operands[0].Type, dots[i].Operands[1].Type
		assert.Equal(t, []int{32, 64}, ir.ShapeOf(a), "dot %d: lhs", i)
		assert.Equal(t, []int{64, 32}, ir.ShapeOf(b), "dot %d: rhs", i)
		assert.Equal(t, want, ir.ElemDType(a), "dot %d", i)
		assert.Equal(t, want, ir.ElemDType(b), "dot %d", i)
		assert.Equal(t, ir.F32, ir.ElemDType(dots[i].Results[0].Type), "dot %d", i)
	}
	text := ir.Print(m)
	assert.NotContains(t, text, "dot_scaled")
	// the scaled operands: a product in the compute dtype before the dot
	assert.Contains(t, text, "bitcast(")
	assert.Contains(t, text, "reshape(")
}

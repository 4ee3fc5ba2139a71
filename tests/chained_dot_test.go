package tests

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// A chained product (the result of one dot is the a operand of the next, as
// P V in attention or the KDA recurrence) puts all warps along M, and the
// accumulator becomes the next a operand in registers: no shared-memory
// staging for it. A row vector scaling the product is converted before it
// is broadcast (a [64] conversion, not a [64, 64] one).
const chainedDotSrc = `
kernel chain(a *bf16, b *bf16, c *bf16, s *f32, out *f32) {
    r := arange(0, 64)
    q := arange(0, 16)
    n := arange(0, 64)
    A := load(a + r[:, None]*16 + q[None, :])
    B := load(b + q[:, None]*16 + q[None, :])
    C := load(c + q[:, None]*64 + n[None, :])
    P := dot(A, B)
    O := dot(P.to(bf16), C) * load(s + n)[None, :]
    store(out + r[:, None]*64 + n[None, :], O)
}
`

func TestChainedDotStaysInRegisters(t *testing.T) {
	prog, err := tle.Parse("chain.tle", []byte(chainedDotSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("chain")
	require.NoError(t, err)
	// by default both products run as wgmma: the first from shared
	// operands (loaded from memory, staged), the second, whose a operand
	// is computed and whose N is 64, in the register-A form: P's cast
	// feeds it as it is, not staged
	a, err := k.Build(tle.CompileOptions{NumWarps: 4}, tle.GPUOptions{}, "ll")
	require.NoError(t, err)
	require.Len(t, regexp.MustCompile(`= wgmma\(`).FindAllString(a.TIR, -1), 2, a.TIR)
	require.Len(t, regexp.MustCompile(`= dot\(`).FindAllString(a.TIR, -1), 0, a.TIR)
	require.Len(t, regexp.MustCompile(`= alloc\(`).FindAllString(a.TIR, -1), 3, "A, B and C staged; P not: %s", a.TIR)
	pc := regexp.MustCompile(`(?m)^\s*(%\d+) = cast\(`).FindStringSubmatch(a.TIR)
	require.NotNil(t, pc, a.TIR)
	require.Regexp(t, `= wgmma\(`+pc[1]+`,`, a.TIR, "P is the register a operand")

	// with both on mma.sync, the chain stays in registers
	a, err = k.Build(tle.CompileOptions{NumWarps: 4, DotMMASync: true}, tle.GPUOptions{}, "ll")
	require.NoError(t, err)
	tir := a.TIR
	dots := regexp.MustCompile(`= dot\(.*#(mma<[^>]*>)`).FindAllStringSubmatch(tir, -1)
	require.Len(t, dots, 2, tir)
	for _, d := range dots {
		require.Equal(t, "mma<[4,1]>", d[1], "a chained dot puts the warps along M")
	}
	// a, b and c are staged for ldmatrix; P is not
	require.Len(t, regexp.MustCompile(`= alloc\(`).FindAllString(tir, -1), 3, tir)
	// here the [64, 16] accumulator and a operand layouts coincide: the
	// cast feeds the dot as it is
	require.Regexp(t, `(?m)^\s*(%\d+) = cast\(%\d+\) : \[64,16\]bf16#mma<\[4,1\]>`, tir)
	cast := regexp.MustCompile(`(?m)^\s*(%\d+) = cast\(`).FindStringSubmatch(tir)[1]
	require.Regexp(t, `= dot\(`+cast+`,`, tir, "P becomes the a operand in registers")
	require.NotRegexp(t, `convert_layout\(.*: \[64,64\]f32#mma`, tir, "the scale row is converted before the broadcast")
	require.Regexp(t, `convert_layout\(.*: \[64\]f32#slice<0,mma<\[4,1\]>>`, tir)
	require.Contains(t, a.LLVMIR, "mma.sync")
}

package tle

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

func TestCompileTutorials(t *testing.T) {
	prog, err := LoadFile("../kernels/tutorials/softmax.tle")
	require.NoError(t, err)
	require.Equal(t, []string{"softmax"}, prog.Kernels())
	k, err := prog.Kernel("softmax")
	require.NoError(t, err)
	require.Equal(t, Param{Name: "BLOCK", Type: "i32", Const: true}, k.Params()[4])
	_, err = k.IR(CompileOptions{})
	require.ErrorContains(t, err, "BLOCK of kernel softmax is not bound")
	m, err := k.IR(CompileOptions{Defines: map[string]string{"BLOCK": "1024"}, VerifyEach: true})
	require.NoError(t, err)
	require.Len(t, m.Funcs, 1)
	t.Log(ir.Print(m))
}

// MinCTAsPerSM becomes the kernel's minctasm annotation (ptxas then caps
// the registers so that many CTAs fit on an SM), and is part of the JIT key.
func TestMinCTAsPerSM(t *testing.T) {
	k := tutorialKernel(t, "softmax")
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "1024"}}
	a, err := k.Build(opts, GPUOptions{}, "ll")
	require.NoError(t, err)
	require.NotContains(t, a.LLVMIR, `!"minctasm"`)
	opts.MinCTAsPerSM = 3
	a, err = k.Build(opts, GPUOptions{}, "ll")
	require.NoError(t, err)
	require.Contains(t, a.LLVMIR, `!"minctasm", i32 3}`)
	require.NotEqual(t, bindingKey(CompileOptions{Defines: opts.Defines}), bindingKey(opts))
}

// By default the tutorial matmul's dot runs as wgmma on shared operands
// that the cp.async pipeliner streams; with DotMMASync it stays mma.sync.
func TestDotWgmma(t *testing.T) {
	k := tutorialKernel(t, "matmul")
	opts := CompileOptions{Defines: map[string]string{"BM": "128", "BN": "64", "BK": "64"}, Div16: []string{"M", "N", "K"}, DotMMASync: true}
	a, err := k.Build(opts, GPUOptions{}, "ll")
	require.NoError(t, err)
	require.Contains(t, a.TIR, "= dot(")
	require.NotContains(t, a.LLVMIR, "wgmma.mma_async")
	require.Contains(t, a.LLVMIR, "mma.sync.aligned.m16n8k16")

	opts.DotMMASync = false
	a, err = k.Build(opts, GPUOptions{}, "ll")
	require.NoError(t, err)
	require.NotContains(t, a.TIR, "= dot(")
	require.Contains(t, a.TIR, "= wgmma(")
	require.Contains(t, a.TIR, "async_copy(", "the wgmma operands are pipelined with cp.async")
	require.Contains(t, a.LLVMIR, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16")
	require.Contains(t, a.LLVMIR, "wgmma.wait_group.sync.aligned 0")
	require.NotContains(t, a.LLVMIR, "mma.sync.aligned.m16n8k16")

	// a target without wgmma keeps mma.sync
	a, err = k.Build(opts, GPUOptions{Arch: "sm_90"}, "ll")
	require.NoError(t, err)
	require.NotContains(t, a.LLVMIR, "wgmma.mma_async")
	require.Contains(t, a.LLVMIR, "mma.sync.aligned.m16n8k16")
	if _, err := exec.LookPath("llc-19"); err == nil {
		b, err := k.Build(opts, GPUOptions{Toolchain: "llc"}, "ptx")
		require.NoError(t, err)
		require.Regexp(t, `wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16`, b.Binary.PTX)
		require.Regexp(t, `cp\.async\.cg\.shared\.global`, b.Binary.PTX)
	}
}

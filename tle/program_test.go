package tle

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/tle/ir"
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
	prog, err := LoadFile("../kernels/tutorials/softmax.tle")
	require.NoError(t, err)
	k, err := prog.Kernel("softmax")
	require.NoError(t, err)
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

package tle

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/diag"
)

func TestCheckTarget(t *testing.T) {
	prog, err := Parse("t.tle", []byte(`kernel d(a *i8, c *i32) {
    r := arange(0, 16)
    x := load(a + r[:, None] * 16 + r[None, :])
    store(c + r[:, None] * 16 + r[None, :], dot(x, x))
}

kernel s(x *f32, N const i32) {
    store(x + arange(0, N), 1.0)
}
`))
	require.NoError(t, err)
	d, err := prog.Kernel("d")
	require.NoError(t, err)
	err = d.CheckTarget(CompileOptions{}, GPUOptions{})
	var dg *diag.Diagnostic
	require.True(t, errors.As(err, &dg), "%v", err)
	require.Equal(t, "t.tle:4:45: error: dot: dot of i8 x i8: mma.sync needs f16, bf16, fp8 or f32 (tf32) operands", dg.Error())
	s, err := prog.Kernel("s")
	require.NoError(t, err)
	err = s.CheckTarget(CompileOptions{}, GPUOptions{Arch: "sm_90"})
	require.True(t, errors.As(err, &dg), "%v", err)
	require.Equal(t, diag.Note, dg.Severity)
	require.Equal(t, "t.tle:7:8: note: kernel s was not compiled for sm_90: its compile-time parameter N is not bound (bind it with -D N=VALUE)", dg.Error())
	require.NoError(t, s.CheckTarget(CompileOptions{Defines: map[string]string{"N": "128"}}, GPUOptions{}))
	require.Error(t, s.CheckTarget(CompileOptions{}, GPUOptions{Arch: "sm_70"}))

	err = prog.CheckTarget(CompileOptions{Defines: map[string]string{"N": "128"}}, GPUOptions{})
	var l diag.List
	require.True(t, errors.As(err, &l), "%v", err)
	require.Len(t, l, 1)
	require.True(t, l.HasErrors())
	p2, err := Parse("u.tle", []byte("kernel s(x *f32, N const i32) {\n    store(x + arange(0, N), 1.0)\n}\n"))
	require.NoError(t, err)
	err = p2.CheckTarget(CompileOptions{}, GPUOptions{})
	require.True(t, errors.As(err, &l), "%v", err)
	require.False(t, l.HasErrors())
	require.NoError(t, p2.CheckTarget(CompileOptions{Defines: map[string]string{"N": "64"}}, GPUOptions{}))
}

package tle

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A dry GPU runs host code unchanged and records each distinct build,
// with Div16 taken from the arguments as a real GPU's Prepare takes it.
func TestDryGPURecordsBuilds(t *testing.T) {
	g := DryGPU(H200)
	require.True(t, g.Dry())
	k := tutorialKernel(t, "vector_add")
	x, err := g.Alloc(F32, 1024)
	require.NoError(t, err)
	y, err := g.Upload(F32, []float64{1, 2, 3})
	require.NoError(t, err)
	require.NotEqual(t, x.Ptr, y.Ptr)
	require.Zero(t, x.Ptr%16)
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "256"}}
	for _, n := range []int{1024, 1024, 1000} {
		p, err := g.Prepare(k, opts, [3]int{4, 1, 1}, x, x, x, n)
		require.NoError(t, err)
		require.NoError(t, p.Launch())
		tm, err := g.Time(2, 5, p.Launch)
		require.NoError(t, err)
		require.Zero(t, tm.MedianMs)
		require.NoError(t, p.Close())
	}
	b := g.Builds()
	require.Len(t, b, 2, "n=1024 twice is one build; n=1000 is not a multiple of 16")
	require.Contains(t, b[0].Key(), "div16=[n]")
	require.Contains(t, b[1].Key(), "div16=[]")
	sms, err := g.SMs()
	require.NoError(t, err)
	require.Equal(t, 132, sms)
	got, err := g.Download(y)
	require.NoError(t, err)
	require.Equal(t, []float64{0, 0, 0}, got)
	_, err = g.LoadBinary(&Binary{Kernel: "k"})
	require.ErrorContains(t, err, "dry GPU")
	require.True(t, strings.HasSuffix(g.Name(), "(dry run)"))
	require.Nil(t, (&GPU{}).Builds())
}

// The LLVM IR of a dry build is the one the JIT compiles: Kernel.Build's
// "ll" and the JIT share emitModule.
func TestBuildLLMatchesJIT(t *testing.T) {
	k := tutorialKernel(t, "vector_add")
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "256"}}
	art, err := k.Build(opts, GPUOptions{}, "ll")
	require.NoError(t, err)
	m, err := k.IR(opts)
	require.NoError(t, err)
	b, err := emitModule(m, k.Name(), opts, GPUOptions{}.withDefaults())
	require.NoError(t, err)
	require.Equal(t, art.LLVMIR, b.LLVMIR)
	require.Equal(t, 4, b.NumWarps)
}

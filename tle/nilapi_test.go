package tle

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// The Go API answers misuse with errors, never a panic: a nil file
// system, a directory given as a file, nil programs and kernels.
func TestAPIMisuse(t *testing.T) {
	_, err := Load(nil, "k.tle")
	require.ErrorContains(t, err, "nil fs.FS")
	fsys := fstest.MapFS{"dir/k.tle": &fstest.MapFile{Data: []byte("kernel k(x *f32) {}\n")}}
	_, err = Load(fsys, "dir")
	require.ErrorContains(t, err, "dir is a directory, not a .tle file")
	var k *Kernel
	_, err = k.IR(CompileOptions{})
	require.ErrorContains(t, err, "IR of a nil *tle.Kernel")
	_, err = k.Build(CompileOptions{}, GPUOptions{}, "ll")
	require.ErrorContains(t, err, "nil *tle.Kernel")
	_, err = k.Compile(CompileOptions{}, GPUOptions{})
	require.ErrorContains(t, err, "nil *tle.Kernel")
	require.ErrorContains(t, k.CheckTarget(CompileOptions{}, GPUOptions{}), "nil *tle.Kernel")
	require.Equal(t, "", k.Name())
	require.Nil(t, k.Params())
	var p *Program
	_, err = p.Kernel("k")
	require.ErrorContains(t, err, "nil *tle.Program")
	require.Nil(t, p.Kernels())
	_, err = tutorialKernel(t, "vector_add").IR(CompileOptions{DumpAfter: "bogus", Defines: map[string]string{"BLOCK": "64"}})
	require.ErrorContains(t, err, `dump after "bogus": no such pass`)
}

// Every Run asked for dumps writes them, the second as the first (the
// compile cache kept the second from compiling, so it dumped nothing).
func TestDumpAfterEveryRun(t *testing.T) {
	k := tutorialKernel(t, "vector_add")
	x := NewTensor(64)
	for i := range x.Data {
		x.Data[i] = float64(i + 1)
	}
	for round := range 2 {
		dir := t.TempDir()
		opts := CompileOptions{Defines: map[string]string{"BLOCK": "64"}, DumpAfter: "all", DumpDir: dir}
		require.NoError(t, k.Run(CPU(), [3]int{1, 1, 1}, opts, map[string]any{"x": x, "y": x, "out": NewTensor(64), "n": 64}))
		files, err := filepath.Glob(filepath.Join(dir, "*.tir"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "round %d dumped nothing", round)
		_, err = os.Stat(files[0])
		require.NoError(t, err)
	}
}

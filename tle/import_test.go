package tle

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var importFiles = fstest.MapFS{
	"parts/scale.tle": {Data: []byte("const SCALE = 3.0\n\nfunc scaled(x f32) f32 {\n    return x*SCALE + 1\n}\n")},
	"app/main.tle": {Data: []byte(`import "../parts/scale.tle"

kernel k(x *f32, out *f32) {
    offs := arange(0, 8)
    store(out + offs, scaled(load(x + offs)))
}
`)},
}

// A kernel whose helper comes from an imported file compiles and runs on
// the interpreter, loaded from an fs.FS and from disk alike; the JIT key
// covers the imported file's text.
func TestImportedHelperRuns(t *testing.T) {
	dir := t.TempDir()
	for name, f := range importFiles {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), f.Data, 0o644))
	}
	fromFS, err := Load(importFiles, "app/main.tle")
	require.NoError(t, err)
	fromDisk, err := LoadFile(filepath.Join(dir, "app", "main.tle"))
	require.NoError(t, err)
	for _, prog := range []*Program{fromFS, fromDisk} {
		k, err := prog.Kernel("k")
		require.NoError(t, err)
		x, out := NewArray[float32](8), NewArray[float32](8)
		for i := range x.Data {
			x.Data[i] = float32(i)
		}
		require.NoError(t, k.Run(CPU(), [3]int{1, 1, 1}, CompileOptions{}, map[string]any{"x": x, "out": out}))
		for i, v := range out.Data {
			assert.Equal(t, float32(3*i+1), v, "out[%d]", i)
		}
	}

	// The cache key changes with the imported file's text.
	k1, _ := fromFS.Kernel("k")
	other := fstest.MapFS{"app/main.tle": importFiles["app/main.tle"], "parts/scale.tle": {Data: []byte("const SCALE = 4.0\n\nfunc scaled(x f32) f32 {\n    return x*SCALE + 1\n}\n")}}
	p2, err := Load(other, "app/main.tle")
	require.NoError(t, err)
	k2, _ := p2.Kernel("k")
	assert.NotEqual(t, k1.cacheKey(CompileOptions{}, GPUOptions{}), k2.cacheKey(CompileOptions{}, GPUOptions{}))

	// Parse has no folder to import from.
	_, err = Parse("main.tle", importFiles["app/main.tle"].Data)
	require.ErrorContains(t, err, "no file system")
}

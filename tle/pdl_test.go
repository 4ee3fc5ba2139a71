package tle

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const pdlTestSrc = `kernel producer(x *f32, y *f32) {
    v := load(x)
    launch_dependents()
    store(y, v)
}

func wait_inputs() { grid_dependency_wait() }

kernel consumer(y *f32, out *f32) {
    wait_inputs()
    store(out, load(y) + 1)
}
`

// Binary.GridDependencyWait says whether the kernel (its helpers inlined)
// calls grid_dependency_wait; it survives the disk cache and is part of the
// entry's checksum; a PDL launch of a kernel without the wait is refused.
func TestBinaryGridDependencyWait(t *testing.T) {
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	prog, err := Parse("pdl.tle", []byte(pdlTestSrc))
	require.NoError(t, err)
	g := GPUOptions{PTX: "// PTX built elsewhere"} // no toolchain needed
	bins := map[string]*Binary{}
	for _, name := range []string{"producer", "consumer"} {
		k, err := prog.Kernel(name)
		require.NoError(t, err)
		b, err := k.Compile(CompileOptions{}, g)
		require.NoError(t, err)
		bins[name] = b
	}
	require.False(t, bins["producer"].GridDependencyWait)
	require.True(t, bins["consumer"].GridDependencyWait)

	c := bins["consumer"]
	path := filepath.Join(t.TempDir(), "e.json")
	require.NoError(t, writeCacheEntry(path, c))
	back, why := readCacheEntry(path, c.Key)
	require.NotNil(t, back, why)
	require.True(t, back.GridDependencyWait)
	flipped := *c
	flipped.GridDependencyWait = false
	require.NotEqual(t, sum(c), sum(&flipped))

	require.NoError(t, LaunchOptions{}.check(bins["producer"]))
	require.NoError(t, LaunchOptions{PDL: true}.check(c))
	require.EqualError(t, LaunchOptions{PDL: true}.check(bins["producer"]),
		"tle: a PDL launch of producer, which never calls grid_dependency_wait(): it could read its inputs before the previous kernel wrote them")
}

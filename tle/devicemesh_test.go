package tle

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

const meshKernel = `kernel push(x *f32, flags *i32) {
    mesh := device_mesh(device: 4)
    me := shard_id(mesh, "device")
    store(remote(x + me, 0, mesh), 1.0)
    signal(flags, 0, mesh, 1, op: "add")
}
`

// A kernel with a device mesh: its Binary names the mesh and the hidden
// parameters (from the disk cache too, whose checksum covers them), and a
// launch on one GPU is refused with the reason before anything reaches the
// driver.
func TestDeviceMeshBinary(t *testing.T) {
	needLLC(t)
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	p, err := Load(fstest.MapFS{"m.tle": {Data: []byte(meshKernel)}}, "m.tle")
	require.NoError(t, err)
	k, err := p.Kernel("push")
	require.NoError(t, err)
	b, err := k.Compile(CompileOptions{}, GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Equal(t, 4, b.MeshDevices)
	require.Equal(t, []string{"rank", "heap_bases", "sync"}, b.Hidden)
	require.Equal(t, []string{"x:*f32", "flags:*i32"}, b.Params)

	// the checksum covers the mesh: an entry whose mesh was changed is corrupt
	c := *b
	s := sum(&c)
	c.MeshDevices = 2
	require.NotEqual(t, s, sum(&c))
	c.MeshDevices, c.Hidden = 4, []string{"rank"}
	require.NotEqual(t, s, sum(&c))

	// read back from the disk cache (a new process's memory cache is empty)
	jit.mu.Lock()
	jit.mem = map[string]*Binary{}
	jit.mu.Unlock()
	b2, err := k.Compile(CompileOptions{}, GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.Equal(t, b.MeshDevices, b2.MeshDevices)
	require.Equal(t, b.Hidden, b2.Hidden)

	err = oneDevice(b)
	require.ErrorContains(t, err, "push runs on a mesh of 4 GPUs (device_mesh(device: 4)): it takes the hidden parameters [rank heap_bases sync]")
	require.NoError(t, oneDevice(&Binary{Kernel: "plain"}))
}

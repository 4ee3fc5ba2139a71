package ir

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The verifier's rules of meshes across devices, one broken at a time.
func TestVerifyMeshCases(t *testing.T) {
	const dmesh = "  %0 = device_mesh() {devices = 4, dims = [1, 1, 1]} : !mesh<1,1,1,4> loc(1)\n"
	const cmesh = "  %0 = device_mesh() {dims = [2, 1, 1]} : !mesh<2,1,1> loc(1)\n"
	const flag = "  %9 = int_to_ptr(%n) : *i32 loc(2)\n"
	for _, c := range []struct{ name, src, want string }{
		{"ok", kernel(dmesh + `  %1 = remote_ptr(%p, %n, %0) : *f32 loc(5)
  %2 = shard_id(%0) {axis = 3} : i32 loc(6)
  distributed_barrier(%0) {axis = "device", group = 2} loc(7)`), ""},
		{"mesh devices", kernel("  %0 = device_mesh() {devices = 4, dims = [1, 1, 1]} : !mesh<1,1,1,2> loc(5)"), "result has type !mesh<1,1,1,2>, want !mesh<1,1,1,4>"},
		{"remote_ptr result", kernel(dmesh + `  %1 = remote_ptr(%p, %n, %0) : *i32 loc(5)`), "op remote_ptr: result has type *i32, want *f32"},
		{"remote_ptr of a value", kernel(dmesh + `  %1 = remote_ptr(%f, %n, %0) : f32 loc(5)`), "want a pointer or a tile of pointers"},
		{"remote_ptr rank", kernel(dmesh + `  %1 = remote_ptr(%p, %f, %0) : *f32 loc(5)`), "rank has type f32, want an integer scalar"},
		{"remote_ptr cluster mesh", kernel(cmesh + `  %1 = remote_ptr(%p, %n, %0) : *f32 loc(5)`), "a mesh without a device axis"},
		{"shard_id device of a cluster", kernel(cmesh + `  %1 = shard_id(%0) {axis = 3} : i32 loc(5)`), "axis 3 (device) of a mesh without a device axis"},
		{"signal flag dtype", kernel(dmesh + `  signal(%p, %n, %0, %f) {op = "set"} loc(5)`), "does not point to an integer"},
		{"signal op", kernel(dmesh + flag + `  signal(%9, %n, %0, %n) {op = "mul"} loc(5)`), `op = "mul" is not one of`},
		{"signal value", kernel(dmesh + flag + `  signal(%9, %n, %0, %f) {op = "add"} loc(5)`), "op signal: value has type f32, want i32"},
		{"signal_wait cmp", kernel(flag + `  signal_wait(%9, %n) {cmp = "above"} loc(5)`), `cmp = "above" is not one of`},
		{"barrier group", kernel(dmesh + `  distributed_barrier(%0) {group = 3} loc(5)`), "group 3 does not divide the mesh's 4 devices"},
		{"barrier axis", kernel(dmesh + `  distributed_barrier(%0) {axis = "node"} loc(5)`), `axis node is neither "device" nor "cluster"`},
		{"barrier axis of a cluster mesh", kernel(cmesh + `  distributed_barrier(%0) {axis = "device"} loc(5)`), "axis on a mesh without a device axis"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse("v.tir", []byte(c.src))
			require.NoError(t, err, c.src)
			err = Verify(m)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.want)
		})
	}
}

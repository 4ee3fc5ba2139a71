package nvptx_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tlego/tle/tle"
)

// archSrc holds one kernel per Hopper feature a target before it lacks.
const archSrc = `kernel tma(x desc[f32, 16, 16], out *f32) {
    buf := alloc([16, 16], f32)
    b := barrier(count: 1)
    expect(b, 1024)
    copy(x, buf, 0, 0, barrier: b)
    wait(b, 0)
    r := arange(0, 16)
    store(out + r[:, None]*16 + r[None, :], load(local_ptr(buf, r[:, None], r[None, :])))
}

kernel cluster(x *f32, out *f32) {
    mesh := device_mesh(cluster_x: 2)
    rank := shard_id(mesh, "cluster_x")
    c := arange(0, 32)
    buf := alloc([32], f32)
    store(local_ptr(buf, c), load(x + c))
    distributed_barrier(mesh)
    store(out + c, load(local_ptr(remote(buf, 1 - rank, mesh), c)))
}

kernel mma(a *bf16, c *f32) {
    r := arange(0, 64)
    tile := r[:, None]*64 + r[None, :]
    sa := alloc([64, 64], bf16)
    store(sa, load(a + tile))
    acc := wgmma(sa, sa, zeros([64, 64], f32))
    wgmma_wait(0)
    store(c + tile, acc)
}

kernel regs(x *f32) {
    warp_specialize {
        role one(warps: 4, regs: 232) {
            store(x + arange(0, 128), 1.0)
        }
        role two(warps: 1, regs: 40) {}
    }
}
`

// TestHopperOpsNeedHopper: TMA, clusters, wgmma and setmaxnreg are user
// errors at their position on a target that lacks them (sm_80..sm_89;
// wgmma and a role's regs on sm_90, which is not sm_90a), never PTX that
// ptxas or the driver refuses later; sm_90a builds them all.
func TestHopperOpsNeedHopper(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"arch.tle": {Data: []byte(archSrc)}}, "arch.tle")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kernel, arch, want string
	}{
		{"tma", "sm_80", "arch.tle:4:5: error: barrier_expect: needs sm_90 or newer (mbarrier.expect_tx); the target is sm_80"},
		{"cluster", "sm_86", "arch.tle:13:13: error: shard_id: needs sm_90 or newer (%cluster_ctaid, a cluster); the target is sm_86"},
		{"mma", "sm_89", "arch.tle:26:12: error: wgmma: needs sm_90a (wgmma.mma_async); the target is sm_89"},
		{"mma", "sm_90", "needs sm_90a (wgmma.mma_async); the target is sm_90"},
		{"regs", "sm_90", "arch.tle:33:9: error: role: one: regs 232 needs sm_90a (setmaxnreg); the target is sm_90"},
	} {
		k, err := prog.Kernel(c.kernel)
		if err != nil {
			t.Fatal(err)
		}
		_, err = k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: c.arch}, "ll")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: error %v, want %q", c.kernel, c.arch, err, c.want)
		}
	}
	for _, name := range []string{"tma", "cluster", "mma", "regs"} {
		k, err := prog.Kernel(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: "sm_90a"}, "ll"); err != nil {
			t.Errorf("%s on sm_90a: %v", name, err)
		}
	}
	k, err := prog.Kernel("tma")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: "sm_90"}, "ll"); err != nil {
		t.Errorf("tma on sm_90: %v", err)
	}
}

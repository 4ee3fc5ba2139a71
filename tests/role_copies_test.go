package tests

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// gatherSrc: four copies of a role each scale their row of x by their
// index plus one into a shared buffer and arrive once on done (count 4:
// one arrival per copy, as per role); a last role waits for the four and
// sums the buffer's columns.
const gatherSrc = `
kernel gather(x *f32, out *f32, sums *f32) {
    buf := alloc([4, 64], f32)
    done := barrier(count: 4)
    c := arange(0, 64)
    warp_specialize {
        role row(warps: 4, copies: 4) {
            k := role_index()
            v := load(x + k*64 + c) * cast(k+1, f32)
            store(out + k*64 + c, v)
            store(buf.slot(k), v)
            arrive(done)
        }
        role total(warps: 1) {
            wait(done, 0)
            store(sums + c, sum(load(buf), axis: 0))
        }
    }
}
`

// Each copy of a role with copies: runs on its own warps with its own
// role_index() and arrives on an mbarrier as a role of its own, on the
// interpreter and on the GPU.
func TestRoleCopiesRun(t *testing.T) {
	prog, err := tle.Parse("gather.tle", []byte(gatherSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("gather")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(51, 52))
	x := tletest.Round(ir.F32, tletest.Randn(r, 4*64))
	want, wantSums := make([]float64, 4*64), make([]float64, 64)
	for i := range 4 {
		for j := range 64 {
			want[i*64+j] = x[i*64+j] * float64(i+1)
			wantSums[j] += want[i*64+j]
		}
	}
	for _, dev := range tletest.Devices(t) {
		out, sums := tletest.Filled(-1, 4*64), tletest.Filled(-1, 64)
		err := k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{}, map[string]any{
			"x": &tle.Tensor{Shape: []int{4 * 64}, Data: x}, "out": out, "sums": sums})
		require.NoError(t, err, dev.Name())
		require.Less(t, tletest.RelRMS(out.Data, want), 1e-7, dev.Name())
		require.Less(t, tletest.RelRMS(sums.Data, wantSums), 1e-6, dev.Name())
	}
}

// The interpreter names a copy of a role in its messages: copy 1 waits for
// a phase no one completes, and the deadlock report says which copy waits
// and which finished.
func TestRoleCopyDeadlockNamesCopy(t *testing.T) {
	prog, err := tle.Parse("stuck.tle", []byte(`
kernel stuck(out *f32) {
    never := barrier(count: 1)
    warp_specialize {
        role c(warps: 4, copies: 2) {
            if role_index() == 1 {
                wait(never, 0)
            }
            store(out + role_index(), 1.0)
        }
    }
}
`))
	require.NoError(t, err)
	k, err := prog.Kernel("stuck")
	require.NoError(t, err)
	err = k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{}, map[string]any{"out": tle.NewTensor(2)})
	require.ErrorContains(t, err, `stuck.tle:7:17: error: deadlock: every goroutine of the cluster is blocked: role "c" copy 1 of program (0, 0, 0) waits at stuck.tle:7:17 in wait(never, phase 0)`)
	require.ErrorContains(t, err, `finished: role "c" copy 0 of program (0, 0, 0)`)
}

// fencedSrc: copy 0 alone writes sa, which its wgmma reads. GUARD is
// role_index() == 0 (only copy 0 has the store) or true (both do).
const fencedSrc = `
kernel fenced(a *bf16, b *bf16, c *f32) {
    sa := alloc([64, 64], bf16)
    sb := alloc([64, 64], bf16)
    r := arange(0, 64)
    store(sb, load(b + r[:, None]*64 + r[None, :]))
    warp_specialize {
        role mm(warps: 4, copies: 2) {
            acc := zeros([64, 64], f32)
            if GUARD {
                store(sa, load(a + r[:, None]*64 + r[None, :]))
                acc = wgmma(sa, sb, acc)
            } else {
                acc = wgmma(sb, sb, acc)
            }
            wgmma_wait(0)
            store(c + role_index()*4096 + r[:, None]*64 + r[None, :], acc)
        }
    }
}
`

// A branch on role_index() is lowered only into the copies it holds for:
// the proxy fence a role's shared-memory store before its wgmma needs is in
// copy 0's PTX only (one fence before the roles for sb, one in copy 0); when
// both copies store, each has its own.
func TestRoleCopyFenceOnlyInItsCopy(t *testing.T) {
	tletest.NeedLLC(t)
	fence := tletest.PTXLine(`fence\.proxy\.async\.shared::cta;`)
	for guard, want := range map[string]int{"role_index() == 0": 2, "true": 3} {
		prog, err := tle.Parse("fenced.tle", []byte(strings.Replace(fencedSrc, "GUARD", guard, 1)))
		require.NoError(t, err)
		k, err := prog.Kernel("fenced")
		require.NoError(t, err)
		b, err := k.Compile(tle.CompileOptions{}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err)
		require.Len(t, fence.FindAllString(b.PTX, -1), want, "if %s", guard)
	}
}

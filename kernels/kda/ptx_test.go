package kda

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestRecWSPTX builds kda_rec_ws at FlashKDA's head size, as the forward
// pass launches it with --rec ws, for sm_90a with llc-19, next to kda_rec:
// its warps are the roles' (4 load, BV/16 mma padded to a warpgroup, 1
// store: the store role, last and without regs:, is not padded), its pipes are mbarrier rings (waits
// with try_wait, arrivals), a warp of the mma role issues the chunk's
// products as 56 m16n8k16 mma.sync (its 16 rows of S^T against the [C, KH]
// halves: W^T 2x8, V^T I 2, U^T 2, O^T 2x8, M 2, its split 2, the state
// update 2x8) and both pipes of 4 fit the shared memory of an SM,
// with room for a second program at BV <= 64.
func TestRecWSPTX(t *testing.T) {
	tletest.NeedLLC(t)
	_, recK, err := Kernels()
	require.NoError(t, err)
	_, wsK, err := KernelsFor(RecWS)
	require.NoError(t, err)
	d := &Dims{B: 1, T: 8192, H: 96, K: 128, V: 128, N: 1}
	for _, bv := range []int{64, 32, 128} {
		for _, state := range []string{StateF32, StateBF16} {
			p := Params{StateDType: state, FinalState: true}
			_, rec := Launches(d, p, bv, 512, true)
			p.Rec = RecWS
			_, ws := Launches(d, p, bv, 512, true)
			a, err := recK.Compile(rec.Options(), tle.GPUOptions{Arch: "sm_90a", Toolchain: "llc"})
			require.NoError(t, err)
			b, err := wsK.Compile(ws.Options(), tle.GPUOptions{Arch: "sm_90a", Toolchain: "llc"})
			require.NoError(t, err, "bv %d %s", bv, state)
			mmaWarps := (bv/Chunk + 3) / 4 * 4 // roles sit on warpgroup boundaries
			require.Equal(t, WSLoadWarps+mmaWarps+1, b.NumWarps, "bv %d: load, mma and store warps", bv)
			require.Equal(t, 56, strings.Count(b.PTX, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), "bv %d: the chunk's products", bv)
			require.Contains(t, b.PTX, "mbarrier.try_wait", "bv %d: the pipes' waits", bv)
			require.Contains(t, b.PTX, "mbarrier.arrive", "bv %d: the pipes' commits and releases", bv)
			require.NotContains(t, b.PTX, "setmaxnreg", "bv %d: no regs: yet", bv)
			require.LessOrEqual(t, b.SmemBytes, 227*1024-1024, "bv %d: fits an SM", bv)
			if bv <= 64 {
				require.LessOrEqual(t, b.SmemBytes, 227*1024/2-1024, "bv %d: two programs per SM", bv)
			}
			t.Logf("bv %d, %s state: %d warps, %d bytes of shared memory, %d mma.sync (kda_rec: %d)", bv, state, b.NumWarps, b.SmemBytes, strings.Count(b.PTX, "mma.sync"), strings.Count(a.PTX, "mma.sync"))
		}
	}
}

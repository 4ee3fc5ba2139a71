package gpu

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// roles builds a kernel with one warp_specialize of roles of the given
// warps and regs and returns it with the warp_specialize op.
func roles(warps, regs []int64) (*ir.Func, *ir.Op) {
	f := ir.NewFunc("k", true, nil)
	b := ir.NewBuilder(f)
	ws := b.Create(ir.OpWarpSpecialize, nil, nil, nil)
	region := b.NewRegion(ws)
	for i := range warps {
		b.Block = region
		r := b.Create(ir.OpRole, nil, nil, ir.Attrs{"name": "r", "warps": warps[i], "regs": regs[i]})
		b.Block = b.NewRegion(r)
		b.Create(ir.OpYield, nil, nil, nil)
	}
	return f, ws
}

// TestRoleWarps: roles are padded to warpgroups, except the last one of a
// warp_specialize that gives no regs (no setmaxnreg needs its warpgroup).
func TestRoleWarps(t *testing.T) {
	for _, c := range []struct {
		warps, regs []int64
		want        []int
	}{
		{[]int64{4, 1}, []int64{0, 0}, []int{4, 1}},
		{[]int64{4, 1}, []int64{232, 40}, []int{4, 4}},
		{[]int64{1, 4}, []int64{0, 0}, []int{4, 4}},
		{[]int64{8, 3}, []int64{0, 0}, []int{8, 4}}, // 3 runs on 4 (a power of two)
		{[]int64{4, 2}, []int64{0, 0}, []int{4, 2}},
		{[]int64{2}, []int64{0}, []int{2}},
	} {
		f, ws := roles(c.warps, c.regs)
		require.Equal(t, c.want, RoleWarps(ws), "%+v", c)
		total := 0
		for _, w := range c.want {
			total += w
		}
		require.Equal(t, total, SpecializedWarps(f), "%+v", c)
	}
}

package gpu

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// TestWgmmaSharedLayoutIsHardwareSwizzle checks that the layout stores put
// element (r, c) of a wgmma operand buffer at the byte the hardware reads it
// from: the row-major address r*S + c*eb with the 128B / 64B / 32B swizzle
// (Swizzle<3,4,3>, <2,4,3>, <1,4,3>: address bits 4.. XOR bits 7..) applied,
// which is what the wgmma descriptors (and TMA's swizzle modes) describe
// for a buffer aligned to WgmmaAlign.
func TestWgmmaSharedLayoutIsHardwareSwizzle(t *testing.T) {
	for _, tc := range []struct{ rows, cols, eb, bbits int }{
		{64, 64, 2, 3}, {128, 64, 2, 3}, {64, 32, 2, 2}, {64, 16, 2, 1}, {64, 128, 1, 3}, {32, 64, 1, 2},
	} {
		shape := []int{tc.rows, tc.cols}
		sh, err := WgmmaSharedLayout(shape, tc.eb, []int{1, 0})
		require.NoError(t, err)
		span := tc.cols * tc.eb
		require.Equal(t, span, WgmmaSwizzleBytes(sh, shape, tc.eb))
		for r := 0; r < tc.rows; r++ {
			for c := 0; c < tc.cols; c++ {
				addr := r*span + c*tc.eb
				hw := addr ^ ((addr >> 7) & (1<<tc.bbits - 1) << 4)
				require.Equal(t, hw, SharedOffset(sh, shape, []int{r, c})*tc.eb, "shape %v eb %d (%d, %d)", shape, tc.eb, r, c)
			}
		}
	}
	_, err := WgmmaSharedLayout([]int{64, 96}, 2, []int{1, 0})
	require.Error(t, err, "192-byte rows are neither one swizzle span nor whole 128B column blocks")
	// 256-byte rows: two column blocks of [64, 64], each the 128B swizzle
	sh, err := WgmmaSharedLayout([]int{64, 128}, 2, []int{1, 0})
	require.NoError(t, err)
	require.Equal(t, 64, sh.BlockCols)
	for r := 0; r < 64; r++ {
		for c := 0; c < 128; c++ {
			blk, cc := c/64, c%64
			hw := blk*64*128 + r*128 + ((cc*2/16)^(r%8))*16 + cc*2%16
			require.Equal(t, hw, SharedOffset(sh, []int{64, 128}, []int{r, c})*2, "(%d, %d)", r, c)
		}
	}
	require.Equal(t, 128, WgmmaSwizzleBytes(sh, []int{64, 128}, 2))
}

// TestMMAv3Fragment checks the wgmma accumulator layout against PTX's
// m64nNk16 D fragment: thread (warp w, lane l) holds d[i] at row
// 16*w + l/4 + 8*((i/2)%2), column 8*(i/4) + 2*(l%4) + i%2.
func TestMMAv3Fragment(t *testing.T) {
	l, err := ParseLayout("mmav3<[4,1]>")
	require.NoError(t, err)
	require.Equal(t, "mmav3<[4,1]>", l.String())
	for _, N := range []int{8, 64, 256} {
		ll, err := Linear(l, []int{64, N})
		require.NoError(t, err)
		require.Equal(t, N/2, ll.NumRegs())
		for w := 0; w < 4; w++ {
			for lane := 0; lane < 32; lane++ {
				for i := 0; i < N/2; i++ {
					want := []int{16*w + lane/4 + 8*(i/2%2), 8*(i/4) + 2*(lane%4) + i%2}
					require.Equal(t, want, ll.Coords(i, lane, w))
				}
			}
		}
	}
	_, err = Linear(&MMAv3{WarpsPerCTA: []int{2, 2}}, []int{64, 64})
	require.Error(t, err)
}

// TestPairRows: the row-paired accumulator and register a (text forms
// with ",pairs") parse back to themselves and place row r of each warp's
// 16 (PTX's fragment row: lane/4, +8 in the second register pair) at tile
// row 2*(r%8) + r/8, everything else as the plain layouts do.
func TestPairRows(t *testing.T) {
	for _, l := range []ir.Layout{
		&MMAv3{WarpsPerCTA: []int{4, 1}, PairRows: true},
		&DotOperand{OpIdx: 0, Parent: &MMA{WarpsPerCTA: []int{4, 1}}, KWidth: 4, PairRows: true},
	} {
		p, err := ParseLayout(l.String())
		require.NoError(t, err, l.String())
		require.Equal(t, l, p)
	}
	_, err := ParseLayout("dotop<1,mma<[4,1]>,2,pairs>")
	require.Error(t, err)
	sigma := func(r int) int { return r&^15 | 2*(r%8) + r%16/8 }
	for _, c := range []struct {
		plain, paired ir.Layout
		shape         []int
	}{
		{&MMAv3{WarpsPerCTA: []int{4, 1}}, &MMAv3{WarpsPerCTA: []int{4, 1}, PairRows: true}, []int{128, 16}},
		{&DotOperand{OpIdx: 0, Parent: &MMA{WarpsPerCTA: []int{4, 1}}, KWidth: 4}, &DotOperand{OpIdx: 0, Parent: &MMA{WarpsPerCTA: []int{4, 1}}, KWidth: 4, PairRows: true}, []int{128, 64}},
	} {
		a, b := MustLinear(c.plain, c.shape), MustLinear(c.paired, c.shape)
		for w := 0; w < 4; w++ {
			for l := 0; l < 32; l++ {
				for r := 0; r < a.NumRegs(); r++ {
					x, y := a.Coords(r, l, w), b.Coords(r, l, w)
					require.Equal(t, []int{sigma(x[0]), x[1]}, y, "%s: register %d lane %d warp %d", c.paired, r, l, w)
				}
			}
		}
	}
}

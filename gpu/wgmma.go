package gpu

import (
	"fmt"
)

// WgmmaAlign is the shared-memory alignment of buffers that wgmma reads:
// one 128B swizzle atom (8 rows of 128 bytes).
const WgmmaAlign = 1024

// WgmmaSharedLayout is the shared layout of a buffer of shape (fastest
// dimension order[0]) that wgmma reads through a matrix descriptor: the
// swizzle of the span its contiguous dimension covers (128, 64 or 32
// bytes): in row r, the 16-byte chunk c lives at chunk c ^ ((r / PerPhase)
// % MaxPhase), which is Swizzle<3,4,3>, <2,4,3> and <1,4,3> on a
// WgmmaAlign-aligned buffer. Wider rows (a multiple of 128 bytes, with a
// multiple of 8 rows) are column-blocked (Shared.BlockCols): blocks of one
// 128B span, each [rows, 128 bytes] and a whole number of swizzle atoms.
func WgmmaSharedLayout(shape []int, elemBytes int, order []int) (*Shared, error) {
	if len(order) < 2 || len(order) != len(shape) {
		return nil, fmt.Errorf("a wgmma operand buffer needs rank 2 or more, has shape %v", shape)
	}
	rowBytes := shape[order[0]] * elemBytes
	switch {
	case rowBytes == 32 || rowBytes == 64 || rowBytes == 128:
	case rowBytes > 128 && rowBytes%128 == 0 && elemBytes > 0 && elemBytes <= 16 && shape[order[1]]%8 == 0:
		// column blocks of one 128B span each (CUTLASS's MN-major / wide-K
		// SW128 tiling): descriptors step between them with LBO or the
		// start address, TMA fills one per box
		return &Shared{Vec: 16 / elemBytes, PerPhase: 1, MaxPhase: 8, Order: append([]int(nil), order...), BlockCols: 128 / elemBytes}, nil
	default:
		return nil, fmt.Errorf("a wgmma operand buffer's contiguous dimension must span 32, 64 or 128 bytes "+
			"(one swizzle span; e.g. 64 bf16 elements) or a multiple of 128 bytes (column blocks of 128), "+
			"shape %v (order %v) has %d-byte rows", shape, order, rowBytes)
	}
	return &Shared{Vec: 16 / elemBytes, PerPhase: 128 / rowBytes, MaxPhase: rowBytes / 16, Order: append([]int(nil), order...)}, nil
}

// WgmmaSwizzleBytes returns the swizzle span (128, 64 or 32) of a 2-D view
// whose shared layout sh is a wgmma layout, or 0 when it is not one. A
// column-blocked layout's span is its block's (128).
func WgmmaSwizzleBytes(sh *Shared, shape []int, elemBytes int) int {
	if sh == nil || len(sh.Order) != 2 || len(shape) != 2 {
		return 0
	}
	want, err := WgmmaSharedLayout(shape, elemBytes, sh.Order)
	if err != nil || want.Vec != sh.Vec || want.PerPhase != sh.PerPhase || want.MaxPhase != sh.MaxPhase ||
		want.Blocked(shape) != sh.Blocked(shape) || (want.Blocked(shape) && want.BlockCols != sh.BlockCols) {
		return 0
	}
	return sh.RowElems(shape) * elemBytes
}

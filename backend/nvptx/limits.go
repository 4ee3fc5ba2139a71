package nvptx

import (
	"fmt"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// MaxTileRegs is the most 32-bit registers one tile may take per thread
// (elements per thread times their 32-bit words; a global pointer takes two).
//
// A thread has at most 255 registers, so a tile past four times that could
// never be held in registers whatever the rest of the kernel does. And the
// backend unrolls every element into its own LLVM value in straight-line
// code, so compile time grows with the per-thread share, faster than
// linearly in llc-19 (its NaryReassociate pass, on vector_add's address
// arithmetic): vector_add on 4 warps took 0.8 s (CPU) with 256 elements per
// thread (512 registers for its pointer tiles), 2-4 s with 512 (1024), 15 s
// with 1024 (2048), minutes with 2048, and had not finished after 10 minutes
// at BLOCK = 2^20 (8192). The checker bounds a tile's elements
// (check.MaxTileElements, 2^20); this bounds its share per thread, which
// depends on the warps too, and is reported before any LLVM IR is made.
const MaxTileRegs = 1024

// tileWords is the 32-bit registers one element of a tile of elem takes.
func tileWords(elem ir.Type) int {
	switch e := elem.(type) {
	case *ir.Pointer:
		if e.Space == ir.Global {
			return 2
		}
		return 1
	case ir.DType:
		return max(1, (e.Bits()+31)/32)
	}
	return 1
}

// checkTileRegs reports the tile of f with the largest per-thread share when
// that is over MaxTileRegs, at the op that makes it (the first such op: a
// user error at its .tle position, naming the tile, its share, the warps and
// what to change, which then holds for every tile of the kernel).
func checkTileRegs(f *ir.Func) error {
	var worst *tileShare
	walkTiles(f.Body, nil, func(s *tileShare) {
		if worst == nil || s.regs > worst.regs {
			worst = s
		}
	})
	if worst == nil || worst.regs <= MaxTileRegs {
		return nil
	}
	return worst.err()
}

// tileShare is what one thread holds of a tile made by op.
type tileShare struct {
	op          *ir.Op
	role        *ir.Op // the enclosing warp role, or nil
	tile        *ir.Tile
	elems, regs int
	warps       int // the warps the tile is laid out over
}

func walkTiles(b *ir.Block, role *ir.Op, fn func(*tileShare)) {
	for _, op := range b.Ops {
		for _, r := range op.Results {
			tt, ok := r.Type.(*ir.Tile)
			if !ok || tt.Layout == nil {
				continue
			}
			ll, err := gpu.Linear(tt.Layout, tt.Shape)
			if err != nil {
				continue // codegen reports it
			}
			n := ll.NumRegs()
			fn(&tileShare{op: op, role: role, tile: tt, elems: n, regs: n * tileWords(tt.Elem), warps: 1 << len(ll.Warp)})
		}
		inner := role
		if op.Kind == ir.OpRole {
			inner = op
		}
		for _, rb := range op.Regions {
			walkTiles(rb, inner, fn)
		}
	}
}

func (s *tileShare) err() error {
	// More warps divide the share as long as the tile spans them.
	need := s.warps
	for need <= 32 && s.regs*s.warps/need > MaxTileRegs {
		need *= 2
	}
	var fix string
	switch {
	case need > 32:
		fix = fmt.Sprintf("make the tile smaller (a smaller BLOCK): even on 32 warps it needs %d registers per thread", s.regs*s.warps/32)
	case s.role != nil:
		fix = fmt.Sprintf("give role %s at least %d warps (warps: %d), or make the tile smaller (a smaller BLOCK)", s.role.Attrs.String("name"), need, need)
	default:
		fix = fmt.Sprintf("use at least %d warps (--num-warps %d), or make the tile smaller (a smaller BLOCK)", need, need)
	}
	warps := fmt.Sprintf("%d warps", s.warps)
	if s.warps == 1 {
		warps = "1 warp"
	}
	return ir.ErrorAt(s.op, "tile %s needs %d 32-bit registers per thread (%d elements per thread on %s), more than the limit of %d: %s",
		plainTile(s.tile), s.regs, s.elems, warps, MaxTileRegs, fix)
}

// plainTile prints a tile's type without its layout.
func plainTile(t *ir.Tile) string {
	return (&ir.Tile{Shape: t.Shape, Elem: t.Elem}).String()
}

package gpu

import (
	"github.com/tlego/tle/ir"
)

// OutsideWarps is the number of warps tiles outside warp_specialize are
// laid out over in a CTA of total warps: the largest power of two not above
// it. The CTA's other warps then hold copies of warps' elements; the
// backend lets only the first OutsideWarps warps own stored elements.
func OutsideWarps(total int) int {
	p := 1
	for p*2 <= total {
		p *= 2
	}
	return p
}

// RoleActiveWarps is the number of warps a role's body runs on
// (ir.RoleActiveWarps of its warps:).
func RoleActiveWarps(role *ir.Op) int {
	return ir.RoleActiveWarps(int(role.Attrs.Int("warps", 1)))
}

// RoleWarps is the number of warps each role of warp_specialize ws
// occupies, in order (ir.RoleOccupiedWarps).
func RoleWarps(ws *ir.Op) []int {
	roles := Roles(ws)
	regs := false
	warps := make([]int, len(roles))
	for k, r := range roles {
		regs = regs || r.Attrs.Int("regs", 0) > 0
		warps[k] = int(r.Attrs.Int("warps", 1))
	}
	return ir.RoleOccupiedWarps(warps, regs)
}

// Roles returns the role ops of a warp_specialize op, in order.
func Roles(ws *ir.Op) []*ir.Op {
	var rs []*ir.Op
	if len(ws.Regions) == 0 {
		return nil
	}
	for _, op := range ws.Regions[0].Ops {
		if op.Kind == ir.OpRole {
			rs = append(rs, op)
		}
	}
	return rs
}

// SpecializedWarps is the number of warps f's CTA needs for its roles: the
// largest total over its warp_specialize ops, 0 without any.
func SpecializedWarps(f *ir.Func) int {
	total := 0
	f.Walk(func(op *ir.Op) {
		if op.Kind != ir.OpWarpSpecialize {
			return
		}
		n := 0
		for _, w := range RoleWarps(op) {
			n += w
		}
		if n > total {
			total = n
		}
	})
	return total
}

// EnclosingRole returns the role op whose body (transitively) holds op, or
// nil.
func EnclosingRole(op *ir.Op) *ir.Op {
	for b := op.Parent; b != nil && b.Parent != nil; b = b.Parent.Parent {
		if b.Parent.Kind == ir.OpRole {
			return b.Parent
		}
	}
	return nil
}

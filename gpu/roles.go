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

// RoleActiveWarps is the number of warps a role's body runs on.
func RoleActiveWarps(role *ir.Op) int {
	n := int(role.Attrs.Int("warps", 1))
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

// RolePaddedWarps is the number of warps a role occupies (a multiple of 4).
func RolePaddedWarps(role *ir.Op) int {
	return (RoleActiveWarps(role) + 3) / 4 * 4
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
		for _, r := range Roles(op) {
			n += RolePaddedWarps(r)
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

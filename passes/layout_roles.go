package passes

import (
	"github.com/tlego/tle/ir"
)

// Warp roles (warp_specialize) on the GPU.
//
// A role with `warps: n` runs its body on ir.RoleActiveWarps(n) warps (n
// rounded up to a power of two, so that tiles can be laid out over them) and
// occupies that rounded up to a warpgroup, 4 warps, of the CTA (so that
// `regs:` can become setmaxnreg, which acts per warpgroup, and the next role
// starts on a warpgroup; the last role of a warp_specialize without regs is
// not padded: ir.RoleOccupiedWarps, gpu.RoleWarps); the padding
// warps idle until the roles join. Roles are placed one after the
// other in the order they are written, from warp 0; the CTA has as many warps
// as the roles of its largest warp_specialize occupy, and code outside
// warp_specialize runs on all of them (laid out over OutsideWarps).

// sinkIntoRoles recomputes, at the top of each role, the tiles a role uses
// but that are defined before its warp_specialize: a role lays its tiles out
// over its own warps, so a tile held by all of the CTA's warps cannot be
// used there as is. Only recomputable tiles (constants, arange, splat,
// broadcast, expand_dims, local_ptr and element-wise ops of those) may cross
// into a role; scalars, buffers, pipes and barriers are shared as they are.
func sinkIntoRoles(f *ir.Func) error {
	var roles []*ir.Op
	f.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpRole {
			roles = append(roles, op)
		}
	})
	for _, role := range roles {
		body := role.Regions[0]
		inside := map[*ir.Op]bool{}
		insideBlock := map[*ir.Block]bool{body: true}
		body.Walk(func(op *ir.Op) {
			inside[op] = true
			for _, r := range op.Regions {
				insideBlock[r] = true
			}
		})
		defined := func(v *ir.Value) bool {
			if v.Def != nil {
				return inside[v.Def]
			}
			return insideBlock[v.Block]
		}
		memo := map[*ir.Value]*ir.Value{}
		var pre []*ir.Op
		var clone func(v *ir.Value, user *ir.Op) (*ir.Value, error)
		clone = func(v *ir.Value, user *ir.Op) (*ir.Value, error) {
			if nv, ok := memo[v]; ok {
				return nv, nil
			}
			def := v.Def
			if def == nil || !weakKind(def.Kind) || len(def.Results) != 1 || len(def.Regions) > 0 {
				what := "a block argument"
				if def != nil {
					what = string(def.Kind)
				}
				return nil, ir.ErrorAt(user, "role %s uses a tile (%s) computed before warp_specialize; only recomputable tiles (constants, arange, splat, element-wise ops of those) may cross into a role: compute it inside the role",
					ir.RoleLabel(role), what)
			}
			ops := make([]*ir.Value, len(def.Operands))
			for j, o := range def.Operands {
				ops[j] = o
				if layIsTile(o) && !defined(o) {
					c, err := clone(o, user)
					if err != nil {
						return nil, err
					}
					ops[j] = c
				}
			}
			attrs := ir.Attrs{}
			for k, a := range def.Attrs {
				attrs[k] = a
			}
			nop := &ir.Op{Kind: def.Kind, Operands: ops, Attrs: attrs, Pos: def.Pos, Parent: body}
			nop.Results = []*ir.Value{f.NewValue(v.Type, v.Name, nop, nil, 0)}
			pre = append(pre, nop)
			memo[v] = nop.Results[0]
			return nop.Results[0], nil
		}
		var err error
		body.Walk(func(op *ir.Op) {
			if err != nil {
				return
			}
			for j, o := range op.Operands {
				if !layIsTile(o) || defined(o) {
					continue
				}
				c, e := clone(o, op)
				if e != nil {
					err = e
					return
				}
				op.Operands[j] = c
			}
		})
		if err != nil {
			return err
		}
		if len(pre) > 0 {
			body.Ops = append(pre, body.Ops...)
		}
	}
	return nil
}

package lower

import (
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/ir"
)

// maxRoleCopies is the most copies: a role may have (the checker's bound).
const maxRoleCopies = 8

// warpSpecialize lowers warp_specialize to one role op per role, in
// order. A role with `copies: n` (n > 1) becomes n role ops in a row, each
// lowered from the body on its own with role_index() the constant of its
// copy (so `if role_index() == 0 { ... }` keeps the branch only in copy 0),
// and carrying the attributes copy (its index) and copies (n); a role of one
// copy has neither, as before copies: existed.
func (s *fn) warpSpecialize(st *ast.WarpSpecializeStmt) {
	op := s.b.Create(ir.OpWarpSpecialize, nil, nil, nil)
	outer := s.b.Block
	region := s.b.NewRegion(op)
	for _, r := range st.Roles {
		s.b.Block = region
		s.b.Pos = r.Pos()
		attrs := ir.Attrs{"name": r.Name.Name, "warps": int64(4), "regs": int64(0)}
		copies := int64(1)
		for _, a := range r.Args {
			v := s.expr(a.Value)
			if a.Name == nil || v.c == nil || !v.c.isInt() {
				s.errorf(a.Pos(), "role arguments are compile-time `warps:`, `regs:` and `copies:`")
			}
			if a.Name.Name == "copies" {
				copies = v.c.i
				if copies < 1 || copies > maxRoleCopies {
					s.errorf(a.Value.Pos(), "copies must be in [1, %d], got %d", maxRoleCopies, copies)
				}
				continue
			}
			attrs[a.Name.Name] = v.c.i
		}
		for k := range copies {
			s.b.Block = region
			s.b.Pos = r.Pos()
			at := attrs
			if copies > 1 {
				at = ir.Attrs{"copy": k, "copies": copies}
				for name, v := range attrs {
					at[name] = v
				}
			}
			s.role1(r, at, k)
		}
	}
	s.b.Block = region
	s.b.Pos = st.Rbrace
	s.b.Create(ir.OpYield, nil, nil, nil)
	s.b.Block = outer
}

// role1 lowers one copy of role r (index k) to a role op with attrs.
func (s *fn) role1(r *ast.Role, attrs ir.Attrs, k int64) {
	role := s.b.Create(ir.OpRole, nil, nil, attrs)
	body := s.b.NewRegion(role)
	s.b.Block = body
	saved, savedIndex := s.role, s.roleIndex
	s.role, s.roleIndex = true, k
	s.push()
	s.block(r.Body.Stmts)
	s.pop()
	s.role, s.roleIndex = saved, savedIndex
	s.b.Pos = r.Body.Rbrace
	s.b.Create(ir.OpYield, nil, nil, nil)
}

// roleIndexCall lowers role_index(): the copy index of the role being lowered,
// an i32 constant.
func (s *fn) roleIndexCall(a *args) *val {
	if !s.role {
		s.errorf(a.call.Pos(), "role_index() outside a role: it is only allowed in the body of a role of warp_specialize")
	}
	return &val{c: &constant{kind: 'i', i: s.roleIndex, dt: ir.I32}}
}

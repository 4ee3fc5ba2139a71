package check

// roleIndex checks role_index(): the index of the copy of the enclosing
// role that runs (copies: n), a compile-time i32 in [0, n). The lowering
// lowers each copy separately with its own constant, so here it is known
// only for a role of one copy (0); otherwise it is symbolic, like an
// unbound const parameter. It belongs to a role's own body: a helper is
// checked once for all its callers, so role_index() there is an error
// (pass it to a const parameter instead).
func (c *checker) roleIndex(cc *callCtx) Type {
	switch {
	case c.b != nil && c.b.fn != nil && c.b.role == nil:
		c.errorf(cc.call, "role_index() in func %s: it is only allowed in the body of a role, not in a helper (pass role_index() to a const parameter)", c.b.fn.Name.Name)
		return Invalid
	case c.b == nil || c.b.role == nil:
		c.errorf(cc.call, "role_index() outside a role: it is only allowed in the body of a role of warp_specialize")
		return Invalid
	}
	cc.value = c.b.roleIndex
	return I32
}

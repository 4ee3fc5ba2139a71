package lower

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/ir"
)

// A role with copies: n lowers to n role ops in a row, where it is written,
// each with copy and copies attributes and role_index() the constant of its
// copy: a branch on it is lowered only into the copies it holds for. A role
// of one copy (no copies:, or copies: 1) has no such attributes and its
// role_index() is 0. The module prints and parses back to itself.
func TestLowerRoleCopies(t *testing.T) {
	src := `kernel k(x *f32, out *f32, C const i32) {
    buf := alloc([3, 64], f32)
    warp_specialize {
        role first(warps: 1) {
            store(out + 100 + role_index(), 1.0)
        }
        role c(warps: 4, regs: 232, copies: C) {
            r := role_index()*64 + arange(0, 64)
            if role_index() == 0 {
                store(buf.slot(role_index()), load(x + r))
            }
            store(out + r, load(x + r) + cast(role_index(), f32))
        }
        role one(warps: 1, copies: 1) {
            store(out + 200 + role_index(), 2.0)
        }
    }
}
`
	f, err := parser.ParseFile("copies.tle", []byte(src))
	require.NoError(t, err)
	_, errs := check.Check(f, check.Config{})
	require.Empty(t, errs)
	m, err := Kernel(f, "k", Options{Defines: map[string]string{"C": "3"}})
	require.NoError(t, err)
	require.NoError(t, ir.Verify(m))
	text := ir.Print(m)
	var roles []*ir.Op
	m.Func("k").Walk(func(op *ir.Op) {
		if op.Kind == ir.OpRole {
			roles = append(roles, op)
		}
	})
	require.Len(t, roles, 5, text)
	type role struct {
		name                string
		copy, copies        int
		warps, regs, stores int64
		consts              []int64 // the integer constants of its body
	}
	var got []role
	for _, r := range roles {
		k, n := ir.RoleCopy(r)
		g := role{name: r.Attrs.String("name"), copy: k, copies: n, warps: r.Attrs.Int("warps", 0), regs: r.Attrs.Int("regs", 0)}
		r.Regions[0].Walk(func(op *ir.Op) {
			switch op.Kind {
			case ir.OpLocalStore:
				g.stores++
			case ir.OpConstant:
				if v, ok := op.Attrs["value"].(int64); ok && ir.ElemDType(op.Results[0].Type) == ir.I32 {
					g.consts = append(g.consts, v)
				}
			}
		})
		if n == 1 {
			require.NotContains(t, r.Attrs, "copy", g.name)
			require.NotContains(t, r.Attrs, "copies", g.name)
		}
		got = append(got, g)
	}
	require.Equal(t, []role{
		{"first", 0, 1, 1, 0, 0, []int64{100, 0}},
		{"c", 0, 3, 4, 232, 1, []int64{0, 0}},
		{"c", 1, 3, 4, 232, 0, []int64{64}},
		{"c", 2, 3, 4, 232, 0, []int64{128}},
		{"one", 0, 1, 1, 0, 0, []int64{200, 0}},
	}, got, text)
	require.Contains(t, text, `role() {copies = 3, copy = 2, name = "c", regs = 232, warps = 4}`)
	m2, err := ir.Parse("copies.tir", []byte(text))
	require.NoError(t, err)
	require.NoError(t, ir.Verify(m2))
	require.Equal(t, text, ir.Print(m2))
}

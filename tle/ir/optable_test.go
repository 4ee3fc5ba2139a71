package ir

import (
	"go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// opsGoKinds reads the Kind constants of ops.go, in order.
func opsGoKinds(t *testing.T) []Kind {
	f, err := goparser.ParseFile(gotoken.NewFileSet(), "ops.go", nil, 0)
	require.NoError(t, err)
	var kinds []Kind
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != gotoken.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Kind" {
				continue
			}
			for _, v := range vs.Values {
				lit := v.(*ast.BasicLit)
				name, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				kinds = append(kinds, Kind(name))
			}
		}
	}
	return kinds
}

// Every kind of ops.go has a row, in the same order, and every row a kind.
func TestOpTableCoversOpsGo(t *testing.T) {
	require.NoError(t, checkTable(opTable))
	var rows []Kind
	for _, in := range opTable {
		rows = append(rows, in.Name)
	}
	require.Equal(t, opsGoKinds(t), rows)
	require.Equal(t, rows, AllKinds)
	for _, in := range opTable {
		info, ok := in.Name.Info()
		require.True(t, ok)
		require.Equal(t, in.Name, info.Name)
		require.True(t, in.Name.IsKnown())
	}
}

func TestOpTablePredicates(t *testing.T) {
	require.True(t, OpAdd.IsElementwise())
	require.True(t, OpAdd.IsPure())
	require.True(t, OpDot.IsPure())
	require.False(t, OpDot.IsElementwise())
	require.False(t, OpStore.IsPure())
	require.True(t, OpYield.IsTerminator())
	require.True(t, OpReturn.IsTerminator())
	require.False(t, OpFor.IsTerminator())
	for _, k := range []Kind{"frobnicate", ""} {
		_, ok := k.Info()
		require.False(t, ok)
		require.False(t, k.IsKnown() || k.IsPure() || k.IsElementwise() || k.IsTerminator())
	}
	in, _ := OpCmp.Info()
	require.Equal(t, CmpPreds, in.Attr("pred").OneOf)
	require.Nil(t, in.Attr("axis"))
}

func TestRegisterKind(t *testing.T) {
	const k Kind = "test_registered"
	RegisterKind(k, nil)
	defer delete(extraKinds, k)
	require.True(t, k.IsKnown())
	_, ok := k.Info()
	require.False(t, ok)
}

func TestCheckTableRejects(t *testing.T) {
	row := func(f func(*OpInfo)) []OpInfo {
		in := OpInfo{Name: "x", Operands: one, Results: one, verify: tableOnly}
		f(&in)
		return []OpInfo{in}
	}
	for name, rows := range map[string][]OpInfo{
		"no name":              row(func(in *OpInfo) { in.Name = "" }),
		"two rows":             {opTable[0], opTable[0]},
		"no check":             row(func(in *OpInfo) { in.verify = nil }),
		"operands per operand": row(func(in *OpInfo) { in.Operands = perOperandFrom(0) }),
		"operands max < min":   row(func(in *OpInfo) { in.Operands = between(2, 1) }),
		"result range":         row(func(in *OpInfo) { in.Results = between(1, 2) }),
		"region range":         row(func(in *OpInfo) { in.Regions = atLeast(1) }),
		"impure element-wise":  row(func(in *OpInfo) { in.Elementwise = true }),
		"attribute twice":      row(func(in *OpInfo) { in.Attrs = []AttrSpec{axis, axis} }),
		"attribute type":       row(func(in *OpInfo) { in.Attrs = []AttrSpec{{Name: "a"}} }),
		"values of an int":     row(func(in *OpInfo) { in.Attrs = []AttrSpec{required("a", AttrInt, "x")} }),
		"optional deferred":    row(func(in *OpInfo) { in.Attrs = []AttrSpec{{Name: "a", Type: AttrInt, Optional: true, Deferred: true}} }),
		"up-front list":        row(func(in *OpInfo) { in.Attrs = []AttrSpec{required("a", AttrInts)} }),
	} {
		require.Error(t, checkTable(rows), name)
	}
}

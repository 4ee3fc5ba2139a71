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
	var gpu []Kind
	for _, in := range opTable {
		info, ok := in.Name.Info()
		require.True(t, ok)
		require.Equal(t, in.Name, info.Name)
		require.True(t, in.Name.IsKnown())
		if in.GPU {
			gpu = append(gpu, in.Name)
		} else {
			require.Contains(t, AllKinds, in.Name)
		}
	}
	require.Equal(t, []Kind{OpConvertLayout, OpAsyncCopy, OpAsyncCommit, OpAsyncWait}, gpu)
	require.Len(t, AllKinds, len(opTable)-len(gpu))
}

func TestOpTablePredicates(t *testing.T) {
	require.True(t, OpAdd.IsElementwise())
	require.True(t, OpAdd.IsPure())
	require.True(t, OpDot.IsPure())
	require.False(t, OpDot.IsElementwise())
	require.False(t, OpStore.IsPure())
	require.False(t, OpConvertLayout.IsPure())
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
	RegisterKind(OpConvertLayout, nil) // a row's kind: the row stands
	in, _ := OpConvertLayout.Info()
	require.True(t, in.GPU)
	require.Panics(t, func() { RegisterKind(OpAdd, func(*Op) error { return nil }) })
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

// The GPU passes' ops: what their producers make verifies, and what the
// backend could not lower does not.
func TestVerifyGPUKinds(t *testing.T) {
	pre := `  %0 = splat(%p) : [4]*f32 loc(1)
  %1 = alloc() : !smem<[4]f32> loc(2)
  %2 = constant() {value = true} : [4]i1 loc(3)
`
	good := pre + `  %3 = convert_layout(%2) : [4]i1 loc(4)
  async_copy(%0, %1, %3) {ring_copy = true} loc(5)
  async_copy(%0, %1) loc(6)
  async_commit() loc(7)
  async_wait() {pending = 1} loc(8)
  async_wait() loc(9)`
	m, err := Parse("g.tir", []byte(kernel(good)))
	require.NoError(t, err)
	require.NoError(t, Verify(m))
	for _, c := range []struct{ src, want string }{
		{`  %3 = convert_layout(%2) : [4]i32 loc(5)`, "op convert_layout: result has type [4]i32, want [4]i1"},
		{`  %3 = convert_layout(%2, %2) : [4]i1 loc(5)`, "op convert_layout: has 2 operands, want 1"},
		{`  async_copy(%1, %0) loc(5)`, "op async_copy: operand 0 has type !smem<[4]f32>, want a tile of global pointers"},
		{`  %3 = splat(%n) : [4]!ptr<smem,f32> loc(4)
  async_copy(%3, %1) loc(5)`, "want a tile of global pointers"},
		{`  async_copy(%0, %0) loc(5)`, "op async_copy: operand 1 has type [4]*f32, want a !smem of this CTA"},
		{`  %3 = alloc() : !smem<[8]f32> loc(4)
  async_copy(%0, %3) loc(5)`, "op async_copy: buffer !smem<[8]f32> does not hold the tile [4]*f32 points at"},
		{`  %3 = constant() {value = true} : [8]i1 loc(4)
  async_copy(%0, %1, %3) loc(5)`, "op async_copy: mask has type [8]i1, want [4]i1"},
		{`  async_commit(%n) loc(5)`, "op async_commit: has 1 operands, want 0"},
		{`  async_wait() {pending = -1} loc(5)`, "op async_wait: pending = -1, want >= 0"},
		{`  async_wait() {pending = "all"} loc(5)`, "op async_wait: needs an int64 attribute pending"},
	} {
		m, err := Parse("g.tir", []byte(kernel(pre+c.src)))
		require.NoError(t, err, c.src)
		err = Verify(m)
		require.Error(t, err, c.src)
		require.Contains(t, err.Error(), c.want)
	}
}

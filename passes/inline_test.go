package passes

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/ir"
)

// Inlined ops record the calls they came through, innermost first, with the
// helper's name as written (an instance's numeric suffix dropped), in
// regions too; ops written in the kernel record none.
func TestInlineRecordsCallChain(t *testing.T) {
	m, err := ir.Parse("chain.tir", []byte(`module "chain.tle"

kernel @k(%p: *f32) loc(0) {
  %c = constant() {value = 2.0} : f32 loc(10)
  call(%p, %c) {callee = "outer"} loc(20)
  return() loc(30)
}

func @outer(%q: *f32 loc(100), %x: f32 loc(100)) -> () loc(100) {
  %lb = constant() {value = 0} : i32 loc(105)
  %ub = constant() {value = 4} : i32 loc(106)
  for(%lb, %ub, %ub) loc(107) {
  ^(%i /*i*/: i32):
    call(%q, %x) {callee = "inner"} loc(110)
    yield() loc(115)
  }
  return() loc(120)
}

func @inner(%q: *f32 loc(200), %x: f32 loc(200)) -> () loc(200) {
  store(%q, %x) loc(210)
  return() loc(220)
}
`))
	require.NoError(t, err)
	require.NoError(t, Inline(m, &Context{}))
	k := m.Funcs[0]
	require.Empty(t, k.Body.Ops[0].Inlined, "the kernel's own constant")
	var store *ir.Op
	var loop *ir.Op
	k.Walk(func(op *ir.Op) {
		switch op.Kind {
		case ir.OpStore:
			store = op
		case ir.OpFor:
			loop = op
		}
	})
	require.NotNil(t, store)
	require.Equal(t, []ir.InlineSite{{Func: "inner", Call: 110}, {Func: "outer", Call: 20}}, store.Inlined)
	require.Equal(t, []ir.InlineSite{{Func: "outer", Call: 20}}, loop.Inlined)
	require.Equal(t, "in func inner, called at @110, in func outer, called at @20",
		store.InlinedAt(func(p diag.Pos) string { return fmt.Sprintf("@%d", p) }))
	require.Equal(t, "fill", sourceName("fill.12"))
	require.Equal(t, "fill", sourceName("fill"))
	require.Equal(t, "a.b", sourceName("a.b"))
}

package passes

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes/internal/filecheck"
)

const dceRulesSrc = `module "r.tir"

kernel @k(%p: *f32, %n: i32) {
  %c = constant() {value = 1.0} : [64]f32 loc(1)
  %b = alloc(%c) : !smem<[64]f32> loc(2)
  %l = local_load(%b) : [64]f32 loc(3)
  %zero = constant() {value = 0} : i32 loc(4)
  %one = constant() {value = 1} : i32 loc(5)
  %dead = for(%zero, %n, %one, %zero) : i32 loc(6) {
  ^(%i: i32, %x: i32):
    %y = add(%x, %i) : i32 loc(7)
    yield(%y) loc(8)
  }
  %u = add(%n, %one) : i32 loc(9)
  return() loc(10)
}
`

// The two rule sets of the one eliminator: the dce row keeps shared-memory
// ops (they are not pure) and deletes side-effect-free loops; the layout
// passes' cleanup (DeadCode) deletes unused staging and keeps every loop.
func TestDCERules(t *testing.T) {
	parse := func() *ir.Module {
		m, err := ir.Parse("r.tir", []byte(dceRulesSrc))
		require.NoError(t, err)
		require.NoError(t, ir.Verify(m))
		return m
	}
	m := parse()
	require.NoError(t, DCE(m, &Context{Module: m}))
	require.NoError(t, ir.Verify(m))
	require.NoError(t, filecheck.Check(ir.Print(m), `
// CHECK: alloc(
// CHECK-NEXT: local_load(
// CHECK-NOT: for(
// CHECK-NOT: add(
// CHECK: return()`))

	m = parse()
	DeadCode(m.Funcs[0])
	require.NoError(t, ir.Verify(m))
	require.NoError(t, filecheck.Check(ir.Print(m), `
// CHECK-NOT: alloc(
// CHECK-NOT: local_load(
// CHECK: for(
// CHECK: add(
// CHECK-NEXT: yield(
// CHECK-NOT: add(
// CHECK: return()`))
}

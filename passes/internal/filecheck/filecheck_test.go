package filecheck

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const out = `kernel @k() {
  %0 = constant() {value = 3} : i32
  %1 = add(%0, %0) : i32
  store(%p, %1)
  return()
}
`

func TestCheck(t *testing.T) {
	ok := []string{
		"// CHECK: constant() {value = 3}\n// CHECK-NEXT: add(\n// CHECK-SAME: : i32\n// CHECK: return",
		"// CHECK-LABEL: kernel @k\n// CHECK-NOT: mul\n// CHECK: store",
		"// CHECK: [[C:%[0-9]+]] = constant\n// CHECK: add([[C]], [[C]])",
		"// CHECK: value = {{[0-9]+}}",
		"// CHECK: %1   =   add",
		"// CHECK: store\n// CHECK-NOT: add",
	}
	for _, c := range ok {
		require.NoError(t, Check(out, c), c)
	}
	bad := map[string]string{
		"// CHECK: mul": "no match",
		"// CHECK: constant\n// CHECK-NEXT: store":               "no match",
		"// CHECK: constant\n// CHECK-NOT: add\n// CHECK: store": "excluded pattern found",
		"// CHECK: add\n// CHECK-NOT: return":                    "excluded pattern found",
		"// CHECK: [[X]]":                                        "undefined variable",
		"// CHECK: return\n// CHECK: add":                        "no match",
		"// CHECK: add\n// CHECK-SAME: store":                    "no match",
		"nothing":                                                "no CHECK directives",
	}
	for c, want := range bad {
		err := Check(out, c)
		require.Error(t, err, c)
		require.Contains(t, err.Error(), want, c)
	}
}

package check

import (
	"testing"

	"github.com/tlego/tle/ir"
)

// The checker's dtypes are ir's values, with the checker's spellings of the
// kinds ir does not have.
func TestDTypeIsIRDType(t *testing.T) {
	if len(DTypes) != len(ir.AllDTypes) {
		t.Fatalf("%d dtypes, ir has %d", len(DTypes), len(ir.AllDTypes))
	}
	for i, d := range DTypes {
		id := ir.AllDTypes[i]
		if ir.DType(d) != id || d.String() != id.String() || d.Bits() != id.Bits() || d.Size() != int64(id.Bytes()) ||
			d.IsFloat() != id.IsFloat() || d.IsInteger() != id.IsInt() || d.IsUnsigned() != (id.IsUnsigned() && id != ir.I1) {
			t.Errorf("%v differs from ir's %v", d, id)
		}
	}
	for d, want := range map[DType]string{Invalid: "invalid type", UntypedInt: "untyped int", UntypedFloat: "untyped float", DType(99): "invalid type"} {
		if d.String() != want {
			t.Errorf("%d prints %q, want %q", uint8(d), d.String(), want)
		}
		if _, ok := DTypeByName(d.String()); ok {
			t.Errorf("DTypeByName(%q) found a dtype", d.String())
		}
	}
	for _, d := range []DType{UntypedInt, UntypedFloat} {
		if d.Bits() != 0 || ir.DType(d).IsFloat() || ir.DType(d).IsInt() {
			t.Errorf("%v is an ir dtype", d)
		}
	}
	if !UntypedInt.IsInteger() || !UntypedFloat.IsFloat() || UntypedInt.IsUnsigned() || I1.IsUnsigned() || !U8.IsUnsigned() {
		t.Error("untyped kinds or i1 classified wrongly")
	}
}

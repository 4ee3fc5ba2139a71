package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// TestScalarLocalPtrKeepsBuffer: a scalar pointer from local_ptr keeps its
// buffer alive until its last use, so an alloc made in between gets other
// bytes (it had offset 0 too, and the load read the second buffer).
func TestScalarLocalPtrKeepsBuffer(t *testing.T) {
	m := lowerTLE(t, `kernel k(o *i32) {
    tab := alloc([32], i32, init: arange(0, 32))
    p := local_ptr(tab, 1)
    tab2 := alloc([32], i32, init: arange(0, 32) * 2)
    store(o + arange(0, 32), load(tab2) + load(p))
}`)
	var offs []int64
	m.Funcs[0].Walk(func(op *ir.Op) {
		if op.Kind == ir.OpAlloc {
			offs = append(offs, op.Attrs.Int(gpu.AttrSmemOffset, -1))
		}
	})
	if len(offs) != 2 || offs[0] == offs[1] {
		t.Fatalf("the two buffers' offsets: %v", offs)
	}
}

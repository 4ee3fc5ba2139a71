package lower

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/ir"
)

// Helpers taking views, barriers and pipes, with const and dtype
// parameters inferred from the arguments' types: one call op per call,
// each instance specialised on the inferred values, the helper's body
// holding the roles.
func TestLowerHelperParts(t *testing.T) {
	m := lowerSource(t, "parts.tle", `
func fill(buf memdesc[S, N]T, bars barrier[S], v T, N const i32, S const i32, T const dtype) {
    for s := range S {
        store(buf.slot(s), full([N], v, T))
        arrive(bars.slot(s))
    }
}

func twice(x [N]T, N const i32, T const dtype) [N]T {
    return x + x
}

func stream(pp pipe, out *f32) {
    warp_specialize {
        role producer(warps: 1) {
            s := pp.acquire(0)
            store(s.v, zeros([32], f32))
            pp.commit(0)
        }
        role consumer(warps: 4) {
            s := pp.wait(0)
            store(out + arange(0, 32), load(s.v))
            pp.release(0)
        }
    }
}

kernel k(out *f32) {
    buf := alloc([2, 64], f16)
    bars := barrier(count: 1, slots: 2)
    fill(buf, bars, cast(1.5, f16))
    fill(alloc([3, 16], f32), barrier(count: 1, slots: 3), 2.0, T: f32)
    store(out + arange(0, 16), twice(zeros([16], bf16), T: bf16).to(f32))
    stream(pipe(capacity: 2, v: [32]f32), out)
}
`)
	var names []string
	for _, f := range m.Funcs {
		names = append(names, f.Name)
	}
	require.Len(t, m.Funcs, 5, "kernel and four instances: %v", names)
	var calls []string
	m.Funcs[0].Walk(func(op *ir.Op) {
		if op.Kind == ir.OpCall {
			var types []string
			for _, o := range op.Operands {
				types = append(types, o.Type.String())
			}
			calls = append(calls, strings.Join(types, " "))
		}
	})
	require.Equal(t, []string{
		"!smem<[2,64]f16> !barrier<2> f16",
		"!smem<[3,16]f32> !barrier<3> f32",
		"[16]bf16",
		"!pipe<2, v: [32]f32> *f32",
	}, calls)
	var ws int
	for _, f := range m.Funcs[1:] {
		f.Walk(func(op *ir.Op) {
			if op.Kind == ir.OpWarpSpecialize {
				ws++
			}
		})
	}
	require.Equal(t, 1, ws, "the warp_specialize stays in its helper until the inline pass")
}

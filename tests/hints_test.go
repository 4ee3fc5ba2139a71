package tests

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// hintsSrc uses the compiler hints as Triton kernels do: a table's
// pointer marked 16-byte aligned, offsets marked contiguous and aligned,
// a size assumed a multiple of 16, a 2-D tile of row pointers marked as
// the grouped GEMM tutorial marks them; and each hint broken once.
const hintsSrc = `
kernel scale(t *i64, out *f32, n i32, BLOCK const i32) {
    assume(n % 16 == 0)
    assume(n > 0)
    pid := program_id(0)
    p := multiple_of(load(t).to(*f32), 16)
    offs := max_contiguous(multiple_of(pid*BLOCK + arange(0, BLOCK), BLOCK), BLOCK)
    c := max_constancy(pid + zeros([BLOCK], i32), BLOCK)
    m := offs < n
    store(out + offs, load(p + offs, mask: m, other: 0.0) * 2.0 + c.to(f32), mask: m)
}
kernel tile(a *f16, out *f16, lda i32, BM const i32, BK const i32) {
    rm := arange(0, BM)
    rk := arange(0, BK)
    ptrs := multiple_of(a + rm[:, None]*lda + rk[None, :], [16, 16])
    store(out + rm[:, None]*BK + rk[None, :], load(ptrs))
}
kernel broken(x *f32, out *i32, n i32, mode i32) {
    o := arange(0, 64)
    if mode == 0 {
        store(out + o, multiple_of(o + 3, 16))
    }
    if mode == 1 {
        store(out + o, max_contiguous(o * 2, 4))
    }
    if mode == 2 {
        store(out + o, max_constancy(o, 2))
    }
    if mode == 3 {
        assume(n % 16 == 0)
    }
    if mode == 4 {
        store(out + o, load(multiple_of(x + 1, 16) + o).to(i32))
    }
    if mode == 5 {
        store(out, sum(max_contiguous(o, 64)))
    }
    if mode == 6 {
        for i := 0; i < 64; i += n {
            assume(i % 16 == 0)
            store(out + i, i)
        }
    }
}
`

func checkHints(t *testing.T, dev tle.Device, interp bool) {
	prog, err := tle.Parse("hints.tle", []byte(hintsSrc))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 1))

	// the hinted kernel computes what it would without the hints
	const n, block = 1008, 256
	x := make([]float32, n)
	for i := range x {
		x[i] = r.Float32()*8 - 4
	}
	out := make([]float32, n)
	k, err := prog.Kernel("scale")
	require.NoError(t, err)
	require.NoError(t, k.Run(dev, [3]int{4, 1, 1}, tle.CompileOptions{Defines: map[string]string{"BLOCK": "256"}},
		map[string]any{"t": &tle.PointerTable{DType: "f32", Entries: []any{x}}, "out": out, "n": int32(n)}))
	for i := range x {
		require.Equal(t, x[i]*2+float32(i/block), out[i], "scale: element %d", i)
	}

	// a row-major tile of row pointers, multiple_of [16, 16]: true when
	// each row starts 16 bytes apart (lda a multiple of 8 f16)
	tk, err := prog.Kernel("tile")
	require.NoError(t, err)
	const bm, bk = 16, 32
	for _, lda := range []int32{40, 37} {
		a := make([]uint16, bm*int(lda))
		for i := range a {
			a[i] = uint16(r.IntN(0x3c00)) + 1 // positive f16 values below 1, never zero
		}
		if lda%8 != 0 && !interp {
			continue // a broken promise is undefined on the GPU (run 68: a misaligned vector load)
		}
		o := make([]uint16, bm*bk)
		err := tk.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"BM": "16", "BK": "32"}},
			map[string]any{"a": a, "out": o, "lda": lda})
		if lda%8 != 0 { // the interpreter reports the broken promise at the hint
			require.Error(t, err, "lda %d", lda)
			require.Contains(t, err.Error(), "hints.tle:15:13: error: multiple_of(x, 16) along axis 0 is false: element (1, 0), which starts a run, is a pointer to element 37 of a (byte offset 74), not a multiple of 16")
			continue
		}
		require.NoError(t, err, "lda %d", lda)
		for i := 0; i < bm; i++ {
			for j := 0; j < bk; j++ {
				require.Equal(t, a[i*int(lda)+j], o[i*bk+j], "tile (%d, %d)", i, j)
			}
		}
	}

	if !interp {
		return
	}
	// each broken promise is an error at the hint
	bk2, err := prog.Kernel("broken")
	require.NoError(t, err)
	for mode, msg := range []string{
		"hints.tle:21:24: error: multiple_of(x, 16) along axis 0 is false: element (0), which starts a run, is 3, not a multiple of 16",
		"hints.tle:24:24: error: max_contiguous(x, 4) along axis 0 is false: element (1) is 2 and the one before it 0, in a run of 4 that should be consecutive",
		"hints.tle:27:24: error: max_constancy(x, 2) along axis 0 is false: element (1) is 1 and the one before it 0, in a run of 2 that should be equal",
		"hints.tle:30:9: error: assume: the condition is false",
		"hints.tle:33:29: error: multiple_of(x, 16) along axis 0 is false: the value, which starts a run, is a pointer to element 1 of x (byte offset 4), not a multiple of 16",
		"",
		"hints.tle:40:13: error: assume: the condition is false",
	} {
		err := bk2.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{},
			map[string]any{"x": make([]float32, 70), "out": make([]int32, 64), "n": int32(17), "mode": int32(mode)})
		if msg == "" {
			require.NoError(t, err, "mode %d: a true hint", mode)
			continue
		}
		require.Error(t, err, "mode %d", mode)
		require.True(t, strings.Contains(err.Error(), msg), "mode %d: %v", mode, err)
	}
}

// TestHintsInterp: the hints change no value, and the interpreter reports
// each false one at its position.
func TestHintsInterp(t *testing.T) {
	t.Parallel()
	checkHints(t, tle.CPU(), true)
}

// TestGPUHints runs the hinted kernels on the GPU.
func TestGPUHints(t *testing.T) {
	g := tletest.GPU(t)
	checkHints(t, g, false)
}

package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// bp_pad walks a block pointer over x [M, N] (from (r0, c0), which may be
// negative) through a loop, advancing it in an if (down 3 rows on even
// steps, left 5 columns on odd ones: a block pointer carried through both
// the loop and the if), loads each window with boundary_check on both dims
// and NaN padding, and stores it through a second block pointer (advanced 8
// rows a step, no boundary check) into out [steps*8, 16].
//
// bp_store stores v[i, j] = i*16 + j through a block pointer at (r0, c0)
// into y [M, N], checking the dims in DIMS only (y is allocated with room
// around it, so the unchecked dim may go out of y's shape but not out of
// the buffer).
const blockPtrSrc = `
kernel bp_pad(x *f32, out *f32, M i32, N i32, r0 i32, c0 i32, steps i32) {
    p := make_block_ptr(base: x, shape: [M, N], strides: [N, 1], offsets: [r0, c0], block_shape: [8, 16], order: [1, 0])
    o := make_block_ptr(out, [steps*8, 16], [16, 1], [0, 0], [8, 16], [1, 0])
    for s := range(0, steps) {
        store(o, load(p, boundary_check: [0, 1], padding_option: "nan"))
        o = advance(o, [8, 0])
        if s % 2 == 0 {
            p = advance(p, [3, 0])
        } else {
            p = advance(p, [0, -5])
        }
    }
}

kernel bp_store(y *f32, M i32, N i32, ld i32, r0 i32, c0 i32, DIMS const i32) {
    q := make_block_ptr(y, [M, N], [ld, 1], [r0, c0], [8, 16], [1, 0])
    v := arange(0, 8)[:, None]*16 + arange(0, 16)[None, :]
    if DIMS == 2 {
        store(q, v, boundary_check: [0, 1])
    } else {
        store(q, v, boundary_check: [DIMS])
    }
}
`

// blockPtrRun runs bp_pad on dev and checks every window against a float64
// reference: x's element where the window is inside x, NaN elsewhere.
func blockPtrRun(t *testing.T, dev tle.Device) []float64 {
	prog, err := tle.Parse("bp.tle", []byte(blockPtrSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("bp_pad")
	require.NoError(t, err)
	const M, N, r0, c0, steps = 13, 21, -4, 9, 7
	r := rand.New(rand.NewPCG(35, 2))
	x := tle.NewTensor(M, N)
	for i := range x.Data {
		x.Data[i] = float64(float32(r.NormFloat64()))
	}
	out := tle.NewTensor(steps*8, 16)
	err = k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{},
		map[string]any{"x": x, "out": out, "M": M, "N": N, "r0": r0, "c0": c0, "steps": steps})
	require.NoError(t, err, dev.Name())
	ri, ci, nan := r0, c0, 0
	for s := range steps {
		for i := range 8 {
			for j := range 16 {
				got := out.Data[(s*8+i)*16+j]
				row, col := ri+i, ci+j
				if row < 0 || row >= M || col < 0 || col >= N {
					require.True(t, math.IsNaN(got), "%s: step %d (%d, %d) is outside x: want NaN, got %v", dev.Name(), s, row, col, got)
					nan++
				} else {
					require.Equal(t, x.Data[row*N+col], got, "%s: step %d (%d, %d)", dev.Name(), s, row, col)
				}
			}
		}
		if s%2 == 0 {
			ri += 3
		} else {
			ci -= 5
		}
	}
	require.Greater(t, nan, 100, "the windows must cross every edge")
	require.Less(t, nan, steps*8*16/2)
	return out.Data
}

func TestBlockPtrPadding(t *testing.T) { blockPtrRun(t, tle.CPU()) }

// TestBlockPtrStore: a store with boundary_check writes exactly the block's
// elements inside the checked dims; an unchecked dim is not masked (its
// elements past N land in the row's padding, as Triton's would).
func TestBlockPtrStore(t *testing.T) {
	const M, N, ld = 10, 20, 40
	for _, c := range []struct {
		dims   string
		r0, c0 int
	}{{"2", 5, -3}, {"2", -6, 12}, {"1", 1, 12}, {"0", 6, 10}} {
		prog, err := tle.Parse("bp.tle", []byte(blockPtrSrc))
		require.NoError(t, err)
		k, err := prog.Kernel("bp_store")
		require.NoError(t, err)
		const pad = 16 * ld // room before and after y
		buf := tle.NewTensor(pad + M*ld + pad)
		for i := range buf.Data {
			buf.Data[i] = -1
		}
		y := &tle.Tensor{Shape: []int{M * ld}, Data: buf.Data[pad : pad+M*ld]}
		err = k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"DIMS": c.dims}},
			map[string]any{"y": y, "M": M, "N": N, "ld": ld, "r0": c.r0, "c0": c.c0})
		require.NoError(t, err, c)
		for i := range 8 {
			for j := range 16 {
				row, col := c.r0+i, c.c0+j
				in0, in1 := row >= 0 && row < M, col >= 0 && col < N
				stored := (c.dims == "2" && in0 && in1) || (c.dims == "1" && in1) || (c.dims == "0" && in0)
				if row*ld+col < 0 || row*ld+col >= M*ld {
					require.False(t, stored, c)
					continue
				}
				want := -1.0
				if stored {
					want = float64(i*16 + j)
				}
				require.Equal(t, want, y.Data[row*ld+col], "%v (%d, %d)", c, row, col)
			}
		}
		n := 0
		for _, v := range buf.Data {
			if v != -1 {
				n++
			}
		}
		want := map[string]int{"2": 0, "1": 0, "0": 0}
		for i := range 8 {
			for j := range 16 {
				row, col := c.r0+i, c.c0+j
				in0, in1 := row >= 0 && row < M, col >= 0 && col < N
				if (c.dims == "2" && in0 && in1) || (c.dims == "1" && in1) || (c.dims == "0" && in0) {
					want[c.dims]++
				}
			}
		}
		require.Equal(t, want[c.dims], n, "%v: elements written", c)
	}
}

// TestGPUBlockPtr runs bp_pad on the GPU: the same windows, NaN padding
// included, as the interpreter's.
func TestGPUBlockPtr(t *testing.T) {
	g := tletest.GPU(t)
	blockPtrRun(t, g)
}

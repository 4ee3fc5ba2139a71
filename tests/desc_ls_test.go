package tests

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// Register-level loads and stores through tensor descriptors, Triton's
// desc.load(offsets) and desc.store(offsets, value).
//
// dl_sum: program p sums the 8x16 blocks of x [M, N] at rows p*8 - RS
// and columns k*16 - CS for k in [0, n_k) (a loop of loads whose boxes
// pass every edge of x: rows and columns outside read zero; CS a multiple
// of 4 f32, since a box starts on 16 bytes in its innermost dimension),
// adding the block at column -CS again on odd k (a second load, in a
// branch), and stores the result into out [grid*8, 16] with plain stores.
//
// dl_copy: y = 2*x + 1 block by block through make_desc values on both
// sides (a load and a store per block, in a loop over the columns); blocks
// at the tensor's end pass its edge, and their outside elements are not
// written.
//
// dl_roles: two warp roles load the blocks of x through the same
// descriptor concurrently, each site with its own buffer and mbarrier.
//
// dl_rank3: a rank-3 descriptor over a [B, M, N] tensor: out gets the
// [2, 8, 16] block at (b0, r0, c0) summed over its leading dimension.
const descLSSrc = `
kernel dl_sum(x desc[f32, 8, 16], out *f32, n_k i32, RS const i32, CS const i32) {
    pid := program_id(0)
    acc := zeros([8, 16], f32)
    for k := range n_k {
        acc += x.load([pid*8 - RS, k*16 - CS])
        if k % 2 == 1 {
            acc += 0.5 * x.load([pid*8 - RS, -CS])
        }
    }
    r := arange(0, 8)
    c := arange(0, 16)
    store(out + (pid*8 + r[:, None])*16 + c[None, :], acc)
}

kernel dl_copy(x *f32, y *f32, M i32, N i32, ld i32) {
    xd := make_desc(x, shape: [M, N], strides: [ld, 1], block: [8, 16])
    yd := make_desc(y, shape: [M, N], strides: [ld, 1], block: [8, 16])
    pid := program_id(0)
    for j := range cdiv(N, 16) {
        t := xd.load([pid*8, j*16])
        yd.store([pid*8, j*16], 2.0*t + 1.0)
    }
}

kernel dl_roles(x desc[f32, 8, 16], out *f32, n_k i32) {
    r := arange(0, 8)
    c := arange(0, 16)
    warp_specialize {
        role first(warps: 1) {
            for k := range n_k {
                store(out + r[:, None]*16 + c[None, :] + k*128, x.load([k*8, 0]))
            }
        }
        role second(warps: 4) {
            for k := range n_k {
                store(out + r[:, None]*16 + c[None, :] + (k + n_k)*128, 2.0 * x.load([k*8, 0]))
            }
        }
    }
}

kernel dl_rank3(x desc[f32, 2, 8, 16], out *f32, b0 i32, r0 i32, c0 i32) {
    t := x.load([b0, r0, c0])
    r := arange(0, 8)
    c := arange(0, 16)
    store(out + r[:, None]*16 + c[None, :], sum(t, axis: 0))
}
`

func descLSKernel(t *testing.T, name string) *tle.Kernel {
	prog, err := tle.Parse("dl.tle", []byte(descLSSrc))
	require.NoError(t, err)
	k, err := prog.Kernel(name)
	require.NoError(t, err)
	return k
}

func randTensor(r *rand.Rand, shape ...int) *tle.Tensor {
	x := tle.NewTensor(shape...)
	for i := range x.Data {
		x.Data[i] = float64(float32(r.NormFloat64()))
	}
	return x
}

func descSumRun(t *testing.T, dev tle.Device, rs, cs int) {
	k := descLSKernel(t, "dl_sum")
	const M, N, grid, nK = 21, 40, 3, 4
	r := rand.New(rand.NewPCG(35, 9))
	x := randTensor(r, M, N)
	out := tle.NewTensor(grid*8, 16)
	err := k.Run(dev, [3]int{grid, 1, 1}, tle.CompileOptions{Defines: map[string]string{"RS": fmt.Sprint(rs), "CS": fmt.Sprint(cs)}},
		map[string]any{"x": x, "out": out, "n_k": nK})
	require.NoError(t, err, dev.Name())
	at := func(i, j int) float64 {
		if i < 0 || i >= M || j < 0 || j >= N {
			return 0
		}
		return x.Data[i*N+j]
	}
	want := make([]float64, grid*8*16)
	zeros := 0
	for p := range grid {
		for i := range 8 {
			for j := range 16 {
				row := p*8 - rs + i
				var s float64
				for kk := range nK {
					s += at(row, kk*16-cs+j)
					if at(row, kk*16-cs+j) == 0 {
						zeros++
					}
					if kk%2 == 1 {
						s += 0.5 * at(row, -cs+j)
					}
				}
				want[(p*8+i)*16+j] = s
			}
		}
	}
	if rs > 0 || cs > 0 {
		require.Greater(t, zeros, 100, "the boxes must pass the tensor's edges")
	}
	require.Less(t, tletest.RelRMS(out.Data, want), 1e-6, dev.Name())
}

func TestDescLoadLoop(t *testing.T) { descSumRun(t, tle.CPU(), 3, 4) }

// TestDescLoadMisaligned: a box whose innermost offset is not on 16 bytes
// (-3 f32) is an error at the load on the interpreter: the GPU stops there
// with an illegal instruction (run 68).
func TestDescLoadMisaligned(t *testing.T) {
	k := descLSKernel(t, "dl_sum")
	err := k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"RS": "3", "CS": "3"}},
		map[string]any{"x": randTensor(rand.New(rand.NewPCG(1, 2)), 21, 40), "out": tle.NewTensor(8, 16), "n_k": 1})
	require.ErrorContains(t, err, "dl.tle:6:16: error: copy through x at offsets [-3 -3]: the innermost offset -3 is -12 bytes, not a multiple of 16 as TMA needs")
}

func descCopyRun(t *testing.T, dev tle.Device) {
	k := descLSKernel(t, "dl_copy")
	const M, N, ld = 19, 36, 40 // N is not a multiple of 16, ld*4 a multiple of 16 bytes
	r := rand.New(rand.NewPCG(35, 10))
	x := randTensor(r, M, ld)
	y := tle.NewTensor(M, ld)
	for i := range y.Data {
		y.Data[i] = -7
	}
	grid := (M + 7) / 8
	err := k.Run(dev, [3]int{grid, 1, 1}, tle.CompileOptions{}, map[string]any{"x": x, "y": y, "M": M, "N": N, "ld": ld})
	require.NoError(t, err, dev.Name())
	for i := range M {
		for j := range ld {
			want := -7.0
			if j < N {
				want = 2*x.Data[i*ld+j] + 1
			}
			require.InDelta(t, want, y.Data[i*ld+j], 1e-6, "%s (%d, %d)", dev.Name(), i, j)
		}
	}
}

func TestDescLoadStoreRoundTrip(t *testing.T) { descCopyRun(t, tle.CPU()) }

func TestDescLoadRank3(t *testing.T) {
	k := descLSKernel(t, "dl_rank3")
	const B, M, N = 3, 10, 20
	r := rand.New(rand.NewPCG(35, 11))
	x := randTensor(r, B, M, N)
	for _, c := range []struct{ b0, r0, c0 int }{{0, 0, 0}, {1, 5, 8}, {2, -3, -4}} {
		out := tle.NewTensor(8, 16)
		err := k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{}, map[string]any{"x": x, "out": out, "b0": c.b0, "r0": c.r0, "c0": c.c0})
		require.NoError(t, err)
		for i := range 8 {
			for j := range 16 {
				var want float64
				for b := c.b0; b < c.b0+2; b++ {
					row, col := c.r0+i, c.c0+j
					if b < B && row >= 0 && row < M && col >= 0 && col < N {
						want += x.Data[(b*M+row)*N+col]
					}
				}
				require.InDelta(t, want, out.Data[i*16+j], 1e-6, "%v (%d, %d)", c, i, j)
			}
		}
	}
}

func TestDescLoadInRoles(t *testing.T) {
	k := descLSKernel(t, "dl_roles")
	const nK = 3
	r := rand.New(rand.NewPCG(35, 12))
	x := randTensor(r, nK*8, 16)
	out := tle.NewTensor(2 * nK * 128)
	require.NoError(t, k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{}, map[string]any{"x": x, "out": out, "n_k": nK}))
	for i, v := range x.Data {
		require.Equal(t, v, out.Data[i], "first role, element %d", i)
		require.Equal(t, 2*v, out.Data[nK*128+i], "second role, element %d", i)
	}
}

// TestGPUDescLoadStore runs the loop of loads (inside the tensor, and
// past its edges) and the round trip on the GPU, a subtest each.
func TestGPUDescLoadStore(t *testing.T) {
	g := tletest.GPU(t)
	t.Run("sum_inside", func(t *testing.T) { descSumRun(t, g, 0, 0) })
	t.Run("sum_edges", func(t *testing.T) { descSumRun(t, g, 3, 4) })
	t.Run("copy", func(t *testing.T) { descCopyRun(t, g) })
}

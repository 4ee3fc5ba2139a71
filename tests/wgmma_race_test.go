package tests

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// A two-stage ring: the load role refills a stage once the mma role
// releases it. With LATE the mma role releases a stage before the wgmma
// reading it is waited for: on the GPU the refill can overwrite the tile
// while the tensor cores still read it. The interpreter runs wgmma at once,
// so its results would not show the race; it reports the refill instead.
const wgmmaRaceSrc = `
kernel ring(a desc[bf16, 64, 64], out *f32, LATE const i1) {
    sa := alloc([2, 64, 64], bf16)
    full := barrier(count: 1, slots: 2)
    empty := barrier(count: 1, slots: 2)
    warp_specialize {
        role load(warps: 1) {
            for i := range 4 {
                s := i % 2
                if i >= 2 {
                    wait(empty.slot(s), (i/2 + 1) % 2)
                }
                expect(full.slot(s), 64 * 64 * 2)
                copy(a, sa.slot(s), 0, 0, barrier: full.slot(s))
            }
        }
        role mma(warps: 4) {
            acc := zeros([64, 64], f32)
            for i := range 4 {
                s := i % 2
                wait(full.slot(s), (i / 2) % 2)
                acc = wgmma(sa.slot(s), sa.slot(s), acc, trans_b: true)
                if LATE {
                    arrive(empty.slot(s))
                    wgmma_wait(0)
                } else {
                    wgmma_wait(0)
                    arrive(empty.slot(s))
                }
            }
            r := arange(0, 64)
            store(out + r[:, None]*64 + r[None, :], acc)
        }
    }
}
`

func TestWgmmaReleasedInFlight(t *testing.T) {
	prog, err := tle.Parse("ring.tle", []byte(wgmmaRaceSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("ring")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 4))
	a := &tle.Tensor{Shape: []int{64, 64}, Data: make([]float64, 64*64)}
	for i := range a.Data {
		a.Data[i] = float64(r.IntN(9) - 4)
	}
	run := func(late string) error {
		return k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"LATE": late}},
			map[string]any{"a": a, "out": tle.NewTensor(64 * 64)})
	}
	require.NoError(t, run("false"))
	err = run("true")
	require.ErrorContains(t, err, "write to sa after a barrier another thread arrived on while its wgmma at ring.tle:")
	require.ErrorContains(t, err, "still read it: wgmma_wait before the arrive")
}

// A thread storing into a buffer its own wgmma still reads (no wgmma_wait
// in between) is reported too; after the wait the store is fine.
const wgmmaOverwriteSrc = `
kernel overwrite(x *bf16, out *f32, EARLY const i1) {
    r := arange(0, 64)
    tile := load(x + r[:, None]*64 + r[None, :])
    sa := alloc([64, 64], bf16)
    store(sa, tile)
    acc := wgmma(sa, sa, zeros([64, 64], f32), trans_b: true)
    if EARLY {
        store(sa, tile * 2.0)
    }
    wgmma_wait(0)
    store(sa, tile * 3.0)
    store(out + r[:, None]*64 + r[None, :], acc)
}
`

func TestWgmmaOperandOverwritten(t *testing.T) {
	prog, err := tle.Parse("overwrite.tle", []byte(wgmmaOverwriteSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("overwrite")
	require.NoError(t, err)
	x := &tle.Tensor{Shape: []int{64 * 64}, Data: make([]float64, 64*64)}
	for i := range x.Data {
		x.Data[i] = float64(i%7) - 3
	}
	run := func(early string) error {
		return k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"EARLY": early}, NumWarps: 4},
			map[string]any{"x": x, "out": tle.NewTensor(64 * 64)})
	}
	require.NoError(t, run("false"))
	require.ErrorContains(t, run("true"), "write to sa while the wgmma at overwrite.tle:7:12 may still read it")
}

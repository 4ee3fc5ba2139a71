package tests

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// make_desc's runtime arguments must make a map TMA can use; the GPU
// cannot say when they do not, so the interpreter does, at the make_desc.
const makeDescSrc = `
kernel md(x *f32, out *f32, n i32, ld i32, s i32, off i32) {
    d := make_desc(x + off, shape: [n, 16], strides: [ld, s], block: [16, 16])
    buf := alloc([16, 16], f32)
    b := barrier(count: 1)
    expect(b, 16 * 16 * 4)
    copy(d, buf, 0, 0, barrier: b)
    wait(b, 0)
    r := arange(0, 16)
    store(out + r[:, None]*16 + r[None, :], load(buf))
}
`

func TestMakeDescChecksTMARules(t *testing.T) {
	prog, err := tle.Parse("md.tle", []byte(makeDescSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("md")
	require.NoError(t, err)
	run := func(ld, s, off int) error {
		x := tle.NewTensor(64 * 40)
		for i := range x.Data {
			x.Data[i] = float64(i%97) - 48
		}
		out := tle.NewTensor(16 * 16)
		err := k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{}, map[string]any{"x": x, "out": out, "n": 16, "ld": ld, "s": s, "off": off})
		if err == nil {
			for i := 0; i < 16; i++ {
				for j := 0; j < 16; j++ {
					require.Equal(t, x.Data[off+i*ld+j], out.Data[i*16+j])
				}
			}
		}
		return err
	}
	require.NoError(t, run(20, 1, 4), "rows of 80 bytes from element 4 (16 bytes)")
	for _, c := range []struct {
		ld, s, off int
		want       string
	}{
		{18, 1, 0, "md.tle:3:10: error: make_desc: the stride of dimension 0 is 18 elements (72 bytes), not a multiple of 16 bytes"},
		{20, 2, 0, "make_desc: the innermost stride must be 1 (TMA moves contiguous rows), got 2"},
		{20, 1, 2, "make_desc: the tensor starts at element 2 of x, not on a 16-byte boundary"},
	} {
		err := run(c.ld, c.s, c.off)
		require.Error(t, err)
		require.Contains(t, err.Error(), c.want)
	}
}

package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// reduceBitsSrc: reduce_or and xor_sum along each axis and over the whole
// tile (i32, and i1 masks), and sum/cumsum with dtype: (an i8 sum kept in
// i8, a bf16 sum in f32, an i8 prefix sum in i32).
const reduceBitsSrc = `
kernel reduce_bits(y *i32, s *i8, h *bf16, ors *i32, xors *i32, all *i32, any *i32, par *i32, s8 *i8, s32 *i32, hf *f32, cs *i32) {
    r := arange(0, 16)
    c := arange(0, 64)
    off := r[:, None]*64 + c[None, :]
    t := load(y + off)
    store(ors + r, reduce_or(t, axis: 1))
    store(xors + c, xor_sum(t, axis: 0))
    store(all, xor_sum(t))
    m := t > 1000000000
    store(any + r, cast(reduce_or(m, axis: 1), i32))
    store(par + c[None, :], cast(xor_sum(m, axis: 0, keep_dims: true), i32))
    b := load(s + off)
    store(s8 + r, sum(b, axis: 1, dtype: i8))
    store(s32 + r, sum(b, axis: 1))
    store(hf + r, sum(load(h + off), axis: 1, dtype: f32))
    store(cs + off, cumsum(b, axis: 1, dtype: i32))
}
`

func runReduceBits(t *testing.T, dev tle.Device, seed uint64) {
	prog, err := tle.Parse("reduce_bits.tle", []byte(reduceBitsSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("reduce_bits")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 5))
	const n = 16 * 64
	for range 3 {
		y, s, h := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range y {
			y[i] = float64(int32(r.Uint32()))
			s[i] = float64(int8(r.IntN(255) - 127))
			h[i] = floats.Round(floats.BF16, r.NormFloat64())
		}
		outs := map[string]*tle.Tensor{}
		args := map[string]any{"y": &tle.Tensor{Shape: []int{n}, Data: y}, "s": &tle.Tensor{Shape: []int{n}, Data: s}, "h": &tle.Tensor{Shape: []int{n}, Data: h}}
		for name, m := range map[string]int{"ors": 16, "xors": 64, "all": 1, "any": 16, "par": 64, "s8": 16, "s32": 16, "hf": 16, "cs": n} {
			outs[name] = tle.NewTensor(m)
			args[name] = outs[name]
		}
		require.NoError(t, k.Run(dev, [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4}, args))
		all := int32(0)
		for i := range 16 {
			or, any := int32(0), 0.0
			var s8 int8
			s32, hf := int32(0), 0.0
			for j := range 64 {
				v := int32(y[i*64+j])
				or |= v
				all ^= v
				if v > 1000000000 {
					any = 1
				}
				s8 += int8(s[i*64+j])
				s32 += int32(s[i*64+j])
				hf += h[i*64+j]
				require.Equal(t, float64(s32), outs["cs"].Data[i*64+j], "%s: cumsum i32 of i8 at %d,%d", dev.Name(), i, j)
			}
			require.Equal(t, float64(or), outs["ors"].Data[i], "%s: reduce_or row %d", dev.Name(), i)
			require.Equal(t, any, outs["any"].Data[i], "%s: reduce_or of a mask, row %d", dev.Name(), i)
			require.Equal(t, float64(s8), outs["s8"].Data[i], "%s: sum dtype i8, row %d", dev.Name(), i)
			require.Equal(t, float64(s32), outs["s32"].Data[i], "%s: sum of i8 in i32, row %d", dev.Name(), i)
			require.InDelta(t, hf, outs["hf"].Data[i], 1e-4*(1+math.Abs(hf)), "%s: sum of bf16 in f32, row %d", dev.Name(), i)
		}
		require.Equal(t, float64(all), outs["all"].Data[0], "%s: xor_sum of the tile", dev.Name())
		for j := range 64 {
			x, p := int32(0), 0.0
			for i := range 16 {
				x ^= int32(y[i*64+j])
				if int32(y[i*64+j]) > 1000000000 {
					p = 1 - p
				}
			}
			require.Equal(t, float64(x), outs["xors"].Data[j], "%s: xor_sum column %d", dev.Name(), j)
			require.Equal(t, p, outs["par"].Data[j], "%s: xor_sum of a mask, column %d", dev.Name(), j)
		}
	}
}

// TestReduceBits runs reduce_or, xor_sum and the dtype: of sum and cumsum
// on the interpreter against integer and float64 references.
func TestReduceBits(t *testing.T) { runReduceBits(t, tle.CPU(), 21) }

// TestGPUReduceBits: the same on the GPU.
func TestGPUReduceBits(t *testing.T) {
	g := tletest.GPU(t)
	runReduceBits(t, g, 22)
}

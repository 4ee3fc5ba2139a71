package interp

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

// typedSamples are values for dtype d: specials for floats (signed zeros,
// infinities, the smallest subnormals, values that round), both ends of
// the range for integers.
func typedSamples(d ir.DType) []float64 {
	if d.IsFloat() {
		return []float64{0, math.Copysign(0, -1), 1, -1.5, 3.14159, 1e-3, 65504, 1e30, -1e30, math.Inf(1), math.Inf(-1),
			math.SmallestNonzeroFloat64, 1e-40, 5.960464477539063e-08, 0.0078125, 448, -57344}
	}
	if d == ir.I1 {
		return []float64{0, 1, 1, 0}
	}
	lo, hi := -math.Ldexp(1, d.Bits()-1), math.Ldexp(1, d.Bits()-1)-1
	if d.IsUnsigned() {
		lo, hi = 0, math.Ldexp(1, d.Bits())-1
	}
	if d.Bits() == 64 {
		return []float64{0, 1, -1 * float64(btoi(!d.IsUnsigned())), 1 << 53, 12345}
	}
	return []float64{0, 1, lo, hi, lo + 1, hi - 1, 7}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Every dtype is held in its own width: Slice has the type SliceType
// names, FromSlice takes that slice back without a copy, and the
// float64, int64 and byte views round-trip.
func TestBufferInItsDType(t *testing.T) {
	for _, d := range ir.AllDTypes {
		xs := typedSamples(d)
		b := FromFloat64(d, xs)
		require.Equal(t, SliceType(d), fmt.Sprintf("%T", b.Slice()), "%v", d)
		require.Equal(t, len(xs)*d.Bytes(), len(b.Bytes()), "%v: Bytes", d)

		// the values are those of the dtype's rounding (ir.DType.Round)
		got := b.Float64()
		for k, x := range xs {
			want := d.Round(x)
			if !d.IsFloat() {
				want = float64(floatToInt(d, x))
				if d == ir.U64 {
					want = float64(uint64(floatToInt(d, x)))
				}
			}
			require.Equal(t, math.Float64bits(want), math.Float64bits(got[k]), "%v: element %d (%v): got %v, want %v", d, k, x, got[k], want)
		}

		// bytes round-trip
		c, err := FromBytes(d, b.Bytes())
		require.NoError(t, err)
		require.Equal(t, b.Bytes(), c.Bytes(), "%v", d)
		require.Equal(t, b.Int64(), c.Int64(), "%v", d)

		// FromSlice aliases: a kernel-side write is seen in the slice
		a, err := FromSlice(d, b.Slice())
		require.NoError(t, err, "%v", d)
		require.Equal(t, b.Len(), a.Len())
		if d.IsFloat() {
			a.setF(0, d.Round(2))
			require.Equal(t, 2.0, b.Float64()[0], "%v: FromSlice copied", d)
		} else {
			a.setI(0, 1)
			require.Equal(t, int64(1), b.Int64()[0], "%v: FromSlice copied", d)
		}
	}
}

// A slice of another type than the dtype's is refused with both named.
func TestFromSliceRefusesOtherTypes(t *testing.T) {
	cases := []struct {
		d    ir.DType
		data any
		want string
	}{
		{ir.F32, []float64{1}, "interp: a []float64 cannot hold f32 elements: want a []float32"},
		{ir.BF16, []float32{1}, "interp: a []float32 cannot hold bf16 elements: want a []uint16"},
		{ir.I32, []uint32{1}, "interp: a []uint32 cannot hold i32 elements: want a []int32"},
		{ir.F8E4M3, []int8{1}, "interp: a []int8 cannot hold f8e4m3 elements: want a []uint8"},
		{ir.I1, []uint8{1}, "interp: a []uint8 cannot hold i1 elements: want a []bool"},
		{ir.F32, nil, "interp: a <nil> cannot hold f32 elements: want a []float32"},
		{ir.F32, "x", "interp: a string cannot hold f32 elements: want a []float32"},
		{ir.Invalid, []float32{1}, "interp: invalid dtype"},
	}
	for _, c := range cases {
		_, err := FromSlice(c.d, c.data)
		require.Error(t, err, "%v %T", c.d, c.data)
		require.True(t, strings.HasPrefix(err.Error(), c.want), "%v %T: %v", c.d, c.data, err)
	}
}

// A kernel copies x to out through contiguous loads and stores and through
// reversed (gathered, scattered) and masked ones, for every dtype: the
// bytes arrive as they were (NaNs aside, every value of the dtype, as
// typedSamples has them), in storage of the dtype's width.
func TestTypedCopyKernel(t *testing.T) {
	const n = 32
	for _, d := range ir.AllDTypes {
		for _, how := range []string{"contiguous", "reversed", "masked"} {
			k := newKernel("copy", param("x", ptr(d)), param("out", ptr(d)))
			offs := k.arange(n)
			var mask *ir.Value
			switch how {
			case "reversed":
				offs = k.bin(ir.OpSub, k.splat(k.ci(n-1), []int{n}), offs)
			case "masked":
				mask = k.cmp("ne", offs, k.splat(k.ci(3), []int{n}))
			}
			v := k.load(k.addptr(k.arg(0), offs), mask, nil)
			k.store(k.addptr(k.arg(1), offs), v, mask)
			mod := k.ret()
			require.NoError(t, ir.Verify(mod))

			xs := typedSamples(d)
			for len(xs) < n {
				xs = append(xs, xs...)
			}
			x := FromFloat64(d, xs[:n])
			out := NewBuffer(d, n)
			require.NoError(t, launchT(t, mod, [3]int{1, 1, 1}, x, out), "%v %s", d, how)
			want := x.Bytes()
			if how == "masked" {
				sz := d.Bytes()
				clear(want[3*sz : 4*sz])
			}
			require.True(t, bytes.Equal(want, out.Bytes()), "%v %s:\n got %v\nwant %v", d, how, out.Float64(), x.Float64())
		}
	}
}

package npy

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// F16Bits rounds x to IEEE half precision (RNE; overflow to ±inf; NaN 0x7fff).
func F16Bits(x float64) uint16 { return floats.Encode(floats.F16, x) }

// BF16Bits rounds x to bfloat16 (RNE; overflow to ±inf; NaN 0x7fff).
func BF16Bits(x float64) uint16 { return floats.Encode(floats.BF16, x) }

// F8E4M3Bits rounds x to fp8 e4m3fn as PTX cvt.rn.satfinite does: RNE,
// magnitudes beyond 448 and ±inf saturate to ±448 (0x7e/0xfe), NaN is 0x7f.
func F8E4M3Bits(x float64) uint8 { return uint8(floats.Encode(floats.E4M3FN, x)) }

// F8E5M2Bits rounds x to fp8 e5m2 as PTX cvt.rn.satfinite does: RNE,
// magnitudes beyond 57344 and ±inf saturate to ±57344 (0x7b/0xfb), NaN 0x7f.
func F8E5M2Bits(x float64) uint8 { return uint8(floats.Encode(floats.E5M2, x)) }

// F16Value decodes half-precision bits.
func F16Value(b uint16) float64 { return floats.Decode(floats.F16, b) }

// BF16Value decodes bfloat16 bits.
func BF16Value(b uint16) float64 { return floats.Decode(floats.BF16, b) }

// F8E4M3Value decodes fp8 e4m3fn bits (0x7f and 0xff are NaN; no inf).
func F8E4M3Value(b uint8) float64 { return floats.Decode(floats.E4M3FN, uint16(b)) }

// F8E5M2Value decodes fp8 e5m2 bits.
func F8E5M2Value(b uint8) float64 { return floats.Decode(floats.E5M2, uint16(b)) }

// IntBits converts x to an n-bit integer as a C cast does on the usual
// targets: truncation toward zero, then the low n bits (wrap-around, for
// out-of-range values too, where C leaves it undefined); NaN gives 0.
func IntBits(x float64, n int) uint64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	t := math.Trunc(x)
	var v uint64
	if math.Abs(t) < 1<<63 {
		v = uint64(int64(t))
	} else {
		m := math.Mod(t, 1<<64) // exact; in (-2^64, 2^64)
		if m < 0 {
			m += 1 << 64
		}
		v = uint64(m) // representable: m is an integer in [0, 2^64)
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	return v
}

// Encode converts float64 values to the little-endian bytes of dtype d:
// floats round to nearest even (fp8 with satfinite), integers as a C cast
// (IntBits), i1 is 1 for any nonzero value (NaN included) and 0 for zero.
func Encode(d ir.DType, src []float64) ([]byte, error) {
	size := d.Bytes()
	if size == 0 {
		return nil, fmt.Errorf("npy: unknown dtype %q", d)
	}
	out := make([]byte, len(src)*size)
	le := binary.LittleEndian
	for i, x := range src {
		o := out[i*size:]
		switch d {
		case ir.F64:
			le.PutUint64(o, math.Float64bits(x))
		case ir.F32:
			le.PutUint32(o, math.Float32bits(float32(x)))
		case ir.F16, ir.BF16:
			le.PutUint16(o, floats.Encode(floatFormat(d), x))
		case ir.F8E4M3, ir.F8E5M2:
			o[0] = byte(floats.Encode(floatFormat(d), x))
		case ir.I1:
			if x != 0 {
				o[0] = 1
			}
		default:
			v := IntBits(x, 8*size)
			switch size {
			case 1:
				o[0] = byte(v)
			case 2:
				le.PutUint16(o, uint16(v))
			case 4:
				le.PutUint32(o, uint32(v))
			case 8:
				le.PutUint64(o, v)
			}
		}
	}
	return out, nil
}

// EncodeInts converts integers to the bytes of dtype d exactly (integer
// dtypes wrap to their width; float dtypes round like Encode; i1 is v != 0).
func EncodeInts(d ir.DType, src []int64) ([]byte, error) {
	if d.IsFloat() {
		f := make([]float64, len(src))
		for i, v := range src {
			f[i] = float64(v)
		}
		return Encode(d, f)
	}
	size := d.Bytes()
	if size == 0 {
		return nil, fmt.Errorf("npy: unknown dtype %q", d)
	}
	out := make([]byte, len(src)*size)
	for i, v := range src {
		if d == ir.I1 && v != 0 {
			v = 1
		}
		u := uint64(v)
		for k := 0; k < size; k++ {
			out[i*size+k] = byte(u >> (8 * k))
		}
	}
	return out, nil
}

// Decode converts little-endian bytes of dtype d to float64 (exact except
// for 64-bit integers beyond 2^53).
func Decode(d ir.DType, b []byte) ([]float64, error) {
	size := d.Bytes()
	if size == 0 {
		return nil, fmt.Errorf("npy: unknown dtype %q", d)
	}
	if len(b)%size != 0 {
		return nil, fmt.Errorf("npy: %d bytes is not a whole number of %s (%d bytes)", len(b), d, size)
	}
	out := make([]float64, len(b)/size)
	le := binary.LittleEndian
	for i := range out {
		o := b[i*size:]
		switch d {
		case ir.F64:
			out[i] = math.Float64frombits(le.Uint64(o))
		case ir.F32:
			out[i] = float64(math.Float32frombits(le.Uint32(o)))
		case ir.F16, ir.BF16:
			out[i] = floats.Decode(floatFormat(d), le.Uint16(o))
		case ir.F8E4M3, ir.F8E5M2:
			out[i] = floats.Decode(floatFormat(d), uint16(o[0]))
		case ir.U64:
			out[i] = float64(le.Uint64(o))
		default:
			out[i] = float64(intAt(d, o))
		}
	}
	return out, nil
}

// DecodeInts converts little-endian bytes of an integer dtype to int64
// (u64 values keep their bits: convert back with uint64(v)).
func DecodeInts(d ir.DType, b []byte) ([]int64, error) {
	size := d.Bytes()
	if size == 0 || d.IsFloat() {
		return nil, fmt.Errorf("npy: DecodeInts of %q", d)
	}
	if len(b)%size != 0 {
		return nil, fmt.Errorf("npy: %d bytes is not a whole number of %s (%d bytes)", len(b), d, size)
	}
	out := make([]int64, len(b)/size)
	for i := range out {
		out[i] = intAt(d, b[i*size:])
	}
	return out, nil
}

func intAt(d ir.DType, o []byte) int64 {
	le := binary.LittleEndian
	switch d {
	case ir.I1, ir.U8:
		return int64(o[0])
	case ir.I8:
		return int64(int8(o[0]))
	case ir.I16:
		return int64(int16(le.Uint16(o)))
	case ir.U16:
		return int64(le.Uint16(o))
	case ir.I32:
		return int64(int32(le.Uint32(o)))
	case ir.U32:
		return int64(le.Uint32(o))
	case ir.I64, ir.U64:
		return int64(le.Uint64(o))
	}
	return 0
}

// floatFormat is the floats format of a 16- or 8-bit float dtype.
func floatFormat(d ir.DType) floats.Format {
	f, _ := d.FloatFormat()
	return f
}

package interp

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// Buffer is device memory of the interpreter: a typed array of Len elements
// of one dtype. Float buffers hold their elements as float64 values that are
// exactly representable in the dtype (every write rounds); integer buffers
// hold int64 values wrapped to the dtype (u64 as its two's-complement bits).
//
// A Buffer may be passed to several launches. Concurrent launches on the same
// buffer are the caller's business, as on a GPU.
type Buffer struct {
	dtype ir.DType
	f     []float64 // float dtypes
	i     []int64   // integer dtypes
	mu    sync.Mutex
	name  string       // shared-memory buffers: what error messages call it
	pend  pendingReads // in-flight wgmma reads of a shared-memory buffer
	// shadow holds a shared-memory buffer's last accesses for the race
	// check (race.go); nil for global memory and pipe fields
	shadow *raceShadow
}

// NewBuffer allocates a zero-filled buffer of n elements of dtype d.
func NewBuffer(d ir.DType, n int) *Buffer {
	if n < 0 {
		n = 0
	}
	b := &Buffer{dtype: d}
	if d.IsFloat() {
		b.f = make([]float64, n)
	} else {
		b.i = make([]int64, n)
	}
	return b
}

// FromFloat64 makes a buffer of dtype d holding xs, each rounded to d
// (round-to-nearest-even for floats, truncation and wrap for integers, as
// ir.DType.Round).
func FromFloat64(d ir.DType, xs []float64) *Buffer {
	b := NewBuffer(d, len(xs))
	if d.IsFloat() {
		copy(b.f, xs)
		roundSlice(d, b.f)
	} else {
		for k, x := range xs {
			b.i[k] = floatToInt(d, x)
		}
	}
	return b
}

// FromInt64 makes a buffer of dtype d holding xs (wrapped to integer dtypes,
// converted and rounded for float dtypes).
func FromInt64(d ir.DType, xs []int64) *Buffer {
	b := NewBuffer(d, len(xs))
	for k, x := range xs {
		if d.IsFloat() {
			b.f[k] = d.Round(float64(x))
		} else {
			b.i[k] = wrap(d, x)
		}
	}
	return b
}

// FromBytes makes a buffer from raw little-endian storage of dtype d (the
// layout of a .npy payload; bf16 and fp8 as their bit patterns).
func FromBytes(d ir.DType, raw []byte) (*Buffer, error) {
	sz := d.Bytes()
	if sz == 0 {
		return nil, fmt.Errorf("interp: invalid dtype %v", d)
	}
	if len(raw)%sz != 0 {
		return nil, fmt.Errorf("interp: %d bytes is not a whole number of %v elements", len(raw), d)
	}
	n := len(raw) / sz
	b := NewBuffer(d, n)
	for k := 0; k < n; k++ {
		e := raw[k*sz : (k+1)*sz]
		var u uint64
		switch sz {
		case 1:
			u = uint64(e[0])
		case 2:
			u = uint64(binary.LittleEndian.Uint16(e))
		case 4:
			u = uint64(binary.LittleEndian.Uint32(e))
		case 8:
			u = binary.LittleEndian.Uint64(e)
		}
		if d.IsFloat() {
			b.f[k] = decodeFloat(d, u)
		} else {
			b.i[k] = wrap(d, int64(u))
		}
	}
	return b, nil
}

// DType is the element type.
func (b *Buffer) DType() ir.DType { return b.dtype }

// Len is the number of elements.
func (b *Buffer) Len() int {
	if b.dtype.IsFloat() {
		return len(b.f)
	}
	return len(b.i)
}

// Float64 returns a copy of the elements as float64 (exact for floats and for
// integers up to 2^53).
func (b *Buffer) Float64() []float64 {
	if b.dtype.IsFloat() {
		return append([]float64(nil), b.f...)
	}
	out := make([]float64, len(b.i))
	for k, v := range b.i {
		if b.dtype == ir.U64 {
			out[k] = float64(uint64(v))
		} else {
			out[k] = float64(v)
		}
	}
	return out
}

// Int64 returns a copy of the elements as int64 (floats truncate toward zero).
func (b *Buffer) Int64() []int64 {
	if !b.dtype.IsFloat() {
		return append([]int64(nil), b.i...)
	}
	out := make([]int64, len(b.f))
	for k, v := range b.f {
		out[k] = ir.TruncInt(v)
	}
	return out
}

// Bytes returns the raw little-endian storage of the elements.
func (b *Buffer) Bytes() []byte {
	sz := b.dtype.Bytes()
	n := b.Len()
	out := make([]byte, n*sz)
	for k := 0; k < n; k++ {
		var u uint64
		if b.dtype.IsFloat() {
			u = encodeFloat(b.dtype, b.f[k])
		} else {
			u = uint64(b.i[k])
		}
		e := out[k*sz : (k+1)*sz]
		switch sz {
		case 1:
			e[0] = byte(u)
		case 2:
			binary.LittleEndian.PutUint16(e, uint16(u))
		case 4:
			binary.LittleEndian.PutUint32(e, uint32(u))
		case 8:
			binary.LittleEndian.PutUint64(e, u)
		}
	}
	return out
}

// CopyFromFloat64 overwrites the first len(xs) elements with xs, rounded.
func (b *Buffer) CopyFromFloat64(xs []float64) {
	if b.dtype.IsFloat() {
		n := copy(b.f, xs)
		roundSlice(b.dtype, b.f[:n])
		return
	}
	for k := 0; k < len(xs) && k < len(b.i); k++ {
		b.i[k] = floatToInt(b.dtype, xs[k])
	}
}

func (b *Buffer) String() string { return fmt.Sprintf("Buffer(%v, %d)", b.dtype, b.Len()) }

// Desc is a tensor descriptor argument for a `desc[T, B0, B1, ...]`
// parameter: a global tensor of the given Shape and Strides (in elements,
// outermost dimension first) starting at element Offset of Buf. The block
// shape comes from the parameter's type. TMA copies through it read zeros
// outside Shape and clip stores to it.
type Desc struct {
	Buf     *Buffer
	Offset  int
	Shape   []int
	Strides []int
}

// ---- scalar conversions

// floatToInt converts like a C cast (ir.DType.Round's integer semantics).
func floatToInt(d ir.DType, x float64) int64 {
	if d == ir.I1 {
		if x != 0 && !math.IsNaN(x) {
			return 1
		}
		return 0
	}
	if d == ir.U64 && x >= 9223372036854775808.0 {
		if x >= 18446744073709551615.0 {
			return -1
		}
		return int64(uint64(x))
	}
	return d.WrapInt(ir.TruncInt(x))
}

// wrap reduces v to the value set of an integer dtype.
func wrap(d ir.DType, v int64) int64 {
	switch d {
	case ir.I64, ir.U64:
		return v
	}
	return d.WrapInt(v)
}

// intToFloat converts an integer element of dtype src to float64.
func intToFloat(src ir.DType, v int64) float64 {
	if src == ir.U64 {
		return float64(uint64(v))
	}
	return float64(v)
}

// ---- raw float encodings: floats is the codec. Two rules of the buffers'
// storage stay here (a conversion by floats.Encode would differ): a NaN keeps
// its sign, and an f8e5m2 infinity (which FromBytes can read; a conversion
// saturates it) is written back as an infinity.

func encodeFloat(d ir.DType, x float64) uint64 {
	switch d {
	case ir.F64:
		return math.Float64bits(x)
	case ir.F32:
		return uint64(math.Float32bits(float32(x)))
	}
	f, _ := d.FloatFormat()
	b := floats.Encode(f, x)
	switch {
	case math.IsNaN(x) && math.Signbit(x):
		b |= f.SignBit()
	case math.IsInf(x, 0) && f.HasInf():
		inf, _ := floats.Inf(f)
		b = b&f.SignBit() | inf
	}
	return uint64(b)
}

func decodeFloat(d ir.DType, u uint64) float64 {
	switch d {
	case ir.F64:
		return math.Float64frombits(u)
	case ir.F32:
		return float64(math.Float32frombits(uint32(u)))
	}
	f, _ := d.FloatFormat()
	v := floats.Decode(f, uint16(u))
	if d == ir.BF16 && math.IsNaN(v) && uint16(u)&f.SignBit() != 0 {
		v = math.Copysign(v, -1) // a bf16 NaN keeps its sign, as when bf16 was decoded through float32
	}
	return v
}

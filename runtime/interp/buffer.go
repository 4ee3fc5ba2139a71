package interp

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/internal/hostmem"
	"github.com/tlego/tle/ir"
)

// Buffer is device memory of the interpreter: an array of Len elements of
// one dtype, held in that dtype (its storage):
//
//	f64            []float64
//	f32            []float32
//	bf16, f16      []uint16, the bit patterns
//	f8e4m3, f8e5m2 []uint8, the bit patterns
//	i64, u64       []int64 (u64 as its two's-complement bits)
//	i32, u32       []uint32; i16, u16 []uint16; i8, u8, i1 []uint8
//	               (the low bits; a load sign- or zero-extends by dtype)
//
// so a buffer takes its dtype's size per element, and FromSlice makes one
// from a Go slice without a copy. Tiles compute in float64 and int64: a
// load widens each element (exact), a store narrows a value that is
// already exact in the dtype (every op rounds its result to its dtype), so
// the storage changes no result. bf16 and fp8 are kept as bits, not as
// float32, so that a program's bf16 data ([]uint16) and a .npy or device
// buffer's bytes are the buffer itself; widening bf16 is a shift, f16 and
// fp8 a table lookup.
//
// Shared memory (alloc, pipe fields) is the exception: it is per CTA,
// small, race-checked element by element and read by strided gathers, so
// it keeps every float dtype as exact float64 values and every integer
// dtype as wrapped int64 values (newWideBuffer).
//
// A Buffer may be passed to several launches. Concurrent launches on the same
// buffer are the caller's business, as on a GPU.
type Buffer struct {
	dtype ir.DType
	st    storage
	f     []float64 // stF64
	i     []int64   // stI64
	f32   []float32 // stF32
	w32   []uint32  // stW32
	w16   []uint16  // stW16
	w8    []uint8   // stW8
	host  any       // what Slice returns: the slice FromSlice was given, or the storage
	mu    sync.Mutex
	name  string       // shared-memory buffers: what error messages call it
	pend  pendingReads // in-flight wgmma reads of a shared-memory buffer
	// shadow holds a shared-memory buffer's last accesses for the race
	// check (race.go); nil for global memory and pipe fields
	shadow *raceShadow
	// sym is the symmetric allocation (NewSymmetric) the buffer is rank
	// symRank's part of; nil for others
	sym     *Symmetric
	symRank int
}

// storage says which of a Buffer's slices holds its elements.
type storage uint8

const (
	stF64 storage = iota // f: f64, and shared memory of every float dtype
	stI64                // i: i64 and u64, and shared memory of every integer dtype
	stF32                // f32: f32
	stW32                // w32: i32, u32
	stW16                // w16: bf16 and f16 bits, i16, u16
	stW8                 // w8: fp8 bits, i8, u8, i1
)

// storageOf is the storage of a (global) buffer of dtype d.
func storageOf(d ir.DType) storage {
	switch d {
	case ir.F32:
		return stF32
	case ir.BF16, ir.F16, ir.I16, ir.U16:
		return stW16
	case ir.F8E4M3, ir.F8E5M2, ir.I8, ir.U8, ir.I1:
		return stW8
	case ir.I32, ir.U32:
		return stW32
	case ir.I64, ir.U64:
		return stI64
	}
	if d.IsFloat() {
		return stF64
	}
	return stI64
}

// NewBuffer allocates a zero-filled buffer of n elements of dtype d, held
// in d (see Buffer).
func NewBuffer(d ir.DType, n int) *Buffer {
	if n < 0 {
		n = 0
	}
	b := &Buffer{dtype: d, st: storageOf(d)}
	switch b.st {
	case stF64:
		b.f = make([]float64, n)
		b.host = b.f
	case stI64:
		b.i = make([]int64, n)
		b.host = b.i
		if d == ir.U64 {
			b.host = hostmem.Cast[uint64](b.i)
		}
	case stF32:
		b.f32 = make([]float32, n)
		b.host = b.f32
	case stW32:
		b.w32 = make([]uint32, n)
		b.host = b.w32
		if d == ir.I32 {
			b.host = hostmem.Cast[int32](b.w32)
		}
	case stW16:
		b.w16 = make([]uint16, n)
		b.host = b.w16
		if d == ir.I16 {
			b.host = hostmem.Cast[int16](b.w16)
		}
	case stW8:
		b.w8 = make([]uint8, n)
		b.host = b.w8
		switch d {
		case ir.I8:
			b.host = hostmem.Cast[int8](b.w8)
		case ir.I1:
			b.host = hostmem.Cast[bool](b.w8)
		}
	}
	return b
}

// newWideBuffer allocates shared memory: float dtypes as float64 values,
// integer dtypes as int64 values, whatever their width (see Buffer).
func newWideBuffer(d ir.DType, n int) *Buffer {
	if n < 0 {
		n = 0
	}
	b := &Buffer{dtype: d}
	if d.IsFloat() {
		b.st, b.f = stF64, make([]float64, n)
		b.host = b.f
	} else {
		b.st, b.i = stI64, make([]int64, n)
		b.host = b.i
	}
	return b
}

// SliceType is the Go slice type that holds elements of dtype d in a
// Buffer, as FromSlice takes it and Slice returns it: []float64, []float32,
// []uint16 (bf16 and f16 bit patterns), []uint8 (fp8 bit patterns),
// []int8 ... []int64, []uint8 ... []uint64, []bool (i1). The string is the
// type as Go writes it, for messages; "" for an invalid dtype.
func SliceType(d ir.DType) string {
	switch d {
	case ir.F64:
		return "[]float64"
	case ir.F32:
		return "[]float32"
	case ir.BF16, ir.F16, ir.U16:
		return "[]uint16"
	case ir.F8E4M3, ir.F8E5M2, ir.U8:
		return "[]uint8"
	case ir.I8:
		return "[]int8"
	case ir.I16:
		return "[]int16"
	case ir.I32:
		return "[]int32"
	case ir.U32:
		return "[]uint32"
	case ir.I64:
		return "[]int64"
	case ir.U64:
		return "[]uint64"
	case ir.I1:
		return "[]bool"
	}
	return ""
}

// FromSlice makes a buffer of dtype d whose storage is data itself, no
// copy: the kernel reads data and its stores land in data. data must be
// the slice type of d (SliceType): a []float32 for f32, the bit patterns
// as []uint16 for bf16 and f16 and as []uint8 for fp8, []int32 for i32,
// []bool for i1, and so on; anything else is an error naming both types.
// Bit patterns are taken as they are (a bf16 NaN stays the NaN it is).
func FromSlice(d ir.DType, data any) (*Buffer, error) {
	want := SliceType(d)
	if want == "" {
		return nil, fmt.Errorf("interp: invalid dtype %v", d)
	}
	b := &Buffer{dtype: d, st: storageOf(d), host: data}
	ok := false
	switch s := data.(type) {
	case []float64:
		b.f, ok = s, d == ir.F64
	case []float32:
		b.f32, ok = s, d == ir.F32
	case []uint16:
		b.w16, ok = s, d == ir.BF16 || d == ir.F16 || d == ir.U16
	case []uint8:
		b.w8, ok = s, d == ir.F8E4M3 || d == ir.F8E5M2 || d == ir.U8
	case []int8:
		b.w8, ok = hostmem.Cast[uint8](s), d == ir.I8
	case []int16:
		b.w16, ok = hostmem.Cast[uint16](s), d == ir.I16
	case []int32:
		b.w32, ok = hostmem.Cast[uint32](s), d == ir.I32
	case []uint32:
		b.w32, ok = s, d == ir.U32
	case []int64:
		b.i, ok = s, d == ir.I64
	case []uint64:
		b.i, ok = hostmem.Cast[int64](s), d == ir.U64
	case []bool:
		b.w8, ok = hostmem.Cast[uint8](s), d == ir.I1
	}
	if !ok {
		return nil, fmt.Errorf("interp: a %T cannot hold %v elements: want a %s", data, d, want)
	}
	return b, nil
}

// Slice returns the buffer's storage, of the type SliceType(b.DType())
// names: the slice FromSlice was given, or the one NewBuffer, FromFloat64,
// FromInt64 or FromBytes made. It is not a copy: writes through it are the
// buffer's.
func (b *Buffer) Slice() any { return b.host }

// FromFloat64 makes a buffer of dtype d holding xs, each rounded to d
// (round-to-nearest-even for floats, truncation and wrap for integers, as
// ir.DType.Round).
func FromFloat64(d ir.DType, xs []float64) *Buffer {
	b := NewBuffer(d, len(xs))
	b.CopyFromFloat64(xs)
	return b
}

// FromInt64 makes a buffer of dtype d holding xs (wrapped to integer dtypes,
// converted and rounded for float dtypes).
func FromInt64(d ir.DType, xs []int64) *Buffer {
	b := NewBuffer(d, len(xs))
	for k, x := range xs {
		if d.IsFloat() {
			b.setF(k, d.Round(float64(x)))
		} else {
			b.setI(k, x)
		}
	}
	return b
}

// FromBytes makes a buffer from raw little-endian storage of dtype d (the
// layout of a .npy payload; bf16 and fp8 as their bit patterns). The bytes
// are copied.
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
	if hostmem.LittleEndian && d != ir.I1 {
		copy(b.bytes(), raw) // the storage is the little-endian layout
		return b, nil
	}
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
			b.setF(k, decodeFloat(d, u))
		} else {
			b.setI(k, int64(u))
		}
	}
	return b, nil
}

// bytes views a global buffer's storage as its bytes (machine order).
func (b *Buffer) bytes() []byte {
	switch b.st {
	case stF64:
		return hostmem.Bytes(b.f)
	case stI64:
		return hostmem.Bytes(b.i)
	case stF32:
		return hostmem.Bytes(b.f32)
	case stW32:
		return hostmem.Bytes(b.w32)
	case stW16:
		return hostmem.Bytes(b.w16)
	}
	return hostmem.Bytes(b.w8)
}

// DType is the element type.
func (b *Buffer) DType() ir.DType { return b.dtype }

// Len is the number of elements.
func (b *Buffer) Len() int {
	switch b.st {
	case stF64:
		return len(b.f)
	case stI64:
		return len(b.i)
	case stF32:
		return len(b.f32)
	case stW32:
		return len(b.w32)
	case stW16:
		return len(b.w16)
	}
	return len(b.w8)
}

// Float64 returns a copy of the elements as float64 (exact for floats and for
// integers up to 2^53).
func (b *Buffer) Float64() []float64 {
	out := make([]float64, b.Len())
	b.CopyToFloat64(out, 0)
	return out
}

// CopyToFloat64 writes elements off, off+1, ... into dst as float64, as
// Float64 converts them, up to len(dst) or the end of the buffer, and
// returns how many it wrote (0 for an off outside the buffer).
func (b *Buffer) CopyToFloat64(dst []float64, off int) int {
	if off < 0 || off >= b.Len() {
		return 0
	}
	n := min(len(dst), b.Len()-off)
	dst = dst[:n]
	if b.dtype.IsFloat() {
		b.readF(dst, off)
		return n
	}
	for k := range dst {
		dst[k] = intToFloat(b.dtype, b.getI(off+k))
	}
	return n
}

// Int64 returns a copy of the elements as int64 (floats truncate toward zero).
func (b *Buffer) Int64() []int64 {
	out := make([]int64, b.Len())
	if !b.dtype.IsFloat() {
		b.readI(out, 0)
		return out
	}
	for k := range out {
		out[k] = ir.TruncInt(b.getF(k))
	}
	return out
}

// Bytes returns a copy of the raw little-endian storage of the elements.
func (b *Buffer) Bytes() []byte {
	sz := b.dtype.Bytes()
	n := b.Len()
	out := make([]byte, n*sz)
	if hostmem.LittleEndian && b.st == storageOf(b.dtype) {
		copy(out, b.bytes())
		return out
	}
	for k := 0; k < n; k++ {
		var u uint64
		if b.dtype.IsFloat() {
			u = encodeFloat(b.dtype, b.getF(k))
		} else {
			u = uint64(b.getI(k))
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
	n := min(len(xs), b.Len())
	xs = xs[:n]
	d := b.dtype
	switch {
	case b.st == stF64:
		copy(b.f, xs)
		roundSlice(d, b.f[:n])
	case b.st == stF32:
		f := b.f32[:n]
		for k, x := range xs {
			f[k] = float32(x) // round to nearest even
		}
	case d.IsFloat():
		// rounded a chunk at a time (RoundSlice reads the format once),
		// then stored as the exact values they now are
		fm, _ := d.FloatFormat()
		var chunk [1024]float64
		for lo := 0; lo < n; lo += len(chunk) {
			c := chunk[:copy(chunk[:], xs[lo:])]
			floats.RoundSlice(fm, c)
			switch {
			case b.st == stW16 && d == ir.BF16:
				w := b.w16[lo : lo+len(c)]
				for k, x := range c {
					if x == x { // setF's bf16 path
						w[k] = uint16(math.Float32bits(float32(x)) >> 16)
					} else {
						w[k] = uint16(encodeFloat(d, x))
					}
				}
			case b.st == stW16:
				encodeRounded(d, fm, b.w16[lo:lo+len(c)], c)
			case b.st == stW8:
				encodeRounded(d, fm, b.w8[lo:lo+len(c)], c)
			default:
				for k, x := range c {
					b.setF(lo+k, x)
				}
			}
		}
	default:
		for k, x := range xs {
			b.setI(k, floatToInt(d, x))
		}
	}
}

func (b *Buffer) String() string { return fmt.Sprintf("Buffer(%v, %d)", b.dtype, b.Len()) }

// ---- element access: what the memory ops see of a buffer. Floats come
// and go as float64 and integers as int64 whatever the storage; a float
// written must already be exact in the dtype (the ops round first), an
// integer is wrapped to the dtype here.

// getF is float element k.
func (b *Buffer) getF(k int) float64 {
	switch b.st {
	case stF64:
		return b.f[k]
	case stF32:
		return float64(b.f32[k])
	case stW16:
		if b.dtype == ir.BF16 {
			return bf16Value(b.w16[k])
		}
		return f16Value(b.w16[k])
	}
	return fp8Table(b.dtype)[b.w8[k]]
}

// setF sets float element k to x, a value of the buffer's dtype.
func (b *Buffer) setF(k int, x float64) {
	switch b.st {
	case stF64:
		b.f[k] = x
	case stF32:
		b.f32[k] = float32(x)
	case stW16:
		if b.dtype == ir.BF16 && x == x {
			b.w16[k] = uint16(math.Float32bits(float32(x)) >> 16) // exact: x is a bf16 value
		} else {
			b.w16[k] = uint16(encodeFloat(b.dtype, x))
		}
	default:
		b.w8[k] = uint8(encodeFloat(b.dtype, x))
	}
}

// readF widens the float elements [off, off+len(dst)) into dst.
func (b *Buffer) readF(dst []float64, off int) {
	switch b.st {
	case stF64:
		copy(dst, b.f[off:off+len(dst)])
	case stF32:
		src := b.f32[off : off+len(dst)]
		for k, x := range src {
			dst[k] = float64(x)
		}
	case stW16:
		src := b.w16[off : off+len(dst)]
		if b.dtype == ir.BF16 {
			for k, u := range src {
				dst[k] = bf16Value(u)
			}
			return
		}
		tab := f16Table()
		for k, u := range src {
			dst[k] = tab[u]
		}
	default:
		tab := fp8Table(b.dtype)
		for k, u := range b.w8[off : off+len(dst)] {
			dst[k] = tab[u]
		}
	}
}

// writeF sets the float elements [off, off+len(src)) to src, values of the
// buffer's dtype.
func (b *Buffer) writeF(off int, src []float64) {
	switch b.st {
	case stF64:
		copy(b.f[off:], src)
	case stF32:
		dst := b.f32[off : off+len(src)]
		for k, x := range src {
			dst[k] = float32(x)
		}
	default:
		for k, x := range src {
			b.setF(off+k, x)
		}
	}
}

// getI is integer element k (u64 as its bits).
func (b *Buffer) getI(k int) int64 {
	switch b.st {
	case stI64:
		return b.i[k]
	case stW32:
		if b.dtype == ir.I32 {
			return int64(int32(b.w32[k]))
		}
		return int64(b.w32[k])
	case stW16:
		if b.dtype == ir.I16 {
			return int64(int16(b.w16[k]))
		}
		return int64(b.w16[k])
	}
	if b.dtype == ir.I8 {
		return int64(int8(b.w8[k]))
	}
	return int64(b.w8[k])
}

// setI sets integer element k to v wrapped to the dtype.
func (b *Buffer) setI(k int, v int64) {
	switch b.st {
	case stI64:
		b.i[k] = wrap(b.dtype, v)
	case stW32:
		b.w32[k] = uint32(v)
	case stW16:
		b.w16[k] = uint16(v)
	default:
		if b.dtype == ir.I1 {
			v &= 1
		}
		b.w8[k] = uint8(v)
	}
}

// readI widens the integer elements [off, off+len(dst)) into dst.
func (b *Buffer) readI(dst []int64, off int) {
	switch {
	case b.st == stI64:
		copy(dst, b.i[off:off+len(dst)])
	case b.dtype == ir.I32:
		for k, u := range b.w32[off : off+len(dst)] {
			dst[k] = int64(int32(u))
		}
	case b.dtype == ir.U32:
		for k, u := range b.w32[off : off+len(dst)] {
			dst[k] = int64(u)
		}
	default:
		for k := range dst {
			dst[k] = b.getI(off + k)
		}
	}
}

// writeI sets the integer elements [off, off+len(src)) to src, wrapped.
func (b *Buffer) writeI(off int, src []int64) {
	switch {
	case b.dtype == ir.I64 || b.dtype == ir.U64:
		copy(b.i[off:], src)
	case b.st == stW32:
		dst := b.w32[off : off+len(src)]
		for k, v := range src {
			dst[k] = uint32(v)
		}
	default:
		for k, v := range src {
			b.setI(off+k, v)
		}
	}
}

// bf16Value widens bf16 bits: the top half of a float32.
func bf16Value(u uint16) float64 { return float64(math.Float32frombits(uint32(u) << 16)) }

// f16Value widens f16 bits.
func f16Value(u uint16) float64 { return f16Table()[u] }

// The widening tables of f16 and fp8 bits (decodeFloat of every pattern),
// made on first use.
var (
	f16Once sync.Once
	f16Tab  *[1 << 16]float64
	fp8Once sync.Once
	fp8Tabs [2]*[256]float64 // e4m3, e5m2
)

func f16Table() *[1 << 16]float64 {
	f16Once.Do(func() {
		t := new([1 << 16]float64)
		for u := range t {
			t[u] = decodeFloat(ir.F16, uint64(u))
		}
		f16Tab = t
	})
	return f16Tab
}

func fp8Table(d ir.DType) *[256]float64 {
	fp8Once.Do(func() {
		for i, d := range []ir.DType{ir.F8E4M3, ir.F8E5M2} {
			t := new([256]float64)
			for u := range t {
				t[u] = decodeFloat(d, uint64(u))
			}
			fp8Tabs[i] = t
		}
	})
	if d == ir.F8E5M2 {
		return fp8Tabs[1]
	}
	return fp8Tabs[0]
}

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

// encodeRounded sets dst[k] to encodeFloat(d, c[k]) for the 16- or 8-bit
// float dtype d of format fm, whose values c holds (RoundSlice's output):
// a normal of the format straight from its float64 bits (the sign, the
// exponent rebiased, the mantissa's top bits, as floats.Encode takes
// them), anything else (zero, subnormals, infinities, NaN, a value off
// the format) through encodeFloat. CopyFromFloat64 stores a chunk at a
// time through it rather than through setF's switch an element.
func encodeRounded[T uint8 | uint16](d ir.DType, fm floats.Format, dst []T, c []float64) {
	man := uint(fm.MantissaBits())
	bias := uint64(fm.Bias())
	minE := 1023 + 1 - bias // the float64 exponent field of the smallest normal
	low := uint64(1)<<(52-man) - 1
	sign, top := uint64(fm.SignBit()), floats.MaxFinite(fm)
	dst = dst[:len(c)]
	for k, x := range c {
		u := math.Float64bits(x)
		if e := u >> 52 & 0x7ff; e >= minE && u&low == 0 && math.Abs(x) <= top {
			dst[k] = T(u>>63*sign | (e-1023+bias)<<man | u>>(52-man)&(1<<man-1))
			continue
		}
		dst[k] = T(encodeFloat(d, x))
	}
}

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
	if math.IsNaN(v) {
		// a NaN keeps its sign and payload (bitsFloat's form; a bf16's
		// is what decoding through float32 gives)
		u &= uint64(f.SignBit())<<1 - 1
		man := f.MantissaBits()
		v = nanOf(u>>(f.Bits()-1), u&(1<<man-1), man)
	}
	return v
}

// Package npy reads and writes NumPy .npy files and converts values to and
// from the raw bytes of kernel dtypes (dtype.go). A kernel dtype is ir's
// ir.DType; a numpy descr ('<f4', '|b1', ...) is a separate concept, a
// string, that maps to one (Array.Kind, DescrOf). The narrow floats are
// encoded and decoded by package floats.
//
// An Array holds its values widened, in the form an interpreter computes
// with and from which any kernel dtype can be encoded for upload: F64 for
// the float kinds (f2, f4, f8: every value exact), I64 for the integer kinds
// and bool (u8 values keep their bits: uint64(v)). DType keeps the file's
// element type as a little-endian numpy descr ('<f4', '|u1', '|b1', ...), so
// writing an Array back reproduces its type. Data is always C order; a file
// in Fortran order is transposed on reading.
//
// Raw (ReadRawFile, WriteRawFile) is the same file without the widening:
// the elements' little-endian bytes in the file's type, 8-byte aligned, so
// that a caller sees them as the []float32, []int32, ... of a buffer in
// its dtype without a copy (tlec run reads and saves buffers this way).
//
// Read accepts what numpy.load reads as an array of a supported dtype and
// nothing else: format versions 1.0, 2.0 and 3.0 (2- and 4-byte header
// lengths), the header dict of exactly 'descr', 'fortran_order' and 'shape'
// as Python writes it, either byte order, C or Fortran order, and data at
// least as long as the shape needs. Bytes after the data are ignored, as
// numpy.load does: Read stops after the array, so arrays saved one after
// another into one stream can be read in turn. Every other file is an error
// that says what is wrong and what is allowed, never a panic, and the data
// buffer grows with the data actually present, so a header announcing
// terabytes costs nothing. A bool byte other than 0 reads as 1 (True), as in
// numpy.
//
// Reading and writing are done here: this package no longer uses
// github.com/sbinet/npyio (its tests still do, as an independent reader of
// what Write writes, which keeps it in go.mod). npyio would have stayed the
// reader where it is correct, but reading v0.6.0 shows it wrong in both
// halves of reading, the header and the data, which leaves nothing to wrap.
// Its header parser cuts the header at offsets derived from bytes.Index
// without checking them, so malformed headers panic (slice bounds out of
// range; a header without '\n' too); it finds keys by substring and takes
// whatever lies between them, so a shape "(5)" or an extra key passes; it
// knows format versions 1 and 2 but not 3; it allocates the header length
// (up to 4 GiB) before reading it. Its data reader allocates the element
// count of the header before reading any data, then calls Read once per
// element, ignoring short reads and io.EOF: a truncated file reads as zeros,
// and an element split across two reads (at a bufio boundary, say) mixes in
// stale bytes. What it does get right, decoding '<' and '>' data, is a byte
// swap in front of Decode here; it has no float16, nor '>u1' or '=f4'.
// Writing was already done here, because npyio cannot write a flat slice
// with an N-d shape and its header padding does not follow numpy's 64-byte
// alignment.
package npy

import (
	"fmt"

	"github.com/tlego/tle/ir"
)

// Array is an n-dimensional array read from or written to a .npy file.
type Array struct {
	Shape []int
	DType string    // numpy descr, little-endian: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1
	F64   []float64 // values of a float array
	I64   []int64   // values of an integer or bool array
}

// descrs maps each supported numpy descr to its kernel dtype.
var descrs = map[string]ir.DType{
	"<f2": ir.F16, "<f4": ir.F32, "<f8": ir.F64,
	"|i1": ir.I8, "<i2": ir.I16, "<i4": ir.I32, "<i8": ir.I64,
	"|u1": ir.U8, "<u2": ir.U16, "<u4": ir.U32, "<u8": ir.U64,
	"|b1": ir.I1,
}

// DescrOf is the numpy descr that holds a kernel dtype's values exactly:
// bf16 and fp8 map to '<f4' (numpy has no such types).
func DescrOf(d ir.DType) (string, bool) {
	switch d {
	case ir.BF16, ir.F8E4M3, ir.F8E5M2:
		return "<f4", true
	}
	for k, v := range descrs {
		if v == d {
			return k, true
		}
	}
	return "", false
}

// Len is the number of elements (the product of Shape).
func (a *Array) Len() int { return numel(a.Shape) }

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// IsFloat reports a float array (values in F64).
func (a *Array) IsFloat() bool { return a.Kind().IsFloat() }

// Kind is the kernel dtype of the array's element type.
func (a *Array) Kind() ir.DType { return descrs[a.DType] }

// Float64s returns the values as float64 (F64 itself for float arrays).
func (a *Array) Float64s() []float64 {
	if a.IsFloat() {
		return a.F64
	}
	out := make([]float64, len(a.I64))
	u := a.DType == "<u8"
	for i, v := range a.I64 {
		if u {
			out[i] = float64(uint64(v))
		} else {
			out[i] = float64(v)
		}
	}
	return out
}

// Bytes encodes the values as dtype d for upload (see Encode and EncodeInts).
func (a *Array) Bytes(d ir.DType) ([]byte, error) {
	if a.IsFloat() {
		return Encode(d, a.F64)
	}
	if d.IsFloat() {
		return Encode(d, a.Float64s())
	}
	return EncodeInts(d, a.I64)
}

// FromBytes builds an Array from raw little-endian values of dtype d (e.g.
// downloaded from the GPU), typed DescrOf(d).
func FromBytes(d ir.DType, shape []int, b []byte) (*Array, error) {
	descr, ok := DescrOf(d)
	if !ok {
		return nil, fmt.Errorf("npy: unknown dtype %q", d)
	}
	n, nbytes, err := sizeOf(shape, d.Bytes())
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	if nbytes != len(b) {
		return nil, fmt.Errorf("npy: %d bytes for %d elements of %s", len(b), n, d)
	}
	a := &Array{Shape: append([]int(nil), shape...), DType: descr}
	if d.IsFloat() {
		a.F64, err = Decode(d, b)
	} else {
		a.I64, err = DecodeInts(d, b)
	}
	return a, err
}

// Float32 makes a '<f4' array.
func Float32(shape []int, v []float32) *Array {
	a := &Array{Shape: append([]int(nil), shape...), DType: "<f4", F64: make([]float64, len(v))}
	for i, x := range v {
		a.F64[i] = float64(x)
	}
	return a
}

// Float64 makes a '<f8' array (v is not copied).
func Float64(shape []int, v []float64) *Array {
	return &Array{Shape: append([]int(nil), shape...), DType: "<f8", F64: v}
}

// Int makes an integer array of the given descr ('<i4', '|u1', '|b1', ...)
// (v is not copied; values are wrapped to the width when written).
func Int(descr string, shape []int, v []int64) *Array {
	return &Array{Shape: append([]int(nil), shape...), DType: descr, I64: v}
}

// Validate checks that the descr is supported and the values match the shape.
func (a *Array) Validate() error {
	if _, ok := descrs[a.DType]; !ok {
		return fmt.Errorf("npy: unsupported dtype %q", a.DType)
	}
	n, _, err := sizeOf(a.Shape, descrs[a.DType].Bytes())
	if err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	have := len(a.I64)
	if a.IsFloat() {
		have = len(a.F64)
	}
	if n != have {
		return fmt.Errorf("npy: shape %v has %d elements, array holds %d", a.Shape, n, have)
	}
	return nil
}

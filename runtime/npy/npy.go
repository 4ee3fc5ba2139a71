// Package npy reads and writes NumPy .npy files and converts values to and
// from the raw bytes of kernel dtypes (dtype.go).
//
// An Array holds its values widened, in the form an interpreter computes
// with and from which any kernel dtype can be encoded for upload: F64 for
// the float kinds (f2, f4, f8: every value exact), I64 for the integer kinds
// and bool (u8 values keep their bits: uint64(v)). DType keeps the file's
// element type as a little-endian numpy descr ('<f4', '|u1', '|b1', ...), so
// writing an Array back reproduces its type. Data is always C order; a file
// in Fortran order is transposed on reading.
//
// Reading uses github.com/sbinet/npyio for the header and for every element
// type it supports; it has no float16 ('<f2' is not among its dtypes, it
// returns "no reflect.Type for dtype"), so half-precision data is read here
// from the bytes that follow npyio's header. Writing is done here (header
// and data) because npyio cannot write a flat slice with an N-d shape, and
// its header padding does not follow numpy's 64-byte alignment.
package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	npyio "github.com/sbinet/npyio/npy"
)

// Array is an n-dimensional array read from or written to a .npy file.
type Array struct {
	Shape []int
	DType string    // numpy descr, little-endian: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1
	F64   []float64 // values of a float array
	I64   []int64   // values of an integer or bool array
}

// descrs maps each supported numpy descr to its kernel dtype.
var descrs = map[string]DType{
	"<f2": F16, "<f4": F32, "<f8": F64,
	"|i1": I8, "<i2": I16, "<i4": I32, "<i8": I64,
	"|u1": U8, "<u2": U16, "<u4": U32, "<u8": U64,
	"|b1": I1,
}

// DescrOf is the numpy descr that holds a kernel dtype's values exactly:
// bf16 and fp8 map to '<f4' (numpy has no such types).
func DescrOf(d DType) (string, bool) {
	switch d {
	case BF16, F8E4M3, F8E5M2:
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
func (a *Array) IsFloat() bool { return strings.HasPrefix(a.DType[1:], "f") }

// Kind is the kernel dtype of the array's element type.
func (a *Array) Kind() DType { return descrs[a.DType] }

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
func (a *Array) Bytes(d DType) ([]byte, error) {
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
func FromBytes(d DType, shape []int, b []byte) (*Array, error) {
	descr, ok := DescrOf(d)
	if !ok {
		return nil, fmt.Errorf("npy: unknown dtype %q", d)
	}
	if n := numel(shape); n*d.Size() != len(b) {
		return nil, fmt.Errorf("npy: %d bytes for %d elements of %s", len(b), n, d)
	}
	a := &Array{Shape: append([]int(nil), shape...), DType: descr}
	var err error
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
	for _, d := range a.Shape {
		if d < 0 {
			return fmt.Errorf("npy: negative dimension in shape %v", a.Shape)
		}
	}
	n, have := a.Len(), len(a.I64)
	if a.IsFloat() {
		have = len(a.F64)
	}
	if n != have {
		return fmt.Errorf("npy: shape %v has %d elements, array holds %d", a.Shape, n, have)
	}
	return nil
}

// ReadFile reads a .npy file.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := Read(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Read reads one .npy array from r.
func Read(r io.Reader) (*Array, error) {
	rd, err := npyio.NewReader(r)
	if err != nil {
		return nil, err
	}
	h := rd.Header.Descr
	shape := append([]int{}, h.Shape...)
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("npy: negative dimension in shape %v", shape)
		}
	}
	n := numel(shape)
	descr, order, err := canonical(h.Type)
	if err != nil {
		return nil, err
	}
	a := &Array{Shape: shape, DType: descr}
	if n == 0 {
		if a.IsFloat() {
			a.F64 = []float64{}
		} else {
			a.I64 = []int64{}
		}
		return a, nil
	}
	switch descr {
	case "<f2": // not supported by npyio: the data follows the header npyio read
		b := make([]byte, 2*n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("npy: reading %d float16 values: %w", n, err)
		}
		a.F64 = make([]float64, n)
		for i := range a.F64 {
			a.F64[i] = F16Value(order.Uint16(b[2*i:]))
		}
	case "<f4":
		v := make([]float32, n)
		err = rd.Read(&v)
		a.F64 = widen(v, func(x float32) float64 { return float64(x) })
	case "<f8":
		a.F64 = make([]float64, n)
		err = rd.Read(&a.F64)
	case "|i1":
		v := make([]int8, n)
		err = rd.Read(&v)
		a.I64 = widen(v, func(x int8) int64 { return int64(x) })
	case "<i2":
		v := make([]int16, n)
		err = rd.Read(&v)
		a.I64 = widen(v, func(x int16) int64 { return int64(x) })
	case "<i4":
		v := make([]int32, n)
		err = rd.Read(&v)
		a.I64 = widen(v, func(x int32) int64 { return int64(x) })
	case "<i8":
		a.I64 = make([]int64, n)
		err = rd.Read(&a.I64)
	case "|u1":
		v := make([]uint8, n)
		err = rd.Read(&v)
		a.I64 = widen(v, func(x uint8) int64 { return int64(x) })
	case "<u2":
		v := make([]uint16, n)
		err = rd.Read(&v)
		a.I64 = widen(v, func(x uint16) int64 { return int64(x) })
	case "<u4":
		v := make([]uint32, n)
		err = rd.Read(&v)
		a.I64 = widen(v, func(x uint32) int64 { return int64(x) })
	case "<u8":
		v := make([]uint64, n)
		err = rd.Read(&v)
		a.I64 = widen(v, func(x uint64) int64 { return int64(x) })
	case "|b1":
		v := make([]bool, n)
		err = rd.Read(&v)
		a.I64 = widen(v, func(x bool) int64 {
			if x {
				return 1
			}
			return 0
		})
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("npy: reading %s data: %w", h.Type, err)
	}
	if h.Fortran && len(shape) > 1 {
		if a.F64 != nil {
			a.F64 = fromFortran(a.F64, shape)
		} else {
			a.I64 = fromFortran(a.I64, shape)
		}
	}
	return a, nil
}

// canonical maps a descr as written in a file to the little-endian form and
// the file's byte order.
func canonical(t string) (string, binary.ByteOrder, error) {
	var order binary.ByteOrder = binary.LittleEndian
	body := t
	if len(t) > 0 && strings.ContainsRune("<>|=", rune(t[0])) {
		if t[0] == '>' {
			order = binary.BigEndian
		}
		body = t[1:]
	}
	var c string
	switch body {
	case "i1", "u1", "b1":
		c = "|" + body
	default:
		c = "<" + body
	}
	if _, ok := descrs[c]; !ok {
		return "", nil, fmt.Errorf("npy: unsupported dtype %q (want bool, int8..int64, uint8..uint64, float16/32/64)", t)
	}
	return c, order, nil
}

func widen[T, U any](v []T, f func(T) U) []U {
	out := make([]U, len(v))
	for i, x := range v {
		out[i] = f(x)
	}
	return out
}

// fromFortran reorders column-major data into row-major.
func fromFortran[T any](v []T, shape []int) []T {
	out := make([]T, len(v))
	nd := len(shape)
	idx := make([]int, nd)
	for f := range v { // f walks the Fortran order: index 0 fastest
		c := 0
		for k := 0; k < nd; k++ {
			c = c*shape[k] + idx[k]
		}
		out[c] = v[f]
		for k := 0; k < nd; k++ {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// WriteFile writes a to path as a .npy file.
func WriteFile(path string, a *Array) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = Write(w, a)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Write writes a as .npy (format 1.0, header padded to 64 bytes as numpy
// does, C order, little-endian), in a's DType.
func Write(w io.Writer, a *Array) error {
	if err := a.Validate(); err != nil {
		return err
	}
	if _, err := w.Write(Header(a.DType, a.Shape)); err != nil {
		return err
	}
	data, err := a.Bytes(descrs[a.DType])
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// Header is the .npy header numpy.save writes for an array of this descr and
// shape in C order.
func Header(descr string, shape []int) []byte {
	var s strings.Builder
	s.WriteString("(")
	for i, d := range shape {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		s.WriteString(",")
	}
	s.WriteString(")")
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, s.String())
	const prefix = 10 // magic (6), version (2), header length (2)
	pad := 64 - (prefix+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	hlen := len(dict) + pad + 1
	if hlen > math.MaxUint16 {
		panic("npy: header too long") // shapes have at most a few dozen dimensions
	}
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(hlen))
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteString("\n")
	return b.Bytes()
}

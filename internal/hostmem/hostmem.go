// Package hostmem views host slices as other element types without a copy:
// the one place where TLE-Go's buffers in their dtype (interp.Buffer,
// tle.Array, .npy data) reinterpret memory. A []float32 is its bytes for an
// upload or a .npy file, a []int32 is the []uint32 the interpreter stores
// i32 elements in, and 8-byte aligned bytes read from a file are a
// []float32 to compute on.
//
// Every view aliases its argument: writes through one are seen through the
// other, and the argument stays alive as long as the view does. The byte
// order is the machine's (LittleEndian says whether it is the .npy and
// device order).
package hostmem

import (
	"encoding/binary"
	"unsafe"
)

// LittleEndian reports a little-endian host, where a slice's bytes are the
// little-endian layout of .npy files and device buffers.
var LittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Elem is an element type that a view may start or end with: fixed-size,
// no pointers.
type Elem interface {
	~bool | ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// Bytes views s's elements as their bytes.
func Bytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// Cast views s as a slice of U, an element type of the same size as T
// ([]int32 as []uint32, []bool as []uint8). It panics if the sizes differ:
// that is a bug of its caller.
func Cast[U, T Elem](s []T) []U {
	var t T
	var u U
	if unsafe.Sizeof(t) != unsafe.Sizeof(u) {
		panic("hostmem.Cast: element sizes differ")
	}
	if s == nil {
		return nil
	}
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// View views b, whose length is a multiple of T's size and whose start is
// aligned for T (as Alloc's bytes are), as a []T. It panics otherwise: that
// is a bug of its caller.
func View[T Elem](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b)%size != 0 {
		panic("hostmem.View: the length is not a whole number of elements")
	}
	if len(b) == 0 {
		return []T{}
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%unsafe.Alignof(z) != 0 {
		panic("hostmem.View: the bytes are not aligned for the element type")
	}
	return unsafe.Slice((*T)(p), len(b)/size)
}

// Aligned8 reports whether b starts on an 8-byte boundary (as Alloc's
// bytes do); an empty b is aligned.
func Aligned8(b []byte) bool {
	return len(b) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0
}

// Alloc returns n zero bytes aligned to 8, so that View may see them as any
// element type.
func Alloc(n int) []byte {
	if n <= 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(make([]uint64, (n+7)/8)))), n)
}

// SliceBytes views a slice of an Elem type ([]float32, []uint16, []bool,
// ...; not a named type) as its bytes; nil for anything else.
func SliceBytes(s any) []byte {
	switch x := s.(type) {
	case []float64:
		return Bytes(x)
	case []float32:
		return Bytes(x)
	case []uint16:
		return Bytes(x)
	case []uint8:
		return Bytes(x)
	case []int8:
		return Bytes(x)
	case []int16:
		return Bytes(x)
	case []int32:
		return Bytes(x)
	case []int64:
		return Bytes(x)
	case []uint32:
		return Bytes(x)
	case []uint64:
		return Bytes(x)
	case []bool:
		return Bytes(x)
	}
	return nil
}

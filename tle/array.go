package tle

import (
	"fmt"
	"reflect"

	"github.com/tlego/tle/runtime/interp"
)

// Elem is the Go element type of host data in its dtype (Array, or a bare
// slice): one per dtype, as the interpreter and the GPU store it.
//
//	f64            float64
//	f32            float32
//	bf16, f16      uint16 (the bit patterns)
//	f8e4m3, f8e5m2 uint8 (the bit patterns)
//	i8 i16 i32 i64 int8 int16 int32 int64
//	u8 u16 u32 u64 uint8 uint16 uint32 uint64
//	i1             bool
type Elem interface {
	float64 | float32 | uint16 | uint8 | int8 | int16 | int32 | int64 | uint32 | uint64 | bool
}

// Array is host data in its element type for a pointer or desc parameter,
// the counterpart of Tensor that is not converted: Run hands Data itself to
// the launch. On the interpreter the kernel reads and writes Data in place
// (no copy in, no copy back); on a GPU Data's bytes are uploaded as they
// are and the bytes of a parameter the kernel may write are downloaded
// into Data. T must be the Go type of the parameter's dtype (Elem's
// table): a []float32 for *f32, bf16 bit patterns as []uint16 for *bf16,
// []int32 for *i32, and so on; Run refuses any other, naming both.
//
// Shape is the tensor's shape (nil: one dimension of len(Data)); its
// element count must equal len(Data). Strides are for a desc parameter
// whose tensor is not row-major in Data, as StridedTensor's (nil:
// row-major).
//
// A bare []T passed to Run is the one-dimensional Array of it.
//
// Because the launch uses Data, a kernel's writes are in Data as soon as
// it runs, and a failed launch may leave some of them there. An Array the
// kernel only reads (Kernel.Writes) may be shared by concurrent Runs; one
// it may write must not be read or written by anything else during a Run.
type Array[T Elem] struct {
	Shape   []int
	Strides []int
	Data    []T
}

// NewArray makes an array of the given shape filled with zeros. Like make
// (and NewTensor), it panics on a negative dimension or on a shape whose
// element count does not fit an int.
func NewArray[T Elem](shape ...int) *Array[T] {
	n, err := numel(shape)
	if err != nil {
		panic("tle.NewArray: " + err.Error())
	}
	return &Array[T]{Shape: append([]int(nil), shape...), Data: make([]T, n)}
}

// Len is the number of elements.
func (a *Array[T]) Len() int { return len(a.Data) }

// typedArg is an Array (or a bare slice) as bindArgs takes it: its data
// (a []T), shape and strides, without the type parameter.
type typedArg struct {
	data    any // the []T, nil for a nil *Array
	n       int
	shape   []int
	strides []int
	nilPtr  bool // a nil *Array[T]
}

// typed is an Array's typedArg (a nil *Array gives nilPtr).
func (a *Array[T]) typed() typedArg {
	if a == nil {
		return typedArg{nilPtr: true}
	}
	shape := a.Shape
	if shape == nil {
		shape = []int{len(a.Data)}
	}
	return typedArg{data: a.Data, n: len(a.Data), shape: shape, strides: a.Strides}
}

// asTyped recognises an Array or a bare slice of an Elem type.
func asTyped(a any) (typedArg, bool) {
	if x, ok := a.(interface{ typed() typedArg }); ok {
		return x.typed(), true
	}
	switch a.(type) {
	case []float64, []float32, []uint16, []uint8, []int8, []int16, []int32, []int64, []uint32, []uint64, []bool:
		n := reflect.ValueOf(a).Len()
		return typedArg{data: a, n: n, shape: []int{n}}, true
	}
	return typedArg{}, false
}

// bindTyped checks an Array or bare slice against a pointer or desc
// parameter: its element type is the dtype's, its shape is valid and
// holds len(Data) elements, and a desc's layout is one TMA can use.
func bindTyped(p hostParam, a any, t typedArg, b *boundArg) error {
	if t.nilPtr {
		return fmt.Errorf("argument %s (%s) is a nil %T", p.name, p.typ, a)
	}
	if want := interp.SliceType(p.dt); fmt.Sprintf("%T", t.data) != want {
		return fmt.Errorf("argument %s (%s): a %T cannot hold %s elements; pass a %s (or a *tle.Tensor, whose float64s are converted)", p.name, p.typ, t.data, p.dt, want)
	}
	n, err := numel(t.shape)
	if err != nil {
		return fmt.Errorf("argument %s (%s): %v", p.name, p.typ, err)
	}
	if t.strides == nil && n != t.n {
		return fmt.Errorf("argument %s (%s): shape %v holds %d elements but the data has %d", p.name, p.typ, t.shape, n, t.n)
	}
	switch {
	case p.kind == descParam && t.strides != nil:
		l := descLayout{shape: t.shape, strides: t.strides}
		if err := l.check(p.name, p.typ, p.dt, p.rank, t.n); err != nil {
			return err
		}
		b.desc = &l
	case p.kind == descParam:
		if len(t.shape) != p.rank {
			return fmt.Errorf("argument %s (%s) needs a rank-%d tensor, got shape %v", p.name, p.typ, p.rank, t.shape)
		}
		b.desc = &descLayout{shape: t.shape, strides: rowMajorStrides(t.shape)}
	case t.strides != nil:
		return fmt.Errorf("argument %s (%s): strides %v are for a desc parameter; a pointer takes the data as it is", p.name, p.typ, t.strides)
	}
	b.typed, b.n = t.data, t.n
	return nil
}

package npy

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

// FuzzRead: no input panics, errors start with "npy: ", the stream and the
// known-size paths agree, and every accepted input round-trips (Write then
// Read gives the same dtype, shape and values). Plain `go test` runs the
// seeds; run it long with
//
//	go test -run XXX -fuzz FuzzRead -fuzztime 5m ./runtime/npy/
func FuzzRead(f *testing.F) {
	for _, a := range append(writeReadArrays(),
		Float32([]int{2, 3}, []float32{1, -2, 3.5, float32(math.Inf(1)), float32(math.NaN()), 0}),
		Float64([]int{2}, []float64{math.Pi, math.Copysign(0, -1)}),
		Int("|i1", []int{2, 2}, []int64{-128, 127, 0, 5}),
		Int("<i4", []int{1, 2, 1}, []int64{-1, 1<<31 - 1}),
		Float32([]int{0, 4}, []float32{}),
		Float64(nil, []float64{2.5}),
	) {
		var b bytes.Buffer
		if err := Write(&b, a); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add(v1File("{'descr': '>f4', 'fortran_order': True, 'shape': (2, 3), }", be([]float32{0, 3, 1, 4, 2, 5})))
	f.Add(v1File(dict(">i8", "True", "(2, 2, 2)"), be([]int64{0, 4, 2, 6, 1, 5, 3, 7})))
	f.Add(v1File(dict(">f2", "False", "(2,)"), be([]uint16{0x3c00, 0x7e00})))
	f.Add(v1File(dict("|b1", "True", "(2, 2)"), []byte{0, 2, 1, 255}))
	f.Add(rawFile(2, 0, dict("<u2", "False", "(3,)")+"\n", le([]uint16{1, 2, 3})))
	f.Add(rawFile(3, 0, "{'shape': (1L,), 'fortran_order': False, 'descr': '<i4'}", le(int32(7))))
	f.Add(rawFile(1, 0, "{ \"descr\" :'=f8',\n'fortran_order':False ,'shape':( 1 , ) , }", le(1.0)))
	f.Add(append(v1File(dict("<i2", "False", "(1,)"), le(int16(3))), "trailing"...))
	for _, c := range badFiles() {
		f.Add(c.file)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		a, err := Read(bytes.NewReader(file))
		b, errSized := read(bytes.NewReader(file), int64(len(file)))
		if (err == nil) != (errSized == nil) {
			t.Fatalf("stream: %v; known size: %v", err, errSized)
		}
		if err != nil {
			if a != nil || !strings.HasPrefix(err.Error(), "npy: ") || !strings.HasPrefix(errSized.Error(), "npy: ") {
				t.Fatalf("error %q / %q with array %+v", err, errSized, a)
			}
			return
		}
		if !sameArray(a, b) {
			t.Fatalf("stream read %+v, known size %+v", a, b)
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("accepted an invalid array: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, a); err != nil {
			t.Fatalf("write back: %v", err)
		}
		c, err := Read(&buf)
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		if !sameArray(a, c) || buf.Len() != 0 {
			t.Fatalf("round trip: read %+v, then %+v (%d bytes left)", a, c, buf.Len())
		}
	})
}

// sameArray compares dtype, shape and values, any NaN equal to any NaN.
func sameArray(a, b *Array) bool {
	if a.DType != b.DType || !reflect.DeepEqual(a.Shape, b.Shape) || !reflect.DeepEqual(a.I64, b.I64) || len(a.F64) != len(b.F64) {
		return false
	}
	for i, x := range a.F64 {
		y := b.F64[i]
		if math.IsNaN(x) != math.IsNaN(y) || !math.IsNaN(x) && math.Float64bits(x) != math.Float64bits(y) {
			return false
		}
	}
	return true
}

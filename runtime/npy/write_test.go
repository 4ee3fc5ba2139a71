package npy

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Header returns an error, not a panic, for a shape or descr that Read
// would not accept back; Write of such an array is an error too.
func TestHeaderRejects(t *testing.T) {
	for _, c := range []struct {
		descr string
		shape []int
		want  string
	}{
		{"<f4", make([]int, 40000), "shape has 40000 dimensions, numpy allows at most 64"},
		{"<f4", make([]int, 65), "shape has 65 dimensions"},
		{"<f4", []int{2, -1}, "negative dimension -1"},
		{"<f4", []int{1 << 40, 1 << 40}, "overflows"},
		{"<c8", []int{1}, "unsupported dtype"},
		{"<f4', 'x': 1, '", []int{1}, "unsupported dtype"},
		{"", nil, "unsupported dtype"},
	} {
		h, err := headerNoPanic(c.descr, c.shape)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %d dims: %q %v, want an error with %q", c.descr, len(c.shape), h, err, c.want)
		}
	}
	// 64 dimensions, one of the largest size, still make a header Read
	// accepts (of an empty array: the others are 0).
	shape := make([]int, 64)
	shape[0] = 1<<63 - 1
	h, err := Header("|u1", shape)
	if err != nil || len(h)%64 != 0 {
		t.Fatalf("64 dims: %v", err)
	}
	if a, err := Read(bytes.NewReader(h)); err != nil || !reflect.DeepEqual(a.Shape, shape) || len(a.I64) != 0 {
		t.Errorf("64 dims read back: %v", err)
	}
	if err := Write(&bytes.Buffer{}, &Array{Shape: make([]int, 65), DType: "<f4", F64: []float64{0}}); err == nil {
		t.Error("65-d array written")
	}
}

func headerNoPanic(descr string, shape []int) (h []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	return Header(descr, shape)
}

package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tlego/tle/ir"

	npyio "github.com/sbinet/npyio/npy"
)

// numpyFile builds a .npy file the way numpy.save does (format 1.0, sorted
// keys, numpy >= 1.24's spare spaces for growing the first axis, header
// padded to 64 bytes).
func numpyFile(descr string, fortran bool, shape string, data []byte) []byte {
	fo := "False"
	if fortran {
		fo = "True"
	}
	h := "{'descr': '" + descr + "', 'fortran_order': " + fo + ", 'shape': " + shape + ", }"
	h += strings.Repeat(" ", 21-2) // GROWTH_AXIS_MAX_DIGITS - len(repr(first dim)) for 2-digit dims
	hlen := len(h) + 1
	pad := 64 - (10+hlen)%64
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(hlen+pad))
	b.WriteString(h + strings.Repeat(" ", pad) + "\n")
	b.Write(data)
	return b.Bytes()
}

func le(vs ...any) []byte {
	var b bytes.Buffer
	for _, v := range vs {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

func be(vs ...any) []byte {
	var b bytes.Buffer
	for _, v := range vs {
		binary.Write(&b, binary.BigEndian, v)
	}
	return b.Bytes()
}

func TestReadNumpyFiles(t *testing.T) {
	cases := []struct {
		name  string
		file  []byte
		descr string
		shape []int
		f64   []float64
		i64   []int64
	}{
		{"f4 2x3", numpyFile("<f4", false, "(2, 3)", le([]float32{0, 1, 2, 3.5, -4, 1e-3})), "<f4", []int{2, 3},
			[]float64{0, 1, 2, 3.5, -4, float64(float32(1e-3))}, nil},
		{"f2", numpyFile("<f2", false, "(4,)", le([]uint16{0x3c00, 0xc000, 0x7c00, 0x0001})), "<f2", []int{4},
			[]float64{1, -2, math.Inf(1), 0x1p-24}, nil},
		{"f2 big-endian", numpyFile(">f2", false, "(2,)", be([]uint16{0x3c00, 0x3555})), "<f2", []int{2},
			[]float64{1, F16Value(0x3555)}, nil},
		{"f8", numpyFile("<f8", false, "(2,)", le([]float64{math.Pi, -0.1})), "<f8", []int{2}, []float64{math.Pi, -0.1}, nil},
		{"f4 big-endian", numpyFile(">f4", false, "(2,)", be([]float32{1.5, -2})), "<f4", []int{2}, []float64{1.5, -2}, nil},
		{"i1", numpyFile("|i1", false, "(3,)", le([]int8{-128, 0, 127})), "|i1", []int{3}, nil, []int64{-128, 0, 127}},
		{"i2 big-endian", numpyFile(">i2", false, "(2,)", be([]int16{-2, 300})), "<i2", []int{2}, nil, []int64{-2, 300}},
		{"i4", numpyFile("<i4", false, "(2,)", le([]int32{-5, 1 << 30})), "<i4", []int{2}, nil, []int64{-5, 1 << 30}},
		{"i8", numpyFile("<i8", false, "(1,)", le([]int64{-1 << 62})), "<i8", []int{1}, nil, []int64{-1 << 62}},
		{"u1", numpyFile("|u1", false, "(2,)", []byte{0, 255}), "|u1", []int{2}, nil, []int64{0, 255}},
		{"u2", numpyFile("<u2", false, "(1,)", le([]uint16{65535})), "<u2", []int{1}, nil, []int64{65535}},
		{"u4", numpyFile("<u4", false, "(1,)", le([]uint32{1<<32 - 1})), "<u4", []int{1}, nil, []int64{1<<32 - 1}},
		{"u8", numpyFile("<u8", false, "(1,)", le([]uint64{1<<64 - 1})), "<u8", []int{1}, nil, []int64{-1}},
		{"bool", numpyFile("|b1", false, "(3,)", []byte{1, 0, 1}), "|b1", []int{3}, nil, []int64{1, 0, 1}},
		{"fortran i4 2x3", numpyFile("<i4", true, "(2, 3)", le([]int32{0, 3, 1, 4, 2, 5})), "<i4", []int{2, 3}, nil,
			[]int64{0, 1, 2, 3, 4, 5}},
		{"fortran f4 2x3x2", numpyFile("<f4", true, "(2, 3, 2)",
			le([]float32{0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11})), "<f4", []int{2, 3, 2},
			[]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, nil},
		{"scalar", numpyFile("<f8", false, "()", le(2.5)), "<f8", []int{}, []float64{2.5}, nil},
		{"empty", numpyFile("<f4", false, "(0,)", nil), "<f4", []int{0}, []float64{}, nil},
	}
	for _, c := range cases {
		a, err := Read(bytes.NewReader(c.file))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if a.DType != c.descr || !reflect.DeepEqual(a.Shape, c.shape) {
			t.Errorf("%s: %s %v, want %s %v", c.name, a.DType, a.Shape, c.descr, c.shape)
		}
		if !reflect.DeepEqual(a.F64, c.f64) || !reflect.DeepEqual(a.I64, c.i64) {
			t.Errorf("%s: values %v %v, want %v %v", c.name, a.F64, a.I64, c.f64, c.i64)
		}
		if err := a.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestReadErrors(t *testing.T) {
	for name, file := range map[string][]byte{
		"complex":   numpyFile("<c8", false, "(1,)", make([]byte, 8)),
		"not npy":   []byte("hello, this is not a numpy file at all"),
		"truncated": numpyFile("<f2", false, "(4,)", []byte{0, 0x3c}),
	} {
		if _, err := Read(bytes.NewReader(file)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.npy")); err == nil {
		t.Error("missing file read")
	}
}

func TestHeaderLikeNumpy(t *testing.T) {
	h, err := Header("<f4", []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	want := "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
		strings.Repeat(" ", 58) + "\n"
	if string(h) != want {
		t.Errorf("header\n%q\nwant\n%q", h, want)
	}
	for _, shape := range [][]int{nil, {7}, {1, 2, 3, 4, 5, 6, 7, 8}, {123456789, 3}} {
		h, err := Header("|b1", shape)
		if err != nil || len(h)%64 != 0 || h[len(h)-1] != '\n' || int(binary.LittleEndian.Uint16(h[8:]))+10 != len(h) {
			t.Errorf("shape %v: header of %d bytes %q", shape, len(h), h)
		}
	}
	if h, _ := Header("<i8", []int{5}); !strings.Contains(string(h), "'shape': (5,), }") {
		t.Errorf("1-d shape: %q", h)
	}
	if h, _ := Header("<i8", nil); !strings.Contains(string(h), "'shape': (), }") {
		t.Errorf("0-d shape: %q", h)
	}
}

// writeReadArrays are an array of every descr (new ones at each call: the
// round trip fills in a nil F64); FuzzRead seeds with them too.
func writeReadArrays() []*Array {
	return []*Array{
		Float32([]int{2, 2}, []float32{1, -2, 3.5, 1e-8}),
		Float64([]int{3}, []float64{math.Pi, math.Inf(-1), -0.5}),
		{Shape: []int{3}, DType: "<f2", F64: []float64{1, 0.333251953125, 65504}},
		Int("|i1", []int{4}, []int64{-128, 127, 0, 5}),
		Int("<i2", []int{2}, []int64{-32768, 32767}),
		Int("<i4", []int{1, 2}, []int64{-1, 1<<31 - 1}),
		Int("<i8", []int{2}, []int64{-1 << 63, 1<<63 - 1}),
		Int("|u1", []int{2}, []int64{0, 255}),
		Int("<u2", []int{1}, []int64{65535}),
		Int("<u4", []int{1}, []int64{1<<32 - 1}),
		Int("<u8", []int{1}, []int64{-1}),
		Int("|b1", []int{2, 1}, []int64{1, 0}),
		Float32([]int{0, 4}, nil),
	}
}

// Write then Read gives the array back, for every descr; npyio (an
// independent parser) reads what Write wrote.
func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, a := range writeReadArrays() {
		if a.F64 == nil && a.IsFloat() {
			a.F64 = []float64{}
		}
		path := filepath.Join(dir, strings.NewReplacer("<", "l", "|", "p").Replace(a.DType)+".npy")
		if err := WriteFile(path, a); err != nil {
			t.Fatalf("%s: %v", a.DType, err)
		}
		b, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", a.DType, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: wrote %+v, read %+v", a.DType, a, b)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, Float32([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6})); err != nil {
		t.Fatal(err)
	}
	r, err := npyio.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var v []float32
	if err := r.Read(&v); err != nil {
		t.Fatal(err)
	}
	if r.Header.Descr.Type != "<f4" || !reflect.DeepEqual(r.Header.Descr.Shape, []int{2, 3}) || !reflect.DeepEqual(v, []float32{1, 2, 3, 4, 5, 6}) {
		t.Errorf("npyio read %v %v", r.Header, v)
	}
	if err := Write(&buf, &Array{Shape: []int{2}, DType: "<f4", F64: []float64{1}}); err == nil {
		t.Error("shape/length mismatch written")
	}
	if err := Write(&buf, &Array{Shape: []int{1}, DType: "<c8", F64: []float64{1}}); err == nil {
		t.Error("complex written")
	}
}

func TestArrayConversions(t *testing.T) {
	a := Float32([]int{3}, []float32{1.5, -2, 1000})
	b, err := a.Bytes(ir.BF16)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, le([]uint16{0x3fc0, 0xc000, 0x447a})) {
		t.Errorf("bf16 bytes % x", b)
	}
	back, err := FromBytes(ir.BF16, []int{3}, b)
	if err != nil || back.DType != "<f4" || !reflect.DeepEqual(back.F64, []float64{1.5, -2, 1000}) {
		t.Errorf("FromBytes %+v %v", back, err)
	}
	ints := Int("<u8", []int{2}, []int64{-1, 3})
	if f := ints.Float64s(); f[0] != 0x1p64 || f[1] != 3 {
		t.Errorf("u8 as floats %v", f)
	}
	if b, _ := ints.Bytes(ir.I8); !bytes.Equal(b, []byte{0xff, 3}) {
		t.Errorf("u64 -> i8 % x", b)
	}
	if b, _ := ints.Bytes(ir.F32); !bytes.Equal(b, le(float32(0x1p64), float32(3))) {
		t.Errorf("u64 -> f32 % x", b)
	}
	if k := Int("|b1", []int{1}, []int64{1}).Kind(); k != ir.I1 {
		t.Errorf("bool kind %s", k)
	}
	if _, err := FromBytes(ir.F32, []int{2}, make([]byte, 4)); err == nil {
		t.Error("short bytes accepted")
	}
	for _, d := range ir.AllDTypes {
		if _, ok := DescrOf(d); !ok {
			t.Errorf("no descr for %s", d)
		}
	}
}

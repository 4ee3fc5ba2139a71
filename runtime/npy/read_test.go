package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// v1File is a format 1.0 file with numpy's exact header layout: the dict,
// spaces, '\n', 64-byte aligned in all.
func v1File(dict string, data []byte) []byte {
	pad := 63 - (10+len(dict))%64
	h := dict + strings.Repeat(" ", pad) + "\n"
	return rawFile(1, 0, h, data)
}

// rawFile is magic, version, header length (2 bytes for 1.x, else 4) and
// the header text as given, then data.
func rawFile(major, minor byte, h string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.WriteByte(major)
	b.WriteByte(minor)
	if major == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	}
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func dict(descr, fortran, shape string) string {
	return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }"
}

// readNoPanic is Read, with a panic turned into an error.
func readNoPanic(b []byte) (a *Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("PANIC: %v", r)
		}
	}()
	return Read(bytes.NewReader(b))
}

type badFile struct {
	name string
	file []byte
	want string // in the error
}

// badFiles are malformed files, each with what its error must say.
func badFiles() []badFile {
	f4 := func(h string) []byte { return v1File(h, make([]byte, 64)) }
	return []badFile{
		{"issue: header length past the file", []byte("\x93NUMPY\x01\x00\x20\x00abc"), "header length 32 runs past the end of the file (3 bytes follow"},
		{"empty", nil, "empty file"},
		{"not npy", []byte("hello, this is not a numpy file at all"), `not a .npy file: starts with "hello,", want the magic "\x93NUMPY"`},
		{"short magic", []byte("\x93NUM"), "file of 4 bytes is too short"},
		{"magic only", []byte("\x93NUMPY\x01"), "file of 7 bytes is too short"},
		{"version 4.0", rawFile(4, 0, dict("<f4", "False", "(1,)"), make([]byte, 4)), "format version 4.0 is not supported (want 1.0, 2.0 or 3.0)"},
		{"version 1.1", rawFile(1, 1, dict("<f4", "False", "(1,)"), make([]byte, 4)), "format version 1.1 is not supported"},
		{"version 0.0", rawFile(0, 0, dict("<f4", "False", "(1,)"), make([]byte, 4)), "format version 0.0 is not supported"},
		{"cut in length", []byte("\x93NUMPY\x02\x00\x10\x00"), "inside the 4-byte header length of format 2.0"},
		{"v2 length 4 GiB", []byte("\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'"), "header length 4294967295"},
		{"v1 header past file", []byte("\x93NUMPY\x01\x00\xff\xff{'descr': '<f4', }"), "header length 65535"},
		{"no newline, no dict", rawFile(1, 0, "abc", nil), "want '{', found 'a' at byte 0"},
		{"no closing brace", rawFile(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", make([]byte, 8)), "want ',' or '}', found the end of the header"},
		{"keys out of order, no values", f4("{'shape': 'descr': 'fortran_order': }"), "'shape' is not a tuple"},
		{"missing shape", f4("{'descr': '<f4', 'fortran_order': False, }"), "no 'shape' key"},
		{"missing descr", f4("{'fortran_order': False, 'shape': (1,), }"), "no 'descr' key"},
		{"missing fortran_order", f4("{'descr': '<f4', 'shape': (1,), }"), "no 'fortran_order' key"},
		{"empty dict", f4("{}"), "no 'descr' key"},
		{"extra key", f4("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1, }"), "unexpected key 'x' (want only 'descr', 'fortran_order' and 'shape')"},
		{"duplicate key", f4("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"), "key 'descr' appears twice"},
		{"key not a string", f4("{descr: '<f4', 'fortran_order': False, 'shape': (1,), }"), "want a key (a quoted string)"},
		{"no colon", f4("{'descr' '<f4', 'fortran_order': False, 'shape': (1,), }"), "want ':' after 'descr'"},
		{"fortran_order 1", f4(dict("<f4", "1", "(1,)")), "'fortran_order' is 1, want True or False"},
		{"fortran_order 'False'", f4(dict("<f4", "'False'", "(1,)")), "want True or False for 'fortran_order', found '\\'' at byte 34"},
		{"fortran_order true", f4(dict("<f4", "true", "(1,)")), "'fortran_order' is true, want True or False"},
		{"shape list", f4(dict("<f4", "False", "[2, 3]")), "'shape' is not a tuple: found '['"},
		{"shape number", f4(dict("<f4", "False", "(5)")), "'shape' (5) is a number, not a tuple"},
		{"shape bare", f4(dict("<f4", "False", "5")), "'shape' is not a tuple"},
		{"negative dim", f4(dict("<f4", "False", "(2, -3)")), "negative dimension -3"},
		{"float dim", f4(dict("<f4", "False", "(2.5,)")), "dimension 2.5 is not a non-negative integer"},
		{"name dim", f4(dict("<f4", "False", "(2, x)")), "dimension x is not a non-negative integer"},
		{"string dim", f4(dict("<f4", "False", "('2',)")), "want a dimension or ')' in 'shape'"},
		{"bool dim", f4(dict("<f4", "False", "(True,)")), "dimension True is not a non-negative integer"},
		{"leading zero dim", f4(dict("<f4", "False", "(07,)")), "dimension 07 is not a non-negative integer"},
		{"plus dim", f4(dict("<f4", "False", "(+7,)")), "dimension +7 is not a non-negative integer"},
		{"double comma", f4(dict("<f4", "False", "(2,,)")), "want a dimension or ')' in 'shape', found ','"},
		{"unclosed shape", f4("{'descr': '<f4', 'fortran_order': False, 'shape': (2, }"), "want a dimension or ')' in 'shape', found '}'"},
		{"L in format 3.0", rawFile(3, 0, dict("<f4", "False", "(2L,)"), make([]byte, 8)), "dimension 2L is not a non-negative integer"},
		{"huge dim", f4(dict("<f4", "False", "(9223372036854775808,)")), "dimension 9223372036854775808 is too large"},
		{"descr number", f4("{'descr': 4, 'fortran_order': False, 'shape': (1,), }"), "want the 'descr' value (a quoted string)"},
		{"descr unterminated", rawFile(1, 0, "{'descr': '<f4", nil), "unterminated string"},
		{"descr escape", f4(dict(`<f\4`, "False", "(1,)")), "escapes and line breaks in strings are not supported"},
		{"after dict", f4(dict("<f4", "False", "(1,)") + " x"), "'x' at byte"},
		{"two dicts", f4(dict("<f4", "False", "(1,)") + dict("<f4", "False", "(1,)")), "'{' at byte"},
		{"65 dims", v1File(dict("|u1", "False", "("+strings.Repeat("1, ", 65)+")"), make([]byte, 1)), "shape has 65 dimensions, numpy allows at most 64"},
		{"issue: overflowing count", f4(dict("<f4", "False", "(1099511627776, 1099511627776)")), "shape [1099511627776 1099511627776] overflows"},
		{"overflowing bytes", f4(dict("<f8", "False", "(1152921504606846976,)")), "shape [1152921504606846976] overflows"},
		{"overflowing with a zero", f4(dict("<f4", "False", "(0, 4611686018427387904, 4)")), "overflows"},
		{"issue: truncated", v1File(dict("<f4", "False", "(4, 100)"), make([]byte, 72)), "72 bytes of data, shape [4 100] of <f4 needs 1600"},
		{"huge claim", v1File(dict("<f8", "False", "(1099511627776,)"), make([]byte, 100)), "100 bytes of data, shape [1099511627776] of <f8 needs 8796093022208"},
		{"no data", v1File(dict("|b1", "False", "()"), nil), "0 bytes of data, shape [] of |b1 needs 1"},
		{"half an element", v1File(dict(">i8", "False", "(2,)"), make([]byte, 12)), "12 bytes of data, shape [2] of >i8 needs 16"},
		{"complex", f4(dict("<c8", "False", "(1,)")), "unsupported complex dtype '<c8' (want bool, int8..int64, uint8..uint64, float16/32/64)"},
		{"structured", f4("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }"),
			"unsupported dtype [('a', '<f4'), ('b', '<i4')]: structured/record dtypes are not supported (want bool"},
	}
}

// Malformed and truncated files are errors saying what is wrong, never a
// panic and never an array.
func TestReadMalformed(t *testing.T) {
	for _, c := range badFiles() {
		t.Run(c.name, func(t *testing.T) {
			a, err := readNoPanic(c.file)
			if err == nil {
				t.Fatalf("read %+v, want an error", a)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "npy: ") {
				t.Errorf("error\n%s\nwant npy: ...%s", err, c.want)
			}
		})
	}
}

// ReadFile names the file in every error; knowing the file's size, it says
// a header length runs past the end even where Read stops at numpy's limit.
func TestReadFileErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	for i, c := range badFiles() {
		path := filepath.Join(dir, fmt.Sprintf("bad%d.npy", i))
		if err := os.WriteFile(path, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+": npy: ") {
			t.Errorf("%s: ReadFile error %v, want it to start with %q", c.name, err, path+": npy: ")
		}
	}
	path := filepath.Join(dir, "huge-header.npy")
	os.WriteFile(path, []byte("\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'"), 0o644)
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "header length 4294967295 runs past the end of the file (8 bytes follow") {
		t.Errorf("4 GiB header length: %v", err)
	}
	if _, err := Read(bytes.NewReader([]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'"))); err == nil ||
		!strings.Contains(err.Error(), "header length 4294967295 is more than 10000, the most numpy.load reads") {
		t.Errorf("4 GiB header length from a stream: %v", err)
	}
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), dir+" is a directory, not a regular file") {
		t.Errorf("directory: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.npy")); err == nil || !strings.Contains(err.Error(), "missing.npy") {
		t.Errorf("missing file: %v", err)
	}
}

// The first 200 bytes of a 4x100 <f4 file (the case) are an error;
// the whole file reads.
func TestReadTruncatedExample(t *testing.T) {
	full, err := os.ReadFile("../../examples/x_4x100.npy")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Read(bytes.NewReader(full))
	if err != nil || !reflect.DeepEqual(a.Shape, []int{4, 100}) || a.DType != "<f4" || len(a.F64) != 400 {
		t.Fatalf("whole file: %v", err)
	}
	const want = "npy: 72 bytes of data, shape [4 100] of <f4 needs 1600"
	if _, err := Read(bytes.NewReader(full[:200])); err == nil || err.Error() != want {
		t.Errorf("Read of 200 bytes: %v, want %s", err, want)
	}
	path := filepath.Join(t.TempDir(), "x.npy")
	os.WriteFile(path, full[:200], 0o644)
	if _, err := ReadFile(path); err == nil || err.Error() != path+": "+want {
		t.Errorf("ReadFile of 200 bytes: %v, want %s: %s", err, path, want)
	}
	// Every cut is an error, through Read (length unknown) and ReadFile.
	for n := 0; n < len(full); n += 37 {
		if _, err := readNoPanic(full[:n]); err == nil {
			t.Errorf("first %d bytes read", n)
		}
		if _, err := read(bytes.NewReader(full[:n]), int64(n)); err == nil {
			t.Errorf("first %d bytes read (size known)", n)
		}
	}
	if _, err := Read(bytes.NewReader(full[:len(full)-1])); err == nil {
		t.Errorf("one byte short read")
	}
}

// A header announcing more data than is present is rejected before the data
// buffer is allocated (the file's size known) or as the data runs out (a
// stream): memory stays proportional to what is there.
func TestReadHugeShapeAllocatesLittle(t *testing.T) {
	file := v1File(dict("<f8", "False", "(1099511627776, 8)"), make([]byte, 1000))
	path := filepath.Join(t.TempDir(), "huge.npy")
	os.WriteFile(path, file, 0o644)
	for name, f := range map[string]func() error{
		"Read":     func() error { _, err := Read(bytes.NewReader(file)); return err },
		"ReadFile": func() error { _, err := ReadFile(path); return err },
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := f()
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "1000 bytes of data, shape [1099511627776 8] of <f8 needs 70368744177664") {
			t.Errorf("%s: %v", name, err)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 8<<20 {
			t.Errorf("%s: allocated %d bytes for a 1000-byte file", name, d)
		}
	}
}

// Reading in small pieces gives the same array: every element is read
// whole, however the reader splits the stream, and read errors are passed on.
func TestReadShortReads(t *testing.T) {
	file := numpyFile("<f8", false, "(2, 3)", le([]float64{1, 2, 3, 4, 5, 6}))
	want := []float64{1, 2, 3, 4, 5, 6}
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"HalfReader":    iotest.HalfReader,
		"OneByteReader": iotest.OneByteReader,
		"DataErrReader": iotest.DataErrReader,
	} {
		a, err := Read(wrap(bytes.NewReader(file)))
		if err != nil || !reflect.DeepEqual(a.F64, want) {
			t.Errorf("%s: %+v %v, want %v", name, a, err, want)
		}
	}
	boom := errors.New("disk on fire")
	_, err := Read(io.MultiReader(bytes.NewReader(file[:len(file)-8]), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "reading 48 bytes of data") {
		t.Errorf("read error: %v, want it wrapped", err)
	}
}

// Big-endian files of every dtype read as the little-endian ones; '|', '='
// and no byte order mean the machine's, as in numpy.
func TestReadBigEndian(t *testing.T) {
	cases := []struct {
		descr string
		be    []byte
		want  any // []float64 or []int64
	}{
		{">f2", be([]uint16{0x3c00, 0xc000, 0x7c00}), []float64{1, -2, math.Inf(1)}},
		{">f4", be([]float32{1.5, -2, 1e-3}), []float64{1.5, -2, float64(float32(1e-3))}},
		{">f8", be([]float64{math.Pi, -0.1, 1e300}), []float64{math.Pi, -0.1, 1e300}},
		{">i1", be([]int8{-128, 0, 127}), []int64{-128, 0, 127}},
		{">i2", be([]int16{-2, 300, -32768}), []int64{-2, 300, -32768}},
		{">i4", be([]int32{-5, 1 << 30, -1 << 31}), []int64{-5, 1 << 30, -1 << 31}},
		{">i8", be([]int64{-1 << 62, 1, -2}), []int64{-1 << 62, 1, -2}},
		{">u1", []byte{0, 128, 255}, []int64{0, 128, 255}},
		{">u2", be([]uint16{65535, 1, 256}), []int64{65535, 1, 256}},
		{">u4", be([]uint32{1<<32 - 1, 1, 256}), []int64{1<<32 - 1, 1, 256}},
		{">u8", be([]uint64{1<<64 - 1, 1, 256}), []int64{-1, 1, 256}},
		{">b1", []byte{1, 0, 1}, []int64{1, 0, 1}},
	}
	for _, c := range cases {
		a, err := Read(bytes.NewReader(v1File(dict(c.descr, "False", "(3,)"), c.be)))
		if err != nil {
			t.Errorf("%s: %v", c.descr, err)
			continue
		}
		got := any(a.I64)
		if a.IsFloat() {
			got = a.F64
		}
		canon := "<" + c.descr[1:]
		if c.descr[2] == '1' {
			canon = "|" + c.descr[1:]
		}
		if a.DType != canon || !reflect.DeepEqual(a.Shape, []int{3}) || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s %v %v, want %s [3] %v", c.descr, a.DType, a.Shape, got, canon, c.want)
		}
	}
	// numpy's exact header for a big-endian Fortran-order 2x3 float32.
	file := v1File("{'descr': '>f4', 'fortran_order': True, 'shape': (2, 3), }", be([]float32{0, 3, 1, 4, 2, 5}))
	if len(file) != 128+24 || !bytes.HasPrefix(file[10:], []byte("{'descr': '>f4', 'fortran_order': True, 'shape': (2, 3), }      ")) {
		t.Fatalf("fixture %q", file)
	}
	a, err := Read(bytes.NewReader(file))
	if err != nil || !reflect.DeepEqual(a.F64, []float64{0, 1, 2, 3, 4, 5}) || !reflect.DeepEqual(a.Shape, []int{2, 3}) {
		t.Errorf("'>f4' Fortran 2x3: %+v %v", a, err)
	}
	native := le([]float32{1, 2})
	if nativeBig {
		native = be([]float32{1, 2})
	}
	for _, d := range []string{"=f4", "|f4", "f4"} {
		a, err := Read(bytes.NewReader(v1File(dict(d, "False", "(2,)"), native)))
		if err != nil || a.DType != "<f4" || !reflect.DeepEqual(a.F64, []float64{1, 2}) {
			t.Errorf("%s: %+v %v", d, a, err)
		}
	}
}

// fortranData lays out the C-order array whose element at C index c is c
// in Fortran order, by nested loops with the first index innermost.
func fortranData(shape []int) []int64 {
	var out []int64
	var rec func(k int, idx []int)
	rec = func(k int, idx []int) {
		if k < 0 {
			c := 0
			for i, d := range shape {
				c = c*d + idx[i]
			}
			out = append(out, int64(c))
			return
		}
		for i := 0; i < shape[k]; i++ {
			idx[k] = i
			rec(k-1, idx)
		}
	}
	rec(len(shape)-1, make([]int, len(shape)))
	return out
}

// Fortran-order files of rank 0 to 4 read transposed into C order.
func TestReadFortran(t *testing.T) {
	for _, shape := range [][]int{{}, {5}, {2, 3}, {3, 2}, {1, 4}, {2, 3, 4}, {4, 1, 3}, {2, 3, 2, 2}, {0, 3}, {3, 0, 2}} {
		data := fortranData(shape)
		var raw []byte
		for _, v := range data {
			raw = append(raw, le(int32(v))...)
		}
		s := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(shape)), ", "), "[]")
		if len(shape) == 1 {
			s += ","
		}
		a, err := Read(bytes.NewReader(v1File(dict("<i4", "True", "("+s+")"), raw)))
		if err != nil {
			t.Errorf("%v: %v", shape, err)
			continue
		}
		want := make([]int64, len(data))
		for i := range want {
			want[i] = int64(i)
		}
		if !reflect.DeepEqual(a.Shape, shape) || !reflect.DeepEqual(a.I64, want) {
			t.Errorf("%v: read %v %v, want %v", shape, a.Shape, a.I64, want)
		}
		// The same through a float dtype, big-endian.
		var fraw []byte
		for _, v := range data {
			fraw = append(fraw, be(float64(v))...)
		}
		b, err := Read(bytes.NewReader(v1File(dict(">f8", "True", "("+s+")"), fraw)))
		if err != nil || !reflect.DeepEqual(b.Float64s(), a.Float64s()) {
			t.Errorf("%v: >f8 Fortran %v %v", shape, b, err)
		}
	}
}

// Formats 1.0, 2.0 (4-byte header length) and 3.0 (utf-8 header) read
// the same; so do headers as other writers lay them out.
func TestReadVersionsAndLayouts(t *testing.T) {
	data := le([]int16{1, -2, 3, -4, 5, -6})
	want := []int64{1, -2, 3, -4, 5, -6}
	files := map[string][]byte{
		"1.0":                  v1File(dict("<i2", "False", "(2, 3)"), data),
		"2.0":                  rawFile(2, 0, dict("<i2", "False", "(2, 3)")+"\n", data),
		"3.0":                  rawFile(3, 0, dict("<i2", "False", "(2, 3)")+"    \n", data),
		"numpy >= 1.24 spaces": numpyFile("<i2", false, "(2, 3)", data),
		"no padding":           rawFile(1, 0, dict("<i2", "False", "(2, 3)"), data),
		"keys reordered":       rawFile(1, 0, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i2'}\n", data),
		"double quotes":        rawFile(1, 0, `{"descr": "<i2", "fortran_order": False, "shape": (2, 3)}`, data),
		"odd whitespace":       rawFile(1, 0, "{ 'descr' :'<i2',\n\t'fortran_order':False ,'shape':( 2 ,3 , ) , }\r\n", data),
		"Python 2 longs":       rawFile(1, 0, dict("<i2", "False", "(2L, 3L)")+"\n", data),
		"16-byte aligned":      rawFile(1, 0, dict("<i2", "False", "(2, 3)")+strings.Repeat(" ", 5)+"\n", data),
		"trailing bytes":       append(v1File(dict("<i2", "False", "(2, 3)"), data), "trailing"...),
	}
	for name, file := range files {
		a, err := Read(bytes.NewReader(file))
		if err != nil || a.DType != "<i2" || !reflect.DeepEqual(a.Shape, []int{2, 3}) || !reflect.DeepEqual(a.I64, want) {
			t.Errorf("%s: %+v %v", name, a, err)
		}
		path := filepath.Join(t.TempDir(), "a.npy")
		os.WriteFile(path, file, 0o644)
		if b, err := ReadFile(path); err != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: ReadFile %+v %v", name, b, err)
		}
	}
	// Arrays saved one after another into a stream read in turn.
	var stream bytes.Buffer
	Write(&stream, Int("<i2", []int{2}, []int64{7, 8}))
	Write(&stream, Float32([]int{1}, []float32{9}))
	a, err1 := Read(&stream)
	b, err2 := Read(&stream)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(a.I64, []int64{7, 8}) || !reflect.DeepEqual(b.F64, []float64{9}) || stream.Len() != 0 {
		t.Errorf("stream: %v %v %v %v", a, err1, b, err2)
	}
}

// Every dtype numpy can hold that is not bool, int, uint or float16/32/64 is
// an error naming it.
func TestReadUnsupportedDtypes(t *testing.T) {
	for _, d := range []string{"<c8", "<c16", ">c8", "|O", "<U5", "|S5", "|a3", "|V8", "<M8[ns]", "<m8[s]", "<f16", "<f12", "<i3", "<u16", "|b2", "<x4", "", "<", "f"} {
		_, err := readNoPanic(v1File(dict(d, "False", "(1,)"), make([]byte, 64)))
		if err == nil || !strings.Contains(err.Error(), "dtype '"+d+"' (want bool, int8..int64, uint8..uint64, float16/32/64)") {
			t.Errorf("%q: %v", d, err)
		}
	}
	for _, d := range []string{"[('a', '<f4')]", "[('x', '<i4', (2,)), ('y', '|u1')]", "{'names': ['a'], 'formats': ['<f4']}"} {
		_, err := readNoPanic(v1File("{'descr': "+d+", 'fortran_order': False, 'shape': (1,), }", make([]byte, 64)))
		if err == nil || !strings.Contains(err.Error(), "unsupported dtype "+d+": structured/record dtypes are not supported") {
			t.Errorf("%s: %v", d, err)
		}
	}
}

// A bool byte other than 0 reads as 1, as numpy reads it as True.
func TestReadBoolNonzero(t *testing.T) {
	a, err := Read(bytes.NewReader(v1File(dict("|b1", "False", "(4,)"), []byte{0, 1, 2, 255})))
	if err != nil || !reflect.DeepEqual(a.I64, []int64{0, 1, 1, 1}) {
		t.Errorf("%+v %v", a, err)
	}
}

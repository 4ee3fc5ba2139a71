package npy

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ReadRawFile reads what ReadFile reads, as the file's element type: the
// same values for every descr, byte order and layout, the same errors.
func TestReadRawFileMatchesReadFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"f4be":  numpyFile(">f4", false, "(3,)", be(float32(1.5), float32(-2), float32(3e-9))),
		"i2f":   numpyFile("<i2", true, "(2, 3)", le(int16(0), int16(3), int16(1), int16(4), int16(2), int16(-5))),
		"f8f":   numpyFile("<f8", true, "(2, 2)", le(1.0, 2.0, 3.0, 4.0)),
		"b1":    numpyFile("|b1", false, "(3,)", []byte{0, 2, 1}),
		"u1f":   numpyFile("|u1", true, "(2, 2)", []byte{1, 2, 3, 4}),
		"f2":    numpyFile("<f2", false, "(2,)", le(uint16(0x3c00), uint16(0xfbff))),
		"empty": numpyFile("<f4", false, "(0, 4)", nil),
	}
	for _, a := range writeReadArrays() {
		p := filepath.Join(dir, strings.NewReplacer("<", "l", "|", "p").Replace(a.DType)+".npy")
		if a.F64 == nil && a.IsFloat() {
			a.F64 = []float64{}
		}
		if err := WriteFile(p, a); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		files[filepath.Base(p)] = b
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, err := ReadRawFile(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if raw.DType != want.DType || !reflect.DeepEqual(raw.Shape, want.Shape) || len(raw.Data) != want.Len()*raw.Kind().Bytes() {
			t.Errorf("%s: raw %s %v (%d bytes), ReadFile %s %v", name, raw.DType, raw.Shape, len(raw.Data), want.DType, want.Shape)
		}
		if got := raw.Array(); !reflect.DeepEqual(got.F64, want.F64) || !reflect.DeepEqual(got.I64, want.I64) {
			t.Errorf("%s: raw values %v %v, ReadFile's %v %v", name, got.F64, got.I64, want.F64, want.I64)
		}
		// and the raw bytes write back as the same file ReadFile reads
		q := filepath.Join(dir, "back-"+name)
		if err := WriteRawFile(q, raw.DType, raw.Shape, raw.Data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := ReadFile(q)
		if err != nil || !reflect.DeepEqual(back, want) && !(back.Len() == 0 && want.Len() == 0) {
			t.Errorf("%s: written back %+v, %v; want %+v", name, back, err, want)
		}
	}
	if _, err := ReadRawFile(filepath.Join(dir, "missing.npy")); err == nil || !strings.Contains(err.Error(), "missing.npy") {
		t.Errorf("a missing file: %v", err)
	}
	p := filepath.Join(dir, "short.npy")
	os.WriteFile(p, numpyFile("<f4", false, "(4,)", make([]byte, 8)), 0o644)
	if _, err := ReadRawFile(p); err == nil || !strings.Contains(err.Error(), "short.npy: npy: 8 bytes of data, shape [4] of <f4 needs 16") {
		t.Errorf("a short file: %v", err)
	}
}

func TestWriteRawFileChecks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.npy")
	for _, c := range []struct {
		descr string
		shape []int
		n     int
		want  string
	}{
		{"<f4", []int{3}, 8, "x.npy: npy: shape [3] of <f4 needs 12 bytes, have 8"},
		{"<f3", []int{3}, 12, `x.npy: npy: unsupported dtype "<f3"`},
		{"<f4", []int{-1}, 0, "x.npy: npy:"},
	} {
		err := WriteRawFile(p, c.descr, c.shape, make([]byte, c.n))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.descr, c.shape, err, c.want)
		}
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s %v: the file was written", c.descr, c.shape)
		}
	}
}

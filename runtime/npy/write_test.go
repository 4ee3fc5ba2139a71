package npy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// dirNames lists dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// WriteFile replaces path whole or not at all: a directory or an invalid
// array is an error before anything is written, and an existing file keeps
// its content on failure.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	good := Float32([]int{2}, []float32{1, 2})
	var want bytes.Buffer
	if err := Write(&want, good); err != nil {
		t.Fatal(err)
	}

	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if err := WriteFile(sub, good); err == nil || !strings.Contains(err.Error(), sub+": is a directory") {
		t.Errorf("directory: %v", err)
	}
	if names := dirNames(t, sub); len(names) != 0 {
		t.Errorf("directory path: %v left in it", names)
	}

	path := filepath.Join(dir, "a.npy")
	if err := WriteFile(path, good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []*Array{
		{Shape: []int{3}, DType: "<f4", F64: []float64{1}},
		{Shape: []int{1}, DType: "<c8", F64: []float64{1}},
		{Shape: []int{-1}, DType: "<f4"},
		{Shape: []int{1 << 40, 1 << 40}, DType: "<f4", F64: []float64{}},
	} {
		if err := WriteFile(path, bad); err == nil || !strings.HasPrefix(err.Error(), path+": npy: ") {
			t.Errorf("%+v: error %v, want one naming %s", bad, err, path)
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, want.Bytes()) {
			t.Errorf("%+v: failed write changed the file to %q", bad, b)
		}
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"a.npy", "sub"}) {
		t.Errorf("left behind: %v", names)
	}

	missing := filepath.Join(dir, "no", "such", "dir", "a.npy")
	if err := WriteFile(missing, good); err == nil || !strings.HasPrefix(err.Error(), missing+": ") {
		t.Errorf("missing directory: %v", err)
	}
}

// WriteFile keeps an existing file's permissions, gives a new one those of
// os.Create, and writes through a symbolic link.
func TestWriteFileModesAndLinks(t *testing.T) {
	dir := t.TempDir()
	a := Int("<i4", []int{1}, []int64{7})
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	refInfo, _ := os.Stat(ref)

	path := filepath.Join(dir, "new.npy")
	if err := WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode() != refInfo.Mode() {
		t.Errorf("new file mode %v, os.Create gives %v", fi.Mode(), refInfo.Mode())
	}
	os.Chmod(path, 0o640)
	if err := WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("rewritten file mode %v, want 0640 kept", fi.Mode())
	}

	link := filepath.Join(dir, "link.npy")
	if err := os.Symlink("new.npy", link); err != nil {
		t.Skip(err)
	}
	b := Int("<i4", []int{2}, []int64{8, 9})
	if err := WriteFile(link, b); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced by a file")
	}
	if got, err := ReadFile(path); err != nil || !reflect.DeepEqual(got, b) {
		t.Errorf("link target holds %+v %v, want %+v", got, err, b)
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"link.npy", "new.npy", "ref"}) {
		t.Errorf("left behind: %v", names)
	}
}

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

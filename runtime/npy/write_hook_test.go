package npy

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A failure at the last step (the rename) leaves the old file as it was and
// no temporary file behind.
func TestWriteFileRenameFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.npy")
	old := []byte("old content")
	os.WriteFile(path, old, 0o644)
	boom := errors.New("rename refused")
	var tmp string
	rename = func(from, to string) error {
		tmp = from
		if _, err := os.Stat(from); err != nil {
			t.Errorf("temporary %s missing at rename: %v", from, err)
		}
		return boom
	}
	defer func() { rename = os.Rename }()
	err := WriteFile(path, Float64([]int{3}, []float64{1, 2, 3}))
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("error %v, want %v naming %s", err, boom, path)
	}
	if filepath.Dir(tmp) != dir || !strings.HasPrefix(filepath.Base(tmp), ".a.npy.tmp") {
		t.Errorf("temporary %s, want .a.npy.tmp* in %s", tmp, dir)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, old) {
		t.Errorf("file now %q", b)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 1 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v", names)
	}
	rename = os.Rename
	if err := WriteFile(path, Float64([]int{1}, []float64{4})); err != nil {
		t.Fatal(err)
	}
	if a, err := ReadFile(path); err != nil || !reflect.DeepEqual(a.F64, []float64{4}) {
		t.Errorf("after a good write: %+v %v", a, err)
	}
}

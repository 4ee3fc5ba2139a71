package fileio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
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
	write := func(data string) func(w io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, data); return err }
	}
	err := WriteAtomic(path, 0o666, write("new"))
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
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
	if err := WriteAtomic(path, 0o666, write("new")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "new" {
		t.Errorf("after a good write: %q %v", b, err)
	}
}

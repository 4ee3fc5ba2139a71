//go:build unix

package npy

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// An existing FIFO is written into, not replaced by a file.
func TestWriteFileFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pipe.npy")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	a := Int("<u2", []int{2}, []int64{1, 2})
	got := make(chan []byte)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	if err := WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	Write(&want, a)
	if b := <-got; !bytes.Equal(b, want.Bytes()) {
		t.Errorf("read %q from the FIFO, want %q", b, want.Bytes())
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("FIFO replaced: %v %v", fi.Mode(), err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("left behind: %v", es)
	}
}

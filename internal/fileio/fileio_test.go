package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file within the limit is read whole; one past it, or an endless one,
// is refused with the limit in the message.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, 5); err != nil || string(data) != "12345" {
		t.Fatalf("ReadFile at the limit: %q, %v", data, err)
	}
	if _, err := ReadFile(path, 4); err == nil || !strings.Contains(err.Error(), "larger than the limit of 4 bytes") {
		t.Fatalf("ReadFile past the limit: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero", 1<<10); err == nil || !strings.Contains(err.Error(), "larger than the limit") {
			t.Fatalf("ReadFile of /dev/zero: %v", err)
		}
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing"), 4); !os.IsNotExist(err) {
		t.Fatalf("ReadFile of a missing file: %v", err)
	}
}

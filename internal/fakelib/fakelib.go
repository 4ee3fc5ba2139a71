// Package fakelib builds the C stand-ins that the runtime's tests load
// through purego in place of a real library (runtime/cuda's fake libcuda,
// runtime/nccl's fake libnccl): one shared object per set of -D flags,
// built once per test binary with the system C compiler ($CC, else cc),
// and a test that needs one skips where there is no compiler.
package fakelib

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A Builder builds the fake from one C source. Its zero value is not
// usable: set Name and Src.
type Builder struct {
	Name  string   // the library's name, in messages and file names ("fakecuda")
	Src   string   // the C source, relative to the test's package directory
	Flags []string // compiler flags beyond -std=c11 -O1 -shared -fPIC

	mu   sync.Mutex
	dir  string
	libs map[string]string // -D set -> path ("" when there is no compiler)
}

// Lib returns the path of the fake built with defines (NAME or NAME=VALUE),
// building it the first time; it skips t where there is no C compiler.
func (b *Builder) Lib(t testing.TB, defines ...string) string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	key := strings.Join(defines, ",")
	if p, ok := b.libs[key]; ok {
		if p == "" {
			t.Skipf("no C compiler for the %s library", b.Name)
		}
		return p
	}
	if b.libs == nil {
		b.libs = map[string]string{}
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		b.libs[key] = ""
		t.Skipf("no C compiler (%s) for the %s library", cc, b.Name)
	}
	if b.dir == "" {
		d, err := os.MkdirTemp("", b.Name)
		if err != nil {
			t.Fatal(err)
		}
		b.dir = d
	}
	out := filepath.Join(b.dir, "lib"+b.Name+strings.NewReplacer(",", "_", "=", "-").Replace(key)+".so")
	args := append([]string{"-std=c11", "-O1", "-shared", "-fPIC"}, b.Flags...)
	args = append(args, "-o", out, b.Src)
	for _, d := range defines {
		args = append(args, "-D"+d)
	}
	if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("building the %s library: %v\n%s", b.Name, err, msg)
	}
	b.libs[key] = out
	return out
}

// Cleanup removes what Lib built; a TestMain calls it after m.Run.
func (b *Builder) Cleanup() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		os.RemoveAll(b.dir)
		b.dir = ""
	}
}

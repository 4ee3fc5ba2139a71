//go:build linux

package cuda

import (
	"syscall"

	"github.com/ebitengine/purego"
)

func dlopen(lib string) (uintptr, error) {
	return purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func dlsym(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }

// offHeap returns n bytes of zeroed, page-aligned memory outside the Go heap.
func offHeap(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}

func freeOffHeap(b []byte) error { return syscall.Munmap(b) }

//go:build !linux

package cuda

import (
	"errors"
	"runtime"
)

var errUnsupported = errors.New("the CUDA driver is only loaded on linux, not " + runtime.GOOS)

func dlopen(lib string) (uintptr, error) { return 0, errUnsupported }

func dlsym(h uintptr, name string) (uintptr, error) { return 0, errUnsupported }

func offHeap(n int) ([]byte, error) { return nil, errUnsupported }

func freeOffHeap(b []byte) error { return nil }

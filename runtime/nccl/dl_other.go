//go:build !linux

package nccl

import (
	"errors"
	"runtime"
)

var errUnsupported = errors.New("NCCL is only loaded on linux, not " + runtime.GOOS)

func dlopen(lib string) (uintptr, error) { return 0, errUnsupported }

func dlsym(h uintptr, name string) (uintptr, error) { return 0, errUnsupported }

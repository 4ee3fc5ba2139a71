//go:build linux

package nccl

import "github.com/ebitengine/purego"

func dlopen(lib string) (uintptr, error) {
	return purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func dlsym(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }

package tle

import "github.com/tlego/tle/backend/nvptx"

// Targets lists the GPU architectures kernels can be built for
// (GPUOptions.Arch), oldest first; the default is sm_90a.
func Targets() []string { return append([]string(nil), nvptx.Targets...) }

// CheckArch reports an architecture that is not among Targets, naming them.
func CheckArch(arch string) error { return nvptx.CheckArch(arch) }

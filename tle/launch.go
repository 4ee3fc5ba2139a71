package tle

import (
	"fmt"

	"github.com/tlego/tle/backend/nvptx"
)

// LaunchOptions are the settings of one GPU launch that leave the compiled
// kernel as it is (they are not part of the JIT cache key): GPU.LaunchWith
// and Prepared.LaunchWith take them; GPU.Launch and Prepared.Launch launch
// with the zero value.
type LaunchOptions struct {
	// PDL makes the launch a programmatic dependent launch (Hopper, sm_90+):
	// the driver may start the kernel before the previous kernel of the
	// stream has finished, as soon as every CTA of that kernel has called
	// launch_dependents or exited; the kernel's grid_dependency_wait then
	// blocks until the previous kernel has completed and its writes are
	// visible. It sets CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
	// on the cuLaunchKernelEx of this launch only. The kernel must call
	// grid_dependency_wait (Binary.GridDependencyWait): without it, it could
	// read its inputs before the previous kernel wrote them, so such a
	// launch is refused. The previous kernel needs nothing: without
	// launch_dependents it triggers when it exits, and the overlap is then
	// only the dependent's launch latency and its work before the wait.
	PDL bool
}

// check refuses options the kernel cannot take.
func (o LaunchOptions) check(b *Binary) error {
	if o.PDL && !b.GridDependencyWait {
		return fmt.Errorf("tle: a PDL launch of %s, which never calls grid_dependency_wait(): it could read its inputs before the previous kernel wrote them", b.Kernel)
	}
	return nil
}

// SupportsPDL reports whether g compiles for a target with the PDL
// instructions (GPUOptions.Arch sm_90 or newer; the default sm_90a is), so
// that a kernel calling grid_dependency_wait or launch_dependents builds
// and LaunchOptions{PDL: true} means something.
func (g *GPU) SupportsPDL() bool {
	return g != nil && nvptx.SupportsPDL(g.opts.withDefaults().Arch)
}

package nvptx

import (
	"fmt"
	"slices"
	"strings"
)

// Targets are the GPU architectures the backend emits code for: Ampere and
// Ada (sm_80 to sm_89: mma.sync, cp.async, ldmatrix) and Hopper (sm_90; sm_90a
// adds wgmma, setmaxnreg and the other arch-specific instructions the
// TLE extensions use). Kernels that use TMA, clusters or mbarrier
// transactions need sm_90 or sm_90a; wgmma needs sm_90a.
var Targets = []string{"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"}

// CheckArch reports an architecture the backend does not emit code for.
func CheckArch(arch string) error {
	if slices.Contains(Targets, arch) {
		return nil
	}
	return fmt.Errorf("arch %q: not a target of this compiler (targets: %s)", arch, strings.Join(Targets, ", "))
}

// MaxSmemBytes is the dynamic shared memory one CTA may use on arch (the
// opt-in maximum of cudaFuncAttributeMaxDynamicSharedMemorySize): 227 KB on
// Hopper, 163 KB on sm_80 and sm_87, 99 KB on sm_86 and sm_89.
func MaxSmemBytes(arch string) int {
	switch arch {
	case "sm_80", "sm_87":
		return 166912
	case "sm_86", "sm_89":
		return 101376
	}
	return 232448
}

package nvptx

import (
	"github.com/llir/llvm/ir/types"
	"github.com/tlego/tle/ir"
)

// Programmatic dependent launch (PTX ISA 7.8, sm_90+): griddepcontrol.
//
// grid_dependency_wait is griddepcontrol.wait: the thread waits until the
// prerequisite grids (the previous kernel of the stream, when this one was
// launched with the programmatic-stream-serialization attribute) have
// completed and their memory operations are visible. Without that launch
// attribute there is no prerequisite grid in flight and it returns at once.
//
// launch_dependents is griddepcontrol.launch_dependents: the CTA allows the
// dependent grid to be scheduled once every CTA of this grid has issued it
// or exited; the first thread of a CTA to issue it triggers the CTA, later
// ones add nothing (PTX ISA). It gives no memory visibility: the
// dependent's grid_dependency_wait does.
//
// Both are per-thread instructions, neither aligned nor convergent: they
// may sit in divergent code and inside warp roles. They are side-effecting
// asm with a memory clobber, so LLVM moves no load or store across them (a
// load hoisted above the wait would read the previous kernel's output
// before it is written). LLVM 19 has no intrinsics for them (they came in
// LLVM 20), so they are inline asm, the same text through llc and libNVVM.

// gridDepWait lowers grid_dependency_wait().
func (g *gen) gridDepWait(op *ir.Op) {
	g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "griddepcontrol.wait;", "~{memory}", true))
}

// launchDependents lowers launch_dependents().
func (g *gen) launchDependents(op *ir.Op) {
	g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "griddepcontrol.launch_dependents;", "~{memory}", true))
}

// archAtLeast90 reports whether arch (one of Targets; empty: the default
// sm_90a) is Hopper or newer.
func archAtLeast90(arch string) bool {
	switch arch {
	case "", "sm_90", "sm_90a":
		return true
	}
	return false
}

// SupportsPDL reports whether the target arch (one of Targets; empty: the
// default sm_90a) has the PDL instructions (griddepcontrol, sm_90 or newer).
func SupportsPDL(arch string) bool { return archAtLeast90(arch) }

package nvptx

import (
	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/ir"
)

// InterpreterOnly is the first op of m's kernels that the GPU backend does
// not compile yet: the ops of a mesh across devices (device_mesh(device:
// n), remote of a global pointer, signal, signal_wait, a device barrier,
// shard_id(mesh, "device")), which only the interpreter runs so far
// (docs/distributed.md). nil when there is none.
func InterpreterOnly(m *ir.Module) *ir.Op {
	var first *ir.Op
	for _, f := range m.Funcs {
		if !f.Kernel {
			continue
		}
		f.Walk(func(op *ir.Op) {
			if first == nil && deviceLevel(op) {
				first = op
			}
		})
	}
	return first
}

func deviceLevel(op *ir.Op) bool {
	switch op.Kind {
	case ir.OpRemotePtr, ir.OpSignal, ir.OpSignalWait:
		return true
	case ir.OpDeviceMesh:
		_, ok := op.Attrs["devices"]
		return ok
	case ir.OpDistributedBarrier, ir.OpShardID:
		m, ok := op.Operands[0].Type.(*ir.Mesh)
		return ok && m.Devices > 0
	}
	return false
}

// checkInterpreterOnly is InterpreterOnly as an error at the op.
func checkInterpreterOnly(m *ir.Module) error {
	op := InterpreterOnly(m)
	if op == nil {
		return nil
	}
	return diag.Errorf(m.File, op.Pos, "%s: device meshes run on the interpreter only so far (the GPU backend does not compile them yet; docs/distributed.md)", op.Kind)
}

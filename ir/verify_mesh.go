package ir

import "fmt"

// Verifier rules of the ops of meshes across devices (device_mesh(device:
// n)): peer pointers into symmetric buffers, signals and device barriers.

// deviceMeshOperand checks that operand k is a mesh with a device axis.
func (v *verifier) deviceMeshOperand(op *Op, k int) {
	m, ok := op.ot(k).(*Mesh)
	switch {
	case !ok:
		v.errf(op, "operand %d has type %s, want a !mesh", k, typeString(op.ot(k)))
	case m.Devices < 1:
		v.errf(op, "operand %d is %s, a mesh without a device axis", k, typeString(op.ot(k)))
	}
}

func (v *verifier) checkRemotePtr(op, _ *Op) bool {
	if _, ok := Elem(op.ot(0)).(*Pointer); !ok {
		v.errf(op, "operand 0 has type %s, want a pointer or a tile of pointers", typeString(op.ot(0)))
		return false
	}
	if !isIntScalar(op.ot(1)) {
		v.errf(op, "rank has type %s, want an integer scalar", typeString(op.ot(1)))
	}
	v.deviceMeshOperand(op, 2)
	v.sameType(op, "result", op.rt(), op.ot(0))
	return true
}

// flagOperands checks a signal's or signal_wait's flag (a pointer to an
// integer scalar, operand 0) and value (operand k, of the flag's dtype).
func (v *verifier) flagOperands(op *Op, k int) {
	p, ok := op.ot(0).(*Pointer)
	if !ok {
		v.errf(op, "operand 0 has type %s, want a pointer to an integer flag", typeString(op.ot(0)))
		return
	}
	if !p.Elem.IsInt() {
		v.errf(op, "flag %s does not point to an integer", typeString(op.ot(0)))
		return
	}
	v.sameType(op, "value", op.ot(k), p.Elem)
}

func (v *verifier) checkSignal(op, _ *Op) bool {
	v.flagOperands(op, 3)
	if !isIntScalar(op.ot(1)) {
		v.errf(op, "rank has type %s, want an integer scalar", typeString(op.ot(1)))
	}
	v.deviceMeshOperand(op, 2)
	v.deferredString(op, "op")
	return true
}

func (v *verifier) checkSignalWait(op, _ *Op) bool {
	v.flagOperands(op, 1)
	v.deferredString(op, "cmp")
	return true
}

// checkDistributedBarrierAttrs checks a device barrier's axis and group.
func (v *verifier) checkDistributedBarrierAttrs(op *Op) {
	m, _ := op.ot(0).(*Mesh)
	if ax, ok := op.Attrs["axis"]; ok {
		if s, _ := ax.(string); s != "device" && s != "cluster" {
			v.errf(op, "axis %v is neither \"device\" nor \"cluster\"", ax)
		}
		if m != nil && m.Devices < 1 {
			v.errf(op, "axis on a mesh without a device axis")
		}
	}
	if _, ok := op.Attrs["group"]; ok {
		g, ok := v.intAttr(op, "group")
		if ok && m != nil && (g < 1 || m.Devices < 1 || m.Devices%int(g) != 0) {
			v.errf(op, "%s", fmt.Sprintf("group %d does not divide the mesh's %d devices", g, m.Devices))
		}
	}
}

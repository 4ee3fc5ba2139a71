package check

import (
	"go/constant"
	"slices"
)

// Rules of meshes across devices: device_mesh(device: n), remote of a
// global pointer into a symmetric buffer, distributed_barrier's axis: and
// group:, signal and signal_wait (docs/distributed.md). The interpreter
// runs them; the GPU backend rejects them at their position.

// deviceMeshArg requires argument mesh to be a mesh with a device axis
// (or the declared type `mesh` of a helper, checked when it is inlined).
func (c *checker) deviceMeshArg(cc *callCtx, what string) (*Mesh, bool) {
	a := cc.get("mesh")
	m, ok := a.typ.(*Mesh)
	if !ok {
		c.argErr(cc, a, "a mesh (from device_mesh)")
		return nil, false
	}
	if !m.HasDevice && !m.Any {
		c.errorf(cc.at(a), "%s needs a mesh with a device axis (device_mesh(device: n)), not %s", what, m)
		return nil, false
	}
	return m, true
}

// remotePtr checks remote(ptr, rank, mesh) of a global pointer (or a tile
// of them) into a symmetric buffer: the same pointer on device rank.
func (c *checker) remotePtr(cc *callCtx, b *argv) Type {
	if p, _ := ElemOf(b.typ).(*Pointer); p.Space != Global {
		return c.argErr(cc, b, "a global pointer into a symmetric buffer (shared memory is remote(buf, rank, mesh) of an alloc'ed buffer)")
	}
	if !c.scalarInt(cc, cc.get("rank")) {
		return Invalid
	}
	if _, ok := c.deviceMeshArg(cc, "remote of a global pointer"); !ok {
		return Invalid
	}
	return b.typ
}

// flagArg requires argument ptr to be a scalar pointer to an integer flag
// of 32 or 64 bits, and value an integer scalar (converted to its dtype).
func (c *checker) flagArg(cc *callCtx) bool {
	a := cc.get("ptr")
	p, ok := a.typ.(*Pointer)
	if !ok || p.Space != Global || !slices.Contains([]DType{I32, U32, I64, U64}, p.Elem) {
		c.argErr(cc, a, "a global pointer to an i32, u32, i64 or u64 flag")
		return false
	}
	v := cc.get("value")
	c.convert(v, p.Elem)
	if d, ok := v.typ.(DType); !ok || !d.IsInteger() || d == I1 {
		c.argErr(cc, v, "a scalar integer")
		return false
	}
	return true
}

// strOf checks that keyword argument name, when given, is one of vals.
func (c *checker) strOf(cc *callCtx, name string, vals []string) (string, bool) {
	p := cc.get(name)
	if p == nil {
		return "", true
	}
	if p.typ != String || p.val == nil || !p.val.IsKnown() {
		c.argErr(cc, p, "a string: "+quoteList(vals))
		return "", false
	}
	s := constant.StringVal(p.val.Known)
	if !slices.Contains(vals, s) {
		c.errorf(cc.at(p), "%s: %s %q: want %s", cc.b.Name, name, s, quoteList(vals))
		return "", false
	}
	return s, true
}

func (c *checker) signal(cc *callCtx) Type {
	if !c.flagArg(cc) || !c.scalarInt(cc, cc.get("rank")) {
		return Invalid
	}
	if _, ok := c.deviceMeshArg(cc, "signal"); !ok {
		return Invalid
	}
	if _, ok := c.strOf(cc, "op", []string{"set", "add"}); !ok {
		return Invalid
	}
	return NoValue
}

func (c *checker) signalWait(cc *callCtx) Type {
	if !c.flagArg(cc) {
		return Invalid
	}
	if _, ok := c.strOf(cc, "cmp", []string{"eq", "ne", "ge", "gt", "le", "lt"}); !ok {
		return Invalid
	}
	return NoValue
}

// barrierSubMesh checks distributed_barrier's axis: ("device" or
// "cluster", of a device mesh) and group: (a compile-time k dividing the
// device count: the devices split into groups of k consecutive ranks).
func (c *checker) barrierSubMesh(cc *callCtx) bool {
	m := cc.get("mesh").typ.(*Mesh)
	ax, g := cc.get("axis"), cc.get("group")
	if ax == nil && g == nil {
		return true
	}
	if !m.HasDevice && !m.Any {
		what := ax
		if what == nil {
			what = g
		}
		c.errorf(cc.at(what), "distributed_barrier: %s of a mesh without a device axis (declare it with device_mesh(device: n))", what.name)
		return false
	}
	axis, ok := c.strOf(cc, "axis", []string{"device", "cluster"})
	if !ok {
		return false
	}
	if g == nil {
		return true
	}
	if axis == "cluster" {
		c.errorf(cc.at(g), "distributed_barrier: group: splits the devices, not the cluster (axis: \"cluster\")")
		return false
	}
	k, ok := c.constDim(cc, g, true)
	if !ok {
		return false
	}
	kn, ok1 := k.Const()
	dn, ok2 := m.Device.Const()
	if ok1 && ok2 && !m.Any && dn%kn != 0 {
		c.errorf(cc.at(g), "distributed_barrier: group %d does not divide the mesh's %d devices", kn, dn)
		return false
	}
	return true
}

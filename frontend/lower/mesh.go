package lower

import "github.com/tlego/tle/ir"

// Meshes across devices (device_mesh(device: n)): remote of a global
// pointer, signals and device barriers (docs/distributed.md).

// needDeviceMesh requires m to be a mesh with a device axis (a helper's `mesh`
// parameter is checked here, once it is bound).
func (s *fn) needDeviceMesh(a *args, m *ir.Value) *ir.Mesh {
	t, ok := m.Type.(*ir.Mesh)
	if !ok || t.Devices < 1 {
		s.errorf(s.argPos(a, "mesh"), "%s needs a mesh with a device axis (device_mesh(device: n)), not %s", a.b.CallName(), m.Type)
	}
	return t
}

func (s *fn) remotePtr(a *args, p *ir.Value) *val {
	if _, ok := ir.Elem(p.Type).(*ir.Pointer); !ok {
		s.errorf(s.argPos(a, "buf"), "remote of %s: want a shared-memory buffer or a global pointer", p.Type)
	}
	rank := s.argAs(a, "rank", ir.I32)
	m := s.valueArg(a, "mesh")
	s.needDeviceMesh(a, m)
	s.b.Pos = a.call.Pos()
	return &val{v: s.b.Value(ir.OpRemotePtr, p.Type, []*ir.Value{p, rank, m}, nil)}
}

// flag lowers a signal's or signal_wait's flag pointer and value (of the
// flag's dtype).
func (s *fn) flag(a *args) (p, v *ir.Value) {
	p = s.ptrArg(a, "ptr")
	ptr, _ := p.Type.(*ir.Pointer)
	if ptr == nil || !ptr.Elem.IsInt() {
		s.errorf(s.argPos(a, "ptr"), "the flag must be a pointer to an integer, not %s", p.Type)
	}
	return p, s.argAs(a, "value", ptr.Elem)
}

func (s *fn) signal(a *args) *val {
	p, v := s.flag(a)
	rank := s.argAs(a, "rank", ir.I32)
	m := s.valueArg(a, "mesh")
	s.needDeviceMesh(a, m)
	s.b.Pos = a.call.Pos()
	s.b.Create(ir.OpSignal, nil, []*ir.Value{p, rank, m, v}, ir.Attrs{"op": s.strKw(a, "op")})
	return &val{}
}

func (s *fn) signalWait(a *args) *val {
	p, v := s.flag(a)
	s.b.Pos = a.call.Pos()
	s.b.Create(ir.OpSignalWait, nil, []*ir.Value{p, v}, ir.Attrs{"cmp": s.strKw(a, "cmp")})
	return &val{}
}

// strKw is a compile-time string argument (its default when not given).
func (s *fn) strKw(a *args, name string) string {
	v := s.constArg(a, name)
	if v.str == nil {
		s.errorf(s.argPos(a, name), "%s must be a string", name)
	}
	return *v.str
}

// subMesh reads distributed_barrier's axis: and group: into attributes;
// nil (the op as before) when neither is given.
func (s *fn) subMesh(a *args, m *ir.Value) ir.Attrs {
	if !a.given("axis") && !a.given("group") {
		return nil
	}
	t := s.needDeviceMesh(a, m)
	attrs := ir.Attrs{}
	if a.given("axis") {
		attrs["axis"] = s.strKw(a, "axis")
	}
	if a.given("group") {
		g := s.constIntArg(a, "group")
		if g < 1 || t.Devices%int(g) != 0 {
			s.errorf(s.argPos(a, "group"), "distributed_barrier: group %d does not divide the mesh's %d devices", g, t.Devices)
		}
		attrs["group"] = g
	}
	return attrs
}

// given reports an argument written at the call (not a default).
func (a *args) given(name string) bool { return a.named[name] != nil }

package lower

import (
	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/ir"
)

// desc.load(offsets) and desc.store(offsets, value), Triton's register-level
// tensor-descriptor accesses, lowered into the explicit TMA ops as Triton's
// TMA lowering does: each site has a shared buffer of the block (and, for a
// load, an mbarrier) of its own, made once where the kernel starts, so that
// a site in a loop reuses them. A load reads the barrier's current phase,
// expects the block's bytes, copies, waits for that phase and loads the
// buffer; a store stores the tile into the buffer and copies it to the
// descriptor (the TMA store completes its reads of the buffer before the
// copy returns). The phase is read, not counted, so a site in any loop, a
// branch or a warp role waits for the right one.

// descOffsets gives the i32 offsets of desc.load or desc.store: a list, or
// a plain integer for a block of rank 1.
func (s *fn) descOffsets(a *args, d *ir.Desc) []*ir.Value {
	o := s.arg(a, "offsets")
	pos := s.argPos(a, "offsets")
	l := o.list
	if l == nil {
		l = []*val{o}
	}
	if len(l) != len(d.Block) {
		s.errorf(pos, "%s: the descriptor has rank %d, so it takes %d offsets, got %d", a.b.CallName(), len(d.Block), len(d.Block), len(l))
	}
	out := make([]*ir.Value, len(l))
	for i, x := range l {
		out[i] = s.materialize(x, ir.I32, pos)
	}
	return out
}

// descRecv is the descriptor desc.load or desc.store is called on.
func (s *fn) descRecv(a *args) (*ir.Value, *ir.Desc) {
	v := s.arg(a, a.b.Params[0].Name).v
	d, ok := v.Type.(*ir.Desc)
	if !ok {
		s.errorf(a.call.Pos(), "%s needs a tensor descriptor, not %s", a.b.CallName(), v.Type)
	}
	if !s.kernel() {
		s.errorf(a.call.Pos(), "%s is not supported in a func helper (its shared buffer and mbarrier are made where the kernel starts); call it in the kernel, or write copy, expect and wait", a.b.CallName())
	}
	return v, d
}

// hoist builds ops with build at the start of the kernel's body: a site's
// buffer and mbarrier are made once, however often the site runs. The ops
// take no operands, so their order there does not matter.
func (s *fn) hoist(pos diag.Pos, build func()) {
	blk, at := s.b.Block, s.b.Pos
	body := s.f.Body
	n := len(body.Ops)
	s.b.Block, s.b.Pos = body, pos
	build()
	s.b.Block, s.b.Pos = blk, at
	made := append([]*ir.Op(nil), body.Ops[n:]...)
	body.Ops = append(made, body.Ops[:n]...)
}

func (s *fn) descBuffer(d *ir.Desc, pos diag.Pos) (buf *ir.Value) {
	s.hoist(pos, func() {
		t := &ir.MemDesc{Shape: d.Block, Elem: d.Elem, Order: ir.RowMajor(len(d.Block)), Space: ir.Shared}
		buf = s.b.Value(ir.OpAlloc, t, nil, nil)
	})
	return buf
}

func (s *fn) descLoad(a *args) *val {
	dv, d := s.descRecv(a)
	offs := s.descOffsets(a, d)
	pos := a.call.Pos()
	buf := s.descBuffer(d, pos)
	var bar *ir.Value
	s.hoist(pos, func() {
		bar = s.b.Value(ir.OpBarrierAlloc, &ir.Barrier{}, nil, ir.Attrs{"count": int64(1)})
	})
	s.b.Pos = pos
	phase := s.b.Value(ir.OpBarrierPhase, ir.I32, []*ir.Value{bar}, nil)
	bytes := s.b.ConstInt(int64(ir.NumElements(d.Block)*d.Elem.Bytes()), ir.I32)
	// "of" names the call in errors about these ops (a target without TMA)
	s.b.Create(ir.OpBarrierExpect, nil, []*ir.Value{bar, bytes}, ir.Attrs{"of": "desc.load"})
	ops := append(append([]*ir.Value{dv, buf}, offs...), bar)
	s.b.Create(ir.OpCopy, nil, ops, ir.Attrs{"has_barrier": true, "of": "desc.load"})
	s.b.Create(ir.OpBarrierWait, nil, []*ir.Value{bar, phase}, nil)
	return &val{v: s.localLoad(buf)}
}

func (s *fn) descStore(a *args) *val {
	dv, d := s.descRecv(a)
	offs := s.descOffsets(a, d)
	pos := a.call.Pos()
	v := s.argAs(a, "value", ir.TileOf(d.Block, d.Elem))
	buf := s.descBuffer(d, pos)
	s.b.Pos = pos
	s.b.Create(ir.OpLocalStore, nil, []*ir.Value{buf, v}, nil)
	s.b.Create(ir.OpCopy, nil, append([]*ir.Value{buf, dv}, offs...), ir.Attrs{"has_barrier": false, "of": "desc.store"})
	return &val{}
}

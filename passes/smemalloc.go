package passes

import (
	"sort"

	"github.com/tlego/tle/tle/ir"
)

// Attributes the shared-memory allocator writes.
const (
	// AttrSmemOffset (int64, on an op) is the byte offset of the op's buffer
	// or scratch in the CTA's dynamic shared memory.
	AttrSmemOffset = "smem_offset"
	// AttrSmemBytes (int64, on a function) is the dynamic shared memory a
	// launch must provide.
	AttrSmemBytes = "smem_bytes"
)

// smallScratch is the largest reduction scratch kept apart from others.
const smallScratch = 2048

// SmemAlign is the alignment of every shared buffer: 128 bytes, so that the
// swizzle patterns map onto the 32 banks as designed.
const SmemAlign = 128

// StorageBytes is the size of one element of t's dtype in memory (i1 takes a
// byte, pointers 8).
func StorageBytes(elem ir.Type) int {
	switch e := elem.(type) {
	case *ir.Pointer:
		return 8
	case ir.DType:
		return e.Bytes()
	}
	return 0
}

// AccBytes is the size of the value a reduction or scan of dt accumulates in.
func AccBytes(dt ir.DType) int {
	if dt.Bits() > 32 {
		return 8
	}
	return 4
}

// ConvertInRegisters reports whether converting a tile of shape from src to
// dst only moves registers within each thread.
func ConvertInRegisters(src, dst *LinearLayout) bool {
	if !src.SameThreads(dst) {
		return false
	}
	have := map[string]bool{}
	for r := 0; r < src.NumRegs(); r++ {
		have[layIntsString(src.RegCoords(r))] = true
	}
	for r := 0; r < dst.NumRegs(); r++ {
		if !have[layIntsString(dst.RegCoords(r))] {
			return false
		}
	}
	return true
}

// VecWidth is how many elements of a layout's registers move as one vector
// along the last dimension of a shared scratch: the run of contiguous
// registers, at most 16 bytes.
func VecWidth(ll *LinearLayout, elemBytes int) int {
	v := ll.ContigRegs(len(ll.Shape) - 1)
	if m := layMaxInt(1, 16/elemBytes); v > m {
		v = m
	}
	return v
}

// ConvertScratch gives the padded row-major scratch a shared-memory layout
// conversion uses: elements of the last dimension are contiguous, and each
// row (of the last dimension) is followed by pad elements. It returns the
// strides in elements and the size in bytes.
func ConvertScratch(shape []int, src, dst *LinearLayout, elemBytes int) (strides []int, bytes int) {
	r := len(shape)
	pad := 0
	if r >= 2 {
		pad = layMaxInt(VecWidth(src, elemBytes), VecWidth(dst, elemBytes))
	}
	strides = make([]int, r)
	stride := 1
	for d := r - 1; d >= 0; d-- {
		strides[d] = stride
		n := shape[d]
		if d == r-1 {
			n += pad
		}
		stride *= n
	}
	return strides, stride * elemBytes
}

// WarpsAlong is the number of distinct warp groups along dim in ll.
func WarpsAlong(ll *LinearLayout, dim int) int {
	n := 1
	for _, b := range ll.Warp {
		if b[dim] != 0 {
			n *= 2
		}
	}
	return n
}

// ScratchBytes is the shared scratch op needs while it runs (0 for none).
func ScratchBytes(op *ir.Op) (int, error) {
	switch op.Kind {
	case OpConvertLayout:
		src, dst := layTileOf(op.Operands[0]), layTileOf(op.Results[0])
		ls, err := Linear(src.Layout, src.Shape)
		if err != nil {
			return 0, err
		}
		ld, err := Linear(dst.Layout, dst.Shape)
		if err != nil {
			return 0, err
		}
		if ConvertInRegisters(ls, ld) {
			return 0, nil
		}
		_, n := ConvertScratch(src.Shape, ls, ld, StorageBytes(src.Elem))
		return n, nil
	case ir.OpReduce, ir.OpScan:
		src := layTileOf(op.Operands[0])
		ls, err := Linear(src.Layout, src.Shape)
		if err != nil {
			return 0, err
		}
		axis := int(op.Attrs.Int("axis", 0))
		if op.Kind == ir.OpScan {
			return ScanScratchBytes(ls, axis, ir.ElemDType(src.Elem)), nil
		}
		nw := WarpsAlong(ls, axis)
		if nw == 1 {
			return 0, nil
		}
		return nw * ir.NumElements(src.Shape) / src.Shape[axis] * AccBytes(ir.ElemDType(src.Elem)), nil
	case ir.OpTrans, ir.OpReshape:
		src := layTileOf(op.Operands[0])
		if op.Kind == ir.OpTrans {
			if _, ok := src.Layout.(*Blocked); ok {
				if _, ok := layTileOf(op.Results[0]).Layout.(*Blocked); ok {
					return 0, nil
				}
			}
		}
		return ir.NumElements(src.Shape) * StorageBytes(src.Elem), nil
	case ir.OpAtomicRMW, ir.OpAtomicCAS:
		if _, ok := op.Operands[0].Type.(*ir.Pointer); ok {
			return 8, nil // the old value of a scalar atomic, broadcast from thread 0
		}
	case ir.OpPipeAlloc:
		if p, ok := op.Results[0].Type.(*ir.Pipe); ok {
			return LayoutPipe(p).Bytes, nil
		}
		return ir.SmemBytes(op.Results[0].Type), nil
	case ir.OpAlloc, ir.OpBarrierAlloc:
		return ir.SmemBytes(op.Results[0].Type), nil
	case ir.OpMakeDesc:
		return 128, nil // the tensor map, assembled in shared memory before it is copied out
	}
	return 0, nil
}

// PipeLayout places a pipe's parts inside its shared-memory allocation (byte
// offsets from its start): the full mbarriers (8 bytes per slot), the empty
// mbarriers, a 4-byte closed flag per slot, then each field's ring of
// Capacity slots, every slot of a field SlotStride[f] bytes apart (the
// field's bytes rounded up to SmemAlign, so every slot is aligned).
type PipeLayout struct {
	Full, Empty, Closed int
	Field               []int
	SlotStride          []int
	Bytes               int
}

// LayoutPipe lays out p (see PipeLayout).
func LayoutPipe(p *ir.Pipe) PipeLayout {
	c := p.Capacity
	l := PipeLayout{Full: 0, Empty: 8 * c, Closed: 16 * c}
	off := layAlignUp(20*c, SmemAlign)
	for _, f := range p.Fields {
		stride := layAlignUp(ir.NumElements(f.Shape)*f.Elem.Bytes(), SmemAlign)
		l.Field = append(l.Field, off)
		l.SlotStride = append(l.SlotStride, stride)
		off += stride * c
	}
	l.Bytes = off
	return l
}

// ScanScratchBytes is the scratch a scan along axis of a tile in ll needs:
// one partial per (warp along the axis, repetition along the axis, position
// in the other dimensions).
func ScanScratchBytes(ll *LinearLayout, axis int, dt ir.DType) int {
	nw := WarpsAlong(ll, axis)
	if nw == 1 {
		return 0
	}
	reps := ScanReps(ll, axis)
	return nw * reps * ir.NumElements(ll.Shape) / ll.Shape[axis] * AccBytes(dt)
}

// ScanReps is the number of times the CTA's threads cover the scan axis
// (register bases along axis above the lane and warp bases).
func ScanReps(ll *LinearLayout, axis int) int {
	top := 0
	for _, bs := range [][][]int{ll.Lane, ll.Warp} {
		for _, b := range bs {
			if b[axis] > top {
				top = b[axis]
			}
		}
	}
	n := 1
	for _, b := range ll.Reg {
		if b[axis] > top {
			n *= 2
		}
	}
	return n
}

// AllocateShared gives every shared buffer and scratch of every function an
// offset (see AllocateFuncShared).
func AllocateShared(m *ir.Module) error {
	return eachFunc(m, AllocateFuncShared)
}

type smemBuf struct {
	op          *ir.Op
	size        int
	start, end  int // live range in program order, inclusive
	offset      int
	placedIndex int
	align       int // beyond SmemAlign (WgmmaAlign for buffers wgmma reads)
}

// AllocateFuncShared assigns shared-memory offsets after layout assignment:
// alloc buffers live from their alloc to their last use (extended over any
// loop that uses them but does not contain the alloc), scratch of layout
// conversions, reductions and scans lives during its op only; buffers whose
// lifetimes do not overlap share bytes (first fit, largest first). It records
// each op's offset in AttrSmemOffset and the total in the function's
// AttrSmemBytes.
func AllocateFuncShared(f *ir.Func) error {
	index := map[*ir.Op]int{}
	loopEnd := map[*ir.Op]int{} // for/if/etc op -> index of its last nested op
	parentOf := map[*ir.Op]*ir.Op{}
	n := 0
	var walk func(b *ir.Block, parent *ir.Op)
	walk = func(b *ir.Block, parent *ir.Op) {
		for _, op := range b.Ops {
			index[op] = n
			n++
			parentOf[op] = parent
			for _, r := range op.Regions {
				walk(r, op)
			}
			loopEnd[op] = n - 1
		}
	}
	walk(f.Body, nil)

	// users of values, following views of buffers
	users := map[*ir.Value][]*ir.Op{}
	f.Walk(func(op *ir.Op) {
		for _, v := range op.Operands {
			users[v] = append(users[v], op)
		}
	})
	var bufs []*smemBuf
	var err error
	f.Walk(func(op *ir.Op) {
		if err != nil {
			return
		}
		size, e := ScratchBytes(op)
		if e != nil {
			err = e
			return
		}
		delete(op.Attrs, AttrSmemOffset)
		if size == 0 {
			return
		}
		b := &smemBuf{op: op, size: size, start: index[op], end: index[op]}
		if ws := enclosingWS(op, parentOf); ws != nil {
			// warp roles run concurrently: what one uses must not share
			// bytes with anything another uses while they run
			b.start, b.end = index[ws], loopEnd[ws]
		}
		if (op.Kind == ir.OpReduce || op.Kind == ir.OpScan) && size <= smallScratch {
			// small reduction scratch is not shared with other scratch: the
			// backend then needs no barrier between back-to-back reductions
			b.start, b.end = 0, n
		}
		if op.Kind == ir.OpAlloc && wgmmaReads(op, users) {
			b.align = WgmmaAlign
		}
		if (op.Kind == ir.OpAlloc || op.Kind == ir.OpPipeAlloc) && tmaSwizzledTarget(op, users) {
			b.align = max(b.align, TMASwizzleAlign)
		}
		if op.Kind == ir.OpAlloc || op.Kind == ir.OpPipeAlloc || op.Kind == ir.OpBarrierAlloc {
			// follow the buffer through its views
			seen := map[*ir.Value]bool{}
			var visit func(v *ir.Value)
			visit = func(v *ir.Value) {
				if seen[v] {
					return
				}
				seen[v] = true
				for _, u := range users[v] {
					e := index[u]
					if u.Kind == ir.OpWgmma {
						// read asynchronously until the wgmma_wait completing it
						if w := wgmmaCompletion(u); w != nil {
							e = index[w]
						} else {
							e = n
						}
					}
					// a use inside a loop that does not contain the alloc keeps
					// the buffer alive for the whole loop
					for p := parentOf[u]; p != nil; p = parentOf[p] {
						if p.Kind == ir.OpFor && !layContains(p, op, parentOf) {
							if le := loopEnd[p]; le > e {
								e = le
							}
						}
					}
					if e > b.end {
						b.end = e
					}
					for _, r := range u.Results {
						switch r.Type.(type) {
						case *ir.MemDesc, *ir.Slot:
							visit(r)
						case *ir.Tile:
							if p, ok := ir.Elem(r.Type).(*ir.Pointer); ok && p.Space != ir.Global {
								visit(r)
							}
						}
					}
				}
			}
			visit(op.Results[0])
		}
		bufs = append(bufs, b)
	})
	if err != nil {
		return err
	}
	sort.SliceStable(bufs, func(i, j int) bool {
		if bufs[i].size != bufs[j].size {
			return bufs[i].size > bufs[j].size
		}
		return bufs[i].start < bufs[j].start
	})
	var placed []*smemBuf
	total := 0
	for _, b := range bufs {
		off := 0
		for {
			moved := false
			for _, p := range placed {
				if p.start <= b.end && b.start <= p.end && off < p.offset+p.size && p.offset < off+b.size {
					off = layAlignUp(p.offset+p.size, layMaxInt(SmemAlign, b.align))
					moved = true
				}
			}
			if !moved {
				break
			}
		}
		b.offset = off
		placed = append(placed, b)
		b.op.Attrs[AttrSmemOffset] = int64(off)
		if e := off + b.size; e > total {
			total = e
		}
	}
	f.Attrs[AttrSmemBytes] = int64(layAlignUp(total, 16))
	return nil
}

func enclosingWS(op *ir.Op, parentOf map[*ir.Op]*ir.Op) *ir.Op {
	var ws *ir.Op
	for p := parentOf[op]; p != nil; p = parentOf[p] {
		if p.Kind == ir.OpWarpSpecialize {
			ws = p
		}
	}
	return ws
}

func layContains(loop, op *ir.Op, parentOf map[*ir.Op]*ir.Op) bool {
	for p := parentOf[op]; p != nil; p = parentOf[p] {
		if p == loop {
			return true
		}
	}
	return false
}

func layAlignUp(x, a int) int { return (x + a - 1) / a * a }

// TMASwizzleAlign is the alignment of a swizzled buffer that a TMA copy
// reads or writes: the hardware swizzles on shared address bits, so the
// pattern the buffer's layout describes (relative to its start) must begin
// on a 1024-byte boundary, the repeat of the 128B swizzle. Unswizzled TMA
// targets need 128 bytes, which every buffer has (SmemAlign).
const TMASwizzleAlign = 1024

// tmaSwizzledTarget reports a buffer some view of which, with a swizzled
// shared layout, is copied by TMA (a copy through a descriptor).
func tmaSwizzledTarget(op *ir.Op, users map[*ir.Value][]*ir.Op) bool {
	seen := map[*ir.Value]bool{}
	var visit func(v *ir.Value) bool
	visit = func(v *ir.Value) bool {
		if seen[v] {
			return false
		}
		seen[v] = true
		for _, u := range users[v] {
			if u.Kind == ir.OpCopy {
				if md, ok := v.Type.(*ir.MemDesc); ok {
					if sh, ok := md.Layout.(*Shared); ok && sh.MaxPhase > 1 {
						return true
					}
				}
			}
			for _, r := range u.Results {
				switch r.Type.(type) {
				case *ir.MemDesc, *ir.Slot:
					if visit(r) {
						return true
					}
				}
			}
		}
		return false
	}
	return visit(op.Results[0])
}

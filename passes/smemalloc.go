package passes

import (
	"fmt"

	"sort"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// smallScratch is the largest reduction scratch kept apart from others.
const smallScratch = 2048

// ConvertInRegisters reports whether converting a tile of shape from src to
// dst only moves registers within each thread.
func ConvertInRegisters(src, dst *gpu.LinearLayout) bool {
	if !src.SameThreads(dst) {
		return false
	}
	have := map[string]bool{}
	for r := 0; r < src.NumRegs(); r++ {
		have[fmt.Sprint(src.RegCoords(r))] = true
	}
	for r := 0; r < dst.NumRegs(); r++ {
		if !have[fmt.Sprint(dst.RegCoords(r))] {
			return false
		}
	}
	return true
}

// ScratchBytes is the shared scratch op needs while it runs (0 for none).
func ScratchBytes(op *ir.Op) (int, error) {
	switch op.Kind {
	case gpu.OpConvertLayout:
		src, dst := layTileOf(op.Operands[0]), layTileOf(op.Results[0])
		ls, err := gpu.Linear(src.Layout, src.Shape)
		if err != nil {
			return 0, err
		}
		ld, err := gpu.Linear(dst.Layout, dst.Shape)
		if err != nil {
			return 0, err
		}
		if ConvertInRegisters(ls, ld) {
			return 0, nil
		}
		_, n := gpu.ConvertScratch(src.Shape, ls, ld, gpu.StorageBytes(src.Elem))
		return n, nil
	case ir.OpReduce, ir.OpScan:
		src := layTileOf(op.Operands[0])
		ls, err := gpu.Linear(src.Layout, src.Shape)
		if err != nil {
			return 0, err
		}
		axis := int(op.Attrs.Int("axis", 0))
		var dts []ir.DType // kind combine may take several operands
		for _, x := range op.Operands {
			dts = append(dts, ir.ElemDType(x.Type))
		}
		if op.Kind == ir.OpScan {
			return gpu.ScanScratchBytes(ls, axis, dts...), nil
		}
		nw := gpu.WarpsAlong(ls, axis)
		if nw == 1 {
			return 0, nil
		}
		return nw * ir.NumElements(src.Shape) / src.Shape[axis] * gpu.AccBytesOf(dts...), nil
	case ir.OpPrefixCount:
		src := layTileOf(op.Operands[0])
		ls, err := gpu.Linear(src.Layout, src.Shape)
		if err != nil {
			return 0, err
		}
		return gpu.PrefixCountScratchBytes(ls), nil
	case ir.OpGather:
		src := layTileOf(op.Operands[0])
		return ir.NumElements(src.Shape) * gpu.StorageBytes(src.Elem), nil
	case ir.OpButterfly:
		src := layTileOf(op.Operands[0])
		ls, err := gpu.Linear(src.Layout, src.Shape)
		if err != nil {
			return 0, err
		}
		if _, _, ok := gpu.ButterflyMasks(ls, int(op.Attrs.Int("axis", 0)), int(op.Attrs.Int("mask", 0))); ok {
			return 0, nil
		}
		return ir.NumElements(src.Shape) * gpu.StorageBytes(src.Elem), nil
	case ir.OpTrans, ir.OpReshape:
		src := layTileOf(op.Operands[0])
		if JoinReshape(op) != "" {
			// interleave's and cat's: none where every thread keeps its registers
			ls, err := gpu.Linear(src.Layout, src.Shape)
			if err != nil {
				return 0, err
			}
			dst := layTileOf(op.Results[0])
			ld, err := gpu.Linear(dst.Layout, dst.Shape)
			if err != nil {
				return 0, err
			}
			if _, ok := gpu.ReshapeRegs(ls, ld); ok {
				return 0, nil
			}
		}
		if op.Kind == ir.OpTrans {
			if _, ok := src.Layout.(*gpu.Blocked); ok {
				if _, ok := layTileOf(op.Results[0]).Layout.(*gpu.Blocked); ok {
					return 0, nil
				}
			}
		}
		return ir.NumElements(src.Shape) * gpu.StorageBytes(src.Elem), nil
	case ir.OpFlip:
		// through shared memory only when warps hold the reversed halves
		src := layTileOf(op.Operands[0])
		ls, err := gpu.Linear(src.Layout, src.Shape)
		if err != nil {
			return 0, err
		}
		axis := int(op.Attrs.Int("axis", 0))
		x := make([]int, len(src.Shape))
		x[axis] = src.Shape[axis] - 1
		if _, _, warp, ok := ls.XorMasks(x); ok && warp == 0 {
			return 0, nil
		}
		return ir.NumElements(src.Shape) * gpu.StorageBytes(src.Elem), nil
	case ir.OpExtractSlice:
		// through shared memory only when threads need others' elements
		src, dst := layTileOf(op.Operands[0]), layTileOf(op.Results[0])
		ls, err := gpu.Linear(src.Layout, src.Shape)
		if err != nil {
			return 0, err
		}
		ld, err := gpu.Linear(dst.Layout, dst.Shape)
		if err != nil {
			return 0, err
		}
		if _, ok := gpu.SliceRegs(ls, ld, op.Attrs.Ints("starts")); ok {
			return 0, nil
		}
		return ir.NumElements(src.Shape) * gpu.StorageBytes(src.Elem), nil
	case ir.OpAtomicRMW, ir.OpAtomicCAS:
		if _, ok := op.Operands[0].Type.(*ir.Pointer); ok {
			return 8, nil // the old value of a scalar atomic, broadcast from thread 0
		}
	case ir.OpPipeAlloc:
		if p, ok := op.Results[0].Type.(*ir.Pipe); ok {
			return gpu.LayoutPipe(p).Bytes, nil
		}
		return ir.SmemBytes(op.Results[0].Type), nil
	case ir.OpAlloc, ir.OpBarrierAlloc:
		return ir.SmemBytes(op.Results[0].Type), nil
	case ir.OpMakeDesc:
		return 128, nil // the tensor map, assembled in shared memory before it is copied out
	}
	return 0, nil
}

// AllocateShared gives every shared buffer and scratch of every function an
// offset (see AllocateFuncShared), within limit bytes when it can
// (AllocateFuncSharedWithin).
func AllocateShared(m *ir.Module, limit int) error {
	return eachFunc(m, func(f *ir.Func) error { return AllocateFuncSharedWithin(f, limit) })
}

// AllocateFuncSharedWithin is AllocateFuncShared when what it places fits
// limit bytes (0: no limit). When it does not, small reduction scratch,
// which AllocateFuncShared keeps apart from all other scratch so that
// back-to-back reductions need no barrier, shares bytes like any scratch
// (the backend then orders the reductions with barriers, by their bytes):
// a kernel of many sequential reductions compiles rather than failing for
// shared memory, and one that fits is placed as before.
func AllocateFuncSharedWithin(f *ir.Func, limit int) error {
	if err := allocateFuncShared(f, true); err != nil || limit <= 0 || int(f.Attrs.Int(gpu.AttrSmemBytes, 0)) <= limit {
		return err
	}
	return allocateFuncShared(f, false)
}

type smemBuf struct {
	op          *ir.Op
	size        int
	start, end  int // live range in program order, inclusive
	offset      int
	placedIndex int
	align       int // beyond SmemAlign (WgmmaAlign for buffers wgmma reads)
	// role is the warp role whose code alone uses the scratch (nil: none,
	// or a buffer, which keeps the whole warp_specialize), ws its
	// warp_specialize and [wsStart, wsEnd] that op's range
	role, ws       *ir.Op
	wsStart, wsEnd int
}

// conflicts reports whether b and p may not share bytes: their live
// ranges overlap, or one belongs to a warp role and the other is live
// while that role's warp_specialize runs without belonging to the same
// role (roles run concurrently, so program order says nothing between
// them).
func (b *smemBuf) conflicts(p *smemBuf) bool {
	if p.start <= b.end && b.start <= p.end {
		return true
	}
	concurrent := func(x, y *smemBuf) bool {
		return x.ws != nil && x.role != y.role && y.start <= x.wsEnd && x.wsStart <= y.end
	}
	return concurrent(b, p) || concurrent(p, b)
}

// AllocateFuncShared assigns shared-memory offsets after layout assignment:
// alloc buffers live from their alloc to their last use (extended over any
// loop that uses them but does not contain the alloc), scratch of layout
// conversions, reductions and scans lives during its op only; buffers whose
// lifetimes do not overlap share bytes (first fit, largest first). Inside a
// warp_specialize the roles run concurrently: a buffer there lives for the
// whole region, and a role's scratch, which keeps its own range, shares
// bytes only with that role's other scratch (conflicts). It records
// each op's offset in AttrSmemOffset and the total in the function's
// AttrSmemBytes.
func AllocateFuncShared(f *ir.Func) error { return allocateFuncShared(f, true) }

// allocateFuncShared is AllocateFuncShared; apart keeps small reduction
// scratch apart from all other scratch.
func allocateFuncShared(f *ir.Func, apart bool) error {
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
		delete(op.Attrs, gpu.AttrSmemOffset)
		if size == 0 {
			return
		}
		b := &smemBuf{op: op, size: size, start: index[op], end: index[op]}
		if ws := enclosingWS(op, parentOf); ws != nil {
			// warp roles run concurrently: what one uses must not share
			// bytes with anything another uses while they run (conflicts);
			// within its role a buffer shares bytes as in straight code
			b.ws, b.wsStart, b.wsEnd = ws, index[ws], loopEnd[ws]
			if isScratch(op) {
				b.role = enclosingRole(op, parentOf)
			}
			if b.role == nil {
				b.start, b.end = b.wsStart, b.wsEnd
			}
		}
		if apart && (op.Kind == ir.OpReduce || op.Kind == ir.OpScan || op.Kind == ir.OpPrefixCount) && size <= smallScratch {
			// small reduction scratch is not shared with other scratch: the
			// backend then needs no barrier between back-to-back reductions
			// (or prefix counts)
			b.start, b.end = 0, n
		}
		if op.Kind == ir.OpAlloc && wgmmaReads(op, users) {
			b.align = gpu.WgmmaAlign
		}
		if (op.Kind == ir.OpAlloc || op.Kind == ir.OpPipeAlloc) && tmaSwizzledTarget(op, users) {
			b.align = max(b.align, gpu.TMASwizzleAlign)
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
						if w, loop := wgmmaReadsDone(u); w != nil {
							e = index[w]
							if loop != nil {
								// deferred: it reads on into the next
								// iteration, before the buffer's alloc
								b.start = min(b.start, index[loop])
							}
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
						case *ir.Pointer:
							// a scalar local_ptr
							if r.Type.(*ir.Pointer).Space != ir.Global {
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
				if b.conflicts(p) && off < p.offset+p.size && p.offset < off+b.size {
					off = layAlignUp(p.offset+p.size, max(gpu.SmemAlign, b.align))
					moved = true
				}
			}
			if !moved {
				break
			}
		}
		b.offset = off
		placed = append(placed, b)
		b.op.Attrs[gpu.AttrSmemOffset] = int64(off)
		if e := off + b.size; e > total {
			total = e
		}
	}
	f.Attrs[gpu.AttrSmemBytes] = int64(layAlignUp(total, 16))
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

// isScratch reports whether op's shared memory is scratch the op alone
// uses while it runs (a layout conversion, a reduction, a scan...), whose
// accesses the backend orders with barriers by their bytes; buffers
// (alloc, pipes, mbarriers, a descriptor's staging) are not: mbarrier
// polling and the async proxy (TMA, wgmma) escape that tracking, so within
// a warp_specialize they keep the whole region.
func isScratch(op *ir.Op) bool {
	switch op.Kind {
	case ir.OpAlloc, ir.OpPipeAlloc, ir.OpBarrierAlloc, ir.OpMakeDesc:
		return false
	}
	return true
}

// enclosingRole is the role op whose body holds op (nil: none).
func enclosingRole(op *ir.Op, parentOf map[*ir.Op]*ir.Op) *ir.Op {
	for p := parentOf[op]; p != nil; p = parentOf[p] {
		if p.Kind == ir.OpRole {
			return p
		}
	}
	return nil
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
					if sh, ok := md.Layout.(*gpu.Shared); ok && sh.MaxPhase > 1 {
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

// wgmmaReadsDone is the wgmma_wait after which mma no longer reads its
// shared operands: the one completing it in its block, or, for a product
// whose wait DotToWgmma deferred past its loop's iteration, the
// wgmma_wait(0) right after the loop, with that loop: such a product still
// reads its buffers in the next iteration, so they are live across the
// whole loop (nil when there is neither).
func wgmmaReadsDone(mma *ir.Op) (wait, deferredIn *ir.Op) {
	if w := wgmmaCompletion(mma); w != nil {
		return w, nil
	}
	loop := mma.Parent.Parent
	if loop == nil || loop.Kind != ir.OpFor || loop.Parent == nil {
		return nil, nil
	}
	ops := loop.Parent.Ops
	if i := loop.Parent.IndexOf(loop); i >= 0 {
		for _, o := range ops[i+1:] {
			if o.Kind == ir.OpWgmmaWait && o.Attrs.Int("pending", 0) == 0 {
				return o, loop
			}
		}
	}
	return nil, nil
}

package nvptx

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// Tensor descriptors and TMA (see doc.go, "TMA").

// DescParam describes a desc[T, B...] kernel parameter: the CUtensorMap the
// host must encode for it (element dtype, box and swizzle), so that the map
// matches the TMA instructions and the shared layout the backend chose.
type DescParam struct {
	Param   int    // index of the parameter in Kernel.Params
	DType   string // element dtype ("f32", "bf16", ...)
	Block   []int  // the declared block, outermost dimension first
	Box     []int  // the TMA box, outermost dimension first (the block, or a part of it when the block is split)
	Swizzle int    // shared-memory swizzle span in bytes: 0 (none), 32, 64 or 128
}

// DescParamBytes is the size of a CUtensorMap, passed by value.
const DescParamBytes = 128

// descParamType is the LLVM type of a desc parameter: a pointer to the
// 128-byte map, passed byval with align 64 (a grid constant).
func descParamType() types.Type { return ptrTo(descMapType, asGeneric) }

var descMapType = types.NewArray(DescParamBytes, types.I8)

// descParamAttrs marks a desc parameter byval align 64.
func descParamAttrs(p *llvm.Param, t ir.Type) {
	if _, ok := t.(*ir.Desc); ok {
		p.Attrs = append(p.Attrs, llvm.Byval{Typ: descMapType}, llvm.Align(64))
	}
}

// annotateGridConstant adds !{fn, !"grid_constant", !{i32 k...}} (1-based
// parameter indices) for the kernel's desc parameters: without it the map
// is copied to local memory and TMA cannot use it.
func annotateGridConstant(md *module, fn *llvm.Func, descs []DescParam) {
	if len(descs) == 0 {
		return
	}
	nd := md.m.NamedMetadataDefs["nvvm.annotations"]
	if nd == nil {
		nd = &metadata.NamedDef{Name: "nvvm.annotations"}
		md.m.NamedMetadataDefs["nvvm.annotations"] = nd
	}
	idx := &metadata.Tuple{}
	for _, d := range descs {
		idx.Fields = append(idx.Fields, i32c(int64(d.Param+1)))
	}
	idx.MetadataID = metadata.MetadataID(len(md.m.MetadataDefs))
	md.m.MetadataDefs = append(md.m.MetadataDefs, idx)
	t := &metadata.Tuple{Fields: []metadata.Field{fn, &metadata.String{Value: "grid_constant"}, idx}}
	t.MetadataID = metadata.MetadataID(len(md.m.MetadataDefs))
	md.m.MetadataDefs = append(md.m.MetadataDefs, t)
	nd.Nodes = append(nd.Nodes, t)
}

// tmaPlan is how one copy moves a block: boxes of the same shape at
// coordinate offsets (outermost first) from the copy's offsets, each to its
// byte offset in the shared view.
type tmaPlan struct {
	box     []int
	swizzle int
	boxes   []tmaBox
	align   int // byte alignment the view must have (128, or the swizzle's repeat)
}

type tmaBox struct {
	coord []int
	smem  int
}

// planTMA maps a block of desc d to a shared view md. The view is the
// block less any of its dimensions of extent 1 (ir.BlockViewDims: a [1, 1,
// 64, 128] block into a [64, 128] view), row-major; its shared layout
// decides the swizzle: none, or the 32/64/128B TMA swizzle when its rows
// are exactly that span wide and its XOR pattern is the hardware's
// (16-byte chunks, chunk c of row r at c ^ ((r / (128/S)) % (S/16))). A
// column-blocked view (rows wider than the span, as wgmma's layout of a
// [64, 128] bf16 tile) takes one box per column block, [.., rows, span];
// block dimensions outside the view's rows (a rank-3 to 5 block's) then
// take one index per box, as they stride over whole planes of the view.
// Each box dimension is at most 256 elements: a block longer than that
// along its outermost dimension of extent > 1 is split into several boxes
// there (contiguous runs of the view); the inner box is a multiple of 16
// bytes. Every plan is checked element by element against the view's
// address function (verifyTMAPlan).
func planTMA(d *ir.Desc, md *ir.MemDesc) (*tmaPlan, error) {
	rank := len(d.Block)
	if rank < 1 || rank > 5 {
		return nil, fmt.Errorf("TMA copies blocks of rank 1 to 5, not %d", rank)
	}
	vdims, ok := ir.BlockViewDims(d.Block, md.Shape)
	if md.Elem != d.Elem || !ok {
		return nil, fmt.Errorf("the block %v%s and the shared view %v%s differ (the view must be the block less any of its dimensions of extent 1)", d.Block, d.Elem, md.Shape, md.Elem)
	}
	if md.Space == ir.Cluster {
		return nil, fmt.Errorf("TMA into a remote view is not supported")
	}
	eb := d.Elem.Bytes()
	if d.Elem == ir.I1 || eb == 0 {
		return nil, fmt.Errorf("TMA of %s elements is not supported", d.Elem)
	}
	vr := len(md.Shape)
	sh := sharedLayoutOf(md)
	for i, o := range sh.Order {
		if o != vr-1-i {
			return nil, fmt.Errorf("the shared view's layout %s is not row-major (a transposed view cannot be a TMA target)", sh)
		}
	}
	p := &tmaPlan{box: append([]int(nil), d.Block...), align: 128}
	inner := d.Block[rank-1] * eb
	cols := d.Block[rank-1] // columns per box: the block's, or one column block's
	rowDim := -1            // column-blocked: the block dimension of the view's rows
	if sh.Blocked(md.Shape) {
		if vr < 2 || sh.MaxPhase <= 1 || vdims[vr-1] != rank-1 {
			return nil, fmt.Errorf("the shared view's column-blocked layout %s needs a swizzled block whose innermost dimension is the view's, has %v", sh, d.Block)
		}
		cols = sh.BlockCols
		if d.Block[rank-1]%cols != 0 {
			return nil, fmt.Errorf("the shared view's column blocks of %d elements do not divide its rows of %d", cols, d.Block[rank-1])
		}
		inner = cols * eb
		p.box[rank-1] = cols
		rowDim = vdims[vr-2]
	}
	if vr >= 2 && sh.MaxPhase > 1 {
		for _, s := range []int{32, 64, 128} {
			if inner == s && sh.Vec*eb == 16 && sh.PerPhase == 128/s && sh.MaxPhase == s/16 {
				p.swizzle = s
			}
		}
		if p.swizzle == 0 {
			return nil, fmt.Errorf("the shared view's swizzle %s (rows of %d bytes) matches no TMA swizzle mode "+
				"(rows of exactly 32, 64 or 128 bytes with the hardware's XOR pattern)", sh, inner)
		}
		p.align = 8 * p.swizzle
		if p.align < 128 {
			p.align = 128
		}
	}
	if rank == 1 || p.swizzle == 0 {
		if d.Block[rank-1] > 256 && rank > 1 {
			return nil, fmt.Errorf("a TMA box is at most 256 elements wide; the block's rows have %d (split the copy)", d.Block[rank-1])
		}
	}
	// the dimension split into boxes of at most 256: the outermost of
	// extent > 1 (rank 2: dimension 0), or the view's rows when
	// column-blocked, whose outer dimensions take one index per box
	split := 0
	for split < rank-2 && d.Block[split] == 1 {
		split++
	}
	if rowDim >= 0 {
		split = rowDim
		for k := 0; k < rowDim; k++ {
			p.box[k] = 1
		}
	}
	for k := split + 1; k < rank-1; k++ {
		if d.Block[k] > 256 {
			return nil, fmt.Errorf("a TMA box is at most 256 elements along each dimension; dimension %d of the block has %d", k, d.Block[k])
		}
	}
	n0 := d.Block[split]
	b0 := n0
	if b0 > 256 {
		b0 = 1
		for c := 256; c >= 1; c-- {
			if n0%c == 0 {
				b0 = c
				break
			}
		}
	}
	p.box[split] = b0
	if p.box[rank-1]*eb%16 != 0 {
		return nil, fmt.Errorf("the TMA box's inner dimension is %d bytes, not a multiple of 16", p.box[rank-1]*eb)
	}
	boxBytes := ir.NumElements(p.box) * eb
	if n0 > b0 && boxBytes%p.align != 0 {
		return nil, fmt.Errorf("the block %v splits into boxes %v of %d bytes, not a multiple of the %d-byte alignment TMA needs", d.Block, p.box, boxBytes, p.align)
	}
	nb := d.Block[rank-1] / cols
	blockBytes := n0 * cols * eb
	if nb > 1 && blockBytes%p.align != 0 {
		return nil, fmt.Errorf("the block %v's column blocks of %d bytes are not a multiple of the %d-byte alignment TMA needs", d.Block, blockBytes, p.align)
	}
	// boxes: the indices of the dimensions outside the split one (one per
	// box only when column-blocked), then row bands, then column blocks
	// (the inner loop: box j of a row band lands in column block j); each
	// box's shared offset is the view's unswizzled offset of its first
	// element
	dense := &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: sh.Order, BlockCols: sh.BlockCols}
	outer := make([]int, split) // the box's index along the dimensions outside split
	for {
		for k := 0; k < n0/b0; k++ {
			for j := 0; j < nb; j++ {
				c := make([]int, rank)
				copy(c, outer)
				c[split] += k * b0
				c[rank-1] += j * cols
				p.boxes = append(p.boxes, tmaBox{coord: c, smem: eb * gpu.SharedOffset(dense, md.Shape, viewCoords(c, vdims))})
			}
		}
		i := split - 1
		for ; i >= 0; i-- {
			if outer[i]+p.box[i] < d.Block[i] {
				outer[i] += p.box[i]
				break
			}
			outer[i] = 0
		}
		if i < 0 {
			break
		}
	}
	for _, b := range p.boxes {
		if b.smem%p.align != 0 {
			return nil, fmt.Errorf("the block %v's box at %v lands at byte %d of the view, not a multiple of the %d-byte alignment TMA needs", d.Block, b.coord, b.smem, p.align)
		}
	}
	if err := verifyTMAPlan(p, d, md, sh, vdims); err != nil {
		return nil, err
	}
	return p, nil
}

// viewCoords are the view coordinates of block coordinates c (vdims from
// ir.BlockViewDims: the block dimension of each view dimension).
func viewCoords(c, vdims []int) []int {
	v := make([]int, len(vdims))
	for i, k := range vdims {
		v[i] = c[k]
	}
	return v
}

// verifyTMAPlan checks a plan element by element: each box, written by
// TMA densely (innermost coordinate fastest) from its shared offset and
// swizzled on the address bits (16-byte chunk bits [4, 4+log2(S/16))
// XOR bits [7, ...): CUTLASS's Swizzle<3,4,3>, <2,4,3>, <1,4,3>), puts
// every element where the view's layout (gpu.SharedOffset) has it, and the
// boxes cover the block once.
func verifyTMAPlan(p *tmaPlan, d *ir.Desc, md *ir.MemDesc, sh *gpu.Shared, vdims []int) error {
	rank := len(d.Block)
	eb := d.Elem.Bytes()
	seen := make([]bool, ir.NumElements(d.Block))
	c := make([]int, rank)
	e := make([]int, rank)
	for _, b := range p.boxes {
		clear(e)
		for lin := 0; lin < ir.NumElements(p.box); lin++ {
			at := b.smem + lin*eb
			if p.swizzle > 0 {
				at ^= ((at >> 7) & (p.swizzle/16 - 1)) << 4
			}
			flat := 0
			for k := range c {
				c[k] = b.coord[k] + e[k]
				if c[k] >= d.Block[k] {
					return fmt.Errorf("internal: the TMA box at %v reaches %v, outside the block %v", b.coord, c, d.Block)
				}
				flat = flat*d.Block[k] + c[k]
			}
			if seen[flat] {
				return fmt.Errorf("internal: two TMA boxes write element %v of the block %v", c, d.Block)
			}
			seen[flat] = true
			if want := eb * gpu.SharedOffset(sh, md.Shape, viewCoords(c, vdims)); at != want {
				return fmt.Errorf("the TMA box %v at %v puts element %v at byte %d of the view, its layout %s at %d: no TMA box and swizzle serve this view",
					p.box, b.coord, c, at, sh, want)
			}
			for k := rank - 1; k >= 0; k-- {
				if e[k]++; e[k] < p.box[k] {
					break
				}
				e[k] = 0
			}
		}
	}
	if n := len(p.boxes) * ir.NumElements(p.box); n != len(seen) {
		return fmt.Errorf("internal: the TMA boxes cover %d of the block %v's %d elements", n, d.Block, len(seen))
	}
	return nil
}

// copyOperands splits a copy's operands: the descriptor, the shared view,
// whether it is a load, the offsets and the barrier (nil for a store).
func copyOperands(op *ir.Op) (desc, view *ir.Value, load bool, offs []*ir.Value, bar *ir.Value) {
	ops := op.Operands
	if op.Attrs.Bool("has_barrier") && len(ops) > 2 {
		bar, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	if len(ops) < 2 {
		return nil, nil, false, nil, nil
	}
	desc, view, load = ops[0], ops[1], true
	if _, ok := ops[1].Type.(*ir.Desc); ok {
		desc, view, load = ops[1], ops[0], false
	}
	return desc, view, load, ops[2:], bar
}

// posOf is an op's position for messages: file:line:col when the module's
// source is known (see checkTMA), else the offset.
func posOf(file *diag.File, op *ir.Op) string {
	if file != nil {
		return file.Position(op.Pos).String()
	}
	return fmt.Sprintf("copy at %v", op.Pos)
}

// descPlans plans every TMA copy and returns, for each descriptor value
// copies go through (a desc parameter or a make_desc), the map it needs:
// copies through one descriptor must agree on box and swizzle. Positions
// are file:line:col with the module's source file.
func descPlans(f *ir.Func, file *diag.File) (map[*ir.Value]*tmaPlan, error) {
	plans := map[*ir.Value]*tmaPlan{}
	var err error
	f.Walk(func(op *ir.Op) {
		if err != nil || op.Kind != ir.OpCopy {
			return
		}
		desc, view, _, _, _ := copyOperands(op)
		if desc == nil {
			return
		}
		d, _ := desc.Type.(*ir.Desc)
		md, _ := view.Type.(*ir.MemDesc)
		if d == nil || md == nil {
			err = fmt.Errorf("%s: copies %s to %s", posOf(file, op), op.Operands[0].Type, op.Operands[1].Type)
			return
		}
		p, e := planTMA(d, md)
		if e != nil {
			err = fmt.Errorf("%s: copy: %v", posOf(file, op), e)
			return
		}
		if q, ok := plans[desc]; ok && (q.swizzle != p.swizzle || !slices.Equal(q.box, p.box)) {
			err = fmt.Errorf("%s: copy: descriptor %s is used with box %v and swizzle %dB here but box %v and swizzle %dB elsewhere; one map serves every copy",
				posOf(file, op), descName(f, desc), p.box, p.swizzle, q.box, q.swizzle)
			return
		}
		plans[desc] = p
	})
	return plans, err
}

// descName names a descriptor value in messages.
func descName(f *ir.Func, v *ir.Value) string {
	for i, a := range f.Body.Args {
		if a == v {
			return f.Params[i].Name
		}
	}
	if v.Name != "" {
		return v.Name
	}
	return "made by make_desc"
}

// unsplitPlan is the map of a descriptor no copy uses: its block, at most
// 256 elements along each dimension, unswizzled.
func unsplitPlan(d *ir.Desc) *tmaPlan {
	p := &tmaPlan{box: append([]int(nil), d.Block...)}
	for k := range p.box {
		p.box[k] = min(p.box[k], 256)
	}
	return p
}

// prefetchDescs has thread 0 prefetch each desc parameter a copy uses
// into the SM's descriptor cache at the kernel's entry (prefetch.tensormap,
// as CUTLASS's kernels do), so that the first TMA through it does not wait
// for the 128-byte map to come from memory after the kernel's other
// start-up loads.
func (g *gen) prefetchDescs(f *ir.Func, params []*llvm.Param) {
	pf := g.md.inlineAsm(types.Void, []types.Type{types.I32, types.I64},
		"{\n\t.reg .pred %p;\n\tsetp.eq.u32 %p, $0, 0;\n\t@%p prefetch.tensormap [$1];\n}", "r,l,~{memory}", true)
	for i, prm := range f.Params {
		if _, ok := prm.Type.(*ir.Desc); !ok || !usedByCopy(g.users[f.Body.Args[i]]) {
			continue
		}
		g.cur.NewCall(pf, g.tid, g.cur.NewPtrToInt(params[i], types.I64))
	}
}

// usedByCopy reports whether one of ops is a copy (a TMA through the desc).
func usedByCopy(ops []*ir.Op) bool {
	for _, op := range ops {
		if op.Kind == ir.OpCopy {
			return true
		}
	}
	return false
}

// descParams returns the map each desc parameter needs, from the plans of
// descPlans.
func descParams(f *ir.Func, plans map[*ir.Value]*tmaPlan) []DescParam {
	var out []DescParam
	for i, prm := range f.Params {
		d, ok := prm.Type.(*ir.Desc)
		if !ok {
			continue
		}
		p, ok := plans[f.Body.Args[i]]
		if !ok {
			p = unsplitPlan(d)
		}
		out = append(out, DescParam{Param: i, DType: d.Elem.String(), Block: append([]int(nil), d.Block...), Box: p.box, Swizzle: p.swizzle})
	}
	return out
}

// checkTMA reports, at their .tle positions, what the TMA lowering refuses
// before any code is generated: copies whose block and shared view no TMA
// box and swizzle can serve, copies through a descriptor that is neither a
// desc parameter nor a make_desc, and make_desc where the device-side map
// cannot be built (inside a warp role; an innermost stride that is not the
// constant 1, which TMA does not have).
func checkTMA(m *ir.Module) error {
	var err error
	for _, f := range m.Funcs {
		if !f.Kernel {
			continue
		}
		args := map[*ir.Value]bool{}
		for _, a := range f.Body.Args {
			args[a] = true
		}
		var axes *gpu.AxisAnalysis // for the constant innermost strides, when there is a make_desc
		f.Walk(func(op *ir.Op) {
			if err != nil {
				return
			}
			at := m.File.Position(op.Pos).String()
			switch op.Kind {
			case ir.OpMakeDesc:
				d, _ := op.Results[0].Type.(*ir.Desc)
				if d == nil || len(d.Block) < 1 || len(d.Block) > 5 {
					err = fmt.Errorf("%s: make_desc: TMA maps have rank 1 to 5", at)
					return
				}
				if _, ok := tensormapElemTypes[d.Elem]; !ok {
					err = fmt.Errorf("%s: make_desc: TMA does not move %s elements", at, d.Elem)
					return
				}
				if p := unsplitPlan(d); p.box[len(p.box)-1]*d.Elem.Bytes()%16 != 0 {
					err = fmt.Errorf("%s: make_desc: the block's rows are %d bytes; TMA needs a multiple of 16", at, p.box[len(p.box)-1]*d.Elem.Bytes())
					return
				}
				if gpu.EnclosingRole(op) != nil {
					err = fmt.Errorf("%s: make_desc inside a warp role is not supported on the GPU: make the descriptor before warp_specialize (its map is written by the CTA's first warp, then the whole CTA synchronises)", at)
					return
				}
				if axes == nil {
					axes = gpu.AnalyzeAxes(f)
				}
				if n := len(d.Block); len(op.Operands) != 1+2*n || !knownConst(axes.Info(op.Operands[2*n]), 1) {
					err = fmt.Errorf("%s: make_desc on the GPU needs the innermost stride to be the constant 1 (TMA moves whole rows; only the outer strides are free)", at)
					return
				}
			case ir.OpCopy:
				desc, _, _, _, _ := copyOperands(op)
				if desc == nil {
					return
				}
				if _, isDesc := desc.Type.(*ir.Desc); isDesc && !args[desc] && (desc.Def == nil || desc.Def.Kind != ir.OpMakeDesc) {
					err = fmt.Errorf("%s: copy: the descriptor must be a desc parameter of the kernel or a make_desc result", at)
				}
			}
		})
		if err != nil {
			return err
		}
		if _, e := descPlans(f, m.File); e != nil {
			return fmt.Errorf("%s: %w", f.Name, e)
		}
	}
	return err
}

// knownConst reports whether the axis analysis knows a value to be c.
func knownConst(a *gpu.AxisInfo, c int64) bool { return a != nil && a.Value != nil && *a.Value == c }

// knownAlign is a power of two dividing the i32 value v (1 when nothing is
// known): constants, and sums, products and shifts of them.
func knownAlign(v value.Value) int {
	const top = 1 << 20
	if c, ok := v.(*constant.Int); ok {
		if c.X.Sign() == 0 {
			return top
		}
		if !c.X.IsInt64() {
			return 1
		}
		return min(top, 1<<bits.TrailingZeros64(uint64(c.X.Int64())))
	}
	switch i := v.(type) {
	case *llvm.InstAdd:
		return min(knownAlign(i.X), knownAlign(i.Y))
	case *llvm.InstOr:
		return min(knownAlign(i.X), knownAlign(i.Y))
	case *llvm.InstMul:
		return min(top, knownAlign(i.X)*knownAlign(i.Y))
	case *llvm.InstShl:
		if s, ok := constInt(i.Y); ok && s >= 0 && s < 20 {
			return min(top, knownAlign(i.X)<<uint(s))
		}
	}
	return 1
}

// tmaCopy lowers copy() through a descriptor: a TMA load (desc -> shared,
// completing its bytes on the barrier) or store (shared -> desc), issued by
// the elected thread, one cp.async.bulk.tensor per box of the plan. The
// language's offsets are outermost first; TMA coordinates innermost first.
func (g *gen) tmaCopy(op *ir.Op) {
	descV, viewV, load, offV, barV := copyOperands(op)
	if descV == nil {
		g.failf("copy needs a source and a destination")
	}
	d, _ := descV.Type.(*ir.Desc)
	md, _ := viewV.Type.(*ir.MemDesc)
	if d == nil || md == nil {
		g.failf("copies %s to %s; the GPU supports TMA copies between a desc and a shared-memory view", op.Operands[0].Type, op.Operands[1].Type)
	}
	dv := g.val(descV)
	if dv.s == nil || !dv.s.Type().Equal(descParamType()) {
		g.failf("the descriptor must be a desc parameter of the kernel or a make_desc result")
	}
	rank := len(d.Block)
	if len(offV) != rank {
		g.failf("copy through a rank-%d descriptor needs %d offsets, got %d", rank, rank, len(offV))
	}
	p, err := planTMA(d, md)
	if err != nil {
		g.failf("%v", err)
	}
	ref := g.val(viewV).mem
	if ref == nil || ref.cluster {
		g.failf("the copy's shared-memory side must be a local buffer view")
	}
	if a := knownAlign(ref.off); a < p.align {
		g.failf("the shared view is only known to be %d-byte aligned; TMA needs %d (a slot of a buffer whose slots are not multiples of %d bytes?)", a, p.align, p.align)
	}
	if sb := g.md.sharedBase(); int(sb.Align) < p.align {
		sb.Align = llvm.Align(p.align)
	}
	offs := make([]value.Value, rank)
	for k, o := range offV {
		offs[k] = g.index32(o)
	}
	tmap := g.cur.NewPtrToInt(dv.s, types.I64)
	r := refRange(ref)
	if load {
		if barV == nil {
			g.failf("a TMA load needs barrier: (the mbarrier its bytes complete on)")
		}
		bar := g.val(barV).bar
		// earlier generic accesses to the bytes the copy overwrites: writes
		// need a proxy fence, and both a barrier, before the async write;
		// a barrier since then orders the threads, not the proxies, so a
		// write of the role before it (or on an earlier trip round a loop)
		// still needs the fence
		if anyOverlap(g.sync.writes, r) || g.genericWritesReach(op, []rng{smemBytes(smemRoot(viewV))}, nil) {
			g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "fence.proxy.async.shared::cta;", "~{memory}", true))
			g.barrier()
		} else if anyOverlap(g.sync.reads, r) {
			g.barrier()
		}
		mbar := g.smemAddr(bar.off)
		for _, b := range p.boxes {
			g.tmaIssue(fmt.Sprintf("cp.async.bulk.tensor.%dd.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {%s}], [$3];", rank, coordList(rank, 4)),
				g.smemAddr(g.add(ref.off, i32c(int64(b.smem)))), tmap, mbar, g.boxCoords(offs, b.coord))
		}
		return
	}
	if barV != nil {
		g.failf("a TMA store takes no barrier")
	}
	// every thread's generic writes to the view, then the async proxy reads it
	g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "fence.proxy.async.shared::cta;", "~{memory}", true))
	g.barrier()
	for _, b := range p.boxes {
		g.tmaIssue(fmt.Sprintf("cp.async.bulk.tensor.%dd.global.shared::cta.bulk_group [$2, {%s}], [$1];", rank, coordList(rank, 3)),
			g.smemAddr(g.add(ref.off, i32c(int64(b.smem)))), tmap, nil, g.boxCoords(offs, b.coord))
	}
	g.tmaIssue("cp.async.bulk.commit_group;\n\t@%p cp.async.bulk.wait_group.read 0;", nil, nil, nil, nil)
	// a later write to the view waits (barrier) for the elected thread,
	// which has waited for the TMA engine's reads
	g.sync.reads = append(g.sync.reads, r)
}

// coordList is "$k+rank-1, ..., $k": TMA coordinates innermost first from
// operands given outermost first.
func coordList(rank, first int) string {
	var s []string
	for k := rank - 1; k >= 0; k-- {
		s = append(s, fmt.Sprintf("$%d", first+k))
	}
	return strings.Join(s, ", ")
}

// boxCoords are the copy's offsets plus a box's coordinate offset.
func (g *gen) boxCoords(offs []value.Value, c []int) []value.Value {
	out := make([]value.Value, len(offs))
	for k := range offs {
		out[k] = g.add(offs[k], i32c(int64(c[k])))
	}
	return out
}

// tmaIssue runs one instruction in the elected thread (thread 0 of the CTA
// or role): $0 is the predicate, $1 the shared address, $2 the map, $3 the
// mbarrier (when given), then the coordinates; nil operands are left out
// and the numbering closes up, so callers pass the operands their text
// uses.
func (g *gen) tmaIssue(instr string, smem, tmap, mbar value.Value, coords []value.Value) {
	args := []value.Value{g.predicate(g.firstThread())}
	ptys := []types.Type{types.I32}
	cons := []string{"r"}
	for _, a := range []value.Value{smem, tmap, mbar} {
		if a == nil {
			continue
		}
		args = append(args, a)
		ptys = append(ptys, a.Type())
		cons = append(cons, addrCons(a))
	}
	for _, c := range coords {
		args = append(args, c)
		ptys = append(ptys, types.I32)
		cons = append(cons, "r")
	}
	cons = append(cons, "~{memory}")
	asm := "{\n\t.reg .pred %p;\n\tsetp.ne.b32 %p, $0, 0;\n\t@%p " + instr + "\n}"
	g.cur.NewCall(g.md.inlineAsm(types.Void, ptys, asm, strings.Join(cons, ","), true), args...)
}

// Device-side tensor maps (make_desc). The kernel gets a hidden last
// parameter, a global scratch buffer of Kernel.ScratchBytes per program
// that the launcher allocates; make_desc number i of program p writes its
// 128-byte map at scratch + (p * n + i) * 128. As in Triton, the map is
// assembled in shared memory (zeroed by the first warp, then each field set
// with tensormap.replace by thread 0) and copied to global memory with
// tensormap.cp_fenceproxy (release); the CTA synchronises and every thread
// acquires the map with fence.proxy.tensormap::generic. A make_desc in a loop rewrites
// the same map: copies issued through the previous one must have completed
// (their barrier waited on), as for a shared buffer. The field values are
// what ptxas of CUDA 13 and the 580 driver read (strides in bytes, at PTX
// 8.3 and 9.0); older ptxas read the strides in 16-byte units (Triton
// works around it below PTX 8.6), which would make wrong maps.

// scratchParamName is the hidden parameter's name.
const scratchParamName = "tle_scratch"

// TensormapBytes is the size of a tensor map (CUtensorMap).
const TensormapBytes = 128

// tensormapElemTypes are tensormap.replace's elemtype codes (PTX ISA;
// not the driver's CUtensorMapDataType numbering). Narrow integers and fp8
// move as unsigned bits.
var tensormapElemTypes = map[ir.DType]int{
	ir.U8: 0, ir.I8: 0, ir.F8E4M3: 0, ir.F8E5M2: 0,
	ir.U16: 1, ir.I16: 1, ir.U32: 2, ir.I32: 3, ir.U64: 4, ir.I64: 5,
	ir.F16: 6, ir.F32: 7, ir.F64: 9, ir.BF16: 10,
}

// makeDescs numbers the kernel's make_desc ops (their map's slot in the
// program's scratch).
func makeDescs(f *ir.Func) map[*ir.Op]int {
	idx := map[*ir.Op]int{}
	f.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpMakeDesc {
			idx[op] = len(idx)
		}
	})
	return idx
}

// makeDesc writes the map of a make_desc into the program's scratch (see
// above) and gives the descriptor as a generic pointer to it.
func (g *gen) makeDesc(op *ir.Op) {
	d, _ := op.Results[0].Type.(*ir.Desc)
	if d == nil {
		g.failf("make_desc must give a !desc")
	}
	if g.scratch == nil {
		g.failf("internal: make_desc without the scratch parameter")
	}
	rank := len(d.Block)
	if len(op.Operands) != 1+2*rank {
		g.failf("make_desc of rank %d needs a pointer, %d sizes and %d strides; got %d operands", rank, rank, rank, len(op.Operands))
	}
	et, ok := tensormapElemTypes[d.Elem]
	if !ok {
		g.failf("TMA does not move %s elements", d.Elem)
	}
	p := g.descPlan[op.Results[0]]
	if p == nil {
		p = unsplitPlan(d)
	}
	// the map's global address: scratch + (program * n + index) * 128
	ctaid := func(name string, c byte) value.Value {
		return g.cur.NewZExt(g.cur.NewCall(g.md.intrinsic("llvm.nvvm.read.ptx.sreg."+name+"."+string(c), true, types.I32)), types.I64)
	}
	pid := g.cur.NewAdd(ctaid("ctaid", 'x'), g.cur.NewMul(ctaid("nctaid", 'x'),
		g.cur.NewAdd(ctaid("ctaid", 'y'), g.cur.NewMul(ctaid("nctaid", 'y'), ctaid("ctaid", 'z')))))
	slot := g.cur.NewAdd(g.cur.NewMul(pid, i64c(int64(len(g.descIndex)))), i64c(int64(g.descIndex[op])))
	gmap := g.cur.NewGetElementPtr(types.I8, g.scratch, g.cur.NewMul(slot, i64c(TensormapBytes)))
	// the shared staging map (this op's scratch), 128-byte aligned
	off := g.smemOffset()
	g.beforeSharedWriteR(rng{off, off + TensormapBytes})
	if sb := g.md.sharedBase(); int(sb.Align) < TensormapBytes {
		sb.Align = TensormapBytes
	}
	smap := g.smemAddr(i32c(int64(off)))

	// one asm block, so nothing is scheduled between its parts: $0 = tid,
	// $1 = the shared map, $2 = the global map, $3 = the tensor's address,
	// then the sizes (b32) and the outer strides in bytes (b64).
	args := []value.Value{g.tid, smap, gmap, g.cur.NewPtrToInt(g.scalar(op.Operands[0]), types.I64)}
	ptys := []types.Type{types.I32, types.I32, gmap.Type(), types.I64}
	cons := []string{"r", "r", "l", "l"}
	var b strings.Builder
	b.WriteString("{\n\t.reg .pred %w, %t;\n\t.reg .b32 %a;\n")
	b.WriteString("\tsetp.lt.u32 %w, $0, 32;\n\tsetp.eq.u32 %t, $0, 0;\n")
	b.WriteString("\tshl.b32 %a, $0, 2;\n\tadd.u32 %a, %a, $1;\n\t@%w st.shared.b32 [%a], 0;\n\tbar.warp.sync -1;\n")
	rep := func(field string, ord int, val string, wide bool) {
		w := "b32"
		if wide {
			w = "b64"
		}
		if ord >= 0 {
			fmt.Fprintf(&b, "\t@%%t tensormap.replace.tile.%s.shared::cta.b1024.%s [$1], %d, %s;\n", field, w, ord, val)
		} else {
			fmt.Fprintf(&b, "\t@%%t tensormap.replace.tile.%s.shared::cta.b1024.%s [$1], %s;\n", field, w, val)
		}
	}
	rep("global_address", -1, "$3", true)
	rep("rank", -1, fmt.Sprint(rank-1), false)
	// TMA dimensions run innermost first; the language's outermost first
	for k := 0; k < rank; k++ {
		rep("box_dim", k, fmt.Sprint(p.box[rank-1-k]), false)
	}
	eb := int64(d.Elem.Bytes())
	for k := 0; k < rank; k++ {
		args = append(args, g.index32(op.Operands[rank-k]))
		ptys, cons = append(ptys, types.I32), append(cons, "r")
		rep("global_dim", k, fmt.Sprintf("$%d", len(args)-1), false)
	}
	for k := 1; k < rank; k++ {
		sv := op.Operands[1+rank+rank-1-k]
		// in bytes: what ptxas of CUDA 13 and the 580 driver read, at PTX
		// 8.3 and 9.0 alike (measured; older ptxas read 16-byte units, the
		// bug Triton's TMAToLLVM works around below PTX 8.6)
		stride := g.cur.NewMul(g.cast(g.scalar(sv), ir.ElemDType(sv.Type), ir.I64), i64c(eb))
		args = append(args, stride)
		ptys, cons = append(ptys, types.I64), append(cons, "l")
		rep("global_stride", k-1, fmt.Sprintf("$%d", len(args)-1), true)
	}
	for k := 0; k < rank; k++ {
		rep("element_stride", k, "1", false)
	}
	rep("elemtype", -1, fmt.Sprint(et), false)
	rep("interleave_layout", -1, "0", false)
	mode, ok := map[int]int{0: 0, 32: 1, 64: 2, 128: 3}[p.swizzle]
	if !ok {
		g.failf("internal: TMA swizzle of %d bytes", p.swizzle)
	}
	rep("swizzle_mode", -1, fmt.Sprint(mode), false)
	rep("fill_mode", -1, "0", false)
	b.WriteString("\tbar.warp.sync -1;\n")
	b.WriteString("\t@%w tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$2], [$1], 128;\n}")
	g.cur.NewCall(g.md.inlineAsm(types.Void, ptys, b.String(), strings.Join(cons, ",")+",~{memory}", true), args...)
	// after the barrier (the first warp has released the map, and read
	// the staging bytes), every thread acquires it: whichever thread of
	// whichever role issues a copy through it
	g.barrier()
	g.cur.NewCall(g.md.inlineAsm(types.Void, []types.Type{gmap.Type()}, "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l,~{memory}", true), gmap)
	generic := g.cur.NewAddrSpaceCast(gmap, ptrTo(types.I8, asGeneric))
	g.set(op.Results[0], &tval{s: g.cur.NewBitCast(generic, descParamType())})
}

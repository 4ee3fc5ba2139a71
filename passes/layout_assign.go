package passes

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// AssignLayouts gives every tile of every function a distributed layout and
// every shared-memory buffer a shared layout (see AssignFuncLayouts).
func AssignLayouts(m *ir.Module, numWarps int) error {
	for _, f := range m.Funcs {
		if err := AssignFuncLayouts(f, numWarps); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// AssignFuncLayouts lays out f's tiles for numWarps warps (f's num_warps
// attribute, when set, wins; the count used is recorded there).
//
// The pass follows Triton's anchors-and-rematerialisation scheme:
//  1. Values are "weak" when they are cheap to recompute in any layout
//     (constants, arange, splat, and element-wise / broadcast / expand_dims
//     chains of weak values: index and pointer arithmetic, masks) and "strong"
//     otherwise (loads, dots, reductions, loop-carried results...).
//  2. Strong values get layouts forward from their anchors: global memory
//     accesses take a blocked layout chosen from the pointer's contiguity and
//     alignment for 16-byte coalesced access; dot takes the mma.sync layout
//     (dot-operand layouts for a and b); reductions take the slice of their
//     operand's layout; element-wise ops, broadcasts and expand_dims follow
//     their strong operands; loop-carried values take what the body yields.
//  3. Each use then gets its operand in the layout it needs: a weak operand
//     is recomputed (cloned) in that layout, a strong operand in another
//     layout gets a convert_layout (none when the layouts place elements
//     identically), and a 16-bit dot operand is staged through a swizzled
//     shared buffer (alloc + local_load, read with ldmatrix).
//  4. Dead ops (the original weak chains, redundant converts) are deleted.
func AssignFuncLayouts(f *ir.Func, numWarps int) error {
	if nw := f.Attrs.Int(gpu.AttrNumWarps, 0); nw > 0 {
		numWarps = int(nw)
	}
	if numWarps <= 0 {
		numWarps = 4
	}
	if err := sinkIntoRoles(f); err != nil {
		return err
	}
	threadInFlightWaits(f)
	ctaWarps := 0
	if total := gpu.SpecializedWarps(f); total > 0 {
		// the CTA is made of the roles' warps (see layout_roles.go); code
		// outside the roles is laid out over OutsideWarps of them
		if total > 32 {
			return fmt.Errorf("the warp roles occupy %d warps (each padded to a warpgroup), more than 32", total)
		}
		ctaWarps = total
		numWarps = gpu.OutsideWarps(total)
	}
	if !layIsPow2(numWarps) {
		return fmt.Errorf("num_warps %d is not a power of two", numWarps)
	}
	f.Attrs[gpu.AttrNumWarps] = int64(numWarps)
	if ctaWarps > 0 {
		f.Attrs[gpu.AttrNumWarps] = int64(ctaWarps)
	}
	s := &assigner{
		f: f, nw: numWarps, axes: gpu.AnalyzeAxes(f),
		weak: map[*ir.Value]bool{}, layout: map[*ir.Value]ir.Layout{}, desire: map[*ir.Value]ir.Layout{},
		memo: map[memoKey]*ir.Value{}, users: map[*ir.Value][]*ir.Op{}, weakClone: map[*ir.Value]bool{},
		staged: map[*ir.Op]*ir.Op{}, chained: map[*ir.Op]bool{}, walked: map[*ir.Block]int{},
	}
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				if e, ok := r.(layoutError); ok {
					err = e.err
					return
				}
				err = ir.ErrorAt(nil, "internal compiler error in the layout pass: %v", r)
			}
		}()
		f.Walk(func(op *ir.Op) {
			for _, v := range op.Operands {
				s.users[v] = append(s.users[v], op)
			}
		})
		s.classify()
		s.desires(f.Body)
		s.desires(f.Body)
		s.infer(f.Body)
		s.materialize(f.Body)
		s.wgmmaSharedLayouts()
		s.pairedSharedLayouts()
		s.matrixSharedLayouts()
		s.dotSharedLayouts()
		s.sharedLayouts()
		return nil
	}()
	if err != nil {
		return err
	}
	DeadCode(f)
	return nil
}

type layoutError struct{ err error }

func (s *assigner) fail(op *ir.Op, format string, args ...any) {
	panic(layoutError{ir.ErrorAt(op, format, args...)})
}

type memoKey struct {
	v *ir.Value
	l string
}

type assigner struct {
	f      *ir.Func
	nw     int
	axes   *gpu.AxisAnalysis
	weak   map[*ir.Value]bool
	layout map[*ir.Value]ir.Layout // strong values, and weak block args / for results (fixed)
	desire map[*ir.Value]ir.Layout // weak values: what their uses want
	memo   map[memoKey]*ir.Value
	// weakClone caches weakish for the values made since classify
	// (clones): a clone's operands are fixed when it is made, so its
	// answer does not change, and a chain of N clones is walked once
	// instead of once per query (layout assignment stays linear).
	weakClone map[*ir.Value]bool
	users     map[*ir.Value][]*ir.Op
	staged    map[*ir.Op]*ir.Op // dot -> the first staging local_load before it
	chained   map[*ir.Op]bool   // dot -> chainedDot
	// wishes counts the desires set so far: the version of desire, which
	// only grows. walked is, per block, the version at the start of its
	// latest desires walk; see desires.
	wishes int
	walked map[*ir.Block]int
}

func layIsTile(v *ir.Value) bool { _, ok := v.Type.(*ir.Tile); return ok }

func layTileOf(v *ir.Value) *ir.Tile { t, _ := v.Type.(*ir.Tile); return t }

// weakKind reports ops that are cheap to recompute in any layout.
func weakKind(k ir.Kind) bool {
	switch k {
	case ir.OpConstant, ir.OpArange, ir.OpSplat, ir.OpBroadcast, ir.OpExpandDims, ir.OpLocalPtr:
		return true
	}
	return k.IsElementwise()
}

// ---- 1. weak / strong

func (s *assigner) classify() {
	for iter := 0; iter < 8; iter++ {
		changed := false
		var walk func(b *ir.Block)
		walk = func(b *ir.Block) {
			for _, op := range b.Ops {
				if op.Kind == ir.OpFor {
					body := op.Regions[0]
					for i, arg := range body.Args[1:] {
						if !layIsTile(arg) {
							continue
						}
						if _, seen := s.weak[arg]; !seen {
							s.weak[arg] = true
						}
						w := s.weakOperand(op.Operands[3+i]) && s.weakOperand(body.Terminator().Operands[i])
						if iter == 0 {
							w = s.weakOperand(op.Operands[3+i])
						}
						if s.weak[arg] != w {
							s.weak[arg] = w
							changed = true
						}
						s.weak[op.Results[i]] = w
					}
				}
				for _, r := range op.Regions {
					walk(r)
				}
				if !weakKind(op.Kind) {
					continue
				}
				w := true
				for _, v := range op.Operands {
					if layIsTile(v) && !s.weak[v] {
						w = false
					}
				}
				for _, r := range op.Results {
					if layIsTile(r) && s.weak[r] != w {
						s.weak[r] = w
						changed = true
					}
				}
			}
		}
		walk(s.f.Body)
		if !changed && iter > 0 {
			break
		}
	}
}

func (s *assigner) weakOperand(v *ir.Value) bool { return !layIsTile(v) || s.weak[v] }

// clonable reports weak values recomputed by cloning their defining op.
func (s *assigner) clonable(v *ir.Value) bool {
	return s.weak[v] && v.Def != nil && weakKind(v.Def.Kind)
}

// ---- layout choices

// BlockedFor builds a blocked layout for shape with the given sizePerThread
// and order, spreading lanes and then warps fastest dimension first (Triton's
// BlockedEncodingAttr::get).
func BlockedFor(shape, spt, order []int, numWarps int) *gpu.Blocked {
	rank := len(shape)
	tpw := make([]int, rank)
	wpc := make([]int, rank)
	remLanes, remThreads, remWarps := 32, 32*numWarps, numWarps
	prevLanes, prevWarps := 1, 1
	clamp := func(x, lo, hi int) int {
		if x < lo {
			return lo
		}
		if x > hi {
			return hi
		}
		return x
	}
	for i := 0; i < rank-1; i++ {
		d := order[i]
		along := clamp(shape[d]/spt[d], 1, remThreads)
		tpw[d] = clamp(along, 1, remLanes)
		wpc[d] = clamp(along/tpw[d], 1, remWarps)
		remWarps /= wpc[d]
		remLanes /= tpw[d]
		remThreads /= along
		prevLanes *= tpw[d]
		prevWarps *= wpc[d]
	}
	tpw[order[rank-1]] = 32 / prevLanes
	wpc[order[rank-1]] = numWarps / prevWarps
	return &gpu.Blocked{SizePerThread: append([]int(nil), spt...), ThreadsPerWarp: tpw, WarpsPerCTA: wpc,
		Order: append([]int(nil), order...)}
}

// DefaultBlocked is the layout of tiles nothing constrains: one element per
// thread per repetition, row-major.
func DefaultBlocked(shape []int, numWarps int) *gpu.Blocked {
	spt := make([]int, len(shape))
	for i := range spt {
		spt[i] = 1
	}
	return BlockedFor(shape, spt, ir.RowMajor(len(shape)), numWarps)
}

func (s *assigner) defaultFor(v *ir.Value) ir.Layout {
	return DefaultBlocked(layTileOf(v).Shape, s.nwOf(v))
}

// nwAt is the number of warps tiles of op are laid out over: the CTA's, or
// inside a warp role the role's.
func (s *assigner) nwAt(op *ir.Op) int {
	if op == nil {
		return s.nw
	}
	if r := gpu.EnclosingRole(op); r != nil {
		return gpu.RoleActiveWarps(r)
	}
	if op.Kind == ir.OpRole {
		return gpu.RoleActiveWarps(op)
	}
	return s.nw
}

// nwOf is nwAt of the op defining v (or owning v's block).
func (s *assigner) nwOf(v *ir.Value) int {
	if v.Def != nil {
		return s.nwAt(v.Def)
	}
	if v.Block != nil {
		return s.nwAt(v.Block.Parent)
	}
	return s.nw
}

// Coalesced picks the blocked layout for a global access through the pointer
// tile ptr: dimensions ordered by contiguity, and up to 16 bytes per thread
// along the most contiguous one as far as contiguity and alignment allow.
func Coalesced(shape []int, info *gpu.AxisInfo, elemBytes, numWarps int) *gpu.Blocked {
	rank := len(shape)
	order := make([]int, rank)
	for i := range order {
		order[i] = rank - 1 - i
	}
	sort.SliceStable(order, func(i, j int) bool { return info.Contig[order[i]] > info.Contig[order[j]] })
	f := order[0]
	perThread := max(1, ir.NumElements(shape)/(32*numWarps))
	align := min(info.Contig[f], max(1, info.Div[f]/elemBytes))
	vec := min(min(align, max(1, 16/elemBytes)), min(perThread, shape[f]))
	vec = 1 << layLog2(max(vec, 1))
	spt := make([]int, rank)
	for i := range spt {
		spt[i] = 1
	}
	spt[f] = vec
	return BlockedFor(shape, spt, order, numWarps)
}

// sharedCoalesced is Coalesced for a whole-view read of md: its
// innermost dimension in memory (Order[0]) is contiguous over its extent,
// and its rows start at multiples of their size in bytes (a shared buffer
// is 16-byte aligned).
func sharedCoalesced(md *ir.MemDesc, numWarps int) *gpu.Blocked {
	rank := len(md.Shape)
	f := rank - 1
	if len(md.Order) == rank {
		f = md.Order[0]
	}
	info := &gpu.AxisInfo{Contig: make([]int, rank), Div: make([]int, rank)}
	for i := range info.Contig {
		info.Contig[i], info.Div[i] = 1, 1
	}
	info.Contig[f] = md.Shape[f]
	info.Div[f] = min(16, pow2Factor(md.Shape[f]*md.Elem.Bytes()))
	return Coalesced(md.Shape, info, md.Elem.Bytes(), numWarps)
}

// pow2Factor is the largest power of two dividing n > 0.
func pow2Factor(n int) int { return n & -n }

func (s *assigner) coalesced(ptr *ir.Value) ir.Layout {
	t := layTileOf(ptr)
	return Coalesced(t.Shape, s.axes.Info(ptr), ir.ElemDType(t.Elem).Bytes(), s.nwOf(ptr))
}

// ChooseMMA spreads numWarps warps over an [M, N] accumulator (Triton's
// warpsPerTileV2).
func ChooseMMA(shape []int, numWarps int) *gpu.MMA {
	w := []int{1, 1}
	for w[0]*w[1] < numWarps {
		if shape[0]/16/w[0] >= shape[1]/16/w[1] {
			if w[0] < shape[0]/16 {
				w[0] *= 2
			} else {
				w[1] *= 2
			}
		} else {
			w[1] *= 2
		}
	}
	return &gpu.MMA{WarpsPerCTA: w}
}

// mmaFor is the mma.sync layout of dot op: ChooseMMA, except for a chained
// dot (Triton's rule in warpsPerTileV2): when op's result becomes the a
// operand of a dot, or op's a operand is the result of one (through
// element-wise ops and loop-carried values), all warps go along M as long as
// each gets a 16-row block, so that the accumulator of one product is the a
// operand of the next without leaving the registers (see RegistersHold).
func (s *assigner) mmaFor(op *ir.Op) *gpu.MMA {
	shape := layTileOf(op.Results[0]).Shape
	nw := s.nwAt(op)
	if shape[0] >= 16*nw && s.chainedDot(op) {
		return &gpu.MMA{WarpsPerCTA: []int{nw, 1}}
	}
	return ChooseMMA(shape, nw)
}

// chainedDot reports whether dot op feeds, or is fed by, the a operand of a
// dot (see mmaFor); it is computed once per dot.
func (s *assigner) chainedDot(op *ir.Op) bool {
	if c, ok := s.chained[op]; ok {
		return c
	}
	// forward from the result to an a operand
	seen := map[*ir.Value]bool{}
	var fwd func(v *ir.Value) bool
	fwd = func(v *ir.Value) bool {
		if seen[v] {
			return false
		}
		seen[v] = true
		for _, u := range s.users[v] {
			switch {
			case u.Kind == ir.OpDot:
				if u.Operands[0] == v && u != op {
					return true
				}
				if len(u.Operands) > 2 && u.Operands[2] == v && fwd(u.Results[0]) {
					return true
				}
			case u.Kind == ir.OpYield:
				if loop := u.Parent.Parent; loop != nil && loop.Kind == ir.OpFor {
					for j, y := range u.Operands {
						if y == v && (fwd(loop.Regions[0].Args[1+j]) || fwd(loop.Results[j])) {
							return true
						}
					}
				}
			case u.Kind.IsElementwise() || u.Kind == gpu.OpConvertLayout:
				if len(u.Results) == 1 && fwd(u.Results[0]) {
					return true
				}
			}
		}
		return false
	}
	// backward from the a operand to a dot result
	back := map[*ir.Value]bool{}
	var bwd func(v *ir.Value) bool
	bwd = func(v *ir.Value) bool {
		if back[v] {
			return false
		}
		back[v] = true
		if d := v.Def; d != nil {
			switch {
			case d.Kind == ir.OpDot:
				return d != op
			case d.Kind.IsElementwise() || d.Kind == gpu.OpConvertLayout:
				for _, o := range d.Operands {
					if bwd(o) {
						return true
					}
				}
			}
			return false
		}
		// a loop-carried value: its initial and yielded values
		if b := v.Block; b != nil && v.Index > 0 {
			if loop := b.Parent; loop != nil && loop.Kind == ir.OpFor && b == loop.Regions[0] {
				j := v.Index - 1
				return bwd(loop.Operands[3+j]) || bwd(b.Terminator().Operands[j])
			}
		}
		return false
	}
	c := fwd(op.Results[0]) || bwd(op.Operands[0])
	s.chained[op] = c
	return c
}

// registersHold reports whether converting a tile of shape from layout a to
// b moves no data between threads (LinearLayout.RegistersHold).
func registersHold(a, b ir.Layout, shape []int) bool {
	la, err := gpu.Linear(a, shape)
	if err != nil {
		return false
	}
	lb, err := gpu.Linear(b, shape)
	if err != nil {
		return false
	}
	return la.RegistersHold(lb)
}

// DotSharedLayout is the swizzled shared layout in which a 16-bit dot operand
// of shape is staged for ldmatrix: 16-byte chunks, XOR-swizzled so that the
// eight rows an ldmatrix reads hit all 32 banks once.
func DotSharedLayout(shape []int, elemBytes int, order []int) *gpu.Shared {
	vec := max(1, 16/elemBytes)
	rowBytes := shape[order[0]] * elemBytes
	perPhase := max(1, 128/rowBytes)
	maxPhase := max(1, min(8/perPhase, rowBytes/16))
	if rowBytes < 16 {
		return &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: order}
	}
	return &gpu.Shared{Vec: vec, PerPhase: perPhase, MaxPhase: maxPhase, Order: append([]int(nil), order...)}
}

// scanLayout is the layout a scan along axis converts its operand to when
// the operand's own does not suit the lowering (ScanLayoutOK): the axis
// fastest, and as much of it in each thread as the tile's elements per
// thread allow, so that the scan is sequential in registers before it needs
// any shuffle (a [16, 128] tile on 4 warps holds a whole column per thread:
// no shuffle, no shared memory; one element per thread would take four
// shfl.up steps per element), then lanes, then warps along it.
func scanLayout(shape []int, axis, numWarps int) *gpu.Blocked {
	order := []int{axis}
	for d := len(shape) - 1; d >= 0; d-- {
		if d != axis {
			order = append(order, d)
		}
	}
	spt := make([]int, len(shape))
	for i := range spt {
		spt[i] = 1
	}
	per := max(1, ir.NumElements(shape)/(32*numWarps))
	spt[axis] = 1 << layLog2(max(1, min(per, shape[axis])))
	if rem := per / spt[axis]; spt[axis] == shape[axis] && rem > 1 && len(shape) > 1 {
		// the whole axis in each thread: its other elements go along the
		// innermost other dimension, consecutive in registers (order
		// first), so that stores of the result are vectors and the lanes
		// cover that dimension with fewer repetitions
		f := order[1]
		spt[f] = 1 << layLog2(min(rem, shape[f]))
		order = append([]int{f}, slices.DeleteFunc(order, func(d int) bool { return d == f })...)
	}
	return BlockedFor(shape, spt, order, numWarps)
}

// ScanLayoutOK reports layouts the scan lowering handles along axis: the
// axis's bases are, from the smallest coordinate up, register bits, then lane
// bits, then warp bits, then register bits again, with every lane and warp
// basis of other dimensions zero-free below.
func ScanLayoutOK(l ir.Layout, shape []int, axis int) bool {
	b, ok := l.(*gpu.Blocked)
	return ok && (b.Order[0] == axis || b.SizePerThread[axis] >= shape[axis])
}

// voteLayoutOK reports layouts of a 1-D mask that prefix_count lowers
// without converting (gpu.VoteLayoutOK).
func voteLayoutOK(l ir.Layout, shape []int) bool {
	ll, err := gpu.Linear(l, shape)
	return err == nil && gpu.VoteLayoutOK(ll)
}

// SameLayout reports whether two layouts place a tile of shape identically.
func SameLayout(a, b ir.Layout, shape []int) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.String() == b.String() {
		return true
	}
	la, err1 := gpu.Linear(a, shape)
	lb, err2 := gpu.Linear(b, shape)
	return err1 == nil && err2 == nil && la.Equal(lb)
}

// ---- 2a. desires of weak loop-carried values

func (s *assigner) wish(v *ir.Value, l ir.Layout) {
	if layIsTile(v) && s.weak[v] && s.desire[v] == nil && l != nil {
		s.desire[v] = l
		s.wishes++
	}
}

// desires records, walking b backwards, the layouts the uses of weak values
// want (loads, stores and dots want theirs; a weak op passes its result's
// desire on to its operands).
//
// A for walks its body twice (and the function's body is walked twice), so
// that desires from the loop's yield reach the body again; without a memo
// that is 2^depth walks of a loop nest's innermost body. A walk's effect is
// a function of desire alone, which only grows: when b's latest walk began
// at the current version, that walk set nothing and this one would set
// nothing either, so it is skipped. Each block is then walked at most once
// more than the number of desires set.
func (s *assigner) desires(b *ir.Block) {
	if v, ok := s.walked[b]; ok && v == s.wishes {
		return
	}
	s.walked[b] = s.wishes
	for i := len(b.Ops) - 1; i >= 0; i-- {
		op := b.Ops[i]
		switch op.Kind {
		case ir.OpFor:
			body := op.Regions[0]
			for j := range op.Results {
				if l := s.desire[op.Results[j]]; l != nil {
					s.wish(body.Args[1+j], l)
				}
			}
			s.desires(body)
			for j, arg := range body.Args[1:] {
				if l := s.desire[arg]; l != nil {
					s.wish(body.Terminator().Operands[j], l)
					s.wish(op.Operands[3+j], l)
				}
			}
			s.desires(body)
			continue
		case ir.OpLoad, ir.OpStore, ir.OpAtomicRMW, ir.OpAtomicCAS:
			if layIsTile(op.Operands[0]) {
				if p, ok := layTileOf(op.Operands[0]).Elem.(*ir.Pointer); ok && p.Space == ir.Global {
					l := s.coalesced(op.Operands[0])
					for _, v := range op.Operands {
						s.wish(v, l)
					}
				}
			}
		case ir.OpDot:
			mma := s.mmaFor(op)
			s.wish(op.Operands[0], &gpu.DotOperand{OpIdx: 0, Parent: mma, KWidth: gpu.DotKWidth(ir.ElemDType(op.Operands[0].Type))})
			s.wish(op.Operands[1], &gpu.DotOperand{OpIdx: 1, Parent: mma, KWidth: gpu.DotKWidth(ir.ElemDType(op.Operands[1].Type))})
			s.wish(op.Operands[2], mma)
		case ir.OpWgmma:
			if l := s.wgmmaRegA(op); l != nil {
				s.wish(op.Operands[0], l)
			}
			s.wish(op.Operands[2], s.wgmmaAcc(op))
		}
		for _, r := range op.Regions {
			s.desires(r)
		}
		if weakKind(op.Kind) && len(op.Results) == 1 {
			if l := s.desire[op.Results[0]]; l != nil {
				for j, v := range op.Operands {
					s.wish(v, s.weakOperandLayout(op, j, l))
				}
			}
		}
	}
}

// weakOperandLayout is the layout operand j of a weak op needs for its result
// to have layout l.
func (s *assigner) weakOperandLayout(op *ir.Op, j int, l ir.Layout) ir.Layout {
	if op.Kind == ir.OpExpandDims {
		return &gpu.Slice{Dim: int(op.Attrs.Int("axis", 0)), Parent: l}
	}
	return l
}

// ---- 2b. layouts of strong values

func (s *assigner) lay(v *ir.Value) ir.Layout {
	if !layIsTile(v) {
		return nil
	}
	if s.weak[v] && s.clonable(v) {
		return nil
	}
	return s.layout[v]
}

func (s *assigner) infer(b *ir.Block) {
	for _, op := range b.Ops {
		s.inferOp(op)
	}
}

func (s *assigner) inferOp(op *ir.Op) {
	switch op.Kind {
	case ir.OpFor:
		s.inferFor(op)
		return
	case ir.OpIf:
		for _, r := range op.Regions {
			s.infer(r)
		}
		for i, res := range op.Results {
			if !layIsTile(res) {
				continue
			}
			var l ir.Layout
			for _, r := range op.Regions {
				if t := r.Terminator(); l == nil && t != nil && i < len(t.Operands) {
					l = s.lay(t.Operands[i])
				}
			}
			if l == nil {
				l = s.defaultFor(res)
			}
			s.layout[res] = l
		}
		return
	}
	for _, r := range op.Regions {
		s.infer(r)
	}
	for _, res := range op.Results {
		if !layIsTile(res) || s.clonable(res) {
			continue
		}
		if l := s.resultLayout(op, res); l != nil {
			s.layout[res] = l
		}
	}
}

func (s *assigner) firstStrong(op *ir.Op) ir.Layout {
	for _, v := range op.Operands {
		if l := s.lay(v); l != nil {
			return l
		}
	}
	return nil
}

// elementwiseLayout is the layout of an element-wise op's result: that of
// its first strong operand which is not a broadcast, else firstStrong's.
// The other operands are converted to it, and a broadcast converts its
// smaller operand before broadcasting (get), where a full tile would go
// through shared memory whole: acc*alpha[:, None] + pv keeps pv's
// layout.
//
// An operand that can be read again from shared memory in any layout
// (canReread) follows the others for free, so the first operand that cannot
// wins over it: in eg * bq with bq loaded from a shared buffer and eg
// computed in a scan's layout, bq is read again in eg's layout, and nothing
// converts.
func (s *assigner) elementwiseLayout(op *ir.Op) ir.Layout {
	for _, free := range []bool{false, true} {
		for _, v := range op.Operands {
			if l := s.lay(v); l != nil && (v.Def == nil || (v.Def.Kind != ir.OpBroadcast && v.Def.Kind != ir.OpExpandDims)) &&
				(free || !s.canReread(v, rereadDepth) && loopOf(v) == innermostFor(op)) {
				return l
			}
		}
	}
	return s.firstStrong(op)
}

// loopOf is the innermost for op whose body computes v (a loop-carried
// block argument is its loop's): a value from outside the loop of its
// user converts once, before the loop, so it does not decide a layout
// over one that would convert in every iteration.
func loopOf(v *ir.Value) *ir.Op {
	if v.Def != nil {
		return innermostFor(v.Def)
	}
	if v.Block != nil && v.Block.Parent != nil {
		if v.Block.Parent.Kind == ir.OpFor {
			return v.Block.Parent
		}
		return innermostFor(v.Block.Parent)
	}
	return nil
}

// innermostFor is the for op whose body holds op (nil outside loops).
func innermostFor(op *ir.Op) *ir.Op {
	for op != nil && op.Parent != nil {
		op = op.Parent.Parent
		if op != nil && op.Kind == ir.OpFor {
			return op
		}
	}
	return nil
}

// rereadDepth bounds the element-wise chains canReread follows.
const rereadDepth = 8

// canReread reports whether the strong tile v can be had in another
// register layout without a conversion through shared memory: v reads
// shared memory (a local_load of this CTA's buffer, or a load through
// shared pointers), which is simply read again in that layout right after
// itself, or v is an element-wise op whose strong operands are such reads,
// chains of them (depth more ops at most) or broadcasts (whose smaller
// operand converts), recomputed from them in that layout (Triton's
// backward rematerialisation, with the shared-memory read as the cheap
// root).
func (s *assigner) canReread(v *ir.Value, depth int) bool {
	d := v.Def
	if d == nil || depth == 0 || len(d.Results) != 1 || len(d.Regions) > 0 || !layIsTile(v) {
		return false
	}
	switch {
	case d.Kind == ir.OpLocalLoad:
		md, ok := d.Operands[0].Type.(*ir.MemDesc)
		return ok && md.Space == ir.Shared
	case d.Kind == ir.OpLoad:
		if !layIsTile(d.Operands[0]) {
			return false
		}
		if p, ok := layTileOf(d.Operands[0]).Elem.(*ir.Pointer); !ok || p.Space != ir.Shared {
			return false
		}
		for _, o := range d.Operands {
			if !s.weakish(o) {
				return false
			}
		}
		return true
	case d.Kind.IsElementwise():
		for _, o := range d.Operands {
			if s.weakish(o) {
				continue
			}
			if od := o.Def; od != nil && (od.Kind == ir.OpBroadcast || od.Kind == ir.OpExpandDims) {
				continue
			}
			if !s.canReread(o, depth-1) {
				return false
			}
		}
		return true
	}
	return false
}

// registerLayout reports the layouts reread builds values in: blocked
// layouts and their slices (the generic shared-memory reads of the
// backend; dot operands and accumulators keep their own paths).
func registerLayout(l ir.Layout) bool {
	switch l := l.(type) {
	case *gpu.Blocked:
		return true
	case *gpu.Slice:
		return registerLayout(l.Parent)
	}
	return false
}

// weakish is weakOperand, also for the values materialisation made since
// classify (a weak value recomputed in a layout is a clone classify never
// saw).
func (s *assigner) weakish(v *ir.Value) bool {
	if s.weakOperand(v) {
		return true
	}
	d := v.Def
	if d == nil || !weakKind(d.Kind) {
		return false
	}
	if _, seen := s.weak[v]; seen {
		return false
	}
	if w, ok := s.weakClone[v]; ok {
		return w
	}
	w := true
	for _, o := range d.Operands {
		if !s.weakish(o) {
			w = false
			break
		}
	}
	s.weakClone[v] = w
	return w
}

// reread is v (canReread, or a weak value materialisation made)
// in the register layout l: its shared-memory reads done again in l right
// after themselves, its element-wise ops recomputed in l from those (weak
// operands recomputed, broadcasts converted before they broadcast).
func (s *assigner) reread(v *ir.Value, l ir.Layout) *ir.Value {
	return s.cloneIn(v, l, memoKey{v, "reread:" + l.String()}, func(o *ir.Value, ol ir.Layout, j int) *ir.Value {
		if s.weakish(o) && !s.clonable(o) && o.Def != nil && weakKind(o.Def.Kind) {
			return s.reread(o, ol) // a weak clone: cloned again
		}
		return s.get(o, ol, v.Def, j)
	})
}

func (s *assigner) resultLayout(op *ir.Op, res *ir.Value) ir.Layout {
	shape := layTileOf(res).Shape
	switch op.Kind {
	case ir.OpLoad, ir.OpAtomicRMW, ir.OpAtomicCAS:
		if layIsTile(op.Operands[0]) {
			if p, ok := layTileOf(op.Operands[0]).Elem.(*ir.Pointer); ok && p.Space == ir.Global {
				return s.coalesced(op.Operands[0])
			}
		}
	case ir.OpDot:
		return s.mmaFor(op)
	case ir.OpWgmma:
		return s.wgmmaAcc(op)
	case ir.OpWgmmaWait:
		// a value threaded through the wait keeps its registers
		if l := s.lay(op.Operands[res.Index]); l != nil {
			return l
		}
	case ir.OpReduce:
		axis := int(op.Attrs.Int("axis", 0))
		l := s.lay(op.Operands[0])
		if l == nil {
			l = s.defaultFor(op.Operands[0])
		}
		return &gpu.Slice{Dim: axis, Parent: l}
	case ir.OpScan:
		axis := int(op.Attrs.Int("axis", 0))
		if l := s.lay(op.Operands[0]); l != nil && ScanLayoutOK(l, shape, axis) {
			return l
		}
		return scanLayout(shape, axis, s.nwAt(op))
	case ir.OpPrefixCount:
		// the mask's layout when a warp's ballot over a register holds
		// consecutive elements, else one element per thread (the operand
		// converts)
		if l := s.lay(op.Operands[0]); l != nil && voteLayoutOK(l, shape) {
			return l
		}
		return gpu.VoteLayout(s.nwAt(op))
	case ir.OpBallot:
		// the mask is converted to VoteLayout (operandLayout); the words
		// are where the ballots leave them
		return gpu.BallotLayout(s.nwAt(op))
	case ir.OpBroadcast:
		if l := s.lay(op.Operands[0]); l != nil {
			return l
		}
	case ir.OpExpandDims:
		axis := int(op.Attrs.Int("axis", 0))
		if sl, ok := s.lay(op.Operands[0]).(*gpu.Slice); ok && sl.Dim == axis {
			return sl.Parent
		}
	case ir.OpTrans:
		if b, ok := s.lay(op.Operands[0]).(*gpu.Blocked); ok {
			return permuteBlocked(b, op.Attrs.Ints("perm"))
		}
	case ir.OpGather:
		// the result is read in the index's layout (one index a register)
		if l := s.lay(op.Operands[1]); l != nil {
			return l
		}
	case ir.OpButterfly:
		// the exchange keeps the operand's layout
		if l := s.lay(op.Operands[0]); l != nil {
			return l
		}
	case ir.OpJoin:
		// the pair in one thread's registers, next to each other: the
		// operands' layout (the first strong blocked one) with the new
		// dimension appended; operands of other layouts convert to the
		// default layout's, so that join itself moves nothing
		for _, v := range op.Operands {
			if b, ok := s.lay(v).(*gpu.Blocked); ok {
				return JoinBlocked(b)
			}
		}
		return JoinBlocked(DefaultBlocked(layTileOf(op.Operands[0]).Shape, s.nwAt(op)))
	case ir.OpSplit:
		// the operand's layout without its last dimension when each thread
		// holds the pair whole; otherwise the operand converts (operandLayout)
		if b, ok := s.lay(op.Operands[0]).(*gpu.Blocked); ok {
			if sb := SplitBlocked(b); sb != nil {
				return sb
			}
		}
		return DefaultBlocked(shape, s.nwAt(op))
	case ir.OpFlip:
		// a register permutation where the axis lies in registers, lane
		// shuffles where it crosses lanes, shared memory across warps
		if l := s.lay(op.Operands[0]); l != nil {
			return l
		}
	case ir.OpExtractSlice:
		// a blocked layout places a smaller tile by the same rule, so a
		// slice whose elements stay in their threads keeps registers
		if b, ok := s.lay(op.Operands[0]).(*gpu.Blocked); ok {
			return b
		}
	case ir.OpReshape:
		// interleave's and cat's reshapes of a join keep their registers
		if l := JoinReshapeLayout(op, s.lay(op.Operands[0])); l != nil {
			return l
		}
	case ir.OpLocalLoad:
		if l := s.dotUse(res); l != nil {
			return l
		}
		if us := s.users[res]; len(us) == 1 && s.pairedLoad(us[0]) == op {
			// read straight into wgmma's register a (ldmatrix.trans)
			return s.wgmmaRegA(us[0])
		}
		if l := s.matrixCopy(op); l != nil {
			return l
		}
		// otherwise read it as a global load of the same rows would be:
		// up to 16 bytes a thread along the view's contiguous dimension
		if md, ok := op.Operands[0].Type.(*ir.MemDesc); ok {
			return sharedCoalesced(md, s.nwAt(op))
		}
	case ir.OpLocalPtr:
		// the pointers follow a strong index tile, as element-wise ops
		// follow their operands (the backend pairs registers by index)
		if l := s.firstStrong(op); l != nil {
			return l
		}
	case gpu.OpConvertLayout:
		if l := layTileOf(res).Layout; l != nil {
			return l
		}
	default:
		if op.Kind.IsElementwise() {
			if l := s.elementwiseLayout(op); l != nil {
				return l
			}
			if l := s.desire[res]; l != nil {
				return l
			}
		}
	}
	return s.defaultFor(res)
}

// dotUse returns the dot-operand layout when every use of v is the same
// operand of dot ops of one shape, 16-bit.
func (s *assigner) dotUse(v *ir.Value) ir.Layout {
	var l ir.Layout
	if b := ir.ElemDType(v.Type).Bits(); b != 16 {
		return nil
	}
	for _, u := range s.users[v] {
		if u.Kind != ir.OpDot {
			return nil
		}
		idx := -1
		for i, o := range u.Operands[:2] {
			if o == v {
				idx = i
			}
		}
		if idx < 0 {
			return nil
		}
		d := &gpu.DotOperand{OpIdx: idx, Parent: s.mmaFor(u), KWidth: 2}
		if l != nil && l.String() != d.String() {
			return nil
		}
		l = d
	}
	return l
}

// permuteBlocked is the layout of trans(x, perm) for x in b.
func permuteBlocked(b *gpu.Blocked, perm []int) *gpu.Blocked {
	r := len(perm)
	inv := make([]int, r)
	for i, p := range perm {
		inv[p] = i
	}
	nb := &gpu.Blocked{SizePerThread: make([]int, r), ThreadsPerWarp: make([]int, r), WarpsPerCTA: make([]int, r), Order: make([]int, r)}
	for i, p := range perm {
		nb.SizePerThread[i] = b.SizePerThread[p]
		nb.ThreadsPerWarp[i] = b.ThreadsPerWarp[p]
		nb.WarpsPerCTA[i] = b.WarpsPerCTA[p]
	}
	for i, d := range b.Order {
		nb.Order[i] = inv[d]
	}
	return nb
}

// JoinBlocked is the layout of join(a, b) for a and b in layout b: the new
// last dimension of 2 held whole by every thread, in two registers next to
// each other (the fastest dimension), as Triton's join lays it out. It is
// also the layout split's operand needs for split to move nothing.
func JoinBlocked(b *gpu.Blocked) *gpu.Blocked {
	r := len(b.SizePerThread)
	return &gpu.Blocked{
		SizePerThread:  append(slices.Clone(b.SizePerThread), 2),
		ThreadsPerWarp: append(slices.Clone(b.ThreadsPerWarp), 1),
		WarpsPerCTA:    append(slices.Clone(b.WarpsPerCTA), 1),
		Order:          append([]int{r}, b.Order...),
	}
}

// SplitBlocked is b without its last dimension when one lane of one warp
// holds that dimension whole (split's results then keep their registers);
// nil when lanes or warps divide it.
func SplitBlocked(b *gpu.Blocked) *gpu.Blocked {
	r := len(b.SizePerThread) - 1
	if r < 1 || b.ThreadsPerWarp[r] != 1 || b.WarpsPerCTA[r] != 1 {
		return nil
	}
	return &gpu.Blocked{
		SizePerThread:  slices.Clone(b.SizePerThread[:r]),
		ThreadsPerWarp: slices.Clone(b.ThreadsPerWarp[:r]),
		WarpsPerCTA:    slices.Clone(b.WarpsPerCTA[:r]),
		Order:          slices.DeleteFunc(slices.Clone(b.Order), func(d int) bool { return d == r }),
	}
}

// JoinReshapeLayout is, for the reshapes interleave and cat make of a join
// (JoinReshape), the layout in which each thread keeps the registers it
// holds in the operand's layout l: interleave's [..., N, 2] -> [..., 2N]
// merges the pair into the last dimension's registers (twice the join
// operand's elements per thread there), cat's [2, S0, ...] -> [2*S0, ...]
// (after the transpose bringing the pair first) is the join operands'
// layout again, the pair the repetition of dimension 0's registers. nil
// for any other reshape, or an l of another kind.
func JoinReshapeLayout(op *ir.Op, l ir.Layout) ir.Layout {
	b, ok := l.(*gpu.Blocked)
	kind := JoinReshape(op)
	if !ok || kind == "" {
		return nil
	}
	r := len(b.SizePerThread)
	if kind == "interleave" {
		if b.Order[0] != r-1 || b.ThreadsPerWarp[r-1] != 1 || b.WarpsPerCTA[r-1] != 1 {
			return nil
		}
		m := &gpu.Blocked{
			SizePerThread:  slices.Clone(b.SizePerThread[:r-1]),
			ThreadsPerWarp: slices.Clone(b.ThreadsPerWarp[:r-1]),
			WarpsPerCTA:    slices.Clone(b.WarpsPerCTA[:r-1]),
			Order:          slices.Clone(b.Order[1:]),
		}
		m.SizePerThread[r-2] *= b.SizePerThread[r-1]
		return m
	}
	// cat: l is the transposed join's, the pair dimension first
	if b.ThreadsPerWarp[0] != 1 || b.WarpsPerCTA[0] != 1 {
		return nil
	}
	m := &gpu.Blocked{
		SizePerThread:  slices.Clone(b.SizePerThread[1:]),
		ThreadsPerWarp: slices.Clone(b.ThreadsPerWarp[1:]),
		WarpsPerCTA:    slices.Clone(b.WarpsPerCTA[1:]),
	}
	for _, d := range b.Order {
		if d != 0 {
			m.Order = append(m.Order, d-1)
		}
	}
	return m
}

// JoinReshape names the reshapes the lowering of interleave and cat makes
// of a join: "interleave" for join(a, b) reshaped to merge its last two
// dimensions, "cat" for trans(join(a, b)) with the pair brought first,
// reshaped to merge its first two; "" for any other reshape (whose
// layouts and lowering stay as they were).
func JoinReshape(op *ir.Op) string {
	if op.Kind != ir.OpReshape {
		return ""
	}
	in, out := ir.ShapeOf(op.Operands[0].Type), ir.ShapeOf(op.Results[0].Type)
	d := op.Operands[0].Def
	if d == nil || len(in) < 2 || len(out) != len(in)-1 {
		return ""
	}
	r := len(in)
	switch d.Kind {
	case ir.OpJoin:
		if slices.Equal(in[:r-2], out[:r-2]) && out[r-2] == 2*in[r-2] && in[r-1] == 2 {
			return "interleave"
		}
	case ir.OpTrans:
		perm := d.Attrs.Ints("perm")
		if j := d.Operands[0].Def; j == nil || j.Kind != ir.OpJoin || len(perm) != r || perm[0] != r-1 {
			return ""
		}
		for i := 1; i < r; i++ {
			if perm[i] != i-1 {
				return ""
			}
		}
		if in[0] == 2 && out[0] == 2*in[1] && slices.Equal(in[2:], out[1:]) {
			return "cat"
		}
	}
	return ""
}

func (s *assigner) inferFor(op *ir.Op) {
	body := op.Regions[0]
	type iter struct {
		arg, init *ir.Value
		i         int
	}
	var strong []iter
	for i, arg := range body.Args[1:] {
		if !layIsTile(arg) {
			continue
		}
		init := op.Operands[3+i]
		if s.weak[arg] {
			l := s.desire[arg]
			if l == nil {
				l = s.defaultFor(arg)
			}
			s.layout[arg] = l
			s.layout[op.Results[i]] = l
			continue
		}
		s.layout[arg] = s.lay(init)
		strong = append(strong, iter{arg, init, i})
	}
	for round := 0; round < 4; round++ {
		s.infer(body)
		changed := false
		for _, it := range strong {
			y := body.Terminator().Operands[it.i]
			ly := s.lay(y)
			if ly != nil && (s.layout[it.arg] == nil || !SameLayout(ly, s.layout[it.arg], layTileOf(y).Shape)) {
				s.layout[it.arg] = ly
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for _, it := range strong {
		if s.layout[it.arg] == nil {
			s.layout[it.arg] = s.defaultFor(it.arg)
			s.infer(body)
		}
		s.layout[op.Results[it.i]] = s.layout[it.arg]
	}
}

// ---- 3. materialise

func setLayout(v *ir.Value, l ir.Layout) {
	t := layTileOf(v)
	v.Type = &ir.Tile{Shape: t.Shape, Elem: t.Elem, Layout: l}
}

func (s *assigner) materialize(b *ir.Block) {
	ops := append([]*ir.Op(nil), b.Ops...)
	for _, op := range ops {
		s.materializeOp(op)
	}
}

func (s *assigner) materializeOp(op *ir.Op) {
	switch op.Kind {
	case ir.OpFor:
		body := op.Regions[0]
		for i, arg := range body.Args[1:] {
			if !layIsTile(arg) {
				continue
			}
			l := s.layout[arg]
			s.use(op, 3+i, l)
			setLayout(arg, l)
			setLayout(op.Results[i], l)
		}
		s.materialize(body)
		y := body.Terminator()
		for i, arg := range body.Args[1:] {
			if layIsTile(arg) {
				s.use(y, i, s.layout[arg])
			}
		}
		return
	case ir.OpIf:
		for _, r := range op.Regions {
			s.materialize(r)
		}
		for i, res := range op.Results {
			if !layIsTile(res) {
				continue
			}
			l := s.layout[res]
			setLayout(res, l)
			for _, r := range op.Regions {
				if t := r.Terminator(); t != nil {
					s.use(t, i, l)
				}
			}
		}
		return
	}
	if op.Kind == ir.OpYield {
		return // the enclosing for / if gives its operands their layouts
	}
	for _, r := range op.Regions {
		s.materialize(r)
	}
	if allClonable(s, op) {
		return // recomputed at its uses; the original dies
	}
	var res ir.Layout
	if len(op.Results) > 0 && layIsTile(op.Results[0]) {
		res = s.layout[op.Results[0]]
		if res == nil {
			res = s.defaultFor(op.Results[0])
		}
	}
	// decide every operand's layout before any operand is replaced (the
	// anchor layout of a store depends on the original pointer's analysis)
	want := make([]ir.Layout, len(op.Operands))
	for j, v := range op.Operands {
		if layIsTile(v) {
			want[j] = s.operandLayout(op, j, res)
		}
	}
	for j, v := range op.Operands {
		if layIsTile(v) {
			s.use(op, j, want[j])
		}
	}
	if op.Kind == ir.OpWgmma && layIsTile(op.Operands[0]) && s.wgmmaRegA(op) == nil {
		s.stageWgmmaA(op)
	}
	for _, r := range op.Results {
		if layIsTile(r) {
			setLayout(r, res)
		}
	}
}

func allClonable(s *assigner, op *ir.Op) bool {
	if !weakKind(op.Kind) || len(op.Results) == 0 {
		return false
	}
	for _, r := range op.Results {
		if !layIsTile(r) || !s.clonable(r) {
			return false
		}
	}
	return true
}

// operandLayout is the layout operand j of a strong op needs given the op's
// result layout res; nil means "whatever it has".
func (s *assigner) operandLayout(op *ir.Op, j int, res ir.Layout) ir.Layout {
	v := op.Operands[j]
	switch op.Kind {
	case ir.OpLoad, ir.OpAtomicRMW, ir.OpAtomicCAS:
		if res != nil {
			return res
		}
	case ir.OpStore:
		if layIsTile(op.Operands[0]) {
			if p, ok := layTileOf(op.Operands[0]).Elem.(*ir.Pointer); ok && p.Space == ir.Global {
				c := s.coalesced(op.Operands[0])
				if l := s.storeKeeps(op, c, p.Elem.Bytes()); l != nil {
					return l
				}
				return c
			}
			// one layout for the pointers, the value and the mask (the
			// backend pairs their registers by index): the value's, else
			// the pointers', else the mask's; weak ones are recomputed in
			// it. (A weak value with a mask of another layout, as in
			// store(local_ptr(buf, prefix_count(m)), arange(0, N), mask: m),
			// once left the mask in its own.)
			for _, k := range []int{1, 0, 2} {
				if k < len(op.Operands) {
					if l := s.lay(op.Operands[k]); l != nil {
						return l
					}
				}
			}
			return nil
		}
	case ir.OpDot:
		mma := res.(*gpu.MMA)
		if j < 2 {
			return &gpu.DotOperand{OpIdx: j, Parent: mma, KWidth: gpu.DotKWidth(ir.ElemDType(v.Type))}
		}
		return mma
	case ir.OpWgmma:
		if j == 2 {
			return res
		}
		if j == 0 {
			// a 16-bit a stays in registers (the RS form); another is
			// staged in shared memory (stageWgmmaA)
			return s.wgmmaRegA(op)
		}
		return nil
	case ir.OpReduce:
		if sl, ok := res.(*gpu.Slice); ok {
			return sl.Parent
		}
		return nil
	case ir.OpScan, ir.OpBroadcast, ir.OpPrefixCount, ir.OpLocalPtr, ir.OpButterfly:
		return res
	case ir.OpGather:
		// the source goes to shared memory as it is; the index in the
		// result's layout
		if j == 1 {
			return res
		}
		return nil
	case ir.OpBallot:
		return gpu.VoteLayout(s.nwAt(op))
	case ir.OpExpandDims:
		return &gpu.Slice{Dim: int(op.Attrs.Int("axis", 0)), Parent: res}
	case ir.OpJoin:
		if b, ok := res.(*gpu.Blocked); ok {
			return SplitBlocked(b)
		}
		return nil
	case ir.OpSplit:
		if b, ok := res.(*gpu.Blocked); ok {
			return JoinBlocked(b)
		}
		return nil
	case ir.OpFlip:
		return res
	case ir.OpExtractSlice:
		if b, ok := res.(*gpu.Blocked); ok {
			return b
		}
		return nil
	case ir.OpTrans:
		if b, ok := res.(*gpu.Blocked); ok {
			perm := op.Attrs.Ints("perm")
			inv := make([]int, len(perm))
			for i, p := range perm {
				inv[p] = i
			}
			return permuteBlocked(b, inv)
		}
		return nil
	default:
		if op.Kind.IsElementwise() {
			return res
		}
	}
	_ = v
	return nil
}

// storeKeeps is the layout of a global store's value when the store can
// take it as it is rather than convert it to the coalesced layout c: a
// blocked layout along c's contiguous dimension with at least 4 bytes a
// thread there (no more than c's vectors, which the pointers' alignment
// allows) and lanes covering at least 128 contiguous bytes, so that each
// warp still writes whole 128-byte lines. A value that can be read again
// in c (canReread) is, instead.
func (s *assigner) storeKeeps(op *ir.Op, c ir.Layout, eb int) ir.Layout {
	v := op.Operands[1]
	b, ok := s.lay(v).(*gpu.Blocked)
	cb, ok2 := c.(*gpu.Blocked)
	if !ok || !ok2 || len(b.Order) != len(cb.Order) || s.canReread(v, rereadDepth) {
		return nil
	}
	f := cb.Order[0]
	if b.Order[0] != f || b.SizePerThread[f]*eb < 4 || b.SizePerThread[f] > cb.SizePerThread[f] || b.ThreadsPerWarp[f]*b.SizePerThread[f]*eb < 128 {
		return nil
	}
	return b
}

// use makes operand j of op have layout l (nil: any layout, weak values get
// the default one).
func (s *assigner) use(op *ir.Op, j int, l ir.Layout) {
	v := op.Operands[j]
	if !layIsTile(v) {
		return
	}
	if l == nil {
		if cur := s.current(v); cur != nil {
			return
		}
		l = s.defaultFor(v)
	}
	nv := s.get(v, l, op, j)
	if nv != v {
		op.Operands[j] = nv
		s.users[nv] = append(s.users[nv], op)
		for _, r := range op.Results { // an operand changed: ask again
			delete(s.weakClone, r)
		}
	}
}

// current is the layout v has now (nil for weak clonable values).
func (s *assigner) current(v *ir.Value) ir.Layout {
	if s.clonable(v) {
		return nil
	}
	if t := layTileOf(v); t.Layout != nil {
		return t.Layout
	}
	return s.layout[v]
}

func (s *assigner) get(v *ir.Value, l ir.Layout, user *ir.Op, j int) *ir.Value {
	shape := layTileOf(v).Shape
	if s.clonable(v) {
		return s.remat(v, l)
	}
	cur := s.current(v)
	if cur == nil {
		s.fail(user, "operand %d has no layout", j)
	}
	if SameLayout(cur, l, shape) {
		return v
	}
	if d := v.Def; d != nil && (d.Kind == ir.OpBroadcast || d.Kind == ir.OpExpandDims) {
		if _, isDot := l.(*gpu.DotOperand); !isDot {
			// convert the smaller tile before it is broadcast: a row
			// vector scaling an accumulator moves its own elements, not
			// the whole product's
			return s.remat(v, l)
		}
	}
	if registerLayout(l) && s.canReread(v, rereadDepth) {
		return s.reread(v, l)
	}
	if v.Def != nil && v.Def.Kind == gpu.OpConvertLayout {
		src := v.Def.Operands[0]
		if SameLayout(s.current(src), l, shape) {
			return src
		}
		v = src
		cur = s.current(v)
	}
	key := memoKey{v, "cvt:" + l.String()}
	if nv, ok := s.memo[key]; ok {
		return nv
	}
	var nv *ir.Value
	if d, ok := l.(*gpu.DotOperand); ok && ir.ElemDType(v.Type).Bits() == 16 && !registersHold(cur, d, shape) {
		nv = s.stageDotOperand(v, d, user)
	} else {
		cvt := s.newOp(gpu.OpConvertLayout, []*ir.Value{v}, ir.Attrs{}, &ir.Tile{Shape: shape, Elem: layTileOf(v).Elem, Layout: l}, v)
		if !s.insertAfterWgmmaWait(v, cvt) {
			s.insertAfterDef(v, cvt)
		}
		nv = cvt.Results[0]
	}
	s.memo[key] = nv
	return nv
}

// stageDotOperand stores v into a swizzled shared buffer and reads it back in
// the dot-operand layout d (lowered to ldmatrix). When v is computed in the
// dot's block, the staging goes right before the dot, the stores of all
// operands first and then the reads, so that one barrier separates them and
// the global loads stay ahead of both; a value from outside (loop-invariant)
// is staged once, right after its definition.
func (s *assigner) stageDotOperand(v *ir.Value, d *gpu.DotOperand, user *ir.Op) *ir.Value {
	t := layTileOf(v)
	dt := ir.ElemDType(t.Elem)
	order := ir.RowMajor(2)
	if b, ok := s.current(v).(*gpu.Blocked); ok {
		order = b.Order
	}
	md := &ir.MemDesc{Shape: t.Shape, Elem: dt, Order: order, Space: ir.Shared,
		Layout: DotSharedLayout(t.Shape, dt.Bytes(), order)}
	alloc := s.newOp(ir.OpAlloc, []*ir.Value{v}, ir.Attrs{}, md, v)
	ld := s.newOp(ir.OpLocalLoad, []*ir.Value{alloc.Results[0]}, ir.Attrs{}, &ir.Tile{Shape: t.Shape, Elem: t.Elem, Layout: d}, v)
	if v.Def != nil && v.Def.Parent == user.Parent {
		first := s.staged[user]
		if first == nil {
			layInsertBefore(user, alloc)
			s.staged[user] = ld
		} else {
			layInsertBefore(first, alloc)
		}
		layInsertBefore(user, ld)
	} else {
		s.insertAfterDef(v, alloc)
		layInsertAfter(alloc, ld)
	}
	s.users[v] = append(s.users[v], alloc)
	return ld.Results[0]
}

func layInsertBefore(anchor, op *ir.Op) {
	b := anchor.Parent
	op.Parent = b
	for i, o := range b.Ops {
		if o == anchor {
			b.Ops = append(b.Ops, nil)
			copy(b.Ops[i+1:], b.Ops[i:])
			b.Ops[i] = op
			return
		}
	}
	panic("insertBefore: anchor not in its block")
}

func (s *assigner) newOp(kind ir.Kind, operands []*ir.Value, attrs ir.Attrs, result ir.Type, near *ir.Value) *ir.Op {
	op := &ir.Op{Kind: kind, Operands: operands, Attrs: attrs}
	if near.Def != nil {
		op.Pos = near.Def.Pos
	}
	op.Results = []*ir.Value{s.f.NewValue(result, "", op, nil, 0)}
	return op
}

// remat recomputes the weak value v in layout l next to its definition.
func (s *assigner) remat(v *ir.Value, l ir.Layout) *ir.Value {
	return s.cloneIn(v, l, memoKey{v, l.String()}, func(o *ir.Value, ol ir.Layout, j int) *ir.Value {
		if s.clonable(o) {
			return s.remat(o, ol)
		}
		return s.get(o, ol, v.Def, j)
	})
}

// cloneIn recomputes v's defining op in layout l right after it (memoized
// under key), its tile operand j, needed in layout ol, given by operand.
func (s *assigner) cloneIn(v *ir.Value, l ir.Layout, key memoKey, operand func(o *ir.Value, ol ir.Layout, j int) *ir.Value) *ir.Value {
	if nv, ok := s.memo[key]; ok {
		return nv
	}
	def := v.Def
	attrs := ir.Attrs{}
	for k, a := range def.Attrs {
		attrs[k] = a
	}
	ops := make([]*ir.Value, len(def.Operands))
	for j, o := range def.Operands {
		ops[j] = o
		if layIsTile(o) {
			ops[j] = operand(o, s.weakOperandLayout(def, j, l), j)
		}
	}
	t := layTileOf(v)
	clone := s.newOp(def.Kind, ops, attrs, &ir.Tile{Shape: t.Shape, Elem: t.Elem, Layout: l}, v)
	clone.Results[0].Name = v.Name
	s.insertAfterDef(v, clone)
	for _, o := range ops {
		s.users[o] = append(s.users[o], clone)
	}
	s.memo[key] = clone.Results[0]
	return clone.Results[0]
}

func (s *assigner) insertAfterDef(v *ir.Value, op *ir.Op) {
	if v.Def != nil {
		layInsertAfter(v.Def, op)
		return
	}
	b := v.Block
	op.Parent = b
	b.Ops = append([]*ir.Op{op}, b.Ops...)
}

func layInsertAfter(anchor, op *ir.Op) {
	b := anchor.Parent
	op.Parent = b
	for i, o := range b.Ops {
		if o == anchor {
			b.Ops = append(b.Ops, nil)
			copy(b.Ops[i+2:], b.Ops[i+1:])
			b.Ops[i+1] = op
			return
		}
	}
	panic("insertAfter: anchor not in its block")
}

// ---- shared layouts of buffers

func (s *assigner) sharedLayouts() {
	s.f.Walk(func(op *ir.Op) {
		for _, r := range op.Results {
			md, ok := r.Type.(*ir.MemDesc)
			if !ok || md.Layout != nil {
				continue
			}
			c := *md
			switch op.Kind {
			case ir.OpMemIndex:
				if src, ok := op.Operands[0].Type.(*ir.MemDesc); ok && src.Layout != nil {
					if sh, ok := src.Layout.(*gpu.Shared); ok && len(sh.Order) == len(c.Shape)+1 {
						c.Layout = dropLeading(sh)
					}
				}
			case ir.OpMemReshape:
				// the same bytes with another shape: the source's swizzle,
				// when its row coordinate means the same in both shapes
				if src, ok := op.Operands[0].Type.(*ir.MemDesc); ok && src.Layout != nil {
					if sh, ok := src.Layout.(*gpu.Shared); ok {
						n, err := gpu.ReshapeShared(sh, src.Shape, c.Shape)
						if err != nil {
							s.fail(op, "reshape of a shared-memory view: %v", err)
						}
						c.Layout = n
					}
				}
			case ir.OpMemTrans:
				if src, ok := op.Operands[0].Type.(*ir.MemDesc); ok && src.Layout != nil {
					if sh, ok := src.Layout.(*gpu.Shared); ok {
						perm := op.Attrs.Ints("perm")
						inv := make([]int, len(perm))
						for i, p := range perm {
							inv[p] = i
						}
						n := *sh
						n.Order = make([]int, len(sh.Order))
						for i, d := range sh.Order {
							n.Order[i] = inv[d]
						}
						c.Layout = &n
					}
				}
			}
			if c.Layout == nil {
				order := c.Order
				if len(order) == 0 {
					order = ir.RowMajor(len(c.Shape))
				}
				c.Layout = &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: append([]int(nil), order...)}
			}
			r.Type = &c
		}
	})
}

func dropLeading(sh *gpu.Shared) *gpu.Shared {
	n := *sh
	n.Order = nil
	for _, d := range sh.Order {
		if d != 0 {
			n.Order = append(n.Order, d-1)
		}
	}
	return &n
}

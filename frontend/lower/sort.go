package lower

import "github.com/tlego/tle/ir"

// sort, topk and bitonic_merge are lowered here as Triton's standard.py
// writes them, a bitonic network of compare-and-swap steps, built from
// existing ops plus one exchange: butterfly (out[i] = x[i^j] along the
// axis), which the GPU does in registers or by shfl.bfly when the layout
// keeps both elements in a warp, through shared memory otherwise. Each step
// is Triton's _compare_and_swap (y is the partner, is_right the step's bit
// of the position, flip the direction):
//
//	where((x > y) != (flip ^ is_right), y, x)
//
// except for the comparison: Triton's x > y is false whenever a NaN takes
// part, so its right element takes the left's value and a NaN duplicates
// or a number is lost. Here ">" orders NaN above every number (gt), and the
// right element compares y > x rather than !(x > y), so a step always
// swaps both elements or neither and the result is a permutation of x:
// NaNs sort last ascending, first descending (and topk counts them
// largest). Without NaNs the result is Triton's.

// sorter builds the network for tile x along axis.
type sorter struct {
	s     *fn
	shape []int
	axis  int
	dt    ir.DType
	pos   *ir.Value // i32 position along axis, broadcast to shape
}

func (s *fn) newSorter(x *ir.Value, axis int) *sorter {
	shape := ir.ShapeOf(x.Type)
	n := shape[axis]
	pos := s.b.Value(ir.OpArange, ir.TileOf([]int{n}, ir.I32), nil, ir.Attrs{"start": int64(0), "end": int64(n)})
	if len(shape) > 1 {
		line := make([]int, len(shape))
		for i := range line {
			line[i] = 1
		}
		line[axis] = n
		pos = s.b.Value(ir.OpReshape, ir.TileOf(line, ir.I32), []*ir.Value{pos}, nil)
		pos = s.broadcastTo(pos, shape, s.b.Pos)
	}
	return &sorter{s: s, shape: shape, axis: axis, dt: ir.ElemDType(x.Type), pos: pos}
}

func (o *sorter) i1() ir.Type { return ir.TileOf(o.shape, ir.I1) }

// bit is the i1 tile "bit m of the position is set" (is not, when !set).
func (o *sorter) bit(m int, set bool) *ir.Value {
	b := o.s.b
	it := ir.TileOf(o.shape, ir.I32)
	and := b.Value(ir.OpAnd, it, []*ir.Value{o.pos, b.Value(ir.OpConstant, it, nil, ir.Attrs{"value": int64(m)})}, nil)
	pred := "ne"
	if !set {
		pred = "eq"
	}
	return b.Value(ir.OpCmp, o.i1(), []*ir.Value{and, b.Value(ir.OpConstant, it, nil, ir.Attrs{"value": int64(0)})}, ir.Attrs{"pred": pred})
}

// gt is a > b with NaN above every number (floats), a > b for integers.
func (o *sorter) gt(a, c *ir.Value) *ir.Value {
	b := o.s.b
	g := b.Value(ir.OpCmp, o.i1(), []*ir.Value{a, c}, ir.Attrs{"pred": "gt"})
	if !o.dt.IsFloat() {
		return g
	}
	aNaN := b.Value(ir.OpCmp, o.i1(), []*ir.Value{a, a}, ir.Attrs{"pred": "ne"})
	cNum := b.Value(ir.OpCmp, o.i1(), []*ir.Value{c, c}, ir.Attrs{"pred": "eq"})
	return b.Value(ir.OpOr, o.i1(), []*ir.Value{g, b.Value(ir.OpAnd, o.i1(), []*ir.Value{aNaN, cNum}, nil)}, nil)
}

// flip is a step's direction: desc for a whole-tile order (0 or 1), or,
// when by > 0, descending where bit by of the position is set (Triton's
// alternating order: runs of by elements, ascending then descending).
type flip struct {
	desc bool
	by   int
}

// swap is one compare-and-swap step at distance j with direction f: the
// element whose bit j is clear (left) keeps the smaller of the pair, the
// right one the larger (the reverse where f is descending).
func (o *sorter) swap(x *ir.Value, j int, f flip) *ir.Value {
	b := o.s.b
	y := b.Value(ir.OpButterfly, x.Type, []*ir.Value{x}, ir.Attrs{"axis": int64(o.axis), "mask": int64(j)})
	// sel: this element takes y when y > x (rather than x > y)
	var sel *ir.Value
	switch {
	case f.by > 0:
		sel = b.Value(ir.OpXor, o.i1(), []*ir.Value{o.bit(f.by, true), o.bit(j, true)}, nil)
	default:
		sel = o.bit(j, !f.desc)
	}
	take := b.Value(ir.OpSelect, o.i1(), []*ir.Value{sel, o.gt(y, x), o.gt(x, y)}, nil)
	return b.Value(ir.OpSelect, x.Type, []*ir.Value{take, y, x}, nil)
}

// merge is Triton's _bitonic_merge_hypercube: steps at distances
// 2^(stage-1) .. 1.
func (o *sorter) merge(x *ir.Value, stage int, f flip) *ir.Value {
	for j := 1 << stage >> 1; j >= 1; j >>= 1 {
		x = o.swap(x, j, f)
	}
	return x
}

func log2Of(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// sortLike lowers sort (what "sort"), bitonic_merge ("merge") and topk.
func (s *fn) sortLike(a *args, what string) *val {
	c := a.call
	x := s.valueArg(a, "x")
	shape := ir.ShapeOf(x.Type)
	if len(shape) == 0 {
		s.errorf(s.argPos(a, "x"), "%s needs a tile, not a scalar", a.b.Name)
	}
	axis := len(shape) - 1
	if a.has("dim") {
		axis = int(s.constIntArg(a, "dim"))
		if axis < 0 {
			axis += len(shape)
		}
	}
	s.b.Pos = c.Pos()
	n := shape[axis]
	logN := log2Of(n)
	if n == 1 {
		return &val{v: x}
	}
	o := s.newSorter(x, axis)
	switch what {
	case "merge":
		return &val{v: o.merge(x, logN, flip{desc: s.constIntArg(a, "descending") != 0})}
	case "sort":
		desc := s.constIntArg(a, "descending") != 0
		for st := 1; st <= logN; st++ {
			f := flip{by: 1 << st}
			if st == logN {
				f = flip{desc: desc}
			}
			x = o.merge(x, st, f)
		}
		return &val{v: x}
	}
	// topk: Triton's sort_impl with k: runs of k sorted alternately, then
	// each round takes the elementwise maximum of run pairs (a bitonic
	// sequence holding the pair's top k) and merges it; here the tile keeps
	// its width (both runs of a pair hold the result) and the first k
	// elements are gathered at the end.
	k := int(s.constIntArg(a, "k"))
	logK := log2Of(k)
	for st := 1; st <= logK; st++ {
		f := flip{by: 1 << st}
		if st == logN {
			f = flip{desc: true} // k == n: a descending sort
		}
		x = o.merge(x, st, f)
	}
	rounds := logN - logK
	for r := 1; r <= rounds; r++ {
		y := s.b.Value(ir.OpButterfly, x.Type, []*ir.Value{x}, ir.Attrs{"axis": int64(axis), "mask": int64(k << (r - 1))})
		x = s.b.Value(ir.OpSelect, x.Type, []*ir.Value{o.gt(y, x), y, x}, nil)
		f := flip{desc: true}
		if r < rounds {
			f = flip{by: k << r}
		}
		x = o.merge(x, logK, f)
	}
	if k == n {
		return &val{v: x}
	}
	out := append([]int(nil), shape...)
	out[axis] = k
	idx := s.b.Value(ir.OpArange, ir.TileOf([]int{k}, ir.I32), nil, ir.Attrs{"start": int64(0), "end": int64(k)})
	if len(shape) > 1 {
		line := make([]int, len(shape))
		for i := range line {
			line[i] = 1
		}
		line[axis] = k
		idx = s.b.Value(ir.OpReshape, ir.TileOf(line, ir.I32), []*ir.Value{idx}, nil)
		idx = s.broadcastTo(idx, out, s.b.Pos)
	}
	return &val{v: s.b.Value(ir.OpGather, ir.TileOf(out, ir.ElemDType(x.Type)), []*ir.Value{x, idx}, ir.Attrs{"axis": int64(axis)})}
}

// gather lowers gather(src, index, axis) to the gather op.
func (s *fn) gather(a *args) *val {
	c := a.call
	src := s.valueArg(a, "src")
	idx := s.valueArg(a, "index")
	shape := ir.ShapeOf(src.Type)
	axis := int(s.constIntArg(a, "axis"))
	if axis < 0 {
		axis += len(shape)
	}
	s.b.Pos = c.Pos()
	return &val{v: s.b.Value(ir.OpGather, ir.TileOf(ir.ShapeOf(idx.Type), ir.ElemDType(src.Type)), []*ir.Value{src, idx}, ir.Attrs{"axis": int64(axis)})}
}

// histogram lowers histogram(x, num_bins, mask:) as a histogram in shared
// memory, the way one is written by hand in .tle: a [num_bins]i32 buffer
// zeroed, one relaxed CTA-scope atomic add of 1 per element in [0,
// num_bins) where mask holds (out-of-range elements point at bin 0, masked
// off, and are not counted), the buffer read back as the result. x is
// compared in i32 (narrower integers widen exactly) or i64 (u32, i64, u64:
// a u64 above 2^63 becomes negative, out of range either way).
func (s *fn) histogram(a *args) *val {
	c := a.call
	x := s.valueArg(a, "x")
	nb := int(s.constIntArg(a, "num_bins"))
	pos := c.Pos()
	s.b.Pos = pos
	n := ir.ShapeOf(x.Type)[0]
	wide := ir.I32
	if dt := ir.ElemDType(x.Type); dt.Bits() > 32 || dt == ir.U32 {
		wide = ir.I64
	}
	wt, bt := ir.TileOf([]int{n}, wide), ir.TileOf([]int{n}, ir.I1)
	x = s.convert(x, wt, pos)
	konst := func(t ir.Type, v int64) *ir.Value { return s.b.Value(ir.OpConstant, t, nil, ir.Attrs{"value": v}) }
	in := s.b.Value(ir.OpAnd, bt, []*ir.Value{
		s.b.Value(ir.OpCmp, bt, []*ir.Value{x, konst(wt, 0)}, ir.Attrs{"pred": "ge"}),
		s.b.Value(ir.OpCmp, bt, []*ir.Value{x, konst(wt, int64(nb))}, ir.Attrs{"pred": "lt"}),
	}, nil)
	if a.gave("mask") {
		m := s.argAs(a, "mask", bt)
		s.b.Pos = pos
		in = s.b.Value(ir.OpAnd, bt, []*ir.Value{in, m}, nil)
	}
	idx := s.convert(s.b.Value(ir.OpSelect, wt, []*ir.Value{in, x, konst(wt, 0)}, nil), ir.TileOf([]int{n}, ir.I32), pos)
	ht := ir.TileOf([]int{nb}, ir.I32)
	buf := s.b.Value(ir.OpAlloc, &ir.MemDesc{Shape: []int{nb}, Elem: ir.I32, Order: ir.RowMajor(1), Space: ir.Shared}, []*ir.Value{konst(ht, 0)}, nil)
	it := ir.TileOf([]int{n}, ir.I32)
	ptr := s.b.Value(ir.OpLocalPtr, ir.TileOf([]int{n}, &ir.Pointer{Elem: ir.I32, Space: ir.Shared}), []*ir.Value{buf, idx}, nil)
	s.b.Value(ir.OpAtomicRMW, it, []*ir.Value{ptr, konst(it, 1), in}, ir.Attrs{"kind": "add", "sem": "relaxed", "scope": "cta"})
	return &val{v: s.b.Value(ir.OpLocalLoad, ht, []*ir.Value{buf}, nil)}
}

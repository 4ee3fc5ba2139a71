package gpu

import (
	"github.com/tlego/tle/ir"
)

// Function attributes that specialisation keys put on a kernel; the axis
// analysis reads them.
const (
	// AttrDiv16 lists parameter indices ([]int64) of integer parameters known
	// to be multiples of 16 (Triton's divisibility specialisation).
	AttrDiv16 = "div16"
	// AttrUnaligned lists pointer parameter indices ([]int64) NOT known to be
	// 16-byte aligned. Pointer parameters are otherwise assumed 16-byte
	// aligned: the launcher checks it and keys its cache on it.
	AttrUnaligned = "unaligned"
	// AttrNumWarps is the number of warps of a kernel (int64).
	AttrNumWarps = "num_warps"
)

const maxDiv = 1 << 30

// AxisInfo is what is known of an integer or pointer value, per dimension of
// a tile (one entry for a scalar), as in Triton's AxisInfo analysis:
//   - Contig[d]: the values come in runs of Contig[d] consecutive integers
//     along d (for pointers: consecutive elements);
//   - Div[d]: the first value of every such run is a multiple of Div[d]
//     (pointers: of Div[d] bytes);
//   - Const[d]: the values come in runs of Const[d] equal values along d.
//
// All entries are powers of two. Const is a known constant value, if any.
type AxisInfo struct {
	Contig, Div, Const []int
	Value              *int64
}

func pow2Div(v int64) int {
	if v == 0 {
		return maxDiv
	}
	d := 1
	for v%2 == 0 && d < maxDiv {
		v /= 2
		d *= 2
	}
	return d
}

func layGcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func unknownInfo(rank int) *AxisInfo {
	if rank == 0 {
		rank = 1
	}
	a := &AxisInfo{Contig: make([]int, rank), Div: make([]int, rank), Const: make([]int, rank)}
	for d := range a.Contig {
		a.Contig[d], a.Div[d], a.Const[d] = 1, 1, 1
	}
	return a
}

func (a *AxisInfo) clone() *AxisInfo {
	return &AxisInfo{Contig: append([]int(nil), a.Contig...), Div: append([]int(nil), a.Div...),
		Const: append([]int(nil), a.Const...), Value: a.Value}
}

func (a *AxisInfo) equal(b *AxisInfo) bool {
	return layIntsEqual(a.Contig, b.Contig) && layIntsEqual(a.Div, b.Div) && layIntsEqual(a.Const, b.Const) &&
		(a.Value == nil) == (b.Value == nil) && (a.Value == nil || *a.Value == *b.Value)
}

// meet is what holds for both a and b (loop-carried values).
func layMeet(a, b *AxisInfo) *AxisInfo {
	if a == nil {
		return b
	}
	if b == nil || len(a.Div) != len(b.Div) {
		return a
	}
	r := a.clone()
	for d := range r.Div {
		r.Contig[d] = layGcd(a.Contig[d], b.Contig[d])
		r.Div[d] = layGcd(a.Div[d], b.Div[d])
		r.Const[d] = layGcd(a.Const[d], b.Const[d])
	}
	if a.Value == nil || b.Value == nil || *a.Value != *b.Value {
		r.Value = nil
	}
	return r
}

// AxisAnalysis holds the AxisInfo of a function's integer and pointer values.
type AxisAnalysis struct {
	info map[*ir.Value]*AxisInfo
	// assumed: scalars an assume op makes multiples of a power of two
	assumed map[*ir.Value]int
}

// Info returns what is known of v (unknown for values not analysed).
func (a *AxisAnalysis) Info(v *ir.Value) *AxisInfo {
	if i, ok := a.info[v]; ok {
		return i
	}
	return unknownInfo(len(ir.ShapeOf(v.Type)))
}

// AnalyzeAxes runs the contiguity / divisibility / constancy analysis on f.
func AnalyzeAxes(f *ir.Func) *AxisAnalysis {
	a := &AxisAnalysis{info: map[*ir.Value]*AxisInfo{}}
	div16 := map[int]bool{}
	for _, i := range f.Attrs.Ints(AttrDiv16) {
		div16[i] = true
	}
	unaligned := map[int]bool{}
	for _, i := range f.Attrs.Ints(AttrUnaligned) {
		unaligned[i] = true
	}
	a.assumed = assumedDiv(f)
	for i, arg := range f.Body.Args {
		info := unknownInfo(0)
		switch t := arg.Type.(type) {
		case *ir.Pointer:
			if !unaligned[i] {
				info.Div[0] = 16
			}
			_ = t
		case ir.DType:
			if t.IsInt() && div16[i] {
				info.Div[0] = 16
			}
		}
		a.info[arg] = a.assume(arg, info)
	}
	a.block(f.Body)
	return a
}

// assumedDiv collects what f's assume ops say of scalar integers:
// assume(x % n == 0) (or 0 == x % n) makes x a multiple of the largest
// power of two dividing the constant n. Only assumes every run reaches
// where x exists count: one in the kernel's body says it of any x (an SSA
// value is the same everywhere, and the interpreter checks the assume);
// one in a loop's body only of the body's own values and arguments (the
// induction variable, the carried values), which exist only when the
// body runs; one inside an if, of nothing. Other conditions (x > 0) give
// the axis analysis nothing.
func assumedDiv(f *ir.Func) map[*ir.Value]int {
	var out map[*ir.Value]int
	var walk func(b *ir.Block, kind ir.Kind)
	walk = func(b *ir.Block, kind ir.Kind) {
		local := map[*ir.Value]bool{}
		for _, a := range b.Args {
			local[a] = true
		}
		for _, op := range b.Ops {
			for _, r := range op.Regions {
				walk(r, op.Kind)
			}
			for _, r := range op.Results {
				local[r] = true
			}
			if op.Kind != ir.OpAssume || (kind != "" && kind != ir.OpFor) {
				continue
			}
			x, n, ok := assumedMultiple(op.Operands[0])
			if !ok || (kind == ir.OpFor && !local[x]) {
				continue
			}
			if out == nil {
				out = map[*ir.Value]int{}
			}
			out[x] = max(out[x], pow2Div(n))
		}
	}
	walk(f.Body, "")
	return out
}

// assumedMultiple matches cond == (x % n == 0), n a non-zero constant.
func assumedMultiple(cond *ir.Value) (x *ir.Value, n int64, ok bool) {
	cmp := cond.Def
	if cmp == nil || cmp.Kind != ir.OpCmp || cmp.Attrs.String("pred") != "eq" {
		return nil, 0, false
	}
	rem, zero := cmp.Operands[0].Def, cmp.Operands[1].Def
	if zero != nil && zero.Kind == ir.OpRem {
		rem, zero = zero, rem
	}
	if rem == nil || zero == nil || rem.Kind != ir.OpRem || !constInt(zero, 0) {
		return nil, 0, false
	}
	n, ok = constOf(rem.Operands[1])
	if !ok || n == 0 {
		return nil, 0, false
	}
	return rem.Operands[0], n, true
}

func constOf(v *ir.Value) (int64, bool) {
	if v.Def == nil || v.Def.Kind != ir.OpConstant {
		return 0, false
	}
	n, ok := v.Def.Attrs["value"].(int64)
	return n, ok
}

func constInt(op *ir.Op, want int64) bool {
	n, ok := constOf(op.Results[0])
	return ok && n == want
}

// assume refines info, what the analysis derived for v, with what an
// assume op says of v.
func (a *AxisAnalysis) assume(v *ir.Value, info *AxisInfo) *AxisInfo {
	if d := a.assumed[v]; d > info.Div[0] && len(info.Div) == 1 {
		info = info.clone()
		info.Div[0] = d
	}
	return info
}

func (a *AxisAnalysis) block(b *ir.Block) {
	for _, op := range b.Ops {
		a.op(op)
	}
}

func layConstVal(a *AxisInfo, v int64) bool { return a.Value != nil && *a.Value == v }

// ifOp gives each result of an if the meet of what its arms yield.
func (a *AxisAnalysis) ifOp(op *ir.Op) {
	for _, r := range op.Regions {
		a.block(r)
	}
	for i, res := range op.Results {
		var m *AxisInfo
		for _, r := range op.Regions {
			if t := r.Terminator(); t != nil && i < len(t.Operands) {
				m = layMeet(m, a.Info(t.Operands[i]))
			}
		}
		if m != nil {
			a.info[res] = m
		}
	}
}

// axisHint is what multiple_of, max_contiguous and max_constancy make of
// x's facts: the given ones replace the derived ones (the interpreter
// checks them); a run is no longer than its axis, and a value a power of
// two (the largest dividing a divisibility).
func axisHint(op *ir.Op, x *AxisInfo, shape []int) *AxisInfo {
	out := x.clone()
	for d := range out.Div {
		if v := op.Attrs.Ints("divisibility"); d < len(v) {
			out.Div[d] = pow2Div(int64(v[d]))
		}
		if v := op.Attrs.Ints("contiguity"); d < len(v) {
			out.Contig[d] = min(v[d], max(1, layDimOf(shape, d)))
		}
		if v := op.Attrs.Ints("constancy"); d < len(v) {
			out.Const[d] = min(v[d], max(1, layDimOf(shape, d)))
		}
	}
	return out
}

func (a *AxisAnalysis) op(op *ir.Op) {
	switch op.Kind {
	case ir.OpFor:
		a.forOp(op)
		return
	case ir.OpIf:
		a.ifOp(op)
		return
	}
	for _, r := range op.Regions {
		a.block(r)
	}
	if len(op.Results) != 1 {
		return
	}
	res := op.Results[0]
	shape := ir.ShapeOf(res.Type)
	rank := len(shape)
	in := func(i int) *AxisInfo { return a.Info(op.Operands[i]) }
	out := unknownInfo(rank)
	switch op.Kind {
	case OpConvertLayout:
		out = in(0).clone()
	case ir.OpRemotePtr:
		// the same offsets in a peer's symmetric heap: one byte distance
		// for every element, a multiple of the heaps' 16-byte alignment
		// (the device-mesh ABI)
		out = in(0).clone()
		out.Value = nil
		for d := range out.Div {
			out.Div[d] = min(out.Div[d], 16)
		}
	case ir.OpAxisHint:
		out = axisHint(op, in(0), shape)
	case ir.OpConstant:
		if v, ok := op.Attrs["value"].(int64); ok {
			vv := v
			out.Value = &vv
			for d := range out.Div {
				out.Div[d] = pow2Div(v)
			}
		}
		if v, ok := op.Attrs["value"].(bool); ok {
			vv := int64(0)
			if v {
				vv = 1
			}
			out.Value = &vv
		}
		for d := range shape {
			out.Const[d] = shape[d]
		}
	case ir.OpArange:
		start := op.Attrs.Int("start", 0)
		out.Contig[0] = shape[0]
		out.Div[0] = pow2Div(start)
	case ir.OpSplat:
		s := in(0)
		for d := range shape {
			out.Div[d] = s.Div[0]
			out.Const[d] = shape[d]
		}
		out.Value = s.Value
	case ir.OpBroadcast:
		s := in(0)
		inShape := ir.ShapeOf(op.Operands[0].Type)
		for d := range shape {
			out.Div[d] = s.Div[d]
			if inShape[d] == 1 && shape[d] != 1 {
				out.Contig[d], out.Const[d] = 1, shape[d]
			} else {
				out.Contig[d], out.Const[d] = s.Contig[d], s.Const[d]
			}
		}
		out.Value = s.Value
	case ir.OpExpandDims:
		s := in(0)
		axis := int(op.Attrs.Int("axis", 0))
		newDiv := maxDiv
		for d := range s.Div {
			if s.Contig[d] > 1 {
				newDiv = 1
			}
			newDiv = min(newDiv, s.Div[d])
		}
		if len(ir.ShapeOf(op.Operands[0].Type)) == 0 {
			newDiv = s.Div[0]
		}
		j := 0
		for d := range shape {
			if d == axis {
				out.Contig[d], out.Div[d], out.Const[d] = 1, newDiv, 1
				continue
			}
			out.Contig[d], out.Div[d], out.Const[d] = s.Contig[j], s.Div[j], s.Const[j]
			j++
		}
		out.Value = s.Value
	case ir.OpAdd, ir.OpSub, ir.OpAddPtr:
		x, y := in(0), in(1)
		scale := 1
		if op.Kind == ir.OpAddPtr {
			scale = ir.ElemDType(op.Operands[0].Type).Bytes()
		}
		for d := range out.Div {
			c := layGcd(x.Contig[d], y.Const[d])
			if op.Kind != ir.OpSub {
				c = max(c, layGcd(x.Const[d], y.Contig[d]))
			}
			out.Contig[d] = c
			out.Div[d] = layGcd(x.Div[d], min(maxDiv, y.Div[d]*scale))
			out.Const[d] = layGcd(x.Const[d], y.Const[d])
		}
		if x.Value != nil && y.Value != nil && op.Kind != ir.OpAddPtr {
			v := *x.Value + *y.Value
			if op.Kind == ir.OpSub {
				v = *x.Value - *y.Value
			}
			out.Value = &v
		}
	case ir.OpMul:
		x, y := in(0), in(1)
		switch {
		case layConstVal(y, 1):
			out = x.clone()
		case layConstVal(x, 1):
			out = y.clone()
		default:
			for d := range out.Div {
				out.Div[d] = min(maxDiv, x.Div[d]*y.Div[d])
				out.Const[d] = layGcd(x.Const[d], y.Const[d])
			}
			if x.Value != nil && y.Value != nil {
				v := *x.Value * *y.Value
				out.Value = &v
			}
		}
	case ir.OpShl:
		x, y := in(0), in(1)
		for d := range out.Div {
			out.Const[d] = layGcd(x.Const[d], y.Const[d])
			if y.Value != nil && *y.Value >= 0 && *y.Value < 30 {
				out.Div[d] = min(maxDiv, x.Div[d]<<uint(*y.Value))
			}
		}
	case ir.OpCmp:
		x, y := in(0), in(1)
		pred := op.Attrs.String("pred")
		for d := range out.Div {
			c := layGcd(x.Const[d], y.Const[d])
			if pred != "eq" && pred != "ne" {
				if y.Const[d] > 1 || layDimOf(shape, d) == 1 {
					c = max(c, layGcd(layGcd(x.Contig[d], x.Div[d]), min(y.Div[d], y.Const[d])))
				}
				if x.Const[d] > 1 || layDimOf(shape, d) == 1 {
					c = max(c, layGcd(layGcd(y.Contig[d], y.Div[d]), min(x.Div[d], x.Const[d])))
				}
			}
			out.Const[d] = min(c, max(1, layDimOf(shape, d)))
		}
	case ir.OpRem:
		// x % y with y constant in runs: runs of x aligned to y's divisor stay
		x, y := in(0), in(1)
		for d := range out.Div {
			out.Const[d] = layGcd(x.Const[d], y.Const[d])
			if y.Const[d] >= layDimOf(shape, d) || len(shape) == 0 {
				out.Contig[d] = layGcd(layGcd(x.Contig[d], y.Div[d]), x.Div[d])
				out.Div[d] = layGcd(x.Div[d], y.Div[d])
			}
		}
	case ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNot, ir.OpCast, ir.OpNeg, ir.OpSelect, ir.OpDiv,
		ir.OpMin, ir.OpMax, ir.OpShr:
		for d := range out.Div {
			c := 0
			for i := range op.Operands {
				c = layGcd(c, in(i).Const[d])
			}
			if c == 0 {
				c = 1
			}
			out.Const[d] = c
		}
		if op.Kind == ir.OpSelect {
			for d := range out.Div {
				out.Div[d] = layGcd(in(1).Div[d], in(2).Div[d])
			}
		}
		if op.Kind == ir.OpCast && ir.ElemDType(res.Type).IsInt() && ir.ElemDType(op.Operands[0].Type).IsInt() &&
			ir.ElemDType(res.Type).Bits() >= ir.ElemDType(op.Operands[0].Type).Bits() {
			out = in(0).clone()
		}
	}
	a.info[res] = a.assume(res, out)
}

func layDimOf(shape []int, d int) int {
	if d < len(shape) {
		return shape[d]
	}
	return 1
}

func (a *AxisAnalysis) forOp(op *ir.Op) {
	body := op.Regions[0]
	inits := op.Operands[3:]
	// iv: lb + k*step
	iv := unknownInfo(0)
	lb, st := a.Info(op.Operands[0]), a.Info(op.Operands[2])
	iv.Div[0] = layGcd(lb.Div[0], st.Div[0])
	a.info[body.Args[0]] = a.assume(body.Args[0], iv)
	for i, init := range inits {
		a.info[body.Args[1+i]] = a.assume(body.Args[1+i], a.Info(init))
	}
	for iter := 0; iter < 4; iter++ {
		a.block(body)
		changed := false
		y := body.Terminator()
		for i := range inits {
			arg := body.Args[1+i]
			m := a.assume(arg, layMeet(a.info[arg], a.Info(y.Operands[i])))
			if !m.equal(a.info[arg]) {
				a.info[arg] = m
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for i := range inits {
		a.info[op.Results[i]] = a.info[body.Args[1+i]]
	}
}

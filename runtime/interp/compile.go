package interp

import (
	"fmt"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/ir"
)

// slotInfo is the static description of one SSA value: where its runtime
// value lives in a frame and how its elements are stored.
type slotInfo struct {
	typ   ir.Type
	dt    ir.DType // element dtype (the pointee for pointers)
	ptr   bool     // elements are packed pointers (stored in val.i)
	float bool     // elements are stored in val.f
	ref   bool     // not an array: memdesc, barrier, pipe, slot, mesh, desc
	n     int      // number of elements (1 for a scalar)
	shape []int    // nil for a scalar
	name  string
}

// instr is one op prepared for execution: operands and results are frame
// slots, nested regions are prepared blocks, and frees lists the values
// whose last use is this op.
type instr struct {
	op      *ir.Op
	args    []int
	res     []int
	regions []*block
	frees   []int
	alloc   int // index of an alloc op in a CTA's shared-memory table
	// lazy: a splat of a scalar or a constant tile whose every user
	// stretches a one-element operand itself (scalarReaders): its value
	// stays one element; an addptr whose every user is a load or store
	// reading it as pointers: consecutive pointers stay their first
	// (factLazy); a cmp whose users all stretch scalars: a mask known all
	// on stays one element
	lazy bool
}

// scalarReaders are the ops that read every array operand through
// bcastF / bcastI (or take a one-element one as is), so that a splat
// feeding only them need not be materialized.
var scalarReaders = map[ir.Kind]bool{
	ir.OpAddPtr: true, ir.OpCmp: true, ir.OpSelect: true, ir.OpLoad: true, ir.OpStore: true,
	ir.OpAdd: true, ir.OpSub: true, ir.OpMul: true, ir.OpDiv: true, ir.OpRem: true, ir.OpMin: true, ir.OpMax: true,
	ir.OpAnd: true, ir.OpOr: true, ir.OpXor: true, ir.OpShl: true, ir.OpShr: true, ir.OpDivRN: true, ir.OpUMulHi: true,
	ir.OpAtan2: true, ir.OpPow: true,
}

type block struct {
	args       []int
	code       []*instr // without the terminator
	term       *instr   // yield or return; nil when absent
	entryFrees []int    // block arguments that are never used
	owned      map[int]bool
}

// program is a kernel prepared for execution.
type program struct {
	fn      *ir.Func
	slots   []slotInfo
	body    *block
	params  []int
	cluster [3]int
	devices int      // the device axis of the kernel's device_mesh; 0 without one
	allocs  []*ir.Op // alloc ops by alloc index
	slotOf  map[*ir.Value]int
}

type compiler struct {
	p    *program
	file *diag.File
	role map[*ir.Value]*ir.Op // value -> the role op whose region defines it
	// wide: values some user of which is not a scalarReader
	wide map[*ir.Value]bool
	// notAddr: values used other than as the pointers of a load or store
	notAddr map[*ir.Value]bool
}

func compile(fn *ir.Func, file *diag.File) (*program, error) {
	p := &program{fn: fn, slotOf: map[*ir.Value]int{}, cluster: [3]int{1, 1, 1}}
	c := &compiler{p: p, file: file, role: map[*ir.Value]*ir.Op{}, wide: map[*ir.Value]bool{}, notAddr: map[*ir.Value]bool{}}
	meshSeen := false
	var err error
	fn.Walk(func(op *ir.Op) {
		if !scalarReaders[op.Kind] {
			for _, v := range op.Operands {
				c.wide[v] = true
			}
		}
		for k, v := range op.Operands {
			if k != 0 || op.Kind != ir.OpLoad && op.Kind != ir.OpStore {
				c.notAddr[v] = true
			}
		}
		if err != nil {
			return
		}
		switch op.Kind {
		case ir.OpAsm:
			err = diag.Errorf(file, posIn(file, op.Pos), "asm is GPU-only; the interpreter cannot run it")
		case ir.OpCall:
			err = diag.Errorf(file, posIn(file, op.Pos), "call to %q was not inlined; the interpreter runs inlined kernels only", op.Attrs.String("callee"))
		case ir.OpDeviceMesh:
			dims := meshDims(op)
			for _, d := range dims {
				if d < 1 {
					err = diag.Errorf(file, posIn(file, op.Pos), "device_mesh dimensions must be positive, got %v", dims)
					return
				}
			}
			if meshSeen && dims != p.cluster {
				err = diag.Errorf(file, posIn(file, op.Pos), "device_mesh %v differs from the kernel's other mesh %v", dims, p.cluster)
				return
			}
			meshSeen = true
			p.cluster = dims
			if n := int(op.Attrs.Int("devices", 0)); n > 0 {
				p.devices = n
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if !meshSeen {
		for _, key := range []string{"cluster", "cluster_dims"} {
			if v, ok := fn.Attrs[key].([]int64); ok && len(v) > 0 {
				for k := 0; k < 3 && k < len(v); k++ {
					p.cluster[k] = max(int(v[k]), 1)
				}
			}
		}
	}
	body, err := c.block(fn.Body, nil)
	if err != nil {
		return nil, err
	}
	p.body = body
	p.params = body.args
	// parameters are shared read-only by every CTA: never free them
	body.entryFrees = nil
	for _, in := range body.code {
		kept := in.frees[:0]
		for _, s := range in.frees {
			if !contains(p.params, s) {
				kept = append(kept, s)
			}
		}
		in.frees = kept
	}
	return p, nil
}

func meshDims(op *ir.Op) [3]int {
	d := [3]int{1, 1, 1}
	for k, v := range op.Attrs.Ints("dims") {
		if k < 3 {
			d[k] = v
		}
	}
	return d
}

func (c *compiler) slot(v *ir.Value) int {
	if s, ok := c.p.slotOf[v]; ok {
		return s
	}
	s := len(c.p.slots)
	c.p.slotOf[v] = s
	c.p.slots = append(c.p.slots, describe(v))
	return s
}

func describe(v *ir.Value) slotInfo {
	si := slotInfo{typ: v.Type, name: v.Name, n: 1}
	elem := v.Type
	if t, ok := v.Type.(*ir.Tile); ok {
		si.shape = t.Shape
		si.n = ir.NumElements(t.Shape)
		elem = t.Elem
	}
	switch e := elem.(type) {
	case ir.DType:
		si.dt = e
		si.float = e.IsFloat()
	case *ir.Pointer:
		si.dt = e.Elem
		si.ptr = true
	default:
		si.ref = true
		si.n = 0
		si.shape = nil
	}
	return si
}

// block prepares b. role is the role op whose region b is in (nil outside
// warp_specialize).
func (c *compiler) block(b *ir.Block, role *ir.Op) (*block, error) {
	out := &block{owned: map[int]bool{}}
	for _, a := range b.Args {
		s := c.slot(a)
		out.args = append(out.args, s)
		out.owned[s] = true
		c.role[a] = role
	}
	lastUse := map[int]int{}
	var uses func(op *ir.Op, at int)
	uses = func(op *ir.Op, at int) {
		for _, v := range op.Operands {
			if s, ok := c.p.slotOf[v]; ok && out.owned[s] {
				lastUse[s] = at
			}
		}
		for _, r := range op.Regions {
			for _, o := range r.Ops {
				uses(o, at)
			}
		}
	}
	for k, op := range b.Ops {
		for _, v := range op.Operands {
			if v == nil {
				return nil, diag.Errorf(c.file, posIn(c.file, op.Pos), "%s has a nil operand", op.Kind)
			}
			if _, ok := c.p.slotOf[v]; !ok {
				return nil, diag.Errorf(c.file, posIn(c.file, op.Pos), "%s uses a value that is not defined before it", op.Kind)
			}
			if r := c.role[v]; r != nil && r != role {
				return nil, diag.Errorf(c.file, posIn(c.file, op.Pos), "role %s uses a value computed by role %s: roles share nothing but buffers, pipes and barriers",
					roleName(role), roleName(r))
			}
		}
		in := &instr{op: op, alloc: -1}
		for _, v := range op.Operands {
			in.args = append(in.args, c.p.slotOf[v])
		}
		for _, r := range op.Results {
			s := c.slot(r)
			in.res = append(in.res, s)
			out.owned[s] = true
			c.role[r] = role
			lastUse[s] = k // unused results die right after their op
		}
		if op.Kind == ir.OpSplat && len(op.Operands) == 1 && len(op.Results) == 1 && !c.wide[op.Results[0]] &&
			len(ir.ShapeOf(op.Operands[0].Type)) == 0 && !c.p.slots[in.res[0]].ref {
			in.lazy = true
		}
		if op.Kind == ir.OpAddPtr && len(op.Results) == 1 && !c.notAddr[op.Results[0]] {
			in.lazy = true
		}
		if op.Kind == ir.OpCmp && len(op.Results) == 1 && !c.wide[op.Results[0]] {
			in.lazy = true
		}
		if op.Kind == ir.OpConstant && len(op.Results) == 1 && !c.wide[op.Results[0]] && !c.p.slots[in.res[0]].ref {
			in.lazy = true
		}
		if op.Kind == ir.OpAlloc {
			in.alloc = len(c.p.allocs)
			c.p.allocs = append(c.p.allocs, op)
		}
		for _, r := range op.Regions {
			inner := role
			if op.Kind == ir.OpRole {
				inner = op
			}
			rb, err := c.block(r, inner)
			if err != nil {
				return nil, err
			}
			in.regions = append(in.regions, rb)
		}
		uses(op, k)
		if op.Kind.IsTerminator() {
			if k != len(b.Ops)-1 {
				return nil, diag.Errorf(c.file, posIn(c.file, op.Pos), "%s must end its block", op.Kind)
			}
			out.term = in
		} else {
			out.code = append(out.code, in)
		}
	}
	termAt := len(b.Ops) - 1
	for _, s := range out.args {
		if _, ok := lastUse[s]; !ok {
			out.entryFrees = append(out.entryFrees, s)
		}
	}
	for s, at := range lastUse {
		if out.term != nil && at == termAt {
			continue // the parent moves what a terminator passes on
		}
		out.code[at].frees = append(out.code[at].frees, s)
	}
	return out, nil
}

func roleName(r *ir.Op) string {
	if r == nil {
		return "<outside warp_specialize>"
	}
	return ir.RoleLabel(r)
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (p *program) String() string {
	return fmt.Sprintf("program(%s, %d slots)", p.fn.Name, len(p.slots))
}

// posIn drops positions when there is no source to resolve them against.
func posIn(f *diag.File, p diag.Pos) diag.Pos {
	if f == nil || f.Src == nil {
		return diag.NoPos
	}
	return p
}

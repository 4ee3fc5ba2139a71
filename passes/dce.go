package passes

import (
	"slices"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// The tile IR has one dead-code eliminator, with two rule sets: the dce row
// of the pass table (DCE) on the target-independent IR, and the cleanup the
// layout passes run after rewriting a function (DeadCode). Both delete the
// ops their rules allow whose results nothing uses, repeating until nothing
// changes; the result does not depend on the order of the deletions.

// dceRules say what may be deleted.
type dceRules struct {
	// regions: for and if ops whose regions hold only deletable code go
	// when their results are unused, and unused if results and dead
	// loop-carried values are dropped.
	regions bool
	// layoutOps: convert_layout, and the local_load and alloc a staged
	// operand leaves, go when unused, like pure ops; only ops with results
	// and no regions are deleted.
	layoutOps bool
}

var (
	// tileDCE: the dce row, before any layout exists.
	tileDCE = dceRules{regions: true}
	// layoutDCE: after AssignLayouts and PipelineLoops have rewritten a
	// function (the originals of recomputed weak chains, converts and
	// staging made redundant).
	layoutDCE = dceRules{layoutOps: true}
)

// DCE deletes code whose results nobody uses and that has no side effect:
// pure ops, and for/if ops whose regions hold only such code. It also drops
// unused results of if ops, and unused loop-carried values of for ops whose
// body argument only feeds its own yield. It repeats until nothing changes.
func DCE(m *ir.Module, ctx *Context) error {
	for _, f := range m.Funcs {
		deadCode(f, tileDCE)
	}
	return nil
}

// DeadCode deletes pure ops, layout conversions and unused shared-memory
// staging (local_load, alloc) whose results are unused: the cleanup of the
// layout passes. It keeps every for and if op and their results.
func DeadCode(f *ir.Func) { deadCode(f, layoutDCE) }

func deadCode(f *ir.Func, rules dceRules) {
	for {
		d := &dce{uses: f.Uses(), rules: rules}
		d.block(f.Body)
		if !d.changed {
			return
		}
	}
}

type dce struct {
	uses    map[*ir.Value]int
	rules   dceRules
	changed bool
}

// dceSideEffectFree reports ops that may be deleted when their results are unused.
func dceSideEffectFree(op *ir.Op) bool {
	switch op.Kind {
	case ir.OpFor, ir.OpIf, ir.OpYield:
		for _, rg := range op.Regions {
			for _, o := range rg.Ops {
				if !dceSideEffectFree(o) {
					return false
				}
			}
		}
		return true
	}
	return op.Kind.IsPure() && len(op.Regions) == 0
}

// sharedLoad reports a load through pointers into this CTA's shared
// memory (local_ptr): a read with no other effect, which the layout pass
// may leave dead after reading it again in another layout.
func sharedLoad(op *ir.Op) bool {
	if op.Kind != ir.OpLoad || len(op.Operands) == 0 {
		return false
	}
	var p *ir.Pointer
	switch t := op.Operands[0].Type.(type) {
	case *ir.Tile:
		p, _ = t.Elem.(*ir.Pointer)
	case *ir.Pointer:
		p = t
	}
	return p != nil && p.Space == ir.Shared
}

// deletable reports whether op may go when its results are unused.
func (d *dce) deletable(op *ir.Op) bool {
	if d.rules.layoutOps {
		k := op.Kind
		return (k.IsPure() || k == gpu.OpConvertLayout || k == ir.OpLocalLoad || k == ir.OpAlloc || sharedLoad(op)) && len(op.Regions) == 0 && len(op.Results) > 0
	}
	if !d.rules.regions && len(op.Regions) > 0 {
		return false
	}
	return op.Kind != ir.OpYield && op.Kind != ir.OpReturn && dceSideEffectFree(op)
}

func (d *dce) unused(op *ir.Op) bool {
	for _, r := range op.Results {
		if d.uses[r] > 0 {
			return false
		}
	}
	return true
}

// drop forgets the uses made by op and everything nested in it.
func (d *dce) drop(op *ir.Op) {
	for _, x := range op.Operands {
		d.uses[x]--
	}
	for _, rg := range op.Regions {
		for _, o := range rg.Ops {
			d.drop(o)
		}
	}
}

func (d *dce) block(b *ir.Block) {
	for i := len(b.Ops) - 1; i >= 0; i-- {
		op := b.Ops[i]
		if d.unused(op) && d.deletable(op) {
			d.drop(op)
			b.Ops = slices.Delete(b.Ops, i, i+1)
			op.Parent = nil
			d.changed = true
			continue
		}
		switch {
		case !d.rules.regions:
		case op.Kind == ir.OpIf:
			d.pruneIf(op)
		case op.Kind == ir.OpFor:
			d.pruneFor(op)
		}
		for _, rg := range op.Regions {
			d.block(rg)
		}
	}
}

// pruneIf removes if results nobody uses, with their yield operands.
func (d *dce) pruneIf(op *ir.Op) {
	for i := len(op.Results) - 1; i >= 0; i-- {
		if d.uses[op.Results[i]] > 0 || len(op.Regions) != 2 {
			continue
		}
		for _, rg := range op.Regions {
			y := rg.Terminator()
			d.uses[y.Operands[i]]--
			y.Operands = slices.Delete(y.Operands, i, i+1)
		}
		op.Results = slices.Delete(op.Results, i, i+1)
		d.changed = true
	}
	for i, r := range op.Results {
		r.Index = i
	}
}

// pruneFor removes loop-carried values whose result is unused and whose
// body argument only feeds (through pure ops of the body) its own yield
// operand: the argument, those ops and the yield operand form a dead cycle.
func (d *dce) pruneFor(op *ir.Op) {
	body := op.Regions[0]
	y := body.Terminator()
	if y == nil || y.Kind != ir.OpYield || len(y.Operands) != len(op.Results) || len(body.Args) != len(op.Results)+1 || len(op.Operands) != len(op.Results)+3 {
		return
	}
	while, hasWhile := op.Attrs["while"].(int64)
	for i := len(op.Results) - 1; i >= 0; i-- {
		if d.uses[op.Results[i]] > 0 || hasWhile && int64(i) == while {
			continue // (the while flag is read by the loop itself)
		}
		cycle, ok := d.deadCycle(body, y, i)
		if !ok {
			continue
		}
		for j := len(body.Ops) - 1; j >= 0; j-- {
			if o := body.Ops[j]; cycle[o] {
				d.drop(o)
				o.Parent = nil
				body.Ops = slices.Delete(body.Ops, j, j+1)
			}
		}
		d.uses[y.Operands[i]]--
		d.uses[op.Operands[3+i]]--
		y.Operands = slices.Delete(y.Operands, i, i+1)
		op.Operands = slices.Delete(op.Operands, 3+i, 4+i)
		body.Args = slices.Delete(body.Args, i+1, i+2)
		op.Results = slices.Delete(op.Results, i, i+1)
		d.changed = true
		if hasWhile && int64(i) < while {
			while--
			op.Attrs["while"] = while
		}
	}
	for i, r := range op.Results {
		r.Index = i
	}
	for i, a := range body.Args {
		a.Index = i
	}
}

// deadCycle collects the pure ops of body computing yield operand i and
// reports whether they and body argument i+1 are used by nothing else.
func (d *dce) deadCycle(body *ir.Block, y *ir.Op, i int) (map[*ir.Op]bool, bool) {
	arg := body.Args[i+1]
	set := map[*ir.Op]bool{}
	work := []*ir.Value{y.Operands[i]}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		o := v.Def
		if o == nil || o.Parent != body || set[o] || !o.Kind.IsPure() || len(o.Regions) > 0 {
			continue
		}
		set[o] = true
		work = append(work, o.Operands...)
	}
	internal := map[*ir.Value]int{y.Operands[i]: 1}
	for o := range set {
		for _, x := range o.Operands {
			internal[x]++
		}
	}
	if d.uses[arg] != internal[arg] {
		return nil, false
	}
	for o := range set {
		for _, r := range o.Results {
			if d.uses[r] != internal[r] {
				return nil, false
			}
		}
	}
	return set, true
}

package passes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tlego/tle/ir"
)

// CSE merges pure ops (ir.Kind.IsPure, no regions) with the same kind,
// operands, attributes and result types. An op is replaced by an identical
// one earlier in its block or in an enclosing block, never by one inside a
// region it does not belong to (an if's then branch cannot serve its else
// branch or the code after the if). Operands of cseCommutative ops are
// compared as a set, and so are fma's two factors. A global load is merged with an identical one earlier
// in its block when nothing between them may write global memory or order
// it (cseKeepsLoads).
func CSE(m *ir.Module, ctx *Context) error {
	for _, f := range m.Funcs {
		c := &cse{repl: map[*ir.Value]*ir.Value{}, ids: map[*ir.Value]int{}}
		c.block(f.Body, nil)
	}
	return nil
}

type cseScope struct {
	parent *cseScope
	table  map[string]*ir.Op
}

func (s *cseScope) lookup(k string) *ir.Op {
	for ; s != nil; s = s.parent {
		if op, ok := s.table[k]; ok {
			return op
		}
	}
	return nil
}

type cse struct {
	repl map[*ir.Value]*ir.Value
	ids  map[*ir.Value]int // dense numbering for keys
}

func (c *cse) id(v *ir.Value) int {
	if n, ok := c.ids[v]; ok {
		return n
	}
	c.ids[v] = len(c.ids)
	return c.ids[v]
}

func cseCommutative(op *ir.Op) bool {
	switch op.Kind {
	case ir.OpAdd, ir.OpMul, ir.OpMin, ir.OpMax, ir.OpAnd, ir.OpOr, ir.OpXor:
		return true
	case ir.OpCmp:
		p := op.Attrs.String("pred")
		return p == "eq" || p == "ne"
	}
	return false
}

func (c *cse) key(op *ir.Op) string {
	ids := make([]int, len(op.Operands))
	for i, x := range op.Operands {
		ids[i] = c.id(x)
	}
	if cseCommutative(op) {
		slices.Sort(ids)
	} else if op.Kind == ir.OpFMA && ids[0] > ids[1] {
		ids[0], ids[1] = ids[1], ids[0] // a*b + c is b*a + c, exactly
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%v%s:", op.Kind, ids, ir.FormatAttrs(op.Attrs))
	for _, r := range op.Results {
		b.WriteString(r.Type.String() + ";")
	}
	return b.String()
}

// cseGlobalLoad reports a synchronous load from global memory (a scalar
// or tile of global pointers), which CSE may merge with an identical one
// earlier in its block when no op between them may write memory or order
// it (cse.block).
func cseGlobalLoad(op *ir.Op) bool {
	// a volatile load and a .cv one (fetch again) each read memory anew
	return op.Kind == ir.OpLoad && len(op.Regions) == 0 && !op.Attrs.Bool("async") && !op.Attrs.Bool("volatile") &&
		op.Attrs.String("cache_modifier") != ".cv" && cseGlobalPtr(op.Operands[0])
}

// cseGlobalPtr reports a global pointer or a tile of them.
func cseGlobalPtr(v *ir.Value) bool {
	var elem ir.Type = v.Type
	if t, ok := elem.(*ir.Tile); ok {
		elem = t.Elem
	}
	p, ok := elem.(*ir.Pointer)
	return ok && p.Space == ir.Global
}

// cseKeepsLoads reports ops that neither write global memory nor order
// this program's accesses against others' (pure ops, shared-memory buffers
// and their loads and stores, synchronous loads): identical global loads on
// both sides of them read the same.
func cseKeepsLoads(op *ir.Op) bool {
	if len(op.Regions) != 0 {
		return false
	}
	switch op.Kind {
	case ir.OpAlloc, ir.OpLocalLoad, ir.OpLocalStore:
		return true
	case ir.OpLoad:
		return !op.Attrs.Bool("async")
	case ir.OpStore:
		return !cseGlobalPtr(op.Operands[0])
	}
	return op.Kind.IsPure()
}

func (c *cse) block(b *ir.Block, parent *cseScope) {
	s := &cseScope{parent: parent, table: map[string]*ir.Op{}}
	// identical global loads since the last op that may write global
	// memory or order it (cseKeepsLoads): the second reads what the first
	// did (no other thread's write between them is ordered before it
	// either), which a masked load's inline asm hides from LLVM
	loads := map[string]*ir.Op{}
	kept := b.Ops[:0]
	for _, op := range b.Ops {
		for i, x := range op.Operands {
			if r, ok := c.repl[x]; ok {
				op.Operands[i] = r
			}
		}
		if cseGlobalLoad(op) {
			k := c.key(op)
			if prev := loads[k]; prev != nil {
				c.repl[op.Results[0]] = prev.Results[0]
				op.Parent = nil
				continue
			}
			loads[k] = op
			kept = append(kept, op)
			continue
		}
		if !cseKeepsLoads(op) {
			clear(loads)
		}
		if op.Kind.IsPure() && len(op.Regions) == 0 && len(op.Results) > 0 {
			k := c.key(op)
			if prev := s.lookup(k); prev != nil {
				for i, r := range op.Results {
					c.repl[r] = prev.Results[i]
				}
				op.Parent = nil
				continue
			}
			s.table[k] = op
		}
		for _, rg := range op.Regions {
			c.block(rg, s)
		}
		kept = append(kept, op)
	}
	clear(b.Ops[len(kept):])
	b.Ops = kept
}

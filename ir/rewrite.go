package ir

import "slices"

// Helpers for passes that rewrite the IR.

// CloneAttrs copies an attribute map (lists are copied too).
func CloneAttrs(a Attrs) Attrs {
	out := make(Attrs, len(a))
	for k, v := range a {
		if l, ok := v.([]int64); ok {
			v = slices.Clone(l)
		}
		out[k] = v
	}
	return out
}

// CloneOp deep-copies op, its regions included, giving every result and
// region argument a fresh value of f (same type and name). Operands found in
// vmap are replaced by their image; others (values defined outside what is
// being cloned) are kept. vmap is extended with old -> new for every value
// the clone defines, so cloning a sequence of ops keeps their def-use links.
// The clone's Parent is nil: insert it with Block.InsertAt.
func (f *Func) CloneOp(op *Op, vmap map[*Value]*Value) *Op {
	c := &Op{Kind: op.Kind, Attrs: CloneAttrs(op.Attrs), Pos: op.Pos, Inlined: op.Inlined}
	for _, x := range op.Operands {
		if y, ok := vmap[x]; ok {
			x = y
		}
		c.Operands = append(c.Operands, x)
	}
	for _, rg := range op.Regions {
		nb := &Block{Parent: c}
		for _, a := range rg.Args {
			vmap[a] = f.AddBlockArg(nb, a.Type, a.Name)
		}
		for _, o := range rg.Ops {
			co := f.CloneOp(o, vmap)
			co.Parent = nb
			nb.Ops = append(nb.Ops, co)
		}
		c.Regions = append(c.Regions, nb)
	}
	for i, r := range op.Results {
		nr := f.NewValue(r.Type, r.Name, c, nil, i)
		c.Results = append(c.Results, nr)
		vmap[r] = nr
	}
	return c
}

// IndexOf returns op's index in b, or -1.
func (b *Block) IndexOf(op *Op) int { return slices.Index(b.Ops, op) }

// InsertAt inserts ops into b before index i and sets their Parent.
func (b *Block) InsertAt(i int, ops ...*Op) {
	for _, op := range ops {
		op.Parent = b
	}
	b.Ops = slices.Insert(b.Ops, i, ops...)
}

// MoveOpsBefore moves every op of src except its terminator into op's block,
// just before op, and returns the terminator (nil when src is empty or does
// not end in one). It is how a pass inlines a region.
func MoveOpsBefore(op *Op, src *Block) *Op {
	term := src.Terminator()
	ops := src.Ops
	if term != nil && term.Kind.IsTerminator() {
		ops = ops[:len(ops)-1]
	} else {
		term = nil
	}
	b := op.Parent
	b.InsertAt(b.IndexOf(op), ops...)
	src.Ops = nil
	if term != nil {
		src.Ops = []*Op{term}
	}
	return term
}

// ReplaceAllUsesIn makes every use of old inside b (and its regions) use new.
func (b *Block) ReplaceAllUsesIn(old, new *Value) {
	b.Walk(func(op *Op) {
		for i, v := range op.Operands {
			if v == old {
				op.Operands[i] = new
			}
		}
	})
}

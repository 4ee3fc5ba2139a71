package check

import "github.com/tlego/tle/frontend/ast"

// Register-level loads and stores through a tensor descriptor, Triton's
// desc.load(offsets) and desc.store(offsets, value): one block at element
// coordinates of the global tensor, outermost dimension first. The
// lowering turns them into the explicit TMA forms (a shared buffer and an
// mbarrier of the site's own, expect, copy, wait and load(buf); store(buf),
// copy to the desc).

// descOffsets checks desc.load's and desc.store's offsets: a list of
// scalar integers, one per dimension of the block (a plain integer for a
// block of rank 1).
func (c *checker) descOffsets(cc *callCtx, d *Desc) bool {
	a := cc.get("offsets")
	if isInvalid(a.typ) {
		return false
	}
	var elems []ast.Expr
	if l, ok := unparen(a.expr).(*ast.ListExpr); ok && l.Elem == nil {
		var ok bool
		if elems, ok = c.intList(cc, a); !ok {
			return false
		}
	} else {
		if !c.scalarInt(cc, a) {
			return false
		}
		elems = []ast.Expr{a.expr}
	}
	if len(elems) != len(d.Block) {
		c.errorf(cc.at(a), "%s: %s has rank %d, so it takes %d offsets, got %d", cc.b.CallName(), d, len(d.Block), len(d.Block), len(elems))
		return false
	}
	return true
}

// descSite rejects desc.load and desc.store in a func helper (the lowering
// makes a site's buffer and mbarrier where the kernel starts) and counts
// them in the kernel's shared memory.
func (c *checker) descSite(cc *callCtx, d *Desc, load bool) bool {
	if c.b != nil && c.b.fn != nil {
		c.errorf(cc.call, "%s in a func helper: its shared buffer and mbarrier are made where the kernel starts; call it in the kernel, or write copy, expect and wait", cc.b.CallName())
		return false
	}
	c.addSmem(cc.call, cc.b.CallName()+" buffer", d.Block, d.Elem)
	if load {
		c.addSmem(cc.call, "desc.load mbarrier", Shape{ConstDim(1)}, Invalid)
	}
	return true
}

func (c *checker) descLoad(cc *callCtx) Type {
	d := cc.get("desc").typ.(*Desc)
	if !c.descOffsets(cc, d) || !c.descSite(cc, d, true) {
		return Invalid
	}
	return &Tile{Shape: d.Block, Elem: d.Elem}
}

func (c *checker) descStore(cc *callCtx) Type {
	d := cc.get("desc").typ.(*Desc)
	if !c.descOffsets(cc, d) {
		return Invalid
	}
	v := cc.get("value")
	if isInvalid(v.typ) {
		return Invalid
	}
	t, ok := v.typ.(*Tile)
	if !ok || !t.Shape.Equal(d.Block) || t.Elem != Type(d.Elem) {
		want := (&Tile{Shape: d.Block, Elem: d.Elem}).String()
		return c.argErr(cc, v, "a tile of the block's shape and the descriptor's dtype, "+want)
	}
	if !c.descSite(cc, d, false) {
		return Invalid
	}
	return NoValue
}

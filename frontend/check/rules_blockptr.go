package check

import (
	"go/constant"
	"slices"

	"github.com/tlego/tle/frontend/ast"
)

// Block pointers, Triton's make_block_ptr / advance and the block-pointer
// forms of load and store (boundary_check:, padding_option:). The lowering
// turns them into pointer tiles and masks.

// PaddingOptions are load's padding_option: values (Triton's).
var PaddingOptions = []string{"zero", "nan"}

func (c *checker) makeBlockPtr(cc *callCtx) Type {
	b := cc.get("base")
	ptr, ok := b.typ.(*Pointer)
	if !ok || ptr.Space != Global {
		return c.argErr(cc, b, "a global pointer like *f32")
	}
	shape, ok1 := c.intList(cc, cc.get("shape"))
	strides, ok2 := c.intList(cc, cc.get("strides"))
	offsets, ok3 := c.intList(cc, cc.get("offsets"))
	block, ok4 := c.shapeArg(cc, cc.get("block_shape"))
	order, ok5 := c.constIntList(cc, cc.get("order"))
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return Invalid
	}
	r := len(block)
	if len(shape) != r || len(strides) != r || len(offsets) != r || len(order) != r {
		c.errorf(cc.call, "make_block_ptr: shape, strides, offsets, block_shape and order must have the same length, got %d, %d, %d, %d and %d",
			len(shape), len(strides), len(offsets), r, len(order))
		return Invalid
	}
	for i, d := range block {
		if n, known := d.Const(); known && n&(n-1) != 0 {
			c.errorf(cc.at(cc.get("block_shape")), "make_block_ptr: block_shape[%d] is %d, not a power of two", i, n)
			return Invalid
		}
	}
	seen := make([]bool, r)
	for _, o := range order {
		if o < 0 || o >= int64(r) || seen[o] {
			c.errorf(cc.at(cc.get("order")), "make_block_ptr: order must be a permutation of the dimensions 0..%d", r-1)
			return Invalid
		}
		seen[o] = true
	}
	return &BlockPtr{Elem: ptr.Elem, Block: block}
}

func (c *checker) advance(cc *callCtx) Type {
	b := cc.get("base")
	bp, ok := b.typ.(*BlockPtr)
	if !ok {
		return c.argErr(cc, b, "a block pointer (make_block_ptr)")
	}
	offs, ok := c.intList(cc, cc.get("offsets"))
	if !ok {
		return Invalid
	}
	if len(offs) != len(bp.Block) {
		c.errorf(cc.at(cc.get("offsets")), "advance: %s has rank %d, so it takes %d offsets, got %d", bp, len(bp.Block), len(bp.Block), len(offs))
		return Invalid
	}
	return bp
}

// constIntList reads a compile-time list of integers ([1, 0]); a single
// integer is a list of one.
func (c *checker) constIntList(cc *callCtx, a *argv) ([]int64, bool) {
	var elems []ast.Expr
	if l, ok := unparen(a.expr).(*ast.ListExpr); ok && l.Elem == nil {
		elems = l.Elems
	} else {
		elems = []ast.Expr{a.expr}
	}
	var out []int64
	for _, e := range elems {
		tv := c.tab.Types[e]
		if ad, isD := tv.Type.(DType); isD && ad.IsUntyped() {
			c.convertConst(e, ad, tv.Value, I32)
		}
		d, ok := c.intConst(e, tv.Type, tv.Value, "an element of "+c.what(cc, a))
		if !ok {
			return nil, false
		}
		n, known := d.Const()
		if !known {
			c.errorf(e, "an element of %s must be a known integer, not %s", c.what(cc, a), d)
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// blockPtrAccess checks the block-pointer arguments of load or store
// through bp: no mask: or other:, boundary_check: dimensions of bp, and
// (load) padding_option: "zero" or "nan" ("nan" for floats only).
func (c *checker) blockPtrAccess(cc *callCtx, bp *BlockPtr) bool {
	for _, name := range []string{"mask", "other"} {
		if a := cc.get(name); a != nil {
			c.errorf(cc.at(a), "%s: is not allowed with a block pointer; boundary_check: masks it", name)
			return false
		}
	}
	if a := cc.get("boundary_check"); a != nil {
		dims, ok := c.constIntList(cc, a)
		if !ok {
			return false
		}
		for _, d := range dims {
			if d < 0 || d >= int64(len(bp.Block)) {
				c.errorf(cc.at(a), "%s: boundary_check dimension %d is out of range for %s (rank %d)", cc.b.Name, d, bp, len(bp.Block))
				return false
			}
		}
	}
	if a := cc.get("padding_option"); a != nil && !a.def {
		if a.typ != String || a.val == nil {
			c.argErr(cc, a, "a string: "+quoteList(PaddingOptions))
			return false
		}
		v := constant.StringVal(a.val.Known)
		if !slices.Contains(PaddingOptions, v) {
			c.errorf(cc.at(a), "load: padding_option %q: want %s", v, quoteList(PaddingOptions))
			return false
		}
		if v == "nan" && !bp.Elem.IsFloat() {
			c.errorf(cc.at(a), "load: padding_option \"nan\" needs a float block pointer, not %s", bp)
			return false
		}
	}
	return true
}

// noBlockPtrArgs rejects boundary_check: and padding_option: on a load or
// store through an ordinary pointer.
func (c *checker) noBlockPtrArgs(cc *callCtx) bool {
	for _, name := range []string{"boundary_check", "padding_option"} {
		if a := cc.get(name); a != nil && !a.def {
			c.errorf(cc.at(a), "%s: needs a block pointer (make_block_ptr), not %s", name, cc.get("ptr").typ)
			return false
		}
	}
	return true
}

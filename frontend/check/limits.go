package check

import (
	"math/big"
	"sort"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// MaxTileElements is the most elements one tile may have: 2^20, Triton's
// TRITON_MAX_TENSOR_NUMEL. A tile lives in the registers of one program, so
// a larger one can never be held there; rejecting it here, before lowering,
// keeps the backend from unrolling millions of elements per thread.
const MaxTileElements = 1 << 20

// knownElements multiplies the dims of s that are known and reports whether
// every dim is known. Every dim of a valid tile is at least 1, so with
// symbolic dims the product is a lower bound on the element count for any
// binding. The product is exact (big), so that no shape overflows past the
// limit.
func knownElements(s Shape) (n *big.Int, all bool) {
	n, all = big.NewInt(1), true
	for _, d := range s {
		v, ok := d.Const()
		if !ok {
			all = false
			continue
		}
		if v > 0 { // a dim <= 0 is reported elsewhere (dims must be positive)
			n.Mul(n, big.NewInt(v))
		}
	}
	return n, all
}

// tileFits enforces MaxTileElements on a tile-typed value or written tile
// type made at n: it is the one place every tile shape goes through (c.expr
// for values, c.typeExpr for written types). It reports an error at n and
// returns false when the tile is too large: when its shape is known (after
// -D specialisation), or when its known dims alone are already too many.
// One error per shape per kernel: the other expressions that make a tile of
// the same shape (the broadcasts of one too large mask and address tile)
// become Invalid silently.
func (c *checker) tileFits(n ast.Node, t *Tile) bool {
	elems, all := knownElements(t.Shape)
	if elems.Cmp(big.NewInt(MaxTileElements)) <= 0 {
		return true
	}
	key := t.Shape.String()
	if c.tooLarge[key] {
		return false
	}
	if c.tooLarge == nil {
		c.tooLarge = map[string]bool{}
	}
	c.tooLarge[key] = true
	why := c.src(n)
	if b := c.boundNames(n); b != "" {
		why += " with " + b
	}
	var d *diag.Diagnostic
	if all {
		d = c.errorf(n, "tile %s of %d elements (%s) is larger than the limit of %d (2^20)", t, elems, why, MaxTileElements)
	} else {
		d = c.errorf(n, "tile %s has at least %d elements whatever the value of %s (%s), more than the limit of %d (2^20)", t, elems, strings.Join(symbolsOf(t.Shape), ", "), why, MaxTileElements)
	}
	d.Notes = append(d.Notes, "a tile is held in the registers of one program: use smaller compile-time sizes (-D), or loop over the data in tiles of at most 1048576 elements")
	return false
}

// boundNames lists "NAME = value" for the known compile-time constants
// behind a tile made at n: the enclosing kernel's const params bound with
// -D, then the top-level consts named in n.
func (c *checker) boundNames(n ast.Node) string {
	parts := append([]string(nil), c.kernelBound...)
	seen := map[*Object]bool{}
	ast.Inspect(n, func(x ast.Node) bool {
		id, ok := x.(*ast.Ident)
		if !ok {
			return true
		}
		o := c.tab.Uses[id]
		if o == nil || seen[o] || !c.isTopConst(o) || !o.Value.IsKnown() {
			return true
		}
		seen[o] = true
		parts = append(parts, o.Name+" = "+o.Value.String())
		return true
	})
	return strings.Join(parts, ", ")
}

// symbolsOf lists the symbols of a shape's dims, sorted and distinct.
func symbolsOf(s Shape) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range s {
		for _, x := range d.Symbols() {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	sort.Strings(out)
	return out
}

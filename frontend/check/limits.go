package check

import (
	"fmt"
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

// MaxInlinedNodes is the most syntax nodes a kernel may have once every
// helper call is replaced by the helper's body, as the lowering does. A
// helper called twice by a helper called twice... doubles the code at each
// level: without a bound, twenty such levels take the compiler minutes and
// gigabytes. The repository's largest kernel is under 1% of the limit.
const MaxInlinedNodes = 1 << 18

// saturated caps inlined sizes, which grow exponentially, far below
// overflow.
const saturated = 1 << 40

// nodeCount is the number of syntax nodes under n.
func nodeCount(n ast.Node) int64 {
	var k int64
	ast.Inspect(n, func(x ast.Node) bool {
		if x != nil {
			k++
		}
		return true
	})
	return k
}

// inlinedSize is inst's body in syntax nodes with every helper call it
// makes inlined (memoised on inst; recursion is an error before this, so
// the calls form a DAG).
func inlinedSize(inst *Instance) int64 {
	if inst.size > 0 {
		return inst.size
	}
	n := int64(1)
	if inst.Decl != nil && inst.Decl.Body != nil {
		n = max(1, nodeCount(inst.Decl.Body))
	}
	for _, ce := range inst.callees {
		n = min(n+inlinedSize(ce.inst), saturated)
	}
	inst.size = n
	return n
}

// inlineBudget enforces MaxInlinedNodes on kernel k, whose body makes the
// helper calls callees. The error is at the call that inlines the most,
// with a note naming how often each helper along its heaviest chain is
// inlined.
func (c *checker) inlineBudget(k *ast.KernelDecl, callees []calleeAt) {
	total := nodeCount(k.Body)
	var heaviest *calleeAt
	for i := range callees {
		ce := &callees[i]
		total = min(total+inlinedSize(ce.inst), saturated)
		if heaviest == nil || inlinedSize(ce.inst) > inlinedSize(heaviest.inst) {
			heaviest = ce
		}
	}
	if total <= MaxInlinedNodes || heaviest == nil {
		return
	}
	about := func(n int64) string {
		if n >= saturated {
			return "more than 2^40"
		}
		return fmt.Sprint(n)
	}
	d := c.errorf(heaviest.call, "kernel %s is %s syntax nodes once its helper calls are inlined, more than the limit of %d (2^18); this call of %s inlines %s",
		k.Name.Name, about(total), MaxInlinedNodes, heaviest.inst.Decl.Name.Name, about(inlinedSize(heaviest.inst)))
	// The chain of heaviest calls, with how many copies of each helper it makes.
	var chain []string
	copies := int64(1)
	for inst := heaviest.inst; inst != nil; {
		if len(chain) == 4 {
			chain = append(chain, "...")
			break
		}
		times := about(copies) + " times"
		if copies == 1 {
			times = "once"
		}
		chain = append(chain, fmt.Sprintf("%s (line %d) %s", inst.Decl.Name.Name, c.line(inst.Decl.Name.Pos()), times))
		var next *Instance
		calls := map[*Instance]int64{}
		for _, ce := range inst.callees {
			calls[ce.inst]++
			if next == nil || inlinedSize(ce.inst) > inlinedSize(next) {
				next = ce.inst
			}
		}
		if next != nil {
			copies = min(copies*calls[next], saturated)
		}
		inst = next
	}
	d.Notes = append(d.Notes, "a helper is inlined at each of its calls; along the heaviest calls, "+strings.Join(chain, ", ")+": call a helper once and reuse its result, or loop")
}

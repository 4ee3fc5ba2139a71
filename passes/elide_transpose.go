package passes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tlego/tle/ir"
)

// ElideTranspose folds transposed shared-memory views into the wgmma ops that
// read them, so that a transpose written in the source (buf.T, permute) is a
// descriptor flag and never data movement.
//
// For each wgmma operand a or b that is a memdesc_trans of a 2-D view (or a
// chain of them, as in buf.T.T), the operand becomes the untransposed view
// and the op's trans_a / trans_b flag flips once per perm [1, 0] in the chain
// (a perm [0, 1] changes nothing; two transposes cancel). This keeps the
// meaning exactly: wgmma(a, v.T, acc) with v stored [N, K] multiplies a by
// v^T, and so does wgmma(a, v, acc, trans_b: true); the interpreter's trans
// flag swaps the view's shape and strides, which is what memdesc_trans does,
// and the backend describes either form by the same K-major or MN-major
// matrix descriptor (it derives the descriptor from which dimension of the
// view's shared layout is contiguous and which is K, and both forms agree on
// that). The wgmma gets an attribute naming what was folded, e.g.
//
//	elided = "b: memdesc_trans of %19 /*sb*/ (perm [1, 0]) -> trans_b = true"
//
// (%19 being the view's name in the printed function right after this
// pass), and the pass logs how many transposes it elided. A memdesc_trans
// left without users is deleted.
//
// The fold is per use: a view that also feeds other ops keeps its
// memdesc_trans for them. Those other users need no transposing either:
//
//   - local_ptr, local_load and local_store address the buffer through the
//     view's order (the transposed view is the same bytes with its
//     dimensions permuted), so no copy is made;
//   - copy (TMA) has no transpose mode: a tensor map's innermost dimension
//     is contiguous in global memory and lands contiguous in shared memory,
//     so there is no flag to fold a transposed view into. The view stays;
//     the backend accepts it when its shared layout is row-major (the
//     transpose of a column-major buffer) and refuses any other, so a
//     transposed TMA target never becomes a copy loop either. The pass
//     counts these in its log line as kept.
func ElideTranspose(m *ir.Module, ctx *Context) error {
	for _, f := range m.Funcs {
		elided, folded, kept := elideTransposes(f)
		if folded > 0 || kept > 0 {
			ctx.Logf("%s: elided %d memdesc_trans into %d wgmma operand flags; kept %d feeding other ops (read through the view's order, no data moved)",
				f.Name, elided, folded, kept)
		}
	}
	return nil
}

// foldedOperand is one wgmma operand rewritten to its untransposed view.
type foldedOperand struct {
	op    *ir.Op
	which int       // 0: a, 1: b
	chain []*ir.Op  // the memdesc_trans ops, innermost (nearest the buffer) first
	root  *ir.Value // the untransposed view now read
	flag  bool      // the trans flag after the fold
}

// elideTransposes rewrites f and returns the number of memdesc_trans ops it
// deleted, of wgmma operands it folded, and of memdesc_trans ops left.
func elideTransposes(f *ir.Func) (elided, folded, kept int) {
	var folds []*foldedOperand
	var transOps []*ir.Op
	f.Walk(func(op *ir.Op) {
		switch op.Kind {
		case ir.OpMemTrans:
			transOps = append(transOps, op)
		case ir.OpWgmma:
			for j := 0; j < 2; j++ {
				if fo := foldWgmmaOperand(op, j); fo != nil {
					folds = append(folds, fo)
				}
			}
		}
	})
	if len(folds) == 0 {
		return 0, 0, len(transOps)
	}
	// delete the transposes nobody reads any more (a chain from the outside in)
	uses := f.Uses()
	for changed := true; changed; {
		changed = false
		for _, t := range transOps {
			if t.Parent != nil && uses[t.Results[0]] == 0 {
				uses[t.Operands[0]]--
				t.Remove()
				elided++
				changed = true
			}
		}
	}
	kept = len(transOps) - elided
	// record the folds, naming values as the printer will
	refs := printedRefs(f)
	notes := map[*ir.Op][]string{}
	var order []*ir.Op
	for _, fo := range folds {
		if notes[fo.op] == nil {
			order = append(order, fo.op)
		}
		notes[fo.op] = append(notes[fo.op], fo.describe(refs))
	}
	for _, op := range order {
		op.Attrs["elided"] = strings.Join(notes[op], "; ")
	}
	return elided, len(folds), kept
}

// foldWgmmaOperand rewrites operand j of the wgmma op when it is a
// transposed view; nil when it is not.
func foldWgmmaOperand(op *ir.Op, j int) *foldedOperand {
	key := [2]string{"trans_a", "trans_b"}[j]
	v := op.Operands[j]
	var chain []*ir.Op
	flag := op.Attrs.Bool(key)
	for v.Def != nil && v.Def.Kind == ir.OpMemTrans {
		perm := v.Def.Attrs.Ints("perm")
		if _, ok := v.Def.Operands[0].Type.(*ir.MemDesc); !ok || len(perm) != 2 {
			break
		}
		if perm[0] == 1 {
			flag = !flag
		}
		chain = append(chain, v.Def)
		v = v.Def.Operands[0]
	}
	if len(chain) == 0 {
		return nil
	}
	slices.Reverse(chain)
	op.Operands[j] = v
	if op.Attrs == nil {
		op.Attrs = ir.Attrs{}
	}
	op.Attrs[key] = flag
	return &foldedOperand{op: op, which: j, chain: chain, root: v, flag: flag}
}

// describe renders the fold for the elided attribute.
func (fo *foldedOperand) describe(refs map[*ir.Value]string) string {
	var b strings.Builder
	b.WriteString(string("ab"[fo.which]) + ": ")
	for i, t := range fo.chain {
		if i == 0 {
			ref := refs[fo.root]
			if fo.root.Name != "" && ref != "%"+fo.root.Name {
				ref += " /*" + fo.root.Name + "*/"
			}
			fmt.Fprintf(&b, "memdesc_trans of %s", ref)
		} else {
			b.WriteString(", memdesc_trans")
		}
		fmt.Fprintf(&b, " (perm %s)", permString(t.Attrs.Ints("perm")))
	}
	fmt.Fprintf(&b, " -> %s = %t", [2]string{"trans_a", "trans_b"}[fo.which], fo.flag)
	return b.String()
}

func permString(p []int) string {
	parts := make([]string, len(p))
	for i, x := range p {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// printedRefs names f's values as ir.Print does: parameters %NAME when the
// name is a unique identifier, every other value %0, %1, ... in program
// order.
func printedRefs(f *ir.Func) map[*ir.Value]string {
	refs := map[*ir.Value]string{}
	n := 0
	used := map[string]bool{}
	for i, a := range f.Body.Args {
		if i < len(f.Params) && ir.IsIdent(f.Params[i].Name) && !used[f.Params[i].Name] {
			used[f.Params[i].Name] = true
			refs[a] = "%" + f.Params[i].Name
			continue
		}
		refs[a] = "%" + strconv.Itoa(n)
		n++
	}
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		for _, op := range b.Ops {
			for _, r := range op.Results {
				refs[r] = "%" + strconv.Itoa(n)
				n++
			}
			for _, rg := range op.Regions {
				for _, a := range rg.Args {
					refs[a] = "%" + strconv.Itoa(n)
					n++
				}
				walk(rg)
			}
		}
	}
	walk(f.Body)
	return refs
}

package passes

import (
	"fmt"
	"strings"

	"github.com/tlego/tle/ir"
)

// Inline replaces every call op by a copy of its callee's body (the callee
// first having its own calls inlined), then removes the helper functions:
// after it, a module holds kernels only and no call op. A helper's body must
// end in its single return; recursion is reported as an error at the call.
//
// Inlined ops keep the helper's positions, so later diagnostics point at the
// helper's source line, and record the call they were inlined through
// (ir.Op.Inlined, innermost call first), so that a diagnostic can name the
// helper and its call sites.
func Inline(m *ir.Module, ctx *Context) error {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*ir.Func]int{}
	var visit func(f *ir.Func) (bool, error)
	var inlineBlock func(f *ir.Func, b *ir.Block) (bool, error)
	visit = func(f *ir.Func) (bool, error) {
		if state[f] == done {
			return true, nil
		}
		state[f] = visiting
		ok, err := inlineBlock(f, f.Body)
		state[f] = done
		return ok, err
	}
	inlineBlock = func(f *ir.Func, b *ir.Block) (bool, error) {
		for i := 0; i < len(b.Ops); i++ {
			op := b.Ops[i]
			for _, rg := range op.Regions {
				if ok, err := inlineBlock(f, rg); !ok || err != nil {
					return ok, err
				}
			}
			if op.Kind != ir.OpCall {
				continue
			}
			name := op.Attrs.String("callee")
			callee := m.Func(name)
			if callee == nil {
				return false, fmt.Errorf("call at %s: no function @%s", ir.PosString(m.File, op.Pos), name)
			}
			if callee.Kernel {
				return false, fmt.Errorf("call at %s: @%s is a kernel", ir.PosString(m.File, op.Pos), name)
			}
			if state[callee] == visiting {
				ctx.Errorf(op.Pos, "recursive call to %s cannot be inlined", name)
				return false, nil
			}
			if ok, err := visit(callee); !ok || err != nil {
				return ok, err
			}
			ret := callee.Body.Terminator()
			if ret == nil || ret.Kind != ir.OpReturn {
				return false, fmt.Errorf("@%s does not end in return", name)
			}
			if len(op.Operands) != len(callee.Body.Args) || len(op.Results) != len(ret.Operands) {
				return false, fmt.Errorf("call at %s does not match @%s's signature", ir.PosString(m.File, op.Pos), name)
			}
			vmap := map[*ir.Value]*ir.Value{}
			for j, a := range callee.Body.Args {
				vmap[a] = op.Operands[j]
			}
			var clones []*ir.Op
			site := ir.InlineSite{Func: sourceName(name), Call: op.Pos}
			for _, o := range callee.Body.Ops[:len(callee.Body.Ops)-1] {
				c := f.CloneOp(o, vmap)
				markInlined(c, site, op.Inlined)
				clones = append(clones, c)
			}
			for j, r := range op.Results {
				nv := ret.Operands[j]
				if c, ok := vmap[nv]; ok {
					nv = c
				}
				f.ReplaceAllUses(r, nv)
			}
			b.Ops = append(b.Ops[:i], b.Ops[i+1:]...)
			b.InsertAt(i, clones...)
			op.Parent = nil
			i += len(clones) - 1
		}
		return true, nil
	}
	for _, f := range m.Funcs {
		if ok, err := visit(f); !ok || err != nil {
			return err
		}
	}
	kept := m.Funcs[:0]
	for _, f := range m.Funcs {
		if f.Kernel {
			kept = append(kept, f)
		}
	}
	m.Funcs = kept
	return nil
}

// markInlined extends the inline chain of op and of every op in its regions
// with the call site (and the chain of the call op itself).
func markInlined(op *ir.Op, site ir.InlineSite, outer []ir.InlineSite) {
	chain := make([]ir.InlineSite, 0, len(op.Inlined)+1+len(outer))
	chain = append(append(append(chain, op.Inlined...), site), outer...)
	op.Inlined = chain
	for _, rg := range op.Regions {
		for _, o := range rg.Ops {
			markInlined(o, site, outer)
		}
	}
}

// sourceName is a helper instance's name as written: the lowering names
// the instances of fill fill, fill.1, fill.2, ...
func sourceName(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, r := range name[i+1:] {
		if r < '0' || r > '9' {
			return name
		}
	}
	return name[:i]
}

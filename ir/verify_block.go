package ir

import "fmt"

// The structure phase: blocks and their terminators, back pointers, and
// every operand defined before its use in an enclosing block. Each op that
// is whole (operands, result types and regions present) then gets its
// kind's checks (checkOp).

// encloses reports whether block outer is b or an ancestor of it.
func encloses(outer, b *Block) bool {
	for b != nil {
		if b == outer {
			return true
		}
		if b.Parent == nil {
			return false
		}
		b = b.Parent.Parent
	}
	return false
}

func (v *verifier) block(b *Block, parent *Op) {
	var added []*Value
	for i, a := range b.Args {
		if a == nil {
			continue
		}
		if a.Block != b || a.Index != i || a.Def != nil {
			v.funcErr("block argument %d has inconsistent Block/Index/Def fields", i)
		}
		if a.Type == nil {
			v.funcErr("block argument %d has no type", i)
		}
		v.scope[a] = true
		added = append(added, a)
	}
	if len(b.Ops) == 0 {
		if parent != nil {
			v.errf(parent, "region is empty: it must end in yield")
		} else {
			v.funcErr("function body is empty: it must end in return")
		}
	}
	for i, op := range b.Ops {
		if op == nil {
			continue
		}
		v.placement(op, b, i, parent)
		ok := v.structure(op, b)
		v.kindRules(op, parent, ok)
		for _, rg := range op.Regions {
			if rg != nil {
				v.block(rg, op)
			}
		}
		for _, r := range op.Results {
			if r != nil {
				v.scope[r] = true
				added = append(added, r)
			}
		}
	}
	for _, a := range added {
		delete(v.scope, a)
	}
}

// placement checks where op stands: in the block its Parent names, and
// terminators last, of the right kind for a region or a function body.
func (v *verifier) placement(op *Op, b *Block, i int, parent *Op) {
	last := i == len(b.Ops)-1
	if op.Parent != b {
		v.errf(op, "Parent does not point at the block holding the op")
	}
	if op.Kind.IsTerminator() && !last {
		v.errf(op, "terminator in the middle of a block (%d ops follow)", len(b.Ops)-1-i)
	}
	if last && !op.Kind.IsTerminator() {
		if parent == nil {
			v.errf(op, "function body does not end in return")
		} else {
			v.errf(op, "region of %s does not end in yield", parent.Kind)
		}
	}
	if op.Kind == OpReturn && parent != nil {
		v.errf(op, "return inside a region of %s (use yield)", parent.Kind)
	}
	if op.Kind == OpYield && parent == nil {
		v.errf(op, "yield in a function body (use return)")
	}
}

// structure checks op's operands (defined, in scope), results, attribute
// values and regions; it reports whether all are there for the kind's
// checks to read.
func (v *verifier) structure(op *Op, b *Block) bool {
	ok := true
	for j, x := range op.Operands {
		if !v.checkUse(op, j, x, b) {
			ok = false
		}
	}
	for j, r := range op.Results {
		if r == nil {
			continue
		}
		if r.Def != op || r.Index != j {
			v.errf(op, "result %d has inconsistent Def/Index fields", j)
		}
		if r.Type == nil {
			v.errf(op, "result %d has no type", j)
			ok = false
		}
	}
	for _, k := range op.Attrs.Keys() {
		if !IsValidAttr(op.Attrs[k]) {
			v.errf(op, "attribute %s has Go type %T, not one of int64, float64, bool, string, []int64, Type", k, op.Attrs[k])
		}
	}
	for _, rg := range op.Regions {
		if rg == nil {
			v.errf(op, "nil region")
			ok = false
			continue
		}
		if rg.Parent != op {
			v.errf(op, "region's Parent does not point at the op")
		}
	}
	return ok
}

// kindRules runs the checks of op's kind: its table row's when whole is
// set, or a registered kind's own check.
func (v *verifier) kindRules(op, parent *Op, whole bool) {
	if in := opIndex[op.Kind]; in != nil {
		if whole {
			v.checkOp(op, parent, in)
		}
		return
	}
	check := extraKinds[op.Kind]
	if check == nil {
		v.errf(op, "unknown op kind %q", op.Kind)
		return
	}
	if err := check(op); err != nil {
		v.errf(op, "%v", err)
	}
}

func (v *verifier) checkUse(op *Op, j int, x *Value, b *Block) bool {
	if x == nil {
		v.errf(op, "operand %d is nil", j)
		return false
	}
	if x.Type == nil {
		v.errf(op, "operand %d has no type", j)
		return false
	}
	if v.scope[x] {
		return true
	}
	site, ok := v.defs[x]
	switch {
	case !ok:
		v.errf(op, "operand %d (value %d) is not defined in this function", j, x.ID)
	case encloses(site.block, b):
		v.errf(op, "operand %d is used before its definition%s", j, v.defDesc(site))
	default:
		where := "the region that defines it"
		for blk := site.block; blk != nil && blk.Parent != nil; blk = blk.Parent.Parent {
			if encloses(blk, b) {
				break
			}
			if blk.Parent.Kind == OpRole {
				where = fmt.Sprintf("role %s, where it is defined", RoleLabel(blk.Parent))
			}
		}
		v.errf(op, "operand %d is used outside %s%s", j, where, v.defDesc(site))
	}
	return false
}

func (v *verifier) defDesc(s defSite) string {
	if s.op != nil {
		return fmt.Sprintf(" (defined by %s at %s)", s.op.Kind, PosString(v.file, s.op.Pos))
	}
	if s.block.Parent != nil {
		return fmt.Sprintf(" (an argument of a %s region at %s)", s.block.Parent.Kind, PosString(v.file, s.block.Parent.Pos))
	}
	return " (a function argument)"
}

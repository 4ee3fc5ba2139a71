package ir

import (
	"slices"
	"strings"
)

// The op phase: Verify checks each whole op against its kind's row of the
// op table (optable.go) as MLIR checks an op's declared invariants before
// its custom verifier: the region count, the operand, result and region
// counts, the attributes checked up front, then the kind's own check and,
// when that ran to its end, the results' memdesc orders.

func (v *verifier) checkOp(op, parent *Op, in *OpInfo) {
	if in.Regions == exactly(0) && len(op.Regions) > 0 {
		v.errf(op, "has %d regions, want 0", len(op.Regions))
		return
	}
	if !v.counts(op, in.Operands.Min, in.Operands.Max, in.Results.exact(op), in.Regions.exact(op)) {
		return
	}
	for _, a := range in.Attrs {
		switch {
		case a.Optional || a.Deferred:
		case a.Type == AttrInt:
			v.intAttr(op, a.Name)
		case a.Type == AttrString:
			v.strAttr(op, a.Name, a.OneOf)
		}
	}
	if !in.verify(v, op, parent) {
		return
	}
	for _, r := range op.Results {
		if md, ok := r.Type.(*MemDesc); ok {
			v.checkMemDesc(op, md)
		}
	}
}

// ot is the type of op's operand i, rt that of its only result.
func (op *Op) ot(i int) Type { return op.Operands[i].Type }
func (op *Op) rt() Type      { return op.Results[0].Type }

func isIntScalar(t Type) bool { d, ok := t.(DType); return ok && d.IsInt() }

// elemDType is the dtype of a scalar or a tile of scalars, else Invalid.
func elemDType(t Type) DType {
	d, _ := Elem(t).(DType)
	return d
}

// tileShape is a tile's shape, or nil for a scalar/pointer.
func tileShape(t Type) []int {
	if tt, ok := t.(*Tile); ok {
		return tt.Shape
	}
	return nil
}

func shapeStr(s []int) string { return "[" + shapeString(s) + "]" }

func (v *verifier) counts(op *Op, minOps, maxOps, results, regions int) bool {
	ok := true
	if len(op.Operands) < minOps || maxOps >= 0 && len(op.Operands) > maxOps {
		switch {
		case minOps == maxOps:
			v.errf(op, "has %d operands, want %d", len(op.Operands), minOps)
		case maxOps < 0:
			v.errf(op, "has %d operands, want at least %d", len(op.Operands), minOps)
		default:
			v.errf(op, "has %d operands, want %d to %d", len(op.Operands), minOps, maxOps)
		}
		ok = false
	}
	if results >= 0 && len(op.Results) != results {
		v.errf(op, "has %d results, want %d", len(op.Results), results)
		ok = false
	}
	if regions >= 0 && len(op.Regions) != regions {
		v.errf(op, "has %d regions, want %d", len(op.Regions), regions)
		ok = false
	}
	return ok
}

func (v *verifier) intAttr(op *Op, name string) (int64, bool) {
	x, ok := op.Attrs[name].(int64)
	if !ok {
		v.errf(op, "needs an int64 attribute %s", name)
	}
	return x, ok
}

func (v *verifier) strAttr(op *Op, name string, allowed []string) (string, bool) {
	x, ok := op.Attrs[name].(string)
	if !ok {
		v.errf(op, "needs a string attribute %s", name)
		return "", false
	}
	if allowed != nil && !slices.Contains(allowed, x) {
		v.errf(op, "attribute %s = %q is not one of %s", name, x, strings.Join(allowed, ", "))
		return x, false
	}
	return x, true
}

func (v *verifier) sameType(op *Op, what string, got, want Type) bool {
	if !EqualIgnoringLayout(got, want) {
		v.errf(op, "%s has type %s, want %s", what, typeString(got), typeString(want))
		return false
	}
	return true
}

func (v *verifier) checkPerm(op *Op, rank int) []int {
	perm := op.Attrs.Ints("perm")
	if _, ok := op.Attrs["perm"].([]int64); !ok || len(perm) != rank {
		v.errf(op, "needs a perm attribute of %d dims", rank)
		return nil
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank || seen[p] {
			v.errf(op, "perm %v is not a permutation of 0..%d", perm, rank-1)
			return nil
		}
		seen[p] = true
	}
	return perm
}

func (v *verifier) yieldTypes(op *Op, rg *Block, want []Type, what string) {
	y := rg.Terminator()
	if y == nil || y.Kind != OpYield {
		return // reported by block()
	}
	if len(y.Operands) != len(want) {
		v.errf(y, "yields %d values, but the %s needs %d", len(y.Operands), what, len(want))
		return
	}
	for i, x := range y.Operands {
		if x != nil && !EqualIgnoringLayout(x.Type, want[i]) {
			v.errf(y, "yield operand %d has type %s, but the %s needs %s", i, typeString(x.Type), what, typeString(want[i]))
		}
	}
}

func resultTypes(op *Op) []Type {
	out := make([]Type, len(op.Results))
	for i, r := range op.Results {
		out[i] = r.Type
	}
	return out
}

// deferredString checks op's string attribute name (deferred in its row)
// against the values the row allows; deferred int64 attributes need no
// row (intAttr).
func (v *verifier) deferredString(op *Op, name string) (string, bool) {
	var allowed []string
	if in := opIndex[op.Kind]; in != nil {
		if a := in.Attr(name); a != nil {
			allowed = a.OneOf
		}
	}
	return v.strAttr(op, name, allowed)
}

func (v *verifier) checkMemDesc(op *Op, md *MemDesc) {
	if md.Order == nil {
		return
	}
	if len(md.Order) != len(md.Shape) || !isPermutation(md.Order) {
		v.errf(op, "memdesc order %v is not a permutation of its %d dims", md.Order, len(md.Shape))
	}
}

func isPermutation(p []int) bool {
	seen := make([]bool, len(p))
	for _, x := range p {
		if x < 0 || x >= len(p) || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

package ir

import "fmt"

// The checks of the control kinds: assertions, calls, loops and branches,
// terminators, warp roles. Each runs after the table's counts and up-front
// attributes passed (checkOp); the ops of their regions are checked after
// them.

func (v *verifier) checkAssert(op, _ *Op) bool {
	if elemDType(op.ot(0)) != I1 {
		v.errf(op, "condition has type %s, want i1 or a tile of i1", typeString(op.ot(0)))
	}
	return true
}

func (v *verifier) checkAssume(op, _ *Op) bool {
	if !Equal(StripLayout(op.ot(0)), I1) {
		v.errf(op, "condition has type %s, want a scalar i1", typeString(op.ot(0)))
	}
	return true
}

// checkCall checks a call against its callee, when the module is known.
func (v *verifier) checkCall(op, _ *Op) bool {
	callee, ok := op.Attrs["callee"].(string)
	if !ok || v.m == nil {
		return false
	}
	cf := v.m.Func(callee)
	if cf == nil {
		v.errf(op, "calls @%s, which is not in the module", callee)
		return false
	}
	if cf.Kernel {
		v.errf(op, "calls kernel @%s", callee)
	}
	if !v.counts(op, len(cf.Params), len(cf.Params), len(cf.Results), 0) {
		return false
	}
	for i, p := range cf.Params {
		v.sameType(op, fmt.Sprintf("argument %d", i), op.ot(i), p.Type)
	}
	for i, t := range cf.Results {
		v.sameType(op, fmt.Sprintf("result %d", i), op.Results[i].Type, t)
	}
	return true
}

func (v *verifier) checkFor(op, _ *Op) bool {
	if !isIntScalar(op.ot(0)) {
		v.errf(op, "lower bound has type %s, want an integer scalar", typeString(op.ot(0)))
		return false
	}
	v.sameType(op, "upper bound", op.ot(1), op.ot(0))
	v.sameType(op, "step", op.ot(2), op.ot(0))
	inits := op.Operands[3:]
	body := op.Regions[0]
	if len(body.Args) != 1+len(inits) {
		v.errf(op, "body has %d arguments, want 1 + %d loop-carried", len(body.Args), len(inits))
		return false
	}
	if body.Args[0] != nil {
		v.sameType(op, "induction variable", body.Args[0].Type, op.ot(0))
	}
	for i, x := range inits {
		v.sameType(op, fmt.Sprintf("result %d", i), op.Results[i].Type, x.Type)
		if body.Args[i+1] != nil {
			v.sameType(op, fmt.Sprintf("body argument %d", i+1), body.Args[i+1].Type, x.Type)
		}
	}
	v.yieldTypes(op, body, resultTypes(op), "for's results")
	if w, ok := op.Attrs["while"].(int64); ok && (w < 0 || int(w) >= len(inits) || inits[w].Type != I1) {
		v.errf(op, "while %d: want the index of an i1 scalar among the %d loop-carried values", w, len(inits))
	}
	return true
}

func (v *verifier) checkIf(op, _ *Op) bool {
	if op.ot(0) != I1 {
		v.errf(op, "condition has type %s, want i1", typeString(op.ot(0)))
	}
	if len(op.Regions) != 2 && !(len(op.Regions) == 1 && len(op.Results) == 0) {
		v.errf(op, "has %d regions, want then and else (else may be left out only without results)", len(op.Regions))
		return false
	}
	for i, rg := range op.Regions {
		if len(rg.Args) != 0 {
			v.errf(op, "region %d has arguments", i)
		}
		v.yieldTypes(op, rg, resultTypes(op), "if's results")
	}
	return true
}

// checkYield checks what a yield may give its region's op; for and if
// check the values themselves (yieldTypes).
func (v *verifier) checkYield(op, parent *Op) bool {
	if parent == nil {
		return false // reported by placement
	}
	switch parent.Kind {
	case OpFor, OpIf, OpReduce, OpScan:
		// checked by the parent (a reduce's or scan's combine region)
	case OpRole, OpWarpSpecialize:
		if len(op.Operands) > 0 {
			v.errf(op, "a %s region yields no values, has %d", parent.Kind, len(op.Operands))
		}
	default:
		v.errf(op, "yield in a region of %s", parent.Kind)
	}
	return true
}

// checkReturn checks the returned values against the function's results.
func (v *verifier) checkReturn(op, parent *Op) bool {
	if parent != nil {
		return false // reported by placement
	}
	if len(op.Operands) != len(v.f.Results) {
		v.errf(op, "returns %d values, function has %d results", len(op.Operands), len(v.f.Results))
		return false
	}
	for i, t := range v.f.Results {
		v.sameType(op, fmt.Sprintf("returned value %d", i), op.ot(i), t)
	}
	return true
}

func (v *verifier) checkWarpSpecialize(op, _ *Op) bool {
	rg := op.Regions[0]
	if len(rg.Args) > 0 {
		v.errf(op, "region has arguments")
	}
	for i, o := range rg.Ops {
		if o != nil && o.Kind != OpRole && !(i == len(rg.Ops)-1 && o.Kind == OpYield) {
			v.errf(o, "only role ops may appear in a warp_specialize region")
		}
	}
	return true
}

func (v *verifier) checkRole(op, parent *Op) bool {
	if parent == nil || parent.Kind != OpWarpSpecialize {
		v.errf(op, "role outside a warp_specialize region")
	}
	v.deferredString(op, "name")
	if w, ok := v.intAttr(op, "warps"); ok && w < 1 {
		v.errf(op, "warps = %d, want >= 1", w)
	}
	_, hasCopy := op.Attrs["copy"]
	_, hasCopies := op.Attrs["copies"]
	switch {
	case hasCopy != hasCopies:
		v.errf(op, "copy and copies come together (a copy of a role with copies:)")
	case hasCopy:
		k, ok1 := v.intAttr(op, "copy")
		n, ok2 := v.intAttr(op, "copies")
		if ok1 && ok2 && (n < 1 || k < 0 || k >= n) {
			v.errf(op, "copy = %d of copies = %d, want 0 <= copy < copies", k, n)
		}
	}
	if len(op.Regions[0].Args) > 0 {
		v.errf(op, "region has arguments")
	}
	return true
}

package ir

import (
	"fmt"
	"slices"
)

// The op table: one row per op kind, as Go's SSA backend declares its ops
// (cmd/compile/internal/ssa/_gen: name, argument count, flags) and MLIR's
// ODS its operations (operands, results, regions, attributes, traits such
// as Pure and Elementwise, a verifier). The kind list (AllKinds), the
// predicates (IsPure, IsElementwise, IsTerminator, IsKnown) and Verify all
// read it; a new op kind is a constant in ops.go and a row here.

// OpInfo describes one op kind.
type OpInfo struct {
	Name Kind
	// Operands, Results and Regions are how many of each an op of the kind
	// has. Verify checks them before the kind's own checks.
	Operands, Results, Regions Arity
	// Attrs are the attributes the kind reads.
	Attrs []AttrSpec
	// Pure ops have no side effects: CSE may merge them and DCE delete
	// them when unused.
	Pure bool
	// Elementwise ops compute each element independently (of operands of
	// one shape, the lowering inserting splat/broadcast first).
	Elementwise bool
	// Terminator ops end a region (yield) or a function body (return).
	Terminator bool
	// GPU kinds are made by the GPU passes (layouts, cp.async pipelining)
	// after the target-independent pipeline; AllKinds leaves them out.
	GPU bool
	// verify checks what the counts and attributes above do not say.
	verify kindCheck
}

// A kindCheck checks one op of its kind after Verify's generic checks
// (counts, up-front attributes) passed, reporting with v.errf. It returns
// whether the generic checks of the results (memdesc orders) follow: false
// when it stopped early at a broken invariant, or checked them itself.
type kindCheck func(v *verifier, op, parent *Op) bool

// Arity is a number of operands, results or regions: Min to Max, Max < 0
// meaning no limit. A result arity may instead be one result per operand
// from operand From on (perOperandFrom: for's loop-carried values,
// wgmma_wait's pass-throughs).
type Arity struct {
	Min, Max   int
	PerOperand bool
	From       int
}

func exactly(n int) Arity        { return Arity{Min: n, Max: n} }
func between(lo, hi int) Arity   { return Arity{Min: lo, Max: hi} }
func atLeast(n int) Arity        { return Arity{Min: n, Max: -1} }
func perOperandFrom(i int) Arity { return Arity{PerOperand: true, From: i} }

// anyNumber leaves the count to the kind's check (or to nobody, where the
// row says so).
var anyNumber = Arity{Min: 0, Max: -1}

// exact is the one count a result or region arity allows for op, or -1
// when any number passes the table.
func (a Arity) exact(op *Op) int {
	switch {
	case a.PerOperand:
		return len(op.Operands) - a.From // negative (no check) with too few operands
	case a.Max < 0:
		return -1
	}
	return a.Min
}

// AttrType is the Go type an attribute value has.
type AttrType int

const (
	AttrInt    AttrType = iota + 1 // int64
	AttrString                     // string
	AttrBool                       // bool
	AttrInts                       // []int64
	AttrScalar                     // int64, float64 or bool (a constant's value)
)

// AttrSpec is one attribute of an op kind.
type AttrSpec struct {
	Name  string
	Type  AttrType
	OneOf []string // string attributes: the values allowed; nil: any
	// Optional attributes may be absent; their readers take a default
	// (Attrs.Bool, Attrs.Int) and Verify does not check them.
	Optional bool
	// Deferred required attributes are checked by the kind's check, at
	// their place among its operand checks (a broken operand that stops it
	// hides them) or with a message of their own (a perm of the operand's
	// rank, a constant's value); the others Verify checks up front.
	Deferred bool
}

func required(name string, t AttrType, oneOf ...string) AttrSpec {
	return AttrSpec{Name: name, Type: t, OneOf: oneOf}
}

func deferred(name string, t AttrType, oneOf ...string) AttrSpec {
	return AttrSpec{Name: name, Type: t, OneOf: oneOf, Deferred: true}
}

func optional(name string, t AttrType) AttrSpec {
	return AttrSpec{Name: name, Type: t, Optional: true}
}

// Predicates of cmp, kinds of reduce/scan and atomic_rmw.
var (
	CmpPreds    = []string{"lt", "le", "gt", "ge", "eq", "ne"}
	ReduceKinds = []string{"sum", "max", "min", "or", "xor", "combine"}
	ScanKinds   = []string{"sum", "max", "min", "prod", "combine"}
	AtomicKinds = []string{"add", "max", "min", "xchg", "and", "or", "xor"}
	// how signal changes a peer's flag
	SignalOps = []string{"set", "add"}
	// an atomic's memory order and scope (Triton's sem and scope); an op
	// without them is relaxed at gpu scope
	AtomicSems   = []string{"relaxed", "acquire", "release", "acq_rel"}
	AtomicScopes = []string{"gpu", "cta", "sys"}
	atomicSem    = AttrSpec{Name: "sem", Type: AttrString, Optional: true, OneOf: AtomicSems}
	atomicScope  = AttrSpec{Name: "scope", Type: AttrString, Optional: true, OneOf: AtomicScopes}
)

var (
	one   = exactly(1)
	two   = exactly(2)
	three = exactly(3)
	four  = exactly(4)
	axis  = required("axis", AttrInt)
	perm  = deferred("perm", AttrInts) // checked against the operand's rank
)

// opTable has a row for every op kind, in the order of ops.go. A row whose
// check is tableOnly says why nothing more holds.
var opTable = []OpInfo{
	// ---- constants, indices, program ids
	{Name: OpConstant, Results: one, Attrs: []AttrSpec{deferred("value", AttrScalar)}, Pure: true, verify: (*verifier).checkConstant},
	{Name: OpProgramID, Results: one, Attrs: []AttrSpec{axis}, Pure: true, verify: (*verifier).checkGridIndex},
	{Name: OpNumPrograms, Results: one, Attrs: []AttrSpec{axis}, Pure: true, verify: (*verifier).checkGridIndex},
	{Name: OpArange, Results: one, Attrs: []AttrSpec{required("start", AttrInt), required("end", AttrInt)}, Pure: true, verify: (*verifier).checkArange},

	// ---- shapes
	{Name: OpSplat, Operands: one, Results: one, Pure: true, verify: (*verifier).checkSplat},
	{Name: OpBroadcast, Operands: one, Results: one, Pure: true, verify: (*verifier).checkBroadcast},
	{Name: OpExpandDims, Operands: one, Results: one, Attrs: []AttrSpec{axis}, Pure: true, verify: (*verifier).checkExpandDims},
	{Name: OpReshape, Operands: one, Results: one, Pure: true, verify: (*verifier).checkReshape},
	{Name: OpTrans, Operands: one, Results: one, Attrs: []AttrSpec{perm}, Pure: true, verify: (*verifier).checkTrans},
	{Name: OpGather, Operands: two, Results: one, Attrs: []AttrSpec{axis}, Pure: true, verify: (*verifier).checkGather},
	{Name: OpButterfly, Operands: one, Results: one, Attrs: []AttrSpec{axis, required("mask", AttrInt)}, Pure: true, verify: (*verifier).checkButterfly},
	{Name: OpJoin, Operands: two, Results: one, Pure: true, verify: (*verifier).checkJoin},
	{Name: OpSplit, Operands: one, Results: two, Pure: true, verify: (*verifier).checkSplit},
	{Name: OpFlip, Operands: one, Results: one, Attrs: []AttrSpec{axis}, Pure: true, verify: (*verifier).checkFlip},
	{Name: OpExtractSlice, Operands: one, Results: one, Attrs: []AttrSpec{deferred("starts", AttrInts)}, Pure: true, verify: (*verifier).checkExtractSlice},

	// ---- element-wise arithmetic
	{Name: OpAdd, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkArith},
	{Name: OpSub, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkArith},
	{Name: OpMul, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkArith},
	{Name: OpDiv, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkArith},
	{Name: OpRem, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkArith},
	{Name: OpMin, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkArith},
	{Name: OpMax, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkArith},
	{Name: OpAnd, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkBitwise},
	{Name: OpOr, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkBitwise},
	{Name: OpXor, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkBitwise},
	{Name: OpShl, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkBitwise},
	{Name: OpShr, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkBitwise},
	{Name: OpNeg, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkNumberUnary},
	{Name: OpNot, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkIntUnary},
	{Name: OpCmp, Operands: two, Results: one, Attrs: []AttrSpec{deferred("pred", AttrString, CmpPreds...)}, Pure: true, Elementwise: true, verify: (*verifier).checkCmp},
	{Name: OpSelect, Operands: three, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkSelect},
	{Name: OpCast, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkCast},
	{Name: OpAddPtr, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkAddPtr},
	{Name: OpBitcast, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkBitcast},
	{Name: OpAxisHint, Operands: one, Results: one, Pure: true, Elementwise: true,
		Attrs: []AttrSpec{optional("divisibility", AttrInts), optional("contiguity", AttrInts), optional("constancy", AttrInts)}, verify: (*verifier).checkAxisHint},
	{Name: OpPtrToInt, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkPtrInt},
	{Name: OpIntToPtr, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkPtrInt},

	// ---- element-wise math on floats
	{Name: OpExp, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpExp2, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpLog, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpLog2, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpSqrt, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpRsqrt, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpSigmoid, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpTanh, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpErf, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpSin, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpCos, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpTan, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpAsin, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpAcos, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpAtan, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpSinh, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpCosh, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpLog1p, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpExpm1, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpAtan2, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatBinary},
	{Name: OpPow, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatBinary},
	{Name: OpAbs, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkNumberUnary},
	{Name: OpFloor, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpCeil, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpTrunc, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpRound, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatUnary},
	{Name: OpDivRN, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFloatBinary},
	{Name: OpUMulHi, Operands: two, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkIntBinary},
	{Name: OpFMA, Operands: three, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkFMA},
	{Name: OpRoundTF32, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkRoundTF32},

	// ---- memory
	{Name: OpLoad, Operands: between(1, 3), Results: one, Attrs: []AttrSpec{optional("async", AttrBool)}, verify: (*verifier).checkLoad},
	{Name: OpStore, Operands: between(2, 3), verify: (*verifier).checkStore},
	{Name: OpAtomicRMW, Operands: between(2, 3), Results: one, Attrs: []AttrSpec{deferred("kind", AttrString, AtomicKinds...), atomicSem, atomicScope}, verify: (*verifier).checkAtomicRMW},
	{Name: OpAtomicCAS, Operands: between(3, 4), Results: one, Attrs: []AttrSpec{atomicSem, atomicScope}, verify: (*verifier).checkAtomicCAS},
	{Name: OpDot, Operands: three, Results: one, Pure: true, Attrs: []AttrSpec{optional("input_precision", AttrString)}, verify: (*verifier).checkDot},
	{Name: OpReduce, Operands: atLeast(1), Results: perOperandFrom(0), Regions: anyNumber, Attrs: []AttrSpec{axis, required("kind", AttrString, ReduceKinds...)}, Pure: true, verify: (*verifier).checkReduce},
	{Name: OpScan, Operands: atLeast(1), Results: perOperandFrom(0), Regions: anyNumber, Attrs: []AttrSpec{axis, required("kind", AttrString, ScanKinds...), optional("reverse", AttrBool)}, Pure: true, verify: (*verifier).checkScan},
	// print takes any values: nothing holds beyond the counts
	{Name: OpPrint, Operands: anyNumber, Attrs: []AttrSpec{optional("prefix", AttrString)}, verify: tableOnly},
	{Name: OpAssert, Operands: one, Attrs: []AttrSpec{optional("msg", AttrString)}, verify: (*verifier).checkAssert},
	{Name: OpAssume, Operands: one, verify: (*verifier).checkAssume},
	{Name: OpCall, Operands: anyNumber, Results: anyNumber, Attrs: []AttrSpec{required("callee", AttrString)}, verify: (*verifier).checkCall},
	{Name: OpFor, Operands: atLeast(3), Results: perOperandFrom(3), Regions: one, Attrs: []AttrSpec{optional("while", AttrInt), optional("num_stages", AttrInt), optional("loop_unroll_factor", AttrInt)}, verify: (*verifier).checkFor},
	{Name: OpIf, Operands: one, Results: anyNumber, Regions: anyNumber, verify: (*verifier).checkIf},
	// terminators: their results are not checked (no producer makes any)
	{Name: OpYield, Operands: anyNumber, Results: anyNumber, Terminator: true, verify: (*verifier).checkYield},
	{Name: OpReturn, Operands: anyNumber, Results: anyNumber, Terminator: true, verify: (*verifier).checkReturn},
	{Name: OpAlloc, Operands: between(0, 1), Results: one, verify: (*verifier).checkAlloc},
	{Name: OpMemIndex, Operands: two, Results: one, Pure: true, verify: (*verifier).checkMemIndex},
	{Name: OpMemTrans, Operands: one, Results: one, Attrs: []AttrSpec{perm}, Pure: true, verify: (*verifier).checkMemTrans},
	{Name: OpMemReshape, Operands: one, Results: one, Pure: true, verify: (*verifier).checkMemReshape},
	{Name: OpLocalPtr, Operands: atLeast(1), Results: one, Pure: true, verify: (*verifier).checkLocalPtr},
	{Name: OpLocalLoad, Operands: one, Results: one, verify: (*verifier).checkLocalLoad},
	{Name: OpLocalStore, Operands: two, verify: (*verifier).checkLocalStore},

	// ---- mbarriers
	{Name: OpBarrierAlloc, Results: one, Attrs: []AttrSpec{optional("count", AttrInt)}, verify: (*verifier).checkBarrierAlloc},
	{Name: OpBarrierIndex, Operands: two, Results: one, Pure: true, verify: (*verifier).checkBarrierIndex},
	{Name: OpBarrierArrive, Operands: one, verify: (*verifier).checkBarrierArrive},
	{Name: OpBarrierWait, Operands: two, verify: (*verifier).checkBarrierPhase},
	{Name: OpBarrierExpect, Operands: two, verify: (*verifier).checkBarrierPhase},
	// not pure: it reads the barrier's state, which the arrivals change
	{Name: OpBarrierPhase, Operands: one, Results: one, verify: (*verifier).checkBarrierParity},

	// ---- pipes
	{Name: OpPipeAlloc, Results: one, verify: (*verifier).checkPipeAlloc},
	{Name: OpPipeAcquire, Operands: two, Results: one, verify: (*verifier).checkPipeSlot},
	{Name: OpPipeCommit, Operands: two, verify: (*verifier).checkPipeIndex},
	{Name: OpPipeClose, Operands: two, verify: (*verifier).checkPipeIndex},
	{Name: OpPipeWait, Operands: two, Results: one, verify: (*verifier).checkPipeSlot},
	{Name: OpPipeRelease, Operands: two, verify: (*verifier).checkPipeIndex},
	{Name: OpSlotField, Operands: one, Results: one, Attrs: []AttrSpec{deferred("name", AttrString)}, Pure: true, verify: (*verifier).checkSlotField},
	{Name: OpSlotClosed, Operands: one, Results: one, verify: (*verifier).checkSlotClosed},

	// ---- warp roles
	{Name: OpWarpSpecialize, Regions: one, verify: (*verifier).checkWarpSpecialize},
	{Name: OpRole, Regions: one, Attrs: []AttrSpec{deferred("name", AttrString), deferred("warps", AttrInt), optional("regs", AttrInt), optional("copy", AttrInt), optional("copies", AttrInt)}, verify: (*verifier).checkRole},

	// ---- bulk copies, descriptors, wgmma
	{Name: OpCopy, Operands: atLeast(2), Attrs: []AttrSpec{optional("has_barrier", AttrBool)}, verify: (*verifier).checkCopy},
	{Name: OpMakeDesc, Operands: atLeast(1), Results: one, Attrs: []AttrSpec{deferred("block", AttrInts)}, verify: (*verifier).checkMakeDesc},
	{Name: OpWgmma, Operands: three, Results: one, Attrs: []AttrSpec{optional("trans_a", AttrBool), optional("trans_b", AttrBool)}, verify: (*verifier).checkWgmma},
	{Name: OpWgmmaWait, Operands: anyNumber, Results: perOperandFrom(0), Attrs: []AttrSpec{optional("pending", AttrInt)}, verify: (*verifier).checkWgmmaWait},

	// ---- clusters
	{Name: OpDeviceMesh, Results: one, Attrs: []AttrSpec{deferred("dims", AttrInts), optional("devices", AttrInt)}, verify: (*verifier).checkDeviceMesh},
	{Name: OpShardID, Operands: one, Results: one, Attrs: []AttrSpec{deferred("axis", AttrInt)}, Pure: true, verify: (*verifier).checkShardID},
	{Name: OpRemote, Operands: three, Results: one, Pure: true, verify: (*verifier).checkRemote},
	{Name: OpDistributedBarrier, Operands: one, Attrs: []AttrSpec{optional("axis", AttrString), optional("group", AttrInt)}, verify: (*verifier).checkDistributedBarrier},
	{Name: OpRemotePtr, Operands: three, Results: one, Pure: true, verify: (*verifier).checkRemotePtr},
	{Name: OpSignal, Operands: four, Attrs: []AttrSpec{deferred("op", AttrString, SignalOps...)}, verify: (*verifier).checkSignal},
	{Name: OpSignalWait, Operands: two, Attrs: []AttrSpec{deferred("cmp", AttrString, CmpPreds...)}, verify: (*verifier).checkSignalWait},

	// ---- programmatic dependent launch: no operands, results or
	// attributes; not Pure, so that CSE and DCE keep every one
	{Name: OpGridDepWait, verify: (*verifier).checkNoValues},
	{Name: OpLaunchDependents, verify: (*verifier).checkNoValues},

	// ---- CTA-wide barrier: no values; not Pure, so every one stays
	{Name: OpDebugBarrier, verify: (*verifier).checkNoValues},

	// ---- warp votes and prefix counts (verify_votes.go)
	{Name: OpBallot, Operands: one, Results: one, Pure: true, verify: (*verifier).checkBallot},
	{Name: OpPopc, Operands: one, Results: one, Pure: true, Elementwise: true, verify: (*verifier).checkPopc},
	{Name: OpPrefixCount, Operands: one, Results: one, Pure: true, verify: (*verifier).checkPrefixCount},

	// ---- escape hatch: the template's constraints decide the operands and
	// results, which only the assembler checks
	{Name: OpAsm, Operands: anyNumber, Results: anyNumber, Attrs: []AttrSpec{required("template", AttrString), optional("constraints", AttrString)}, verify: tableOnly},

	// ---- the GPU passes' ops (see ops.go)
	// convert_layout is free of side effects, but the layout passes place
	// and remove it themselves: CSE and DCE leave it alone (not Pure).
	{Name: OpConvertLayout, Operands: one, Results: one, GPU: true, verify: (*verifier).checkConvertLayout},
	{Name: OpAsyncCopy, Operands: between(2, 3), Attrs: []AttrSpec{optional("ring_copy", AttrBool)}, GPU: true, verify: (*verifier).checkAsyncCopy},
	// async_commit only closes the group of copies issued since the last
	// one: nothing holds beyond the counts
	{Name: OpAsyncCommit, GPU: true, verify: tableOnly},
	{Name: OpAsyncWait, Attrs: []AttrSpec{optional("pending", AttrInt)}, GPU: true, verify: (*verifier).checkAsyncWait},
}

// tableOnly is the check of kinds for which the table says everything.
func tableOnly(*verifier, *Op, *Op) bool { return true }

// opIndex finds a kind's row.
var opIndex = map[Kind]*OpInfo{}

// AllKinds lists every target-independent op kind (the table's rows but
// the GPU passes' own), in the order of ops.go.
var AllKinds = func() []Kind {
	var ks []Kind
	for _, in := range opTable {
		if !in.GPU {
			ks = append(ks, in.Name)
		}
	}
	return ks
}()

func init() {
	if err := checkTable(opTable); err != nil {
		panic("ir: " + err.Error())
	}
	for i := range opTable {
		opIndex[opTable[i].Name] = &opTable[i]
	}
}

// checkTable reports the first malformed row of rows: a kind without a
// name or a check, one listed twice, arities Verify cannot check, or
// attributes it cannot.
func checkTable(rows []OpInfo) error {
	seen := map[Kind]bool{}
	for _, in := range rows {
		if in.Name == "" {
			return fmt.Errorf("op table row without a name")
		}
		if seen[in.Name] {
			return fmt.Errorf("op %s has two rows", in.Name)
		}
		seen[in.Name] = true
		if in.verify == nil {
			return fmt.Errorf("op %s has no check (tableOnly, when the table says everything)", in.Name)
		}
		if in.Operands.PerOperand || in.Regions.PerOperand || in.Operands.Max >= 0 && in.Operands.Max < in.Operands.Min {
			return fmt.Errorf("op %s: operands %+v", in.Name, in.Operands)
		}
		for _, a := range []Arity{in.Results, in.Regions} {
			if !a.PerOperand && a != anyNumber && a.Min != a.Max {
				return fmt.Errorf("op %s: a result or region count is exact or any number, not %+v", in.Name, a)
			}
		}
		if in.Elementwise && !in.Pure {
			return fmt.Errorf("op %s is element-wise but not pure", in.Name)
		}
		names := map[string]bool{}
		for _, a := range in.Attrs {
			switch {
			case a.Name == "" || names[a.Name]:
				return fmt.Errorf("op %s: attribute %q missing or listed twice", in.Name, a.Name)
			case a.Type < AttrInt || a.Type > AttrScalar:
				return fmt.Errorf("op %s: attribute %s has no type", in.Name, a.Name)
			case a.OneOf != nil && a.Type != AttrString:
				return fmt.Errorf("op %s: attribute %s lists values but is not a string", in.Name, a.Name)
			case a.Optional && a.Deferred:
				return fmt.Errorf("op %s: attribute %s is optional and deferred", in.Name, a.Name)
			case !a.Optional && !a.Deferred && a.Type != AttrInt && a.Type != AttrString:
				return fmt.Errorf("op %s: attribute %s: Verify checks only int64 and string attributes up front", in.Name, a.Name)
			}
			names[a.Name] = true
		}
	}
	return nil
}

// Info returns the table row of k; ok is false for a kind without one (a
// kind RegisterKind added, or an unknown one).
func (k Kind) Info() (info OpInfo, ok bool) {
	if in := opIndex[k]; in != nil {
		return *in, true
	}
	return OpInfo{}, false
}

// Attr returns the spec of the attribute called name, or nil.
func (in *OpInfo) Attr(name string) *AttrSpec {
	i := slices.IndexFunc(in.Attrs, func(a AttrSpec) bool { return a.Name == name })
	if i < 0 {
		return nil
	}
	return &in.Attrs[i]
}

// IsKnown reports whether k has a row in the op table, or was added by a
// later layer with RegisterKind.
func (k Kind) IsKnown() bool { return opIndex[k] != nil || extraKinds[k] != nil }

// IsTerminator reports ops that end a region.
func (k Kind) IsTerminator() bool { in := opIndex[k]; return in != nil && in.Terminator }

// IsElementwise reports ops computed independently per element.
func (k Kind) IsElementwise() bool { in := opIndex[k]; return in != nil && in.Elementwise }

// IsPure reports ops without side effects, which CSE may merge and DCE may
// delete when unused.
func (k Kind) IsPure() bool { in := opIndex[k]; return in != nil && in.Pure }

// extraKinds are op kinds without a table row that a later layer
// registered, with their checks.
var extraKinds = map[Kind]func(op *Op) error{}

// RegisterKind makes Verify accept op kind k, checking each op of that
// kind with check (nil: structure and operand dominance only). It is meant
// for init functions of the packages that introduce such ops. A kind with
// a row in the op table keeps the row's checks: registering it again with
// a nil check does nothing, with another check panics.
func RegisterKind(k Kind, check func(op *Op) error) {
	if opIndex[k] != nil {
		if check != nil {
			panic(fmt.Sprintf("ir: RegisterKind(%q): the kind has a row in the op table; its checks are the row's", k))
		}
		return
	}
	if check == nil {
		check = func(*Op) error { return nil }
	}
	extraKinds[k] = check
}

package ir

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/diag"
)

// testLayout stands in for the backend's layouts.
type testLayout string

func (l testLayout) String() string { return string(l) }

func init() {
	RegisterLayoutParser(func(s string) (Layout, error) {
		if strings.HasPrefix(s, "test") {
			return testLayout(s), nil
		}
		return nil, nil
	})
}

func tile(elem Type, shape ...int) *Tile { return &Tile{Shape: shape, Elem: elem} }

// buildAll builds a module using every op kind and every type; it verifies.
func buildAll() *Module {
	gptr := &Pointer{Elem: F32, Space: Global}
	kern := NewFunc("all_ops", true, []*Param{
		{Name: "x", Type: gptr, Pos: 3},
		{Name: "n", Type: I32, Pos: 10},
		{Name: "h", Type: &Pointer{Elem: F16, Space: Global}, Pos: diag.NoPos},
		{Name: "flag", Type: &Pointer{Elem: I32, Space: Global}, Pos: 12},
	})
	kern.Constants["BLOCK"] = "64"
	kern.Constants["weird key"] = "a \"q\""
	kern.Attrs["num_warps"] = int64(4)
	kern.Attrs["cluster"] = []int64{2, 1, 1}
	kern.Pos = 0
	x, n, h := kern.Body.Args[0], kern.Body.Args[1], kern.Body.Args[2]
	b := NewBuilder(kern)
	b.Pos = 100
	v := func(k Kind, t Type, ops []*Value, a Attrs) *Value {
		b.Pos++
		return b.Value(k, t, ops, a)
	}
	pid := v(OpProgramID, I32, nil, Attrs{"axis": int64(0)})
	pid.Name = "pid"
	v(OpNumPrograms, I32, nil, Attrs{"axis": int64(1)})
	ar := v(OpArange, tile(I32, 64), nil, Attrs{"start": int64(0), "end": int64(64)})
	c0 := b.ConstInt(0, I32)
	c1 := b.ConstInt(1, I32)
	cf := b.ConstFloat(0.5, F32)
	ct := v(OpConstant, I1, nil, Attrs{"value": true})
	cz := b.ConstFloat(0, tile(F32, 64, 64))
	off := v(OpMul, I32, []*Value{pid, c1}, nil)
	soff := v(OpSplat, tile(I32, 64), []*Value{off}, nil)
	idx := v(OpAdd, tile(I32, 64), []*Value{ar, soff}, nil)
	idx.Name = "offs"
	xs := v(OpSplat, tile(gptr, 64), []*Value{x}, nil)
	ptrs := v(OpAddPtr, tile(gptr, 64), []*Value{xs, idx}, nil)
	nn := v(OpSplat, tile(I32, 64), []*Value{n}, nil)
	mask := v(OpCmp, tile(I1, 64), []*Value{idx, nn}, Attrs{"pred": "lt"})
	other := b.ConstFloat(0, tile(F32, 64))
	ld := v(OpLoad, tile(F32, 64), []*Value{ptrs, mask, other}, nil)
	ld2 := v(OpLoad, tile(F32, 64), []*Value{ptrs}, Attrs{"async": false})
	ptrs = v(OpIntToPtr, tile(gptr, 64), []*Value{v(OpPtrToInt, tile(I64, 64), []*Value{ptrs}, nil)}, nil)
	ptrs = v(OpAxisHint, tile(gptr, 64), []*Value{ptrs}, Attrs{"divisibility": []int64{16}, "contiguity": []int64{64}, "constancy": []int64{1}})
	b.Create(OpAssume, nil, []*Value{ct}, nil)
	f := ld
	for _, k := range []Kind{OpSub, OpMul, OpDiv, OpRem, OpMin, OpMax, OpDivRN, OpAtan2, OpPow} {
		f = v(k, tile(F32, 64), []*Value{f, ld2}, nil)
	}
	iv := idx
	for _, k := range []Kind{OpAnd, OpOr, OpXor, OpShl, OpShr, OpUMulHi} {
		iv = v(k, tile(I32, 64), []*Value{iv, idx}, nil)
	}
	for _, k := range []Kind{OpNeg, OpExp, OpExp2, OpLog, OpLog2, OpSqrt, OpRsqrt, OpSigmoid, OpTanh, OpErf, OpSin, OpCos, OpTan, OpAsin, OpAcos, OpAtan, OpSinh, OpCosh, OpLog1p, OpExpm1, OpRoundTF32, OpAbs, OpFloor, OpCeil, OpTrunc, OpRound} {
		f = v(k, tile(F32, 64), []*Value{f}, nil)
	}
	f = v(OpFMA, tile(F32, 64), []*Value{f, ld2, ld}, nil)
	nm := v(OpNot, tile(I1, 64), []*Value{mask}, nil)
	sel := v(OpSelect, tile(F32, 64), []*Value{nm, f, ld2}, nil)
	bf := v(OpCast, tile(BF16, 64), []*Value{sel}, Attrs{"rounding": "rtz"})
	sel = v(OpCast, tile(F32, 64), []*Value{bf}, nil)
	sel = v(OpBitcast, tile(F32, 64), []*Value{v(OpBitcast, tile(U32, 64), []*Value{sel}, nil)}, nil)
	ed := v(OpExpandDims, tile(F32, 64, 1), []*Value{sel}, Attrs{"axis": int64(1)})
	bc := v(OpBroadcast, tile(F32, 64, 64), []*Value{ed}, nil)
	v(OpReshape, tile(F32, 32, 128), []*Value{bc}, nil)
	tr := v(OpTrans, tile(F32, 64, 64), []*Value{bc}, Attrs{"perm": []int64{1, 0}})
	gi := v(OpBroadcast, tile(I32, 64, 64), []*Value{v(OpExpandDims, tile(I32, 64, 1), []*Value{idx}, Attrs{"axis": int64(1)})}, nil)
	tr = v(OpGather, tile(F32, 64, 64), []*Value{tr, gi}, Attrs{"axis": int64(1)})
	tr = v(OpButterfly, tile(F32, 64, 64), []*Value{tr}, Attrs{"axis": int64(0), "mask": int64(3)})
	jn := v(OpJoin, tile(F32, 64, 64, 2), []*Value{bc, tr}, nil)
	sp := b.Create(OpSplit, []Type{tile(F32, 64, 64), tile(F32, 64, 64)}, []*Value{jn}, nil)
	fl := v(OpFlip, tile(F32, 64, 64), []*Value{sp.Results[1]}, Attrs{"axis": int64(0)})
	v(OpExtractSlice, tile(F32, 16, 64), []*Value{fl}, Attrs{"starts": []int64{32, 0}})
	dt := v(OpDot, tile(F32, 64, 64), []*Value{bc, tr, cz}, Attrs{"input_precision": "ieee"})
	red := v(OpReduce, tile(F32, 64), []*Value{dt}, Attrs{"axis": int64(1), "kind": "sum"})
	v(OpReduce, F32, []*Value{red}, Attrs{"axis": int64(0), "kind": "max"})
	v(OpReduce, I32, []*Value{iv}, Attrs{"axis": int64(0), "kind": "xor"})
	sc := v(OpScan, tile(F32, 64), []*Value{red}, Attrs{"axis": int64(0), "kind": "sum", "reverse": true})
	b.Pos++
	b.Create(OpStore, nil, []*Value{ptrs, sc, mask}, nil)
	v(OpAtomicRMW, tile(F32, 64), []*Value{ptrs, sc, mask}, Attrs{"kind": "add"})
	v(OpAtomicCAS, F32, []*Value{x, cf, cf}, nil)
	b.Create(OpPrint, nil, []*Value{red, n}, Attrs{"prefix": "red: "})
	b.Create(OpAssert, nil, []*Value{mask}, Attrs{"msg": "in bounds"})
	call := b.Create(OpCall, []Type{F32, I32}, []*Value{cf}, Attrs{"callee": "helper"})

	// for with a loop-carried value
	forOp := b.Create(OpFor, []Type{tile(F32, 64)}, []*Value{c0, n, c1, red}, nil)
	forOp.Results[0].Name = "acc_out"
	body := b.NewRegion(forOp)
	k := kern.AddBlockArg(body, I32, "k")
	acc := kern.AddBlockArg(body, tile(F32, 64), "acc")
	_ = k
	inner := &Builder{Func: kern, Block: body, Pos: 200}
	sum := inner.Value(OpAdd, tile(F32, 64), []*Value{acc, red}, nil)
	inner.Create(OpYield, nil, []*Value{sum}, nil)

	// if with results
	ifOp := b.Create(OpIf, []Type{F32}, []*Value{ct}, nil)
	thenB := b.NewRegion(ifOp)
	(&Builder{Func: kern, Block: thenB, Pos: 210}).Create(OpYield, nil, []*Value{call.Results[0]}, nil)
	elseB := b.NewRegion(ifOp)
	eb := &Builder{Func: kern, Block: elseB, Pos: 220}
	neg := eb.Value(OpNeg, F32, []*Value{cf}, nil)
	eb.Create(OpYield, nil, []*Value{neg}, nil)
	// if without else
	if2 := b.Create(OpIf, nil, []*Value{ct}, nil)
	(&Builder{Func: kern, Block: b.NewRegion(if2), Pos: 230}).Create(OpYield, nil, nil, nil)

	// shared memory
	buf := v(OpAlloc, &MemDesc{Shape: []int{2, 64, 64}, Elem: F16, Order: RowMajor(3), Space: Shared}, nil, nil)
	slot := v(OpMemIndex, &MemDesc{Shape: []int{64, 64}, Elem: F16, Order: RowMajor(2), Space: Shared}, []*Value{buf, c1}, nil)
	v(OpMemReshape, &MemDesc{Shape: []int{128, 64}, Elem: F16, Order: RowMajor(2), Space: Shared}, []*Value{buf}, nil)
	slotT := v(OpMemTrans, &MemDesc{Shape: []int{64, 64}, Elem: F16, Order: []int{0, 1}, Space: Shared, Layout: testLayout("test_swizzle<128>")}, []*Value{slot}, Attrs{"perm": []int64{1, 0}})
	v(OpLocalPtr, tile(&Pointer{Elem: F16, Space: Shared}, 64), []*Value{slot, idx, idx}, nil)
	ll := v(OpLocalLoad, &Tile{Shape: []int{64, 64}, Elem: F16, Layout: testLayout("test_blocked<[1,4],[8,4]>")}, []*Value{slot}, nil)
	b.Create(OpLocalStore, nil, []*Value{slot, ll}, nil)
	buf2 := v(OpAlloc, &MemDesc{Shape: []int{64, 64}, Elem: F16, Space: Shared}, []*Value{ll}, nil)

	bar := v(OpBarrierAlloc, &Barrier{}, nil, Attrs{"count": int64(1)})
	b.Create(OpBarrierArrive, nil, []*Value{bar}, nil)
	bars := v(OpBarrierAlloc, &Barrier{Slots: 3}, nil, Attrs{"count": int64(1)})
	b.Create(OpBarrierArrive, nil, []*Value{v(OpBarrierIndex, &Barrier{}, []*Value{bars, c0}, nil)}, nil)
	b.Create(OpBarrierWait, nil, []*Value{bar, c0}, nil)
	b.Create(OpBarrierExpect, nil, []*Value{bar, c1}, nil)
	v(OpBarrierPhase, I32, []*Value{bar}, nil)

	pipeT := &Pipe{Capacity: 2, Fields: []PipeField{{Name: "a", Shape: []int{64, 64}, Elem: F16}, {Name: "b", Shape: []int{64}, Elem: F32}}}
	pipe := v(OpPipeAlloc, pipeT, nil, nil)
	ws := b.Create(OpWarpSpecialize, nil, nil, nil)
	wsb := b.NewRegion(ws)
	wb := &Builder{Func: kern, Block: wsb, Pos: 300}
	prod := wb.Create(OpRole, nil, nil, Attrs{"name": "producer", "warps": int64(1), "regs": int64(40)})
	pb := &Builder{Func: kern, Block: wb.NewRegion(prod), Pos: 310}
	ws1 := pb.Value(OpPipeAcquire, &Slot{Pipe: pipeT, Writer: true}, []*Value{pipe, c0}, nil)
	pb.Value(OpSlotField, &MemDesc{Shape: []int{64, 64}, Elem: F16, Order: RowMajor(2), Space: Shared}, []*Value{ws1}, Attrs{"name": "a"})
	pb.Create(OpPipeCommit, nil, []*Value{pipe, c0}, nil)
	pb.Create(OpPipeClose, nil, []*Value{pipe, c1}, nil)
	pb.Create(OpYield, nil, nil, nil)
	cons := wb.Create(OpRole, nil, nil, Attrs{"name": "consumer", "warps": int64(4)})
	cb := &Builder{Func: kern, Block: wb.NewRegion(cons), Pos: 320}
	rs := cb.Value(OpPipeWait, &Slot{Pipe: pipeT}, []*Value{pipe, c0}, nil)
	cb.Value(OpSlotClosed, I1, []*Value{rs}, nil)
	cb.Value(OpSlotField, &MemDesc{Shape: []int{64}, Elem: F32, Order: RowMajor(1), Space: Shared}, []*Value{rs}, Attrs{"name": "b"})
	cb.Create(OpPipeRelease, nil, []*Value{pipe, c0}, nil)
	cb.Create(OpYield, nil, nil, nil)
	wb.Create(OpYield, nil, nil, nil)

	desc := v(OpMakeDesc, &Desc{Elem: F16, Block: []int{64, 64}}, []*Value{h, n, n, n, c1}, Attrs{"block": []int64{64, 64}})
	b.Create(OpCopy, nil, []*Value{desc, slot, c0, c0, bar}, Attrs{"has_barrier": true})
	b.Create(OpCopy, nil, []*Value{slot, desc, c0, c0}, nil)
	wg := v(OpWgmma, tile(F32, 64, 64), []*Value{ll, slotT, cz}, Attrs{"trans_a": false, "trans_b": true})
	b.Create(OpWgmmaWait, []Type{tile(F32, 64, 64)}, []*Value{wg}, Attrs{"pending": int64(0)})

	mesh := v(OpDeviceMesh, &Mesh{Dims: [3]int{2, 1, 1}}, nil, Attrs{"dims": []int64{2, 1, 1}})
	v(OpShardID, I32, []*Value{mesh}, Attrs{"axis": int64(0)})
	v(OpRemote, &MemDesc{Shape: []int{64, 64}, Elem: F16, Order: RowMajor(2), Space: Cluster}, []*Value{buf2, c1, mesh}, nil)
	b.Create(OpDistributedBarrier, nil, []*Value{mesh}, nil)
	dmesh := v(OpDeviceMesh, &Mesh{Dims: [3]int{1, 1, 1}, Devices: 4}, nil, Attrs{"dims": []int64{1, 1, 1}, "devices": int64(4)})
	v(OpShardID, I32, []*Value{dmesh}, Attrs{"axis": int64(3)})
	v(OpRemotePtr, h.Type, []*Value{h, n, dmesh}, nil)
	flag := kern.Body.Args[3]
	b.Create(OpSignal, nil, []*Value{flag, n, dmesh, n}, Attrs{"op": "add"})
	b.Create(OpSignalWait, nil, []*Value{flag, n}, Attrs{"cmp": "ge"})
	b.Create(OpDistributedBarrier, nil, []*Value{dmesh}, Attrs{"axis": "device", "group": int64(2)})
	b.Create(OpGridDepWait, nil, nil, nil)
	b.Create(OpLaunchDependents, nil, nil, nil)
	b.Create(OpDebugBarrier, nil, nil, nil)
	words := v(OpBallot, tile(U32, 2), []*Value{mask}, nil)
	v(OpPopc, tile(U32, 2), []*Value{words}, nil)
	v(OpPrefixCount, tile(I32, 64), []*Value{mask}, nil)
	v(OpAsm, I32, []*Value{n}, Attrs{"template": "mov.u32 $0, $1;", "constraints": "=r,r"})
	b.Pos = diag.NoPos
	b.Create(OpReturn, nil, nil, nil)

	// a helper with two results
	hf := NewFunc("helper", false, []*Param{{Name: "a", Type: F32, Pos: 400}})
	hf.Results = []Type{F32, I32}
	hb := NewBuilder(hf)
	hb.Pos = 410
	r := hb.Value(OpAdd, F32, []*Value{hf.Body.Args[0], hf.Body.Args[0]}, nil)
	r.Name = "twice"
	c := hb.ConstInt(7, I32)
	hb.Create(OpReturn, nil, []*Value{r, c}, nil)

	return &Module{File: diag.NewFile("all.tle", nil), Funcs: []*Func{kern, hf}}
}

func TestRoundTripAllOps(t *testing.T) {
	m := buildAll()
	require.NoError(t, Verify(m))
	text := Print(m)
	m2, err := Parse("all.tir", []byte(text))
	require.NoError(t, err, text)
	require.NoError(t, Verify(m2))
	require.Equal(t, text, Print(m2))
	require.Equal(t, "all.tle", m2.File.Name)

	// every op kind appears
	seen := map[Kind]bool{}
	for _, f := range m2.Funcs {
		f.Walk(func(op *Op) { seen[op.Kind] = true })
	}
	for _, k := range AllKinds {
		require.True(t, seen[k], "op %s not covered", k)
	}
	// positions and names survive
	k := m2.Func("all_ops")
	require.Equal(t, diag.Pos(3), k.Params[0].Pos)
	require.Equal(t, diag.NoPos, k.Params[2].Pos)
	require.Equal(t, "pid", k.Body.Ops[0].Results[0].Name)
	require.Equal(t, diag.Pos(101), k.Body.Ops[0].Pos)
	require.Equal(t, "a \"q\"", k.Constants["weird key"])
	require.Equal(t, []int64{2, 1, 1}, k.Attrs["cluster"])
	require.Equal(t, diag.NoPos, k.Body.Terminator().Pos)
}

func TestPrintExample(t *testing.T) {
	f := NewFunc("vector_add", true, []*Param{{Name: "x", Type: &Pointer{Elem: F32}}, {Name: "n", Type: I32}})
	f.Constants["BLOCK"] = "1024"
	f.Attrs["num_warps"] = int64(4)
	b := NewBuilder(f)
	b.Pos = 12
	pid := b.Value(OpProgramID, I32, nil, Attrs{"axis": int64(0)})
	pid.Name = "pid"
	b.Pos = 40
	b.Create(OpReturn, nil, nil, nil)
	got := PrintFunc(f)
	want := `kernel @vector_add(%x: *f32 loc(0), %n: i32 loc(0)) attributes {constants = {BLOCK = "1024"}, num_warps = 4} loc(0) {
  %0 /*pid*/ = program_id() {axis = 0} : i32 loc(12)
  return() loc(40)
}
`
	require.Equal(t, want, got)
}

func TestAttrsRoundTrip(t *testing.T) {
	attrs := Attrs{
		"i": int64(-42), "big": int64(math.MinInt64), "one": 1.0, "tiny": 5e-324, "negzero": math.Copysign(0, -1),
		"pinf": math.Inf(1), "ninf": math.Inf(-1), "nan": math.NaN(), "third": 1.0 / 3, "big_f": 1e300,
		"t": true, "f": false, "s": "a \"quoted\"\nline", "empty": "", "l": []int64{1, -2, 3}, "el": []int64{},
		"dt": BF16, "ty": &Tile{Shape: []int{4, 8}, Elem: F16, Layout: testLayout("test_l<[4,8]>")},
		"ptrty": &Pointer{Elem: F8E4M3, Space: Shared}, "mty": &MemDesc{Shape: []int{4}, Elem: I8, Order: []int{0}, Space: Cluster},
		"weird key": int64(1),
	}
	f := NewFunc("k", true, nil)
	b := NewBuilder(f)
	b.Create(OpPrint, nil, nil, attrs)
	b.Create(OpReturn, nil, nil, nil)
	m := &Module{Funcs: []*Func{f}}
	text := Print(m)
	m2, err := Parse("a.tir", []byte(text))
	require.NoError(t, err, text)
	require.Equal(t, text, Print(m2))
	got := m2.Funcs[0].Body.Ops[0].Attrs
	for k, want := range attrs {
		switch w := want.(type) {
		case float64:
			g, ok := got[k].(float64)
			require.True(t, ok, "%s: %T", k, got[k])
			if math.IsNaN(w) {
				require.True(t, math.IsNaN(g))
			} else {
				require.Equal(t, math.Float64bits(w), math.Float64bits(g), k)
			}
		case Type:
			require.True(t, Equal(w, got[k].(Type)), k)
		default:
			require.Equal(t, want, got[k], k)
		}
	}
	require.Contains(t, text, "one = 1.0")
	require.Contains(t, text, "i = -42")
}

func TestTypesRoundTrip(t *testing.T) {
	pipe := &Pipe{Capacity: 3, Fields: []PipeField{{Name: "k", Shape: []int{64, 128}, Elem: F8E5M2}, {Name: "idx", Shape: []int{64}, Elem: U16}}}
	types := []Type{
		&Pointer{Elem: F32, Space: Global}, &Pointer{Elem: BF16, Space: Shared}, &Pointer{Elem: U8, Space: Cluster}, &Pointer{Elem: I64, Space: 5},
		tile(F32, 128), tile(I1, 2, 3, 4), tile(&Pointer{Elem: F16, Space: Global}, 64), tile(&Pointer{Elem: F16, Space: Shared}, 8, 8),
		&Tile{Shape: []int{16, 16}, Elem: F32, Layout: testLayout("test_mma<v3,{warps=[4,1]}>")},
		&MemDesc{Shape: []int{2, 64, 64}, Elem: BF16, Order: RowMajor(3), Space: Shared},
		&MemDesc{Shape: []int{64, 64}, Elem: F16, Order: []int{0, 1}, Space: Cluster, Layout: testLayout("test_swz")},
		&Barrier{}, pipe, &Slot{Pipe: pipe, Writer: true}, &Slot{Pipe: pipe}, &Mesh{Dims: [3]int{2, 2, 1}},
		&Desc{Elem: F16, Block: []int{64, 64}},
	}
	for _, d := range AllDTypes {
		types = append(types, d, tile(d, 4))
	}
	for _, ty := range types {
		got, err := ParseType(ty.String())
		require.NoError(t, err, ty.String())
		require.Equal(t, ty.String(), got.String())
		require.True(t, Equal(ty, got))
	}
	// every dtype as a parameter, through a whole module
	var params []*Param
	for i, ty := range types {
		params = append(params, &Param{Name: "p" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Type: ty})
	}
	f := NewFunc("types", false, params)
	NewBuilder(f).Create(OpReturn, nil, nil, nil)
	text := Print(&Module{Funcs: []*Func{f}})
	m2, err := Parse("t.tir", []byte(text))
	require.NoError(t, err, text)
	require.Equal(t, text, Print(m2))
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"kernel @k() {\n  return(%3)\n}", "t.tir:2:10: error: undefined value %3"},
		{"kernel @k() {\n  %0 = constant() {value = 1} : i32\n  %0 = constant() {value = 1} : i32\n  return()\n}", "value %0 defined twice"},
		{"kernel @k() {\n  %0 = constant() {value = 1}\n  return()\n}", "has 1 results but 0 result types"},
		{"kernel @k(%x: [4]f32#nolayout) {\n  return()\n}", "unknown layout #nolayout"},
		{"kernel @k(%x: q32) {\n  return()\n}", "unknown dtype q32"},
		{"kernel @k() {\n  return()\n", "missing '}'"},
		{"kernel @k() {\n  %0 = constant() {value = 1, value = 2} : i32\n  return()\n}", "duplicate attribute value"},
	}
	for _, c := range cases {
		_, err := Parse("t.tir", []byte(c.src))
		require.Error(t, err, c.src)
		require.Contains(t, err.Error(), c.want)
	}
}

func TestCloneOp(t *testing.T) {
	m := buildAll()
	k := m.Func("all_ops")
	var forOp *Op
	k.Walk(func(op *Op) {
		if op.Kind == OpFor {
			forOp = op
		}
	})
	c := k.CloneOp(forOp, map[*Value]*Value{})
	k.Body.InsertAt(k.Body.IndexOf(forOp)+1, c)
	require.NoError(t, Verify(m))
	require.NotSame(t, forOp.Regions[0].Args[1], c.Regions[0].Args[1])
	require.Same(t, c.Regions[0].Args[1], c.Regions[0].Ops[0].Operands[0])
}

// TestLocLineCol: a module whose File has its source prints locations as
// FILE:LINE:COL; the text parses back (without the source) and prints the
// same; a file name outside the bare set is quoted; the offset form still
// parses, and the two forms do not mix.
func TestLocLineCol(t *testing.T) {
	for _, name := range []string{"kernels/k-1.tle", "my file.tle"} {
		src := "kernel k(p *f32) {\n  pid := program_id(0)\n\tstore(p, 1)\n}\n"
		m := &Module{File: diag.NewFile(name, []byte(src))}
		f := &Func{Name: "k", Kernel: true, Params: []*Param{{Name: "p", Type: &Pointer{Elem: F32, Space: Global}, Pos: 9}}, Attrs: Attrs{}, Constants: map[string]string{}, Pos: 0}
		f.Body = &Block{}
		f.AddBlockArg(f.Body, f.Params[0].Type, "p")
		b := &Builder{Func: f, Block: f.Body, Pos: diag.Pos(strings.Index(src, "program_id"))}
		b.Create(OpProgramID, []Type{I32}, nil, Attrs{"axis": int64(0)})
		b.Pos = diag.Pos(strings.Index(src, "store"))
		b.Create(OpReturn, nil, nil, nil)
		m.Funcs = []*Func{f}
		txt := Print(m)
		q := name
		if strings.Contains(name, " ") {
			q = `"` + name + `"`
		}
		require.Contains(t, txt, "%p: *f32 loc("+q+":1:10)", txt)
		require.Contains(t, txt, "program_id() {axis = 0} : i32 loc("+q+":2:10)", txt)
		require.Contains(t, txt, "return() loc("+q+":3:2)", txt)
		require.Contains(t, PrintOffsets(m), "%p: *f32 loc(9)")
		back, err := Parse("k.tir", []byte(txt))
		require.NoError(t, err)
		require.Equal(t, txt, Print(back))
		require.Equal(t, 3, back.File.Position(back.Funcs[0].Body.Ops[1].Pos).Line)
	}
	_, err := Parse("k.tir", []byte("kernel @k() {\n  return() loc(3)\n  return() loc(a.tle:1:2)\n}\n"))
	require.ErrorContains(t, err, "loc(FILE:LINE:COL) and loc(OFFSET) in one module")
	_, err = Parse("k.tir", []byte("kernel @k() {\n  return() loc(a.tle:1:2)\n  return() loc(b.tle:1:2)\n}\n"))
	require.ErrorContains(t, err, `location in file "b.tle"`)
	_, err = Parse("k.tir", []byte("kernel @k() {\n  return() loc(a.tle:0:2)\n}\n"))
	require.ErrorContains(t, err, "a line and a column from 1")
}

// PrintFuncText is PrintFunc's text with each value's name and, per line,
// the op it prints (a region's argument line included).
func TestPrintFuncText(t *testing.T) {
	m, err := Parse("k.tir", []byte("kernel @k(%p: *i32, %n: i32) {\n  %a = add(%n, %n) : i32 loc(1)\n  %b = for(%n, %n, %n, %a) : i32 loc(2) {\n  ^(%i: i32, %c: i32):\n    yield(%c) loc(3)\n  }\n  store(%p, %b) loc(4)\n  return() loc(5)\n}\n"))
	require.NoError(t, err)
	f := m.Funcs[0]
	ft := PrintFuncText(m.File, f)
	require.Equal(t, PrintFunc(f), ft.Text)
	ops := f.Body.Ops
	require.Equal(t, []*Op{nil, ops[0], ops[1], ops[1], ops[1].Regions[0].Ops[0], nil, ops[2], ops[3], nil, nil}, ft.LineOps)
	require.Equal(t, "%n", ft.Refs[f.Body.Args[1]])
	require.Equal(t, "%0", ft.Refs[ops[0].Results[0]])
}

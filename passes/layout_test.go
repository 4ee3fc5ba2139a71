package passes

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

func TestSwizzleIsConflictFree(t *testing.T) {
	// the eight 16-byte rows an ldmatrix reads fall in eight distinct bank
	// groups for every row length the dot staging uses
	for _, cols := range []int{16, 32, 64, 128, 256} {
		sh := DotSharedLayout([]int{64, cols}, 2, []int{1, 0})
		for chunk := 0; chunk < cols/8; chunk++ {
			for r0 := 0; r0 < 64; r0 += 8 {
				banks := map[int]bool{}
				for r := r0; r < r0+8; r++ {
					off := gpu.SharedOffset(sh, []int{64, cols}, []int{r, chunk * 8}) * 2
					banks[(off/16)%8] = true
				}
				if len(banks) != 8 {
					t.Errorf("cols %d chunk %d rows %d..: %d bank groups (%s)", cols, chunk, r0, len(banks), sh)
				}
			}
		}
	}
}

func TestCoalescedChoice(t *testing.T) {
	info := &gpu.AxisInfo{Contig: []int{1, 32}, Div: []int{16, 16}, Const: []int{1, 1}}
	if got := Coalesced([]int{128, 32}, info, 2, 8).String(); got != "blocked<[1,8],[8,4],[8,1],[1,0]>" {
		t.Errorf("bf16 [128,32]: %s", got)
	}
	info1 := &gpu.AxisInfo{Contig: []int{1024}, Div: []int{16}, Const: []int{1}}
	if got := Coalesced([]int{1024}, info1, 4, 4).String(); got != "blocked<[4],[32],[4],[0]>" {
		t.Errorf("f32 [1024]: %s", got)
	}
	// 4-byte alignment only: scalar accesses
	info2 := &gpu.AxisInfo{Contig: []int{1024}, Div: []int{4}, Const: []int{1}}
	if got := Coalesced([]int{1024}, info2, 4, 4).String(); got != "blocked<[1],[32],[4],[0]>" {
		t.Errorf("f32 [1024] unaligned: %s", got)
	}
	if got := ChooseMMA([]int{128, 128}, 8).String(); got != "mma<[4,2]>" {
		t.Errorf("mma 128x128x8 warps: %s", got)
	}
}

// vecAdd builds out = x + y over BLOCK elements with a masked tail.
func vecAdd(block int) *ir.Func {
	pt := &ir.Pointer{Elem: ir.F32, Space: ir.Global}
	f := ir.NewFunc("vadd", true, []*ir.Param{{Name: "x", Type: pt}, {Name: "out", Type: pt}, {Name: "n", Type: ir.I32}})
	b := ir.NewBuilder(f)
	sh := []int{block}
	pid := b.Value(ir.OpProgramID, ir.I32, nil, ir.Attrs{"axis": int64(0)})
	start := b.Value(ir.OpMul, ir.I32, []*ir.Value{pid, b.ConstInt(int64(block), ir.I32)}, nil)
	ar := b.Value(ir.OpArange, ir.TileOf(sh, ir.I32), nil, ir.Attrs{"start": int64(0), "end": int64(block)})
	offs := b.Value(ir.OpAdd, ar.Type, []*ir.Value{b.Value(ir.OpSplat, ar.Type, []*ir.Value{start}, nil), ar}, nil)
	m := b.Value(ir.OpCmp, ir.TileOf(sh, ir.I1), []*ir.Value{offs, b.Value(ir.OpSplat, ar.Type, []*ir.Value{f.Body.Args[2]}, nil)}, ir.Attrs{"pred": "lt"})
	px := b.Value(ir.OpAddPtr, ir.TileOf(sh, pt), []*ir.Value{b.Value(ir.OpSplat, ir.TileOf(sh, pt), []*ir.Value{f.Body.Args[0]}, nil), offs}, nil)
	x := b.Value(ir.OpLoad, ir.TileOf(sh, ir.F32), []*ir.Value{px, m}, nil)
	y := b.Value(ir.OpExp, x.Type, []*ir.Value{x}, nil)
	po := b.Value(ir.OpAddPtr, ir.TileOf(sh, pt), []*ir.Value{b.Value(ir.OpSplat, ir.TileOf(sh, pt), []*ir.Value{f.Body.Args[1]}, nil), offs}, nil)
	b.Create(ir.OpStore, nil, []*ir.Value{po, y, m}, nil)
	b.Create(ir.OpReturn, nil, nil, nil)
	return f
}

func TestAssignLayoutsVectorAdd(t *testing.T) {
	f := vecAdd(1024)
	if err := AssignFuncLayouts(f, 4); err != nil {
		t.Fatal(err)
	}
	f.Walk(func(op *ir.Op) {
		if op.Kind == gpu.OpConvertLayout {
			t.Errorf("unexpected convert_layout")
		}
		for _, r := range op.Results {
			if tt, ok := r.Type.(*ir.Tile); ok && tt.Layout.String() != "blocked<[4],[32],[4],[0]>" {
				t.Errorf("%s: layout %s", op.Kind, tt.Layout)
			}
		}
	})
	if err := AllocateFuncShared(f); err != nil {
		t.Fatal(err)
	}
	if n := f.Attrs.Int(gpu.AttrSmemBytes, -1); n != 0 {
		t.Errorf("smem %d, want 0", n)
	}
}

func TestSharedReuse(t *testing.T) {
	f := ir.NewFunc("k", true, nil)
	b := ir.NewBuilder(f)
	md := &ir.MemDesc{Shape: []int{64, 64}, Elem: ir.F16, Order: []int{1, 0}, Space: ir.Shared}
	tt := ir.TileOf([]int{64, 64}, ir.F16)
	a1 := b.Value(ir.OpAlloc, md, nil, nil)
	b.Value(ir.OpLocalLoad, tt, []*ir.Value{a1}, nil)
	a2 := b.Value(ir.OpAlloc, md, nil, nil) // a1 is dead: reuses its bytes
	a3 := b.Value(ir.OpAlloc, md, nil, nil) // a2 is live: needs its own
	b.Value(ir.OpLocalLoad, tt, []*ir.Value{a2}, nil)
	b.Value(ir.OpLocalLoad, tt, []*ir.Value{a3}, nil)
	b.Create(ir.OpReturn, nil, nil, nil)
	if err := AllocateFuncShared(f); err != nil {
		t.Fatal(err)
	}
	off := func(v *ir.Value) int64 { return v.Def.Attrs.Int(gpu.AttrSmemOffset, -1) }
	if off(a1) != off(a2) || off(a2) == off(a3) {
		t.Errorf("offsets a1 %d a2 %d a3 %d", off(a1), off(a2), off(a3))
	}
	if got := f.Attrs.Int(gpu.AttrSmemBytes, 0); got != 2*64*64*2 {
		t.Errorf("smem bytes %d, want %d", got, 2*64*64*2)
	}
}

// reductions is vecAdd's load followed by n sequential sums of it, each
// stored (a reduction over a block of 1024 on 4 warps needs scratch).
func reductions(n int) *ir.Func {
	pt := &ir.Pointer{Elem: ir.F32, Space: ir.Global}
	f := ir.NewFunc("sums", true, []*ir.Param{{Name: "x", Type: pt}, {Name: "out", Type: pt}})
	b := ir.NewBuilder(f)
	sh := []int{1024}
	ar := b.Value(ir.OpArange, ir.TileOf(sh, ir.I32), nil, ir.Attrs{"start": int64(0), "end": int64(1024)})
	px := b.Value(ir.OpAddPtr, ir.TileOf(sh, pt), []*ir.Value{b.Value(ir.OpSplat, ir.TileOf(sh, pt), []*ir.Value{f.Body.Args[0]}, nil), ar}, nil)
	x := b.Value(ir.OpLoad, ir.TileOf(sh, ir.F32), []*ir.Value{px}, nil)
	for range n {
		s := b.Value(ir.OpReduce, ir.F32, []*ir.Value{x}, ir.Attrs{"axis": int64(0), "kind": "sum"})
		b.Create(ir.OpStore, nil, []*ir.Value{f.Body.Args[1], s}, nil)
		x = b.Value(ir.OpAdd, x.Type, []*ir.Value{x, b.Value(ir.OpSplat, x.Type, []*ir.Value{s}, nil)}, nil)
	}
	b.Create(ir.OpReturn, nil, nil, nil)
	return f
}

// Small reduction scratch stays apart (no barrier between back-to-back
// reductions) while the kernel fits its limit, and shares bytes once it
// would not: then the kernel still fits.
func TestReductionScratchWithinLimit(t *testing.T) {
	apart := reductions(8)
	require.NoError(t, AssignFuncLayouts(apart, 4))
	require.NoError(t, AllocateFuncSharedWithin(apart, 0))
	sizes := map[int64]bool{}
	apart.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpReduce {
			sizes[op.Attrs.Int(gpu.AttrSmemOffset, -1)] = true
		}
	})
	require.Len(t, sizes, 8, "each reduction its own scratch")
	total := apart.Attrs.Int(gpu.AttrSmemBytes, 0)

	shared := reductions(8)
	require.NoError(t, AssignFuncLayouts(shared, 4))
	require.NoError(t, AllocateFuncSharedWithin(shared, int(total)-1))
	offs := map[int64]bool{}
	shared.Walk(func(op *ir.Op) {
		if op.Kind == ir.OpReduce {
			offs[op.Attrs.Int(gpu.AttrSmemOffset, -1)] = true
		}
	})
	require.Less(t, len(offs), 8, "past the limit the reductions share scratch")
	require.Less(t, shared.Attrs.Int(gpu.AttrSmemBytes, 0), total)
}

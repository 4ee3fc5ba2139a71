package passes

import (
	"strings"
	"testing"

	"github.com/tlego/tle/tle/ir"
)

// blockedRef is the textbook definition of a blocked layout: the
// coordinates of element i (of the per-thread run) of thread (lane, warp).
func blockedRef(b *Blocked, shape []int, lane, warp int, regs []int) []int {
	r := len(shape)
	lc := make([]int, r)
	wc := make([]int, r)
	for _, d := range b.Order { // lane and warp ids split fastest dimension first
		lc[d] = lane % b.ThreadsPerWarp[d]
		lane /= b.ThreadsPerWarp[d]
		wc[d] = warp % b.WarpsPerCTA[d]
		warp /= b.WarpsPerCTA[d]
	}
	c := make([]int, r)
	for d := range shape {
		c[d] = (regs[d] + (lc[d]+wc[d]*b.ThreadsPerWarp[d])*b.SizePerThread[d]) % shape[d]
	}
	return c
}

func TestBlockedLinearMatchesDefinition(t *testing.T) {
	for _, tc := range []struct {
		b     *Blocked
		shape []int
	}{
		{&Blocked{[]int{4}, []int{32}, []int{4}, []int{0}}, []int{1024}},
		{&Blocked{[]int{4}, []int{32}, []int{4}, []int{0}}, []int{256}},
		{&Blocked{[]int{4}, []int{32}, []int{4}, []int{0}}, []int{64}}, // replicated
		{&Blocked{[]int{1, 8}, []int{8, 4}, []int{8, 1}, []int{1, 0}}, []int{128, 32}},
		{&Blocked{[]int{1, 8}, []int{2, 16}, []int{8, 1}, []int{1, 0}}, []int{32, 128}},
		{&Blocked{[]int{2, 1}, []int{4, 8}, []int{1, 4}, []int{0, 1}}, []int{64, 64}},
	} {
		ll := MustLinear(tc.b, tc.shape)
		nw := NumWarps(tc.b)
		// every element of the CTA tile the layout covers once per
		// repetition: check each (lane, warp, register) against the
		// definition, with register coordinates inside the thread's block
		for warp := 0; warp < nw; warp++ {
			for lane := 0; lane < 32; lane++ {
				seen := map[string]bool{}
				for r := 0; r < ll.NumRegs(); r++ {
					got := ll.Coords(r, lane, warp)
					rc := ll.RegCoords(r)
					// register part within the thread's run, plus whole
					// CTA tiles for repetitions
					within := make([]int, len(rc))
					tileOff := make([]int, len(rc))
					for d := range rc {
						tile := tc.b.SizePerThread[d] * tc.b.ThreadsPerWarp[d] * tc.b.WarpsPerCTA[d]
						within[d] = rc[d] % tc.b.SizePerThread[d]
						tileOff[d] = rc[d] - within[d]
						if tileOff[d]%tile != 0 {
							t.Fatalf("%s %v: register %d offset %v not a multiple of the CTA tile", tc.b, tc.shape, r, rc)
						}
					}
					want := blockedRef(tc.b, tc.shape, lane, warp, within)
					for d := range want {
						want[d] = (want[d] + tileOff[d]) % tc.shape[d]
					}
					if layIntsString(got) != layIntsString(want) {
						t.Fatalf("%s %v: lane %d warp %d reg %d at %v, want %v", tc.b, tc.shape, lane, warp, r, got, want)
					}
					if seen[layIntsString(got)] {
						t.Fatalf("%s %v: a thread holds %v twice", tc.b, tc.shape, got)
					}
					seen[layIntsString(got)] = true
				}
			}
		}
	}
}

// TestMMAFragments checks the accumulator and operand layouts against the
// PTX ISA's mma.m16n8k16 fragment tables (groupID = lane/4, tid = lane%4).
func TestMMAFragments(t *testing.T) {
	mma := &MMA{WarpsPerCTA: []int{1, 1}}
	acc := MustLinear(mma, []int{16, 8})
	a := MustLinear(&DotOperand{OpIdx: 0, Parent: mma, KWidth: 2}, []int{16, 16})
	b := MustLinear(&DotOperand{OpIdx: 1, Parent: mma, KWidth: 2}, []int{16, 8})
	for lane := 0; lane < 32; lane++ {
		g, tid := lane/4, lane%4
		for i := 0; i < 4; i++ { // c0..c3
			want := []int{g + 8*(i/2), 2*tid + i%2}
			if got := acc.Coords(i, lane, 0); layIntsString(got) != layIntsString(want) {
				t.Errorf("acc c%d lane %d: %v, want %v", i, lane, got, want)
			}
		}
		for i := 0; i < 8; i++ { // a0..a7
			want := []int{g + 8*((i/2)%2), 2*tid + i%2 + 8*(i/4)}
			if got := a.Coords(i, lane, 0); layIntsString(got) != layIntsString(want) {
				t.Errorf("A a%d lane %d: %v, want %v", i, lane, got, want)
			}
		}
		for i := 0; i < 4; i++ { // b0..b3
			want := []int{2*tid + i%2 + 8*(i/2), g}
			if got := b.Coords(i, lane, 0); layIntsString(got) != layIntsString(want) {
				t.Errorf("B b%d lane %d: %v, want %v", i, lane, got, want)
			}
		}
	}
}

func TestSliceAndReplication(t *testing.T) {
	p := &Blocked{[]int{1, 8}, []int{8, 4}, []int{8, 1}, []int{1, 0}}
	s := MustLinear(&Slice{Dim: 1, Parent: p}, []int{128})
	// the 4 lanes along the sliced dimension hold the same rows
	if m := s.ZeroLaneMask(); m != 0b11 {
		t.Errorf("zero lane mask %b, want 11", m)
	}
	if s.NumRegs() != 2 {
		t.Errorf("slice holds %d registers, want 2", s.NumRegs())
	}
	if got := s.Coords(1, 4, 3); got[0] != 1+8*3+64 {
		t.Errorf("slice coords %v", got)
	}
}

func TestParseLayoutRoundTrip(t *testing.T) {
	mma := &MMA{WarpsPerCTA: []int{4, 2}}
	for _, l := range []ir.Layout{
		&Blocked{[]int{1, 8}, []int{8, 4}, []int{8, 1}, []int{1, 0}},
		&Slice{Dim: 1, Parent: &Slice{Dim: 0, Parent: &Blocked{[]int{1, 1, 4}, []int{1, 4, 8}, []int{2, 2, 1}, []int{2, 1, 0}}}},
		mma,
		&DotOperand{OpIdx: 1, Parent: mma, KWidth: 2},
		&Shared{Vec: 8, PerPhase: 2, MaxPhase: 4, Order: []int{1, 0}},
	} {
		back, err := ir.ParseLayout(l.String())
		if err != nil || back == nil || back.String() != l.String() {
			t.Errorf("%s parsed back as %v (%v)", l, back, err)
		}
		if strings.ContainsAny(l.String(), " \t") {
			t.Errorf("%s has whitespace", l)
		}
	}
	if l, err := ParseLayout("other<1>"); l != nil || err != nil {
		t.Errorf("foreign layout: %v, %v", l, err)
	}
}

func TestSwizzleIsConflictFree(t *testing.T) {
	// the eight 16-byte rows an ldmatrix reads fall in eight distinct bank
	// groups for every row length the dot staging uses
	for _, cols := range []int{16, 32, 64, 128, 256} {
		sh := DotSharedLayout([]int{64, cols}, 2, []int{1, 0})
		for chunk := 0; chunk < cols/8; chunk++ {
			for r0 := 0; r0 < 64; r0 += 8 {
				banks := map[int]bool{}
				for r := r0; r < r0+8; r++ {
					off := SharedOffset(sh, []int{64, cols}, []int{r, chunk * 8}) * 2
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
	info := &AxisInfo{Contig: []int{1, 32}, Div: []int{16, 16}, Const: []int{1, 1}}
	if got := Coalesced([]int{128, 32}, info, 2, 8).String(); got != "blocked<[1,8],[8,4],[8,1],[1,0]>" {
		t.Errorf("bf16 [128,32]: %s", got)
	}
	info1 := &AxisInfo{Contig: []int{1024}, Div: []int{16}, Const: []int{1}}
	if got := Coalesced([]int{1024}, info1, 4, 4).String(); got != "blocked<[4],[32],[4],[0]>" {
		t.Errorf("f32 [1024]: %s", got)
	}
	// 4-byte alignment only: scalar accesses
	info2 := &AxisInfo{Contig: []int{1024}, Div: []int{4}, Const: []int{1}}
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
		if op.Kind == OpConvertLayout {
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
	if n := f.Attrs.Int(AttrSmemBytes, -1); n != 0 {
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
	off := func(v *ir.Value) int64 { return v.Def.Attrs.Int(AttrSmemOffset, -1) }
	if off(a1) != off(a2) || off(a2) == off(a3) {
		t.Errorf("offsets a1 %d a2 %d a3 %d", off(a1), off(a2), off(a3))
	}
	if got := f.Attrs.Int(AttrSmemBytes, 0); got != 2*64*64*2 {
		t.Errorf("smem bytes %d, want %d", got, 2*64*64*2)
	}
}

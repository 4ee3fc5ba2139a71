package gpu

import "testing"

// TestTF32Fragments checks the KWidth-1 operand layouts against the PTX
// ISA's mma.m16n8k8 .tf32 fragment tables (groupID = lane/4, tid = lane%4):
// A a0..a3 at row groupID + 8*(i%2), column tid + 4*(i/2); B b0, b1 at
// row tid + 4*i, column groupID.
func TestTF32Fragments(t *testing.T) {
	mma := &MMA{WarpsPerCTA: []int{1, 1}}
	a := MustLinear(&DotOperand{OpIdx: 0, Parent: mma, KWidth: 1}, []int{16, 8})
	b := MustLinear(&DotOperand{OpIdx: 1, Parent: mma, KWidth: 1}, []int{8, 8})
	if a.NumRegs() != 4 || b.NumRegs() != 2 {
		t.Fatalf("registers: A %d (want 4), B %d (want 2)", a.NumRegs(), b.NumRegs())
	}
	for lane := 0; lane < 32; lane++ {
		g, tid := lane/4, lane%4
		for i := 0; i < 4; i++ {
			want := []int{g + 8*(i%2), tid + 4*(i/2)}
			if got := a.Coords(i, lane, 0); layIntsString(got) != layIntsString(want) {
				t.Errorf("A a%d lane %d: %v, want %v", i, lane, got, want)
			}
		}
		for i := 0; i < 2; i++ {
			want := []int{tid + 4*i, g}
			if got := b.Coords(i, lane, 0); layIntsString(got) != layIntsString(want) {
				t.Errorf("B b%d lane %d: %v, want %v", i, lane, got, want)
			}
		}
	}
}

// With several warps and repetitions every element of a tf32 operand is
// held by some thread (the warps of A split M and repeat along N's warps,
// those of B split N; k steps of 8 and the M/N repetitions are registers).
func TestTF32OperandCoverage(t *testing.T) {
	for _, c := range []struct {
		wm, wn int
		a, b   []int
	}{
		{1, 1, []int{16, 8}, []int{8, 8}},
		{2, 2, []int{64, 32}, []int{32, 64}},
		{4, 2, []int{128, 64}, []int{64, 128}},
		{8, 1, []int{128, 128}, []int{128, 64}},
	} {
		mma := &MMA{WarpsPerCTA: []int{c.wm, c.wn}}
		for op, shape := range [][]int{c.a, c.b} {
			ll := MustLinear(&DotOperand{OpIdx: op, Parent: mma, KWidth: 1}, shape)
			held := map[string]bool{}
			for w := 0; w < c.wm*c.wn; w++ {
				for lane := 0; lane < 32; lane++ {
					for r := 0; r < ll.NumRegs(); r++ {
						co := ll.Coords(r, lane, w)
						held[layIntsString(co)] = true
					}
				}
			}
			if len(held) != shape[0]*shape[1] {
				t.Errorf("op %d %v warps %dx%d: %d of %d elements held", op, shape, c.wm, c.wn, len(held), shape[0]*shape[1])
			}
		}
	}
}

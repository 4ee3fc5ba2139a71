package gpu

import "testing"

// TestButterflyMasks: [8, 64] over a layout of 2 registers, 8 lanes and 2
// warps along dim 1, repeated twice in registers (bit 32), and 4 lanes and
// 2 warps along dim 0: a mask's bits map to register bits and lane bits,
// or (bit 16, a warp bit) to no in-warp exchange; checked against Coords,
// which must flip exactly the mask's coordinate bits.
func TestButterflyMasks(t *testing.T) {
	l, err := Linear(&Blocked{[]int{1, 2}, []int{4, 8}, []int{2, 2}, []int{1, 0}}, []int{8, 64})
	if err != nil {
		t.Fatal(err)
	}
	for mask := 1; mask < 64; mask++ {
		rm, lm, ok := ButterflyMasks(l, 1, mask)
		if want := mask&16 == 0; ok != want {
			t.Fatalf("mask %d: in a warp %v, want %v", mask, ok, want)
		}
		if !ok {
			continue
		}
		for r := range l.NumRegs() {
			for lane := range 32 {
				c, p := l.Coords(r, lane, 1), l.Coords(r^rm, lane^lm, 1)
				if p[0] != c[0] || p[1] != c[1]^mask {
					t.Fatalf("mask %d: register %d lane %d at %v, partner at %v", mask, r, lane, c, p)
				}
			}
		}
	}
	if _, _, ok := ButterflyMasks(l, 0, 4); ok {
		t.Fatalf("dim 0 bit 4 lies in a warp basis")
	}
	if rm, lm, ok := ButterflyMasks(l, 0, 3); !ok || rm != 0 || lm != 3<<3 {
		t.Fatalf("dim 0 mask 3: %d %d %v, want lane bits 3 and 4", rm, lm, ok)
	}
}

package gpu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tlego/tle/ir"
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

// TestWgmmaFP8RegAFragment: the kWidth-4 A layout is the PTX ISA's
// register fragment of an 8-bit wgmma A (m64nNk32): byte i of a thread's
// 16 (4 registers of 4) sits at row lane/4 + 8*((i/4)%2) + 16*warp,
// column 4*(lane%4) + i%4 + 16*(i/8); further k32 steps follow in the
// registers.
func TestWgmmaFP8RegAFragment(t *testing.T) {
	a := MustLinear(&DotOperand{OpIdx: 0, Parent: &MMA{WarpsPerCTA: []int{4, 1}}, KWidth: 4}, []int{64, 64})
	for warp := 0; warp < 4; warp++ {
		for lane := 0; lane < 32; lane++ {
			for i := 0; i < 32; i++ {
				want := []int{lane/4 + 8*((i/4)%2) + 16*warp, 4*(lane%4) + i%4 + 16*((i/8)%2) + 32*(i/16)}
				if got := a.Coords(i, lane, warp); layIntsString(got) != layIntsString(want) {
					t.Errorf("byte %d lane %d warp %d: %v, want %v", i, lane, warp, got, want)
				}
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

// TestXorMasks: for every layout below and every axis, the masks XorMasks
// gives move each element to the one its flip along the axis reads.
func TestXorMasks(t *testing.T) {
	cases := []struct {
		l     ir.Layout
		shape []int
	}{
		{&Blocked{SizePerThread: []int{1, 4}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}}, []int{32, 64}},
		{&Blocked{SizePerThread: []int{2, 1}, ThreadsPerWarp: []int{8, 4}, WarpsPerCTA: []int{1, 4}, Order: []int{0, 1}}, []int{16, 16}},
		{&Blocked{SizePerThread: []int{4}, ThreadsPerWarp: []int{32}, WarpsPerCTA: []int{4}, Order: []int{0}}, []int{8}},
		{&MMA{WarpsPerCTA: []int{4, 1}}, []int{64, 32}},
	}
	for _, c := range cases {
		ll, err := Linear(c.l, c.shape)
		if err != nil {
			t.Fatal(err)
		}
		for axis := range c.shape {
			x := make([]int, len(c.shape))
			x[axis] = c.shape[axis] - 1
			reg, lane, warp, ok := ll.XorMasks(x)
			if !ok {
				t.Fatalf("%s %v axis %d: no masks", c.l, c.shape, axis)
			}
			for r := 0; r < ll.NumRegs(); r++ {
				for ln := 0; ln < 1<<len(ll.Lane); ln++ {
					for w := 0; w < 1<<len(ll.Warp); w++ {
						got := ll.Coords(r^reg, ln^lane, w^warp)
						want := ll.Coords(r, ln, w)
						want[axis] = c.shape[axis] - 1 - want[axis]
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("%s %v axis %d: reg %d lane %d warp %d holds %v there, want %v", c.l, c.shape, axis, r, ln, w, got, want)
						}
					}
				}
			}
		}
	}
}

// TestSliceRegs: a slice along dimensions held in registers keeps each
// element in its thread (the register map checked element by element);
// one along lanes does not.
func TestSliceRegs(t *testing.T) {
	b := &Blocked{SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}}
	cases := []struct {
		shape, out, starts []int
		ok                 bool
	}{
		{[]int{16, 64}, []int{16, 32}, []int{0, 32}, false}, // the upper half of the columns sits in other lanes
		{[]int{16, 8}, []int{16, 4}, []int{0, 4}, true},     // the eight columns are one thread's registers
		{[]int{32, 8}, []int{16, 8}, []int{16, 0}, true},    // rows 16..31 repeat rows 0..15 in registers
		{[]int{32, 8}, []int{8, 8}, []int{8, 0}, false},     // rows 8..15 are other warps'
	}
	for _, c := range cases {
		src, err := Linear(b, c.shape)
		if err != nil {
			t.Fatal(err)
		}
		dst, err := Linear(b, c.out)
		if err != nil {
			t.Fatal(err)
		}
		regs, ok := SliceRegs(src, dst, c.starts)
		if ok != c.ok {
			t.Fatalf("%v[%v from %v]: ok %v, want %v", c.shape, c.out, c.starts, ok, c.ok)
		}
		for r := range regs {
			for lane := 0; lane < 32; lane++ {
				for warp := 0; warp < 4; warp++ {
					want := dst.Coords(r, lane, warp)
					for d := range want {
						want[d] += c.starts[d]
					}
					if got := src.Coords(regs[r], lane, warp); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%v[%v from %v]: register %d of lane %d warp %d is %v, want %v", c.shape, c.out, c.starts, r, lane, warp, got, want)
					}
				}
			}
		}
	}
}

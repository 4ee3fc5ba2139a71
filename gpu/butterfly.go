package gpu

// ButterflyMasks finds where a butterfly's exchange (coordinate i along
// axis with i^mask) happens in the linear layout l: every set bit of mask
// must be the axis coordinate of exactly one register or lane basis (a
// basis that moves along axis only, by that bit). It returns the register
// index bits and the lane id bits to flip; ok is false when a bit lies in a
// warp basis or no such basis exists, and the exchange then goes through
// shared memory.
func ButterflyMasks(l *LinearLayout, axis, mask int) (regMask, laneMask int, ok bool) {
	find := func(bases [][]int, bit int) int {
		for b, v := range bases {
			if v[axis] != bit {
				continue
			}
			only := true
			for d, x := range v {
				if d != axis && x != 0 {
					only = false
				}
			}
			if only {
				return b
			}
		}
		return -1
	}
	for bit := 1; bit <= mask; bit <<= 1 {
		if mask&bit == 0 {
			continue
		}
		if b := find(l.Reg, bit); b >= 0 {
			regMask |= 1 << b
		} else if b := find(l.Lane, bit); b >= 0 {
			laneMask |= 1 << b
		} else {
			return 0, 0, false
		}
	}
	return regMask, laneMask, true
}

package gpu

// AccessVec is the number of consecutive registers of a pointer tile that
// one access may move: contiguous in the layout, in memory (axis info),
// aligned, and at most 16 bytes; dim is the dimension they run along. The
// backend's accesses and the passes' decisions (cp.async) both use it.
func AccessVec(ll *LinearLayout, info *AxisInfo, eb int) (vec, dim int) {
	if len(ll.Reg) == 0 {
		return 1, 0
	}
	for d, x := range ll.Reg[0] {
		if x != 0 {
			dim = d
		}
	}
	vec = ll.ContigRegs(dim)
	vec = min(vec, info.Contig[dim])
	vec = min(vec, max(1, info.Div[dim]/eb))
	vec = min(vec, max(1, 16/eb))
	p := 1
	for p*2 <= vec {
		p *= 2
	}
	return p, dim
}

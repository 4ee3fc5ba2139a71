package interp

import (
	"math/bits"

	"github.com/tlego/tle/ir"
)

// The vote ops, with their tile-level meaning (the reference the GPU's warp
// votes are tested against): the tile's element order, no threads.

// ballot: bit b of word w is mask[32*w+b].
func (t *thread) ballot(in *instr) error {
	m := t.arg(in, 0)
	v := t.out(in, 0)
	if m.i == nil || len(m.i) != len(v.i)*ir.BallotWord {
		return t.errAt(in.op, "ballot of %v into %v", t.info(in.args[0]).typ, t.info(in.res[0]).typ)
	}
	for w := range v.i {
		var word uint32
		for b, x := range m.i[w*ir.BallotWord : (w+1)*ir.BallotWord] {
			if x != 0 {
				word |= 1 << b
			}
		}
		v.i[w] = int64(word)
	}
	return nil
}

// prefixCount: element i is the number of true elements before i.
func (t *thread) prefixCount(in *instr) error {
	m := t.arg(in, 0)
	v := t.out(in, 0)
	if m.i == nil || len(m.i) != len(v.i) {
		return t.errAt(in.op, "prefix_count of %v into %v", t.info(in.args[0]).typ, t.info(in.res[0]).typ)
	}
	n := int64(0)
	for i, x := range m.i {
		v.i[i] = n
		if x != 0 {
			n++
		}
	}
	return nil
}

// popc counts the set bits of each element's bit pattern in its dtype
// (two's complement for signed dtypes: popc of an i8 -1 is 8).
func (t *thread) popc(in *instr) error {
	so := t.info(in.res[0])
	a := t.arg(in, 0)
	v := t.out(in, 0)
	w := so.dt.Bits()
	if a.i == nil || !so.dt.IsInt() || so.dt == ir.I1 {
		return t.errAt(in.op, "popc is not defined on %v", so.typ)
	}
	mask := ^uint64(0)
	if w < 64 {
		mask = 1<<w - 1
	}
	x := t.bcastI(a.i, so.n, 0)
	for k := range v.i {
		v.i[k] = int64(bits.OnesCount64(uint64(x[k]) & mask))
	}
	return nil
}

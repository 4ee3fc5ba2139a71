package check

import (
	"fmt"
	"go/constant"
	"slices"
	"strings"
)

// DotScaledFormats are dot_scaled's operand formats, Triton's names (its
// semantic.py allowed_formats): fp4 e2m1 packed two a byte into u8, the two
// fp8 formats (f8e4m3 / f8e5m2 tiles, or their bits as u8), bf16 and fp16
// (or their bits as u16).
var DotScaledFormats = []string{"e2m1", "e4m3", "e5m2", "bf16", "fp16"}

// DotScaledGroup is the number of elements along K one e8m0 scale covers.
const DotScaledGroup = 32

// dotScaledDTypes are the element dtypes an operand of each format may have.
var dotScaledDTypes = map[string][]DType{
	"e2m1": {U8},
	"e4m3": {F8E4M3, U8},
	"e5m2": {F8E5M2, U8},
	"bf16": {BF16, U16},
	"fp16": {F16, U16},
}

// dotScaledSide is one operand of dot_scaled as checked: its tile, format,
// packing and the logical dims it holds (outer is M for lhs, N for rhs).
type dotScaledSide struct {
	arg, scale *argv
	t          *Tile
	format     string
	kPack      bool
	outer, k   Dim
}

// dotScaled checks Triton's dot_scaled (core.py, semantic.py): lhs [M, K]
// and rhs [K, N] in microscaling formats, each with an optional u8 e8m0
// scale tile [M, K/32] / [N, K/32] (batched: a leading B), acc f32.
func (c *checker) dotScaled(cc *callCtx) Type {
	var sides [2]*dotScaledSide
	deferred := false // a packing known only once bound
	for i, p := range []string{"lhs", "rhs"} {
		s := &dotScaledSide{arg: cc.get(p), scale: cc.get(p + "_scale")}
		f := cc.get(p + "_format")
		if f.typ != String || f.val == nil || f.val.Known == nil {
			c.argErr(cc, f, "a string: \"e2m1\", \"e4m3\", \"e5m2\", \"bf16\" or \"fp16\"")
			return Invalid
		}
		s.format = constant.StringVal(f.val.Known)
		if !slices.Contains(DotScaledFormats, s.format) {
			c.errorf(cc.at(f), "dot_scaled: %s %q: want \"e2m1\", \"e4m3\", \"e5m2\", \"bf16\" or \"fp16\"", f.name, s.format)
			return Invalid
		}
		kp := cc.get(p + "_k_pack")
		v, known, ok := c.constBool(cc, kp)
		if !ok {
			return Invalid
		}
		s.kPack = v
		if known && !v && s.format != "e2m1" {
			c.errorf(cc.at(kp), "dot_scaled: %s: false packs along %s, which only e2m1 does (two values a byte); %s is %s", kp.name, map[int]string{0: "M", 1: "N"}[i], p, s.format)
			return Invalid
		}
		t, isTile := s.arg.typ.(*Tile)
		d, _ := ElemOf(s.arg.typ).(DType)
		if !isTile || len(t.Shape) != 2 && len(t.Shape) != 3 || !slices.Contains(dotScaledDTypes[s.format], d) {
			var names []string
			for _, d := range dotScaledDTypes[s.format] {
				names = append(names, d.String())
			}
			want := "a 2-D (or batched 3-D) " + strings.Join(names, " or ") + " tile for format " + s.format
			if s.format == "e2m1" {
				want += " (two values a byte, the first in the low bits)"
			}
			return c.argErr(cc, s.arg, want)
		}
		s.t = t
		r := len(t.Shape)
		rows, cols := t.Shape[r-2], t.Shape[r-1]
		two := ConstDim(2)
		if !known && s.format == "e2m1" {
			// packed along K or along M/N: only a binding says which, and
			// the bound re-check every compile makes sees it; until then
			// the shapes are K-packed (the default) and not compared
			s.kPack, deferred = true, true
		}
		switch {
		case i == 0: // lhs [M, K]
			s.outer, s.k = rows, cols
			if s.format == "e2m1" && s.kPack {
				s.k = cols.Mul(two)
			} else if s.format == "e2m1" {
				s.outer = rows.Mul(two)
			}
		default: // rhs [K, N]
			s.k, s.outer = rows, cols
			if s.format == "e2m1" && s.kPack {
				s.k = rows.Mul(two)
			} else if s.format == "e2m1" {
				s.outer = cols.Mul(two)
			}
		}
		sides[i] = s
	}
	l, r := sides[0], sides[1]
	rank := len(l.t.Shape)
	if len(r.t.Shape) != rank {
		c.errorf(cc.call, "dot_scaled: both operands are 2-D or both 3-D (batched), got %s and %s", l.t.Shape, r.t.Shape)
		return Invalid
	}
	var batch Shape
	if rank == 3 {
		if !sameDim(l.t.Shape[0], r.t.Shape[0]) {
			c.errorf(cc.call, "dot_scaled: batch dimensions differ: lhs is %s, rhs is %s", l.t.Shape, r.t.Shape)
			return Invalid
		}
		batch = Shape{l.t.Shape[0]}
	}
	if !deferred && !sameDim(l.k, r.k) {
		c.errorf(cc.call, "dot_scaled: the reduction dimensions differ: lhs %s (%s) holds K = %s, rhs %s (%s) holds K = %s",
			l.t, l.format, l.k, r.t, r.format, r.k)
		return Invalid
	}
	k := l.k
	for _, d := range []Dim{l.outer, r.outer, k} {
		if v, known := d.Const(); known && v < 16 {
			c.errorf(cc.call, "dot_scaled needs M, N and K to be at least 16, got M = %s, N = %s, K = %s", l.outer, r.outer, k)
			return Invalid
		}
	}
	for _, s := range sides {
		if s.scale == nil || s.scale.typ == NoneType || deferred {
			continue
		}
		if v, known := k.Const(); known && v%DotScaledGroup != 0 {
			c.errorf(cc.at(s.scale), "dot_scaled: K = %d is not a multiple of %d: one e8m0 scale covers %d elements along K", v, DotScaledGroup, DotScaledGroup)
			return Invalid
		}
		want := append(append(Shape(nil), batch...), s.outer, k.Div(ConstDim(DotScaledGroup)))
		st, isTile := s.scale.typ.(*Tile)
		if !isTile || st.Elem != U8 || len(st.Shape) != rank {
			return c.argErr(cc, s.scale, fmt.Sprintf("None or a %s tile of e8m0 scales (one per %d elements of K)", &Tile{Shape: want, Elem: U8}, DotScaledGroup))
		}
		good := true
		for i := range want[:rank-1] {
			good = good && sameDim(st.Shape[i], want[i])
		}
		sk := st.Shape[rank-1]
		good = good && (sameDim(sk, want[rank-1]) || sk.Mul(ConstDim(DotScaledGroup)).Equal(k))
		if !good {
			c.errorf(cc.at(s.scale), "dot_scaled: %s has shape %s, want %s (one e8m0 scale per %d elements of K = %s)", s.scale.name, st.Shape, want, DotScaledGroup, k)
			return Invalid
		}
	}
	if _, _, ok := c.constBool(cc, cc.get("fast_math")); !ok {
		return Invalid
	}
	if o := cc.get("out_dtype"); o != nil {
		d, ok := c.dtypeArg(cc, o)
		if !ok {
			return Invalid
		}
		if d != F32 {
			c.errorf(cc.at(o), "dot_scaled: out_dtype must be f32 (as Triton's), not %s", d)
			return Invalid
		}
	}
	want := append(batch, l.outer, r.outer)
	if acc := cc.get("acc"); acc != nil && !c.accArg(cc, acc, want, F32) {
		return Invalid
	}
	return &Tile{Shape: want, Elem: F32}
}

// sameDim reports whether two dims may be equal: the same polynomial, or
// either holds an opaque atom (a quotient such as BK/32) that only a
// binding decides; the bound re-check every compile makes sees the values.
func sameDim(a, b Dim) bool {
	return a.Equal(b) || hasAtom(a) || hasAtom(b)
}

// hasAtom reports whether d mentions an opaque atom (atomDim).
func hasAtom(d Dim) bool {
	for _, s := range d.Symbols() {
		if strings.HasPrefix(s, "(") {
			return true
		}
	}
	return false
}

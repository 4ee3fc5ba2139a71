package gpu

import (
	"github.com/tlego/tle/ir"
)

// SmemAlign is the alignment of every shared buffer: 128 bytes, so that the
// swizzle patterns map onto the 32 banks as designed.
const SmemAlign = 128

// StorageBytes is the size of one element of t's dtype in memory (i1 takes a
// byte, pointers 8).
func StorageBytes(elem ir.Type) int {
	switch e := elem.(type) {
	case *ir.Pointer:
		return 8
	case ir.DType:
		return e.Bytes()
	}
	return 0
}

// AccBytes is the size of the value a reduction or scan of dt accumulates in.
func AccBytes(dt ir.DType) int {
	if dt.Bits() > 32 {
		return 8
	}
	return 4
}

// AccBytesOf is the size of one slot of a reduction or scan of kind
// combine over operands of dtypes dts: each operand's accumulator in a
// field of the widest one's size (aligned), AccBytes(dt) for one operand.
func AccBytesOf(dts ...ir.DType) int {
	m := 0
	for _, d := range dts {
		m = max(m, AccBytes(d))
	}
	return m * len(dts)
}

// VecWidth is how many elements of a layout's registers move as one vector
// along the last dimension of a shared scratch: the run of contiguous
// registers, at most 16 bytes.
func VecWidth(ll *LinearLayout, elemBytes int) int {
	v := ll.ContigRegs(len(ll.Shape) - 1)
	if m := max(1, 16/elemBytes); v > m {
		v = m
	}
	return v
}

// ConvertScratch gives the padded row-major scratch a shared-memory layout
// conversion uses: elements of the last dimension are contiguous, and each
// row (of the last dimension) is followed by pad elements. It returns the
// strides in elements and the size in bytes.
func ConvertScratch(shape []int, src, dst *LinearLayout, elemBytes int) (strides []int, bytes int) {
	r := len(shape)
	pad := 0
	if r >= 2 {
		pad = max(VecWidth(src, elemBytes), VecWidth(dst, elemBytes))
	}
	strides = make([]int, r)
	stride := 1
	for d := r - 1; d >= 0; d-- {
		strides[d] = stride
		n := shape[d]
		if d == r-1 {
			n += pad
		}
		stride *= n
	}
	return strides, stride * elemBytes
}

// WarpsAlong is the number of distinct warp groups along dim in ll.
func WarpsAlong(ll *LinearLayout, dim int) int {
	n := 1
	for _, b := range ll.Warp {
		if b[dim] != 0 {
			n *= 2
		}
	}
	return n
}

// PipeLayout places a pipe's parts inside its shared-memory allocation (byte
// offsets from its start): the full mbarriers (8 bytes per slot), the empty
// mbarriers, a 4-byte closed flag per slot, then each field's ring of
// Capacity slots, every slot of a field SlotStride[f] bytes apart (the
// field's bytes rounded up to SmemAlign, so every slot is aligned).
type PipeLayout struct {
	Full, Empty, Closed int
	Field               []int
	SlotStride          []int
	Bytes               int
}

// LayoutPipe lays out p (see PipeLayout).
func LayoutPipe(p *ir.Pipe) PipeLayout {
	c := p.Capacity
	l := PipeLayout{Full: 0, Empty: 8 * c, Closed: 16 * c}
	off := layAlignUp(20*c, SmemAlign)
	for _, f := range p.Fields {
		stride := layAlignUp(ir.NumElements(f.Shape)*f.Elem.Bytes(), SmemAlign)
		l.Field = append(l.Field, off)
		l.SlotStride = append(l.SlotStride, stride)
		off += stride * c
	}
	l.Bytes = off
	return l
}

// ScanScratchBytes is the scratch a scan along axis of a tile in ll needs:
// one partial per (warp along the axis, repetition along the axis, position
// in the other dimensions), of AccBytesOf(dts...) bytes (several dtypes: a
// scan of several operands).
func ScanScratchBytes(ll *LinearLayout, axis int, dts ...ir.DType) int {
	nw := WarpsAlong(ll, axis)
	if nw == 1 {
		return 0
	}
	reps := ScanReps(ll, axis)
	return nw * reps * ir.NumElements(ll.Shape) / ll.Shape[axis] * AccBytesOf(dts...)
}

// ScanReps is the number of times the CTA's threads cover the scan axis
// (register bases along axis above the lane and warp bases).
func ScanReps(ll *LinearLayout, axis int) int {
	top := 0
	for _, bs := range [][][]int{ll.Lane, ll.Warp} {
		for _, b := range bs {
			if b[axis] > top {
				top = b[axis]
			}
		}
	}
	n := 1
	for _, b := range ll.Reg {
		if b[axis] > top {
			n *= 2
		}
	}
	return n
}

func layAlignUp(x, a int) int { return (x + a - 1) / a * a }

// TMASwizzleAlign is the alignment of a swizzled buffer that a TMA copy
// reads or writes: the hardware swizzles on shared address bits, so the
// pattern the buffer's layout describes (relative to its start) must begin
// on a 1024-byte boundary, the repeat of the 128B swizzle. Unswizzled TMA
// targets need 128 bytes, which every buffer has (SmemAlign).
const TMASwizzleAlign = 1024

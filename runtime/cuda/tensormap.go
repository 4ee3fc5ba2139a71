package cuda

import (
	"fmt"
	"structs"
	"unsafe"
)

// TensorMap is a CUtensorMap: 128 opaque bytes. C aligns it to 64 bytes;
// Go cannot, so the driver writes into an aligned buffer and the value is
// copied here, and Launcher.SetTensorMap places it 64-aligned again.
type TensorMap struct {
	_      structs.HostLayout
	Opaque [16]uint64
}

// TiledSpec describes a tiled tensor map (cuTensorMapEncodeTiled). Dimension
// 0 is the innermost (contiguous) one, as in CUDA: a row-major [rows, cols]
// matrix has Dims {cols, rows} and Strides {cols*elemSize}.
type TiledSpec struct {
	DataType       TensorMapDataType
	Global         DevicePtr // 16-byte aligned (32 with 32B interleave)
	Dims           []uint64  // rank entries, each in [1, 2^32]
	Strides        []uint64  // rank-1 byte strides of dims 1.., multiples of 16 (32 with 32B interleave), < 2^40
	Box            []uint32  // rank entries, each in [1, 256]
	ElementStrides []uint32  // rank entries in [1, 8]; nil means all 1
	Interleave     TensorMapInterleave
	Swizzle        TensorMapSwizzle
	L2Promotion    TensorMapL2Promotion
	OOBFill        TensorMapOOBFill
}

// Validate checks the documented constraints of cuTensorMapEncodeTiled, so a
// bad spec gets an error naming the field instead of CUDA_ERROR_INVALID_VALUE.
func (s *TiledSpec) Validate() error {
	rank := len(s.Dims)
	es := s.DataType.ElemSize()
	switch {
	case es == 0:
		return fmt.Errorf("tensor map: unknown data type %v", s.DataType)
	case rank < 1 || rank > 5:
		return fmt.Errorf("tensor map: rank %d (want 1..5)", rank)
	case s.Interleave != InterleaveNone && rank < 3:
		return fmt.Errorf("tensor map: interleave %v needs rank >= 3, have %d", s.Interleave, rank)
	case len(s.Strides) != rank-1:
		return fmt.Errorf("tensor map: %d strides for rank %d (want rank-1: dims 1..)", len(s.Strides), rank)
	case len(s.Box) != rank:
		return fmt.Errorf("tensor map: %d box dims for rank %d", len(s.Box), rank)
	case s.ElementStrides != nil && len(s.ElementStrides) != rank:
		return fmt.Errorf("tensor map: %d element strides for rank %d", len(s.ElementStrides), rank)
	case s.Interleave > Interleave32B:
		return fmt.Errorf("tensor map: interleave %v", s.Interleave)
	case s.Swizzle > Swizzle128B:
		return fmt.Errorf("tensor map: swizzle %v", s.Swizzle)
	case s.L2Promotion > L2Promotion256B:
		return fmt.Errorf("tensor map: l2 promotion %v", s.L2Promotion)
	case s.OOBFill > OOBFillNaNRequestZeroFMA:
		return fmt.Errorf("tensor map: oob fill %v", s.OOBFill)
	}
	if s.OOBFill == OOBFillNaNRequestZeroFMA {
		switch s.DataType {
		case TensorFloat16, TensorFloat32, TensorFloat64, TensorBFloat16, TensorFloat32FTZ, TensorTFloat32, TensorTFloat32FTZ:
		default:
			return fmt.Errorf("tensor map: NaN out-of-bounds fill needs a float type, have %v", s.DataType)
		}
	}
	align := uint64(16)
	if s.Interleave == Interleave32B {
		align = 32
	}
	if uint64(s.Global)%align != 0 {
		return fmt.Errorf("tensor map: global address %#x not %d-byte aligned", uint64(s.Global), align)
	}
	for i, d := range s.Dims {
		if d == 0 || d > 1<<32 {
			return fmt.Errorf("tensor map: dims[%d] = %d (want 1..2^32)", i, d)
		}
	}
	for i, st := range s.Strides {
		if st%align != 0 || st >= 1<<40 {
			return fmt.Errorf("tensor map: strides[%d] = %d bytes (want a multiple of %d below 2^40)", i, st, align)
		}
	}
	for i, b := range s.Box {
		if b == 0 || b > 256 {
			return fmt.Errorf("tensor map: box[%d] = %d (want 1..256)", i, b)
		}
	}
	for i, e := range s.ElementStrides {
		if e == 0 || e > 8 {
			return fmt.Errorf("tensor map: element strides[%d] = %d (want 1..8)", i, e)
		}
	}
	if s.Interleave == InterleaveNone {
		inner := int(s.Box[0]) * es
		if inner%16 != 0 {
			return fmt.Errorf("tensor map: inner box %d x %d bytes = %d, not a multiple of 16", s.Box[0], es, inner)
		}
		if span := s.Swizzle.Span(); span != 0 && inner > span {
			return fmt.Errorf("tensor map: inner box of %d bytes exceeds the %v swizzle span", inner, s.Swizzle)
		}
	} else if s.Interleave == Interleave32B && s.Swizzle != Swizzle32B {
		return fmt.Errorf("tensor map: 32B interleave needs 32B swizzle, have %v", s.Swizzle)
	}
	return nil
}

// EncodeTiled is cuTensorMapEncodeTiled.
func (c *Context) EncodeTiled(s TiledSpec) (TensorMap, error) {
	var m TensorMap
	if err := c.d.needOptional("cuTensorMapEncodeTiled", c.d.cuTensorMapEncodeTiled); err != nil {
		return m, err
	}
	if err := s.Validate(); err != nil {
		return m, err
	}
	rank := len(s.Dims)
	var dims, strides [5]uint64
	var box, estr [5]uint32
	copy(dims[:], s.Dims)
	copy(strides[:], s.Strides)
	copy(box[:], s.Box)
	for i := range rank {
		estr[i] = 1
	}
	copy(estr[:], s.ElementStrides)
	// The driver wants a 64-byte-aligned CUtensorMap*.
	buf := make([]byte, 128+64)
	off := int((64 - uintptr(unsafe.Pointer(&buf[0]))%64) % 64)
	err := c.do("cuTensorMapEncodeTiled", c.d.cuTensorMapEncodeTiled,
		uintptr(unsafe.Pointer(&buf[off])), uintptr(s.DataType), uintptr(rank), uintptr(s.Global),
		uintptr(unsafe.Pointer(&dims[0])), uintptr(unsafe.Pointer(&strides[0])),
		uintptr(unsafe.Pointer(&box[0])), uintptr(unsafe.Pointer(&estr[0])),
		uintptr(s.Interleave), uintptr(s.Swizzle), uintptr(s.L2Promotion), uintptr(s.OOBFill))
	if err != nil {
		return m, fmt.Errorf("%w (spec %+v)", err, s)
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&m)), 128), buf[off:off+128])
	return m, nil
}

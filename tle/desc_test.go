package tle

import (
	"slices"
	"strings"
	"testing"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
)

func TestDescSpec(t *testing.T) {
	bin := &Binary{Kernel: "k", Params: []string{"out:*f32", "x:desc[bf16,64,128]"},
		Descs: []nvptx.DescParam{{Param: 1, DType: "bf16", Block: []int{64, 128}, Box: []int{64, 128}, Swizzle: 0}}}
	buf := &DeviceBuffer{Ptr: 0x10000, DType: ir.BF16, N: 300 * 200}
	spec, err := DescSpec(bin, 1, DeviceDesc{Buf: buf, Shape: []int{300, 200}})
	if err != nil {
		t.Fatal(err)
	}
	want := cuda.TiledSpec{DataType: cuda.TensorBFloat16, Global: 0x10000, Dims: []uint64{200, 300}, Strides: []uint64{400},
		Box: []uint32{128, 64}, Swizzle: cuda.SwizzleNone, L2Promotion: cuda.L2Promotion128B, OOBFill: cuda.OOBFillNone}
	if spec.DataType != want.DataType || spec.Global != want.Global || !slices.Equal(spec.Dims, want.Dims) || !slices.Equal(spec.Strides, want.Strides) ||
		len(spec.Box) != 2 || spec.Box[0] != 128 || spec.Box[1] != 64 || spec.Swizzle != want.Swizzle || spec.L2Promotion != want.L2Promotion || spec.OOBFill != want.OOBFill {
		t.Errorf("spec %+v, want %+v", spec, want)
	}
	bin.Descs[0].Swizzle = 128
	bin.Descs[0].Box = []int{64, 64}
	if spec, err := DescSpec(bin, 1, DeviceDesc{Buf: buf, Shape: []int{300, 200}}); err != nil || spec.Swizzle != cuda.Swizzle128B {
		t.Errorf("128B swizzle: %+v %v", spec, err)
	}
	bin.Descs[0].Swizzle, bin.Descs[0].Box = 0, []int{64, 128}
	for _, c := range []struct {
		d    DeviceDesc
		want string
	}{
		{DeviceDesc{Buf: &DeviceBuffer{Ptr: 0x10008, DType: ir.BF16, N: 60000}, Shape: []int{300, 200}}, "16-byte aligned"},
		{DeviceDesc{Buf: buf, Shape: []int{300, 199}, Strides: []int{199, 1}}, "multiples of 16 bytes"},
		{DeviceDesc{Buf: buf, Shape: []int{300, 100}, Strides: []int{1, 300}}, "innermost stride must be 1"},
		{DeviceDesc{Buf: buf, Shape: []int{400, 200}}, "reaches element"},
		{DeviceDesc{Buf: &DeviceBuffer{Ptr: 0x10000, DType: ir.F32, N: 60000}, Shape: []int{300, 200}}, "holds f32"},
		{DeviceDesc{Buf: buf, Shape: []int{60000}}, "rank-2"},
	} {
		_, err := DescSpec(bin, 1, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "x:desc") {
			t.Errorf("%+v: error %v, want %q naming the argument", c.d, err, c.want)
		}
	}
	if _, err := DescSpec(bin, 0, DeviceDesc{Buf: buf, Shape: []int{300, 200}}); err == nil {
		t.Error("no error for a parameter without tensor-map metadata")
	}
}

// TestDescSpecPermuted: a rank-4 paged KV cache stored NHD [blocks,
// tokens, heads, dim] bound to a desc[bf16, 1, 1, 64, 128] over [blocks,
// heads, tokens, dim] through permuted strides: the map's dims and byte
// strides run innermost first in the descriptor's order, the box is the
// backend's (one 64-column block of the wgmma layout).
func TestDescSpecPermuted(t *testing.T) {
	const nb, tok, h, d = 10, 64, 4, 128
	bin := &Binary{Kernel: "k", Params: []string{"k:desc[bf16,1,1,64,128]"},
		Descs: []nvptx.DescParam{{Param: 0, DType: "bf16", Block: []int{1, 1, 64, 128}, Box: []int{1, 1, 64, 64}, Swizzle: 128}}}
	buf := &DeviceBuffer{Ptr: 0x20000, DType: ir.BF16, N: nb * tok * h * d}
	nhd := []int{tok * h * d, d, h * d, 1}
	spec, err := DescSpec(bin, 0, DeviceDesc{Buf: buf, Shape: []int{nb, h, tok, d}, Strides: nhd})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(spec.Dims, []uint64{d, tok, h, nb}) || !slices.Equal(spec.Strides, []uint64{h * d * 2, d * 2, tok * h * d * 2}) ||
		!slices.Equal(spec.Box, []uint32{64, 64, 1, 1}) || spec.Swizzle != cuda.Swizzle128B {
		t.Errorf("NHD spec %+v", spec)
	}
	// the same cache HND (row-major) and rank 5 with a layer dimension
	if _, err := DescSpec(bin, 0, DeviceDesc{Buf: buf, Shape: []int{nb, h, tok, d}}); err != nil {
		t.Error(err)
	}
	bin5 := &Binary{Kernel: "k", Params: []string{"k:desc[bf16,1,1,1,64,128]"},
		Descs: []nvptx.DescParam{{Param: 0, DType: "bf16", Block: []int{1, 1, 1, 64, 128}, Box: []int{1, 1, 1, 64, 64}, Swizzle: 128}}}
	buf5 := &DeviceBuffer{Ptr: 0x20000, DType: ir.BF16, N: 2 * nb * tok * h * d}
	spec, err = DescSpec(bin5, 0, DeviceDesc{Buf: buf5, Shape: []int{2, nb, h, tok, d}, Strides: []int{nb * tok * h * d, tok * h * d, d, h * d, 1}})
	if err != nil || !slices.Equal(spec.Strides, []uint64{h * d * 2, d * 2, tok * h * d * 2, nb * tok * h * d * 2}) {
		t.Errorf("rank 5: %+v %v", spec, err)
	}
	for _, c := range []struct {
		d    DeviceDesc
		want string
	}{
		// a permutation that moves the contiguous dimension out of the innermost place
		{DeviceDesc{Buf: buf, Shape: []int{nb, h, d, tok}, Strides: []int{tok * h * d, d, 1, h * d}}, "innermost stride must be 1"},
		// heads 8 bytes apart: not a multiple of 16
		{DeviceDesc{Buf: buf, Shape: []int{nb, h, tok, d}, Strides: []int{tok * h * d, 4, h * d, 1}}, "multiples of 16 bytes"},
		{DeviceDesc{Buf: buf, Shape: []int{nb, h, tok, d}, Strides: []int{tok * h * d, 0, h * d, 1}}, "multiples of 16 bytes"},
		// one block too many for the buffer
		{DeviceDesc{Buf: buf, Shape: []int{nb + 1, h, tok, d}, Strides: nhd}, "reaches element"},
		{DeviceDesc{Buf: buf, Shape: []int{nb, h, tok, d}, Strides: nhd[1:]}, "3 strides for shape"},
		{DeviceDesc{Buf: buf, Shape: []int{nb, h * tok, d}, Strides: []int{tok * h * d, d, 1}}, "needs a rank-4 tensor"},
	} {
		_, err := DescSpec(bin, 0, c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "k:desc") {
			t.Errorf("%v / %v: error %v, want %q naming the argument", c.d.Shape, c.d.Strides, err, c.want)
		}
	}
}

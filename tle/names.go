package tle

import (
	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
)

// The types of the layers below that tle's own signatures take or return,
// named here so that a user of tle imports nothing else: g.Alloc(tle.BF16, n).
// Each is an alias: a value is the same type as in its own package.

// DType is an element type: of a buffer, a pointer or desc parameter's
// elements, or a scalar parameter (ir's DType). It prints as the
// language spells it (f32, bf16, ...).
type DType = ir.DType

// The dtypes, as the language spells them.
const (
	I1     = ir.I1
	I8     = ir.I8
	I16    = ir.I16
	I32    = ir.I32
	I64    = ir.I64
	U8     = ir.U8
	U16    = ir.U16
	U32    = ir.U32
	U64    = ir.U64
	F16    = ir.F16
	BF16   = ir.BF16
	F32    = ir.F32
	F64    = ir.F64
	F8E4M3 = ir.F8E4M3 // fp8 e4m3fn
	F8E5M2 = ir.F8E5M2 // fp8 e5m2
)

// IRModule is a program in the tile IR: what Kernel.IR returns and
// CompileModule takes (ir's Module).
type IRModule = ir.Module

// DevicePtr is a GPU address: DeviceBuffer.Ptr, and the argument GPU.Launch
// takes for a pointer parameter.
type DevicePtr = cuda.DevicePtr

// CUDAContext is the driver context of a GPU (GPU.Context).
type CUDAContext = cuda.Context

// TiledSpec is what DescSpec returns: the cuTensorMapEncodeTiled spec of a
// tensor bound to a desc parameter (CUDAContext.EncodeTiled encodes it).
type TiledSpec = cuda.TiledSpec

// TensorMap is an encoded CUtensorMap, an argument GPU.Launch takes for a
// desc parameter.
type TensorMap = cuda.TensorMap

// DescParam is the tensor map a desc parameter needs, as the backend chose
// it (Binary.Descs).
type DescParam = nvptx.DescParam

// LoadedKernel is a Binary loaded into a GPU's context (GPU.LoadBinary),
// launched with GPU.Launch.
type LoadedKernel = gpuKernel

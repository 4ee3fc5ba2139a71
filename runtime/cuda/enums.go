package cuda

// Values below are copied from cuda.h (CUDA 12.6 header; the values are ABI
// and unchanged in CUDA 13). enums_test.go pins each one.

// CUresult values the package refers to by name.
const (
	Success                  Result = 0
	ErrorInvalidValue        Result = 1
	ErrorOutOfMemory         Result = 2
	ErrorNotInitialized      Result = 3
	ErrorDeinitialized       Result = 4
	ErrorStubLibrary         Result = 34
	ErrorNoDevice            Result = 100
	ErrorInvalidDevice       Result = 101
	ErrorInvalidImage        Result = 200
	ErrorInvalidContext      Result = 201
	ErrorNoBinaryForGPU      Result = 209
	ErrorInvalidPTX          Result = 218
	ErrorUnsupportedPTX      Result = 222
	ErrorInvalidHandle       Result = 400
	ErrorNotFound            Result = 500
	ErrorNotReady            Result = 600
	ErrorIllegalAddress      Result = 700
	ErrorLaunchOutOfResource Result = 701
	ErrorLaunchFailed        Result = 719
	ErrorInvalidClusterSize  Result = 912
	ErrorUnknown             Result = 999
)

// fallbackName names a CUresult when cuGetErrorName is unavailable.
func (r Result) fallbackName() string {
	switch r {
	case Success:
		return "CUDA_SUCCESS"
	case ErrorInvalidValue:
		return "CUDA_ERROR_INVALID_VALUE"
	case ErrorOutOfMemory:
		return "CUDA_ERROR_OUT_OF_MEMORY"
	case ErrorNotInitialized:
		return "CUDA_ERROR_NOT_INITIALIZED"
	case ErrorNoDevice:
		return "CUDA_ERROR_NO_DEVICE"
	case ErrorInvalidContext:
		return "CUDA_ERROR_INVALID_CONTEXT"
	case ErrorInvalidPTX:
		return "CUDA_ERROR_INVALID_PTX"
	case ErrorNotReady:
		return "CUDA_ERROR_NOT_READY"
	}
	return "CUresult(" + itoa(int64(r)) + ")"
}

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int32

const (
	AttrMaxThreadsPerBlock           DeviceAttribute = 1
	AttrMaxBlockDimX                 DeviceAttribute = 2
	AttrMaxGridDimX                  DeviceAttribute = 5
	AttrMaxSharedMemoryPerBlock      DeviceAttribute = 8
	AttrTotalConstantMemory          DeviceAttribute = 9
	AttrWarpSize                     DeviceAttribute = 10
	AttrMaxRegistersPerBlock         DeviceAttribute = 12
	AttrClockRate                    DeviceAttribute = 13 // kHz
	AttrMultiprocessorCount          DeviceAttribute = 16
	AttrMemoryClockRate              DeviceAttribute = 36 // kHz
	AttrGlobalMemoryBusWidth         DeviceAttribute = 37 // bits
	AttrL2CacheSize                  DeviceAttribute = 38 // bytes
	AttrMaxThreadsPerMultiprocessor  DeviceAttribute = 39
	AttrComputeCapabilityMajor       DeviceAttribute = 75
	AttrComputeCapabilityMinor       DeviceAttribute = 76
	AttrMaxSharedMemoryPerSM         DeviceAttribute = 81
	AttrMaxRegistersPerSM            DeviceAttribute = 82
	AttrMaxSharedMemoryPerBlockOptin DeviceAttribute = 97
	AttrMaxBlocksPerMultiprocessor   DeviceAttribute = 106
	AttrMaxPersistingL2CacheSize     DeviceAttribute = 108
	AttrClusterLaunch                DeviceAttribute = 120
	AttrTensorMapAccessSupported     DeviceAttribute = 127
)

// FuncAttribute is a CUfunction_attribute.
type FuncAttribute int32

const (
	FuncMaxThreadsPerBlock                FuncAttribute = 0
	FuncSharedSizeBytes                   FuncAttribute = 1
	FuncConstSizeBytes                    FuncAttribute = 2
	FuncLocalSizeBytes                    FuncAttribute = 3
	FuncNumRegs                           FuncAttribute = 4
	FuncPTXVersion                        FuncAttribute = 5
	FuncBinaryVersion                     FuncAttribute = 6
	FuncCacheModeCA                       FuncAttribute = 7
	FuncMaxDynamicSharedSizeBytes         FuncAttribute = 8
	FuncPreferredSharedMemoryCarveout     FuncAttribute = 9
	FuncClusterSizeMustBeSet              FuncAttribute = 10
	FuncRequiredClusterWidth              FuncAttribute = 11
	FuncRequiredClusterHeight             FuncAttribute = 12
	FuncRequiredClusterDepth              FuncAttribute = 13
	FuncNonPortableClusterSizeAllowed     FuncAttribute = 14
	FuncClusterSchedulingPolicyPreference FuncAttribute = 15
)

// JITOption is a CUjit_option.
type JITOption int32

const (
	JITMaxRegisters            JITOption = 0
	JITThreadsPerBlock         JITOption = 1
	JITWallTime                JITOption = 2
	JITInfoLogBuffer           JITOption = 3
	JITInfoLogBufferSizeBytes  JITOption = 4
	JITErrorLogBuffer          JITOption = 5
	JITErrorLogBufferSizeBytes JITOption = 6
	JITOptimizationLevel       JITOption = 7
	JITTargetFromCUContext     JITOption = 8
	JITTarget                  JITOption = 9
	JITFallbackStrategy        JITOption = 10
	JITGenerateDebugInfo       JITOption = 11
	JITLogVerbose              JITOption = 12
	JITGenerateLineInfo        JITOption = 13
	JITCacheMode               JITOption = 14
)

// LaunchAttributeID is a CUlaunchAttributeID.
type LaunchAttributeID uint32

const (
	LaunchAttrIgnore                            LaunchAttributeID = 0
	LaunchAttrAccessPolicyWindow                LaunchAttributeID = 1
	LaunchAttrCooperative                       LaunchAttributeID = 2
	LaunchAttrSynchronizationPolicy             LaunchAttributeID = 3
	LaunchAttrClusterDimension                  LaunchAttributeID = 4
	LaunchAttrClusterSchedulingPolicyPreference LaunchAttributeID = 5
	LaunchAttrProgrammaticStreamSerialization   LaunchAttributeID = 6
	LaunchAttrProgrammaticEvent                 LaunchAttributeID = 7
	LaunchAttrPriority                          LaunchAttributeID = 8
	LaunchAttrMemSyncDomainMap                  LaunchAttributeID = 9
	LaunchAttrMemSyncDomain                     LaunchAttributeID = 10
	LaunchAttrLaunchCompletionEvent             LaunchAttributeID = 12
	LaunchAttrDeviceUpdatableKernelNode         LaunchAttributeID = 13
	LaunchAttrPreferredSharedMemoryCarveout     LaunchAttributeID = 14
)

// Stream and event creation flags.
const (
	StreamDefault     = 0x0 // CU_STREAM_DEFAULT
	StreamNonBlocking = 0x1 // CU_STREAM_NON_BLOCKING

	EventDefault       = 0x0 // CU_EVENT_DEFAULT
	EventBlockingSync  = 0x1 // CU_EVENT_BLOCKING_SYNC
	EventDisableTiming = 0x2 // CU_EVENT_DISABLE_TIMING
)

// TensorMapDataType is a CUtensorMapDataType.
type TensorMapDataType uint32

const (
	TensorUint8       TensorMapDataType = 0
	TensorUint16      TensorMapDataType = 1
	TensorUint32      TensorMapDataType = 2
	TensorInt32       TensorMapDataType = 3
	TensorUint64      TensorMapDataType = 4
	TensorInt64       TensorMapDataType = 5
	TensorFloat16     TensorMapDataType = 6
	TensorFloat32     TensorMapDataType = 7
	TensorFloat64     TensorMapDataType = 8
	TensorBFloat16    TensorMapDataType = 9
	TensorFloat32FTZ  TensorMapDataType = 10
	TensorTFloat32    TensorMapDataType = 11
	TensorTFloat32FTZ TensorMapDataType = 12
)

var tensorDataTypeNames = [...]string{"uint8", "uint16", "uint32", "int32", "uint64", "int64",
	"float16", "float32", "float64", "bfloat16", "float32_ftz", "tfloat32", "tfloat32_ftz"}

func (t TensorMapDataType) String() string {
	return enumName(uint32(t), tensorDataTypeNames[:], "TensorMapDataType")
}

// enumName is names[v], the spelling of enum value v, or typ(v) for a value
// past the table.
func enumName(v uint32, names []string, typ string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return typ + "(" + itoa(int64(v)) + ")"
}

// ElemSize is the element size in bytes (0 for an unknown type).
func (t TensorMapDataType) ElemSize() int {
	switch t {
	case TensorUint8:
		return 1
	case TensorUint16, TensorFloat16, TensorBFloat16:
		return 2
	case TensorUint32, TensorInt32, TensorFloat32, TensorFloat32FTZ, TensorTFloat32, TensorTFloat32FTZ:
		return 4
	case TensorUint64, TensorInt64, TensorFloat64:
		return 8
	}
	return 0
}

// TensorMapDataTypeOf maps a TLE dtype spelling (f32, bf16, f8e4m3, ...) to
// the tensor-map element type that moves its bytes. fp8 and i8 move as uint8,
// i16 as uint16 and u32 as uint32: TMA copies bits, and only the element
// size matters unless out-of-bounds NaN fill is requested.
func TensorMapDataTypeOf(dtype string) (TensorMapDataType, bool) {
	switch dtype {
	case "u8", "i8", "f8e4m3", "f8e5m2", "i1":
		return TensorUint8, true
	case "u16", "i16":
		return TensorUint16, true
	case "f16":
		return TensorFloat16, true
	case "bf16":
		return TensorBFloat16, true
	case "u32":
		return TensorUint32, true
	case "i32":
		return TensorInt32, true
	case "f32":
		return TensorFloat32, true
	case "u64":
		return TensorUint64, true
	case "i64":
		return TensorInt64, true
	case "f64":
		return TensorFloat64, true
	}
	return 0, false
}

// TensorMapInterleave is a CUtensorMapInterleave.
type TensorMapInterleave uint32

const (
	InterleaveNone TensorMapInterleave = 0
	Interleave16B  TensorMapInterleave = 1
	Interleave32B  TensorMapInterleave = 2
)

var interleaveNames = [...]string{"none", "16B", "32B"}

func (i TensorMapInterleave) String() string {
	return enumName(uint32(i), interleaveNames[:], "TensorMapInterleave")
}

// TensorMapSwizzle is a CUtensorMapSwizzle.
type TensorMapSwizzle uint32

const (
	SwizzleNone TensorMapSwizzle = 0
	Swizzle32B  TensorMapSwizzle = 1
	Swizzle64B  TensorMapSwizzle = 2
	Swizzle128B TensorMapSwizzle = 3
)

var swizzleNames = [...]string{"none", "32B", "64B", "128B"}

func (s TensorMapSwizzle) String() string {
	return enumName(uint32(s), swizzleNames[:], "TensorMapSwizzle")
}

// Span is the swizzle span in bytes (0 for none): the most bytes the inner
// box dimension may cover.
func (s TensorMapSwizzle) Span() int {
	switch s {
	case Swizzle32B:
		return 32
	case Swizzle64B:
		return 64
	case Swizzle128B:
		return 128
	}
	return 0
}

// TensorMapL2Promotion is a CUtensorMapL2promotion.
type TensorMapL2Promotion uint32

const (
	L2PromotionNone TensorMapL2Promotion = 0
	L2Promotion64B  TensorMapL2Promotion = 1
	L2Promotion128B TensorMapL2Promotion = 2
	L2Promotion256B TensorMapL2Promotion = 3
)

var l2PromotionNames = [...]string{"none", "64B", "128B", "256B"}

func (p TensorMapL2Promotion) String() string {
	return enumName(uint32(p), l2PromotionNames[:], "TensorMapL2Promotion")
}

// TensorMapOOBFill is a CUtensorMapFloatOOBfill.
type TensorMapOOBFill uint32

const (
	OOBFillNone              TensorMapOOBFill = 0 // zeros
	OOBFillNaNRequestZeroFMA TensorMapOOBFill = 1
)

var oobFillNames = [...]string{"none", "nan_request_zero_fma"}

func (f TensorMapOOBFill) String() string {
	return enumName(uint32(f), oobFillNames[:], "TensorMapOOBFill")
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var b [24]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

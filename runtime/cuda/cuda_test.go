package cuda

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// The C layouts (cuda.h, x86-64 and aarch64 Linux):
//
//	CUlaunchConfig: 7 x unsigned int, pad 4, CUstream @32, attrs @40, numAttrs @48, size 56
//	CUlaunchAttribute: id @0, pad, value union (64 bytes) @8, size 72
//	CUtensorMap: 16 x cuuint64_t, size 128, aligned 64
func TestStructLayouts(t *testing.T) {
	var c CULaunchConfig
	var a CULaunchAttribute
	var m TensorMap
	checks := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof CUlaunchConfig", unsafe.Sizeof(c), 56},
		{"gridDimX", unsafe.Offsetof(c.GridDimX), 0},
		{"gridDimY", unsafe.Offsetof(c.GridDimY), 4},
		{"gridDimZ", unsafe.Offsetof(c.GridDimZ), 8},
		{"blockDimX", unsafe.Offsetof(c.BlockDimX), 12},
		{"blockDimY", unsafe.Offsetof(c.BlockDimY), 16},
		{"blockDimZ", unsafe.Offsetof(c.BlockDimZ), 20},
		{"sharedMemBytes", unsafe.Offsetof(c.SharedMemBytes), 24},
		{"hStream", unsafe.Offsetof(c.HStream), 32},
		{"attrs", unsafe.Offsetof(c.Attrs), 40},
		{"numAttrs", unsafe.Offsetof(c.NumAttrs), 48},
		{"sizeof CUlaunchAttribute", unsafe.Sizeof(a), 72},
		{"attr.id", unsafe.Offsetof(a.ID), 0},
		{"attr.value", unsafe.Offsetof(a.Value), 8},
		{"sizeof id", unsafe.Sizeof(a.ID), 4},
		{"alignof CUlaunchAttribute", unsafe.Alignof(a), 8},
		{"sizeof CUtensorMap", unsafe.Sizeof(m), 128},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestClusterDimValue(t *testing.T) {
	var a CULaunchAttribute
	a.SetClusterDim(2, 3, 4)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&a)), 72)
	// id 4 little-endian, then value.clusterDim {x,y,z} as three uint32.
	want := []byte{4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}
	if string(b[:20]) != string(want) {
		t.Fatalf("bytes % x, want % x", b[:20], want)
	}
}

// Enum values cross-checked against cuda.h (CUDA 12.6 header).
func TestEnumValues(t *testing.T) {
	checks := []struct {
		name      string
		got, want int64
	}{
		{"CUDA_ERROR_INVALID_PTX", int64(ErrorInvalidPTX), 218},
		{"CUDA_ERROR_NO_DEVICE", int64(ErrorNoDevice), 100},
		{"CUDA_ERROR_INVALID_CONTEXT", int64(ErrorInvalidContext), 201},
		{"CUDA_ERROR_NOT_READY", int64(ErrorNotReady), 600},
		{"CUDA_ERROR_ILLEGAL_ADDRESS", int64(ErrorIllegalAddress), 700},
		{"CUDA_ERROR_LAUNCH_FAILED", int64(ErrorLaunchFailed), 719},
		{"CUDA_ERROR_INVALID_CLUSTER_SIZE", int64(ErrorInvalidClusterSize), 912},
		{"CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", int64(AttrMultiprocessorCount), 16},
		{"CU_DEVICE_ATTRIBUTE_CLOCK_RATE", int64(AttrClockRate), 13},
		{"CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE", int64(AttrL2CacheSize), 38},
		{"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", int64(AttrComputeCapabilityMajor), 75},
		{"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", int64(AttrComputeCapabilityMinor), 76},
		{"CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", int64(AttrMaxSharedMemoryPerBlockOptin), 97},
		{"CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH", int64(AttrClusterLaunch), 120},
		{"CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED", int64(AttrTensorMapAccessSupported), 127},
		{"CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES", int64(FuncLocalSizeBytes), 3},
		{"CU_FUNC_ATTRIBUTE_NUM_REGS", int64(FuncNumRegs), 4},
		{"CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", int64(FuncMaxDynamicSharedSizeBytes), 8},
		{"CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED", int64(FuncNonPortableClusterSizeAllowed), 14},
		{"CU_JIT_INFO_LOG_BUFFER", int64(JITInfoLogBuffer), 3},
		{"CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES", int64(JITInfoLogBufferSizeBytes), 4},
		{"CU_JIT_ERROR_LOG_BUFFER", int64(JITErrorLogBuffer), 5},
		{"CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES", int64(JITErrorLogBufferSizeBytes), 6},
		{"CU_JIT_LOG_VERBOSE", int64(JITLogVerbose), 12},
		{"CU_LAUNCH_ATTRIBUTE_COOPERATIVE", int64(LaunchAttrCooperative), 2},
		{"CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", int64(LaunchAttrClusterDimension), 4},
		{"CU_LAUNCH_ATTRIBUTE_PRIORITY", int64(LaunchAttrPriority), 8},
		{"CU_TENSOR_MAP_DATA_TYPE_UINT8", int64(TensorUint8), 0},
		{"CU_TENSOR_MAP_DATA_TYPE_INT32", int64(TensorInt32), 3},
		{"CU_TENSOR_MAP_DATA_TYPE_FLOAT16", int64(TensorFloat16), 6},
		{"CU_TENSOR_MAP_DATA_TYPE_FLOAT32", int64(TensorFloat32), 7},
		{"CU_TENSOR_MAP_DATA_TYPE_FLOAT64", int64(TensorFloat64), 8},
		{"CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", int64(TensorBFloat16), 9},
		{"CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ", int64(TensorTFloat32FTZ), 12},
		{"CU_TENSOR_MAP_INTERLEAVE_32B", int64(Interleave32B), 2},
		{"CU_TENSOR_MAP_SWIZZLE_32B", int64(Swizzle32B), 1},
		{"CU_TENSOR_MAP_SWIZZLE_64B", int64(Swizzle64B), 2},
		{"CU_TENSOR_MAP_SWIZZLE_128B", int64(Swizzle128B), 3},
		{"CU_TENSOR_MAP_L2_PROMOTION_L2_128B", int64(L2Promotion128B), 2},
		{"CU_TENSOR_MAP_L2_PROMOTION_L2_256B", int64(L2Promotion256B), 3},
		{"CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA", int64(OOBFillNaNRequestZeroFMA), 1},
		{"CU_STREAM_NON_BLOCKING", StreamNonBlocking, 1},
		{"CU_EVENT_DISABLE_TIMING", EventDisableTiming, 2},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestMissingDriverIsAnError(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	d, err := LoadFrom(lib)
	if err == nil || d != nil {
		t.Fatalf("LoadFrom(%s) = %v, %v; want an error", lib, d, err)
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Errorf("error %v does not match ErrNoDriver", err)
	}
	if !strings.Contains(err.Error(), "libcuda.so.1 could not be loaded") {
		t.Errorf("error %q does not say what failed", err)
	}
}

// Whatever this machine has, Available and Open return, never panic, and
// agree with each other.
func TestAvailableNeverPanics(t *testing.T) {
	err := Available()
	c, oerr := Open(0)
	if err != nil {
		t.Logf("Available: %v", err)
		if oerr == nil {
			t.Errorf("Open succeeded although Available said %v", err)
		}
		if !errors.Is(err, ErrNoDriver) && !errors.Is(err, ErrNoDevice) {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Errorf("Available error %T %v is neither ErrNoDriver, ErrNoDevice nor *Error", err, err)
			}
		}
		return
	}
	if oerr != nil {
		t.Fatalf("Available ok but Open: %v", oerr)
	}
	c.Close()
}

func TestMissingNVVMIsAnError(t *testing.T) {
	_, err := LoadNVVMFrom(filepath.Join(t.TempDir(), "libnvvm.so"))
	if err == nil {
		t.Fatal("LoadNVVMFrom of a missing file succeeded")
	}
	t.Setenv("TLE_LIBNVVM", "/nonexistent/libnvvm.so")
	t.Setenv("CUDA_HOME", "/nonexistent/cuda")
	c := NVVMCandidates()
	if c[0] != "/nonexistent/libnvvm.so" || c[1] != "/nonexistent/cuda/nvvm/lib64/libnvvm.so" {
		t.Errorf("candidates %v: want $TLE_LIBNVVM then $CUDA_HOME first", c)
	}
	le := &NVVMLoadError{Tried: []string{"a (absent)"}}
	if !errors.Is(le, ErrNoNVVM) || !strings.Contains(le.Error(), "a (absent)") {
		t.Errorf("NVVMLoadError %q", le)
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Func: "cuModuleLoadDataEx", Code: 218, Name: "CUDA_ERROR_INVALID_PTX",
		Desc: "a PTX JIT compilation failed", Log: "ptxas fatal: x\n"}
	want := "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed): ptxas fatal: x"
	if e.Error() != want {
		t.Errorf("got %q\nwant %q", e.Error(), want)
	}
	if !errors.Is(&Error{Code: ErrorNoDevice}, ErrNoDevice) {
		t.Error("CUDA_ERROR_NO_DEVICE does not match ErrNoDevice")
	}
	if got := Result(123456).fallbackName(); got != "CUresult(123456)" {
		t.Errorf("fallback name %q", got)
	}
}

func goodSpec() TiledSpec {
	return TiledSpec{
		DataType: TensorBFloat16, Global: 0x7f0000000000,
		Dims: []uint64{128, 64}, Strides: []uint64{256}, Box: []uint32{64, 16},
		Swizzle: Swizzle128B,
	}
}

func TestTiledSpecValidate(t *testing.T) {
	if err := (&TiledSpec{DataType: TensorBFloat16, Global: 0x1000, Dims: []uint64{128, 64}, Strides: []uint64{256},
		Box: []uint32{64, 16}, Swizzle: Swizzle128B}).Validate(); err != nil {
		t.Fatalf("good spec: %v", err)
	}
	bad := []struct {
		name string
		mod  func(*TiledSpec)
		want string
	}{
		{"misaligned address", func(s *TiledSpec) { s.Global += 8 }, "aligned"},
		{"stride not multiple of 16", func(s *TiledSpec) { s.Strides[0] = 250 }, "strides[0]"},
		{"box too big", func(s *TiledSpec) { s.Box[1] = 257 }, "box[1]"},
		{"inner box over swizzle span", func(s *TiledSpec) { s.Box[0] = 128 }, "swizzle span"},
		{"inner box not 16 bytes", func(s *TiledSpec) { s.Box[0] = 4; s.Swizzle = SwizzleNone }, "multiple of 16"},
		{"stride count", func(s *TiledSpec) { s.Strides = nil }, "strides for rank"},
		{"rank 6", func(s *TiledSpec) { s.Dims = make([]uint64, 6) }, "rank 6"},
		{"zero dim", func(s *TiledSpec) { s.Dims[1] = 0 }, "dims[1]"},
		{"element stride 9", func(s *TiledSpec) { s.ElementStrides = []uint32{1, 9} }, "element strides[1]"},
		{"interleave rank 2", func(s *TiledSpec) { s.Interleave = Interleave16B }, "needs rank >= 3"},
		{"nan fill on ints", func(s *TiledSpec) { s.DataType = TensorUint16; s.OOBFill = OOBFillNaNRequestZeroFMA }, "float type"},
		{"unknown swizzle", func(s *TiledSpec) { s.Swizzle = 9 }, "swizzle"},
	}
	for _, b := range bad {
		s := goodSpec()
		s.Strides = append([]uint64(nil), s.Strides...)
		s.Box = append([]uint32(nil), s.Box...)
		s.Dims = append([]uint64(nil), s.Dims...)
		b.mod(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err = %v, want it to mention %q", b.name, err, b.want)
		}
	}
}

func TestTensorMapDataTypeOf(t *testing.T) {
	for dt, want := range map[string]TensorMapDataType{
		"bf16": TensorBFloat16, "f16": TensorFloat16, "f32": TensorFloat32, "f64": TensorFloat64,
		"f8e4m3": TensorUint8, "i8": TensorUint8, "i32": TensorInt32, "u32": TensorUint32, "i64": TensorInt64,
	} {
		got, ok := TensorMapDataTypeOf(dt)
		if !ok || got != want {
			t.Errorf("%s -> %v %v, want %v", dt, got, ok, want)
		}
	}
	if _, ok := TensorMapDataTypeOf("f128"); ok {
		t.Error("f128 accepted")
	}
	if TensorBFloat16.ElemSize() != 2 || TensorFloat64.ElemSize() != 8 || TensorUint8.ElemSize() != 1 {
		t.Error("ElemSize")
	}
}

func TestTensorMapEnumStrings(t *testing.T) {
	for _, c := range []struct {
		v    fmt.Stringer
		want string
	}{
		{TensorUint8, "uint8"}, {TensorTFloat32FTZ, "tfloat32_ftz"}, {TensorMapDataType(13), "TensorMapDataType(13)"},
		{InterleaveNone, "none"}, {Interleave16B, "16B"}, {Interleave32B, "32B"}, {TensorMapInterleave(3), "TensorMapInterleave(3)"},
		{SwizzleNone, "none"}, {Swizzle32B, "32B"}, {Swizzle64B, "64B"}, {Swizzle128B, "128B"}, {TensorMapSwizzle(4), "TensorMapSwizzle(4)"},
		{L2PromotionNone, "none"}, {L2Promotion64B, "64B"}, {L2Promotion128B, "128B"}, {L2Promotion256B, "256B"},
		{TensorMapL2Promotion(4), "TensorMapL2Promotion(4)"},
		{OOBFillNone, "none"}, {OOBFillNaNRequestZeroFMA, "nan_request_zero_fma"}, {TensorMapOOBFill(2), "TensorMapOOBFill(2)"},
		{TensorMapOOBFill(4294967295), "TensorMapOOBFill(4294967295)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestPropsArch(t *testing.T) {
	if a := (Props{Major: 9, Minor: 0}).Arch(); a != "sm_90a" {
		t.Errorf("9.0 -> %s", a)
	}
	if a := (Props{Major: 8, Minor: 6}).Arch(); a != "sm_86" {
		t.Errorf("8.6 -> %s", a)
	}
}

func TestParamOf(t *testing.T) {
	for _, c := range []struct {
		v    any
		want Param
	}{
		{DevicePtr(1), ParamPtr}, {int32(1), ParamI32}, {float32(1), ParamF32}, {uint64(1), ParamI64},
		{float64(1), ParamF64}, {int16(1), ParamI16}, {uint8(1), ParamI8}, {&TensorMap{}, ParamTensorMap},
	} {
		got, err := ParamOf(c.v)
		if err != nil || got != c.want {
			t.Errorf("ParamOf(%T) = %v, %v", c.v, got, err)
		}
	}
	if _, err := ParamOf(1); err == nil || !strings.Contains(err.Error(), "type int") {
		t.Errorf("ParamOf(int) err = %v", err)
	}
}

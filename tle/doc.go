// Package tle is the public Go API of TLE-Go: load .tle sources (from files or
// an embed.FS), look up a kernel, and launch it on a device (the CPU
// interpreter or a CUDA GPU). Subpackages hold the core shared by every layer:
// ir (the tile IR) and diag (positions and diagnostics). A program
// using the API imports nothing but tle: the dtypes (tle.F32, tle.BF16, ...)
// and the types its signatures take and return (DType, DevicePtr, IRModule,
// ...) are named here, as aliases.
//
// # What a launch checks
//
// Kernel.Run, Kernel.RunContext and GPU.Prepare validate what they are given
// before anything is compiled, uploaded or launched, and return an error
// (never a panic) naming what is wrong:
//
//   - the device is not nil (nor a nil *GPU), nor the kernel;
//   - the grid: every dimension at least 1, x at most MaxGridX (2^31-1), y
//     and z at most MaxGridYZ (65535): CUDA's limits, kept by every device,
//     the interpreter included;
//   - the arguments, against the runtime parameters as the source declares
//     them: one per parameter and none naming anything else (a compile-time
//     parameter is bound with CompileOptions.Defines); for a pointer or
//     desc parameter, Run takes a non-nil *Tensor whose Shape has no
//     negative dimension, an element count that fits an int and equals
//     len(Data), and the desc's rank, or a non-nil *Array[T] (or a bare
//     []T) likewise whose T is the Go type of the element dtype (see Host
//     data), for an *i64 or *u64 parameter also a *PointerTable (a table
//     of the addresses of its entries, each bound as such a pointer
//     argument of the table's DType), Prepare a non-nil, 16-byte aligned
//     *DeviceBuffer of the element dtype or a DeviceDesc that TMA can use;
//     for a scalar parameter, a Go value that its dtype takes, as
//     interp.CheckScalar (the
//     one definition, which the interpreter applies too) decides:
//     integers within the dtype's range (no wrapping: 1<<40 is not an i32,
//     -1 is not a u32, a uint64 above math.MaxInt64 is not an i64), no
//     floats or bools for integer dtypes, a bool or 0/1 for i1, and for a
//     float dtype any Go integer or float whose magnitude does not exceed
//     the dtype's largest finite value (NaN, and ±Inf where the dtype has
//     them, are taken);
//   - the context (RunContext) has not ended.
//
// An error for an argument reads "argument NAME (TYPE): ...", for example
// "argument n_cols (i32): 4294967396 is out of range [-2147483648,
// 2147483647]"; one for the grid names the grid and the limit.
//
// NewTensor is the exception: like make, it panics on a negative dimension
// ("tle.NewTensor: negative dimension -1 in shape [-1]") or on a shape
// whose element count does not fit an int.
//
// # Host data
//
// A pointer or desc parameter takes host data of one of two kinds.
//
// Array[T] (or a bare []T, its one-dimensional form) is data in the
// parameter's dtype, used as it is: T is float32 for f32, float64 for f64,
// uint16 bit patterns for bf16 and f16, uint8 bit patterns for fp8, intN
// and uintN for the integers of their width, bool for i1 (Elem). On the
// interpreter the slice is the kernel's buffer (interp.FromSlice): no
// copy in, no conversion, no copy back, and the kernel's stores land in
// it; on a GPU its bytes are uploaded as they are and, for a parameter the
// kernel may write, downloaded back into it. A Go program that computes in
// float32 hands in its []float32 and reads its results there:
//
//	x, y, out := make([]float32, n), make([]float32, n), make([]float32, n)
//	err := k.Run(tle.CPU(), grid, opts, map[string]any{"x": x, "y": y, "out": out, "n": n})
//
// Run refuses a T that is not the dtype's ("argument x (*f32): a
// []float64 cannot hold f32 elements; pass a []float32 ..."), a nil
// *Array, a Shape whose element count is not len(Data), and Strides on a
// pointer parameter, each naming the argument; a desc parameter's Shape
// and Strides follow StridedTensor's rules.
//
// Tensor (and StridedTensor) is data as float64, whatever the dtype: Run
// converts it to the dtype on the way in (rounding to nearest even,
// integers checked to be exact) and copies the buffer back into Data
// after the launch. It is the convenient form for tests and small inputs,
// and costs a conversion and a buffer of the dtype per launch.
//
// Both end in the same buffers: the interpreter keeps every global buffer
// in its dtype (interp.Buffer), so an f32 buffer takes 4 bytes an element,
// as on the GPU. tlec run reads a .npy file straight into such an array
// when the file's type is the parameter's, and --save writes the array's
// bytes as they are.
//
// # Stopping a launch
//
// RunContext takes a context.Context (Run passes context.Background()).
// On the interpreter a context that ends, by its deadline or a cancel,
// stops the launch: every goroutine of it returns at its next op or loop
// iteration, and the error says the time ran out or the launch was
// cancelled, after how long, which programs were still running and which
// roles were blocked where; it wraps the context's error. Without a
// deadline the interpreter's watchdog (interp.DefaultTimeout, 5 minutes)
// bounds the launch the same way. On a GPU the context is checked before
// the compile and again just before the launch: a kernel already running
// is not interrupted, and RunContext waits for it. A compile in progress
// is not interrupted either.
//
// # Compiling many specialisations
//
// Kernel.Compile builds one specialisation (a kernel and its
// CompileOptions) to PTX through the JIT cache. CompileAll builds a list
// of them, the same Binaries, with one toolchain run for all that are not
// cached: with llc, most of a small kernel's compile is llc's start, so a
// test matrix or a sweep compiles several times faster. Its PTX equals
// Compile's but for comments and blank lines (nvptx.WithoutComments).
//
// # Concurrency
//
// Programs, kernels, devices and GPUs are safe for concurrent use: any
// number of goroutines may compile and run kernels at once (a
// specialisation is compiled once, whoever asks first). A Run reads every
// tensor it is given before the launch and writes back, after it, only
// the tensors of the parameters the kernel may write (Kernel.Writes: a
// store, an atomic or a TMA store through them). So a tensor the kernel
// only reads may be shared by concurrent Runs; a tensor it may write must
// not be shared by a concurrent Run or read by another goroutine while the
// Run is in progress, as with any Go value written by one goroutine. The
// same holds for an Array, which the interpreter writes during the launch
// rather than after it (so a launch that fails may leave some of its
// writes there).
package tle

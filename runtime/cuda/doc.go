// Package cuda is the CUDA driver API for TLE-Go, called through
// github.com/ebitengine/purego: no cgo, so binaries build with
// CGO_ENABLED=0 on machines without CUDA and run on the GPU host.
//
// # Loading
//
// libcuda.so.1 (or the file named by $TLE_LIBCUDA) is opened on first use
// with dlopen; every entry point is looked up with dlsym, so a missing library
// or symbol is an error value (errors.Is(err, ErrNoDriver)), never a crash.
// Available reports whether a driver and at least one device are present; GPU
// tests call it (or cudatest.Require) and skip with its message.
//
// # Threads and contexts
//
// CUDA contexts are current per OS thread, while goroutines migrate between
// threads. Every method that needs a context (memory, modules, launches,
// streams, events) therefore runs as
//
//	runtime.LockOSThread(); cuCtxSetCurrent(ctx); <call>; runtime.UnlockOSThread()
//
// so it is correct whatever thread the goroutine is on, whatever other code
// made current on that thread before, and with any number of goroutines and
// contexts. cuCtxSetCurrent on a context that is already current is a
// thread-local store in the driver (tens of nanoseconds through purego), much
// cheaper than handing calls to a dedicated OS thread over a channel (a
// goroutine switch costs more than the whole launch budget). Contexts are
// device primary contexts (cuDevicePrimaryCtxRetain), shared with anything
// else in the process that uses the runtime API; Context.Close releases it.
// LockOSThread nests, so callers that locked their own thread stay locked.
//
// # Kernel arguments
//
// cuLaunchKernel[Ex] takes kernelParams, an array of pointers to the argument
// values. The hot path (Launcher) keeps that array, the argument values, the
// CUlaunchConfig and its CUlaunchAttribute array in one block of memory
// obtained with mmap, outside the Go heap. Nothing the driver reads through a
// pointer is Go memory, so the cgo pointer rules (Go memory passed to C must
// not hold Go pointers) and the garbage collector do not apply, and nothing
// needs pinning. A launch writes the grid into the block and makes two calls
// (cuCtxSetCurrent, cuLaunchKernelEx) with no allocation. The driver copies
// the argument values during the call, so the block is reused at once. A
// Launcher belongs to one goroutine at a time (its Set methods and Launch are
// not synchronised); Function.Launch, the slower convenience path, builds a
// fresh one per call and is safe everywhere. Other calls that pass Go
// memory (copies from Go slices, JIT log buffers, tensor-map arrays) convert
// the pointers in the call expression of a //go:uintptrescapes function, and
// where C keeps a pointer inside Go memory (JIT option values) the memory is
// pinned with runtime.Pinner for the call.
package cuda

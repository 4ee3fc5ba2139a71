// Package runtime holds the devices that run compiled kernels: runtime/interp
// (the CPU interpreter) and runtime/cuda (the CUDA driver through purego),
// with tensors and .npy I/O in runtime/npy.
package runtime

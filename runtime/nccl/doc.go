// Package nccl drives NCCL through purego (no cgo): the library is found
// and opened at run time, its version read with ncclGetVersion, and the
// calls a mesh of GPUs needs are made through it: communicators (one
// process per GPU, or one process driving every GPU of a host), the
// symmetric heap of the device-mesh kernels (docs/distributed.md, "The
// runtime"), and NCCL's own collectives for comparison.
//
// Where the library is found, in order: Options.Library, then $TLE_NCCL
// (a path or a name dlopen searches for), then nvidia/nccl/lib/libnccl.so.2
// under the python3 site-packages directories (the CUDA Python package
// nvidia-nccl-cu13 or -cu12 puts it there), then libnccl.so.2 through the
// system loader. NCCL 2.23 or later is needed (ncclCommInitRankScalable
// takes the unique id by pointer; purego cannot pass the 128-byte struct
// ncclCommInitRank takes by value). The heap takes NCCL's peer pointers
// (ncclGetPeerDevicePointer) from 2.29 on, and the driver's peer access
// and IPC handles before.
//
// NVLink SHARP (multicast) stays off: NCCL_NVLS_ENABLE=0 is set before
// the first communicator is made, and nothing here calls cuMulticastCreate.
//
// The tests run against testdata/fakenccl, a stand-in libnccl compiled
// with the system C compiler (skipped where there is none) that records
// the call sequence and is configured per test (version, failing calls,
// missing symbols).
package nccl

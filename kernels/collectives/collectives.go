// Package collectives holds collectives across the devices of a mesh,
// written in .tle (docs/distributed.md): all-reduce one-shot and two-shot,
// all-gather (pulled, and pushed with signals) and reduce-scatter, generic
// over the dtype (T, tested in bf16 and f32) and the number of devices
// (WORLD). They run on the interpreter's simulated devices
// (tle.SimDevices) and compile to PTX with the device-mesh ABI (hidden
// rank, heap_bases and sync parameters; docs/distributed.md), which a
// launch on a mesh of GPUs joined by NCCL (tle.GPUMesh) passes: AllReduce,
// AllGather and ReduceScatter. The ops all_reduce, all_gather and
// reduce_scatter (tlec op NAME: x is a [WORLD, n] array, a row per device)
// run them on either. The bench suites allreduce, allgather and
// reducescatter (tlec bench NAME --devices N) time them beside NCCL's
// own collectives, with nccl-tests' algbw and busbw. tp_matmul.tle holds
// the tensor-parallel matmuls fused with their communication: ag_matmul
// (all-gather + matmul, AgMatmul on a mesh of GPUs) and matmul_rs
// (matmul + reduce-scatter, MatmulRS).
package collectives

import "embed"

// FS holds the collectives' .tle sources.
//
//go:embed *.tle
var FS embed.FS

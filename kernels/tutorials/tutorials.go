// Package tutorials holds the tutorial kernels of TLE-Go: vector add, row
// softmax, matmul, layer norm, a pipe producer/consumer with warp roles, a
// two-CTA cluster exchange and FP8 attention's V transpose in shared memory
// (smem_transpose_fp8.tle). Each is tested on the interpreter against a
// float64 reference, and on the GPU when one is present.
package tutorials

import "embed"

// FS holds the tutorial .tle sources.
//
//go:embed *.tle
var FS embed.FS

// Package tutorials holds the tutorial kernels of TLE-Go: vector add, row
// softmax, matmul, layer norm, a pipe producer/consumer with warp roles, a
// two-CTA cluster exchange, TMA copies and matmuls, and a plain causal
// attention forward (attention.tle). Each is tested on the interpreter against a
// float64 reference, and on the GPU when one is present.
package tutorials

import "embed"

// FS holds the tutorial .tle sources.
//
//go:embed *.tle
var FS embed.FS

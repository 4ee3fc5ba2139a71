// Package tutorials holds the tutorial kernels of TLE-Go: vector add, row
// softmax, matmul, layer norm, a pipe producer/consumer with warp roles,
// ping-pong consumers (a role with copies: 2 taking turns, pingpong.tle), a
// two-CTA cluster exchange, TMA copies (rank 2, and rank 3 to 5 in a paged
// KV-cache gather), TMA matmuls in bf16 and FP8, wgmma of fp8 and of small
// N, FP8 attention's V transpose in shared memory (smem_transpose_fp8.tle),
// two 64-key pages read as one 128-key wgmma operand through a reshaped
// shared view (smem_reshape.tle), stream compaction with warp votes
// (compact.tle), a plain causal attention forward (attention.tle),
// ports of Triton's tutorials: low-memory dropout (seeded_dropout.tle,
// seeded by Philox, tutorial 04), the layer-norm backward with its spin
// lock over partial dW and dB sums (layer_norm_bwd.tle, tutorial 05), the
// fused attention backward (attention_bwd.tle, tutorial 06) and the
// persistent matmul, also hand-flattened and through device-made TMA
// descriptors (matmul_persistent.tle, tutorial 09; matmul_desc_persistent.tle
// through desc.load and desc.store), the grouped GEMM through tables of
// addresses (grouped_gemm.tle, tutorial 08), and an mxfp4 x mxfp8 matmul
// with dot_scaled (matmul_mxfp4.tle). Each is tested on the interpreter
// against a float64 reference, and on the GPU when one is present.
package tutorials

import "embed"

// FS holds the tutorial .tle sources.
//
//go:embed *.tle
var FS embed.FS

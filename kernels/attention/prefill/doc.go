// Package prefill is paged prefill attention written in .tle
// (prefill.tle) and driven from Go: the new tokens of varlen requests
// against the paged KV cache of package paged (head dim 128, GQA groups of
// 4 and 8, pages of 16, 32 and 64 tokens, NHD and HND, BF16 and FP8 e4m3
// with quant types 0 and 1), bottom-right causal and optionally
// block-sparse. Run runs one call; Op is the registered op attn_prefill;
// Bench times issue 16's rows, named as HPC-Ops names them.
//
// # What runs
//
// Prefill takes q [T, Hq, 128] with varlen requests (cu_seqlens_q), the
// paged caches, page table and FP8 scales (q scale per (token, q head)),
// and kv_lens counting the new tokens; query i of request b sees keys j <=
// L[b] - Lq[b] + i. It returns o [T, Hq, 128] and the natural-log LSE [T,
// Hq] (-inf, with o = 0, for a row that sees no key). One kernel,
// attn_prefill_bf16 or attn_prefill_fp8 (or their _k128 forms), over the
// grid (cdiv(max Lq, 128), Hq, B) ((Hq, cdiv(max Lq, 128), B) for
// attn_prefill_bf16_k128: every head's heaviest tile first): one CTA per
// (128-row q tile, q head), the heaviest (last) q tiles first; the GQA
// group's heads share K/V through L2, not shared memory. A producer warp
// stages the page-table row in shared memory (64 ids at a time) and
// TMA-loads each page's K, then its V, into a ring of 256/page stages (the
// one-page kernels; two stages of 128 keys for the _k128 ones, released by
// K and V apart) with separate full barriers and an empty barrier per
// stage; two consumer warpgroups (rows 0-63 and 64-127) run S = Q K^T
// (both operands in shared memory, K K-major), the base-2 online softmax
// and O += P V (P in registers). Pages past the tile's causal limit are
// never loaded, only the diagonal pages are masked, and V rows past L are
// zeroed in shared memory before the product (unread slots may hold NaN).
//
// FP8: e4m3 QK, each V page transposed in shared memory
// (ldmatrix.trans/prmt/stmatrix) by a transposer warpgroup into a ring the
// consumers wait on (vtfull), P moved from the QK accumulator to PV's
// register a by warp shuffles and scaled by 256; pages of 16 run PV in
// bf16 (e4m3 wgmma needs K = 32). In the one-page kernels each page's PV
// runs on under the next page's K wait and QK (BF16 and FP8).
//
// FP8 walks 128 keys a step by default for pages of 64 (Params.KeyStep
// 128, attn_prefill_fp8_k128; any page size takes it): the step's
// 128/page pages land in the slots of one ring stage (two stages of K, and
// two of V and V^T), read as one [128, 128] shared view (reshape) by one
// m64n128 QK^T per k step, the softmax runs over 128 columns, the
// transposer writes the step's V^T [128, 128] and PV is m64n128 over 128
// keys; the last step's missing pages repeat the last page, hidden by the
// causal mask and zeroed past L; quant-0 K scales are staged in shared
// memory by the producer. KeyStep = the page keeps one page a step
// (attn_prefill_fp8), the default for pages of 16 and 32.
//
// BF16 takes KeyStep 128 by default for pages of 64
// (attn_prefill_bf16_k128, faster than one page a step on the H200,
// docs/perf.md): the step's two pages land in two slots of a stage (two
// stages), in 64-column halves, so that each half of both pages is one
// [128, 64] operand: one m64n128 QK^T a step chained over the halves, two
// register-A m64n64 PV wgmmas (one per half of V), and, as in
// attn_prefill_fp8_k128, two consumer copies taking turns on the tensor
// cores.
//
// Block-sparse (Inputs.BlockMask, block_mask.npy uint8 [B, Hq, cdiv(max
// Lq, 128), cdiv(max L, 128)], every kernel; MASK 1): before anything
// loads, the CTA compacts the active 128-key tiles of its q tile up to the
// causal limit into a list in shared memory (prefix_count of the mask row,
// a masked store through local_ptr, the count from sum), and the producer
// and consumers walk the list's pages (128/page per tile); the diagonal
// tile keeps its causal mask. No tile is forced on; a row with no visible
// key gives o 0 and lse -inf.
//
// `tlec op attn_prefill` runs it on issue 16's files, `tlec bench
// attn_prefill` on its 39 bench rows (BenchRows).
//
// # Tests
//
// Interpreter tests cover pages 16/32/64, NHD/HND, G 4/8, quant types 0/1,
// Lq = 1, Lq = L, prefixes, Lq past one tile, masks, both key steps
// (TestPrefillKeyStep, TestPrefillBF16KeyStep: odd page counts, lengths
// off 128 and off the page), against the float64 reference of package
// pagedtest; TestPrefillGPU adds the (512, 4096) shape on a GPU, FP8 and
// BF16 at both key steps.
//
// # Not done yet (TODO)
//
// docs/perf.md has the figures against HPC-Ops and cuDNN.
//
//   - BF16 causal self-attention at cuDNN's speed (the unmet target).
//   - FP8 quant 0's masked rows, behind HPC-Ops': the masked rows gain
//     less over their dense rows than HPC-Ops' do; Nsight Compute had the
//     transposer waiting for V on the masked rows, V's latency from memory
//     reaching the consumers through its hop. HPC-Ops' arrangement (each
//     consumer copy transposing V itself, V's stage back at once) ran
//     slower on the long rows and was dropped: the whole tile's transpose
//     on each copy's path between its tensor-core turns costs more than
//     the hop; HPC-Ops interleaves it with the PV product, which needs P
//     sliced along K.
//   - BF16 pages of 16 and 32 still run m64nPAGEk16 products and a
//     softmax step per page (reshape cannot merge the slots of a bf16
//     D = 128 buffer: rows of 256 bytes are cut into two 64-column swizzle
//     blocks, stored one after the other per slot).
//   - BF16 ping-pong between the two consumer warpgroups (tried: no gain;
//     FP8 runs it), and the persistent grid for many q tiles.
//   - The unpaged self-attention entry point: the bench's self-attention
//     rows go through identity page tables.
package prefill

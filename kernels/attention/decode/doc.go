// Package decode is paged decode attention written in .tle (decode.tle)
// and driven from Go: Sq = 1..4 query tokens per request (MTP: query s of
// request b sees keys j <= L[b] - Sq + s) against the paged KV cache of
// package paged (head dim 128, GQA groups of 4 and 8, pages of 16, 32 and
// 64 tokens, NHD and HND, BF16 and FP8 e4m3 with quant types 0 and 1).
// Run runs one call; a Runner keeps a shape's launches prepared on a GPU
// and replays a step as a CUDA graph (Runner.Capture); Op is the
// registered op attn_decode; Bench times the spec's workloads. The
// interface is ../shared/specs/attention.md's.
//
// # What runs
//
// Decode is two kernels: a decode kernel over the grid (pieces, Hkv), then
// attn_combine over the B*Sq*Hq output rows, launched as a programmatic
// dependent launch by a Runner (it starts while the decode grid drains and
// waits for its writes). With pages of 64 the decode grid can run in
// clusters (opt-in, Params.Cluster) that merge the pieces of a request
// they hold and finish the requests they hold whole, leaving the combine
// only the rest.
//
//   - Two schedules share the requests' cdiv(L[b], 64) tiles among the
//     decode programs, each computed by every program from kv_lens on the
//     GPU inside the call (span in decode.tle), so a CUDA graph of the
//     call replays correctly as lengths change. The fixed split cuts each
//     request into pieces of Chunk tiles (ChooseChunk, planned on the
//     host from the lengths; the kernels lengthen the pieces when
//     lengths rewritten in place no longer fit the programs), one program
//     per piece and kv head, the pieces numbered densely. The dynamic
//     schedule (Dims.Dynamic; pages of 64, CL 1) runs a persistent grid
//     of SMs x CTAs / Hkv programs per kv head, independent of the
//     lengths: the tiles of all requests laid end to end are dealt out
//     max(cdiv(T, P), MinChunk) a program, so a program may finish one
//     request and go on with the next (the producer's ring runs on across
//     them) and one long request beside short ones fills every slot.
//     ChooseSchedule (Params.Schedule, tlec bench attn_decode --schedule)
//     takes the dynamic schedule when the fixed split would take more
//     than one wave of the slots with lengths that differ, and the fixed
//     split otherwise, which measured faster where it fits in one wave
//     (docs/perf.md). The slots are the device's SMs (Params.SMs,
//     DeviceSMs) times the programs resident on each (Dims.CTAs).
//   - The group's G*Sq query rows, padded to N (8, 16 or 32: the next power
//     of two, as a tile's extent must be; G*Sq = 12 and 24 run as 16 and
//     32), are wgmma's N and 64 KV tokens its M: S^T = K Q^T [64, N] and
//     O^T = V^T P^T [128, N], so no query row is padded to 64 (m64nNk16 for
//     bf16, m64nNk32 for e4m3).
//   - Pages of 64 tokens (attn_decode_bf16, attn_decode_fp8): a producer
//     warp stages the page table in shared memory and TMA-loads each
//     tile's K and V pages (one [1, 1, 64, 128] box of a rank-4 descriptor
//     over [blocks, heads, tokens, dim] each; NHD and HND differ only in
//     the strides) into a ring of stages, K and V on separate barriers; a
//     consumer warpgroup waits per stage, runs S^T = K Q^T with K from its
//     stage as wgmma's shared a and Q staged once as b, the online
//     softmax, and O^T = V^T P^T with V^T read from the V stage (bf16:
//     transposed by wgmma; fp8: ldmatrix.trans + prmt straight into
//     wgmma's register a) and P^T staged in a small buffer, and hands the
//     stage back. Params.CTAs programs share an SM (3 for N = 8, 2
//     beyond; fewer where two stages each do not fit): the CTA is the
//     consumer warpgroup and the producer warp (5 warps, no setmaxnreg),
//     its ring cut to the SM's share (stagesShared), and the split policy
//     fills CTAs x SMs program slots; CTAs 1 is one program an SM with
//     setmaxnreg and StagesBF16 / StagesFP8 stages.
//   - Pages of 16 and 32 (_paged): the same producer and consumer, the
//     tile's 64/page pages in the slots of its stage, which the consumer
//     reads into registers (register-A wgmma) and waits for each product.
//   - Online softmax in base 2 (c = scale log2 e), keys past a row's limit
//     replaced by -1e30 and their probabilities by 0, V rows past L zeroed:
//     slots past a request's length may hold anything (NaN) and never reach
//     a sum.
//   - FP8: e4m3 wgmma for both products, P scaled by 256 before its e4m3
//     cast, each tile's PV into a fresh accumulator added in f32.
//   - A page-64 program that saw all of a request's tiles writes its o and
//     lse itself; otherwise (and always for the paged kernels) it writes
//     its partial O and base-2 LSE to a workspace (under the dynamic
//     schedule two slots a program: its first and its last request may
//     both run on in a neighbour); attn_combine merges a row's partials
//     with weights exp2(LSE_c - max LSE), up to 64 at a time
//     (combinePieces) with a running max, and returns at once for the rows
//     the decode grid finished.
//   - The cluster merge (pages of 64, Dims.CL 2, 4 or 8): CL consecutive
//     decode programs form a thread-block cluster (the grid padded to whole
//     clusters; padding programs idle but reach the barriers). A consumer
//     keeps its partial in its own shared memory; after the roles,
//     distributed_barrier, and the leader of each segment (the pieces of
//     one request in the cluster: the request's first piece, or the
//     cluster's first program) merges its peers' partials through remote
//     with the combine's weights. A request whose pieces all lie in the
//     cluster is finished there (o and lse written by the decode grid; its
//     combine rows return at once, before their grid_dependency_wait, but
//     row 0, which keeps the combine from completing before the decode
//     grid); otherwise the leader writes the segment's merged partial to
//     its workspace slot and attn_combine merges the request's leader
//     slots (its first piece and each cluster base past it: 1 +
//     cdiv(pieces - 1, CL) of them). A second distributed_barrier keeps
//     each CTA's shared memory alive until its leader has read it. The
//     kernels run no setmaxnreg with CL > 1 (the merge runs on every
//     warp), and their shared memory is no larger than CL 1's (the
//     partial's buffer replaces the epilogue's layout scratch; no stage is
//     lost at any N). ChooseCluster picks CL: the smallest power of two, at
//     most 8, whose clusters each hold every piece of the requests they
//     touch, so that the cluster merge finishes every request and the
//     combine has nothing to merge; 1 when no such size exists (a request
//     of more than 8 pieces, pieces straddling a cluster's edge), when
//     every request is one piece, for the paged kernels, and when the
//     padding would cost a wave of the SMs x CTAs slots: a merge that
//     leaves partials to the combine measured no faster than CL 1, one
//     that finishes every request faster (docs/perf.md). Clusters are
//     placed whole on a GPC, so fewer of them may be resident than slots /
//     CL: a Runner asks the driver (cuOccupancyMaxActiveClusters) and
//     falls back to CL 1 when a policy-chosen CL's clusters would take
//     more waves than the programs (a smaller CL would no longer finish
//     every request). The merge is opt-in: Params.Cluster (the op's
//     "cluster", tlec bench attn_decode --cluster) sets CL, ClusterAuto
//     (-1) asks for the policy's, 0 (the default) is 1. It is correct on
//     the H200 (every decode test passes with CL 2, 4 and 8), but
//     compute-sanitizer's racecheck reports hazards between a CTA's shared
//     stores and reads of the same bytes across the role join and
//     barrier.cluster, which are not yet explained: the interpreter's race
//     check (runtime/interp/race.go) finds none in the kernel's tile
//     program (TestDecodeCluster), and every pair the SASS names has a
//     CTA-wide BAR.SYNC 0 between its write and its read, so they look
//     like racecheck's model of the cluster kernel rather than a missing
//     barrier (docs/perf.md). It runs with the fixed split only (the
//     dynamic schedule is CL 1).
//
// The outputs are o [B*Sq, Hq, 128] (bf16 values) and lse [B*Sq, Hq], the
// log-sum-exp of the scaled scores in natural log (the workspace's partial
// LSEs are base 2).
//
// # Tests
//
// go test ./kernels/attention/decode runs every dtype x page x layout x
// group x Sq combination on the interpreter against a float64 reference
// from gathered pages (package pagedtest), and on a GPU when one is
// present; the GPU-only tests (a 128k request, the Runner) skip without
// one. On the GPU host: CGO_ENABLED=0 go test -c -o .gpu/decode.test
// ./kernels/attention/decode, then (cd kernels/attention/decode &&
// TLE_REQUIRE_GPU=1 ../../../.gpu/decode.test -test.v).
//
// # Not done yet (TODO)
//
//   - The cluster merge's racecheck report (hazards between a CTA's
//     shared stores and reads with a BAR.SYNC 0 between them), which keeps
//     the merge opt-in; the merge under the dynamic schedule; and a piece
//     plan that aligns requests to clusters (today a request's pieces
//     start wherever the dense numbering puts them, so uniform requests of
//     3 or 6 pieces straddle cluster boundaries and the policy gives 1).
//   - Pages of 16 and 32 from shared memory into wgmma: its shared a needs
//     one 64-row view of the tile's 64/page pages (a row-range view of a
//     shared buffer for TMA to land each page in), which the language
//     lacks, so the _paged consumer reads the tiles into registers, and
//     with the stage index a runtime value its loop spends more
//     instructions on addresses.
//   - P kept in registers (with tokens on M, P^T is the b operand, which
//     wgmma reads from shared memory only); more than one product in flight
//     (the consumer lets a tile's PV run on under the next tile's K wait
//     and scores, then waits for it: the softmax needs the scores).
//   - The copy rate on uniform_4096 and one_128k_31x4k, which decode
//     does not reach yet (docs/perf.md).
package decode

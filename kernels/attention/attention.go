// Package attention is paged decode attention written in .tle (decode.tle)
// and driven from Go: head dim 128, GQA groups of 4 and 8 (Hq = G * Hkv),
// pages of 16, 32 and 64 tokens, NHD and HND caches (the same kernel, the
// layout is in the TMA descriptors' strides), Sq = 1..4 query tokens per
// request (MTP: query s of request b sees keys j <= L[b] - Sq + s), BF16
// caches and FP8 (e4m3) caches with quant type 1 (q scale per (token, q
// head), K and V scales per tensor) or 0 (K scale per (token, kv head), V
// scale per kv head). The interface is ../shared/specs/attention.md's.
//
// # What runs
//
// Decode is two kernels: a decode kernel over the grid (pieces, Hkv), then
// attn_combine over the B*Sq*Hq output rows, launched as a programmatic
// dependent launch by a Runner (it starts while the decode grid drains and
// waits for its writes). With pages of 64 the decode grid can run in
// clusters (opt-in, DecodeParams.Cluster) that merge the pieces of a
// request they hold and finish the requests they hold whole, leaving the
// combine only the rest.
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
//     them) and one 128k request beside 31 of 4k fills every slot.
//     ChooseSchedule (DecodeParams.Schedule, tlec bench attn_decode
//     --schedule) takes the dynamic schedule when the fixed split would
//     take more than one wave of the slots with lengths that differ, and
//     the fixed split otherwise: on the spec's nine workloads, which it
//     fits in one wave, it measured 3-5 % faster (docs/perf.md runs 42-43).
//   - The group's G*Sq query rows, padded to N (8, 16 or 32: the next power
//     of two, as a tile's extent must be; G*Sq = 12 and 24 run as 16 and
//     32), are wgmma's N and 64 KV tokens its M: S^T = K Q^T [64, N] and
//     O^T = V^T P^T [128, N], so no query row is padded to 64 (m64nNk16 for
//     bf16, m64nNk32 for e4m3).
//   - Pages of 64 tokens (v2: attn_decode_bf16, attn_decode_fp8): a
//     producer warp stages the page table in shared memory and TMA-loads
//     each tile's K and V pages (one [1, 1, 64, 128] box of a rank-4
//     descriptor over [blocks, heads, tokens, dim] each; NHD and HND differ
//     only in the strides) into a ring of stages, K and V on separate
//     barriers; a consumer warpgroup waits per stage, runs S^T = K Q^T
//     with K from its stage as wgmma's shared a and Q staged once as b,
//     the online softmax, and O^T = V^T P^T with V^T read from the V stage
//     (bf16: transposed by wgmma; fp8: ldmatrix.trans + prmt straight into
//     wgmma's register a) and P^T staged in a small buffer, and hands the
//     stage back. DecodeParams.CTAs programs share an SM (3 for N = 8, 2
//     beyond; fewer where two stages each do not fit): the CTA is the
//     consumer warpgroup and the producer warp (5 warps, no
//     setmaxnreg), its ring cut to the SM's share (stagesShared), and the
//     split policy fills CTAs x SMs program slots; CTAs 1 is one program an
//     SM with setmaxnreg and StagesBF16 / StagesFP8 stages.
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
//     lse itself; otherwise (and always for the paged kernels) it
//     writes its partial O and base-2 LSE to a workspace (under the
//     dynamic schedule two slots a program: its first and its last
//     request may both run on in a neighbour); attn_combine merges a
//     row's partials with weights exp2(LSE_c - max LSE), up to 64 at a
//     time (combinePieces) with a running max, and returns at once for
//     the rows the decode grid finished.
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
//     every request is one piece, for the paged kernels, and when
//     the padding would cost a wave of the SMs x CTAs slots. A cluster
//     merge that leaves partials to the combine measured no faster than
//     CL 1 on the H200 (docs/perf.md run 30: skewed_extreme 11.9 against
//     11.4 us at CL 8, one_128k_31x4k FP8 28.1 against 27.5 at CL 8,
//     uniform_4096 42.7 against 41.9 at CL 2), one that finishes every
//     request faster (uniform_512 FP8 10.3 against 11.9 us at CL 4).
//     Clusters are placed whole on a GPC, so fewer of them may be resident
//     than slots / CL: a Runner asks the driver
//     (cuOccupancyMaxActiveClusters) and falls back to CL 1 when a
//     policy-chosen CL's clusters would take more waves than the programs
//     (a smaller CL would no longer finish every request).
//     The merge is opt-in: DecodeParams.Cluster (the op's "cluster", tlec
//     bench attn_decode --cluster) sets CL, ClusterAuto (-1) asks for the
//     policy's, 0 (the default) is 1. On the H200 it is correct (every
//     decode test passes with CL 2, 4 and 8), but compute-sanitizer's
//     racecheck reports hazards between a CTA's shared stores and reads
//     of the same bytes across the role join and barrier.cluster
//     (docs/perf.md runs 31 and 44), which are not yet explained: the
//     interpreter's race check (runtime/interp/race.go) finds none in the
//     kernel's tile program (TestDecodeCluster), and every pair the SASS
//     excerpt of run 44 names has a CTA-wide BAR.SYNC 0 between its write
//     and its read, so they look like racecheck's model of the cluster
//     kernel rather than a missing barrier. Under CUDA-graph timing the
//     merge measured no faster than CL 1 (run 39). It runs with the fixed
//     split only (the dynamic schedule is CL 1).
//
// The outputs are o [B*Sq, Hq, 128] (bf16 values) and lse [B*Sq, Hq], the
// log-sum-exp of the scaled scores in natural log (the workspace's partial
// LSEs are base 2).
//
// # Tests and measurements
//
// go test ./kernels/attention runs every dtype x page x layout x group x
// Sq combination on the interpreter (about 3 s) against a float64
// reference from gathered pages, and on a GPU when one is present; the
// GPU-only tests (a 128k request, the Runner) skip without one. On the GPU
// host: CGO_ENABLED=0 go test -c -o .gpu/attention.test ./kernels/attention,
// then (cd kernels/attention && TLE_REQUIRE_GPU=1 ../../.gpu/attention.test
// -test.v). tools/gpu-attn-decode.sh runs those tests (TEST=1), the
// sanitizers (SANITIZE=1), HPC-Ops' decode and prefill benches and `tlec
// bench attn_decode` / `attn_prefill` (PREFILL=1) in one session.
//
// # Not done yet (TODO)
//
//   - The cluster merge's racecheck report (docs/perf.md runs 31 and 44:
//     hazards between a CTA's shared stores and reads with a BAR.SYNC 0
//     between them), which keeps the merge opt-in; the merge under the
//     dynamic schedule; and a piece plan
//     that aligns requests to clusters (today a request's pieces start
//     wherever the dense numbering puts them, so uniform requests of 3 or
//     6 pieces straddle cluster boundaries and the policy gives 1).
//   - Pages of 16 and 32 from shared memory into wgmma: its shared a needs
//     one 64-row view of the tile's 64/page pages (a row-range view of a
//     shared buffer for TMA to land each page in), which the language
//     lacks, so the _paged consumer reads the tiles into registers, and
//     with the stage index a runtime value its loop spends about 60% more
//     instructions on addresses than v1's (2114 against 1339 for bf16 page
//     16, N = 8).
//   - P kept in registers (with tokens on M, P^T is the b operand, which
//     wgmma reads from shared memory only); more than one product in flight
//     (the v2 consumer lets a tile's PV run on under the next tile's K wait
//     and scores, then waits for it: the softmax needs the scores).
//   - The 3.8 TB/s aim on uniform_4096 and one_128k_31x4k: docs/perf.md
//     run 45 measured 3.26 and 3.22 TB/s (the speed targets of issue 15
//     are met there: BF16 Sq 1 1.202x HPC-Ops, min 1.040x; Sq 2 1.141x;
//     FP8 1.219x, which the stage fence added since costs about 1 %, run
//     46; the barrier ranges of run 49 cost decode 0.7-2 % more, so about
//     1.19x for BF16 Sq 1, a product of calls).
//
// # Prefill (prefill.tle, prefill.go, issue 16)
//
// Prefill takes q [T, Hq, 128] with varlen requests (cu_seqlens_q), the
// same paged caches, page table and FP8 scales (q scale per (token, q
// head)), and kv_lens counting the new tokens; query i of request b sees
// keys j <= L[b] - Lq[b] + i. It returns o [T, Hq, 128] and the natural-log
// LSE [T, Hq] (-inf, with o = 0, for a row that sees no key). One kernel,
// attn_prefill_bf16 or attn_prefill_fp8 (or their _k128 forms), over the grid (cdiv(max Lq, 128),
// Hq, B) ((Hq, cdiv(max Lq, 128), B) for attn_prefill_bf16_k128: every
// head's heaviest tile first): one CTA per (128-row q tile, q head), the
// heaviest (last) q tiles first; the GQA group's heads share K/V through
// L2, not shared memory. A producer warp stages the page-table row in
// shared memory (64 ids at a time) and TMA-loads each page's K, then its
// V, into a ring of 256/page stages (the one-page kernels; two stages of
// 128 keys for the _k128 ones, released by K and V apart) with separate
// full barriers and an empty barrier per stage; two
// consumer warpgroups (rows 0-63 and 64-127) run S = Q K^T (both operands
// in shared memory, K K-major), the base-2 online softmax and O += P V (P
// in registers). Pages past the tile's causal limit are never loaded, only
// the diagonal pages are masked, and V rows past L are zeroed in shared
// memory before the product (unread slots may hold NaN). FP8: e4m3 QK,
// each V page transposed in shared memory (ldmatrix.trans/prmt/stmatrix)
// by a transposer warpgroup into a ring the consumers wait on (vtfull), P
// moved from the QK accumulator to PV's register a by warp shuffles and
// scaled by 256; pages of 16 run PV in bf16 (e4m3 wgmma needs K = 32).
// In the one-page kernels each page's PV runs on under the next page's K
// wait and QK (BF16 and FP8). FP8 walks 128 keys a step by default for pages of 64
// (PrefillParams.KeyStep 128, attn_prefill_fp8_k128; any page size takes
// it): the step's 128/page pages land in the slots of one ring stage (two
// stages of K, and SV of V and V^T, 2 by default), read as one [128, 128]
// shared view (reshape) by one m64n128 QK^T per k step, the softmax runs
// over 128 columns, the transposer writes the step's V^T [128, 128] and PV
// is m64n128 over 128 keys; the last step's missing pages repeat the last page, hidden by the
// causal mask and zeroed past L; quant-0 K scales are staged in shared
// memory by the producer. KeyStep = the page keeps one page a step
// (attn_prefill_fp8), the default for pages of 16 and 32. BF16 takes
// KeyStep 128 by default for pages of 64
// (attn_prefill_bf16_k128; 7 % faster than one page a step on the H200,
// docs/perf.md run 28): the
// step's two pages land in two slots of a stage (two stages), in 64-column
// halves, so that each half of both pages is one [128, 64] operand: one
// m64n128 QK^T a step chained over the halves, two register-A m64n64 PV
// wgmmas (one per half of V), and attn_prefill_fp8_k128's two consumer
// copies taking turns on the tensor cores (docs/perf.md run 57).
// Block-sparse (PrefillInputs.BlockMask,
// block_mask.npy uint8 [B, Hq, cdiv(max Lq, 128), cdiv(max L, 128)], both
// paths; MASK 1): before anything loads, the CTA compacts the active
// 128-key tiles of its q tile up to the causal limit into a list in shared
// memory (prefix_count of the mask row, a masked store through local_ptr,
// the count from sum), and the producer and consumers walk the list's
// pages (128/page per tile); the diagonal tile keeps its causal mask. No
// tile is forced on; a row with no visible key gives o 0 and lse -inf.
// `tlec op attn_prefill` runs it on issue 16's files, `tlec bench
// attn_prefill` on its 39 bench rows (PrefillBenchRows, named as HPC-Ops
// names them). Interpreter tests cover pages 16/32/64, NHD/HND, G 4/8,
// quant types 0/1, Lq = 1, Lq = L, prefixes, Lq past one tile, masks,
// both key steps (TestPrefillKeyStep, TestPrefillBF16KeyStep:
// odd page counts, lengths off 128 and off the page); TestPrefillGPU adds
// the (512, 4096) shape on a GPU, FP8 and BF16 at both key steps.
//
// Not done yet for prefill (TODO; docs/perf.md run 55, HPC-Ops and torch
// in the same call, both benches on HPC-Ops' own block masks: FP8 1.147x
// HPC-Ops over the 24 configurations, 1.062x over the 16 at 512x4096 and
// 512x32768 (dense 1.140x, masked 0.989x); BF16 paged 1.266x / 1.437x;
// self-attention 0.779x / 0.808x / 0.864x cuDNN):
//
//   - BF16 causal self-attention at 1.0x cuDNN (the unmet target).
//   - FP8 quant 0's masked rows at 0.95x HPC-Ops: the masked rows gain
//     less over their dense rows than HPC-Ops' do (2.82x against 3.27x at
//     512x32768); Nsight Compute (run 48, before the transposer stopped
//     spilling) had the transposer waiting for V on the masked rows, V's
//     latency from memory reaching the consumers through its hop.
//     HPC-Ops' arrangement (each consumer copy transposing V itself,
//     V's stage back at once) ran 1.3-1.6x slower on the long rows
//     (docs/perf.md runs 51 and 53) and was dropped: the whole tile's
//     transpose on each copy's path between its tensor-core turns costs
//     more than the hop; HPC-Ops interleaves it with the PV product,
//     which needs P sliced along K.
//   - BF16 pages of 16 and 32 still run m64nPAGEk16 products and a
//     softmax step per page (reshape cannot merge the slots of a bf16
//     D = 128 buffer: rows of 256 bytes are cut into two 64-column swizzle
//     blocks, stored one after the other per slot).
//   - BF16 ping-pong between the two consumer warpgroups (tried: no gain,
//     docs/perf.md run 33; FP8 runs it), and the persistent grid for many
//     q tiles.
//   - The unpaged self-attention entry point: the bench's self-attention
//     rows go through identity page tables.
package attention

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// FS holds the .tle sources.
//
//go:embed *.tle
var FS embed.FS

// HeadDim is the only head dimension supported.
const HeadDim = 128

// Tile is the number of KV tokens per tile (wgmma's M).
const Tile = 64

// tableBlock is the number of page ids staged in shared memory at a time.
const tableBlock = 64

// MaxSplits bounds the number of splits of one (request, kv head).
const MaxSplits = 128

// Cache layouts (physical order of a page).
const (
	LayoutNHD = "nhd" // [blocks, page, Hkv, 128]
	LayoutHND = "hnd" // [blocks, Hkv, page, 128]
)

// Cache dtypes.
const (
	DTypeBF16 = "bf16"
	DTypeFP8  = "fp8"
)

// DecodeInputs are the tensors of one decode call, row-major in the shapes
// the spec gives. Float data is converted to the kernels' dtypes on the way
// in: bf16 for Q and the caches of a BF16 call (rounding to nearest even);
// for FP8, Q and the caches must hold values e4m3 represents exactly (the
// caches may hold NaN in slots no request reads), the scales are f32.
type DecodeInputs struct {
	// Q is [B*Sq, Hq, 128]: the Sq new tokens of request b are rows
	// b*Sq .. b*Sq+Sq-1.
	Q *tle.Tensor
	// KCache and VCache are [blocks, page, Hkv, 128] (nhd) or [blocks,
	// Hkv, page, 128] (hnd).
	KCache, VCache *tle.Tensor
	// BlockIDs holds B rows of one length (max blocks): token t of request
	// b is slot t % page of page BlockIDs[b][t / page]. Entries past a
	// request's pages are never read and may hold anything.
	BlockIDs [][]int64
	// KVLens are the KV lengths L[b] (they count the Sq new tokens).
	KVLens []int64
	// FP8 only: QScale [B*Sq, Hq]; KScale [1] (quant type 1) or one per
	// token and kv head in the cache's physical order ([blocks, page, Hkv]
	// for nhd, [blocks, Hkv, page] for hnd; quant type 0); VScale [1] (type
	// 1) or [Hkv] (type 0).
	QScale, KScale, VScale *tle.Tensor
}

// DecodeParams are the scalar arguments.
type DecodeParams struct {
	Layout string // LayoutNHD or LayoutHND
	DType  string // DTypeBF16 or DTypeFP8
	// QuantType is the FP8 scale layout, 0 or 1 (ignored for BF16).
	QuantType int
	// Sq is the number of query tokens per request, 1 to 4.
	Sq int
	// Scale multiplies q·k; 0 means the default 128^-0.5.
	Scale float64
	// Splits is the number of KV splits (pieces) of the longest request,
	// 1 to MaxSplits: every request is cut into pieces of cdiv(its longest
	// tiles, Splits) 64-token tiles, so shorter requests take fewer; 0
	// lets ChooseChunk pick the piece length.
	Splits int
	// SMs is the device's multiprocessor count the split policy fills
	// (0: the device's, DeviceSMs; Validate, which has no device, plans
	// for tle.H200, the GPU the interpreter's plans are made for). A
	// Runner's plan comes from Validate: give it DeviceSMs(g).
	SMs int
	// CTAs is the v2 kernel's programs resident per SM for pages of 64
	// (1 to MaxCTAs; 0: DefaultCTAs): one program per SM with setmaxnreg
	// and a deep ring, or several with the registers and shared memory
	// split between them (stagesShared) and the split policy filling
	// CTAs * SMs programs.
	CTAs int
	// Cluster is the v2 kernels' cluster size for pages of 64 (1, 2, 4 or
	// MaxCluster; ClusterAuto: ChooseCluster's; 0: 1): the pieces of one
	// request that land in one cluster of Cluster consecutive programs are
	// merged in distributed shared memory, only the rest by attn_combine.
	// Opt-in: compute-sanitizer's racecheck reports hazards on the merge
	// that are not yet explained (docs/perf.md runs 31 and 44). The paged
	// kernels run without clusters (1).
	Cluster int
	// Schedule is how the page-64 v2 kernels share the requests' tiles
	// among their programs: ScheduleFixed (every request cut into pieces
	// of one length, a program a piece), ScheduleDynamic (the tiles of all
	// requests dealt out evenly over a persistent grid on the GPU, a
	// program running over request boundaries) or ScheduleAuto (""), the
	// policy's (ChooseSchedule). The paged kernels and an explicit
	// Splits or Cluster take the fixed split.
	Schedule string
}

// Schedules (DecodeParams.Schedule).
const (
	ScheduleAuto    = ""
	ScheduleFixed   = "fixed"
	ScheduleDynamic = "dynamic"
)

// MaxCluster bounds DecodeParams.Cluster (a portable cluster size).
const MaxCluster = 8

// ClusterAuto as DecodeParams.Cluster asks for ChooseCluster's size.
const ClusterAuto = -1

// CheckCluster checks a DecodeParams.Cluster value: 0 (no clusters), 1,
// 2, 4, MaxCluster or ClusterAuto.
func CheckCluster(c int) error {
	if c != ClusterAuto && (c < 0 || c > MaxCluster || c&(c-1) != 0) {
		return argErr("cluster", "want 1, 2, 4 or %d CTAs a cluster (0: 1; %d: the policy's), got %d", MaxCluster, ClusterAuto, c)
	}
	return nil
}

// MaxCTAs bounds DecodeParams.CTAs.
const MaxCTAs = 4

// DefaultCTAs is DecodeParams.CTAs' default for 8 query rows (N = 8):
// three programs an SM (FP8 with four stages each, BF16 with two).
// Measured on the H200 against one (docs/perf.md run 19): geometric means
// over the nine workloads 0.943x -> 0.975x HPC-Ops for BF16 Sq 1, 0.640x
// -> 0.730x for FP8; a second program hides the first's per-tile latency
// (wgmma waits, softmax barriers) that one deep ring cannot. More rows (N
// 16 and 32) take two (defaultCTAs).
const DefaultCTAs = 3

// defaultCTAs is the programs per SM for d.N query rows: DefaultCTAs at N
// = 8, two beyond (at three, FP8's consumer spills under the register cap
// and its ring holds 3 stages: FP8 Sq 2 ran 4-18 % slower than at two,
// docs/perf.md run 42; BF16 fits only two).
func (d *Dims) defaultCTAs() int {
	if d.N > 8 {
		return 2
	}
	return DefaultCTAs
}

// DefaultScale is 128^-0.5.
var DefaultScale = 1 / math.Sqrt(HeadDim)

// DecodeOutputs are o [B*Sq, Hq, 128] (bf16 values) and the log-sum-exp
// [B*Sq, Hq] of the scaled scores, in natural log.
type DecodeOutputs struct {
	O   *tle.Tensor
	LSE *tle.Tensor
}

// Dims are the sizes of one call, derived by Validate.
type Dims struct {
	PagedDims
	Sq         int
	N          int // query rows per program: G*Sq rounded up to a power of two >= 8
	Splits     int
	Chunk      int  // tiles per piece (split) of a request
	Programs   int  // decode programs per kv head: the requests' pieces, sum_b cdiv(cdiv(L[b], 64), Chunk)
	CTAs       int  // programs per SM (pages of 64)
	CL         int  // the decode kernels' cluster size (pages of 64): 1, 2, 4 or 8 (0: 1)
	Dynamic    bool // the dynamic schedule (pages of 64, CL 1): Programs is the persistent grid, Chunk the fewest tiles a program takes
	clusterSet bool // CL was asked for (DecodeParams.Cluster), not the policy's
}

// ArgError is a bad argument: Arg names it (registry.ArgError, shared by
// every op package).
type ArgError = registry.ArgError

var argErr = registry.ArgErr

func checkTensor(name string, t *tle.Tensor, rank int, what string) error {
	if t == nil {
		return argErr(name, "missing (want %s)", what)
	}
	if len(t.Shape) != rank {
		return argErr(name, "want shape %s, got %v", what, t.Shape)
	}
	n := 1
	for _, d := range t.Shape {
		if d < 1 {
			return argErr(name, "dimensions must be positive, got shape %v", t.Shape)
		}
		if n > math.MaxInt32/d {
			return argErr(name, "shape %v is too large (more than 2^31 elements)", t.Shape)
		}
		n *= d
	}
	if n != len(t.Data) {
		return argErr(name, "shape %v holds %d elements but the data has %d", t.Shape, n, len(t.Data))
	}
	return nil
}

func checkShape(name string, t *tle.Tensor, what string, want ...int) error {
	if err := checkTensor(name, t, len(want), what); err != nil {
		return err
	}
	for i := range want {
		if t.Shape[i] != want[i] {
			return argErr(name, "want shape %s = %v, got %v", what, want, t.Shape)
		}
	}
	return nil
}

// Validate checks every argument and returns the sizes; nothing runs.
func Validate(in *DecodeInputs, p DecodeParams) (*Dims, error) {
	if in == nil {
		return nil, errors.New("attention: no inputs")
	}
	d := &Dims{Sq: p.Sq}
	if err := d.checkFormat(p.Layout, p.DType, p.QuantType, p.Scale); err != nil {
		return nil, err
	}
	if p.Sq < 1 || p.Sq > 4 {
		return nil, argErr("sq", "want 1 to 4 query tokens per request, got %d", p.Sq)
	}

	if err := checkTensor("q", in.Q, 3, "[B*Sq, Hq, 128]"); err != nil {
		return nil, err
	}
	if in.Q.Shape[2] != HeadDim {
		return nil, argErr("q", "head dim %d is unsupported: want 128 (shape %v)", in.Q.Shape[2], in.Q.Shape)
	}
	if in.Q.Shape[0]%p.Sq != 0 {
		return nil, argErr("q", "%d rows are not a whole number of requests of sq = %d tokens (shape %v)", in.Q.Shape[0], p.Sq, in.Q.Shape)
	}
	d.B, d.Hq = in.Q.Shape[0]/p.Sq, in.Q.Shape[1]

	if err := d.checkCaches(in.KCache, in.VCache, p.Layout); err != nil {
		return nil, err
	}
	d.N = padRows(d.G * d.Sq)

	if err := d.checkTable(in.BlockIDs, in.KVLens, "B = q rows / sq", func(int) int64 { return int64(p.Sq) }, "sq"); err != nil {
		return nil, err
	}
	if err := d.checkInputValues(in.Q, in.KCache, in.VCache, in.QScale, in.KScale, in.VScale, d.B*d.Sq, "[B*Sq, Hq]"); err != nil {
		return nil, err
	}

	d.CTAs = p.CTAs
	if p.CTAs < 0 || p.CTAs > MaxCTAs {
		return nil, argErr("ctas", "want 1 to %d programs per SM (0: %d for 8 query rows, 2 for more), got %d", MaxCTAs, DefaultCTAs, p.CTAs)
	}
	if p.Splits < 0 || p.Splits > MaxSplits {
		return nil, argErr("splits", "want 1 to %d (0: the policy's), got %d", MaxSplits, p.Splits)
	}
	if err := CheckCluster(p.Cluster); err != nil {
		return nil, err
	}
	if err := d.checkSchedule(p); err != nil {
		return nil, err
	}
	d.choosePieces(in.KVLens, p.Splits, p.SMs, p.Cluster, p.Schedule)
	if d.gridX() > tle.MaxGridX {
		return nil, argErr("splits", "%d pieces of %d tiles are more programs than a grid holds", d.Programs, d.Chunk)
	}
	if int64(d.Programs)*int64(d.Hkv)*int64(d.N)*HeadDim > math.MaxInt32 {
		return nil, argErr("splits", "the workspace of %d pieces x %d kv heads x %d rows exceeds 2^31 elements", d.Programs, d.Hkv, d.N)
	}
	return d, nil
}

// choosePieces settles the programs per SM (d.CTAs: 0 is DefaultCTAs;
// one for the paged kernels; fewer when their shared memory does
// not fit), cuts the requests of lengths lens into pieces (splits pieces
// of the longest request, or (0) the policy's ChooseChunk filling d.CTAs
// programs on each of sms SMs, 0: tle.H200's), sets the cluster size d.CL
// (cluster; ClusterAuto: ChooseCluster's; 0 and the paged
// kernels: 1) and, where schedule (or ChooseSchedule, for ScheduleAuto)
// asks for it, the dynamic schedule's persistent grid instead of the
// pieces.
func (d *Dims) choosePieces(lens []int64, splits, sms, cluster int, schedule string) {
	if d.CTAs == 0 {
		d.CTAs = d.defaultCTAs()
	}
	if d.Page != Tile {
		d.CTAs = 1 // one program an SM: those kernels keep their setmaxnreg split
	}
	if cluster > 1 || cluster == ClusterAuto {
		d.CL = MaxCluster // the merge's shared memory, until the size is known
	}
	d.fitCTAs()
	if sms <= 0 {
		sms = tle.H200.SMs
	}
	if splits == 0 {
		_, d.Chunk = ChooseChunk(d.B, d.Hkv, lens, sms*d.CTAs)
	} else {
		d.Chunk = chunkOf(lens, splits)
	}
	d.Splits, d.Programs = d.pieces(lens)
	switch {
	case d.Page != Tile:
		d.CL = 1
	case cluster > 0:
		d.CL, d.clusterSet = cluster, true
	case cluster == ClusterAuto:
		d.CL = ChooseCluster(d.Hkv, d.requestPieces(lens), sms*d.CTAs)
	default:
		d.CL = 1
	}
	if schedule == ScheduleAuto {
		schedule = ChooseSchedule(lens, d.Programs, d.Hkv, sms*d.CTAs)
	}
	if schedule == ScheduleDynamic && d.cluster() == 1 && splits == 0 && d.Page == Tile {
		d.Dynamic = true
		d.Programs = max(1, sms*d.CTAs/d.Hkv)
		d.Chunk = MinChunk
		d.Splits = d.dynamicSlots(lens)
	}
}

// schedule names d's schedule: ScheduleDynamic or ScheduleFixed.
func (d *Dims) schedule() string {
	if d.Dynamic {
		return ScheduleDynamic
	}
	return ScheduleFixed
}

// ChooseSchedule is the schedule policy of the page-64 v2 kernels for
// requests of lengths lens over hkv kv heads, whose fixed split (ChooseChunk)
// takes programs programs per kv head, on slots program slots (SMs x
// CTAs): the dynamic schedule when the fixed split's programs take more
// than one wave of the slots (more requests than slots: a request a
// program) and the lengths differ, so that short and long requests no
// longer queue in waves; the fixed split otherwise. Measured on the H200
// (docs/perf.md runs 42-43), the fixed split was 3-5 % faster over the nine
// workloads of the spec, every one of which it fits in one wave (programs
// crossing requests cost a second Q load and epilogue, and a long
// request's more numerous partials a longer combine), and the dynamic
// schedule 4-10 % faster on large_mix_512 (512 requests of 64 to 4096
// tokens over 396 slots).
func ChooseSchedule(lens []int64, programs, hkv, slots int) string {
	if programs*hkv <= slots {
		return ScheduleFixed
	}
	for _, L := range lens {
		if L != lens[0] {
			return ScheduleDynamic
		}
	}
	return ScheduleFixed
}

// dynamicSlots bounds the partials attn_combine merges for one request
// under the dynamic schedule of lengths lens: the programs its tiles run
// over, at most cdiv(its tiles, per) + 1 for per tiles a program.
func (d *Dims) dynamicSlots(lens []int64) int {
	var total, most int64
	for _, L := range lens {
		t := (L + Tile - 1) / Tile
		total += t
		most = max(most, t)
	}
	per := max((total+int64(d.Programs)-1)/int64(d.Programs), int64(d.Chunk))
	return int((most+per-1)/per) + 1
}

// CheckSchedule checks a DecodeParams.Schedule value beside the Cluster
// it comes with: the dynamic schedule runs without the cluster merge.
func CheckSchedule(schedule string, cluster int) error {
	switch schedule {
	case ScheduleAuto, ScheduleFixed:
		return nil
	case ScheduleDynamic:
	default:
		return argErr("schedule", "want %q, %q or \"\" (the policy's), got %q", ScheduleFixed, ScheduleDynamic, schedule)
	}
	if cluster != 0 && cluster != 1 {
		return argErr("schedule", "the dynamic schedule runs without the cluster merge (cluster %d)", cluster)
	}
	return nil
}

// checkSchedule checks DecodeParams.Schedule against the call: the
// dynamic schedule runs on the page-64 v2 kernels without fixed splits.
func (d *Dims) checkSchedule(p DecodeParams) error {
	if err := CheckSchedule(p.Schedule, p.Cluster); err != nil || p.Schedule != ScheduleDynamic {
		return err
	}
	switch {
	case d.Page != Tile:
		return argErr("schedule", "the dynamic schedule runs on the kernels for pages of %d tokens, not %d", Tile, d.Page)
	case p.Splits != 0:
		return argErr("schedule", "the dynamic schedule takes no fixed splits (splits %d)", p.Splits)
	}
	return nil
}

// ChooseCluster is the cluster policy of the page-64 v2 kernels: for
// requests of cnts pieces each (per kv head, numbered densely), the
// smallest power of two CL at most MaxCluster such that every request with
// pieces has them all in one cluster of CL programs (the merge then
// finishes it in distributed shared memory: no partial of it reaches the
// combine), without padding the grid to whole clusters into more waves of
// the slots program slots (SMs x CTAs) than the pieces take alone; 1 when
// there is none or every request is one piece (nothing to merge, and the
// kernels take request b in program b). A merge that leaves partials to
// the combine measured no faster than none (docs/perf.md run 30). The
// clusters' placement (a cluster's CTAs on one GPC) may leave fewer
// clusters resident than slots / CL; a Runner checks it with the driver
// (Prepared.MaxActiveClusters) and falls back to CL 1.
func ChooseCluster(hkv int, cnts []int, slots int) int {
	programs := 0
	for _, n := range cnts {
		programs += n
	}
	if programs <= len(cnts) {
		return 1
	}
	waves := func(p int) int { return (p*hkv + slots - 1) / max(slots, 1) }
	for cl := 2; cl <= MaxCluster; cl *= 2 {
		if waves((programs+cl-1)/cl*cl) > waves(programs) {
			break
		}
		if finishesAll(cnts, cl) {
			return cl
		}
	}
	return 1
}

// finishesAll reports whether every request of cnts pieces (numbered
// densely from 0) that has any lies in one cluster of cl programs.
func finishesAll(cnts []int, cl int) bool {
	start := 0
	for _, n := range cnts {
		if n > 0 && start/cl != (start+n-1)/cl {
			return false
		}
		start += n
	}
	return true
}

// padRows is the N of G*Sq query rows: the next power of two of at least 8
// (arange, and so a tile's extent, must be a power of two).
func padRows(rows int) int {
	n := 8
	for n < rows {
		n *= 2
	}
	return n
}

// checkValues checks that t's values are finite (fp8: e4m3 values; a cache
// may also hold NaN, which only unread slots can hold usefully).
func checkValues(name string, t *tle.Tensor, fp8, nanOK bool) error {
	for i, x := range t.Data {
		if math.IsNaN(x) {
			if nanOK {
				continue
			}
			return argErr(name, "element %d is NaN", i)
		}
		if math.IsInf(x, 0) {
			return argErr(name, "element %d is %v; values must be finite", i, x)
		}
		if fp8 && ir.F8E4M3.Round(x) != x {
			return argErr(name, "element %d = %v is not an e4m3 value (fp8 inputs are given as the floats e4m3 represents exactly)", i, x)
		}
	}
	return nil
}

// ChooseSplits is the fixed split-K policy: the number of splits per
// (request, kv head) of ChooseChunk.
func ChooseSplits(b, hkv int, lens []int64, sms int) int {
	s, _ := ChooseChunk(b, hkv, lens, sms)
	return s
}

// MinChunk is the fewest 64-token tiles a split takes under the policy:
// a split costs its partial output (G*Sq rows of 512 bytes, written and
// read back by the combine) and a program's prologue, and two tiles are
// 64 KB (BF16) of K and V.
const MinChunk = 2

// ChooseChunk is the fixed split-K policy: splits per (request, kv head)
// and tiles per split (chunk) so that the programs that own tiles fit in
// one wave of sms program slots (0: tle.H200's SMs; Validate passes the
// SMs times the programs resident on each, Dims.CTAs).
//
// A decode step is memory-bound: its floor is K+V bytes over the copy
// rate, reached when every SM streams its share with enough bytes in
// flight (the stages of its programs). So the tiles of
// all requests, T = Hkv * sum_b cdiv(L[b], 64), are cut into pieces of
// chunk tiles, the smallest chunk >= max(MinChunk, cdiv(T, sms)) for
// which the pieces, Hkv * sum_b cdiv(tiles_b, chunk), number at most sms
// (one wave: a second wave would double the step's critical path), or the
// longest request's tiles when B*Hkv programs exceed sms already. A
// request of tiles_b tiles then takes cdiv(tiles_b, chunk) of the splits,
// the longest cdiv(maxTiles, chunk) = splits (at most MaxSplits: a longer
// chunk when that cap binds); the others' splits past their tiles return
// at once and the combine skips them. Balancing tiles across requests
// rather than cutting each into pieces of one size is the dynamic
// schedule's job (ChooseSchedule).
func ChooseChunk(b, hkv int, lens []int64, sms int) (splits, chunk int) {
	if sms <= 0 {
		sms = tle.H200.SMs
	}
	var total, maxTiles int64
	tiles := make([]int64, len(lens))
	for i, L := range lens {
		tiles[i] = (L + Tile - 1) / Tile
		total += tiles[i]
		maxTiles = max(maxTiles, tiles[i])
	}
	if maxTiles == 0 {
		return 1, 1
	}
	pieces := func(w int64) int64 {
		var n int64
		for _, t := range tiles {
			n += (t + w - 1) / w
		}
		return n * int64(hkv)
	}
	lo := max(MinChunk, (int64(hkv)*total+int64(sms)-1)/int64(sms))
	hi := max(lo, maxTiles)
	for lo < hi { // the smallest chunk in [lo, hi] whose pieces fit in sms (hi when none does)
		mid := (lo + hi) / 2
		if pieces(mid) <= int64(sms) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	w := min(lo, maxTiles)
	s := min((maxTiles+w-1)/w, MaxSplits)
	w = max(w, (maxTiles+s-1)/s)
	return int(s), int(w)
}

// pieces are the most pieces of one request (its splits) and the pieces
// of all requests (the decode programs per kv head) at d.Chunk tiles a
// piece.
func (d *Dims) pieces(lens []int64) (splits, programs int) {
	for _, n := range d.requestPieces(lens) {
		splits = max(splits, n)
		programs += n
	}
	return splits, programs
}

// requestPieces is each request's pieces of d.Chunk tiles.
func (d *Dims) requestPieces(lens []int64) []int {
	cnts := make([]int, len(lens))
	for b, L := range lens {
		cnts[b] = int(((L+Tile-1)/Tile + int64(d.Chunk) - 1) / int64(d.Chunk))
	}
	return cnts
}

// chunkArg is the kernels' CHUNK: d.Chunk, or 0 when every request is one
// piece (program b takes request b: the kernels skip the plan's prefix
// sum over the lengths, which a large batch would make costly).
func (d *Dims) chunkArg() int {
	if d.Programs == d.B && !d.Dynamic {
		return 0
	}
	return d.Chunk
}

// cluster is the decode kernels' cluster size, d.CL (1 when unset).
func (d *Dims) cluster() int { return max(d.CL, 1) }

// gridX is the decode grid's x extent: the programs padded to a whole
// number of clusters (the padding programs idle).
func (d *Dims) gridX() int {
	cl := d.cluster()
	return (d.Programs + cl - 1) / cl * cl
}

// hasOutputs reports whether the decode kernel of sizes d takes o and lse
// (the kernels for pages of 64, whose cluster merge may write them).
func (d *Dims) hasOutputs() bool { return d.Page == Tile }

// WorkspaceRows is the number of partial rows (of 128 f32 and one LSE)
// the decode programs write: Programs x Hkv x N, twice that under the
// dynamic schedule (a program's first and last request may each be
// unfinished).
func (d *Dims) WorkspaceRows() int {
	if d.Dynamic {
		return 2 * d.Programs * d.Hkv * d.N
	}
	return d.Programs * d.Hkv * d.N
}

// pow2 is the least power of two >= max(n, lo).
func pow2(n, lo int) int {
	p := lo
	for p < n {
		p <<= 1
	}
	return p
}

// chunkOf is the tiles per split of an explicit number of splits: the
// longest request's tiles cut into that many pieces.
func chunkOf(lens []int64, splits int) int {
	var maxTiles int64
	for _, L := range lens {
		maxTiles = max(maxTiles, (L+Tile-1)/Tile)
	}
	return int(max(1, (maxTiles+int64(splits)-1)/int64(splits)))
}

// kernelFile is one .tle file of FS, parsed and checked once per process
// on first use, and its kernels by name.
type kernelFile struct {
	name    string
	once    sync.Once
	err     error
	kernels map[string]*tle.Kernel
}

// get is the file's kernel name.
func (f *kernelFile) get(name string) (*tle.Kernel, error) {
	f.once.Do(func() {
		prog, err := tle.Load(FS, f.name)
		if err != nil {
			f.err = err
			return
		}
		f.kernels = map[string]*tle.Kernel{}
		for _, n := range prog.Kernels() {
			k, err := prog.Kernel(n)
			if err != nil {
				f.err = err
				return
			}
			f.kernels[n] = k
		}
	})
	if f.err != nil {
		return nil, f.err
	}
	k, ok := f.kernels[name]
	if !ok {
		return nil, fmt.Errorf("attention: no kernel %s in %s", name, f.name)
	}
	return k, nil
}

var decodeFile = &kernelFile{name: "decode.tle"}

// Kernel is one kernel of decode.tle (attn_decode_bf16, attn_decode_fp8,
// their _paged forms or attn_combine), parsed and checked once per
// process.
func Kernel(name string) (*tle.Kernel, error) { return decodeFile.get(name) }

// Launches are the two kernels' specialisations and grids for sizes d.
type Launches struct {
	Decode, Combine            string // kernel names
	DecodeDefines, CombineDefs map[string]string
	DecodeGrid, CombineGrid    [3]int
	// MinCTAsPerSM is the decode kernel's minctasm (0: none): the CTAs
	// per SM its registers must allow.
	MinCTAsPerSM int
}

// kernels are the decode and combine kernels the launches name.
func (l Launches) kernels() (decode, combine *tle.Kernel, err error) {
	if decode, err = Kernel(l.Decode); err != nil {
		return nil, nil, err
	}
	if combine, err = Kernel(l.Combine); err != nil {
		return nil, nil, err
	}
	return decode, combine, nil
}

// DecodeOptions and CombineOptions are the kernels' compile options.
func (l Launches) DecodeOptions() tle.CompileOptions {
	return tle.CompileOptions{Defines: l.DecodeDefines, NumWarps: NumWarps, MinCTAsPerSM: l.MinCTAsPerSM}
}

func (l Launches) CombineOptions() tle.CompileOptions {
	return tle.CompileOptions{Defines: l.CombineDefs, NumWarps: NumWarps}
}

// NumWarps is the warps per program of every kernel (one warpgroup).
const NumWarps = 4

// Stages of K and V the v2 kernels' producer runs ahead of the consumer:
// BF16 32 KB a stage (192 KB in all; 160 KB for N = 32 query rows, whose
// larger Q, P and epilogue scratch leave room for 5), FP8 16 KB (128 KB,
// with the 8 KB transposed V beside them); each SM holds one program, so
// these are the bytes it keeps in flight.
const (
	StagesBF16 = 6
	StagesFP8  = 8
)

// Stages is the ring depth of the v2 kernel of sizes d. The paged form
// (pages of 16 and 32) holds two fewer BF16 stages: its register reads of
// the tiles need about 78 KB of layout-conversion scratch beside them.
// With several CTAs an SM (d.CTAs > 1, pages of 64) the SM's shared memory
// is split between them: stagesShared.
func (d *Dims) Stages() int {
	if d.CTAs > 1 && d.Page == Tile {
		return d.stagesShared()
	}
	s := StagesBF16
	switch {
	case d.FP8:
		return StagesFP8
	case d.N > 16:
		s--
	}
	if d.Page != Tile {
		s -= 2
	}
	return s
}

// stagesShared is the ring depth of a page-64 v2 program when d.CTAs of
// them share an SM: the stages (32 KB BF16, 16 KB FP8 of K and V) that fit
// beside the program's other shared memory (smemOther) in its share of
// MaxSMSmem, at most StagesFP8; 0 when not even 2 fit (fitCTAs then
// lowers d.CTAs).
func (d *Dims) stagesShared() int {
	stage := 2 * Tile * HeadDim * 2
	if d.FP8 {
		stage /= 2
	}
	share := MaxSMSmem/d.CTAs - ctaReserved
	s := min(StagesFP8, (share-d.smemOther())/stage)
	if s < 2 {
		return 0
	}
	return s
}

// fitCTAs lowers d.CTAs until two stages of the ring fit each program's
// share of the SM (one program always fits).
func (d *Dims) fitCTAs() {
	for d.CTAs > 1 && d.stagesShared() == 0 {
		d.CTAs--
	}
}

// MaxSMSmem is an H100/H200 SM's shared memory, of which the driver keeps
// ctaReserved bytes per resident CTA.
const (
	MaxSMSmem   = 228 * 1024
	ctaReserved = 1024
)

// smemOther bounds the shared memory of a page-64 v2 program besides its
// ring: Q, P, the page table, the reductions' and the epilogue's layout
// scratch (shared within the consumer role), growing with the query rows
// N, and with the cluster merge (CL > 1) its partial o and LSE. The
// constants are the compiled kernels' figures rounded up;
// TestDecodeSmemFits checks them against every N, both schedules and the
// merge.
func (d *Dims) smemOther() int {
	switch {
	case d.cluster() > 1 && d.FP8:
		return 2304 + 992*d.N
	case d.cluster() > 1:
		return 2304 + 1184*d.N
	case d.FP8:
		return 2560 + 736*d.N
	}
	return 2560 + 928*d.N
}

// maxCombinePieces bounds how many partials the combine merges at a time
// (SP2: [SP2, 128] f32 in registers, 64 a thread at 64).
const maxCombinePieces = 64

// combinePieces is the combine's SP2 for sizes d: the longest request's
// pieces (its splits) rounded up to a power of two, 4 to
// maxCombinePieces, so that a long request's partials are merged in one
// or two steps of independent loads rather than a chain of
// memory-latency-bound steps of 16.
func (d *Dims) combinePieces() int {
	return min(pow2(d.leaderSlots(), 4), maxCombinePieces)
}

// leaderSlots bounds the partials attn_combine merges for one request:
// its pieces (at most d.Splits) with CL = 1; with clusters the leader
// slots of the cluster merge, the first piece and each cluster base past
// it, at most 1 + cdiv(Splits - 1, CL).
func (d *Dims) leaderSlots() int {
	cl := d.cluster()
	if cl == 1 || d.Splits <= 1 {
		return d.Splits
	}
	return 1 + (d.Splits-1+cl-1)/cl
}

// Plan is the launches of validated sizes d: the kernels attn_decode_bf16
// and attn_decode_fp8 for pages of 64 tokens, their paged form (_paged)
// for pages of 16 and 32.
func Plan(d *Dims) Launches {
	it := strconv.Itoa
	name := "attn_decode_bf16"
	bp := it(64) // few specialisations (one for B <= 64): requests past B are masked
	if d.chunkArg() > 0 || d.Dynamic {
		bp = it(pow2(d.B, 64))
	}
	defs := map[string]string{"G": it(d.G), "SQ": it(d.Sq), "N": it(d.N), "TB": it(tableBlock), "BP": bp}
	if d.FP8 {
		name = "attn_decode_fp8"
		defs["QUANT"] = it(d.Quant)
	}
	if d.Page != Tile {
		name += "_paged"
		defs["PAGE"] = it(d.Page)
	}
	minCTAs := 0
	stages := "S"
	if d.FP8 {
		stages = "SF"
	}
	defs[stages] = it(d.Stages())
	if d.Page == Tile {
		// one CTA an SM: setmaxnreg gives the consumer most of the register
		// file; several: no setmaxnreg, and ptxas caps the registers so that
		// d.CTAs fit (minctasm). A cluster (CL > 1) runs its merge after the
		// roles on every warp, so no warp may have given its registers away:
		// no setmaxnreg (the 5 warps of one CTA have 255 registers each).
		defs["PR"], defs["CR"] = "40", "232"
		if d.CTAs > 1 || d.cluster() > 1 {
			defs["PR"], defs["CR"] = "0", "0"
		}
		if d.CTAs > 1 {
			minCTAs = d.CTAs
		}
		defs["CL"] = it(d.cluster())
		defs["DYN"] = b01(d.Dynamic)
	}
	return Launches{
		Decode: name, Combine: "attn_combine",
		DecodeDefines: defs, CombineDefs: map[string]string{"SP2": it(d.combinePieces()), "BP": bp, "CLUSTER": it(d.cluster()), "DYN": b01(d.Dynamic), "DIRECT": b01(d.hasOutputs())},
		DecodeGrid: [3]int{d.gridX(), d.Hkv, 1}, CombineGrid: [3]int{d.B * d.Sq * d.Hq, 1, 1},
		MinCTAsPerSM: minCTAs,
	}
}

// b01 is a boolean define: "1" or "0".
func b01(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

// descShape and descStrides are the caches' descriptor: [blocks, Hkv,
// page, 128] with the strides of the physical layout.
func (d *PagedDims) descShape() []int { return []int{d.Blocks, d.Hkv, d.Page, HeadDim} }

func (d *PagedDims) descStrides() []int {
	if d.NHD {
		return []int{d.Page * d.Hkv * HeadDim, HeadDim, d.Hkv * HeadDim, 1}
	}
	return []int{d.Hkv * d.Page * HeadDim, d.Page * HeadDim, HeadDim, 1}
}

// kScaleStrides are the strides (block, slot, kv head) of a quant-type-0 K
// scale in the cache's physical order; zeros otherwise.
func (d *PagedDims) kScaleStrides() (blk, tok, head int) {
	if !d.FP8 || d.Quant != 0 {
		return 0, 0, 0
	}
	if d.NHD {
		return d.Page * d.Hkv, d.Hkv, 1
	}
	return d.Hkv * d.Page, 1, d.Page
}

func (d *PagedDims) flatTable(blockIDs [][]int64, kvLens []int64) []float64 {
	out := make([]float64, 0, d.B*d.MaxBlocks)
	for b, row := range blockIDs {
		np := int((kvLens[b] + int64(d.Page) - 1) / int64(d.Page))
		for i, id := range row {
			if i >= np && (id < math.MinInt32 || id > math.MaxInt32) {
				id = -1 // never read (the kernel masks entries past the request's pages); kept in i32's range
			}
			out = append(out, float64(id))
		}
	}
	return out
}

func floats(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func clone(t *tle.Tensor) *tle.Tensor {
	return &tle.Tensor{Shape: append([]int(nil), t.Shape...), Data: append([]float64(nil), t.Data...)}
}

// Decode validates the inputs and runs decode attention on dev (the
// interpreter or a GPU; on a GPU every call copies the inputs in: a Runner
// keeps them on the device), the split planned for dev's SMs unless p.SMs
// says otherwise.
func Decode(dev tle.Device, in *DecodeInputs, p DecodeParams) (*DecodeOutputs, error) {
	if p.SMs == 0 {
		p.SMs = DeviceSMs(dev)
	}
	d, err := Validate(in, p)
	if err != nil {
		return nil, err
	}
	return decodeWith(dev, in, d)
}

// DeviceSMs is the multiprocessor count the split policy fills on dev: a
// GPU's own (GPU.SMs); on the interpreter, or when the driver does not
// say, tle.H200's, the GPU whose launches the interpreter runs.
func DeviceSMs(dev tle.Device) int {
	if g, ok := dev.(*tle.GPU); ok {
		if n, err := g.SMs(); err == nil && n > 0 {
			return n
		}
	}
	return tle.H200.SMs
}

// decodeWith runs decode on validated inputs with sizes d, whose plan (the
// pieces, d.Programs) may come from other lengths than in's: a Runner's
// plan outlives the lengths it was made for.
func decodeWith(dev tle.Device, in *DecodeInputs, d *Dims) (*DecodeOutputs, error) {
	pl := Plan(d)
	dk, ck, err := pl.kernels()
	if err != nil {
		return nil, err
	}
	out := &DecodeOutputs{O: tle.NewTensor(d.B*d.Sq, d.Hq, HeadDim), LSE: tle.NewTensor(d.B*d.Sq, d.Hq)}
	args, cargs := d.launchArgs(in, out)
	if err := dk.Run(dev, pl.DecodeGrid, pl.DecodeOptions(), args); err != nil {
		return nil, fmt.Errorf("%s on %s: %w", pl.Decode, dev.Name(), err)
	}
	if err := ck.Run(dev, pl.CombineGrid, pl.CombineOptions(), cargs); err != nil {
		return nil, fmt.Errorf("%s on %s: %w", pl.Combine, dev.Name(), err)
	}
	return out, nil
}

// launchArgs are the decode and combine kernels' arguments (Kernel.Run's)
// for inputs in at sizes d, with a fresh workspace and the outputs in
// out's tensors (shared by both kernels: the cluster merge writes the rows
// of requests finished in a cluster, the combine the others).
func (d *Dims) launchArgs(in *DecodeInputs, out *DecodeOutputs) (decode, combine map[string]any) {
	partO := tle.NewTensor(d.WorkspaceRows() * HeadDim)
	partL := tle.NewTensor(d.WorkspaceRows())
	cache := func(t *tle.Tensor) *tle.StridedTensor {
		return &tle.StridedTensor{Shape: d.descShape(), Strides: d.descStrides(), Data: append([]float64(nil), t.Data...)}
	}
	args := map[string]any{
		"k": cache(in.KCache), "v": cache(in.VCache), "q": clone(in.Q),
		"block_ids": &tle.Tensor{Shape: []int{d.B, d.MaxBlocks}, Data: d.flatTable(in.BlockIDs, in.KVLens)},
		"kv_lens":   &tle.Tensor{Shape: []int{d.B}, Data: floats(in.KVLens)},
		"part_o":    partO, "part_lse": partL,
		"max_blocks": d.MaxBlocks, "Hq": d.Hq, "scale": d.Scale, "B": d.B, "P": d.Programs, "CHUNK": d.chunkArg(),
	}
	if d.FP8 {
		blk, tok, head := d.kScaleStrides()
		args["q_scale"], args["k_scale"], args["v_scale"] = clone(in.QScale), clone(in.KScale), clone(in.VScale)
		args["ks_blk"], args["ks_tok"], args["ks_head"] = blk, tok, head
	}
	o := &tle.Tensor{Shape: []int{len(out.O.Data)}, Data: out.O.Data}
	lse := &tle.Tensor{Shape: []int{len(out.LSE.Data)}, Data: out.LSE.Data}
	if d.hasOutputs() {
		args["o"], args["lse"] = o, lse
	}
	cargs := map[string]any{"part_o": partO, "part_lse": partL, "o": o, "lse": lse, "kv_lens": args["kv_lens"],
		"B": d.B, "P": d.Programs, "CHUNK": d.chunkArg(), "Hq": d.Hq, "SQ": d.Sq, "G": d.G, "N": d.N}
	return args, cargs
}

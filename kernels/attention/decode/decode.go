package decode

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/tlego/tle/kernels/attention"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// FS holds the .tle sources: attention.FS, where the file's imports
// (../paged/parts.tle) are found.
var FS = attention.FS

// argErr is a *paged.ArgError naming the argument.
var argErr = registry.ArgErr

// Tile is the number of KV tokens per tile (wgmma's M).
const Tile = 64

// MaxSplits bounds the number of splits of one (request, kv head).
const MaxSplits = 128

// Inputs are the tensors of one decode call, row-major in the shapes
// the spec gives. Float data is converted to the kernels' dtypes on the way
// in: bf16 for Q and the caches of a BF16 call (rounding to nearest even);
// for FP8, Q and the caches must hold values e4m3 represents exactly (the
// caches may hold NaN in slots no request reads), the scales are f32.
type Inputs struct {
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

// Params are the scalar arguments.
type Params struct {
	Layout string // paged.LayoutNHD or paged.LayoutHND
	DType  string // paged.DTypeBF16 or paged.DTypeFP8
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
	// CTAs is the decode kernel's programs resident per SM for pages of 64
	// (1 to MaxCTAs; 0: DefaultCTAs): one program per SM with setmaxnreg
	// and a deep ring, or several with the registers and shared memory
	// split between them (stagesShared) and the split policy filling
	// CTAs * SMs programs.
	CTAs int
	// Cluster is the decode kernels' cluster size for pages of 64 (1, 2, 4 or
	// MaxCluster; ClusterAuto: ChooseCluster's; 0: 1): the pieces of one
	// request that land in one cluster of Cluster consecutive programs are
	// merged in distributed shared memory, only the rest by attn_combine.
	// Opt-in: compute-sanitizer's racecheck reports hazards on the merge
	// that are not yet explained (docs/perf.md). The paged
	// kernels run without clusters (1).
	Cluster int
	// Schedule is how the page-64 kernels share the requests' tiles
	// among their programs: ScheduleFixed (every request cut into pieces
	// of one length, a program a piece), ScheduleDynamic (the tiles of all
	// requests dealt out evenly over a persistent grid on the GPU, a
	// program running over request boundaries) or ScheduleAuto (""), the
	// policy's (ChooseSchedule). The paged kernels and an explicit
	// Splits or Cluster take the fixed split.
	Schedule string
}

// Schedules (Params.Schedule).
const (
	ScheduleAuto    = ""
	ScheduleFixed   = "fixed"
	ScheduleDynamic = "dynamic"
)

// MaxCluster bounds Params.Cluster (a portable cluster size).
const MaxCluster = 8

// ClusterAuto as Params.Cluster asks for ChooseCluster's size.
const ClusterAuto = -1

// CheckCluster checks a Params.Cluster value: 0 (no clusters), 1,
// 2, 4, MaxCluster or ClusterAuto.
func CheckCluster(c int) error {
	if c != ClusterAuto && (c < 0 || c > MaxCluster || c&(c-1) != 0) {
		return argErr("cluster", "want 1, 2, 4 or %d CTAs a cluster (0: 1; %d: the policy's), got %d", MaxCluster, ClusterAuto, c)
	}
	return nil
}

// MaxCTAs bounds Params.CTAs.
const MaxCTAs = 4

// DefaultCTAs is Params.CTAs' default for 8 query rows (N = 8):
// three programs an SM (FP8 with four stages each, BF16 with two), which
// measured faster than one on the H200 for BF16 and FP8 (docs/perf.md): a
// second program hides the first's per-tile latency (wgmma waits, softmax
// barriers) that one deep ring cannot. More rows (N 16 and 32) take two
// (defaultCTAs).
const DefaultCTAs = 3

// defaultCTAs is the programs per SM for d.N query rows: DefaultCTAs at N
// = 8, two beyond (at three, FP8's consumer spills under the register cap
// and its ring holds 3 stages, slower than two; BF16 fits only two).
func (d *Dims) defaultCTAs() int {
	if d.N > 8 {
		return 2
	}
	return DefaultCTAs
}

// Outputs are o [B*Sq, Hq, 128] (bf16 values) and the log-sum-exp
// [B*Sq, Hq] of the scaled scores, in natural log.
type Outputs struct {
	O   *tle.Tensor
	LSE *tle.Tensor
}

// Dims are the sizes of one call, derived by Validate.
type Dims struct {
	paged.Dims
	Sq         int
	N          int // query rows per program: G*Sq rounded up to a power of two >= 8
	Splits     int
	Chunk      int  // tiles per piece (split) of a request
	Programs   int  // decode programs per kv head: the requests' pieces, sum_b cdiv(cdiv(L[b], 64), Chunk)
	CTAs       int  // programs per SM (pages of 64)
	CL         int  // the decode kernels' cluster size (pages of 64): 1, 2, 4 or 8 (0: 1)
	Dynamic    bool // the dynamic schedule (pages of 64, CL 1): Programs is the persistent grid, Chunk the fewest tiles a program takes
	clusterSet bool // CL was asked for (Params.Cluster), not the policy's
}

// Validate checks every argument and returns the sizes; nothing runs.
func Validate(in *Inputs, p Params) (*Dims, error) {
	if in == nil {
		return nil, errors.New("decode: no inputs")
	}
	d := &Dims{Sq: p.Sq}
	if err := d.CheckFormat(p.Layout, p.DType, p.QuantType, p.Scale); err != nil {
		return nil, err
	}
	if p.Sq < 1 || p.Sq > 4 {
		return nil, argErr("sq", "want 1 to 4 query tokens per request, got %d", p.Sq)
	}

	if err := paged.CheckTensor("q", in.Q, 3, "[B*Sq, Hq, 128]"); err != nil {
		return nil, err
	}
	if in.Q.Shape[2] != paged.HeadDim {
		return nil, argErr("q", "head dim %d is unsupported: want 128 (shape %v)", in.Q.Shape[2], in.Q.Shape)
	}
	if in.Q.Shape[0]%p.Sq != 0 {
		return nil, argErr("q", "%d rows are not a whole number of requests of sq = %d tokens (shape %v)", in.Q.Shape[0], p.Sq, in.Q.Shape)
	}
	d.B, d.Hq = in.Q.Shape[0]/p.Sq, in.Q.Shape[1]

	if err := d.CheckCaches(in.KCache, in.VCache, p.Layout); err != nil {
		return nil, err
	}
	d.N = padRows(d.G * d.Sq)

	if err := d.CheckTable(in.BlockIDs, in.KVLens, "B = q rows / sq", func(int) int64 { return int64(p.Sq) }, "sq"); err != nil {
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
	if d.Page != Tile {
		// the paged kernels for pages of 16 and 32 run one program an SM,
		// without the cluster merge (checkSchedule refuses their dynamic
		// schedule): a request for them would be ignored
		switch {
		case p.Cluster > 1:
			return nil, argErr("cluster", "%d: the cluster merge runs with pages of %d tokens; this call's hold %d", p.Cluster, Tile, d.Page)
		case p.CTAs > 1:
			return nil, argErr("ctas", "%d: pages of %d tokens run one program an SM", p.CTAs, d.Page)
		}
	}
	d.choosePieces(in.KVLens, p.Splits, p.SMs, p.Cluster, p.Schedule)
	if d.gridX() > tle.MaxGridX {
		return nil, argErr("splits", "%d pieces of %d tiles are more programs than a grid holds", d.Programs, d.Chunk)
	}
	if int64(d.Programs)*int64(d.Hkv)*int64(d.N)*paged.HeadDim > math.MaxInt32 {
		return nil, argErr("splits", "the workspace of %d pieces x %d kv heads x %d rows exceeds 2^31 elements", d.Programs, d.Hkv, d.N)
	}
	// the values last: the parameters' checks above are cheap, this one
	// reads every slot the call reads
	if err := d.CheckInputValues(in.Q, in.KCache, in.VCache, in.QScale, in.KScale, in.VScale, in.BlockIDs, in.KVLens, d.B*d.Sq, "[B*Sq, Hq]"); err != nil {
		return nil, err
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

// ChooseSchedule is the schedule policy of the page-64 kernels for
// requests of lengths lens over hkv kv heads, whose fixed split (ChooseChunk)
// takes programs programs per kv head, on slots program slots (SMs x
// CTAs): the dynamic schedule when the fixed split's programs take more
// than one wave of the slots (more requests than slots: a request a
// program) and the lengths differ, so that short and long requests no
// longer queue in waves; the fixed split otherwise. On the H200
// (docs/perf.md) the fixed split was faster over the nine workloads of the
// spec, every one of which it fits in one wave (programs crossing requests
// cost a second Q load and epilogue, and a long request's more numerous
// partials a longer combine), and the dynamic schedule faster on
// large_mix_512 (512 requests of 64 to 4096 tokens, more than the slots).
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

// CheckSchedule checks a Params.Schedule value beside the Cluster
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

// checkSchedule checks Params.Schedule against the call: the
// dynamic schedule runs on the page-64 kernels without fixed splits.
func (d *Dims) checkSchedule(p Params) error {
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

// ChooseCluster is the cluster policy of the page-64 kernels: for
// requests of cnts pieces each (per kv head, numbered densely), the
// smallest power of two CL at most MaxCluster such that every request with
// pieces has them all in one cluster of CL programs (the merge then
// finishes it in distributed shared memory: no partial of it reaches the
// combine), without padding the grid to whole clusters into more waves of
// the slots program slots (SMs x CTAs) than the pieces take alone; 1 when
// there is none or every request is one piece (nothing to merge, and the
// kernels take request b in program b). A merge that leaves partials to
// the combine measured no faster than none (docs/perf.md). The
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

var file = paged.NewKernels(FS, "decode/decode.tle")

// Kernel is one kernel of decode.tle (attn_decode_bf16, attn_decode_fp8,
// their _paged forms or attn_combine), parsed and checked once per
// process.
func Kernel(name string) (*tle.Kernel, error) { return file.Kernel(name) }

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

// Stages of K and V the page-64 kernels' producer runs ahead of the consumer:
// BF16 32 KB a stage (192 KB in all; 160 KB for N = 32 query rows, whose
// larger Q, P and epilogue scratch leave room for 5), FP8 16 KB (128 KB,
// with the 8 KB transposed V beside them); each SM holds one program, so
// these are the bytes it keeps in flight.
const (
	StagesBF16 = 6
	StagesFP8  = 8
)

// Stages is the ring depth of the decode kernel of sizes d. The paged form
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

// stagesShared is the ring depth of a page-64 program when d.CTAs of
// them share an SM: the stages (32 KB BF16, 16 KB FP8 of K and V) that fit
// beside the program's other shared memory (smemOther) in its share of
// MaxSMSmem, at most StagesFP8; 0 when not even 2 fit (fitCTAs then
// lowers d.CTAs).
func (d *Dims) stagesShared() int {
	stage := 2 * Tile * paged.HeadDim * 2
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

// smemOther bounds the shared memory of a page-64 program besides its
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
	defs := map[string]string{"G": it(d.G), "SQ": it(d.Sq), "N": it(d.N), "TB": it(paged.TableBlock), "BP": bp}
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

// Decode validates the inputs and runs decode attention on dev (the
// interpreter or a GPU; on a GPU every call copies the inputs in: a Runner
// keeps them on the device), the split planned for dev's SMs unless p.SMs
// says otherwise.
func Run(dev tle.Device, in *Inputs, p Params) (*Outputs, error) {
	if p.SMs == 0 {
		p.SMs = DeviceSMs(dev)
	}
	d, err := Validate(in, p)
	if err != nil {
		return nil, err
	}
	return runWith(dev, in, d)
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

// runWith runs decode on validated inputs with sizes d, whose plan (the
// pieces, d.Programs) may come from other lengths than in's: a Runner's
// plan outlives the lengths it was made for.
func runWith(dev tle.Device, in *Inputs, d *Dims) (*Outputs, error) {
	pl := Plan(d)
	dk, ck, err := pl.kernels()
	if err != nil {
		return nil, err
	}
	out := &Outputs{O: tle.NewTensor(d.B*d.Sq, d.Hq, paged.HeadDim), LSE: tle.NewTensor(d.B*d.Sq, d.Hq)}
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
func (d *Dims) launchArgs(in *Inputs, out *Outputs) (decode, combine map[string]any) {
	partO := tle.NewTensor(d.WorkspaceRows() * paged.HeadDim)
	partL := tle.NewTensor(d.WorkspaceRows())
	// the caches are not copied: Run copies back only what the kernels
	// write, and they never write k or v (TestCachesNotWritten)
	cache := func(t *tle.Tensor) *tle.StridedTensor {
		return &tle.StridedTensor{Shape: d.DescShape(), Strides: d.DescStrides(), Data: t.Data}
	}
	args := map[string]any{
		"k": cache(in.KCache), "v": cache(in.VCache), "q": paged.Clone(in.Q),
		"block_ids": &tle.Tensor{Shape: []int{d.B, d.MaxBlocks}, Data: d.FlatTable(in.BlockIDs, in.KVLens)},
		"kv_lens":   &tle.Tensor{Shape: []int{d.B}, Data: paged.Floats(in.KVLens)},
		"part_o":    partO, "part_lse": partL,
		"max_blocks": d.MaxBlocks, "Hq": d.Hq, "scale": d.Scale, "B": d.B, "P": d.Programs, "CHUNK": d.chunkArg(),
	}
	if d.FP8 {
		blk, tok, head := d.KScaleStrides()
		args["q_scale"], args["k_scale"], args["v_scale"] = paged.Clone(in.QScale), paged.Clone(in.KScale), paged.Clone(in.VScale)
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

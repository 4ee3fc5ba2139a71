package decode

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// TestDecodePTX builds the decode kernels for sm_90a with llc-19 as Decode
// plans them (pages 16, 32, 64; N = 8, 16, 32 query rows) and checks the
// data path.
//
// Pages of 64 (attn_decode_bf16, attn_decode_fp8): the producer role (setmaxnreg.dec to 40)
// issues every rank-4 TMA load of K and V (cp.async.bulk.tensor.4d, boxes
// [1, 1, 64, 64] for bf16's two swizzled column blocks, [1, 1, 64, 128]
// for e4m3, on mbarriers armed with expect_tx) and waits with
// mbarrier try_wait.parity for released stages; the consumer role
// (setmaxnreg 232) waits for them the same way and issues every wgmma, 16
// (bf16 m64nNk16: 8 for S^T = K Q^T, 8 for O^T = V^T P^T) or 8 (e4m3
// m64nNk32) of them: K straight from its TMA stage as a shared-memory a;
// V^T read from the V stage transposed for bf16 (tnspA 1), and for e4m3
// loaded from it straight into register a (ldmatrix.trans + prmt, no
// transposed copy); and waits for at most one group (the previous tile's
// PV) before the scores' softmax.
//
// Several programs an SM (Dims.CTAs > 1, pages of 64): no setmaxnreg, 5
// warps (the producer warp unpadded after the consumer warpgroup), the
// minctasm that lets them fit, and their shared memory within the SM's
// share (TestDecodeSmemFits).
//
// Pages of 16 and 32 (the _paged kernels): the same roles, TMA in the
// producer (one box [1, 1, page, 128] per page) and the waits on both
// sides, but the consumer's products take a in registers (four packed
// registers; b from shared memory), 16 or 8 of them. The combine kernel
// waits for the decode grid (griddepcontrol.wait).
func TestDecodePTX(t *testing.T) {
	t.Parallel()
	needPTXBatch(t)
	tma := tletest.PTXLine(`cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+, %r\d+, %r\d+\}\], \[%r\d+\];`)
	tryWait := tletest.PTXLine(`mbarrier\.try_wait\.parity\.shared::cta\.b64 %p, \[%r\d+\], %r\d+;`)
	anyWgmma := tletest.PTXLine(`wgmma\.mma_async`)
	for _, c := range decodePTXCases {
		d := c.dims()
		require.Equal(t, c.n, d.N)
		pl := Plan(d)
		k, err := Kernel(pl.Decode)
		require.NoError(t, err)
		b, err := k.Compile(pl.DecodeOptions(), tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "%+v", c)
		ks, ty, count := "16", "bf16.bf16", 16
		if d.FP8 {
			ks, ty, count = "32", "e4m3.e4m3", 8
		}
		require.Len(t, b.Descs, 2, "%+v: the K and V maps", c)
		box := paged.HeadDim // pages of 16 and 32, and e4m3: one box per page
		if c.page == Tile && !d.FP8 {
			box = 64 // bf16 rows of 256 bytes in wgmma's 128B swizzle: one box per 64-column block
		}
		for _, desc := range b.Descs {
			require.Equal(t, []int{1, 1, c.page, box}, desc.Box, "%+v", c)
		}
		require.Regexp(t, tletest.PTXLine(`mbarrier\.arrive\.expect_tx\.shared::cta\.b64 %st, \[%r\d+\], %r\d+;`), b.PTX)
		// split the PTX at the roles' setmaxnreg
		prodAt := tletest.PTXLine(`setmaxnreg\.dec\.sync\.aligned\.u32 40;`).FindStringIndex(b.PTX)
		consAt := tletest.PTXLine(`setmaxnreg\.(dec|inc)\.sync\.aligned\.u32 232;`).FindStringIndex(b.PTX)
		require.NotNil(t, prodAt, "%+v: the producer's setmaxnreg", c)
		require.NotNil(t, consAt, "%+v: the consumer's setmaxnreg", c)
		// the consumer warpgroup first, the producer warp last (unpadded without regs)
		require.Less(t, consAt[0], prodAt[0], "%+v: the consumer role comes first", c)
		pre, cons, prod := b.PTX[:consAt[0]], b.PTX[consAt[1]:prodAt[0]], b.PTX[prodAt[1]:]
		nTMA := len(tma.FindAllString(prod, -1))
		require.GreaterOrEqual(t, nTMA, 2, "%+v: the producer's TMA loads of K and V", c)
		require.Equal(t, nTMA, len(tma.FindAllString(b.PTX, -1)), "%+v: TMA loads outside the producer", c)
		require.NotEmpty(t, tryWait.FindAllString(prod, -1), "%+v: the producer waits for released stages", c)
		require.GreaterOrEqual(t, len(tryWait.FindAllString(cons, -1)), 2, "%+v: the consumer waits for K and for V", c)
		require.Empty(t, anyWgmma.FindAllString(pre+prod, -1), "%+v: wgmma outside the consumer", c)
		if c.page != Tile {
			require.Equal(t, pl.Decode, map[bool]string{false: "attn_decode_bf16_paged", true: "attn_decode_fp8_paged"}[d.FP8])
			w := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk%s\.f32\.%s\s+\{(%%f\d+, ){%d}%%f\d+\}, \{%%r\d+, %%r\d+, %%r\d+, %%r\d+\}, %%rd\d+, %%wgp, 1, 1`, c.n, ks, ty, c.n/2-1)
			require.Len(t, tletest.PTXLine(w).FindAllString(cons, -1), count, "%+v: %s", c, w)
			require.Len(t, anyWgmma.FindAllString(cons, -1), count, "%+v: every wgmma reads a from registers", c)
			continue
		}
		shared := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk%s\.f32\.%s\s+\{(%%f\d+, ){%d}%%f\d+\}, %%rd\d+, %%rd\d+, %%wgp, 1, 1`, c.n, ks, ty, c.n/2-1)
		// the previous tile's PV runs on under this tile's K wait and
		// S^T issue, and retires with S^T at one wait_group 0: a
		// wait_group 1 that retires a product issued in the previous
		// iteration makes ptxas serialise every wgmma of the kernel
		require.NotRegexp(t, tletest.PTXLine(`wgmma\.wait_group\.sync\.aligned [1-9];`), cons, "%+v", c)
		if d.FP8 {
			// S^T = K Q^T from shared memory (4); O^T = V^T P^T with V^T
			// read from the V stage straight into register a (4):
			// ldmatrix.trans and one prmt per packed register, no
			// transposed copy (stmatrix)
			regA := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk32\.f32\.e4m3\.e4m3\s+\{(%%f\d+, ){%d}%%f\d+\}, \{%%r\d+, %%r\d+, %%r\d+, %%r\d+\}, %%rd\d+, %%wgp, 1, 1`, c.n, c.n/2-1)
			require.Len(t, tletest.PTXLine(shared).FindAllString(cons, -1), count/2, "%+v: %s", c, shared)
			require.Len(t, tletest.PTXLine(regA).FindAllString(cons, -1), count/2, "%+v: %s", c, regA)
			// the PV product runs on into the next iteration: its
			// accumulator (converted for acc += pv) is read only after a
			// wait_group, never between its issue and the wait
			requireReadAfterWait(t, cons, tletest.PTXLine(regA).FindAllString(cons, -1), fmt.Sprintf("%+v", c))
			require.Len(t, anyWgmma.FindAllString(cons, -1), count, "%+v", c)
			require.Len(t, tletest.PTXLine(`ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16`).FindAllString(cons, -1), 4, "%+v: V^T's load", c)
			require.Len(t, tletest.PTXLine(`prmt\.b32 %r\d+, %r\d+, %r\d+, 0x(6420|7531);`).FindAllString(cons, -1), 16, "%+v: V^T's byte permutes", c)
			require.NotRegexp(t, tletest.PTXLine(`stmatrix`), cons, "%+v: no transposed copy of V", c)
		} else {
			require.Len(t, tletest.PTXLine(shared).FindAllString(cons, -1), count, "%+v: %s", c, shared)
			require.Len(t, anyWgmma.FindAllString(cons, -1), count, "%+v: every wgmma reads a from shared memory", c)
			// tnspA 1 on the 8 products of O^T = V^T P^T
			require.Len(t, tletest.PTXLine(shared+`, 1, 0;`).FindAllString(cons, -1), 8, "%+v: V^T read transposed", c)
		}
	}
	for _, fp8 := range []bool{false, true} {
		d, b := compileV2(t, fp8, 1, 3, 1)
		require.NotRegexp(t, tletest.PTXLine(`setmaxnreg`), b.PTX, "fp8 %v: %d CTAs an SM share the register file", fp8, d.CTAs)
		require.Equal(t, 5, b.NumWarps, "fp8 %v", fp8)
		require.Regexp(t, fmt.Sprintf(`\.maxntid 160, 1, 1\s+\.minnctapersm %d`, d.CTAs), b.PTX, "fp8 %v", fp8)
		require.Len(t, tma.FindAllString(b.PTX, -1), map[bool]int{false: 4, true: 2}[fp8], "fp8 %v: the producer's K and V loads (bf16: two column blocks a page)", fp8)
	}
	// the dynamic schedule: the same products in the tiles' loop (now
	// inside the loop over the span's requests), still one wait_group 0
	// a tile, the same loads
	for _, fp8 := range []bool{false, true} {
		_, fixed := compileV2(t, fp8, 1, 3, 1)
		d, b := compileV2Dyn(t, fp8, 1, 3)
		require.Equal(t, "1", Plan(d).DecodeDefines["DYN"])
		require.Len(t, anyWgmma.FindAllString(b.PTX, -1), len(anyWgmma.FindAllString(fixed.PTX, -1)), "fp8 %v", fp8)
		require.NotRegexp(t, tletest.PTXLine(`wgmma\.wait_group\.sync\.aligned [1-9];`), b.PTX, "fp8 %v", fp8)
		require.Len(t, tma.FindAllString(b.PTX, -1), len(tma.FindAllString(fixed.PTX, -1)), "fp8 %v", fp8)
	}
	ck, err := Kernel("attn_combine")
	require.NoError(t, err)
	for _, dyn := range []bool{false, true} {
		cd, err := ck.Compile(Plan(combineDims(dyn)).CombineOptions(), tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "dynamic %v", dyn)
		require.True(t, cd.GridDependencyWait, "dynamic %v", dyn)
	}
	cb, err := ck.Compile(tle.CompileOptions{Defines: Plan(combineDims(false)).CombineDefs, NumWarps: NumWarps}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.True(t, cb.GridDependencyWait, "the combine waits for the decode grid (PDL)")
	require.Regexp(t, tletest.PTXLine(`griddepcontrol\.wait;`), cb.PTX)
}

// TestDecodeSmemFits compiles the page-64 kernels at every query-row
// count and programs per SM and checks the plan against the compiled
// shared memory: smemOther bounds what is not the ring, and the programs
// of one SM fit its shared memory with at least two stages each.
func TestDecodeSmemFits(t *testing.T) {
	t.Parallel()
	// an ask that fitCTAs lowers plans the kernel of a smaller ask: each
	// plan's build is made once and checked for every ask that plans it.
	// The launch parameters are known at LLVM IR, so a build stops there
	// (no llc), but for the plans the PTX tests compile anyway (with
	// llc-19): those come from their batch through the JIT's cache, so
	// that each kernel's LLVM IR is emitted once for both.
	builds := map[string]*tle.Binary{}
	shared := ptxCompiled()
	if len(shared) > 0 {
		require.NoError(t, compilePTXBatch())
	}
	for _, fp8 := range []bool{false, true} {
		for _, sq := range []int{1, 2, 4} {
			for _, cl := range []int{1, MaxCluster, -1} { // -1: the dynamic schedule (CL 1)
				for ctas := 1; ctas <= MaxCTAs; ctas++ {
					d := &Dims{Dims: paged.Dims{Page: Tile, G: 8, FP8: fp8, Quant: 1, B: 1, Hkv: 1, Hq: 8}, Sq: sq, N: padRows(8 * sq), CTAs: ctas, CL: max(cl, 1), Dynamic: cl < 0}
					d.fitCTAs()
					key := planKey(d)
					b, ok := builds[key]
					if !ok {
						emit := "ll"
						if shared[key] {
							emit = "ptx"
						}
						_, b = buildDims(t, d, emit)
						builds[key] = b
					}
					stage := 2 * Tile * paged.HeadDim * 2
					if fp8 {
						stage /= 2
					}
					what := fmt.Sprintf("fp8 %v, N %d, CL %d, %d CTAs asked, %d planned, %d stages, %d bytes", fp8, d.N, cl, ctas, d.CTAs, d.Stages(), b.SmemBytes)
					require.LessOrEqual(t, b.SmemBytes-d.Stages()*stage, d.smemOther(), what)
					if d.CTAs > 1 {
						require.GreaterOrEqual(t, d.Stages(), 2, what)
						require.LessOrEqual(t, d.CTAs*(b.SmemBytes+ctaReserved), MaxSMSmem, what)
					}
					t.Log(what)
				}
			}
		}
	}
}

// TestDecodeClusterPTX builds the page-64 kernels with and without the
// cluster merge (N = 8, 16, 32; one and several programs an SM): with CL
// > 1 the kernel synchronises its cluster twice after the roles
// (barrier.cluster.arrive.release / wait.acquire), maps its peers' partial
// buffers (mapa.shared::cluster) and reads them from distributed shared
// memory (ld.shared::cluster), runs no setmaxnreg (the merge needs every
// warp's registers) and launches as a cluster of CL; with CL = 1 none of
// that is there. attn_combine keeps its wait for the decode grid.
func TestDecodeClusterPTX(t *testing.T) {
	t.Parallel()
	needPTXBatch(t)
	arrive := tletest.PTXLine(`barrier\.cluster\.arrive\.release\.aligned;`)
	wait := tletest.PTXLine(`barrier\.cluster\.wait\.acquire\.aligned;`)
	mapa := tletest.PTXLine(`mapa\.shared::cluster\.u32 %r\d+, %r\d+, %r\d+;`)
	ldCluster := tletest.PTXLine(`ld\.shared::cluster\.f32 %f\d+, \[%r\d+\];`)
	anyCluster := regexp.MustCompile(`barrier\.cluster\.(arrive|wait)|mapa|shared::cluster\.(f32|u32|b32|v\d)|ld\.shared::cluster|st\.shared::cluster`)
	for _, d := range clusterPTXDims() {
		pl := Plan(d)
		k, err := Kernel(pl.Decode)
		require.NoError(t, err)
		b, err := k.Compile(pl.DecodeOptions(), tle.GPUOptions{Toolchain: "llc"})
		what := fmt.Sprintf("fp8 %v N %d CTAs %d CL %d", d.FP8, d.N, d.CTAs, d.CL)
		require.NoError(t, err, what)
		if d.CL == 1 {
			require.NotRegexp(t, anyCluster, b.PTX, what)
			require.Contains(t, [][3]int{{}, {1, 1, 1}}, b.Cluster, what)
			if d.CTAs == 1 {
				require.Regexp(t, tletest.PTXLine(`setmaxnreg\.(dec|inc)\.sync\.aligned\.u32 232;`), b.PTX, what)
			}
			continue
		}
		require.Equal(t, [3]int{d.CL, 1, 1}, b.Cluster, what)
		// each pattern's matches found once (the PTX is long, the
		// line patterns slow), counted and placed from there
		arrives, mapas, lds := arrive.FindAllStringIndex(b.PTX, -1), mapa.FindAllStringIndex(b.PTX, -1), ldCluster.FindAllStringIndex(b.PTX, -1)
		require.Len(t, arrives, 2, "%s: two distributed barriers", what)
		require.Len(t, wait.FindAllString(b.PTX, -1), 2, "%s: two distributed barriers", what)
		require.Len(t, mapas, 2, "%s: the peer's o and lse buffers", what)
		require.GreaterOrEqual(t, len(lds), 2, "%s: remote reads", what)
		require.NotRegexp(t, tletest.PTXLine(`setmaxnreg`), b.PTX, what)
		// both barriers after the roles: after the last wgmma
		// and the last TMA load
		first := arrives[0][0]
		require.Greater(t, first, strings.LastIndex(b.PTX, "wgmma.wait_group"), "%s: the barriers follow the consumer", what)
		require.Greater(t, first, strings.LastIndex(b.PTX, "cp.async.bulk.tensor"), "%s: the barriers follow the producer", what)
		last := arrives[1][0]
		for _, ld := range append(lds, mapas...) {
			require.Less(t, first, ld[0], "%s: remote reads after the first barrier", what)
			require.Less(t, ld[0], last, "%s: remote reads before the second barrier", what)
		}
	}
	ck, err := Kernel("attn_combine")
	require.NoError(t, err)
	d := clusterCombineDims()
	require.Equal(t, 4, d.leaderSlots())
	cb, err := ck.Compile(Plan(d).CombineOptions(), tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.True(t, cb.GridDependencyWait)
	require.Regexp(t, tletest.PTXLine(`griddepcontrol\.wait;`), cb.PTX)
}

// clusterPTXDims are TestDecodeClusterPTX's sizes, fitted: BF16 and FP8,
// N = 8, 16, 32, one and two programs an SM asked, CL 1, 2 and 8.
func clusterPTXDims() []*Dims {
	var out []*Dims
	for _, fp8 := range []bool{false, true} {
		for _, sq := range []int{1, 2, 4} {
			for _, ctas := range []int{1, 2} {
				for _, cl := range []int{1, 2, 8} {
					d := &Dims{Dims: paged.Dims{Page: Tile, G: 8, FP8: fp8, Quant: 1, B: 4, Hkv: 1, Hq: 8}, Sq: sq, N: padRows(8 * sq), CTAs: ctas, Splits: 5, Programs: 10, Chunk: 2, CL: cl}
					d.fitCTAs()
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// planKey names the decode kernel Plan(d) launches and its compile
// options: two sizes with one key build the same kernel.
func planKey(d *Dims) string {
	pl := Plan(d)
	return fmt.Sprint(pl.Decode, pl.DecodeOptions())
}

// ptxCase is one of TestDecodePTX's builds: dtype, quant type, page, G,
// Sq and the query rows N that Decode pads G*Sq to.
type ptxCase struct {
	dtype       string
	quant, page int
	g, sq, n    int
}

// decodePTXCases are TestDecodePTX's builds (pages 16, 32, 64; N = 8, 16,
// 32 query rows).
var decodePTXCases = []ptxCase{
	{paged.DTypeBF16, 0, 16, 4, 1, 8}, {paged.DTypeBF16, 0, 32, 8, 2, 16}, {paged.DTypeBF16, 0, 64, 8, 4, 32}, {paged.DTypeBF16, 0, 64, 4, 3, 16},
	{paged.DTypeBF16, 0, 64, 8, 1, 8},
	{paged.DTypeFP8, 1, 16, 4, 2, 8}, {paged.DTypeFP8, 1, 32, 8, 1, 8}, {paged.DTypeFP8, 0, 64, 8, 2, 16}, {paged.DTypeFP8, 0, 16, 8, 4, 32},
	{paged.DTypeFP8, 1, 64, 8, 1, 8}, {paged.DTypeFP8, 1, 64, 4, 4, 16},
}

// dims are the case's sizes as Decode plans them (one split).
func (c ptxCase) dims() *Dims {
	d := &Dims{Dims: paged.Dims{Page: c.page, G: c.g, FP8: c.dtype == paged.DTypeFP8, Quant: c.quant, B: 1, Hkv: 1, Hq: c.g}, Sq: c.sq, Splits: 1}
	d.N = padRows(d.G * d.Sq)
	return d
}

// combineDims are TestDecodePTX's sizes for attn_combine, under the fixed
// or the dynamic schedule; clusterCombineDims TestDecodeClusterPTX's
// (clusters of 8, 20 splits).
func combineDims(dyn bool) *Dims {
	return &Dims{Dims: paged.Dims{Page: Tile, G: 8, B: 64}, Sq: 1, N: 8, Dynamic: dyn}
}

func clusterCombineDims() *Dims {
	return &Dims{Dims: paged.Dims{Page: Tile, G: 8, B: 64}, Sq: 1, N: 8, Splits: 20, CL: 8}
}

// ptxBatchDims are the sizes of every decode build the PTX tests compile:
// TestDecodePTX's (its cases, compileV2's and compileV2Dyn's) and
// TestDecodeClusterPTX's, fitted.
func ptxBatchDims() []*Dims {
	var out []*Dims
	for _, c := range decodePTXCases {
		out = append(out, c.dims())
	}
	for _, fp8 := range []bool{false, true} {
		for _, d := range []*Dims{v2Dims(fp8, 1, 3, 1), v2DynDims(fp8, 1, 3)} {
			d.fitCTAs()
			out = append(out, d)
		}
	}
	return append(out, clusterPTXDims()...)
}

// ptxBatch is compilePTXBatch's one run.
var ptxBatch struct {
	once sync.Once
	err  error
}

// ptxBatchSize is the modules merged into one llc run: llc's start and
// the fixed part of a compile are paid once for them, and a merged module
// much larger compiles slower per kernel (all 54 in one run took more of
// llc's CPU than runs of 8).
const ptxBatchSize = 8

// compilePTXBatch compiles, once in the process, every build the PTX
// tests check (ptxBatchDims' decode kernels and the three attn_combine
// builds), ptxBatchSize modules an llc run (tle.CompileAll), where each
// would otherwise start llc of its own. The tests' own Kernel.Compile
// calls then find their Binaries in the JIT's cache (PTX equal to a lone
// compile's but for comments and blank lines).
func compilePTXBatch() error {
	ptxBatch.once.Do(func() {
		var specs []tle.Spec
		add := func(kernel string, opts tle.CompileOptions) {
			k, err := Kernel(kernel)
			if err != nil {
				ptxBatch.err = err
			}
			specs = append(specs, tle.Spec{Kernel: k, Options: opts})
		}
		for _, d := range ptxBatchDims() {
			pl := Plan(d)
			add(pl.Decode, pl.DecodeOptions())
		}
		for _, d := range []*Dims{combineDims(false), combineDims(true), clusterCombineDims()} {
			add("attn_combine", Plan(d).CombineOptions())
		}
		for lo := 0; lo < len(specs) && ptxBatch.err == nil; lo += ptxBatchSize {
			_, ptxBatch.err = tle.CompileAll(specs[lo:min(lo+ptxBatchSize, len(specs))], tle.GPUOptions{Toolchain: "llc"})
		}
	})
	return ptxBatch.err
}

// needPTXBatch skips a PTX test without llc-19 (tletest.NeedLLC) and
// compiles the batch its builds come from.
func needPTXBatch(t *testing.T) {
	t.Helper()
	tletest.NeedLLC(t)
	require.NoError(t, compilePTXBatch())
}

// ptxCompiled is the set of planKeys of the decode builds the PTX tests
// compile when llc-19 is there (none without it: they skip).
func ptxCompiled() map[string]bool {
	out := map[string]bool{}
	if _, err := exec.LookPath("llc-19"); err != nil { // tletest.NeedLLC's test
		return out
	}
	for _, d := range ptxBatchDims() {
		out[planKey(d)] = true
	}
	return out
}

// requireReadAfterWait checks that every instruction of ptx reading the
// accumulator registers of the wgmma lines mmas, other than a wgmma, has a
// wgmma.wait_group as the nearest wgmma instruction before it: a product in
// flight is never read (ptxas would serialise the wgmmas, the registers are
// undefined until the wait).
func requireReadAfterWait(t *testing.T, ptx string, mmas []string, what string) {
	t.Helper()
	require.NotEmpty(t, mmas, what)
	acc := map[string]bool{}
	for _, m := range mmas {
		for _, r := range regexp.MustCompile(`%f\d+`).FindAllString(m[:strings.Index(m, "}")], -1) {
			acc[r] = true
		}
	}
	last, reads := "", 0
	reg := regexp.MustCompile(`%f\d+\b`) // compiled once, not a line
	for _, line := range strings.Split(ptx, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "wgmma.") {
			last = line
			continue
		}
		if strings.HasPrefix(line, "//") {
			continue
		}
		src := line // the registers read: all of a store's, else those after the destination
		if i := strings.Index(line, ","); i >= 0 && !strings.HasPrefix(line, "st.") {
			src = line[i:]
		}
		for _, r := range reg.FindAllString(src, -1) {
			if acc[r] {
				reads++
				require.True(t, strings.HasPrefix(last, "wgmma.wait_group"), "%s: %q reads the accumulator %s of a wgmma in flight (the last wgmma instruction before it: %q)", what, line, r, last)
				break
			}
		}
	}
	require.NotZero(t, reads, "%s: the accumulator is read", what)
}

// compileV2 builds the page-64 decode kernel (G 8, quant type 1) for sq
// query tokens with ctas programs an SM asked (fitCTAs may lower them) and
// cluster size cl.
func compileV2(t *testing.T, fp8 bool, sq, ctas, cl int) (*Dims, *tle.Binary) {
	t.Helper()
	return compileDims(t, v2Dims(fp8, sq, ctas, cl))
}

// v2Dims are compileV2's sizes, before fitCTAs.
func v2Dims(fp8 bool, sq, ctas, cl int) *Dims {
	return &Dims{Dims: paged.Dims{Page: Tile, G: 8, FP8: fp8, Quant: 1, B: 1, Hkv: 1, Hq: 8}, Sq: sq, N: padRows(8 * sq), CTAs: ctas, CL: cl}
}

// compileV2Dyn is compileV2 under the dynamic schedule (CL 1).
func compileV2Dyn(t *testing.T, fp8 bool, sq, ctas int) (*Dims, *tle.Binary) {
	t.Helper()
	return compileDims(t, v2DynDims(fp8, sq, ctas))
}

// v2DynDims are compileV2Dyn's sizes, before fitCTAs.
func v2DynDims(fp8 bool, sq, ctas int) *Dims {
	d := v2Dims(fp8, sq, ctas, 1)
	d.Dynamic = true
	return d
}

// compileDims compiles the decode kernel of Plan(d) to PTX (llc).
func compileDims(t *testing.T, d *Dims) (*Dims, *tle.Binary) {
	return buildDims(t, d, "ptx")
}

// buildDims builds the decode kernel of Plan(d) up to emit ("ll" for its
// launch parameters without running llc, "ptx" for the PTX too).
func buildDims(t *testing.T, d *Dims, emit string) (*Dims, *tle.Binary) {
	t.Helper()
	d.fitCTAs()
	pl := Plan(d)
	k, err := Kernel(pl.Decode)
	require.NoError(t, err)
	if emit == "ptx" {
		b, err := k.Compile(pl.DecodeOptions(), tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err)
		return d, b
	}
	art, err := k.Build(pl.DecodeOptions(), tle.GPUOptions{}, emit)
	require.NoError(t, err)
	return d, art.Binary
}

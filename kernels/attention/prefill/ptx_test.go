package prefill

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// ctaReserved is the shared memory the driver keeps per resident CTA, which
// a program's own must leave free in the SM's.
const ctaReserved = 1024

// TestPrefillPTX builds the prefill kernel for sm_90a with llc-19 for each
// page size and layout-independent specialisation (G 4 and 8) and checks
// the data path: S = Q K^T as wgmma m64nPAGEk16 with both operands in
// shared memory (b K-major: transpose flag 0), O += P V as m64n128k16 with
// P in four registers per thread and V from shared memory N-major (transpose flag 1), rank-4
// TMA loads of the K and V pages on mbarriers (two boxes [1, 1, page,
// 64] per page: the 128B swizzle's column blocks), and the warp roles (a
// producer warpgroup and two consumer warpgroups: 12 warps).
func TestPrefillPTX(t *testing.T) {
	t.Parallel()
	tletest.NeedLLC(t)
	tma := tletest.PTXLine(`cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+, %r\d+, %r\d+\}\], \[%r\d+\];`)
	for _, c := range []struct{ page, g int }{{16, 4}, {32, 8}, {64, 8}} {
		d := &Dims{Dims: paged.Dims{Page: c.page, G: c.g, B: 1, Hkv: 1, Hq: c.g}, QT: 1, Stages: pageStages(c.page)}
		pl := Plan(d)
		k, err := Kernel(pl.Kernel)
		require.NoError(t, err)
		b, err := k.Compile(tle.CompileOptions{Defines: pl.Defines}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "%+v", c)
		require.Equal(t, 12, b.NumWarps, "a producer warpgroup and two consumer warpgroups")
		qk := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk16\.f32\.bf16\.bf16\s+\{(%%f\d+, ){%d}%%f\d+\}, %%rd\d+, %%rd\d+, %%wgp, 1, 1, 0, 0;`, c.page, c.page/2-1)
		pv := `wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){63}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1, 1;`
		require.Len(t, tletest.PTXLine(qk).FindAllString(b.PTX, -1), 2*8, "%+v: QK^T, K = 128 in 8 steps, two loops", c)
		require.Len(t, tletest.PTXLine(pv).FindAllString(b.PTX, -1), 2*c.page/16, "%+v: PV, K = page in steps of 16, two loops", c)
		require.Len(t, tma.FindAllString(b.PTX, -1), 4, "%+v: rank-4 TMA loads of K and V, two column blocks each", c)
		require.Len(t, b.Descs, 2, "%+v: the K and V maps", c)
		for _, desc := range b.Descs {
			require.Equal(t, []int{1, 1, c.page, 64}, desc.Box, "%+v: one box per 64-column block of the 128B swizzle", c)
		}
	}
}

// TestPrefillFP8PTX: the fp8 kernel for sm_90a (quant types 0 and 1): S =
// Q K^T as e4m3 wgmma m64nPAGEk32 from shared memory, and PV as e4m3
// m64n128k32 with P in registers; pages of 16 (K = 16, below e4m3's k32)
// run PV as bf16 m64n128k16 on V converted to bf16 in shared memory. Four
// warpgroups (16 warps): the producer (setmaxnreg 24), the transposer (56),
// which alone transposes each V page in shared memory (ldmatrix.trans,
// prmt, stmatrix) or converts it to bf16, then fences it for the async
// proxy before its arrival, and two consumer warpgroups (216), with no
// transpose and no proxy fence of their own.
func TestPrefillFP8PTX(t *testing.T) {
	t.Parallel()
	tletest.NeedLLC(t)
	tma := tletest.PTXLine(`cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.mbarrier::complete_tx::bytes`)
	for _, c := range []struct{ page, g, quant int }{{16, 4, 1}, {32, 8, 0}, {64, 8, 1}, {64, 4, 0}} {
		d := &Dims{Dims: paged.Dims{Page: c.page, G: c.g, B: 1, Hkv: 1, Hq: c.g, FP8: true, Quant: c.quant}, QT: 1, Stages: pageStages(c.page)}
		b, _, transposer, consumer := compileFP8Roles(t, Plan(d), c)
		if c.page != 16 {
			// P from the QK^T accumulator to PV's register a: quad shuffles and
			// byte permutes (one shfl.sync.idx a register of a), no shared memory
			require.Len(t, tletest.PTXLine(`shfl\.sync\.idx\.b32\s+%r\d+, %r\d+, %r\d+, 31, -1;`).FindAllString(consumer, -1), c.page/8, "%+v", c)
			require.Regexp(t, tletest.PTXLine(`prmt\.b32 %r\d+, %r\d+, %r\d+, %r\d+;`), consumer, "%+v", c)
		}
		qk := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk32\.f32\.e4m3\.e4m3\s+\{(%%f\d+, ){%d}%%f\d+\}, %%rd\d+, %%rd\d+, %%wgp, 1, 1;`, c.page, c.page/2-1)
		require.Len(t, tletest.PTXLine(qk).FindAllString(b.PTX, -1), 4, "%+v: QK^T, K = 128 in 4 steps of 32", c)
		if c.page == 16 {
			pv := `wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){63}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1, 1;`
			require.Len(t, tletest.PTXLine(pv).FindAllString(b.PTX, -1), 1, "%+v: bf16 PV", c)
			require.Regexp(t, tletest.PTXLine(`cvt\.rn\.bf16(x2)?\.f32`), transposer, "%+v: V to bf16 on the transposer", c)
		} else {
			pv := `wgmma\.mma_async\.sync\.aligned\.m64n128k32\.f32\.e4m3\.e4m3\s+\{(%f\d+, ){63}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1;`
			require.Len(t, tletest.PTXLine(pv).FindAllString(b.PTX, -1), c.page/32, "%+v: e4m3 PV, K = page in steps of 32", c)
			require.Regexp(t, tletest.PTXLine(`ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16`), transposer, "%+v: the V transpose", c)
			require.Regexp(t, tletest.PTXLine(`stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`), transposer, "%+v", c)
			require.Regexp(t, tletest.PTXLine(`prmt\.b32`), transposer, "%+v", c)
		}
		require.Len(t, tma.FindAllString(b.PTX, -1), 2, "%+v: K and V pages, one box each (128-byte fp8 rows)", c)
		for _, desc := range b.Descs {
			require.Equal(t, []int{1, 1, c.page, paged.HeadDim}, desc.Box, "%+v", c)
		}
	}
}

// fp8Roles splits the fp8 kernel's PTX at its warpgroups' setmaxnreg (the
// producer's, the transposer's, the consumers', as the launch's defines
// RP, RT and RC give them): each part runs from its setmaxnreg to the next
// (the consumers', both warpgroups, to the end).
// compileFP8Roles builds the FP8 prefill launch pl with llc-19 and checks
// what both FP8 kernels share: four warpgroups (16 warps), the transposer
// alone fencing its V^T for wgmma, no fence on the producer or the
// consumers' products and no transpose on the consumers; it returns the
// binary and the roles' PTX (c names the case in messages).
func compileFP8Roles(t *testing.T, pl Launch, c any) (b *tle.Binary, producer, transposer, consumer string) {
	t.Helper()
	k, err := Kernel(pl.Kernel)
	require.NoError(t, err)
	b, err = k.Compile(tle.CompileOptions{Defines: pl.Defines}, tle.GPUOptions{Toolchain: "llc"})
	require.NoError(t, err, "%+v", c)
	require.Equal(t, 16, b.NumWarps, "producer, transposer and two consumer warpgroups")
	producer, transposer, consumer = fp8Roles(t, b.PTX, pl.Defines)
	require.NotContains(t, producer, "fence.proxy.async", "%+v", c)
	require.Regexp(t, tletest.PTXLine(`fence\.proxy\.async\.shared::cta;`), transposer, "%+v: the transposer fences its V^T for wgmma", c)
	require.NotContains(t, consumer, "fence.proxy.async", "%+v: the consumers' products need no fence of their own", c)
	for _, op := range []string{"ldmatrix", "stmatrix"} {
		require.NotContains(t, consumer, op, "%+v: no transpose on the consumers", c)
	}
	return b, producer, transposer, consumer
}

func fp8Roles(t *testing.T, ptx string, defs map[string]string) (producer, transposer, consumer string) {
	t.Helper()
	at := func(s string, from int) int {
		i := strings.Index(ptx[from:], s)
		require.GreaterOrEqual(t, i, 0, "no %s", s)
		return from + i
	}
	// the transposer's setmaxnreg after the producer's (RT may equal RP)
	p := at(fmt.Sprintf("setmaxnreg.dec.sync.aligned.u32 %s;", defs["RP"]), 0)
	tr := at(fmt.Sprintf("setmaxnreg.dec.sync.aligned.u32 %s;", defs["RT"]), p+1)
	c := at(fmt.Sprintf("setmaxnreg.inc.sync.aligned.u32 %s;", defs["RC"]), 0)
	require.Less(t, p, tr)
	require.Less(t, tr, c)
	return ptx[p:tr], ptx[tr:c], ptx[c:]
}

// TestPrefillMaskPTX: the block-sparse specialisations (MASK 1) of both
// kernels build for sm_90a with llc-19, with the tile list compacted by
// warp votes (ballot + popc) and the same products as the dense kernels.
func TestPrefillMaskPTX(t *testing.T) {
	t.Parallel()
	tletest.NeedLLC(t)
	for _, c := range []struct {
		page, g int
		fp8     bool
	}{{64, 8, false}, {32, 4, false}, {64, 8, true}, {32, 4, true}} {
		d := &Dims{Dims: paged.Dims{Page: c.page, G: c.g, B: 1, Hkv: 1, Hq: c.g, FP8: c.fp8, Quant: 1}, QT: 1, Stages: pageStages(c.page), Mask: true, MaskKT: 256}
		pl := Plan(d)
		require.Equal(t, "1", pl.Defines["MASK"])
		require.Equal(t, "256", pl.Defines["KT_MAX"])
		k, err := Kernel(pl.Kernel)
		require.NoError(t, err)
		b, err := k.Compile(tle.CompileOptions{Defines: pl.Defines}, tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "%+v", c)
		warps := 12
		if c.fp8 {
			warps = 16
		}
		require.Equal(t, warps, b.NumWarps, "%+v", c)
		require.Regexp(t, tletest.PTXLine(`vote\.sync\.ballot\.b32`), b.PTX, "%+v: prefix_count's ballots", c)
		require.Regexp(t, tletest.PTXLine(`popc\.b32`), b.PTX, "%+v", c)
		if c.fp8 {
			qk := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk32\.f32\.e4m3\.e4m3`, c.page)
			require.Len(t, tletest.PTXLine(qk).FindAllString(b.PTX, -1), 4, "%+v: QK^T", c)
		} else {
			qk := fmt.Sprintf(`wgmma\.mma_async\.sync\.aligned\.m64n%dk16\.f32\.bf16\.bf16`, c.page)
			require.Len(t, tletest.PTXLine(qk).FindAllString(b.PTX, -1), 2*8, "%+v: QK^T, two loops", c)
		}
	}
}

// TestPrefillFP8K128PTX: the 128-keys-a-step fp8 kernel
// (attn_prefill_fp8_k128) for sm_90a, pages 64, 32 and 16, quant types 0
// and 1, dense and masked: S = Q K^T as one e4m3 wgmma m64n128k32 per k
// step over the stage's 128/page page slots seen as one [128, 128] view
// (four in all: K = 128), PV as e4m3 m64n128k32 with P in registers (four:
// 128 keys), the pages TMA-loaded one box each into their slots, the
// transposer alone transposing the stage's [128, 128] V view into V^T
// (ldmatrix.trans, prmt, stmatrix) and fencing it, the same four
// warpgroups as attn_prefill_fp8 (the consumers two copies of one role,
// each with its setmaxnreg and its own named barrier), and the shared
// memory of SK = 2 stages within a CTA's.
func TestPrefillFP8K128PTX(t *testing.T) {
	t.Parallel()
	tletest.NeedLLC(t)
	tma := tletest.PTXLine(`cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.mbarrier::complete_tx::bytes`)
	qk := tletest.PTXLine(`wgmma\.mma_async\.sync\.aligned\.m64n128k32\.f32\.e4m3\.e4m3\s+\{(%f\d+, ){63}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1;`)
	pv := tletest.PTXLine(`wgmma\.mma_async\.sync\.aligned\.m64n128k32\.f32\.e4m3\.e4m3\s+\{(%f\d+, ){63}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1;`)
	for _, c := range []struct {
		page, g, quant int
		mask           bool
		keyTiles       int // the longest walk's steps: PEEL 1 up to fp8K128PeelSteps, PEEL 0 past them
	}{{64, 8, 0, false, 0}, {64, 4, 1, false, 0}, {64, 8, 0, true, 0}, {32, 8, 1, false, 0}, {16, 4, 0, true, 0},
		{64, 8, 0, false, 256}, {64, 4, 1, true, 256}} {
		d := &Dims{Dims: paged.Dims{Page: c.page, G: c.g, B: 1, Hkv: 1, Hq: c.g, FP8: true, Quant: c.quant}, QT: 1, Mask: c.mask, MaskKT: MaxKeyTiles, KeyTiles: c.keyTiles}
		require.NoError(t, d.setKeyStep(KeyStep))
		pl := Plan(d)
		require.Equal(t, "attn_prefill_fp8_k128", pl.Kernel)
		peeled := c.keyTiles <= fp8K128PeelSteps
		require.Equal(t, map[bool]string{true: "1", false: "0"}[peeled], pl.Defines["PEEL"], "%+v", c)
		b, producer, transposer, consumer := compileFP8Roles(t, pl, c)
		require.LessOrEqual(t, b.SmemBytes+ctaReserved, tle.H200.SmemPerSM, "%+v", c)
		require.Regexp(t, tletest.PTXLine(`ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16`), transposer, "%+v: the V transpose", c)
		require.Regexp(t, tletest.PTXLine(`stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16`), transposer, "%+v", c)
		// both transposes (a full tile, and the last one with V's rows
		// past L zeroed) are 8 ldmatrix.x4 and 8 stmatrix.x4, interleaved:
		// the whole V^T is 32 registers a thread, more than the role's 24
		require.NotRegexp(t, tletest.PTXLine(`st\.shared\.(b8|u8|v2\.b8|v4\.b8)`), transposer, "%+v: no byte stores", c)
		seq := strings.Join(regexp.MustCompile(`(ld|st)matrix`).FindAllString(transposer, -1), " ")
		require.Equal(t, strings.TrimSpace(strings.Repeat("ldmatrix stmatrix ", 16)), seq, "%+v: ldmatrix and stmatrix interleaved in both transposes", c)
		require.Equal(t, "2", pl.Defines["SK"], "%+v", c)
		require.Equal(t, 2, strings.Count(consumer, "setmaxnreg.inc.sync.aligned.u32 "+pl.Defines["RC"]+";"), "%+v: two consumer copies", c)
		for _, bar := range []string{"bar.sync 3, 128;", "bar.sync 4, 128;"} {
			require.Contains(t, consumer, bar, "%+v: each copy its own named barrier", c)
		}
		qkAt := 2 // each copy's peeled step 0 and loop
		if !peeled {
			qkAt = 1 // the loop only
		}
		require.Len(t, qk.FindAllString(consumer, -1), 2*qkAt*4, "%+v: QK^T over 128 keys, K = 128 in 4 steps of 32, in each copy's step 0 (PEEL 1) and loop", c)
		require.Len(t, pv.FindAllString(consumer, -1), 2*2*4, "%+v: PV, K = 128 keys in 4 steps of 32, in each copy's loop and after it", c)
		require.NotRegexp(t, `wgmma\.mma_async\.sync\.aligned\.m64n(16|32|64)k`, b.PTX, "%+v: no narrow product", c)
		require.NotRegexp(t, tletest.PTXLine(`wgmma\.wait_group\.sync\.aligned [1-9];`), b.PTX, "%+v: one wait_group 0 a step (ptxas serialises a kernel whose wait_group N retires the previous step's PV)", c)
		require.Len(t, tma.FindAllString(producer, -1), 2, "%+v: a K and a V box per page (a loop over the step's pages)", c)
		require.Len(t, b.Descs, 2, "%+v", c)
		for _, desc := range b.Descs {
			require.Equal(t, []int{1, 1, c.page, paged.HeadDim}, desc.Box, "%+v", c)
		}
		if c.mask {
			require.Regexp(t, tletest.PTXLine(`vote\.sync\.ballot\.b32`), b.PTX, "%+v: prefix_count's ballots", c)
		}
	}
}

// TestPrefillBF16K128PTX: the 128-keys-a-step bf16 kernel
// (attn_prefill_bf16_k128, pages of 64) for sm_90a, dense and masked: each
// of the two consumer copies (a role op each, so its code twice) issues
// per step one QK^T product m64n128k16 from shared memory over both pages
// (q and k in two 64-column halves, K = 128 in 2 x 4 steps: in step 0's
// prologue and in the loop) and two PV products m64n64k16 with P in
// registers and V N-major (one per column half of v, K = 128 keys in 8
// steps each: in the loop and for the last step); the pages TMA-loaded into
// their slots (two 64-column boxes a page, K and V of two pages: 8
// copies); 12 warps with attn_prefill_bf16's setmaxnreg split; the
// two-stage ring's shared memory within a CTA's.
func TestPrefillBF16K128PTX(t *testing.T) {
	t.Parallel()
	tletest.NeedLLC(t)
	tma := tletest.PTXLine(`cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.mbarrier::complete_tx::bytes`)
	qk := tletest.PTXLine(`wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){63}%f\d+\}, %rd\d+, %rd\d+, %wgp, 1, 1, 0, 0;`)
	pv := tletest.PTXLine(`wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){31}%f\d+\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1, 1;`)
	for _, c := range []struct {
		g    int
		mask bool
	}{{8, false}, {4, false}, {8, true}} {
		d := &Dims{Dims: paged.Dims{Page: 64, G: c.g, B: 1, Hkv: 1, Hq: c.g}, QT: 1, Mask: c.mask, MaskKT: 1024}
		require.NoError(t, d.setKeyStep(KeyStep))
		pl := Plan(d)
		require.Equal(t, "attn_prefill_bf16_k128", pl.Kernel)
		require.Equal(t, "2", pl.Defines["SB"])
		k, err := Kernel(pl.Kernel)
		require.NoError(t, err)
		b, err := k.Compile(pl.Options(), tle.GPUOptions{Toolchain: "llc"})
		require.NoError(t, err, "%+v", c)
		t.Logf("%+v: %d bytes of shared memory", c, b.SmemBytes)
		require.Equal(t, 12, b.NumWarps, "a producer warpgroup and two consumer warpgroups")
		require.LessOrEqual(t, b.SmemBytes+ctaReserved, tle.H200.SmemPerSM, "%+v", c)
		require.Regexp(t, tletest.PTXLine(`setmaxnreg\.dec\.sync\.aligned\.u32 40;`), b.PTX, "%+v", c)
		require.Regexp(t, tletest.PTXLine(`setmaxnreg\.inc\.sync\.aligned\.u32 232;`), b.PTX, "%+v", c)
		require.Len(t, qk.FindAllString(b.PTX, -1), 2*2*2*4, "%+v: per copy one QK^T a step (two column halves, K = 64 in 4 steps each), step 0 and the loop", c)
		require.Len(t, pv.FindAllString(b.PTX, -1), 2*2*2*8, "%+v: per copy two PV a step (one per column half, K = 128 keys in 8 steps each), the loop and the last step", c)
		require.NotRegexp(t, `m64n64k16\.f32\.bf16\.bf16\s+\{(%f\d+, ){31}%f\d+\}, %rd\d+, %rd\d+`, b.PTX, "%+v: no m64n64 QK^T from shared memory", c)
		require.NotRegexp(t, tletest.PTXLine(`wgmma\.wait_group\.sync\.aligned [1-9];`), b.PTX, "%+v: one wait_group 0 a step (ptxas serialises a kernel whose wait_group N retires the previous step's PV)", c)
		require.Len(t, tma.FindAllString(b.PTX, -1), 8, "%+v: K and V of two pages, two column blocks each", c)
		require.Len(t, b.Descs, 2, "%+v", c)
		for _, desc := range b.Descs {
			require.Equal(t, []int{1, 1, 64, 64}, desc.Box, "%+v: one box per 64-column block of the 128B swizzle", c)
		}
		if c.mask {
			require.Regexp(t, tletest.PTXLine(`vote\.sync\.ballot\.b32`), b.PTX, "%+v: prefix_count's ballots", c)
		}
	}
}

package nvptx

import (
	"fmt"
	"slices"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// wgmma (sm_90a warpgroup MMA), as inline asm (no LLVM 19 intrinsics).
//
// wgmma(a, b, acc) with a and b in shared memory lowers to
//
//	[fence.proxy.async.shared::cta; bar.sync]   when generic stores wrote shared memory
//	wgmma.fence.sync.aligned;
//	wgmma.mma_async.sync.aligned.m64n{N}k16.f32.bf16.bf16 {d..}, descA, descB, p, 1, 1, tA, tB;  per 64-row block, per k16
//	wgmma.commit_group.sync.aligned;
//
// and wgmma_wait(n) to wgmma.wait_group.sync.aligned n, whose asm takes and
// returns the registers of the accumulators still in flight (the wgmma
// results of its block since the last wgmma_wait(0)), so that LLVM cannot
// move their uses above the wait.
//
// The accumulator has layout gpu.MMAv3{[numWarps, 1]}: warpgroup g issues
// the instructions of its 64-row blocks (see gpu.MMAv3; several blocks
// per warpgroup when M > 16*numWarps). a and b are read through 64-bit
// matrix descriptors: start address >> 4 (bits 0-13), leading byte offset
// >> 4 (16-29), stride byte offset >> 4 (32-45), base offset 0 (49-51: the
// buffers are aligned to whole swizzle atoms), swizzle mode (62-63: 1 =
// 128B, 2 = 64B, 3 = 32B). The buffers have the layouts of
// gpu.WgmmaSharedLayout: rows of exactly one swizzle span S bytes, the
// 16-byte chunks of row r XOR-swizzled by r's phase, i.e. CUTLASS's
// canonical layouts:
//
//	K-major (the buffer's contiguous dimension is K): rows are M (or N) at S
//	bytes; 8-row atoms at SBO = 8*S; LBO unused (1). The k16 step moves the
//	start address by 16*elem bytes inside the swizzle row; a 64-row block of
//	A starts 64*S bytes further.
//	MN-major (contiguous dimension M or N; imm-trans = 1): rows are K at S
//	bytes, the whole M (N) extent is one atom wide (M*elem == S); SBO = 8*S
//	between groups of 8 K rows; LBO (between atoms along M/N) unused. The
//	k16 step moves the start address by 16*S bytes.

// wgmmaOperand is a and b as the descriptors see them.
type wgmmaOperand struct {
	addr   value.Value // i32 shared-window address of the view's first element
	kMajor bool
	span   int // swizzle span S in bytes
	mnExt  int // extent along M (a) or N (b)
	// column blocks (gpu.Shared.BlockCols): blockElems elements of the
	// contiguous dimension per block, blockBytes between blocks (rows * S);
	// blockElems 0 when the rows are one span
	blockElems, blockBytes int
}

// contigOff is the byte offset of element e of the contiguous dimension in
// row 0 (its column block's start plus e inside it).
func (o *wgmmaOperand) contigOff(e, eb int) int {
	if o.blockElems == 0 {
		return e * eb
	}
	return e/o.blockElems*o.blockBytes + e%o.blockElems*eb
}

// wgmmaView checks a shared view feeding wgmma and returns how to describe
// it: kDim is the view dimension that is K.
func (g *gen) wgmmaView(name string, v *ir.Value, kDim int) *wgmmaOperand {
	t := g.val(v)
	if t.mem == nil {
		g.failf("wgmma operand %s must be a shared-memory view here (the layout passes stage register operands)", name)
	}
	ref := t.mem
	md := ref.desc
	if ref.cluster || md.Space == ir.Cluster {
		g.failf("wgmma operand %s: a remote (cluster) view cannot feed wgmma", name)
	}
	if len(md.Shape) != 2 {
		g.failf("wgmma operand %s: the view must be 2-D, has shape %v", name, md.Shape)
	}
	eb := md.Elem.Bytes()
	sh := sharedLayoutOf(md)
	span := gpu.WgmmaSwizzleBytes(sh, md.Shape, eb)
	if span == 0 {
		g.failf("wgmma operand %s: the buffer's shared layout %s (shape %v) is not a wgmma layout "+
			"(rows of exactly 32, 64 or 128 bytes, swizzled as gpu.WgmmaSharedLayout)", name, sh, md.Shape)
	}
	if a := knownAlign(ref.off); a < 8*span {
		g.failf("wgmma operand %s: the view is only known to be %d-byte aligned; its %dB swizzle needs %d "+
			"(a slot of a buffer whose slots are not whole swizzle atoms?)", name, a, span, 8*span)
	}
	if sb := g.md.sharedBase(); int(sb.Align) < gpu.WgmmaAlign {
		sb.Align = llvm.Align(gpu.WgmmaAlign)
	}
	o := &wgmmaOperand{addr: g.smemAddr(ref.off), kMajor: sh.Order[0] == kDim, span: span, mnExt: md.Shape[1-kDim]}
	if sh.Blocked(md.Shape) {
		o.blockElems = sh.BlockCols
		o.blockBytes = md.Shape[sh.Order[1]] * span
	}
	return o
}

// desc builds the descriptor of o starting byteOff bytes into the view.
func (g *gen) wgmmaDesc(o *wgmmaOperand, byteOff value.Value) value.Value {
	mode := map[int]int64{128: 1, 64: 2, 32: 3}[o.span]
	lbo, sbo := int64(1), int64(8*o.span>>4)
	if !o.kMajor {
		// MN-major: LBO is the stride between span-wide column blocks along
		// M/N (CUTLASS's ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) for SW128),
		// SBO the stride between 8-row groups along K
		lbo = int64(8 * o.span >> 4) // one column block: unused
		if o.blockElems > 0 {
			lbo = int64(o.blockBytes >> 4)
		}
	}
	bitsHi := lbo<<16 | sbo<<32 | mode<<62
	addr := g.add(o.addr, byteOff)
	lo := g.cur.NewZExt(g.and(g.lshr(addr, i32c(4)), i32c(0x3FFF)), types.I64)
	return g.cur.NewOr(lo, i64c(bitsHi))
}

// wgmma lowers wgmma(a, b, acc): after the checks of its operands and the
// proxy fence its shared-memory reads need, one wgmma.mma_async per 64-row
// block and k step, between wgmma.fence and wgmma.commit_group.
func (g *gen) wgmma(op *ir.Op) {
	w := g.newWgmmaLowering(op)
	g.wgmmaProxySync(w)
	warpRow := g.wgmmaWarpRow(w.ll)
	mma := g.wgmmaInstr(w)
	out, aPairs := g.wgmmaInputs(w)
	g.wgmmaIssue(w, mma, warpRow, out, aPairs)
	g.convergentAsm("wgmma.commit_group.sync.aligned;")
	g.set(op.Results[0], out)
}

// wgmmaLowering is what the steps of one wgmma's lowering share.
type wgmmaLowering struct {
	op             *ir.Op
	M, N, K, kStep int
	ty             string        // the PTX operand types (bf16.bf16, e4m3.e5m2, ...)
	eb             int           // bytes of an element of a
	a, b           *wgmmaOperand // a nil: a in registers (aRegs, the RS form)
	aRegs          *tval
	ll             *gpu.LinearLayout // the accumulator's layout
	n              int               // accumulator registers per 64-row block
	blocks         []int             // each 64-row block's first row (wgmmaBlocks)
	r8             int               // the row of PTX's row 8 of a warp's 16: 8, or 1 in row pairs (gpu.MMAv3.PairRows)
	acc            *tval
	zero           bool // acc is a zero constant, not materialised
}

// newWgmmaLowering checks a wgmma's types, operands and shape, in that
// order, and describes them.
func (g *gen) newWgmmaLowering(op *ir.Op) *wgmmaLowering {
	rt := op.Results[0].Type.(*ir.Tile)
	if _, ok := rt.Layout.(*gpu.MMAv3); !ok {
		g.failf("wgmma result has layout %v, want mmav3 (run the layout passes)", rt.Layout)
	}
	if ir.ElemDType(rt.Elem) != ir.F32 {
		g.failf("wgmma accumulates in f32 here, not %s", rt.Elem)
	}
	transA, transB := op.Attrs.Bool("trans_a"), op.Attrs.Bool("trans_b")
	w := &wgmmaLowering{op: op, M: rt.Shape[0], N: rt.Shape[1]}
	w.ty, w.kStep = g.wgmmaTypes(ir.ElemDType(op.Operands[0].Type), ir.ElemDType(op.Operands[1].Type))
	kDimA, kDimB := 1, 0
	if transA {
		kDimA = 0
	}
	if transB {
		kDimB = 1
	}
	// a from registers (the RS form) or, like b, from a shared view
	w.aRegs = g.val(op.Operands[0])
	if w.aRegs.mem != nil {
		w.a = g.wgmmaView("a", op.Operands[0], kDimA)
	} else if transA || w.aRegs.ll == nil {
		g.failf("wgmma operand a in registers must not be transposed (the layout passes stage other register operands)")
	}
	w.b = g.wgmmaView("b", op.Operands[1], kDimB)
	w.K = ir.ShapeOf(op.Operands[0].Type)[kDimA]
	w.eb = ir.ElemDType(op.Operands[0].Type).Bytes()
	g.checkWgmmaShape(w)
	w.ll = g.layoutOf(op.Results[0].Type)
	w.n = w.N / 2
	w.blocks, w.r8 = g.wgmmaBlocks(w.ll, w.M, w.N)
	if w.r8 != 8 && w.a != nil {
		g.failf("wgmma accumulator in row pairs needs its operand a in registers")
	}
	w.acc = g.val(op.Operands[2])
	if len(w.acc.regs) != w.ll.NumRegs() {
		g.failf("wgmma accumulator has %d registers, want %d", len(w.acc.regs), w.ll.NumRegs())
	}
	w.zero = isZeroConst(op.Operands[2])
	return w
}

// wgmmaTypes is the PTX type suffix of operands of dtypes da and db, and
// the K of one instruction (16; 32 for fp8, 8 for tf32).
func (g *gen) wgmmaTypes(da, db ir.DType) (string, int) {
	switch {
	case da == db && (da == ir.BF16 || da == ir.F16):
		return da.String() + "." + da.String(), 16
	case (da == ir.F8E4M3 || da == ir.F8E5M2) && (db == ir.F8E4M3 || db == ir.F8E5M2):
		return fp8Name(da) + "." + fp8Name(db), 32
	case da == ir.F32 && db == ir.F32:
		return "tf32.tf32", 8
	}
	g.failf("wgmma of %s x %s: operands must both be bf16, both f16, both f32 (tf32), or fp8 (e4m3 / e5m2)", da, db)
	return "", 16
}

// checkWgmmaShape checks the instruction shape and that the shared
// operands' layouts are ones the descriptors can describe.
func (g *gen) checkWgmmaShape(w *wgmmaLowering) {
	M, N, K, a, b, eb := w.M, w.N, w.K, w.a, w.b, w.eb
	if M%64 != 0 || N%8 != 0 || N < 8 || N > 256 || K%w.kStep != 0 {
		g.failf("wgmma shape %dx%dx%d: M must be a multiple of 64, N a multiple of 8 up to 256, K a multiple of %d", M, N, K, w.kStep)
	}
	if w.kStep == 32 && ((a != nil && !a.kMajor) || !b.kMajor) {
		g.failf("fp8 wgmma needs K-major operands (K the buffers' contiguous dimension)")
	}
	if w.kStep == 8 && (a == nil || !a.kMajor || !b.kMajor) {
		g.failf("tf32 wgmma (f32 operands) needs K-major operands in shared memory: a stored [M, K] and b stored [N, K] " +
			"(trans_b: true), K the buffers' contiguous dimension")
	}
	if a != nil && !a.kMajor && a.mnExt*eb != a.span && a.blockElems == 0 {
		g.failf("wgmma operand a is M-major with M = %d: M-major a must be one swizzle span (%d elements) or column-blocked", a.mnExt, a.span/eb)
	}
	if !b.kMajor && b.mnExt*eb != b.span && b.blockElems == 0 {
		g.failf("wgmma operand b is N-major with N = %d: N-major b must be one swizzle span (%d elements) or column-blocked", b.mnExt, b.span/eb)
	}
	views := []*wgmmaOperand{b}
	if a != nil {
		views = append(views, a)
	}
	for _, o := range views {
		if o.blockBytes>>4 >= 1<<14 {
			g.failf("wgmma operand's column blocks are %d bytes apart: more than the descriptor's 14-bit offset field holds", o.blockBytes)
		}
	}
	for _, o := range views {
		if o.blockElems > 0 && o.blockElems&(o.blockElems-1) != 0 {
			g.failf("wgmma operand's column blocks of %d elements are not a power of two", o.blockElems)
		}
	}
}

// wgmmaProxySync makes generic stores into the operands' shared memory
// visible to the async proxy that wgmma reads through (each writing thread
// fences, then a barrier), or orders other writes of their bytes with a
// barrier, and records the reads.
func (g *gen) wgmmaProxySync(w *wgmmaLowering) {
	rs := []rng{refRange(g.val(w.op.Operands[1]).mem)}
	if w.a != nil {
		rs = append(rs, refRange(w.aRegs.mem))
	}
	if g.wgmmaNeedsProxyFence(w.op) {
		g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "fence.proxy.async.shared::cta;", "~{memory}", true))
		g.barrier()
	} else if anyOverlap(g.sync.writes, rs[0]) || (w.a != nil && anyOverlap(g.sync.writes, rs[1])) {
		g.barrier()
	}
	g.sync.reads = append(g.sync.reads, rs...)
}

// wgmmaWarpRow is the 64-row block offset of this thread's warpgroup in an
// accumulator of layout ll (warp id bits 2..), computed at entry.
func (g *gen) wgmmaWarpRow(ll *gpu.LinearLayout) value.Value {
	var warpRow value.Value = i32c(0)
	g.atEntry(func() {
		for k := 2; k < len(ll.Warp); k++ {
			if r := ll.Warp[k][0]; r != 0 {
				warpRow = g.or(warpRow, g.shl(g.and(g.lshr(g.warp, i32c(int64(k))), i32c(1)), i32c(int64(log2(r)))))
			}
		}
	})
	return warpRow
}

// wgmmaInstr is the inline asm of one wgmma.mma_async: operands the n
// accumulators, then a (a descriptor, or 4 registers of packed pairs), b's
// descriptor and scale-d (0: D = A*B); the accumulators are tied to the
// outputs.
func (g *gen) wgmmaInstr(w *wgmmaLowering) *llvm.InlineAsm {
	a, b, n := w.a, w.b, w.n
	fty := make([]types.Type, n)
	for i := range fty {
		fty[i] = types.Float
	}
	aOps, aCons, aTypes := "$%d", []string{"l"}, []types.Type{types.I64}
	if a == nil {
		aOps, aCons, aTypes = "{$%d, $%d, $%d, $%d}", []string{"r", "r", "r", "r"}, []types.Type{types.I32, types.I32, types.I32, types.I32}
	}
	na := len(aTypes)
	params := append(append(append([]types.Type(nil), fty...), aTypes...), types.I64, types.I32)
	tA, tB := 0, 0
	if a != nil && !a.kMajor {
		tA = 1
	}
	if !b.kMajor {
		tB = 1
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "{\n\t.reg .pred %%wgp;\n\tsetp.ne.b32 %%wgp, $%d, 0;\n\twgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s {", 2*n+na+1, w.N, w.kStep, w.ty)
	cons := make([]string, 0, 2*n+4)
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "$%d", i)
		cons = append(cons, "=f")
	}
	scaleAB := ", 1, 1"
	transArgs := fmt.Sprintf(", %d, %d", tA, tB)
	if w.kStep != 16 {
		transArgs = "" // fp8, tf32: K-major only, no transpose immediates
	} else if a == nil {
		transArgs = fmt.Sprintf(", %d", tB) // RS: b's transpose only
	}
	aNums := make([]any, na)
	for i := range aNums {
		aNums[i] = 2*n + i
	}
	fmt.Fprintf(&sb, "}, "+aOps+", $%d, %%wgp%s%s;\n}", append(aNums, 2*n+na, scaleAB, transArgs)...)
	for i := 0; i < n; i++ {
		cons = append(cons, fmt.Sprint(i))
	}
	cons = append(append(cons, aCons...), "l", "r", "~{memory}")
	mma := g.md.inlineAsm(types.NewStruct(fty...), params, sb.String(), strings.Join(cons, ","), true)
	g.md.convergent[mma] = true
	return mma
}

// wgmmaInputs fences the accumulator registers (and a's packed pairs in
// the RS form, keyed by (row, k) relative to the thread): wgmma.fence
// orders their earlier writes before the wgmma reads them, and as they go
// through it no move into them is placed after it. A zero accumulator is
// not materialised: the first k step of each block runs with scale-d = 0
// on undefined registers.
func (g *gen) wgmmaInputs(w *wgmmaLowering) (*tval, map[[2]int]value.Value) {
	out := &tval{ll: w.ll, regs: append([]value.Value(nil), w.acc.regs...)}
	if w.zero {
		for i := range out.regs {
			out.regs[i] = constant.NewUndef(types.Float)
		}
	}
	if w.a != nil {
		out.regs = g.wgmmaFence(out.regs)
		return out, nil
	}
	keys, aPairs := g.wgmmaRegA(w.aRegs, w.ll, w.blocks, w.r8, w.K, w.kStep)
	vals := make([]value.Value, 0, len(keys)+len(out.regs))
	for _, key := range keys {
		vals = append(vals, aPairs[key])
	}
	fenced := g.wgmmaFence(append(vals, out.regs...))
	for i, key := range keys {
		aPairs[key] = fenced[i]
	}
	out.regs = fenced[len(keys):]
	return out, aPairs
}

// wgmmaIssue emits the wgmma.mma_async calls, per 64-row block and k step,
// into out's registers.
func (g *gen) wgmmaIssue(w *wgmmaLowering, mma *llvm.InlineAsm, warpRow value.Value, out *tval, aPairs map[[2]int]value.Value) {
	a, b, n, eb := w.a, w.b, w.n, w.eb
	bDesc := g.wgmmaDesc(b, i32c(0))
	for j, row := range w.blocks {
		rowOff := g.add(warpRow, i32c(int64(row)))
		var aDesc value.Value
		if a != nil {
			aDesc = g.wgmmaDesc(a, g.wgmmaBlockOff(a, rowOff, eb))
		}
		for k := 0; k < w.K; k += w.kStep {
			kOffB := b.contigOff(k, eb) // K-major: K is contiguous (wide K in column blocks)
			if !b.kMajor {
				kOffB = k * b.span
			}
			args := make([]value.Value, 0, n+3)
			args = append(args, out.regs[j*n:(j+1)*n]...)
			scaleD := int64(1)
			if w.zero && k == 0 {
				scaleD = 0
			}
			if a == nil {
				for _, rk := range regAFragment(row, k, w.r8, w.kStep) {
					args = append(args, aPairs[rk])
				}
			} else {
				kOffA := a.contigOff(k, eb)
				if !a.kMajor {
					kOffA = k * a.span
				}
				args = append(args, g.cur.NewAdd(aDesc, i64c(int64(kOffA>>4))))
			}
			args = append(args, g.cur.NewAdd(bDesc, i64c(int64(kOffB>>4))), i32c(scaleD))
			call := g.cur.NewCall(mma, args...)
			for i := 0; i < n; i++ {
				out.regs[j*n+i] = g.cur.NewExtractValue(call, uint64(i))
			}
		}
	}
}

// wgmmaBlockOff is the byte offset in a's view of the 64-row block
// starting at row rowOff.
func (g *gen) wgmmaBlockOff(a *wgmmaOperand, rowOff value.Value, eb int) value.Value {
	switch {
	case a.kMajor:
		return g.mul(rowOff, i32c(int64(a.span)))
	case a.blockElems > 0:
		// M-major, column-blocked: the 64-row block starts in column
		// block rowOff / blockElems (rowOff is a multiple of 64)
		return g.add(g.mul(g.lshr(rowOff, i32c(int64(log2(a.blockElems)))), i32c(int64(a.blockBytes))),
			g.mul(g.and(rowOff, i32c(int64(a.blockElems-1))), i32c(int64(eb))))
	}
	return g.mul(rowOff, i32c(int64(eb))) // 0: M-major a is one 64-row block
}

// regAFragment is the (row, k) of the first element of each of the four
// 32-bit registers of wgmma's register operand a, for the k step of kStep
// starting at k, relative to the thread: (r, k), (r+8, k), (r, k+h),
// (r+8, k+h) with h = kStep/2 (mma.sync's a fragment for 16-bit types;
// 8-bit ones hold four k per register instead of two); in row pairs
// (r8 = 1) the fragment's row 8 is the tile's row r+1.
func regAFragment(row, k, r8, kStep int) [4][2]int {
	h := kStep / 2
	return [4][2]int{{row, k}, {row + r8, k}, {row, k + h}, {row + r8, k + h}}
}

// wgmmaRegA returns the packed registers of a register operand a (RS
// form) the wgmma of each 64-row block and k step reads, keyed by the
// (row, k) of their first element relative to the thread (regAFragment),
// and the keys in the order of use: pairs of 16-bit elements, or quads of
// 8-bit ones for kStep 32. a's warps must own the rows the accumulator's
// warps own.
func (g *gen) wgmmaRegA(a *tval, acc *gpu.LinearLayout, blocks []int, r8, K, kStep int) ([][2]int, map[[2]int]value.Value) {
	if len(a.ll.Warp) != len(acc.Warp) {
		g.failf("wgmma operand a's layout %v does not match the accumulator's warps", a.ll)
	}
	for i := 2; i < 5; i++ {
		// the lanes' rows (plain or in row pairs) are the accumulator's
		if len(a.ll.Lane) != 5 || a.ll.Lane[i][0] != acc.Lane[i][0] || a.ll.Lane[i][1] != 0 {
			g.failf("wgmma operand a's layout %v does not match the accumulator's rows", a.ll)
		}
	}
	for k := range acc.Warp {
		if a.ll.Warp[k][0] != acc.Warp[k][0] || a.ll.Warp[k][1] != 0 {
			g.failf("wgmma operand a's layout %v does not match the accumulator's warps", a.ll)
		}
	}
	var keys [][2]int
	out := map[[2]int]value.Value{}
	for _, row := range blocks {
		for k := 0; k < K; k += kStep {
			for _, rk := range regAFragment(row, k, r8, kStep) {
				r := g.regAt(a.ll, []int{rk[0], rk[1]})
				if r < 0 {
					g.failf("wgmma operand a's layout %v lacks element (%d, %d) of the fragment", a.ll, rk[0], rk[1])
				}
				keys = append(keys, rk)
				if kStep == 32 {
					out[rk] = g.quad(a, r)
				} else {
					out[rk] = g.pair(a, r)
				}
			}
		}
	}
	return keys, out
}

// wgmmaFence emits wgmma.fence.sync.aligned with regs (f32 accumulators,
// i32 packed a operands) tied through it and returns the registers after
// it.
func (g *gen) wgmmaFence(regs []value.Value) []value.Value {
	return g.tiedAsm("wgmma.fence.sync.aligned;", regs)
}

// isZeroConst reports whether v is a constant zero tile.
func isZeroConst(v *ir.Value) bool {
	if v.Def == nil || v.Def.Kind != ir.OpConstant {
		return false
	}
	switch x := v.Def.Attrs["value"].(type) {
	case int64:
		return x == 0
	case int:
		return x == 0
	case float64:
		return x == 0
	}
	return false
}

func fp8Name(d ir.DType) string {
	if d == ir.F8E4M3 {
		return "e4m3"
	}
	return "e5m2"
}

// wgmmaBlocks checks that ll is the wgmma accumulator fragment of an [M, N]
// tile (gpu.MMAv3, plain or in row pairs) and returns the first row,
// relative to the thread's warpgroup, of each 64-row block its registers
// hold (block j in registers j*N/2 ... (j+1)*N/2 - 1, in PTX's d0.. order),
// and the tile row of the fragment's row 8 (8; 1 in row pairs).
func (g *gen) wgmmaBlocks(ll *gpu.LinearLayout, M, N int) ([]int, int) {
	n := N / 2
	bad := func(why string) { g.failf("wgmma accumulator layout %v is not the m64n%d fragment: %s", ll, N, why) }
	lanes := [][]int{{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}
	r8 := 8
	if len(ll.Lane) == 5 && slices.Equal(ll.Lane[2], []int{2, 0}) {
		lanes, r8 = [][]int{{0, 2}, {0, 4}, {2, 0}, {4, 0}, {8, 0}}, 1
	}
	for i, l := range lanes {
		if i >= len(ll.Lane) || !slices.Equal(ll.Lane[i], l) {
			bad("lanes")
		}
	}
	if len(ll.Warp) < 2 || !slices.Equal(ll.Warp[0], []int{16, 0}) || !slices.Equal(ll.Warp[1], []int{32, 0}) {
		bad("the warps of a warpgroup must own its 4 x 16 rows")
	}
	for k := 2; k < len(ll.Warp); k++ {
		if ll.Warp[k][1] != 0 || (ll.Warp[k][0] != 0 && ll.Warp[k][0]%64 != 0) {
			bad("warpgroups must own whole 64-row blocks")
		}
	}
	if ll.NumRegs()%n != 0 {
		bad("register count")
	}
	for r := 0; r < n; r++ {
		want := []int{r8 * (r >> 1 & 1), r&1 + 8*(r>>2)}
		if !slices.Equal(ll.RegCoords(r), want) {
			bad(fmt.Sprintf("register %d holds %v, PTX's d%d is %v", r, ll.RegCoords(r), r, want))
		}
	}
	var rows []int
	for j := 0; j < ll.NumRegs()/n; j++ {
		base := ll.RegCoords(j * n)
		if base[1] != 0 || base[0]%64 != 0 {
			bad("64-row blocks")
		}
		for r := 0; r < n; r++ {
			c, w := ll.RegCoords(j*n+r), ll.RegCoords(r)
			if c[0] != base[0]+w[0] || c[1] != w[1] {
				bad("64-row blocks")
			}
		}
		rows = append(rows, base[0])
	}
	return rows, r8
}

// wgmmaNeedsProxyFence reports whether generic-proxy writes to shared memory
// (stores, local_store, alloc with a value, cp.async, shared atomics, asm)
// into the bytes op reads may precede it: before op in program order, or
// anywhere in a loop around it (an earlier iteration) unless an earlier
// wgmma of op's block, with no such write between it and op, fenced them on
// every path (attention's P V product after its q k^T in the same
// iteration: the writes of the previous iteration reached the first
// product's fence and barrier first). A write into a buffer whose bytes
// are apart from op's operands' (a softmax's own staging buffer beside the
// K/V ring) needs no fence for op. The answer is memoised per wgmma (an
// earlier wgmma's own answer decides whether it fenced).
func (g *gen) wgmmaNeedsProxyFence(op *ir.Op) bool {
	if v, ok := g.wgmmaFences[op]; ok {
		return v
	}
	if g.wgmmaFences == nil {
		g.wgmmaFences = map[*ir.Op]bool{}
	}
	v := g.wgmmaFenceNeeded(op)
	g.wgmmaFences[op] = v
	return v
}

func (g *gen) wgmmaFenceNeeded(op *ir.Op) bool {
	reads := []rng{smemBytes(smemRoot(op.Operands[1]))}
	if _, isMem := op.Operands[0].Type.(*ir.MemDesc); isMem {
		reads = append(reads, smemBytes(smemRoot(op.Operands[0])))
	}
	return g.genericWritesReach(op, reads, func(o *ir.Op) bool {
		return o.Kind == ir.OpWgmma && o.Parent == op.Parent && g.wgmmaNeedsProxyFence(o)
	})
}

// genericWritesReach reports whether a generic-proxy write to shared memory
// of op's role (or program) into the byte ranges bytes may reach op
// unfenced: before op in program order, or anywhere in a loop around it
// (an earlier trip), unless an op of op's block before it for which
// fences holds fenced every write (a thread's fence.proxy.async orders all
// of its earlier writes) with no such write after it. A write in another
// warp role reaches op only through an mbarrier that role arrives on, and
// its arrive fences (roleArriveNeedsProxyFence), and one outside any role
// through warp_specialize's entry, which fences (wsNeedsProxyFence).
func (g *gen) genericWritesReach(op *ir.Op, bytes []rng, fences func(*ir.Op) bool) bool {
	found, done, fencedBefore := false, false, false
	role := gpu.EnclosingRole(op)
	reaches := func(o *ir.Op) bool {
		if !genericSmemWrite(o) || role != nil && gpu.EnclosingRole(o) != role {
			return false
		}
		w := fullRange
		if root := smemWriteRoot(o); root != nil {
			w = smemBytes(root)
		}
		return anyOverlap(bytes, w)
	}
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		for _, o := range b.Ops {
			if done {
				return
			}
			switch {
			case o == op:
				done = true
				return
			case reaches(o):
				found = true
			case fences != nil && fences(o):
				found = false // it fenced every write before it, on every path to op
				fencedBefore = true
			}
			for _, r := range o.Regions {
				walk(r)
			}
		}
	}
	walk(g.f.Body)
	if found {
		return true
	}
	if fencedBefore {
		return false
	}
	for p := op.Parent; p != nil && p.Parent != nil; p = p.Parent.Parent {
		if p.Parent.Kind != ir.OpFor {
			continue
		}
		any := false
		for _, r := range p.Parent.Regions {
			r.Walk(func(o *ir.Op) {
				if reaches(o) {
					any = true
				}
			})
		}
		if any {
			return true
		}
	}
	return false
}

// smemBytes is the byte range of the placed buffer root (its alloc's
// smem_offset and size), or every byte when root is not an alloc placed by
// the shared-memory pass (a pipe's slot, a block argument).
func smemBytes(root *ir.Value) rng {
	if root == nil || root.Def == nil || root.Def.Kind != ir.OpAlloc {
		return fullRange
	}
	off := root.Def.Attrs.Int(gpu.AttrSmemOffset, -1)
	if off < 0 {
		return fullRange
	}
	return rng{int(off), int(off) + ir.SmemBytes(root.Type)}
}

// roleArriveNeedsProxyFence reports whether arrive, an mbarrier arrival in
// a warp role, may publish generic-proxy writes of that role to a buffer
// that the async proxy accesses in another role: a wgmma operand or the
// source of a TMA store (a read after the writes), or the destination of
// a TMA load (a write after them: a stage the role wrote into, handed
// back for the next load). The write may come before it in the role, or
// anywhere in a loop of the role around it (an earlier iteration). The
// other role's fence cannot order this role's writes, so every writing
// thread runs fence.proxy.async before the role's barrier and the
// arrival, as CUTLASS's producers do (fence_view_async_shared, then the
// commit).
func (g *gen) roleArriveNeedsProxyFence(arrive *ir.Op) bool {
	role := gpu.EnclosingRole(arrive)
	if role == nil {
		return false
	}
	if g.asyncReadRoots == nil {
		g.asyncReadRoots = map[*ir.Op]map[*ir.Value]bool{}
	}
	roots, ok := g.asyncReadRoots[role]
	if !ok {
		roots = map[*ir.Value]bool{}
		g.f.Walk(func(o *ir.Op) {
			if r := gpu.EnclosingRole(o); r == nil || r == role {
				return
			}
			var vs []*ir.Value
			switch {
			case o.Kind == ir.OpWgmma:
				vs = o.Operands[:2]
			case o.Kind == ir.OpCopy && len(o.Operands) > 1:
				if _, isDesc := o.Operands[1].Type.(*ir.Desc); isDesc {
					vs = o.Operands[:1] // a TMA store's source
				} else if _, isDesc := o.Operands[0].Type.(*ir.Desc); isDesc {
					vs = o.Operands[1:2] // a TMA load's destination
				}
			}
			for _, v := range vs {
				if _, isMem := v.Type.(*ir.MemDesc); isMem {
					roots[smemRoot(v)] = true
				}
			}
		})
		g.asyncReadRoots[role] = roots
	}
	if len(roots) == 0 {
		return false
	}
	var bytes []rng
	for r := range roots {
		bytes = append(bytes, smemBytes(r))
	}
	reaches := func(o *ir.Op) bool {
		if !genericSmemWrite(o) {
			return false
		}
		w := fullRange
		if root := smemWriteRoot(o); root != nil {
			w = smemBytes(root)
		}
		return anyOverlap(bytes, w)
	}
	// a wgmma of the role that fences (wgmmaProxySync: every thread, then
	// the role's barrier) orders every earlier write of the role, as this
	// fence would
	fences := func(o *ir.Op) bool {
		return o.Kind == ir.OpWgmma && g.wgmmaNeedsProxyFence(o)
	}
	return unfencedAt(role.Regions[0], arrive, reaches, fences)
}

// unfencedAt reports whether a write for which reaches holds may reach at
// (an op of root's nested blocks) with no op for which fences holds after
// it on the way: a dataflow over root's structured control flow. A fence
// clears the writes before it in its block; a nested op (if, for) leaves
// writes pending when any of its regions ends with writes pending (a
// fence in one branch does not clear the writes before the branch); a
// loop around at also brings in what its body leaves pending at the end
// of a trip (an earlier trip's writes).
func unfencedAt(root *ir.Block, at *ir.Op, reaches, fences func(*ir.Op) bool) bool {
	var walk func(b *ir.Block, pending bool) (bool, bool)
	walk = func(b *ir.Block, pending bool) (bool, bool) {
		for _, o := range b.Ops {
			if o == at {
				return pending, true
			}
			for _, r := range o.Regions {
				if blockHolds(r, at) {
					in := pending
					if o.Kind == ir.OpFor && endsUnfenced(r, reaches, fences) {
						in = true
					}
					return walk(r, in)
				}
			}
			pending = stepFence(o, pending, reaches, fences)
		}
		return pending, false
	}
	p, _ := walk(root, false)
	return p
}

// endsUnfenced reports whether block b, entered with no write pending,
// may end with one (unfencedAt's rule).
func endsUnfenced(b *ir.Block, reaches, fences func(*ir.Op) bool) bool {
	pending := false
	for _, o := range b.Ops {
		pending = stepFence(o, pending, reaches, fences)
	}
	return pending
}

// stepFence is unfencedAt's transfer function for one op that does not
// hold the op asked about.
func stepFence(o *ir.Op, pending bool, reaches, fences func(*ir.Op) bool) bool {
	switch {
	case fences(o):
		return false
	case reaches(o):
		return true
	}
	for _, r := range o.Regions {
		if endsUnfenced(r, reaches, fences) {
			pending = true
		}
	}
	return pending
}

// blockHolds reports whether op lies in b or a block nested in it.
func blockHolds(b *ir.Block, op *ir.Op) bool {
	found := false
	b.Walk(func(o *ir.Op) {
		if o == op {
			found = true
		}
	})
	return found
}

// wsNeedsProxyFence reports whether generic shared-memory writes may
// precede ws (before it in program order, in or out of the roles of an
// earlier warp_specialize, or anywhere in a loop around it, ws's own roles
// included: an earlier trip's) while a role of ws reads shared memory
// through the async proxy (wgmma, TMA store): every thread of the CTA then
// fences at ws's entry. Those writes reach ws's roles through barrier 0
// (code outside the roles, the roles' join), not through an arrival of a
// sibling role, whose own fence (roleArriveNeedsProxyFence) covers only
// the writes it publishes.
func (g *gen) wsNeedsProxyFence(ws *ir.Op) bool {
	reads := false
	ws.Regions[0].Walk(func(o *ir.Op) {
		if o.Kind == ir.OpWgmma {
			reads = true
		}
		if o.Kind == ir.OpCopy && len(o.Operands) > 1 {
			if _, isDesc := o.Operands[1].Type.(*ir.Desc); isDesc {
				reads = true
			}
		}
	})
	if !reads {
		return false
	}
	return hitBefore(g.f.Body, ws, genericSmemWrite)
}

// hitBefore reports whether an op of root for which hit holds comes
// before at in program order (nested regions included), or lies anywhere
// in a loop of root around at (a previous trip's).
func hitBefore(root *ir.Block, at *ir.Op, hit func(*ir.Op) bool) bool {
	return unfencedAt(root, at, hit, func(*ir.Op) bool { return false })
}

// smemRoot follows a shared-memory view through slot, transpose and reshape views
// to the value it views; a pipe field's root is its pipe (whichever slot
// and field: the writer's acquire and the reader's wait name the slot
// apart).
func smemRoot(v *ir.Value) *ir.Value {
	for v.Def != nil {
		switch d := v.Def; d.Kind {
		case ir.OpMemIndex, ir.OpMemTrans, ir.OpMemReshape:
			v = d.Operands[0]
		case ir.OpSlotField:
			if s := d.Operands[0].Def; s != nil && (s.Kind == ir.OpPipeAcquire || s.Kind == ir.OpPipeWait) {
				return s.Operands[0]
			}
			return v
		default:
			return v
		}
	}
	return v
}

// smemWriteRoot is the buffer a generic shared-memory write writes (the
// root of its view), or nil when unknown (asm, a pointer not made by
// local_ptr).
func smemWriteRoot(o *ir.Op) *ir.Value {
	var v *ir.Value
	switch o.Kind {
	case ir.OpLocalStore:
		v = o.Operands[0]
	case gpu.OpAsyncCopy:
		v = o.Operands[1]
	case ir.OpAlloc:
		return o.Results[0]
	case ir.OpStore, ir.OpAtomicRMW, ir.OpAtomicCAS:
		if d := o.Operands[0].Def; d != nil && d.Kind == ir.OpLocalPtr {
			v = d.Operands[0]
		}
	}
	if v == nil {
		return nil
	}
	if _, ok := v.Type.(*ir.MemDesc); !ok {
		return nil
	}
	return smemRoot(v)
}

func genericSmemWrite(o *ir.Op) bool {
	switch o.Kind {
	case ir.OpLocalStore, gpu.OpAsyncCopy, ir.OpAsm:
		return true
	case ir.OpAlloc:
		return len(o.Operands) > 0
	case ir.OpStore, ir.OpAtomicRMW, ir.OpAtomicCAS:
		if p, ok := ir.Elem(o.Operands[0].Type).(*ir.Pointer); ok {
			return p.Space != ir.Global
		}
		if p, ok := o.Operands[0].Type.(*ir.Pointer); ok {
			return p.Space != ir.Global
		}
	}
	return false
}

// wgmmaWait lowers wgmma_wait(n): wait_group n, threading through it the
// registers of the wgmma results in flight (those of its block since the
// last wgmma_wait(0)) and of its own operands.
func (g *gen) wgmmaWait(op *ir.Op) {
	pending := op.Attrs.Int("pending", 0)
	var tvs []*tval
	seen := map[*tval]bool{}
	add := func(t *tval) {
		if t != nil && t.regs != nil && !seen[t] {
			seen[t] = true
			tvs = append(tvs, t)
		}
	}
	b := op.Parent
	i := len(b.Ops) - 1
	for i >= 0 && b.Ops[i] != op {
		i--
	}
	var mmas []*ir.Op
	chained := map[*ir.Value]bool{} // results only feeding a later wgmma's acc
	for i--; i >= 0; i-- {
		o := b.Ops[i]
		if o.Kind == ir.OpWgmmaWait && o.Attrs.Int("pending", 0) == 0 {
			break
		}
		if o.Kind == ir.OpWgmma {
			mmas = append(mmas, o)
			chained[o.Operands[2]] = true
		}
	}
	for _, o := range mmas {
		if !chained[o.Results[0]] {
			add(g.vals[o.Results[0]])
		}
	}
	for _, v := range op.Operands {
		add(g.val(v))
	}
	var regs []value.Value
	for _, t := range tvs {
		for _, r := range t.regs {
			if !r.Type().Equal(types.Float) {
				g.failf("wgmma_wait: in-flight values must be f32 tiles")
			}
		}
		regs = append(regs, t.regs...)
	}
	text := fmt.Sprintf("wgmma.wait_group.sync.aligned %d;", pending)
	if len(regs) == 0 {
		g.convergentAsm(text)
	} else {
		after := g.tiedAsm(text, regs)
		for _, t := range tvs {
			after = after[copy(t.regs, after):]
			t.pairs, t.lazy = nil, nil
		}
	}
	for j, v := range op.Operands {
		g.set(op.Results[j], g.val(v))
		if v.Def == nil && v.Block != nil && v.Block.Parent != nil && v.Block.Parent.Kind == ir.OpFor && g.nw > 4 {
			// this wait completes a product of the previous iteration
			// (DotToWgmma deferred its wait), which read a ring slot the
			// pipeliner refills later in this iteration: in another
			// warpgroup that product may still be running until its own
			// copy of this wait, past the loop's top barrier, so the
			// refill needs a barrier after this point
			g.barrierInLoop = false
		}
	}
	// the waited groups' shared-memory reads are done in this thread; a
	// later write by another thread still needs the barrier the recorded
	// reads cause
}

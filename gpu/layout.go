package gpu

// Concrete layouts for ir.Tile.Layout and ir.MemDesc.Layout, following
// Triton's TritonGPU encodings, and their linear form (LinearLayout) that the
// backend lowers from.
//
// Text forms (no whitespace, as ir.RegisterLayoutParser requires):
//
//	blocked<[spt..],[tpw..],[wpc..],[order..]>   Blocked
//	slice<dim,PARENT>                            Slice
//	mma<[wm,wn]>                                 MMA (mma.sync v2, m16n8 accumulators)
//	mmav3<[wm,wn]>                               MMAv3 (wgmma accumulators; wn = 1)
//	dotop<opIdx,mma<[wm,wn]>,kWidth>             DotOperand
//	shared<vec,perPhase,maxPhase,[order..]>      Shared (swizzled shared memory)

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tlego/tle/ir"
)

// Blocked distributes a tile in blocks: each thread holds SizePerThread
// contiguous elements per dimension, a warp's lanes tile ThreadsPerWarp of
// those blocks and the CTA's warps tile WarpsPerCTA of the warps' tiles; the
// pattern repeats over tiles larger than that and wraps (replicates) over
// smaller ones. Order lists dimensions fastest first, for registers, lanes and
// warps alike. All counts are powers of two.
type Blocked struct {
	SizePerThread  []int
	ThreadsPerWarp []int
	WarpsPerCTA    []int
	Order          []int
}

// Slice is the layout of a tile of Parent's rank minus one, obtained by
// removing dimension Dim: the result of reducing over Dim, or the operand of
// expand_dims on Dim. Threads that differ only along Dim hold the same values.
type Slice struct {
	Dim    int
	Parent ir.Layout
}

// MMA is the accumulator layout of mma.sync.m16n8k* (Triton's NvidiaMma
// version 2): warps tile the [M, N] tile WarpsPerCTA = [wm, wn] (warp id =
// wm index + wm * wn index), each warp's 16x8 accumulator fragment is held as
// c0..c3 (row lane/4 (+8 for c2, c3), columns 2*(lane%4) + {0, 1}), and the
// pattern repeats over N first, then M.
type MMA struct {
	WarpsPerCTA []int
}

// MMAv3 is the accumulator layout of wgmma.mma_async.m64nNk* (Triton's
// NvidiaMma version 3) over WarpsPerCTA = [wm, 1] warps, wm a multiple of 4:
// warp w owns rows 16*w .. 16*w+15 of each 16*wm-row block, so the warps
// 4g..4g+3 of warpgroup g own 64 consecutive rows, and each thread holds,
// for each 64-row block of its warpgroup, the N/2 f32 values d0..d(N/2-1)
// of PTX's m64nNk16 accumulator fragment: d[i] at row lane/4 + 8*((i/2)%2)
// of its warp's 16, column 8*(i/4) + 2*(lane%4) + i%2. That is the mma.sync
// m16n8 fragment repeated over all of N, in the same register order as
// MMA{[wm, 1]}; 64-row blocks of a warpgroup follow (register index
// j*N/2 + i for block j).
//
// PairRows (text form mmav3<[wm,1],pairs>) interleaves each warp's 16 rows
// in pairs: the fragment's row r (0..15) holds row 2*(r%8) + r/8 of the
// tile, so that the two rows a thread holds (r and r+8) are adjacent. It is
// the accumulator of a wgmma whose register a is DotOperand with PairRows:
// an 8-bit a read with ldmatrix.trans from a buffer contiguous along M,
// where a thread's 16-bit piece is two adjacent rows (see
// backend/nvptx/matrix.go).
type MMAv3 struct {
	WarpsPerCTA []int
	PairRows    bool
}

// DotOperand is the register layout of mma.sync operand OpIdx (0: A [M, K],
// 1: B [K, N]) for the accumulator layout Parent. KWidth is the number of
// consecutive K elements a thread holds in one 32-bit register (2 for 16-bit
// types, 1 for tf32: the m16n8k8 fragments, DotKWidth; 4 for wgmma's 8-bit
// register A, whose m64nNk32 fragment is the 16-bit one with every element
// pair widened to four).
//
// PairRows (operand a only; text form dotop<0,mma<..>,kWidth,pairs>)
// interleaves each warp's 16 rows of M in pairs as MMAv3's PairRows does.
type DotOperand struct {
	OpIdx    int
	Parent   *MMA
	KWidth   int
	PairRows bool
}

// Shared is a shared-memory layout: row-major in Order (fastest first), with
// the 2-D XOR swizzle of Triton's shared encoding on the two fastest
// dimensions: in row r, the Vec-element chunk c lives at chunk
// c ^ ((r / PerPhase) % MaxPhase). Vec=PerPhase=MaxPhase=1 is no swizzle.
//
// BlockCols > 0 (and smaller than the fastest dimension, which it divides)
// column-blocks the plane of the two fastest dimensions: the fastest
// dimension is cut into blocks of BlockCols elements (one swizzle span),
// each stored as its own [rows, BlockCols] array, one after another (block
// stride rows*BlockCols elements); the swizzle applies inside a block (the
// column within it, the row). Outer dimensions stride over whole planes.
// This is CUTLASS's MN-major / wide-K SW128 tiling: TMA fills a block per
// box, and a wgmma descriptor steps between blocks with its leading byte
// offset.
type Shared struct {
	Vec, PerPhase, MaxPhase int
	Order                   []int
	BlockCols               int
}

// RowElems is the row stride, in elements, of the plane of the two fastest
// dimensions of a buffer of shape: BlockCols when column-blocked, else the
// extent of the fastest dimension.
func (l *Shared) RowElems(shape []int) int {
	w := shape[l.Order[0]]
	if l.Blocked(shape) {
		return l.BlockCols
	}
	return w
}

// Blocked reports whether l column-blocks a buffer of shape.
func (l *Shared) Blocked(shape []int) bool {
	return l != nil && l.BlockCols > 0 && len(l.Order) > 1 && shape[l.Order[0]] > l.BlockCols
}

func layIntsString(v []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(x))
	}
	b.WriteByte(']')
	return b.String()
}

func (l *Blocked) String() string {
	return "blocked<" + layIntsString(l.SizePerThread) + "," + layIntsString(l.ThreadsPerWarp) + "," +
		layIntsString(l.WarpsPerCTA) + "," + layIntsString(l.Order) + ">"
}
func (l *Slice) String() string { return fmt.Sprintf("slice<%d,%s>", l.Dim, l.Parent) }
func (l *MMA) String() string   { return "mma<" + layIntsString(l.WarpsPerCTA) + ">" }
func (l *MMAv3) String() string {
	if l.PairRows {
		return "mmav3<" + layIntsString(l.WarpsPerCTA) + ",pairs>"
	}
	return "mmav3<" + layIntsString(l.WarpsPerCTA) + ">"
}
func (l *DotOperand) String() string {
	if l.PairRows {
		return fmt.Sprintf("dotop<%d,%s,%d,pairs>", l.OpIdx, l.Parent, l.KWidth)
	}
	return fmt.Sprintf("dotop<%d,%s,%d>", l.OpIdx, l.Parent, l.KWidth)
}
func (l *Shared) String() string {
	if l.BlockCols > 0 {
		return fmt.Sprintf("shared<%d,%d,%d,%s,%d>", l.Vec, l.PerPhase, l.MaxPhase, layIntsString(l.Order), l.BlockCols)
	}
	return fmt.Sprintf("shared<%d,%d,%d,%s>", l.Vec, l.PerPhase, l.MaxPhase, layIntsString(l.Order))
}

// NumWarps is the number of warps a distributed layout spreads over.
func NumWarps(l ir.Layout) int {
	switch l := l.(type) {
	case *Blocked:
		return layProd(l.WarpsPerCTA)
	case *Slice:
		return NumWarps(l.Parent)
	case *MMA:
		return layProd(l.WarpsPerCTA)
	case *MMAv3:
		return layProd(l.WarpsPerCTA)
	case *DotOperand:
		return layProd(l.Parent.WarpsPerCTA)
	}
	return 0
}

// Rank is the tile rank a distributed layout applies to (-1 if unknown).
func Rank(l ir.Layout) int {
	switch l := l.(type) {
	case *Blocked:
		return len(l.Order)
	case *Slice:
		return Rank(l.Parent) - 1
	case *MMA, *MMAv3, *DotOperand:
		return 2
	case *Shared:
		return len(l.Order)
	}
	return -1
}

func layProd(v []int) int {
	p := 1
	for _, x := range v {
		p *= x
	}
	return p
}

func layIsPow2(x int) bool { return x > 0 && x&(x-1) == 0 }

func layLog2(x int) int { return bits.Len(uint(x)) - 1 }

// ---- text form

func init() { ir.RegisterLayoutParser(ParseLayout) }

// ParseLayout parses the text form of this package's layouts; it returns
// (nil, nil) for text that is not one of them.
func ParseLayout(s string) (ir.Layout, error) {
	name, args, ok := laySplitKind(s)
	if !ok {
		return nil, nil
	}
	bad := func() (ir.Layout, error) { return nil, fmt.Errorf("malformed layout #%s", s) }
	switch name {
	case "blocked":
		if len(args) != 4 {
			return bad()
		}
		var v [4][]int
		for i, a := range args {
			x, err := layParseInts(a)
			if err != nil {
				return bad()
			}
			v[i] = x
		}
		l := &Blocked{v[0], v[1], v[2], v[3]}
		return l, l.validate()
	case "slice":
		if len(args) != 2 {
			return bad()
		}
		d, err := strconv.Atoi(args[0])
		if err != nil {
			return bad()
		}
		p, err := ParseLayout(args[1])
		if err != nil || p == nil {
			return bad()
		}
		return &Slice{Dim: d, Parent: p}, nil
	case "mma", "mmav3":
		pairs := name == "mmav3" && len(args) == 2 && args[1] == "pairs"
		if len(args) != 1 && !pairs {
			return bad()
		}
		w, err := layParseInts(args[0])
		if err != nil || len(w) != 2 {
			return bad()
		}
		if name == "mmav3" {
			return &MMAv3{WarpsPerCTA: w, PairRows: pairs}, nil
		}
		return &MMA{WarpsPerCTA: w}, nil
	case "dotop":
		pairs := len(args) == 4 && args[3] == "pairs"
		if len(args) != 3 && !pairs {
			return bad()
		}
		op, err1 := strconv.Atoi(args[0])
		kw, err2 := strconv.Atoi(args[2])
		p, err3 := ParseLayout(args[1])
		mma, ok := p.(*MMA)
		if err1 != nil || err2 != nil || err3 != nil || !ok {
			return bad()
		}
		if pairs && op != 0 {
			return bad()
		}
		return &DotOperand{OpIdx: op, Parent: mma, KWidth: kw, PairRows: pairs}, nil
	case "shared":
		if len(args) != 4 && len(args) != 5 {
			return bad()
		}
		bc := 0
		if len(args) == 5 {
			x, err := strconv.Atoi(args[4])
			if err != nil || x < 0 {
				return bad()
			}
			bc = x
		}
		var n [3]int
		for i := 0; i < 3; i++ {
			x, err := strconv.Atoi(args[i])
			if err != nil {
				return bad()
			}
			n[i] = x
		}
		o, err := layParseInts(args[3])
		if err != nil {
			return bad()
		}
		return &Shared{Vec: n[0], PerPhase: n[1], MaxPhase: n[2], Order: o, BlockCols: bc}, nil
	}
	return nil, nil
}

// splitKind splits `name<a,b,...>` into name and its top-level arguments.
func laySplitKind(s string) (string, []string, bool) {
	i := strings.IndexByte(s, '<')
	if i < 0 || !strings.HasSuffix(s, ">") {
		return "", nil, false
	}
	name, body := s[:i], s[i+1:len(s)-1]
	var args []string
	depth, start := 0, 0
	for j := 0; j < len(body); j++ {
		switch body[j] {
		case '<', '[':
			depth++
		case '>', ']':
			depth--
		case ',':
			if depth == 0 {
				args = append(args, body[start:j])
				start = j + 1
			}
		}
	}
	args = append(args, body[start:])
	return name, args, true
}

func layParseInts(s string) ([]int, error) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("not a list")
	}
	s = s[1 : len(s)-1]
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		x, err := strconv.Atoi(p)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func (l *Blocked) validate() error {
	r := len(l.Order)
	if len(l.SizePerThread) != r || len(l.ThreadsPerWarp) != r || len(l.WarpsPerCTA) != r {
		return fmt.Errorf("blocked layout %s: ranks differ", l)
	}
	for d := 0; d < r; d++ {
		if !layIsPow2(l.SizePerThread[d]) || !layIsPow2(l.ThreadsPerWarp[d]) || !layIsPow2(l.WarpsPerCTA[d]) {
			return fmt.Errorf("blocked layout %s: counts must be powers of two", l)
		}
	}
	if layProd(l.ThreadsPerWarp) != 32 {
		return fmt.Errorf("blocked layout %s: threadsPerWarp must multiply to 32", l)
	}
	return nil
}

// ---- linear layouts

// LinearLayout is the linear (over GF(2)) form of a distributed layout for one
// tile shape, as in Triton: the coordinates of the element a thread holds in
// register r are the XOR of the Reg bases of r's set bits, the Lane bases of
// the lane id's set bits and the Warp bases of the warp id's set bits. A zero
// lane or warp basis means threads differing in that bit hold the same
// elements (replication). For every layout of this package the non-zero bases
// of one dimension are distinct powers of two, so XOR is also addition:
// coords = Thread(lane, warp) + Regs(r).
type LinearLayout struct {
	Shape []int
	Reg   [][]int
	Lane  [][]int // 5 bases (32 lanes)
	Warp  [][]int // layLog2(numWarps) bases
}

// NumRegs is the number of elements each thread holds.
func (l *LinearLayout) NumRegs() int { return 1 << len(l.Reg) }

// RegCoords returns the coordinates register r adds to the thread's base.
func (l *LinearLayout) RegCoords(r int) []int {
	c := make([]int, len(l.Shape))
	for b, v := range l.Reg {
		if r>>b&1 != 0 {
			for d := range c {
				c[d] ^= v[d]
			}
		}
	}
	return c
}

// Coords returns the coordinates of register r of thread (lane, warp).
func (l *LinearLayout) Coords(r, lane, warp int) []int {
	c := l.RegCoords(r)
	for b, v := range l.Lane {
		if lane>>b&1 != 0 {
			for d := range c {
				c[d] ^= v[d]
			}
		}
	}
	for b, v := range l.Warp {
		if warp>>b&1 != 0 {
			for d := range c {
				c[d] ^= v[d]
			}
		}
	}
	return c
}

// Equal reports whether two linear layouts place every element identically.
func (l *LinearLayout) Equal(o *LinearLayout) bool {
	return layBasesEqual(l.Reg, o.Reg) && layBasesEqual(l.Lane, o.Lane) && layBasesEqual(l.Warp, o.Warp) &&
		layIntsEqual(l.Shape, o.Shape)
}

// SameThreads reports whether both layouts give every thread the same
// per-thread base (equal lane and warp bases), so that converting between
// them only permutes registers when the register bases are the same set.
func (l *LinearLayout) SameThreads(o *LinearLayout) bool {
	return layBasesEqual(l.Lane, o.Lane) && layBasesEqual(l.Warp, o.Warp)
}

// RegistersHold reports whether every thread holds, in layout l, each
// element it holds in layout dst: equal lane and warp bases, and every
// register basis of dst in the span of l's. A conversion from l to dst is
// then a register renaming (an mma.sync accumulator becoming the a operand
// of the next product, as in FlashAttention's P V).
func (l *LinearLayout) RegistersHold(dst *LinearLayout) bool {
	if !l.SameThreads(dst) || !layIntsEqual(l.Shape, dst.Shape) {
		return false
	}
	span := map[string]bool{}
	for r := 0; r < l.NumRegs(); r++ {
		span[fmt.Sprint(l.RegCoords(r))] = true
	}
	for _, b := range dst.Reg {
		if !span[fmt.Sprint(b)] {
			return false
		}
	}
	return true
}

// ZeroLaneMask and ZeroWarpMask are the lane and warp id bits whose bases are
// zero: the threads with any of them set hold copies of others' elements.
func (l *LinearLayout) ZeroLaneMask() int { return layZeroMask(l.Lane) }

// ZeroWarpMask: see ZeroLaneMask.
func (l *LinearLayout) ZeroWarpMask() int { return layZeroMask(l.Warp) }

func layZeroMask(bases [][]int) int {
	m := 0
	for i, b := range bases {
		if layIsZero(b) {
			m |= 1 << i
		}
	}
	return m
}

func layIsZero(v []int) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func layBasesEqual(a, b [][]int) bool {
	return slices.EqualFunc(a, b, layIntsEqual)
}

func layIntsEqual(a, b []int) bool {
	return slices.Equal(a, b)
}

// ContigRegs returns how many consecutive registers starting at each multiple
// of the result hold consecutive elements along dimension dim: the run of
// register bases 1, 2, 4, ... along dim from register bit 0.
func (l *LinearLayout) ContigRegs(dim int) int {
	n := 1
	for _, b := range l.Reg {
		want := make([]int, len(l.Shape))
		want[dim] = n
		if !layIntsEqual(b, want) {
			break
		}
		n *= 2
	}
	return n
}

// String is a debugging form.
func (l *LinearLayout) String() string {
	return fmt.Sprintf("LL%v{reg:%v lane:%v warp:%v}", l.Shape, l.Reg, l.Lane, l.Warp)
}

var llCache sync.Map // string -> *LinearLayout

// Linear returns the linear layout of a distributed layout for a tile shape.
// Every dimension of shape must be a power of two.
func Linear(layout ir.Layout, shape []int) (*LinearLayout, error) {
	key := layout.String() + layIntsString(shape)
	if v, ok := llCache.Load(key); ok {
		return v.(*LinearLayout), nil
	}
	for _, d := range shape {
		if !layIsPow2(d) {
			return nil, fmt.Errorf("tile shape %v: dimensions must be powers of two", shape)
		}
	}
	if r := Rank(layout); r != len(shape) {
		return nil, fmt.Errorf("layout %s has rank %d, tile shape %v", layout, r, shape)
	}
	var ll *LinearLayout
	var err error
	switch l := layout.(type) {
	case *Blocked:
		ll, err = blockedLinear(l, shape)
	case *Slice:
		ll, err = sliceLinear(l, shape)
	case *MMA:
		ll, err = mmaLinear(l, shape)
	case *MMAv3:
		ll, err = mmaV3Linear(l, shape)
	case *DotOperand:
		ll, err = dotOperandLinear(l, shape)
	default:
		return nil, fmt.Errorf("layout %s is not a distributed layout", layout)
	}
	if err != nil {
		return nil, err
	}
	if err := ll.checkDisjoint(); err != nil {
		return nil, fmt.Errorf("layout %s for %v: %v", layout, shape, err)
	}
	llCache.Store(key, ll)
	return ll, nil
}

// MustLinear is Linear for layouts the passes built (a failure is a compiler
// bug).
func MustLinear(layout ir.Layout, shape []int) *LinearLayout {
	ll, err := Linear(layout, shape)
	if err != nil {
		panic(err)
	}
	return ll
}

func (l *LinearLayout) checkDisjoint() error {
	used := make([]int, len(l.Shape))
	check := func(bases [][]int) error {
		for _, b := range bases {
			nz := 0
			for d, x := range b {
				if x == 0 {
					continue
				}
				nz++
				if !layIsPow2(x) || used[d]&x != 0 || x >= l.Shape[d] {
					return fmt.Errorf("bases overlap")
				}
				used[d] |= x
			}
			if nz > 1 {
				return fmt.Errorf("basis %v spans several dimensions", b)
			}
		}
		return nil
	}
	for _, bs := range [][][]int{l.Reg, l.Lane, l.Warp} {
		if err := check(bs); err != nil {
			return err
		}
	}
	for d, u := range used {
		if u != l.Shape[d]-1 {
			return fmt.Errorf("dimension %d not covered", d)
		}
	}
	return nil
}

type llBuilder struct {
	shape []int
	ll    *LinearLayout
}

func newLLBuilder(shape []int) *llBuilder {
	return &llBuilder{shape: shape, ll: &LinearLayout{Shape: append([]int(nil), shape...)}}
}

// basis is v along d, or zero when v falls outside the shape (wrap).
func (b *llBuilder) basis(d, v int) []int {
	c := make([]int, len(b.shape))
	if v < b.shape[d] {
		c[d] = v
	}
	return c
}

// reg adds a register basis unless it is zero (a thread never holds two
// copies of one element).
func (b *llBuilder) reg(d, v int) {
	if v < b.shape[d] {
		b.ll.Reg = append(b.ll.Reg, b.basis(d, v))
	}
}
func (b *llBuilder) lane(d, v int) { b.ll.Lane = append(b.ll.Lane, b.basis(d, v)) }
func (b *llBuilder) warp(d, v int) { b.ll.Warp = append(b.ll.Warp, b.basis(d, v)) }

func blockedLinear(l *Blocked, shape []int) (*LinearLayout, error) {
	if err := l.validate(); err != nil {
		return nil, err
	}
	b := newLLBuilder(shape)
	for _, d := range l.Order {
		for v := 1; v < l.SizePerThread[d]; v <<= 1 {
			b.reg(d, v)
		}
	}
	for _, d := range l.Order {
		for v := 1; v < l.ThreadsPerWarp[d]; v <<= 1 {
			b.lane(d, v*l.SizePerThread[d])
		}
	}
	for _, d := range l.Order {
		for v := 1; v < l.WarpsPerCTA[d]; v <<= 1 {
			b.warp(d, v*l.SizePerThread[d]*l.ThreadsPerWarp[d])
		}
	}
	for _, d := range l.Order {
		tile := l.SizePerThread[d] * l.ThreadsPerWarp[d] * l.WarpsPerCTA[d]
		for v := tile; v < shape[d]; v <<= 1 {
			b.reg(d, v)
		}
	}
	return b.ll, nil
}

func sliceLinear(l *Slice, shape []int) (*LinearLayout, error) {
	ps := make([]int, 0, len(shape)+1)
	ps = append(ps, shape[:l.Dim]...)
	ps = append(ps, 1)
	ps = append(ps, shape[l.Dim:]...)
	p, err := Linear(l.Parent, ps)
	if err != nil {
		return nil, err
	}
	drop := func(bs [][]int) [][]int {
		out := make([][]int, len(bs))
		for i, v := range bs {
			w := append([]int(nil), v[:l.Dim]...)
			out[i] = append(w, v[l.Dim+1:]...)
		}
		return out
	}
	ll := &LinearLayout{Shape: append([]int(nil), shape...), Reg: drop(p.Reg), Lane: drop(p.Lane), Warp: drop(p.Warp)}
	return ll, nil
}

func mmaLinear(l *MMA, shape []int) (*LinearLayout, error) {
	wm, wn := l.WarpsPerCTA[0], l.WarpsPerCTA[1]
	if !layIsPow2(wm) || !layIsPow2(wn) {
		return nil, fmt.Errorf("mma warps %v must be powers of two", l.WarpsPerCTA)
	}
	b := newLLBuilder(shape)
	b.reg(1, 1)
	b.lane(1, 2)
	b.lane(1, 4)
	b.lane(0, 1)
	b.lane(0, 2)
	b.lane(0, 4)
	b.reg(0, 8)
	for v := 1; v < wm; v <<= 1 {
		b.warp(0, 16*v)
	}
	for v := 1; v < wn; v <<= 1 {
		b.warp(1, 8*v)
	}
	for v := 8 * wn; v < shape[1]; v <<= 1 {
		b.reg(1, v)
	}
	for v := 16 * wm; v < shape[0]; v <<= 1 {
		b.reg(0, v)
	}
	return b.ll, nil
}

func mmaV3Linear(l *MMAv3, shape []int) (*LinearLayout, error) {
	wm, wn := l.WarpsPerCTA[0], l.WarpsPerCTA[1]
	if wn != 1 || wm < 4 || !layIsPow2(wm) {
		return nil, fmt.Errorf("wgmma accumulator warps %v: want [wm, 1], wm a power of two >= 4", l.WarpsPerCTA)
	}
	// m16n8 fragments over the whole of N per warp, warps along M: exactly
	// mma.sync's layout for warps [wm, 1] (see MMAv3)
	ll, err := mmaLinear(&MMA{WarpsPerCTA: []int{wm, 1}}, shape)
	if err != nil || !l.PairRows {
		return ll, err
	}
	return pairRows(ll, shape)
}

// pairRows interleaves the 16 rows (dimension 0) of each warp of ll in
// pairs (MMAv3.PairRows): the row bases 1, 2, 4, 8 become 2, 4, 8, 1. A
// tile of one row (a row vector broadcast over the accumulator, as
// ap[None, :]) has no row bases and keeps ll.
func pairRows(ll *LinearLayout, shape []int) (*LinearLayout, error) {
	if shape[0] < 16 && shape[0] != 1 {
		return nil, fmt.Errorf("row pairs need 16 rows or more, the tile has %d", shape[0])
	}
	out := &LinearLayout{Shape: ll.Shape}
	m := map[int]int{1: 2, 2: 4, 4: 8, 8: 1}
	conv := func(bs [][]int) [][]int {
		r := make([][]int, len(bs))
		for i, b := range bs {
			c := append([]int(nil), b...)
			if v, ok := m[c[0]]; ok {
				c[0] = v
			}
			r[i] = c
		}
		return r
	}
	out.Reg, out.Lane, out.Warp = conv(ll.Reg), conv(ll.Lane), conv(ll.Warp)
	return out, nil
}

func dotOperandLinear(l *DotOperand, shape []int) (*LinearLayout, error) {
	switch {
	case l.KWidth == 1, l.KWidth == 2, l.KWidth == 4 && l.OpIdx == 0:
	default:
		return nil, fmt.Errorf("dot operand %d kWidth %d: only 2 (16-bit operands), 1 (tf32) and 4 (an 8-bit wgmma A) are supported", l.OpIdx, l.KWidth)
	}
	wm, wn := l.Parent.WarpsPerCTA[0], l.Parent.WarpsPerCTA[1]
	b := newLLBuilder(shape)
	// one 32-bit register holds KWidth consecutive k; the four lanes of a
	// row hold 4*KWidth of them; a second register (pair) holds the next
	// 4*KWidth: a k step of 8*KWidth (8 for tf32: mma.sync's m16n8k8; 16
	// for 16-bit types: m16n8k16; 32 for 8-bit: wgmma's m64nNk32 A)
	kw := l.KWidth
	if l.OpIdx == 0 { // A [M, K]
		for v := 1; v < kw; v <<= 1 {
			b.reg(1, v)
		}
		b.lane(1, kw)
		b.lane(1, 2*kw)
		b.lane(0, 1)
		b.lane(0, 2)
		b.lane(0, 4)
		b.reg(0, 8)
		b.reg(1, 4*kw)
		for v := 1; v < wm; v <<= 1 {
			b.warp(0, 16*v)
		}
		for v := 1; v < wn; v <<= 1 {
			b.ll.Warp = append(b.ll.Warp, make([]int, 2))
		}
		for v := 8 * kw; v < shape[1]; v <<= 1 {
			b.reg(1, v)
		}
		for v := 16 * wm; v < shape[0]; v <<= 1 {
			b.reg(0, v)
		}
		if l.PairRows {
			return pairRows(b.ll, shape)
		}
		return b.ll, nil
	}
	if l.PairRows {
		return nil, fmt.Errorf("row pairs apply to operand a only")
	}
	// B [K, N]: the same along K, the eight columns of an n8 tile on the
	// lanes' row bits
	for v := 1; v < kw; v <<= 1 {
		b.reg(0, v)
	}
	b.lane(0, kw)
	b.lane(0, 2*kw)
	b.lane(1, 1)
	b.lane(1, 2)
	b.lane(1, 4)
	b.reg(0, 4*kw)
	for v := 1; v < wm; v <<= 1 {
		b.ll.Warp = append(b.ll.Warp, make([]int, 2))
	}
	for v := 1; v < wn; v <<= 1 {
		b.warp(1, 8*v)
	}
	for v := 8 * kw; v < shape[0]; v <<= 1 {
		b.reg(0, v)
	}
	for v := 8 * wn; v < shape[1]; v <<= 1 {
		b.reg(1, v)
	}
	return b.ll, nil
}

// DotKWidth is the KWidth of mma.sync operands of dtype d: 1 for 32-bit
// (tf32) operands, 2 otherwise (16-bit, and fp8 converted to f16).
func DotKWidth(d ir.DType) int {
	if d.Bits() == 32 {
		return 1
	}
	return 2
}

// SharedOffset returns the element offset of coords in a buffer of shape with
// shared layout l (nil: row-major, no swizzle).
func SharedOffset(l *Shared, shape, coords []int) int {
	order := ir.RowMajor(len(shape))
	vec, per, maxp := 1, 1, 1
	if l != nil {
		order = l.Order
		vec, per, maxp = l.Vec, l.PerPhase, l.MaxPhase
	}
	off, stride := 0, 1
	for i, d := range order {
		c := coords[d]
		if i == 0 && len(order) > 1 {
			row := coords[order[1]]
			if l.Blocked(shape) {
				off += (c / l.BlockCols) * l.BlockCols * shape[order[1]]
				c %= l.BlockCols
			}
			phase := (row / per) % maxp
			c = ((c/vec)^phase)*vec + c%vec
			off += c
			stride = shape[d]
			if l.Blocked(shape) {
				stride = l.BlockCols
			}
			continue
		}
		off += c * stride
		if i == 1 {
			stride = shape[order[0]] * shape[d]
		} else {
			stride *= shape[d]
		}
	}
	return off
}

// ReshapeShared is the shared layout of the reshaped view (shape to) of a
// row-major buffer of shape from laid out as l (memdesc_reshape: the
// leading dimensions merge or split, the innermost stays): the same bytes
// seen with the new shape. It exists when the swizzle's row coordinate
// means the same in both: the rows of the plane of the two fastest
// dimensions (from[len-2], to[len-2]) are equal, or the swizzle period
// (PerPhase*MaxPhase rows; 1 without swizzle) divides both (a row's phase
// then depends on its flat row index only). A column-blocked plane stores
// its blocks one after another, so its rows must not change.
func ReshapeShared(l *Shared, from, to []int) (*Shared, error) {
	if len(from) < 2 || len(to) < 2 || from[len(from)-1] != to[len(to)-1] {
		return nil, fmt.Errorf("a shared-memory reshape keeps the innermost dimension and rank 2 or more: %v to %v", from, to)
	}
	if l == nil {
		return &Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: ir.RowMajor(len(to))}, nil
	}
	if len(l.Order) != len(from) || !slices.Equal(l.Order, ir.RowMajor(len(from))) {
		return nil, fmt.Errorf("cannot reshape a buffer of shape %v laid out %s: only row-major layouts reshape", from, l)
	}
	rf, rt := from[len(from)-2], to[len(to)-2]
	n := *l
	n.Order = ir.RowMajor(len(to))
	if rf == rt {
		return &n, nil
	}
	if l.Blocked(from) || n.Blocked(to) {
		return nil, fmt.Errorf("cannot reshape a buffer of shape %v laid out %s to %v: its rows of %d elements are cut into column blocks of %d, "+
			"stored one block after another per plane of %d rows, so %d rows are other bytes (keep the rows, or use rows of one swizzle span)",
			from, l, to, from[len(from)-1], l.BlockCols, rf, rt)
	}
	period := 1
	if l.MaxPhase > 1 {
		period = l.PerPhase * l.MaxPhase
	}
	if rf%period != 0 || rt%period != 0 {
		return nil, fmt.Errorf("cannot reshape a buffer of shape %v laid out %s to %v: its swizzle repeats every %d rows, "+
			"which must divide the rows of both shapes (%d and %d)", from, l, to, period, rf, rt)
	}
	return &n, nil
}

// XorMasks finds the register, lane and warp index bits (masks over l's Reg,
// Lane and Warp bases) whose bases XOR to the coordinate offset x: register
// r of thread (lane, warp) then holds, in register r^reg of thread
// (lane^lane, warp^warp), the element at its own coordinates XOR x. flip
// reverses a power-of-two axis with x = size-1 along it: a register
// permutation when lane and warp are 0, a lane shuffle when warp is. ok is
// false when no combination of bases gives x.
func (l *LinearLayout) XorMasks(x []int) (reg, lane, warp int, ok bool) {
	off := make([]int, len(l.Shape))
	at := 0
	for d, n := range l.Shape {
		off[d] = at
		at += layLog2(n)
	}
	enc := func(c []int) uint64 {
		var v uint64
		for d, x := range c {
			v |= uint64(x) << off[d]
		}
		return v
	}
	type row struct{ vec, combo, pivot uint64 }
	var rows []row
	reduce := func(v, combo uint64) (uint64, uint64) {
		for _, r := range rows {
			if v&r.pivot != 0 {
				v ^= r.vec
				combo ^= r.combo
			}
		}
		return v, combo
	}
	all := append(append(append([][]int{}, l.Reg...), l.Lane...), l.Warp...)
	for i, b := range all {
		v, combo := reduce(enc(b), 1<<i)
		if v != 0 {
			rows = append(rows, row{v, combo, 1 << (63 - bits.LeadingZeros64(v))})
		}
	}
	v, combo := reduce(enc(x), 0)
	if v != 0 {
		return 0, 0, 0, false
	}
	nr, nl := len(l.Reg), len(l.Lane)
	return int(combo & (1<<nr - 1)), int(combo >> nr & (1<<nl - 1)), int(combo >> (nr + nl)), true
}

// SliceRegs is, for each register of dst (the layout of x[lo:hi], starts
// the lower bounds), the register of src (x's layout) that holds the same
// element in the same thread; ok is false when some thread would need
// another's element (the slice then goes through shared memory).
func SliceRegs(src, dst *LinearLayout, starts []int) (regs []int, ok bool) {
	return MapRegs(src, dst, func(c []int) []int {
		for d := range c {
			c[d] += starts[d]
		}
		return c
	})
}

// ReshapeRegs is SliceRegs for reshape: dst's element at c is src's at the
// same row-major index.
func ReshapeRegs(src, dst *LinearLayout) (regs []int, ok bool) {
	return MapRegs(src, dst, func(c []int) []int {
		idx := 0
		for d := range c {
			idx = idx*dst.Shape[d] + c[d]
		}
		out := make([]int, len(src.Shape))
		for d := len(out) - 1; d >= 0; d-- {
			out[d] = idx % src.Shape[d]
			idx /= src.Shape[d]
		}
		return out
	})
}

// MapRegs is, for each register of dst, the register of src that holds,
// in every thread, the element at the coordinates mapc makes of that
// register's (mapc may change its argument); ok is false when some thread
// would need another's element. It checks every thread, so it holds for
// any map, not only linear ones.
func MapRegs(src, dst *LinearLayout, mapc func([]int) []int) (regs []int, ok bool) {
	if len(src.Lane) != len(dst.Lane) || len(src.Warp) != len(dst.Warp) {
		return nil, false
	}
	at := map[string]int{}
	for r := 0; r < src.NumRegs(); r++ {
		at[fmt.Sprint(src.RegCoords(r))] = r
	}
	regs = make([]int, dst.NumRegs())
	for r := range regs {
		sr, found := at[fmt.Sprint(mapc(dst.RegCoords(r)))]
		if !found {
			return nil, false
		}
		regs[r] = sr
		for lane := 0; lane < 1<<len(dst.Lane); lane++ {
			for warp := 0; warp < 1<<len(dst.Warp); warp++ {
				if !slices.Equal(mapc(dst.Coords(r, lane, warp)), src.Coords(sr, lane, warp)) {
					return nil, false
				}
			}
		}
	}
	return regs, true
}

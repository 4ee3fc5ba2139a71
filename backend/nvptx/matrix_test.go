package nvptx

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// piece is one byte of shared memory or of a register in the emulation:
// byte b of the element at linear coordinate id (-1: never written).
type piece struct{ id, b int }

// emuMatrix runs the plan of matrixLoad on an emulated warp group: every
// lane computes its row address from p (the formula matrixAddrs emits),
// then ldmatrix(.trans) semantics per PTX fill the lanes' words. It
// returns words[warp][lane][word] as 4 pieces.
func emuLoad(t *testing.T, p *matrixPlan, ll *gpu.LinearLayout, md *ir.MemDesc, mem []piece, nw int) [][][][4]piece {
	eb := p.eb
	sh := sharedLayoutOf(md)
	out := make([][][][4]piece, nw)
	for w := 0; w < nw; w++ {
		out[w] = make([][][4]piece, 32)
		for l := range out[w] {
			out[w][l] = make([][4]piece, len(p.words))
		}
		for g := 0; g < len(p.words)/p.n; g++ {
			addr := func(lane int) int { // byte address lane gives
				c := p.rowStart(ll, lane, g)
				wc := ll.Coords(0, 0, w)
				a := gpu.SharedOffset(sh, md.Shape, []int{c[0] + wc[0], c[1] + wc[1]}) * eb
				require.Zero(t, a%16, "row address of lane %d not 16-byte aligned", lane)
				return a
			}
			for l := 0; l < 32; l++ {
				for i := 0; i < p.n; i++ {
					var wd [4]piece
					for b := 0; b < 4; b++ {
						if !p.trans {
							wd[b] = mem[addr(8*i+l/4)+4*(l%4)+b]
						} else {
							wd[b] = mem[addr(8*i+2*(l%4)+b/2)+2*(l/4)+b%2]
						}
					}
					out[w][l][g*p.n+i] = wd
				}
			}
		}
	}
	return out
}

// emuStore is stmatrix(.trans) of words[warp][lane][word] per the plan.
func emuStore(t *testing.T, p *matrixPlan, ll *gpu.LinearLayout, md *ir.MemDesc, words [][][][4]piece, mem []piece) {
	sh := sharedLayoutOf(md)
	for w := range words {
		for g := 0; g < len(p.words)/p.n; g++ {
			addr := func(lane int) int {
				c := p.rowStart(ll, lane, g)
				wc := ll.Coords(0, 0, w)
				return gpu.SharedOffset(sh, md.Shape, []int{c[0] + wc[0], c[1] + wc[1]}) * p.eb
			}
			for l := 0; l < 32; l++ {
				for i := 0; i < p.n; i++ {
					for b := 0; b < 4; b++ {
						x := words[w][l][g*p.n+i][b]
						if !p.trans {
							mem[addr(8*i+l/4)+4*(l%4)+b] = x
						} else {
							mem[addr(8*i+2*(l%4)+b/2)+2*(l/4)+b%2] = x
						}
					}
				}
			}
		}
	}
}

func fillMem(md *ir.MemDesc, eb int) []piece {
	n := md.Shape[0] * md.Shape[1]
	mem := make([]piece, n*eb)
	for i := range mem {
		mem[i] = piece{-1, 0}
	}
	for r := 0; r < md.Shape[0]; r++ {
		for c := 0; c < md.Shape[1]; c++ {
			off := gpu.SharedOffset(sharedLayoutOf(md), md.Shape, []int{r, c})
			for b := 0; b < eb; b++ {
				mem[off*eb+b] = piece{r*md.Shape[1] + c, b}
			}
		}
	}
	return mem
}

// TestMatrixTransposeEmulated emulates the transpose between buffers as
// the backend emits it (row addresses from the plan through the buffers'
// swizzled address function, ldmatrix semantics, the registers the words
// are cut into, the prmt selectors of packMatrixWord, stmatrix semantics)
// for 8- and 16-bit types, both spellings' tile shapes, swizzled and
// plain buffers and 1 to 8 warps, and checks that every element of the
// destination is the source's transpose.
func TestMatrixTransposeEmulated(t *testing.T) {
	t.Parallel()
	for _, d := range []ir.DType{ir.F8E4M3, ir.BF16} {
		eb := d.Bytes()
		for _, shape := range [][]int{{128, 64}, {64, 128}, {32, 16}, {16, 32}} {
			for _, a := range []int{0, 1} {
				for _, nw := range []int{1, 4, 8} {
					for _, swz := range []bool{false, true} {
						name := fmt.Sprintf("%s %v a=%d warps=%d swizzle=%v", d, shape, a, nw, swz)
						b := 1 - a
						l := passes.MatrixCopyLayout(shape, a, b, d.Bits(), nw)
						if l == nil {
							require.True(t, d.Bits() == 8 && (shape[a] < 16 || shape[b] < 16), name)
							continue
						}
						ll := gpu.MustLinear(l, shape)
						buf := func(contig int) *ir.MemDesc {
							order := []int{contig, 1 - contig}
							sh := &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: order}
							if swz {
								var err error
								if sh, err = gpu.WgmmaSharedLayout(shape, eb, order); err != nil {
									sh = passes.DotSharedLayout(shape, eb, order) // narrow rows
								}
							}
							return &ir.MemDesc{Shape: shape, Elem: d, Order: order, Space: ir.Shared, Layout: sh}
						}
						src, dst := buf(a), buf(b)
						lp, sp := matrixPlanFor(ll, src), matrixPlanFor(ll, dst)
						require.NotNil(t, lp, name)
						require.NotNil(t, sp, name)
						require.True(t, lp.trans, "%s: the load is ldmatrix.trans", name)
						require.False(t, sp.trans, "%s: the store is plain stmatrix", name)
						require.Equal(t, min(4, ll.NumRegs()*eb/4), lp.n, name)

						ldw := emuLoad(t, lp, ll, src, fillMem(src, eb), nw)
						out := make([]piece, shape[0]*shape[1]*eb)
						for i := range out {
							out[i] = piece{-1, 0}
						}
						stw := make([][][][4]piece, nw)
						for w := range stw {
							stw[w] = make([][][4]piece, 32)
							for ln := range stw[w] {
								// the registers: cut from the ldmatrix words
								type pos = wordPos[int]
								regs := map[int]pos{}
								for wi, rs := range lp.words {
									for e, r := range rs {
										regs[r] = pos{wi, e}
										// the element the layout puts there
										c := ll.Coords(r, ln, w)
										require.Equal(t, piece{c[0]*shape[1] + c[1], 0}, ldw[w][ln][wi][e*eb], name)
									}
								}
								stw[w][ln] = make([][4]piece, len(sp.words))
								for wi, rs := range sp.words {
									from := make([]pos, len(rs))
									for e, r := range rs {
										from[e] = regs[r]
									}
									srcs, sel, ok := prmtSelector(from, 32/len(rs))
									require.True(t, ok, name)
									if len(srcs) == 1 {
										srcs = append(srcs, srcs[0])
									}
									for by := 0; by < 4; by++ {
										s := sel >> (4 * by) & 7
										stw[w][ln][wi][by] = ldw[w][ln][srcs[s/4]][s%4]
									}
									if d.Bits() == 8 {
										require.Contains(t, []int{0x6420, 0x7531}, sel, name)
									} else {
										require.Equal(t, 0x3210, sel, "%s: 16-bit words pass through", name)
									}
								}
							}
						}
						emuStore(t, sp, ll, dst, stw, out)
						for r := 0; r < shape[0]; r++ {
							for c := 0; c < shape[1]; c++ {
								off := gpu.SharedOffset(sharedLayoutOf(dst), shape, []int{r, c})
								for by := 0; by < eb; by++ {
									require.Equal(t, piece{r*shape[1] + c, by}, out[off*eb+by], "%s: element (%d, %d)", name, r, c)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestMatrixPlanRejects: layouts that are not the instructions' fragment
// get no plan (the accesses stay ld/st.shared), and neither do buffers
// whose 16-byte rows a swizzle would cut.
func TestMatrixPlanRejects(t *testing.T) {
	shape := []int{128, 64}
	md := &ir.MemDesc{Shape: shape, Elem: ir.F8E4M3, Order: []int{1, 0}, Space: ir.Shared,
		Layout: &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: []int{1, 0}}}
	for _, l := range []*gpu.Blocked{passes.DefaultBlocked(shape, 4), passes.BlockedFor(shape, []int{1, 16}, []int{1, 0}, 4),
		passes.MatrixCopyLayout(shape, 0, 1, 16, 4)} {
		require.Nil(t, matrixPlanFor(gpu.MustLinear(l, shape), md), "%s", l)
	}
	ok := passes.MatrixCopyLayout(shape, 0, 1, 8, 4)
	require.NotNil(t, matrixPlanFor(gpu.MustLinear(ok, shape), md))
	cut := *md
	cut.Layout = &gpu.Shared{Vec: 8, PerPhase: 1, MaxPhase: 8, Order: []int{1, 0}} // 8-byte chunks
	require.Nil(t, matrixPlanFor(gpu.MustLinear(ok, shape), &cut))
}

// TestMatrixRegAPairsEmulated emulates wgmma's 8-bit register a read
// straight from a shared view contiguous along M (wgmma(load(v.T), ...)):
// the ldmatrix.trans plan for the row-paired dot-operand layout (row
// addresses through the swizzled view, ldmatrix semantics), the registers
// its words are cut into, the quads wgmmaRegA packs for each 64-row block
// and k32 step (regAFragment, prmtSelector as prmtWord emits it), and
// checks every byte of every thread's four registers against PTX's
// m64nNk32 a fragment (row lane/4 + 8*(i%2) of warp w's 16, k
// 4*(lane%4) + 16*(i/2) + byte), the fragment's row being the tile row the
// row-paired accumulator (gpu.MMAv3.PairRows) gives its d registers.
func TestMatrixRegAPairsEmulated(t *testing.T) {
	for _, shape := range [][]int{{128, 64}, {64, 64}, {128, 128}, {64, 32}} {
		for _, nw := range []int{4, 8} {
			for _, swz := range []bool{false, true} {
				name := fmt.Sprintf("%v warps=%d swizzle=%v", shape, nw, swz)
				M, K := shape[0], shape[1]
				order := []int{0, 1} // contiguous along M: the view v.T of a [K, M] buffer
				sh := &gpu.Shared{Vec: 1, PerPhase: 1, MaxPhase: 1, Order: order}
				if swz {
					var err error
					sh, err = gpu.WgmmaSharedLayout(shape, 1, order)
					require.NoError(t, err, name)
				}
				md := &ir.MemDesc{Shape: shape, Elem: ir.F8E4M3, Order: order, Space: ir.Shared, Layout: sh}
				ll := gpu.MustLinear(&gpu.DotOperand{OpIdx: 0, Parent: &gpu.MMA{WarpsPerCTA: []int{nw, 1}}, KWidth: 4, PairRows: true}, shape)
				const N = 8
				acc := gpu.MustLinear(&gpu.MMAv3{WarpsPerCTA: []int{nw, 1}, PairRows: true}, []int{M, N})
				p := matrixPlanFor(ll, md)
				require.NotNil(t, p, name)
				require.True(t, p.trans, name)
				require.Equal(t, 4, p.n, name)
				ldw := emuLoad(t, p, ll, md, fillMem(md, 1), nw)
				g := &gen{}
				blocks, r8 := g.wgmmaBlocks(acc, M, N)
				require.Equal(t, 1, r8, name)
				type pos = wordPos[int]
				for w := 0; w < nw; w++ {
					for ln := 0; ln < 32; ln++ {
						regs := map[int]pos{}
						for wi, rs := range p.words {
							for e, r := range rs {
								regs[r] = pos{wi, e}
							}
						}
						regOf := func(c []int) int {
							for r := 0; r < ll.NumRegs(); r++ {
								if layEq(ll.RegCoords(r), c) {
									return r
								}
							}
							t.Fatalf("%s: no register at %v", name, c)
							return -1
						}
						for j, row := range blocks {
							for k := 0; k < K; k += 32 {
								for i, rk := range regAFragment(row, k, r8, 32) {
									r := regOf(rk[:])
									from := []pos{regs[r], regs[r+1], regs[r+2], regs[r+3]}
									srcs, sel, ok := prmtSelector(from, 8)
									require.True(t, ok, name)
									require.Contains(t, []int{0x6420, 0x7531}, sel, name)
									// the accumulator row of fragment row lane/4 + 8*(i%2)
									m := acc.Coords(j*N/2+2*(i%2), ln, w)[0]
									for by := 0; by < 4; by++ {
										s := sel >> (4 * by) & 7
										kk := k + 4*(ln%4) + 16*(i/2) + by
										require.Equal(t, piece{m*K + kk, 0}, ldw[w][ln][srcs[s/4]][s%4], "%s: warp %d lane %d block %d k %d register %d byte %d", name, w, ln, j, k, i, by)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

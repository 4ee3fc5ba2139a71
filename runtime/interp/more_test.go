package interp

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

func smemPtr(d ir.DType) *ir.Pointer { return &ir.Pointer{Elem: d, Space: ir.Shared} }

func TestSharedViewsAndLocalPtr(t *testing.T) {
	// buf[2][4][8]; slot 1 written through local_ptr, read back transposed
	k := newKernel("views", param("out", ptr(ir.F32)), param("cnt", ptr(ir.I32)))
	buf := k.alloc("buf", []int{2, 4, 8}, ir.F32)
	s1 := k.Value(ir.OpMemIndex, memdesc([]int{4, 8}, ir.F32), []*ir.Value{buf, k.ci(1)}, nil)
	rows := k.broadcast(k.expand(k.arange(4), 1), []int{4, 8})
	cols := k.broadcast(k.expand(k.arange(8), 0), []int{4, 8})
	p := k.Value(ir.OpLocalPtr, tile([]int{4, 8}, smemPtr(ir.F32)), []*ir.Value{s1, rows, cols}, nil)
	k.store(p, k.cast(k.bin(ir.OpAdd, k.bin(ir.OpMul, rows, k.ci(10)), cols), ir.F32), nil)
	tr := k.Value(ir.OpMemTrans, &ir.MemDesc{Shape: []int{8, 4}, Elem: ir.F32, Order: []int{0, 1}, Space: ir.Shared}, []*ir.Value{s1}, ir.Attrs{"perm": []int64{1, 0}})
	v := k.localLoad(tr) // [8, 4]: v[c][r] = 10r + c
	k.store(k.addptr(k.arg(0), k.offs2(k.arange(8), k.arange(4), k.ci(4))), v, nil)
	// shared-memory atomics through pointers
	cbuf := k.alloc("counts", []int{4}, ir.I32)
	k.localStore(cbuf, k.splat(k.ci(0), []int{4}))
	cp := k.Value(ir.OpLocalPtr, tile([]int{4}, smemPtr(ir.I32)), []*ir.Value{cbuf, k.arange(4)}, nil)
	k.forLoop(k.ci(0), k.ci(5), k.ci(1), nil, func(i *ir.Value, _ []*ir.Value) []*ir.Value {
		k.Value(ir.OpAtomicRMW, tile([]int{4}, ir.I32), []*ir.Value{cp, k.splat(i, []int{4})}, ir.Attrs{"kind": "add"})
		return nil
	})
	k.store(k.addptr(k.arg(1), k.arange(4)), k.localLoad(cbuf), nil)
	// an out-of-bounds shared access through the slot view
	k.at(40)
	bad := k.Value(ir.OpLocalPtr, smemPtr(ir.F32), []*ir.Value{s1, k.ci(4), k.ci(0)}, nil)
	k.load(bad, nil, nil)
	m := k.ret()
	out, cnt := NewBuffer(ir.F32, 32), NewBuffer(ir.I32, 4)
	err := launchT(t, m, [3]int{1, 1, 1}, out, cnt)
	require.ErrorContains(t, err, "t.tle:40:5: error: out-of-bounds load from shared buffer buf: index 32 is outside [0, 32)")
	got := out.Float64()
	for c := 0; c < 8; c++ {
		for r := 0; r < 4; r++ {
			require.Equal(t, float64(10*r+c), got[c*4+r])
		}
	}
	require.Equal(t, []int64{10, 10, 10, 10}, cnt.Int64())
}

func TestWgmmaTransB(t *testing.T) {
	// C = A x B with B stored [N, K] in shared memory (trans_b)
	const M, N, K = 8, 16, 32
	k := newKernel("wg", param("a", ptr(ir.BF16)), param("bt", ptr(ir.BF16)), param("c", ptr(ir.F32)))
	sa := k.alloc("sa", []int{M, K}, ir.BF16)
	sb := k.alloc("sb", []int{N, K}, ir.BF16)
	k.localStore(sa, k.load(k.addptr(k.arg(0), k.offs2(k.arange(M), k.arange(K), k.ci(K))), nil, nil))
	k.localStore(sb, k.load(k.addptr(k.arg(1), k.offs2(k.arange(N), k.arange(K), k.ci(K))), nil, nil))
	acc := k.splat(k.cf(1), []int{M, N})
	r := k.Value(ir.OpWgmma, acc.Type, []*ir.Value{sa, sb, acc}, ir.Attrs{"trans_b": true})
	k.Create(ir.OpWgmmaWait, nil, nil, ir.Attrs{"pending": int64(0)})
	k.store(k.addptr(k.arg(2), k.offs2(k.arange(M), k.arange(N), k.ci(N))), r, nil)
	rng := rand.New(rand.NewSource(9))
	A, BT := FromFloat64(ir.BF16, randoms(rng, M*K)), FromFloat64(ir.BF16, randoms(rng, N*K))
	C := NewBuffer(ir.F32, M*N)
	require.NoError(t, launchT(t, k.ret(), [3]int{1, 1, 1}, A, BT, C))
	a, bt, c := A.Float64(), BT.Float64(), C.Float64()
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := 1.0
			for q := 0; q < K; q++ {
				s += a[i*K+q] * bt[j*K+q]
			}
			require.Equal(t, float64(float32(s)), c[i*N+j])
		}
	}
}

func TestScanReduceIf(t *testing.T) {
	k := newKernel("scan", param("x", ptr(ir.I32)), param("out", ptr(ir.I32)), param("flag", ir.I32))
	x := k.load(k.addptr(k.arg(0), k.offs2(k.arange(2), k.arange(4), k.ci(4))), nil, nil)
	cs := k.Value(ir.OpScan, x.Type, []*ir.Value{x}, ir.Attrs{"axis": int64(1), "kind": "sum"})
	rs := k.Value(ir.OpScan, x.Type, []*ir.Value{x}, ir.Attrs{"axis": int64(1), "kind": "sum", "reverse": true})
	k.store(k.addptr(k.arg(1), k.offs2(k.arange(2), k.arange(4), k.ci(4))), cs, nil)
	k.store(k.addptr(k.arg(1), k.bin(ir.OpAdd, k.offs2(k.arange(2), k.arange(4), k.ci(4)), k.splat(k.ci(8), []int{2, 4}))), rs, nil)
	rowmax := k.reduce(x, 1, "max") // [2]
	// if flag > 0 { y = rowmax * 2 } else { y = rowmax }
	ifop := k.Create(ir.OpIf, []ir.Type{rowmax.Type}, []*ir.Value{k.cmp("gt", k.arg(2), k.ci(0))}, nil)
	saved := k.Block
	k.Block = k.NewRegion(ifop)
	k.Create(ir.OpYield, nil, []*ir.Value{k.bin(ir.OpMul, rowmax, k.ci(2))}, nil)
	k.Block = k.NewRegion(ifop)
	k.Create(ir.OpYield, nil, []*ir.Value{rowmax}, nil)
	k.Block = saved
	k.store(k.addptr(k.arg(1), k.bin(ir.OpAdd, k.arange(2), k.splat(k.ci(16), []int{2}))), ifop.Results[0], nil)
	m := k.ret()
	in := FromInt64(ir.I32, []int64{1, 2, 3, 4, -5, 6, 7, -8})
	for _, flag := range []int{1, 0} {
		out := NewBuffer(ir.I32, 18)
		require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, in, out, flag))
		mul := int64(1 + flag)
		require.Equal(t, []int64{1, 3, 6, 10, -5, 1, 8, 0, 10, 9, 7, 4, 0, 5, -1, -8, 4 * mul, 7 * mul}, out.Int64())
	}
}

func TestPipeClose(t *testing.T) {
	// the producer sends 3 items and closes index 3; the consumer sees closed on its 4th wait
	k := newKernel("closing", param("out", ptr(ir.I32)))
	pp := k.pipe("pp", 2)
	k.warpSpecialize(
		role{"producer", func() {
			k.forLoop(k.ci(0), k.ci(3), k.ci(1), nil, func(i *ir.Value, _ []*ir.Value) []*ir.Value {
				s := k.pipeOp(ir.OpPipeAcquire, pp, i)
				k.localStore(k.field(s, "v"), k.splat(k.cast(i, ir.F32), []int{4}))
				k.pipeOp(ir.OpPipeCommit, pp, i)
				return nil
			})
			k.pipeOp(ir.OpPipeClose, pp, k.ci(3))
		}},
		role{"consumer", func() {
			k.forLoop(k.ci(0), k.ci(4), k.ci(1), nil, func(i *ir.Value, _ []*ir.Value) []*ir.Value {
				s := k.pipeOp(ir.OpPipeWait, pp, i)
				closed := k.Value(ir.OpSlotClosed, ir.I1, []*ir.Value{s}, nil)
				k.store(k.addptr(k.arg(0), i), k.cast(closed, ir.I32), nil)
				k.pipeOp(ir.OpPipeRelease, pp, i)
				return nil
			})
		}},
	)
	out := NewBuffer(ir.I32, 4)
	require.NoError(t, launchT(t, k.ret(), [3]int{1, 1, 1}, out))
	require.Equal(t, []int64{0, 0, 0, 1}, out.Int64())
}

func TestMakeDescNegativeOffsets(t *testing.T) {
	k := newKernel("md", param("x", ptr(ir.F32)), param("out", ptr(ir.F32)))
	d := k.Value(ir.OpMakeDesc, &ir.Desc{Elem: ir.F32, Block: []int{4, 4}},
		[]*ir.Value{k.arg(0), k.ci(6), k.ci(10), k.ci(12), k.ci(1)}, ir.Attrs{"block": []int64{4, 4}}) // rows of 48 bytes: TMA needs multiples of 16
	s := k.alloc("s", []int{4, 4}, ir.F32)
	k.Create(ir.OpCopy, nil, []*ir.Value{d, s, k.ci(-2), k.ci(-4)}, nil) // innermost: -16 bytes, as TMA needs
	k.store(k.addptr(k.arg(1), k.offs2(k.arange(4), k.arange(4), k.ci(4))), k.localLoad(s), nil)
	xs := randoms(rand.New(rand.NewSource(8)), 72)
	out := NewBuffer(ir.F32, 16)
	require.NoError(t, launchT(t, k.ret(), [3]int{1, 1, 1}, FromFloat64(ir.F32, xs), out))
	got := out.Float64()
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			gr, gc := r-2, c-4
			want := 0.0
			if gr >= 0 && gc >= 0 {
				want = float64(float32(xs[gr*12+gc]))
			}
			require.Equal(t, want, got[r*4+c])
		}
	}
}

// TestDescCopyMisaligned: a box whose innermost offset is not a multiple
// of 16 bytes is an error at the copy (the GPU stops with an illegal
// instruction there: run 68).
func TestDescCopyMisaligned(t *testing.T) {
	k := newKernel("md", param("x", ptr(ir.F32)), param("out", ptr(ir.F32)))
	d := k.Value(ir.OpMakeDesc, &ir.Desc{Elem: ir.F32, Block: []int{4, 4}},
		[]*ir.Value{k.arg(0), k.ci(6), k.ci(10), k.ci(12), k.ci(1)}, ir.Attrs{"block": []int64{4, 4}})
	s := k.alloc("s", []int{4, 4}, ir.F32)
	k.Create(ir.OpCopy, nil, []*ir.Value{d, s, k.ci(-2), k.ci(-1)}, nil)
	err := launchT(t, k.ret(), [3]int{1, 1, 1}, FromFloat64(ir.F32, make([]float64, 72)), NewBuffer(ir.F32, 16))
	require.ErrorContains(t, err, "the innermost offset -1 is -4 bytes, not a multiple of 16 as TMA needs")
}

func TestNoFileErrors(t *testing.T) {
	m := vectorAddNoMask()
	m.File = nil
	err := launchT(t, m, [3]int{4, 1, 1}, NewBuffer(ir.F32, 1024), NewBuffer(ir.F32, 1000))
	require.ErrorContains(t, err, "copy: error: out-of-bounds store to out")
}

func TestSharedReshapeView(t *testing.T) {
	// buf[2][4][8]: slot s written with 100s + 10r + c, read back through
	// memdesc_reshape as [8, 8] (row 4s + r) and as [4, 2, 8]
	k := newKernel("reshape", param("out", ptr(ir.F32)), param("out2", ptr(ir.F32)))
	buf := k.alloc("buf", []int{2, 4, 8}, ir.F32)
	rows := k.broadcast(k.expand(k.arange(4), 1), []int{4, 8})
	cols := k.broadcast(k.expand(k.arange(8), 0), []int{4, 8})
	for s := int64(0); s < 2; s++ {
		sl := k.Value(ir.OpMemIndex, memdesc([]int{4, 8}, ir.F32), []*ir.Value{buf, k.ci(s)}, nil)
		val := k.bin(ir.OpAdd, k.bin(ir.OpAdd, k.bin(ir.OpMul, rows, k.ci(10)), cols), k.ci(100*s))
		k.localStore(sl, k.cast(val, ir.F32))
	}
	whole := k.Value(ir.OpMemReshape, memdesc([]int{8, 8}, ir.F32), []*ir.Value{buf}, nil)
	k.store(k.addptr(k.arg(0), k.offs2(k.arange(8), k.arange(8), k.ci(8))), k.localLoad(whole), nil)
	split := k.Value(ir.OpMemReshape, memdesc([]int{4, 2, 8}, ir.F32), []*ir.Value{whole}, nil)
	half := k.Value(ir.OpMemIndex, memdesc([]int{2, 8}, ir.F32), []*ir.Value{split, k.ci(3)}, nil) // rows 6, 7: slot 1 rows 2, 3
	k.store(k.addptr(k.arg(1), k.offs2(k.arange(2), k.arange(8), k.ci(8))), k.localLoad(half), nil)
	m := k.ret()
	out, out2 := NewBuffer(ir.F32, 64), NewBuffer(ir.F32, 16)
	require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, out, out2))
	got, got2 := out.Float64(), out2.Float64()
	for row := 0; row < 8; row++ {
		for c := 0; c < 8; c++ {
			require.Equal(t, float64(100*(row/4)+10*(row%4)+c), got[row*8+c])
		}
	}
	for r := 0; r < 2; r++ {
		for c := 0; c < 8; c++ {
			require.Equal(t, float64(100+10*(r+2)+c), got2[r*8+c])
		}
	}
}

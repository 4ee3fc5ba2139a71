package interp

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
)

func randoms(r *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for k := range xs {
		x := r.Float64()*4 - 2
		if math.Abs(x) < 1e-3 {
			x = 0.5
		}
		xs[k] = x
	}
	return xs
}

// vectorAdd: out[i] = x[i] + y[i] for i < n, in blocks of block.
func vectorAdd(block int) *ir.Module {
	k := newKernel("vector_add", param("x", ptr(ir.F32)), param("y", ptr(ir.F32)), param("out", ptr(ir.F32)), param("n", ir.I32))
	pid := k.pid(0)
	offs := k.bin(ir.OpAdd, k.bin(ir.OpMul, pid, k.ci(int64(block))), k.arange(block))
	m := k.cmp("lt", offs, k.arg(3))
	zero := k.splat(k.cf(0), []int{block})
	a := k.load(k.addptr(k.arg(0), offs), m, zero)
	b := k.load(k.addptr(k.arg(1), offs), m, zero)
	k.at(7)
	k.store(k.addptr(k.arg(2), offs), k.bin(ir.OpAdd, a, b), m)
	return k.ret()
}

func TestVectorAddMaskedTail(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const n = 1000
	xs, ys := randoms(r, n), randoms(r, n)
	x, y := FromFloat64(ir.F32, xs), FromFloat64(ir.F32, ys)
	out := FromFloat64(ir.F32, randoms(r, n+24)) // the tail past n must stay untouched
	before := out.Float64()
	require.NoError(t, launchT(t, vectorAdd(256), [3]int{4, 1, 1}, x, y, out, n))
	got := out.Float64()
	for i := 0; i < n; i++ {
		want := float64(float32(xs[i]) + float32(ys[i]))
		require.Equal(t, want, got[i], "element %d", i)
	}
	require.Equal(t, before[n:], got[n:])
}

func TestArgumentChecks(t *testing.T) {
	m := vectorAdd(256)
	x := NewBuffer(ir.F32, 8)
	err := launchT(t, m, [3]int{1, 1, 1}, x, x, x)
	require.ErrorContains(t, err, "3 arguments for 4 parameters")
	err = launchT(t, m, [3]int{1, 1, 1}, x, NewBuffer(ir.BF16, 8), x, 8)
	require.ErrorContains(t, err, "argument 1 (y *f32): buffer has dtype bf16, want f32")
	err = launchT(t, m, [3]int{1, 1, 1}, x, x, x, 2.5)
	require.ErrorContains(t, err, "argument 3 (n i32): want an integer")
	err = launchT(t, m, [3]int{1, 1, 1}, x, x, 3, 8)
	require.ErrorContains(t, err, "argument 2 (out *f32)")
}

func TestOOBStoreAtPosition(t *testing.T) {
	out := NewBuffer(ir.F32, 1000)
	err := launchT(t, vectorAddNoMask(), [3]int{4, 1, 1}, NewBuffer(ir.F32, 1024), out)
	require.Error(t, err)
	require.Contains(t, err.Error(), "t.tle:9:5: error: out-of-bounds store to out: index 1000 is outside [0, 1000)")
}

func vectorAddNoMask() *ir.Module {
	k := newKernel("copy", param("x", ptr(ir.F32)), param("out", ptr(ir.F32)))
	offs := k.bin(ir.OpAdd, k.bin(ir.OpMul, k.pid(0), k.ci(256)), k.arange(256))
	v := k.load(k.addptr(k.arg(0), offs), nil, nil)
	k.at(9)
	k.store(k.addptr(k.arg(1), offs), v, nil)
	return k.ret()
}

func TestOOBLoadInLoop(t *testing.T) {
	// an unmasked load in a loop reads past the end on the last iteration
	k := newKernel("sum", param("x", ptr(ir.F32)), param("out", ptr(ir.F32)))
	acc := k.splat(k.cf(0), []int{16})
	res := k.forLoop(k.ci(0), k.ci(5), k.ci(1), []*ir.Value{acc}, func(iv *ir.Value, it []*ir.Value) []*ir.Value {
		offs := k.bin(ir.OpAdd, k.bin(ir.OpMul, iv, k.ci(16)), k.arange(16))
		k.at(4)
		return []*ir.Value{k.bin(ir.OpAdd, it[0], k.load(k.addptr(k.arg(0), offs), nil, nil))}
	})
	k.store(k.addptr(k.arg(1), k.arange(16)), res[0], nil)
	m := k.ret()
	err := launchT(t, m, [3]int{1, 1, 1}, NewBuffer(ir.F32, 70), NewBuffer(ir.F32, 16))
	require.ErrorContains(t, err, "t.tle:4:5: error: out-of-bounds load from x: index 70 is outside [0, 70) (lane 6 of 16)")
	// with enough data the loop sums 5 blocks
	xs := randoms(rand.New(rand.NewSource(2)), 80)
	out := NewBuffer(ir.F32, 16)
	require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, FromFloat64(ir.F32, xs), out))
	for j := 0; j < 16; j++ {
		var s float32
		for i := 0; i < 5; i++ {
			s += float32(xs[i*16+j])
		}
		require.Equal(t, float64(s), out.Float64()[j])
	}
}

func TestRowSoftmax(t *testing.T) {
	const R, C, B = 7, 100, 128
	k := newKernel("softmax", param("x", ptr(ir.F32)), param("out", ptr(ir.F32)), param("ncols", ir.I32))
	row := k.pid(0)
	cols := k.arange(B)
	mask := k.cmp("lt", cols, k.arg(2))
	offs := k.bin(ir.OpAdd, k.bin(ir.OpMul, row, k.arg(2)), cols)
	x := k.load(k.addptr(k.arg(0), offs), mask, k.splat(k.cf(math.Inf(-1)), []int{B}))
	mx := k.reduce(x, 0, "max")
	e := k.Value(ir.OpExp, x.Type, []*ir.Value{k.bin(ir.OpSub, x, mx)}, nil)
	s := k.reduce(e, 0, "sum")
	k.store(k.addptr(k.arg(1), offs), k.bin(ir.OpDiv, e, s), mask)
	m := k.ret()

	xs := randoms(rand.New(rand.NewSource(3)), R*C)
	out := NewBuffer(ir.F32, R*C)
	require.NoError(t, launchT(t, m, [3]int{R, 1, 1}, FromFloat64(ir.F32, xs), out, C))
	got := out.Float64()
	for r := 0; r < R; r++ {
		mx := math.Inf(-1)
		for c := 0; c < C; c++ {
			mx = math.Max(mx, float64(float32(xs[r*C+c])))
		}
		var s float64
		for c := 0; c < C; c++ {
			s += math.Exp(float64(float32(xs[r*C+c])) - mx)
		}
		for c := 0; c < C; c++ {
			want := math.Exp(float64(float32(xs[r*C+c]))-mx) / s
			require.InEpsilon(t, want, got[r*C+c], 1e-5, "row %d col %d", r, c)
		}
	}
}

// matmul: C[M,N] (f32) = A[M,K] x B[K,N] (bf16), program tiles BMxBN, K
// loop of dot over BK.
func matmul(BM, BN, BK int) *ir.Module {
	k := newKernel("matmul", param("a", ptr(ir.BF16)), param("b", ptr(ir.BF16)), param("c", ptr(ir.F32)),
		param("M", ir.I32), param("N", ir.I32), param("K", ir.I32))
	a, b, c, N, K := k.arg(0), k.arg(1), k.arg(2), k.arg(4), k.arg(5)
	rm := k.bin(ir.OpAdd, k.bin(ir.OpMul, k.pid(0), k.ci(int64(BM))), k.arange(BM))
	rn := k.bin(ir.OpAdd, k.bin(ir.OpMul, k.pid(1), k.ci(int64(BN))), k.arange(BN))
	rk := k.arange(BK)
	acc := k.splat(k.cf(0), []int{BM, BN})
	res := k.forLoop(k.ci(0), K, k.ci(int64(BK)), []*ir.Value{acc}, func(k0 *ir.Value, it []*ir.Value) []*ir.Value {
		kk := k.bin(ir.OpAdd, rk, k0)
		ta := k.load(k.addptr(a, k.offs2(rm, kk, K)), nil, nil)
		tb := k.load(k.addptr(b, k.offs2(kk, rn, N)), nil, nil)
		return []*ir.Value{k.dot(ta, tb, it[0])}
	})
	k.store(k.addptr(c, k.offs2(rm, rn, N)), res[0], nil)
	return k.ret()
}

func TestMatmulDotLoop(t *testing.T) {
	const M, N, K = 48, 32, 64
	r := rand.New(rand.NewSource(4))
	A, B := FromFloat64(ir.BF16, randoms(r, M*K)), FromFloat64(ir.BF16, randoms(r, K*N))
	C := NewBuffer(ir.F32, M*N)
	require.NoError(t, launchT(t, matmul(16, 16, 16), [3]int{M / 16, N / 16, 1}, A, B, C, M, N, K))
	a, b, c := A.Float64(), B.Float64(), C.Float64()
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			var s float64
			for q := 0; q < K; q++ {
				s += a[i*K+q] * b[q*N+j]
			}
			require.InDelta(t, s, c[i*N+j], 1e-5*(1+math.Abs(s)), "C[%d,%d]", i, j)
		}
	}
}

func TestBF16RoundingOnStore(t *testing.T) {
	k := newKernel("to_bf16", param("x", ptr(ir.F32)), param("out", ptr(ir.BF16)))
	offs := k.arange(64)
	x := k.load(k.addptr(k.arg(0), offs), nil, nil)
	k.store(k.addptr(k.arg(1), offs), k.cast(x, ir.BF16), nil)
	m := k.ret()
	xs := randoms(rand.New(rand.NewSource(5)), 64)
	xs[0] = 1 + 1.0/256 // tie: rounds to even (1)
	xs[1] = 1 + 3.0/256 // tie: rounds up
	out := NewBuffer(ir.BF16, 64)
	require.NoError(t, launchT(t, m, [3]int{1, 1, 1}, FromFloat64(ir.F32, xs), out))
	got := out.Float64()
	for i, x := range xs {
		require.Equal(t, ir.BF16.Round(float64(float32(x))), got[i], "element %d", i)
	}
	require.Equal(t, 1.0, got[0])
	require.Equal(t, 1+4.0/256, got[1])
	raw := out.Bytes()
	require.Equal(t, []byte{0x80, 0x3f}, raw[:2]) // bf16 1.0
	back, err := FromBytes(ir.BF16, raw)
	require.NoError(t, err)
	require.Equal(t, got, back.Float64())
}

func TestRawEncodings(t *testing.T) {
	for _, d := range []ir.DType{ir.F16, ir.BF16, ir.F8E4M3, ir.F8E5M2, ir.F32} {
		xs := []float64{0, 1, -2.5, 0.3, 448, 1e-7, -3e-5, 100}
		b := FromFloat64(d, xs)
		back, err := FromBytes(d, b.Bytes())
		require.NoError(t, err)
		require.Equal(t, b.Float64(), back.Float64(), "%v", d)
	}
	b := FromFloat64(ir.F16, []float64{1})
	require.Equal(t, []byte{0x00, 0x3c}, b.Bytes())
	b = FromFloat64(ir.F8E4M3, []float64{448})
	require.Equal(t, []byte{0x7e}, b.Bytes())
}

func TestAtomicsFromManyCTAs(t *testing.T) {
	k := newKernel("atomics", param("cnt", ptr(ir.I32)), param("mx", ptr(ir.I32)), param("fsum", ptr(ir.F32)))
	p := k.pid(0)
	idx := k.arange(8)
	one := k.splat(k.ci(1), []int{8})
	k.Value(ir.OpAtomicRMW, tile([]int{8}, ir.I32), []*ir.Value{k.addptr(k.arg(0), idx), one}, ir.Attrs{"kind": "add"})
	k.Value(ir.OpAtomicRMW, ir.I32, []*ir.Value{k.arg(1), p}, ir.Attrs{"kind": "max"})
	k.Value(ir.OpAtomicRMW, ir.F32, []*ir.Value{k.arg(2), k.cf(0.5)}, ir.Attrs{"kind": "add"})
	m := k.ret()
	cnt, mx, fs := NewBuffer(ir.I32, 8), NewBuffer(ir.I32, 1), NewBuffer(ir.F32, 1)
	require.NoError(t, Launch(m, "atomics", [3]int{200, 1, 1}, []Arg{cnt, mx, fs}, Options{Workers: 8}))
	for _, c := range cnt.Int64() {
		require.Equal(t, int64(200), c)
	}
	require.Equal(t, int64(199), mx.Int64()[0])
	require.Equal(t, 100.0, fs.Float64()[0])
}

// ---- pipes and warp roles

func pipeType(capacity int) *ir.Pipe {
	return &ir.Pipe{Capacity: capacity, Fields: []ir.PipeField{{Name: "v", Shape: []int{4}, Elem: ir.F32}}}
}

func (k *kb) pipe(name string, capacity int) *ir.Value {
	v := k.Value(ir.OpPipeAlloc, pipeType(capacity), nil, nil)
	v.Name = name
	return v
}

func (k *kb) pipeOp(kind ir.Kind, p, i *ir.Value) *ir.Value {
	switch kind {
	case ir.OpPipeAcquire, ir.OpPipeWait:
		return k.Value(kind, &ir.Slot{Pipe: p.Type.(*ir.Pipe), Writer: kind == ir.OpPipeAcquire}, []*ir.Value{p, i}, nil)
	}
	k.Create(kind, nil, []*ir.Value{p, i}, nil)
	return nil
}

func (k *kb) field(s *ir.Value, name string) *ir.Value {
	return k.Value(ir.OpSlotField, memdesc([]int{4}, ir.F32), []*ir.Value{s}, ir.Attrs{"name": name})
}

// fillSlot acquires slot 0 of pp and stores ones into its field v, then
// commits it if commit.
func (k *kb) fillSlot(pp *ir.Value, commit bool) {
	s := k.pipeOp(ir.OpPipeAcquire, pp, k.ci(0))
	k.localStore(k.field(s, "v"), k.splat(k.cf(1), []int{4}))
	if commit {
		k.pipeOp(ir.OpPipeCommit, pp, k.ci(0))
	}
}

// drainSlot waits (at line 12) for slot 0 of pp, stores its field v to
// argument 0 and releases it.
func (k *kb) drainSlot(pp *ir.Value) {
	k.at(12)
	s := k.pipeOp(ir.OpPipeWait, pp, k.ci(0))
	k.store(k.addptr(k.arg(0), k.arange(4)), k.localLoad(k.field(s, "v")), nil)
	k.pipeOp(ir.OpPipeRelease, pp, k.ci(0))
}

func TestPipeProducerConsumer(t *testing.T) {
	const items, capacity = 10, 2
	k := newKernel("pc", param("out", ptr(ir.F32)), param("produced", ptr(ir.I32)))
	pp := k.pipe("pp", capacity)
	counter := k.addptr(k.arg(1), k.pid(0))
	k.warpSpecialize(
		role{"producer", func() {
			k.forLoop(k.ci(0), k.ci(items), k.ci(1), nil, func(i *ir.Value, _ []*ir.Value) []*ir.Value {
				s := k.pipeOp(ir.OpPipeAcquire, pp, i)
				v := k.bin(ir.OpAdd, k.cast(k.bin(ir.OpMul, i, k.ci(10)), ir.F32), k.cast(k.arange(4), ir.F32))
				k.localStore(k.field(s, "v"), v)
				k.pipeOp(ir.OpPipeCommit, pp, i)
				k.Value(ir.OpAtomicRMW, ir.I32, []*ir.Value{counter, k.ci(1)}, ir.Attrs{"kind": "add"})
				return nil
			})
		}},
		role{"consumer", func() {
			k.forLoop(k.ci(0), k.ci(items), k.ci(1), nil, func(i *ir.Value, _ []*ir.Value) []*ir.Value {
				s := k.pipeOp(ir.OpPipeWait, pp, i)
				v := k.localLoad(k.field(s, "v"))
				// order: the first element is 10*i
				first := k.reduce(v, 0, "min")
				k.at(20)
				k.Create(ir.OpAssert, nil, []*ir.Value{k.cmp("eq", first, k.cast(k.bin(ir.OpMul, i, k.ci(10)), ir.F32))}, ir.Attrs{"msg": "out of order"})
				// capacity: the producer is at most `capacity` items ahead
				n := k.Value(ir.OpAtomicRMW, ir.I32, []*ir.Value{counter, k.ci(0)}, ir.Attrs{"kind": "add"})
				k.at(21)
				k.Create(ir.OpAssert, nil, []*ir.Value{k.cmp("le", n, k.bin(ir.OpAdd, i, k.ci(capacity)))}, ir.Attrs{"msg": "capacity exceeded"})
				row := k.bin(ir.OpAdd, k.bin(ir.OpMul, k.pid(0), k.ci(items)), i)
				k.store(k.addptr(k.arg(0), k.bin(ir.OpAdd, k.bin(ir.OpMul, row, k.ci(4)), k.arange(4))), v, nil)
				k.pipeOp(ir.OpPipeRelease, pp, i)
				return nil
			})
		}},
	)
	m := k.ret()
	for rep := 0; rep < 20; rep++ {
		out, produced := NewBuffer(ir.F32, 3*items*4), NewBuffer(ir.I32, 3)
		require.NoError(t, Launch(m, "pc", [3]int{3, 1, 1}, []Arg{out, produced}, Options{}))
		got := out.Float64()
		for p := 0; p < 3; p++ {
			for i := 0; i < items; i++ {
				for j := 0; j < 4; j++ {
					require.Equal(t, float64(10*i+j), got[(p*items+i)*4+j])
				}
			}
		}
		require.Equal(t, []int64{items, items, items}, produced.Int64())
	}
}

func TestDeadlockDetected(t *testing.T) {
	k := newKernel("dead", param("out", ptr(ir.F32)))
	pp := k.pipe("pp", 2)
	k.warpSpecialize(
		role{"producer", func() { k.fillSlot(pp, false) }}, // never commits
		role{"consumer", func() { k.drainSlot(pp) }},
	)
	m := k.ret()
	start := time.Now()
	err := Launch(m, "dead", [3]int{4, 1, 1}, []Arg{NewBuffer(ir.F32, 4)}, Options{Timeout: time.Minute})
	require.Error(t, err)
	require.Less(t, time.Since(start), 2*time.Second)
	msg := err.Error()
	require.Contains(t, msg, "t.tle:12:5: error: deadlock")
	require.Contains(t, msg, `role "consumer" of program`)
	require.Contains(t, msg, "pipe_wait(pp, 0): slot 0, phase 0, not yet committed")
	require.Contains(t, msg, "being written (acquired)")
	require.Contains(t, msg, `finished: role "producer"`)
}

func TestCapacityDeadlock(t *testing.T) {
	// a single role acquiring 3 slots of a 2-slot pipe without releases blocks forever
	k := newKernel("cap", param("out", ptr(ir.F32)))
	pp := k.pipe("ring", 2)
	k.forLoop(k.ci(0), k.ci(3), k.ci(1), nil, func(i *ir.Value, _ []*ir.Value) []*ir.Value {
		k.at(5)
		k.pipeOp(ir.OpPipeAcquire, pp, i)
		k.pipeOp(ir.OpPipeCommit, pp, i)
		return nil
	})
	err := launchT(t, k.ret(), [3]int{1, 1, 1}, NewBuffer(ir.F32, 1))
	require.ErrorContains(t, err, "t.tle:5:5: error: deadlock")
	require.ErrorContains(t, err, "pipe_acquire(ring, 2): slot 0, phase 1, not yet released for index 0")
}

func TestSlotReadOutsideWaitRelease(t *testing.T) {
	k := newKernel("late", param("out", ptr(ir.F32)))
	pp := k.pipe("pp", 2)
	k.warpSpecialize(
		role{"producer", func() { k.fillSlot(pp, true) }},
		role{"consumer", func() {
			s := k.pipeOp(ir.OpPipeWait, pp, k.ci(0))
			f := k.field(s, "v")
			k.pipeOp(ir.OpPipeRelease, pp, k.ci(0))
			k.at(30)
			k.store(k.addptr(k.arg(0), k.arange(4)), k.localLoad(f), nil)
		}},
	)
	err := launchT(t, k.ret(), [3]int{1, 1, 1}, NewBuffer(ir.F32, 4))
	require.ErrorContains(t, err, "t.tle:30:5: error: read of pipe pp slot 0 (index 0) outside wait..release: the slot is empty (released)")
	require.ErrorContains(t, err, `role "consumer"`)
}

func TestSlotWriteOutsideAcquireCommit(t *testing.T) {
	k := newKernel("early", param("out", ptr(ir.F32)))
	pp := k.pipe("pp", 1)
	s := k.pipeOp(ir.OpPipeAcquire, pp, k.ci(0))
	f := k.field(s, "v")
	k.pipeOp(ir.OpPipeCommit, pp, k.ci(0))
	// a pointer into the slot used after commit
	p := k.Value(ir.OpLocalPtr, tile([]int{4}, &ir.Pointer{Elem: ir.F32, Space: ir.Shared}), []*ir.Value{f, k.arange(4)}, nil)
	k.at(8)
	k.store(p, k.splat(k.cf(2), []int{4}), nil)
	err := launchT(t, k.ret(), [3]int{1, 1, 1}, NewBuffer(ir.F32, 4))
	require.ErrorContains(t, err, "t.tle:8:5: error: write to pipe pp slot 0 (index 0) outside acquire..commit: the slot is full (committed)")
}

func TestPipeMisuse(t *testing.T) {
	build := func(body func(k *kb, pp *ir.Value)) *ir.Module {
		k := newKernel("misuse", param("out", ptr(ir.F32)))
		body(k, k.pipe("pp", 2))
		return k.ret()
	}
	err := launchT(t, build(func(k *kb, pp *ir.Value) {
		k.pipeOp(ir.OpPipeAcquire, pp, k.ci(0))
		k.pipeOp(ir.OpPipeCommit, pp, k.ci(0))
		k.at(3)
		k.pipeOp(ir.OpPipeCommit, pp, k.ci(0))
	}), [3]int{1, 1, 1}, NewBuffer(ir.F32, 1))
	require.ErrorContains(t, err, "t.tle:3:5: error: pipe_commit(pp, 0): index 0 was already committed")
	err = launchT(t, build(func(k *kb, pp *ir.Value) {
		k.at(4)
		k.pipeOp(ir.OpPipeRelease, pp, k.ci(1))
	}), [3]int{1, 1, 1}, NewBuffer(ir.F32, 1))
	require.ErrorContains(t, err, "t.tle:4:5: error: pipe_release(pp, 1): index 1 was not waited")
}

// ---- mbarriers

func TestBarrierPhases(t *testing.T) {
	build := func(phase int64) *ir.Module {
		k := newKernel("bar", param("out", ptr(ir.F32)))
		b := k.Value(ir.OpBarrierAlloc, &ir.Barrier{}, nil, ir.Attrs{"count": int64(1)})
		b.Name = "bar"
		k.Create(ir.OpBarrierArrive, nil, []*ir.Value{b}, nil)
		k.at(6)
		k.Create(ir.OpBarrierWait, nil, []*ir.Value{b, k.ci(phase)}, nil)
		k.store(k.addptr(k.arg(0), k.pid(0)), k.cf(1), nil)
		return k.ret()
	}
	out := NewBuffer(ir.F32, 2)
	require.NoError(t, launchT(t, build(0), [3]int{2, 1, 1}, out))
	require.Equal(t, []float64{1, 1}, out.Float64())
	start := time.Now()
	err := launchT(t, build(1), [3]int{2, 1, 1}, out)
	require.Less(t, time.Since(start), 2*time.Second)
	require.ErrorContains(t, err, "t.tle:6:5: error: deadlock")
	require.ErrorContains(t, err, "wait(bar, phase 1): the barrier is in phase 1 (1 completed), 1 of 1 arrivals missing (phase mismatch")
}

func TestBarrierAcrossRoles(t *testing.T) {
	// role a writes shared memory then arrives; role b waits and reads it
	k := newKernel("handoff", param("out", ptr(ir.F32)))
	buf := k.alloc("buf", []int{4}, ir.F32)
	b := k.Value(ir.OpBarrierAlloc, &ir.Barrier{}, nil, ir.Attrs{"count": int64(1)})
	k.warpSpecialize(
		role{"a", func() {
			k.localStore(buf, k.cast(k.arange(4), ir.F32))
			k.Create(ir.OpBarrierArrive, nil, []*ir.Value{b}, nil)
		}},
		role{"b", func() {
			k.Create(ir.OpBarrierWait, nil, []*ir.Value{b, k.ci(0)}, nil)
			k.store(k.addptr(k.arg(0), k.arange(4)), k.localLoad(buf), nil)
		}},
	)
	out := NewBuffer(ir.F32, 4)
	require.NoError(t, launchT(t, k.ret(), [3]int{1, 1, 1}, out))
	require.Equal(t, []float64{0, 1, 2, 3}, out.Float64())
}

// ---- clusters

func TestClusterExchange(t *testing.T) {
	k := newKernel("exchange", param("out", ptr(ir.F32)))
	mesh := k.Value(ir.OpDeviceMesh, &ir.Mesh{Dims: [3]int{2, 1, 1}}, nil, ir.Attrs{"dims": []int64{2, 1, 1}})
	buf := k.alloc("buf", []int{8}, ir.F32)
	rank := k.Value(ir.OpShardID, ir.I32, []*ir.Value{mesh}, ir.Attrs{"axis": "cluster_x"})
	pid := k.pid(0)
	// write my values into the peer's buffer, then read my own after the barrier
	peer := k.Value(ir.OpRemote, &ir.MemDesc{Shape: []int{8}, Elem: ir.F32, Order: []int{0}, Space: ir.Cluster},
		[]*ir.Value{buf, k.bin(ir.OpSub, k.ci(1), rank), mesh}, nil)
	mine := k.bin(ir.OpAdd, k.cast(k.bin(ir.OpMul, pid, k.ci(100)), ir.F32), k.cast(k.arange(8), ir.F32))
	k.localStore(peer, mine)
	k.Create(ir.OpDistributedBarrier, nil, []*ir.Value{mesh}, nil)
	k.store(k.addptr(k.arg(0), k.bin(ir.OpAdd, k.bin(ir.OpMul, pid, k.ci(8)), k.arange(8))), k.localLoad(buf), nil)
	m := k.ret()
	out := NewBuffer(ir.F32, 6*8)
	require.NoError(t, launchT(t, m, [3]int{6, 1, 1}, out))
	got := out.Float64()
	for p := 0; p < 6; p++ {
		for j := 0; j < 8; j++ {
			require.Equal(t, float64((p^1)*100+j), got[p*8+j], "CTA %d element %d", p, j)
		}
	}
	require.ErrorContains(t, launchT(t, m, [3]int{3, 1, 1}, out), "grid [3 1 1] is not a multiple of the cluster [2 1 1]")
}

// ---- TMA

func TestTMACopyOOBZeroFill(t *testing.T) {
	// a [6, 10] tensor; copy the 4x8 block at (4, 4): rows 6..7 and cols 10..11 are outside
	k := newKernel("tma", param("src", &ir.Desc{Elem: ir.F32, Block: []int{4, 8}}), param("dst", &ir.Desc{Elem: ir.F32, Block: []int{4, 8}}), param("out", ptr(ir.F32)))
	smem := k.alloc("stage", []int{4, 8}, ir.F32)
	b := k.Value(ir.OpBarrierAlloc, &ir.Barrier{}, nil, ir.Attrs{"count": int64(1)})
	k.Create(ir.OpBarrierExpect, nil, []*ir.Value{b, k.ci(4 * 8 * 4)}, nil)
	k.Create(ir.OpCopy, nil, []*ir.Value{k.arg(0), smem, k.ci(4), k.ci(4), b}, ir.Attrs{"has_barrier": true})
	k.Create(ir.OpBarrierWait, nil, []*ir.Value{b, k.ci(0)}, nil)
	v := k.localLoad(smem)
	k.store(k.addptr(k.arg(2), k.offs2(k.arange(4), k.arange(8), k.ci(8))), v, nil)
	// and back: a store clipped to the destination tensor
	k.Create(ir.OpCopy, nil, []*ir.Value{smem, k.arg(1), k.ci(4), k.ci(4)}, nil)
	m := k.ret()

	xs := randoms(rand.New(rand.NewSource(6)), 60)
	src := FromFloat64(ir.F32, xs)
	dstBuf := FromFloat64(ir.F32, randoms(rand.New(rand.NewSource(7)), 60))
	before := dstBuf.Float64()
	out := NewBuffer(ir.F32, 32)
	require.NoError(t, launchT(t, m, [3]int{1, 1, 1},
		&Desc{Buf: src, Shape: []int{6, 10}, Strides: []int{10, 1}},
		&Desc{Buf: dstBuf, Shape: []int{6, 10}, Strides: []int{10, 1}}, out))
	got := out.Float64()
	want := make([]float64, 60)
	copy(want, before)
	for r := 0; r < 4; r++ {
		for c := 0; c < 8; c++ {
			gr, gc := 4+r, 4+c
			if gr < 6 && gc < 10 {
				require.Equal(t, float64(float32(xs[gr*10+gc])), got[r*8+c])
				want[gr*10+gc] = float64(float32(xs[gr*10+gc]))
			} else {
				require.Equal(t, 0.0, got[r*8+c], "(%d, %d) is outside the tensor", gr, gc)
			}
		}
	}
	require.Equal(t, want, dstBuf.Float64())
}

func TestAsmRejected(t *testing.T) {
	k := newKernel("raw", param("out", ptr(ir.F32)))
	k.at(3)
	k.Value(ir.OpAsm, ir.F32, nil, ir.Attrs{"template": "mov.b32 $0, 0;", "constraints": "=r"})
	err := launchT(t, k.ret(), [3]int{1, 1, 1}, NewBuffer(ir.F32, 1))
	require.EqualError(t, err, "t.tle:3:5: error: asm is GPU-only; the interpreter cannot run it")
}

func TestRoleCannotReadAnotherRole(t *testing.T) {
	k := newKernel("leak", param("out", ptr(ir.F32)))
	var x *ir.Value
	k.warpSpecialize(
		role{"a", func() { x = k.cf(1) }},
		role{"b", func() { k.at(4); k.store(k.arg(0), x, nil) }},
	)
	err := launchT(t, k.ret(), [3]int{1, 1, 1}, NewBuffer(ir.F32, 1))
	require.ErrorContains(t, err, `t.tle:4:5: error: role "b" uses a value computed by role "a"`)
}

func TestPrintAndAssert(t *testing.T) {
	k := newKernel("p", param("out", ptr(ir.F32)))
	k.Create(ir.OpPrint, nil, []*ir.Value{k.pid(0), k.cast(k.arange(3), ir.F32)}, ir.Attrs{"prefix": "x ="})
	k.at(2)
	k.Create(ir.OpAssert, nil, []*ir.Value{k.cmp("lt", k.pid(0), k.ci(1))}, ir.Attrs{"msg": "pid < 1"})
	m := k.ret()
	var sb safeBuffer
	require.NoError(t, Launch(m, "p", [3]int{1, 1, 1}, []Arg{NewBuffer(ir.F32, 1)}, Options{Stdout: &sb}))
	require.Equal(t, "pid (0, 0, 0) x = 0 [0 1 2]\n", sb.String())
	err := Launch(m, "p", [3]int{2, 1, 1}, []Arg{NewBuffer(ir.F32, 1)}, Options{Stdout: &sb})
	require.ErrorContains(t, err, "t.tle:2:5: error: assertion failed: pid < 1 [program (1, 0, 0)]")
}

package nvptx

import (
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// 2-D pointer tile base + rows*stride + cols for a row-major [R, C] block.
func (k *kb) ptrs2(base, stride *ir.Value, r, c int) *ir.Value {
	sh := []int{r, c}
	rows := k.bcast(k.bin(ir.OpMul, k.expand(k.arange(r), 1), k.splat(stride, []int{r, 1})), sh)
	cols := k.bcast(k.expand(k.arange(c), 0), sh)
	return k.addptr(k.splat(base, sh), k.bin(ir.OpAdd, rows, cols))
}

func (k *kb) ptrs1(base *ir.Value, n int) *ir.Value {
	return k.addptr(k.splat(base, []int{n}), k.arange(n))
}

// reduce2dIR: x [R, C] f32 (row-major, unit column stride);
// rowsum[r] = sum_c x, colmax[c] = max_r x.
// Params (x, rowsum, colmax *f32), grid (1).
func reduce2dIR(r, c, numWarps int) *ir.Module {
	k := newKernel("reduce2d", param("x", ptr(ir.F32)), param("rowsum", ptr(ir.F32)), param("colmax", ptr(ir.F32)))
	x := k.load(k.ptrs2(k.arg(0), k.i32(int64(c)), r, c), nil, nil)
	k.store(k.ptrs1(k.arg(1), r), k.reduce(x, 1, "sum"), nil)
	k.store(k.ptrs1(k.arg(2), c), k.reduce(x, 0, "max"), nil)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(numWarps)})
}

// cumsumIR: y = cumsum(x) and z = reverse cumsum(x) over n elements (i32
// and f32 versions). Params (xi, yi, zi *i32, xf, yf *f32), grid (1).
func cumsumIR(n, numWarps int) *ir.Module {
	k := newKernel("cumsum", param("xi", ptr(ir.I32)), param("yi", ptr(ir.I32)), param("zi", ptr(ir.I32)),
		param("xf", ptr(ir.F32)), param("yf", ptr(ir.F32)))
	xi := k.load(k.ptrs1(k.arg(0), n), nil, nil)
	scan := func(x *ir.Value, rev bool) *ir.Value {
		return k.v(ir.OpScan, x.Type, ir.Attrs{"axis": int64(0), "kind": "sum", "reverse": rev}, x)
	}
	k.store(k.ptrs1(k.arg(1), n), scan(xi, false), nil)
	k.store(k.ptrs1(k.arg(2), n), scan(xi, true), nil)
	xf := k.load(k.ptrs1(k.arg(3), n), nil, nil)
	k.store(k.ptrs1(k.arg(4), n), scan(xf, false), nil)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(numWarps)})
}

// castsIR: from f32 x, outputs bf16(x), f16(x), f8e4m3(x), f8e5m2(x) (each
// widened back to f32), i32(x), f32(i32(x)) + 0.5, and i8 wrap of i32(x).
// Params (x, o_bf16, o_f16, o_e4m3, o_e5m2 *f32, o_i32 *i32, o_back *f32, o_i8 *i8), grid (1).
func castsIR(n int) *ir.Module {
	k := newKernel("casts", param("x", ptr(ir.F32)), param("o_bf16", ptr(ir.F32)), param("o_f16", ptr(ir.F32)),
		param("o_e4m3", ptr(ir.F32)), param("o_e5m2", ptr(ir.F32)), param("o_i32", ptr(ir.I32)),
		param("o_back", ptr(ir.F32)), param("o_i8", ptr(ir.I8)))
	x := k.load(k.ptrs1(k.arg(0), n), nil, nil)
	for i, d := range []ir.DType{ir.BF16, ir.F16, ir.F8E4M3, ir.F8E5M2} {
		k.store(k.ptrs1(k.arg(1+i), n), k.cast(k.cast(x, d), ir.F32), nil)
	}
	xi := k.cast(x, ir.I32)
	k.store(k.ptrs1(k.arg(5), n), xi, nil)
	k.store(k.ptrs1(k.arg(6), n), k.bin(ir.OpAdd, k.cast(xi, ir.F32), k.constTile(0.5, []int{n}, ir.F32)), nil)
	k.store(k.ptrs1(k.arg(7), n), k.cast(xi, ir.I8), nil)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(4)})
}

// mathIR: out[j*n + i] = f_j(x[i]) for exp, exp2, log, log2, sqrt, rsqrt,
// sigmoid, tanh, abs, neg, min(x, 0.5), max(x, 0.5), x*x - x.
// Params (x, out *f32), grid (1).
func mathIR(n int) (*ir.Module, []string) {
	k := newKernel("mathfn", param("x", ptr(ir.F32)), param("out", ptr(ir.F32)))
	x := k.load(k.ptrs1(k.arg(0), n), nil, nil)
	half := k.constTile(0.5, []int{n}, ir.F32)
	names := []string{"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sigmoid", "tanh", "abs", "neg", "min", "max", "poly"}
	outs := []*ir.Value{
		k.un(ir.OpExp, x), k.un(ir.OpExp2, x), k.un(ir.OpLog, x), k.un(ir.OpLog2, x), k.un(ir.OpSqrt, x),
		k.un(ir.OpRsqrt, x), k.un(ir.OpSigmoid, x), k.un(ir.OpTanh, x), k.un(ir.OpAbs, x), k.un(ir.OpNeg, x),
		k.bin(ir.OpMin, x, half), k.bin(ir.OpMax, x, half), k.bin(ir.OpSub, k.bin(ir.OpMul, x, x), x),
	}
	for j, o := range outs {
		base := k.addptr(k.arg(1), k.i32(int64(j*n)))
		k.store(k.ptrs1(base, n), o, nil)
	}
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(4)}), names
}

// transIR: y [C, R] = trans(x [R, C]), and z = x reshaped to [R*C/64, 64].
// Params (x, y, z *f32), grid (1).
func transIR(r, c int) *ir.Module {
	k := newKernel("transpose", param("x", ptr(ir.F32)), param("y", ptr(ir.F32)), param("z", ptr(ir.F32)))
	x := k.load(k.ptrs2(k.arg(0), k.i32(int64(c)), r, c), nil, nil)
	t := k.v(ir.OpTrans, tile([]int{c, r}, ir.F32), ir.Attrs{"perm": []int64{1, 0}}, x)
	k.store(k.ptrs2(k.arg(1), k.i32(int64(r)), c, r), t, nil)
	rs := k.v(ir.OpReshape, tile([]int{r * c / 64, 64}, ir.F32), nil, x)
	k.store(k.ptrs2(k.arg(2), k.i32(64), r*c/64, 64), rs, nil)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(4)})
}

// atomicIR: atomic_add(hist[idx[i]], 1.0), atomic max into mx[0] of x[i]
// (i32), and per program a scalar ticket = atomic_add(cnt[0], 1) stored in
// tickets[pid]. Params (idx *i32, hist *f32, x *i32, mx *i32, n i32, cnt,
// tickets *i32), grid (cdiv(n, 256)).
func atomicIR() *ir.Module {
	k := newKernel("atomics", param("idx", ptr(ir.I32)), param("hist", ptr(ir.F32)), param("x", ptr(ir.I32)),
		param("mx", ptr(ir.I32)), param("n", ir.I32), param("cnt", ptr(ir.I32)), param("tickets", ptr(ir.I32)))
	ticket := k.v(ir.OpAtomicRMW, ir.I32, ir.Attrs{"kind": "add"}, k.arg(5), k.i32(1))
	k.store(k.addptr(k.arg(6), k.pid(0)), ticket, nil)
	sh := []int{256}
	offs := k.bin(ir.OpAdd, k.splat(k.bin(ir.OpMul, k.pid(0), k.i32(256)), sh), k.arange(256))
	m := k.cmp("lt", offs, k.splat(k.arg(4), sh))
	idx := k.load(k.addptr(k.splat(k.arg(0), sh), offs), m, k.constTile(int64(0), sh, ir.I32))
	hp := k.addptr(k.splat(k.arg(1), sh), idx)
	k.v(ir.OpAtomicRMW, tile(sh, ir.F32), ir.Attrs{"kind": "add"}, hp, k.constTile(1.0, sh, ir.F32), m)
	x := k.load(k.addptr(k.splat(k.arg(2), sh), offs), m, k.constTile(int64(0), sh, ir.I32))
	k.v(ir.OpAtomicRMW, tile(sh, ir.I32), ir.Attrs{"kind": "max"}, k.splat(k.arg(3), sh), x, m)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(4)})
}

// attentionIR: one [M, D] block of softmax(q k^T * scale) v (f16 in, f32
// accumulation, f32 out) over a whole [N, D] k and v: exercises dot with a
// transposed operand, reductions in the mma layout, and a dot whose A
// operand is a register result. Params (q, k, v *f16, out *f32), grid (1).
func attentionIR(m, n, d, numWarps int, scale float64) *ir.Module {
	k := newKernel("attention", param("q", ptr(ir.F16)), param("k", ptr(ir.F16)), param("v", ptr(ir.F16)), param("out", ptr(ir.F32)))
	dd := k.i32(int64(d))
	q := k.load(k.ptrs2(k.arg(0), dd, m, d), nil, nil)
	kt := k.load(k.ptrs2(k.arg(1), dd, n, d), nil, nil)
	v := k.load(k.ptrs2(k.arg(2), dd, n, d), nil, nil)
	ktT := k.v(ir.OpTrans, tile([]int{d, n}, ir.F16), ir.Attrs{"perm": []int64{1, 0}}, kt)
	s := k.v(ir.OpDot, tile([]int{m, n}, ir.F32), nil, q, ktT, k.constTile(0.0, []int{m, n}, ir.F32))
	s = k.bin(ir.OpMul, s, k.constTile(scale, []int{m, n}, ir.F32))
	mx := k.reduce(s, 1, "max")
	p := k.un(ir.OpExp, k.bin(ir.OpSub, s, k.bcast(k.expand(mx, 1), []int{m, n})))
	l := k.reduce(p, 1, "sum")
	o := k.v(ir.OpDot, tile([]int{m, d}, ir.F32), nil, k.cast(p, ir.F16), v, k.constTile(0.0, []int{m, d}, ir.F32))
	o = k.bin(ir.OpDiv, o, k.bcast(k.expand(l, 1), []int{m, d}))
	k.store(k.ptrs2(k.arg(3), dd, m, d), o, nil)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(numWarps)})
}

// miscIR: an if with tile results, an explicit shared buffer written with
// local_store and read back reversed through local_ptr, and a scalar store.
// out[i] = r[255-i] with r = flag > 0 ? 2x : x+1; cnt[0] = sum(r).
// Params (x, out, cnt *f32, flag i32), grid (1).
func miscIR() *ir.Module {
	k := newKernel("misc", param("x", ptr(ir.F32)), param("out", ptr(ir.F32)), param("cnt", ptr(ir.F32)), param("flag", ir.I32))
	sh := []int{256}
	x := k.load(k.ptrs1(k.arg(0), 256), nil, nil)
	cond := k.cmp("gt", k.arg(3), k.i32(0))
	op := k.b.Create(ir.OpIf, []ir.Type{x.Type}, []*ir.Value{cond}, nil)
	thenB, elseB := k.b.NewRegion(op), k.b.NewRegion(op)
	saved := k.b.Block
	k.b.Block = thenB
	k.b.Create(ir.OpYield, nil, []*ir.Value{k.bin(ir.OpMul, x, k.constTile(2.0, sh, ir.F32))}, nil)
	k.b.Block = elseB
	k.b.Create(ir.OpYield, nil, []*ir.Value{k.bin(ir.OpAdd, x, k.constTile(1.0, sh, ir.F32))}, nil)
	k.b.Block = saved
	r := op.Results[0]
	buf := k.v(ir.OpAlloc, &ir.MemDesc{Shape: sh, Elem: ir.F32, Order: []int{0}, Space: ir.Shared}, nil)
	k.b.Create(ir.OpLocalStore, nil, []*ir.Value{buf, r}, nil)
	rev := k.bin(ir.OpSub, k.constTile(int64(255), sh, ir.I32), k.arange(256))
	sp := k.v(ir.OpLocalPtr, tile(sh, &ir.Pointer{Elem: ir.F32, Space: ir.Shared}), nil, buf, rev)
	k.store(k.ptrs1(k.arg(1), 256), k.load(sp, nil, nil), nil)
	k.store(k.arg(2), k.reduce(r, 0, "sum"), nil)
	k.b.Create(ir.OpPrint, nil, []*ir.Value{k.arg(3)}, ir.Attrs{"prefix": "flag"})
	k.b.Create(ir.OpAssert, nil, []*ir.Value{k.cmp("ge", k.arg(3), k.i32(-100))}, ir.Attrs{"msg": "flag too small"})
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(4)})
}

// matmulTutorialIR is kernels/tutorials/matmul.tle as the frontend lowers
// it: pointers recomputed from the induction variable each iteration, a
// 2-D grid, masks on both dimensions. The integer parameters are marked
// multiples of 16 (the JIT's divisibility specialisation).
// Params (a, b, c *bf16, M, N, K i32), grid (cdiv(M, BM), cdiv(N, BN)).
func matmulTutorialIR(bm, bn, bk, numWarps int) *ir.Module {
	k := newKernel("matmul", param("a", ptr(ir.BF16)), param("b", ptr(ir.BF16)), param("c", ptr(ir.BF16)),
		param("M", ir.I32), param("N", ir.I32), param("K", ir.I32))
	M, N, K := k.arg(3), k.arg(4), k.arg(5)
	rm := k.bin(ir.OpAdd, k.splat(k.bin(ir.OpMul, k.pid(0), k.i32(int64(bm))), []int{bm}), k.arange(bm))
	rn := k.bin(ir.OpAdd, k.splat(k.bin(ir.OpMul, k.pid(1), k.i32(int64(bn))), []int{bn}), k.arange(bn))
	rk := k.arange(bk)
	aS, bS, cS := []int{bm, bk}, []int{bk, bn}, []int{bm, bn}
	and2 := func(x, y *ir.Value, sh []int) *ir.Value { return k.bin(ir.OpAnd, k.bcast(x, sh), k.bcast(y, sh)) }
	res := k.forLoop(k.i32(0), K, k.i32(int64(bk)), []*ir.Value{k.constTile(0.0, cS, ir.F32)}, func(kk *ir.Value, it []*ir.Value) []*ir.Value {
		ka := k.bin(ir.OpAdd, k.splat(kk, []int{bk}), rk)
		aOff := k.bin(ir.OpAdd, k.bcast(k.bin(ir.OpMul, k.expand(rm, 1), k.splat(K, []int{bm, 1})), aS), k.bcast(k.expand(ka, 0), aS))
		ma := and2(k.expand(k.cmp("lt", rm, k.splat(M, []int{bm})), 1), k.expand(k.cmp("lt", ka, k.splat(K, []int{bk})), 0), aS)
		ta := k.load(k.addptr(k.splat(k.arg(0), aS), aOff), ma, k.constTile(0.0, aS, ir.BF16))
		bOff := k.bin(ir.OpAdd, k.bcast(k.bin(ir.OpMul, k.expand(ka, 1), k.splat(N, []int{bk, 1})), bS), k.bcast(k.expand(rn, 0), bS))
		mb := and2(k.expand(k.cmp("lt", ka, k.splat(K, []int{bk})), 1), k.expand(k.cmp("lt", rn, k.splat(N, []int{bn})), 0), bS)
		tb := k.load(k.addptr(k.splat(k.arg(1), bS), bOff), mb, k.constTile(0.0, bS, ir.BF16))
		return []*ir.Value{k.v(ir.OpDot, it[0].Type, nil, ta, tb, it[0])}
	})
	cOff := k.bin(ir.OpAdd, k.bcast(k.bin(ir.OpMul, k.expand(rm, 1), k.splat(N, []int{bm, 1})), cS), k.bcast(k.expand(rn, 0), cS))
	mc := and2(k.expand(k.cmp("lt", rm, k.splat(M, []int{bm})), 1), k.expand(k.cmp("lt", rn, k.splat(N, []int{bn})), 0), cS)
	k.store(k.addptr(k.splat(k.arg(2), cS), cOff), k.cast(res[0], ir.BF16), mc)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(numWarps), gpu.AttrDiv16: []int64{3, 4, 5}})
}

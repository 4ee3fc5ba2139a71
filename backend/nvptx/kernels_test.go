package nvptx

import (
	"math"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// kb is a small helper over ir.Builder for writing the tutorial kernels the
// way the frontend lowers them (explicit splat / broadcast, typed results).
type kb struct {
	f *ir.Func
	b *ir.Builder
}

func newKernel(name string, params ...*ir.Param) *kb {
	f := ir.NewFunc(name, true, params)
	return &kb{f: f, b: ir.NewBuilder(f)}
}

func param(name string, t ir.Type) *ir.Param { return &ir.Param{Name: name, Type: t} }

func ptr(d ir.DType) *ir.Pointer { return &ir.Pointer{Elem: d, Space: ir.Global} }

func tile(shape []int, e ir.Type) ir.Type { return ir.TileOf(shape, e) }

func (k *kb) arg(i int) *ir.Value { return k.f.Body.Args[i] }

func (k *kb) v(kind ir.Kind, t ir.Type, attrs ir.Attrs, ops ...*ir.Value) *ir.Value {
	return k.b.Value(kind, t, ops, attrs)
}

func (k *kb) i32(x int64) *ir.Value { return k.b.ConstInt(x, ir.I32) }

func (k *kb) constTile(x any, shape []int, d ir.DType) *ir.Value {
	return k.v(ir.OpConstant, tile(shape, d), ir.Attrs{"value": x})
}

func (k *kb) pid(axis int64) *ir.Value {
	return k.v(ir.OpProgramID, ir.I32, ir.Attrs{"axis": axis})
}

func (k *kb) arange(n int) *ir.Value {
	return k.v(ir.OpArange, tile([]int{n}, ir.I32), ir.Attrs{"start": int64(0), "end": int64(n)})
}

func (k *kb) splat(x *ir.Value, shape []int) *ir.Value {
	return k.v(ir.OpSplat, tile(shape, x.Type), nil, x)
}

func (k *kb) bin(kind ir.Kind, a, b *ir.Value) *ir.Value { return k.v(kind, a.Type, nil, a, b) }

func (k *kb) un(kind ir.Kind, a *ir.Value) *ir.Value { return k.v(kind, a.Type, nil, a) }

func (k *kb) cmp(pred string, a, b *ir.Value) *ir.Value {
	return k.v(ir.OpCmp, ir.WithElem(a.Type, ir.I1), ir.Attrs{"pred": pred}, a, b)
}

func (k *kb) cast(a *ir.Value, d ir.DType) *ir.Value {
	return k.v(ir.OpCast, ir.WithElem(a.Type, d), nil, a)
}

func (k *kb) addptr(p, off *ir.Value) *ir.Value {
	t := p.Type
	if _, ok := t.(*ir.Tile); !ok {
		if s := ir.ShapeOf(off.Type); s != nil {
			t = tile(s, p.Type)
		}
	}
	return k.v(ir.OpAddPtr, t, nil, p, off)
}

func (k *kb) load(p *ir.Value, mask, other *ir.Value) *ir.Value {
	pt := ir.Elem(p.Type).(*ir.Pointer)
	ops := []*ir.Value{p}
	if mask != nil {
		ops = append(ops, mask)
		if other != nil {
			ops = append(ops, other)
		}
	}
	return k.v(ir.OpLoad, ir.WithElem(p.Type, pt.Elem), nil, ops...)
}

func (k *kb) store(p, v, mask *ir.Value) {
	ops := []*ir.Value{p, v}
	if mask != nil {
		ops = append(ops, mask)
	}
	k.b.Create(ir.OpStore, nil, ops, nil)
}

func (k *kb) expand(x *ir.Value, axis int) *ir.Value {
	s := ir.ShapeOf(x.Type)
	ns := append(append(append([]int{}, s[:axis]...), 1), s[axis:]...)
	return k.v(ir.OpExpandDims, tile(ns, ir.Elem(x.Type)), ir.Attrs{"axis": int64(axis)}, x)
}

func (k *kb) bcast(x *ir.Value, shape []int) *ir.Value {
	return k.v(ir.OpBroadcast, tile(shape, ir.Elem(x.Type)), nil, x)
}

func (k *kb) reduce(x *ir.Value, axis int, kind string) *ir.Value {
	s := ir.ShapeOf(x.Type)
	ns := append(append([]int{}, s[:axis]...), s[axis+1:]...)
	return k.v(ir.OpReduce, ir.TileOf(ns, ir.Elem(x.Type)), ir.Attrs{"axis": int64(axis), "kind": kind}, x)
}

// forLoop builds for iv in [lb, ub) step st with loop-carried inits.
func (k *kb) forLoop(lb, ub, st *ir.Value, inits []*ir.Value, body func(iv *ir.Value, iters []*ir.Value) []*ir.Value) []*ir.Value {
	var rt []ir.Type
	for _, v := range inits {
		rt = append(rt, v.Type)
	}
	op := k.b.Create(ir.OpFor, rt, append([]*ir.Value{lb, ub, st}, inits...), nil)
	region := k.b.NewRegion(op)
	iv := k.f.AddBlockArg(region, lb.Type, "k")
	var iters []*ir.Value
	for _, v := range inits {
		iters = append(iters, k.f.AddBlockArg(region, v.Type, ""))
	}
	saved := k.b.Block
	k.b.Block = region
	ys := body(iv, iters)
	k.b.Create(ir.OpYield, nil, ys, nil)
	k.b.Block = saved
	return op.Results
}

func (k *kb) done(attrs ir.Attrs) *ir.Module {
	k.b.Create(ir.OpReturn, nil, nil, nil)
	for a, v := range attrs {
		k.f.Attrs[a] = v
	}
	return &ir.Module{Funcs: []*ir.Func{k.f}}
}

// vectorAddIR: out[i] = x[i] + y[i] for i < n, BLOCK elements per program.
// Launch: grid (cdiv(n, BLOCK)), params (x, y, out *f32, n i32).
func vectorAddIR(block int, div16 bool) *ir.Module {
	k := newKernel("vector_add", param("x", ptr(ir.F32)), param("y", ptr(ir.F32)), param("out", ptr(ir.F32)), param("n", ir.I32))
	sh := []int{block}
	pid := k.pid(0)
	start := k.bin(ir.OpMul, pid, k.i32(int64(block)))
	offs := k.bin(ir.OpAdd, k.splat(start, sh), k.arange(block))
	m := k.cmp("lt", offs, k.splat(k.arg(3), sh))
	a := k.load(k.addptr(k.splat(k.arg(0), sh), offs), m, k.constTile(0.0, sh, ir.F32))
	b := k.load(k.addptr(k.splat(k.arg(1), sh), offs), m, k.constTile(0.0, sh, ir.F32))
	k.store(k.addptr(k.splat(k.arg(2), sh), offs), k.bin(ir.OpAdd, a, b), m)
	attrs := ir.Attrs{}
	if div16 {
		attrs[gpu.AttrDiv16] = []int64{3}
	}
	return k.done(attrs)
}

// softmaxIR: one row per program, the whole row in registers.
// Launch: grid (n_rows), params (out *f32, in *f32, in_stride, out_stride, n_cols i32).
func softmaxIR(block, numWarps int) *ir.Module {
	k := newKernel("softmax", param("out", ptr(ir.F32)), param("in", ptr(ir.F32)),
		param("in_stride", ir.I32), param("out_stride", ir.I32), param("n_cols", ir.I32))
	sh := []int{block}
	row := k.pid(0)
	cols := k.arange(block)
	inRow := k.addptr(k.arg(1), k.bin(ir.OpMul, row, k.arg(2)))
	m := k.cmp("lt", cols, k.splat(k.arg(4), sh))
	x := k.load(k.addptr(k.splat(inRow, sh), cols), m, k.constTile(math.Inf(-1), sh, ir.F32))
	mx := k.reduce(x, 0, "max")
	z := k.bin(ir.OpSub, x, k.splat(mx, sh))
	num := k.un(ir.OpExp, z)
	den := k.reduce(num, 0, "sum")
	y := k.bin(ir.OpDiv, num, k.splat(den, sh))
	outRow := k.addptr(k.arg(0), k.bin(ir.OpMul, row, k.arg(3)))
	k.store(k.addptr(k.splat(outRow, sh), cols), y, m)
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(numWarps), gpu.AttrDiv16: []int64{2, 3, 4}})
}

// layerNormIR: the Triton tutorial's fused forward layer norm, one row per
// program, looping over the row in BLOCK chunks.
// Launch: grid (rows), params (X, Y, W, B *f32, Mean, Rstd *f32, stride i32, N i32, eps f32).
func layerNormIR(block int) *ir.Module {
	k := newKernel("layer_norm", param("X", ptr(ir.F32)), param("Y", ptr(ir.F32)), param("W", ptr(ir.F32)),
		param("B", ptr(ir.F32)), param("Mean", ptr(ir.F32)), param("Rstd", ptr(ir.F32)),
		param("stride", ir.I32), param("N", ir.I32), param("eps", ir.F32))
	sh := []int{block}
	row := k.pid(0)
	rowOff := k.bin(ir.OpMul, row, k.arg(6))
	X := k.addptr(k.arg(0), rowOff)
	Y := k.addptr(k.arg(1), rowOff)
	N := k.arg(7)
	zero := k.i32(0)
	blk := k.i32(int64(block))
	colsAt := func(off *ir.Value) (*ir.Value, *ir.Value) {
		cols := k.bin(ir.OpAdd, k.splat(off, sh), k.arange(block))
		return cols, k.cmp("lt", cols, k.splat(N, sh))
	}
	sums := k.forLoop(zero, N, blk, []*ir.Value{k.constTile(0.0, sh, ir.F32)}, func(off *ir.Value, it []*ir.Value) []*ir.Value {
		cols, m := colsAt(off)
		a := k.load(k.addptr(k.splat(X, sh), cols), m, k.constTile(0.0, sh, ir.F32))
		return []*ir.Value{k.bin(ir.OpAdd, it[0], a)}
	})
	nf := k.cast(N, ir.F32)
	mean := k.bin(ir.OpDiv, k.reduce(sums[0], 0, "sum"), nf)
	vars := k.forLoop(zero, N, blk, []*ir.Value{k.constTile(0.0, sh, ir.F32)}, func(off *ir.Value, it []*ir.Value) []*ir.Value {
		cols, m := colsAt(off)
		x := k.load(k.addptr(k.splat(X, sh), cols), m, k.constTile(0.0, sh, ir.F32))
		d := k.v(ir.OpSelect, tile(sh, ir.F32), nil, m, k.bin(ir.OpSub, x, k.splat(mean, sh)), k.constTile(0.0, sh, ir.F32))
		return []*ir.Value{k.bin(ir.OpAdd, it[0], k.bin(ir.OpMul, d, d))}
	})
	variance := k.bin(ir.OpDiv, k.reduce(vars[0], 0, "sum"), nf)
	rstd := k.un(ir.OpRsqrt, k.bin(ir.OpAdd, variance, k.arg(8)))
	k.store(k.addptr(k.arg(4), row), mean, nil)
	k.store(k.addptr(k.arg(5), row), rstd, nil)
	k.forLoop(zero, N, blk, nil, func(off *ir.Value, _ []*ir.Value) []*ir.Value {
		cols, m := colsAt(off)
		w := k.load(k.addptr(k.splat(k.arg(2), sh), cols), m, nil)
		b := k.load(k.addptr(k.splat(k.arg(3), sh), cols), m, nil)
		x := k.load(k.addptr(k.splat(X, sh), cols), m, k.constTile(0.0, sh, ir.F32))
		xh := k.bin(ir.OpMul, k.bin(ir.OpSub, x, k.splat(mean, sh)), k.splat(rstd, sh))
		y := k.bin(ir.OpAdd, k.bin(ir.OpMul, xh, w), b)
		k.store(k.addptr(k.splat(Y, sh), cols), y, m)
		return nil
	})
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(8), gpu.AttrDiv16: []int64{6, 7}})
}

// matmulIR: C = A @ B (bf16, f32 accumulation, bf16 out), the Triton
// tutorial kernel with grouped program ordering and masked K tail.
// Launch: grid (cdiv(M, BM) * cdiv(N, BN)), params
// (a, b, c *bf16, M, N, K, stride_am, stride_bk, stride_cm i32); A, B, C
// row-major with unit inner strides.
func matmulIR(bm, bn, bk, groupM, numWarps int, dt ir.DType) *ir.Module {
	k := newKernel("matmul", param("a", ptr(dt)), param("b", ptr(dt)), param("c", ptr(dt)),
		param("M", ir.I32), param("N", ir.I32), param("K", ir.I32),
		param("stride_am", ir.I32), param("stride_bk", ir.I32), param("stride_cm", ir.I32))
	M, N, K := k.arg(3), k.arg(4), k.arg(5)
	sam, sbk, scm := k.arg(6), k.arg(7), k.arg(8)
	cdiv := func(a *ir.Value, b int) *ir.Value {
		return k.bin(ir.OpDiv, k.bin(ir.OpAdd, a, k.i32(int64(b-1))), k.i32(int64(b)))
	}
	pid := k.pid(0)
	numPidM := cdiv(M, bm)
	numPidN := cdiv(N, bn)
	inGroup := k.bin(ir.OpMul, k.i32(int64(groupM)), numPidN)
	groupID := k.bin(ir.OpDiv, pid, inGroup)
	firstM := k.bin(ir.OpMul, groupID, k.i32(int64(groupM)))
	groupSize := k.bin(ir.OpMin, k.bin(ir.OpSub, numPidM, firstM), k.i32(int64(groupM)))
	pidM := k.bin(ir.OpAdd, firstM, k.bin(ir.OpRem, pid, groupSize))
	pidN := k.bin(ir.OpDiv, k.bin(ir.OpRem, pid, inGroup), groupSize)

	shM, shN, shK := []int{bm}, []int{bn}, []int{bk}
	offsAM := k.bin(ir.OpRem, k.bin(ir.OpAdd, k.splat(k.bin(ir.OpMul, pidM, k.i32(int64(bm))), shM), k.arange(bm)), k.splat(M, shM))
	offsBN := k.bin(ir.OpRem, k.bin(ir.OpAdd, k.splat(k.bin(ir.OpMul, pidN, k.i32(int64(bn))), shN), k.arange(bn)), k.splat(N, shN))
	offsK := k.arange(bk)
	aShape, bShape := []int{bm, bk}, []int{bk, bn}
	aRow := k.bcast(k.bin(ir.OpMul, k.expand(offsAM, 1), k.splat(sam, []int{bm, 1})), aShape)
	aCol := k.bcast(k.expand(offsK, 0), aShape)
	aPtrs := k.addptr(k.splat(k.arg(0), aShape), k.bin(ir.OpAdd, aRow, aCol))
	bRow := k.bcast(k.bin(ir.OpMul, k.expand(offsK, 1), k.splat(sbk, []int{bk, 1})), bShape)
	bCol := k.bcast(k.expand(offsBN, 0), bShape)
	bPtrs := k.addptr(k.splat(k.arg(1), bShape), k.bin(ir.OpAdd, bRow, bCol))
	acc0 := k.constTile(0.0, []int{bm, bn}, ir.F32)
	bkStep := k.bin(ir.OpMul, k.i32(int64(bk)), sbk)
	res := k.forLoop(k.i32(0), cdiv(K, bk), k.i32(1), []*ir.Value{acc0, aPtrs, bPtrs}, func(kk *ir.Value, it []*ir.Value) []*ir.Value {
		rem := k.bin(ir.OpSub, K, k.bin(ir.OpMul, kk, k.i32(int64(bk))))
		ma := k.cmp("lt", k.bcast(k.expand(offsK, 0), aShape), k.splat(rem, aShape))
		mb := k.cmp("lt", k.bcast(k.expand(offsK, 1), bShape), k.splat(rem, bShape))
		at := k.load(it[1], ma, k.constTile(0.0, aShape, dt))
		bt := k.load(it[2], mb, k.constTile(0.0, bShape, dt))
		acc := k.v(ir.OpDot, it[0].Type, nil, at, bt, it[0])
		na := k.addptr(it[1], k.splat(k.i32(int64(bk)), aShape))
		nb := k.addptr(it[2], k.splat(bkStep, bShape))
		return []*ir.Value{acc, na, nb}
	})
	c := k.cast(res[0], dt)
	cShape := []int{bm, bn}
	offsCM := k.bin(ir.OpAdd, k.splat(k.bin(ir.OpMul, pidM, k.i32(int64(bm))), shM), k.arange(bm))
	offsCN := k.bin(ir.OpAdd, k.splat(k.bin(ir.OpMul, pidN, k.i32(int64(bn))), shN), k.arange(bn))
	cRow := k.bcast(k.bin(ir.OpMul, k.expand(offsCM, 1), k.splat(scm, []int{bm, 1})), cShape)
	cCol := k.bcast(k.expand(offsCN, 0), cShape)
	cPtrs := k.addptr(k.splat(k.arg(2), cShape), k.bin(ir.OpAdd, cRow, cCol))
	cm := k.bin(ir.OpAnd,
		k.bcast(k.cmp("lt", k.expand(offsCM, 1), k.splat(M, []int{bm, 1})), cShape),
		k.bcast(k.cmp("lt", k.expand(offsCN, 0), k.splat(N, []int{1, bn})), cShape))
	k.store(cPtrs, c, cm)
	_ = shK
	return k.done(ir.Attrs{gpu.AttrNumWarps: int64(numWarps), gpu.AttrDiv16: []int64{3, 4, 5, 6, 7, 8}})
}

package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/ir"
)

// kb builds one kernel with ir.Builder. Ops get the position of a fake
// source line set with at(line), so tests can check error positions.
type kb struct {
	*ir.Builder
	m    *ir.Module
	f    *ir.Func
	file *diag.File
}

const srcLines = 200

func newKernel(name string, params ...*ir.Param) *kb {
	var src strings.Builder
	for k := 1; k <= srcLines; k++ {
		fmt.Fprintf(&src, "    line%d\n", k)
	}
	file := diag.NewFile("t.tle", []byte(src.String()))
	f := ir.NewFunc(name, true, params)
	m := &ir.Module{File: file, Funcs: []*ir.Func{f}}
	k := &kb{Builder: ir.NewBuilder(f), m: m, f: f, file: file}
	k.at(1)
	return k
}

// at sets the position of the next ops to column 5 of line n.
func (k *kb) at(line int) *kb {
	off := 0
	for n := 1; n < line; n++ {
		off += len(fmt.Sprintf("    line%d\n", n))
	}
	k.Pos = diag.Pos(off + 4)
	return k
}

func param(name string, t ir.Type) *ir.Param { return &ir.Param{Name: name, Type: t, Pos: diag.NoPos} }
func ptr(d ir.DType) *ir.Pointer             { return &ir.Pointer{Elem: d, Space: ir.Global} }
func tile(shape []int, e ir.Type) ir.Type    { return ir.TileOf(shape, e) }
func (k *kb) arg(i int) *ir.Value            { return k.f.Body.Args[i] }

func shapeOf(v *ir.Value) []int { return ir.ShapeOf(v.Type) }

func (k *kb) ci(v int64) *ir.Value   { return k.ConstInt(v, ir.I32) }
func (k *kb) cf(v float64) *ir.Value { return k.ConstFloat(v, ir.F32) }

func (k *kb) arange(n int) *ir.Value {
	return k.Value(ir.OpArange, tile([]int{n}, ir.I32), nil, ir.Attrs{"start": int64(0), "end": int64(n)})
}

func (k *kb) pid(axis int) *ir.Value {
	return k.Value(ir.OpProgramID, ir.I32, nil, ir.Attrs{"axis": int64(axis)})
}

func (k *kb) splat(v *ir.Value, shape []int) *ir.Value {
	return k.Value(ir.OpSplat, tile(shape, v.Type), []*ir.Value{v}, nil)
}

// bin applies an element-wise op, splatting a scalar operand to the other's shape.
func (k *kb) bin(kind ir.Kind, a, b *ir.Value) *ir.Value {
	a, b = k.match(a, b)
	return k.Value(kind, a.Type, []*ir.Value{a, b}, nil)
}

func (k *kb) match(a, b *ir.Value) (*ir.Value, *ir.Value) {
	sa, sb := shapeOf(a), shapeOf(b)
	if len(sa) == 0 && len(sb) > 0 {
		a = k.splat(a, sb)
	}
	if len(sb) == 0 && len(sa) > 0 {
		b = k.splat(b, sa)
	}
	return a, b
}

func (k *kb) cmp(pred string, a, b *ir.Value) *ir.Value {
	a, b = k.match(a, b)
	return k.Value(ir.OpCmp, ir.WithElem(a.Type, ir.I1), []*ir.Value{a, b}, ir.Attrs{"pred": pred})
}

func (k *kb) addptr(p, off *ir.Value) *ir.Value {
	if s := shapeOf(off); len(s) > 0 && len(shapeOf(p)) == 0 {
		p = k.splat(p, s)
	}
	return k.Value(ir.OpAddPtr, p.Type, []*ir.Value{p, off}, nil)
}

func (k *kb) load(p, mask, other *ir.Value) *ir.Value {
	pt := ir.Elem(p.Type).(*ir.Pointer)
	ops := []*ir.Value{p}
	if mask != nil {
		ops = append(ops, mask)
		if other != nil {
			ops = append(ops, other)
		}
	}
	return k.Value(ir.OpLoad, ir.WithElem(p.Type, pt.Elem), ops, nil)
}

func (k *kb) store(p, v, mask *ir.Value) {
	ops := []*ir.Value{p, v}
	if mask != nil {
		ops = append(ops, mask)
	}
	k.Create(ir.OpStore, nil, ops, nil)
}

func (k *kb) cast(v *ir.Value, d ir.DType) *ir.Value {
	return k.Value(ir.OpCast, ir.WithElem(v.Type, d), []*ir.Value{v}, nil)
}

func (k *kb) expand(v *ir.Value, axis int) *ir.Value {
	s := shapeOf(v)
	ns := append(append(append([]int(nil), s[:axis]...), 1), s[axis:]...)
	return k.Value(ir.OpExpandDims, tile(ns, ir.Elem(v.Type)), []*ir.Value{v}, ir.Attrs{"axis": int64(axis)})
}

func (k *kb) broadcast(v *ir.Value, shape []int) *ir.Value {
	return k.Value(ir.OpBroadcast, tile(shape, ir.Elem(v.Type)), []*ir.Value{v}, nil)
}

// offs2 is rows[:, None]*stride + cols[None, :] as an [M, N] i32 tile.
func (k *kb) offs2(rows, cols, stride *ir.Value) *ir.Value {
	M, N := shapeOf(rows)[0], shapeOf(cols)[0]
	r := k.broadcast(k.expand(k.bin(ir.OpMul, rows, stride), 1), []int{M, N})
	c := k.broadcast(k.expand(cols, 0), []int{M, N})
	return k.bin(ir.OpAdd, r, c)
}

func (k *kb) reduce(v *ir.Value, axis int, kind string) *ir.Value {
	s := shapeOf(v)
	rs := append(append([]int(nil), s[:axis]...), s[axis+1:]...)
	return k.Value(ir.OpReduce, tile(rs, ir.Elem(v.Type)), []*ir.Value{v}, ir.Attrs{"axis": int64(axis), "kind": kind})
}

func (k *kb) dot(a, b, acc *ir.Value) *ir.Value {
	return k.Value(ir.OpDot, acc.Type, []*ir.Value{a, b, acc}, nil)
}

// forLoop emits `for iv := lb; iv < ub; iv += step` carrying inits; body
// returns the values to yield.
func (k *kb) forLoop(lb, ub, step *ir.Value, inits []*ir.Value, body func(iv *ir.Value, iters []*ir.Value) []*ir.Value) []*ir.Value {
	var types []ir.Type
	for _, v := range inits {
		types = append(types, v.Type)
	}
	op := k.Create(ir.OpFor, types, append([]*ir.Value{lb, ub, step}, inits...), nil)
	blk := k.NewRegion(op)
	iv := k.f.AddBlockArg(blk, lb.Type, "i")
	var iters []*ir.Value
	for _, v := range inits {
		iters = append(iters, k.f.AddBlockArg(blk, v.Type, ""))
	}
	saved := k.Block
	k.Block = blk
	ys := body(iv, iters)
	k.Create(ir.OpYield, nil, ys, nil)
	k.Block = saved
	return op.Results
}

// role is one warp role: a name and a body.
type role struct {
	name string
	body func()
}

func (k *kb) warpSpecialize(roles ...role) {
	ws := k.Create(ir.OpWarpSpecialize, nil, nil, nil)
	wsb := k.NewRegion(ws)
	saved := k.Block
	for _, r := range roles {
		k.Block = wsb
		rop := k.Create(ir.OpRole, nil, nil, ir.Attrs{"name": r.name, "warps": int64(4)})
		rb := k.NewRegion(rop)
		k.Block = rb
		r.body()
		k.Create(ir.OpYield, nil, nil, nil)
	}
	k.Block = wsb
	k.Create(ir.OpYield, nil, nil, nil)
	k.Block = saved
}

func (k *kb) ret() *ir.Module {
	k.Create(ir.OpReturn, nil, nil, nil)
	return k.m
}

func memdesc(shape []int, d ir.DType) *ir.MemDesc {
	return &ir.MemDesc{Shape: shape, Elem: d, Order: ir.RowMajor(len(shape)), Space: ir.Shared}
}

func (k *kb) alloc(name string, shape []int, d ir.DType) *ir.Value {
	v := k.Value(ir.OpAlloc, memdesc(shape, d), nil, nil)
	v.Name = name
	return v
}

func (k *kb) localLoad(buf *ir.Value) *ir.Value {
	md := buf.Type.(*ir.MemDesc)
	return k.Value(ir.OpLocalLoad, tile(md.Shape, md.Elem), []*ir.Value{buf}, nil)
}

func (k *kb) localStore(buf, v *ir.Value) {
	k.Create(ir.OpLocalStore, nil, []*ir.Value{buf, v}, nil)
}

func launchT(t testing.TB, m *ir.Module, grid [3]int, args ...Arg) error {
	t.Helper()
	return Launch(m, m.Funcs[0].Name, grid, args, Options{})
}

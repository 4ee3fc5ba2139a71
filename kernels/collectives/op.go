package collectives

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// The collectives as ops (tlec op all_reduce|all_gather|reduce_scatter):
// x is a [WORLD, n] array, row d device d's input; out is [WORLD, m], row
// d device d's output. On the CPU they run on WORLD simulated devices of
// the interpreter; on a GPU, on a mesh of WORLD GPUs of this host joined
// by NCCL (tle.OpenGPUMesh).

func init() {
	for _, op := range []collectiveOp{
		{name: "all_reduce", doc: "all-reduce (sum) across the devices of a mesh: every device gets the sum of every device's x", outDoc: "[WORLD, n] f32: every row the sum of x's rows"},
		{name: "all_gather", doc: "all-gather across the devices of a mesh: every device gets every device's x, in rank order", outDoc: "[WORLD, WORLD*n] f32: every row x's rows end to end"},
		{name: "reduce_scatter", doc: "reduce-scatter (sum) across the devices of a mesh: device r gets block r of the sum of every device's x", outDoc: "[WORLD, n/WORLD] f32: row r the sum of x's rows' block r"},
	} {
		registry.Register(op)
	}
}

type collectiveOp struct{ name, doc, outDoc string }

func (o collectiveOp) Name() string { return o.name }
func (o collectiveOp) Doc() string  { return o.doc }
func (o collectiveOp) Inputs() []registry.Arg {
	return []registry.Arg{{Name: "x", Doc: "[WORLD, n] float: row d is device d's input (WORLD devices)"}}
}
func (o collectiveOp) Params() []registry.Arg {
	ps := []registry.Arg{
		{Name: "dtype", Optional: true, Doc: `"f32" (default) or "bf16": the dtype the kernel moves (x must be exact in it)`},
		{Name: "block", Optional: true, Doc: "elements per program, a power of two from 32 to 8192; default 32 on the interpreter, 1024 on GPUs"},
	}
	if o.name == "all_reduce" {
		ps = append(ps, registry.Arg{Name: "algo", Optional: true, Doc: `"oneshot" (default) or "twoshot" (n a multiple of WORLD)`})
	}
	return ps
}
func (o collectiveOp) Outputs() []registry.Arg {
	return []registry.Arg{{Name: "out", Doc: o.outDoc}}
}

// opCall is a parsed call: the plan and the inputs per device.
type opCall struct {
	plan    Launch
	op      string // Plan's name
	world   int
	dtype   tle.DType
	rows    [][]float64
	outLen  int
	scratch bool
	block   int
}

func (o collectiveOp) parse(dev tle.Device, in map[string]*npy.Array, params map[string]any) (*opCall, error) {
	for _, k := range slices.Sorted(maps.Keys(in)) {
		if k != "x" {
			return nil, registry.ArgErr(k, "%s takes no input named so (inputs: x)", o.name)
		}
	}
	var known []string
	for _, p := range o.Params() {
		known = append(known, p.Name)
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if !slices.Contains(known, k) {
			return nil, registry.ArgErr(k, "%s has no parameter named so (parameters: %s)", o.name, strings.Join(known, ", "))
		}
	}
	str := func(name, def string, allowed ...string) (string, error) {
		v, ok := params[name]
		if !ok || v == nil {
			return def, nil
		}
		s, isStr := v.(string)
		if !isStr || !slices.Contains(allowed, s) {
			return "", registry.ArgErr(name, "%v: want one of %s", v, strings.Join(allowed, ", "))
		}
		return s, nil
	}
	dtype, err := str("dtype", "f32", "f32", "bf16")
	if err != nil {
		return nil, err
	}
	algo, err := str("algo", OneShot, OneShot, TwoShot)
	if err != nil {
		return nil, err
	}
	_, onGPU := dev.(*tle.GPU)
	block := 32
	if onGPU {
		block = DefaultBlock
	}
	if v, ok := params["block"]; ok && v != nil {
		f, isNum := v.(float64)
		if !isNum || f != float64(int(f)) {
			return nil, registry.ArgErr("block", "%v: want an integer", v)
		}
		block = int(f)
	}
	x := in["x"]
	if x == nil {
		return nil, registry.ArgErr("x", "missing")
	}
	if err := x.Validate(); err != nil {
		return nil, registry.ArgErr("x", "%v", err)
	}
	if !x.IsFloat() {
		return nil, registry.ArgErr("x", "want a float array, got dtype %s", x.DType)
	}
	if len(x.Shape) != 2 || x.Shape[0] < 1 || x.Shape[1] < 1 {
		return nil, registry.ArgErr("x", "want shape [WORLD, n] with WORLD, n >= 1, got %v", x.Shape)
	}
	c := &opCall{world: x.Shape[0], dtype: map[string]tle.DType{"f32": tle.F32, "bf16": tle.BF16}[dtype], block: block}
	if err := registry.CheckValues("x", x.F64, c.dtype); err != nil {
		return nil, err
	}
	n := x.Shape[1]
	for d := range c.world {
		c.rows = append(c.rows, x.F64[d*n:(d+1)*n])
	}
	switch o.name {
	case "all_reduce":
		c.op, c.outLen, c.scratch = "allreduce-"+algo, n, algo == TwoShot
	case "all_gather":
		c.op, c.outLen = "allgather", c.world*n
	case "reduce_scatter":
		c.op, c.outLen = "reducescatter", n/c.world
	}
	if c.plan, err = Plan(c.op, c.world, n, dtype, Options{Block: block}); err != nil {
		return nil, registry.ArgErr("x", "%v", err)
	}
	return c, nil
}

// Run checks everything, then runs the collective on dev: the CPU's
// simulated devices, or a mesh of GPUs.
func (o collectiveOp) Run(dev tle.Device, in map[string]*npy.Array, params map[string]any) (map[string]*npy.Array, error) {
	if dev == nil {
		return nil, fmt.Errorf("%s: no device", o.name)
	}
	c, err := o.parse(dev, in, params)
	if err != nil {
		return nil, err
	}
	var outs [][]float64
	if _, ok := dev.(*tle.GPU); ok {
		outs, err = c.runGPU()
	} else {
		outs, err = c.runSim()
	}
	if err != nil {
		return nil, err
	}
	flat := make([]float32, 0, c.world*c.outLen)
	for _, r := range outs {
		for _, v := range r {
			flat = append(flat, float32(v))
		}
	}
	return map[string]*npy.Array{"out": npy.Float32([]int{c.world, c.outLen}, flat)}, nil
}

func (c *opCall) runSim() ([][]float64, error) {
	k, err := kernelOf(c.plan.File, c.plan.Kernel)
	if err != nil {
		return nil, err
	}
	args := make([]map[string]any, c.world)
	outs := make([]*tle.Tensor, c.world)
	sym := []string{"x"}
	for d := range args {
		x := tle.NewTensor(len(c.rows[d]))
		copy(x.Data, c.rows[d])
		outs[d] = tle.NewTensor(c.outLen)
		args[d] = map[string]any{"x": x, "out": outs[d], "n": int32(c.plan.N)}
		if c.scratch {
			args[d]["scratch"] = tle.NewTensor(len(c.rows[d]))
		}
	}
	if c.scratch {
		sym = append(sym, "scratch")
	}
	if err := k.RunDevices(context.Background(), tle.SimDevices(c.world), c.plan.Grid, tle.CompileOptions{Defines: c.plan.Defines}, args, sym...); err != nil {
		return nil, err
	}
	res := make([][]float64, c.world)
	for d, t := range outs {
		res[d] = t.Data
	}
	return res, nil
}

// runGPU runs on GPUs 0..WORLD-1 of this host (dev, GPU 0, among them).
func (c *opCall) runGPU() ([][]float64, error) {
	n := len(c.rows[0])
	m, err := tle.OpenGPUMesh(c.world, tle.GPUMeshOptions{HeapBytes: 2*n*c.dtype.Bytes() + 4096, MaxPrograms: c.plan.Grid[0]})
	if err != nil {
		return nil, fmt.Errorf("a mesh of %d GPUs (one per row of x): %w", c.world, err)
	}
	defer m.Close()
	x, err := m.AllocSymmetric(c.dtype, n)
	if err != nil {
		return nil, err
	}
	scratch, err := m.AllocSymmetric(c.dtype, n)
	if err != nil {
		return nil, err
	}
	out := make([]*tle.DeviceBuffer, c.world)
	for d := range c.world {
		gd := m.GPU(d)
		if err := gd.UploadTo(x[d], c.rows[d]); err != nil {
			return nil, err
		}
		if out[d], err = gd.Alloc(c.dtype, c.outLen); err != nil {
			return nil, err
		}
		defer gd.Free(out[d])
	}
	o := Options{Block: c.block}
	switch c.op {
	case "allreduce-oneshot":
		err = AllReduce(m, OneShot, x, nil, out, o)
	case "allreduce-twoshot":
		err = AllReduce(m, TwoShot, x, scratch, out, o)
	case "allgather":
		err = AllGather(m, x, out, o)
	case "reducescatter":
		err = ReduceScatter(m, x, out, o)
	}
	if err != nil {
		return nil, err
	}
	if err := m.Synchronize(); err != nil {
		return nil, err
	}
	res := make([][]float64, c.world)
	for d := range c.world {
		if res[d], err = m.GPU(d).Download(out[d]); err != nil {
			return nil, err
		}
	}
	return res, nil
}

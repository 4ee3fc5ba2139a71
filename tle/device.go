package tle

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/tlego/tle/runtime/interp"
	"github.com/tlego/tle/tle/ir"
)

// Device runs compiled kernels: the CPU interpreter (CPU) or a CUDA GPU.
type Device interface {
	// Name says which device this is, for messages.
	Name() string
	launch(k *Kernel, opts CompileOptions, grid [3]int, args []*boundArg) error
}

// Tensor is host data for a pointer or descriptor parameter. Data is
// converted to the parameter's element type (floats rounding to nearest
// even) on the way in, and holds the buffer's contents after the launch.
type Tensor struct {
	Shape []int
	Data  []float64
}

// NewTensor makes a tensor of the given shape filled with zeros.
func NewTensor(shape ...int) *Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return &Tensor{Shape: append([]int(nil), shape...), Data: make([]float64, n)}
}

// Len is the number of elements.
func (t *Tensor) Len() int { return len(t.Data) }

// boundArg is one validated runtime argument, in parameter order.
type boundArg struct {
	param  *ir.Param
	tensor *Tensor // pointer and descriptor parameters
	scalar float64 // scalar parameters (integers are exact up to 2^53)
	isInt  bool
	ival   int64
}

// Run compiles the kernel with opts (once per distinct set of bindings),
// then runs it on dev over grid with args, keyed by parameter name: a
// *Tensor for each pointer or descriptor parameter, a Go number for each
// scalar. Tensors are copied back after the launch.
func (k *Kernel) Run(dev Device, grid [3]int, opts CompileOptions, args map[string]any) error {
	opts.Div16 = div16Of(k, args)
	m, err := k.compiled(opts)
	if err != nil {
		return err
	}
	bound, err := bindArgs(m.Func(k.Name()), args)
	if err != nil {
		return err
	}
	for i, g := range grid {
		if g <= 0 {
			return fmt.Errorf("grid: dimension %d is %d; every dimension must be at least 1", i, g)
		}
	}
	return dev.launch(k, opts, grid, bound)
}

// compiled caches the IR per binding set.
func (k *Kernel) compiled(opts CompileOptions) (*ir.Module, error) {
	key := bindingKey(opts)
	k.prog.mu.Lock()
	defer k.prog.mu.Unlock()
	if k.prog.cache == nil {
		k.prog.cache = map[string]*ir.Module{}
	}
	if m, ok := k.prog.cache[k.Name()+"|"+key]; ok {
		return m, nil
	}
	m, err := k.IR(opts)
	if err != nil {
		return nil, err
	}
	k.prog.cache[k.Name()+"|"+key] = m
	return m, nil
}

func bindingKey(opts CompileOptions) string {
	names := make([]string, 0, len(opts.Defines))
	for n := range opts.Defines {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s=%s;", n, opts.Defines[n])
	}
	fmt.Fprintf(&b, "warps=%d;div16=%v;minctas=%d;mmasync=%v", opts.NumWarps, opts.Div16, opts.MinCTAsPerSM, opts.DotMMASync)
	return b.String()
}

// bindArgs checks args against the kernel's runtime parameters: every
// parameter needs one argument of the right kind, and no argument may name
// something else.
func bindArgs(fn *ir.Func, args map[string]any) ([]*boundArg, error) {
	known := map[string]bool{}
	var out []*boundArg
	for _, p := range fn.Params {
		known[p.Name] = true
		a, ok := args[p.Name]
		if !ok {
			return nil, fmt.Errorf("argument %s (%s) is missing", p.Name, p.Type)
		}
		b := &boundArg{param: p}
		switch t := p.Type.(type) {
		case *ir.Pointer, *ir.Desc:
			ten, ok := a.(*Tensor)
			if !ok || ten == nil {
				return nil, fmt.Errorf("argument %s (%s) needs a tensor, got %T", p.Name, p.Type, a)
			}
			if n := numel(ten.Shape); n != len(ten.Data) {
				return nil, fmt.Errorf("argument %s: shape %v holds %d elements but the data has %d", p.Name, ten.Shape, n, len(ten.Data))
			}
			if d, ok := t.(*ir.Desc); ok && len(ten.Shape) != len(d.Block) {
				return nil, fmt.Errorf("argument %s (%s) needs a rank-%d tensor, got shape %v", p.Name, p.Type, len(d.Block), ten.Shape)
			}
			b.tensor = ten
		case ir.DType:
			f, isInt, ok := number(a)
			if !ok {
				return nil, fmt.Errorf("argument %s (%s) needs a number, got %T", p.Name, p.Type, a)
			}
			if t.IsInt() && (!isInt && f != math.Trunc(f)) {
				return nil, fmt.Errorf("argument %s (%s) needs an integer, got %v", p.Name, p.Type, f)
			}
			b.scalar, b.isInt, b.ival = f, t.IsInt(), int64(f)
			if isInt {
				b.ival = toInt64(a)
			}
		default:
			return nil, fmt.Errorf("argument %s: parameters of type %s cannot be passed from the host", p.Name, p.Type)
		}
		out = append(out, b)
	}
	for n := range args {
		if !known[n] {
			return nil, fmt.Errorf("argument %s: the kernel %s has no runtime parameter named so", n, fn.Name)
		}
	}
	return out, nil
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func number(a any) (f float64, isInt, ok bool) {
	switch v := a.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return float64(toInt64(v)), true, true
	case float32:
		return float64(v), false, true
	case float64:
		return v, false, true
	case bool:
		if v {
			return 1, true, true
		}
		return 0, true, true
	}
	return 0, false, false
}

func toInt64(a any) int64 {
	switch v := a.(type) {
	case int:
		return int64(v)
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case int64:
		return v
	case uint:
		return int64(v)
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint64:
		return int64(v)
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

// CPU returns the interpreter device; it runs every CTA of a grid in
// parallel on all cores and checks TLE semantics as it goes.
func CPU() Device { return cpuDevice{} }

// Devices are the interpreter and, when there is one, the first GPU; noGPU
// says why there is none (nil when there is). Tests run a kernel on each.
func Devices() (devs []Device, noGPU error) {
	devs = []Device{CPU()}
	g, err := OpenGPU()
	if err != nil {
		return devs, err
	}
	return append(devs, g), nil
}

type cpuDevice struct{}

func (cpuDevice) Name() string { return "cpu (interpreter)" }

func (cpuDevice) launch(k *Kernel, opts CompileOptions, grid [3]int, args []*boundArg) error {
	m, err := k.compiled(opts)
	if err != nil {
		return err
	}
	iargs := make([]interp.Arg, len(args))
	bufs := make([]*interp.Buffer, len(args))
	for i, a := range args {
		switch t := a.param.Type.(type) {
		case *ir.Pointer:
			bufs[i] = interp.FromFloat64(t.Elem, a.tensor.Data)
			iargs[i] = bufs[i]
		case *ir.Desc:
			bufs[i] = interp.FromFloat64(t.Elem, a.tensor.Data)
			iargs[i] = &interp.Desc{Buf: bufs[i], Shape: a.tensor.Shape, Strides: rowMajorStrides(a.tensor.Shape)}
		default:
			if a.isInt {
				iargs[i] = a.ival
			} else {
				iargs[i] = a.scalar
			}
		}
	}
	if err := interp.Launch(m, k.Name(), grid, iargs, interp.Options{}); err != nil {
		return err
	}
	for i, b := range bufs {
		if b != nil {
			copy(args[i].tensor.Data, b.Float64())
		}
	}
	return nil
}

func rowMajorStrides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// programCache is embedded in Program.
type programCache struct {
	mu    sync.Mutex
	cache map[string]*ir.Module
}

// div16Of lists the integer scalar arguments that are multiples of 16, in
// parameter order: the divisibility specialisation key.
func div16Of(k *Kernel, args map[string]any) []string {
	var out []string
	for _, p := range k.Params() {
		if p.Const || strings.HasPrefix(p.Type, "*") {
			continue
		}
		a, ok := args[p.Name]
		if !ok {
			continue
		}
		if f, isInt, ok := number(a); ok && isInt && int64(f)%16 == 0 {
			out = append(out, p.Name)
		}
	}
	return out
}

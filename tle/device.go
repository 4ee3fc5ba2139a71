package tle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/interp"
)

// Device runs compiled kernels: the CPU interpreter (CPU) or a CUDA GPU.
type Device interface {
	// Name says which device this is, for messages.
	Name() string
	launch(ctx context.Context, k *Kernel, opts CompileOptions, grid [3]int, args []*boundArg) error
}

// Tensor is host data for a pointer or descriptor parameter. Data is
// converted to the parameter's element type (floats rounding to nearest
// even) on the way in, and holds the buffer's contents after the launch.
// A tensor given to Run must have no negative dimension, and its element
// count (the product of Shape) must fit an int and equal len(Data). For an
// integer element type every value must be an integer in the type's range
// (and within ±2^53, where float64 is exact): Run refuses anything else
// rather than convert it. Array is the form in the element type itself,
// used without a copy (see the package doc, Host data).
type Tensor struct {
	Shape []int
	Data  []float64
}

// StridedTensor is host data for a desc parameter whose tensor is not
// row-major in Data: element (i0, i1, ...) of Shape is Data[i0*Strides[0] +
// i1*Strides[1] + ...] (elements, outermost first). Permuted strides let
// one kernel read, say, an NHD cache [blocks, tokens, heads, dim] as the
// [blocks, heads, tokens, dim] its descriptor names. On every device the
// strides follow TMA's rules (checkDesc): the innermost 1, the others
// positive multiples of 16 bytes, every element within Data; Data holds
// the buffer's contents after the launch.
type StridedTensor struct {
	Shape   []int
	Strides []int
	Data    []float64
}

// NewTensor makes a tensor of the given shape filled with zeros. Like make,
// it panics on a negative dimension ("tle.NewTensor: negative dimension -1
// in shape [-1]") or on a shape whose element count does not fit an int.
func NewTensor(shape ...int) *Tensor {
	n, err := numel(shape)
	if err != nil {
		panic("tle.NewTensor: " + err.Error())
	}
	return &Tensor{Shape: append([]int(nil), shape...), Data: make([]float64, n)}
}

// Len is the number of elements.
func (t *Tensor) Len() int { return len(t.Data) }

// numel is the element count of shape (1 for no dimension), or an error
// for a negative dimension or a count that does not fit an int.
func numel(shape []int) (int, error) {
	zero := false
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d in shape %v", d, shape)
		}
		zero = zero || d == 0
	}
	if zero {
		return 0, nil
	}
	n := 1
	for _, d := range shape {
		if n > math.MaxInt/d {
			return 0, fmt.Errorf("shape %v has more elements than an int can count", shape)
		}
		n *= d
	}
	return n, nil
}

// The grid limits every device keeps (CUDA's): each dimension at least 1,
// x at most MaxGridX, y and z at most MaxGridYZ.
const (
	MaxGridX  = 1<<31 - 1
	MaxGridYZ = 1<<16 - 1
)

// checkGrid checks a grid against the limits.
func checkGrid(grid [3]int) error {
	limit := [3]int{MaxGridX, MaxGridYZ, MaxGridYZ}
	for i, g := range grid {
		axis := "xyz"[i : i+1]
		if g < 1 {
			return fmt.Errorf("grid %v: dimension %d (%s) is %d; every dimension must be at least 1", grid, i, axis, g)
		}
		if g > limit[i] {
			return fmt.Errorf("grid %v: dimension %d (%s) is %d, above the limit of %d (x <= 2^31-1, y and z <= 65535, as in CUDA)", grid, i, axis, g, limit[i])
		}
	}
	return nil
}

// checkDevice refuses a nil device, untyped or typed.
func checkDevice(what string, dev Device) error {
	if dev == nil {
		return fmt.Errorf("tle: %s: the device is nil (use tle.CPU() or a GPU from tle.OpenGPU())", what)
	}
	if g, ok := dev.(*GPU); ok && g == nil {
		return fmt.Errorf("tle: %s: the device is a nil *tle.GPU (use one from tle.OpenGPU())", what)
	}
	return nil
}

// notLaunched is the error of a launch whose context ended before it.
func notLaunched(kernel string, ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause == nil || cause == err {
		return fmt.Errorf("%s not launched: %w", kernel, err)
	}
	return fmt.Errorf("%s not launched: %w (%w)", kernel, cause, err)
}

// paramKind is what a runtime parameter takes from the host.
type paramKind int

const (
	scalarParam  paramKind = iota // a scalar dtype
	pointerParam                  // *dtype
	descParam                     // desc[dtype, block...]
	otherParam                    // anything else (a tile): not passable
)

// hostParam is a runtime parameter as the source declares it: what a
// launch must be given for it, known before the kernel is compiled (the
// lowering derives the IR parameter types from the same declarations).
type hostParam struct {
	name string
	typ  string // as written: *f32, i32, desc[bf16, BM, BK]
	kind paramKind
	dt   ir.DType // the scalar's dtype, a pointer's or desc's element dtype
	rank int      // a desc's block rank
	none bool     // a pointer bound to None (-D name=None): takes nil
}

// maxExactInt is the largest integer a Tensor's float64 data holds exactly.
const maxExactInt = 1 << 53

// checkIntElems holds the values for an integer buffer to the rule scalars
// follow: integers within the element dtype's range, no fraction, NaN or
// infinity (which each device would convert its own way), and, since a
// Tensor holds float64s, no magnitude past 2^53, where float64 stops being
// exact. The first bad element is named with its index.
func checkIntElems(p hostParam, data []float64) error {
	if !p.dt.IsInt() {
		return nil
	}
	lo, hi := -float64(maxExactInt), float64(maxExactInt)
	if p.dt.Bits() < 54 {
		if p.dt.IsUnsigned() {
			lo, hi = 0, math.Ldexp(1, p.dt.Bits())-1
		} else {
			lo, hi = -math.Ldexp(1, p.dt.Bits()-1), math.Ldexp(1, p.dt.Bits()-1)-1
		}
	} else if p.dt.IsUnsigned() {
		lo = 0
	}
	for i, x := range data {
		if x != math.Trunc(x) || x < lo || x > hi { // NaN fails the first test, ±Inf the range
			return fmt.Errorf("argument %s (%s): element %d is %v; a %s buffer takes integers in [%.0f, %.0f] (a Tensor's float64 data is exact up to 2^53)", p.name, p.typ, i, x, p.dt, lo, hi)
		}
	}
	return nil
}

// hostParams lists the kernel's runtime (non-const) parameters in order.
func (k *Kernel) hostParams(defines map[string]string) []hostParam {
	var out []hostParam
	dtypeParams := map[string]bool{}
	for _, p := range k.decl.Params {
		if n, ok := p.Type.(*ast.NamedType); ok && p.Const && n.Name.Name == "dtype" {
			dtypeParams[p.Name.Name] = true
		}
	}
	for _, p := range k.decl.Params {
		if p.Const {
			continue
		}
		hp := hostParam{name: p.Name.Name, typ: string(k.prog.src[p.Type.Pos():p.Type.End()]), kind: otherParam}
		dtype := func(id *ast.Ident) (ir.DType, bool) {
			if dtypeParams[id.Name] {
				// a dtype parameter: the dtype -D binds
				return ir.ParseDType(defines[id.Name])
			}
			return ir.ParseDType(id.Name)
		}
		switch t := p.Type.(type) {
		case *ast.NamedType:
			if d, ok := dtype(t.Name); ok {
				hp.kind, hp.dt = scalarParam, d
			}
		case *ast.PointerType:
			if n, ok := t.Elem.(*ast.NamedType); ok {
				if d, ok := dtype(n.Name); ok {
					hp.kind, hp.dt = pointerParam, d
					hp.none = defines[hp.name] == "None"
				}
			}
		case *ast.DescType:
			if d, ok := dtype(t.Elem); ok {
				hp.kind, hp.dt, hp.rank = descParam, d, len(t.Block)
			}
		}
		out = append(out, hp)
	}
	return out
}

// signature lists the parameters for messages: "x *f32, n i32".
func signature(ps []hostParam) string {
	sig := make([]string, len(ps))
	for i, p := range ps {
		sig[i] = p.name + " " + p.typ
	}
	return strings.Join(sig, ", ")
}

// checkScalar checks a scalar argument with interp.CheckScalar, the one
// definition of what a scalar parameter takes, and names the argument.
func (p hostParam) checkScalar(v any) (interp.Scalar, error) {
	s, err := interp.CheckScalar(p.dt, v)
	if err != nil {
		return s, fmt.Errorf("argument %s (%s): %w", p.name, p.typ, err)
	}
	return s, nil
}

// boundArg is one validated runtime argument, in parameter order.
type boundArg struct {
	param  hostParam
	arg    any            // as given
	tensor *Tensor        // pointer and descriptor parameters given a Tensor or StridedTensor (its data as a flat tensor)
	typed  any            // pointer and descriptor parameters given an Array or a bare slice: its []T, used in place
	n      int            // the element count of tensor or typed
	desc   *descLayout    // a descriptor parameter's shape and strides
	scalar interp.Scalar  // scalar parameters
	table  []*boundArg    // an *i64 or *u64 parameter given a PointerTable: its entries, bound as pointer arguments
	buf    *interp.Buffer // a table entry's interpreter buffer, for copyTableBack
}

// DefaultTimeout bounds an interpreter launch whose context has no
// deadline (RunContext): past it the launch stops with the list of programs
// still running.
const DefaultTimeout = interp.DefaultTimeout

// Run is RunContext with context.Background(): the interpreter's
// watchdog (interp.DefaultTimeout) still bounds a launch on the CPU.
func (k *Kernel) Run(dev Device, grid [3]int, opts CompileOptions, args map[string]any) error {
	return k.RunContext(context.Background(), dev, grid, opts, args)
}

// RunContext compiles the kernel with opts (once per distinct set of
// bindings), then runs it on dev over grid with args, keyed by parameter
// name: a *Tensor, or a *Array[T] or bare []T of the element dtype's Go
// type, for each pointer or descriptor parameter, a Go number for each
// scalar. Tensors are copied back after the launch; an Array is the
// launch's buffer on the interpreter (written in place) and is copied back
// from a GPU.
//
// Before anything is compiled or uploaded it checks, and reports as an
// error naming what is wrong: dev is not nil; grid is within the limits
// (every dimension >= 1, x <= MaxGridX, y and z <= MaxGridYZ); every
// runtime parameter has an argument and no argument names anything else;
// each pointer or desc argument is a non-nil *Tensor whose Shape has no
// negative dimension and an element count that fits an int and equals
// len(Data), of the desc's rank (or a non-nil *Array, or a bare slice,
// whose element type is the dtype's Go type, Elem); each scalar is a Go
// value its dtype takes
// (interp.CheckScalar: integers in the dtype's range, floats within its
// finite range, bools for i1 only); and ctx has not ended.
//
// On the CPU device the interpreter stops when ctx ends (deadline or
// cancel): every goroutine of the launch returns and the error says the
// time ran out or the launch was cancelled, after how long, and which
// programs were still running (it wraps ctx.Err()). Without a deadline on
// ctx the interpreter's watchdog, interp.DefaultTimeout, applies. On a
// GPU ctx is checked before the compile and again just before the
// launch; a kernel already running is not interrupted: RunContext waits
// for it and copies the tensors back. Compiling is not interrupted
// either.
func (k *Kernel) RunContext(ctx context.Context, dev Device, grid [3]int, opts CompileOptions, args map[string]any) error {
	if k == nil {
		return errors.New("tle: Run on a nil *tle.Kernel")
	}
	if err := checkDevice("running "+k.Name(), dev); err != nil {
		return err
	}
	if ctx == nil {
		return fmt.Errorf("tle: running %s: the context is nil (use context.Background())", k.Name())
	}
	if err := checkGrid(grid); err != nil {
		return err
	}
	opts = k.noneDefines(opts, func(name string, _ int) bool { return isNilArg(args[name]) && hasKey(args, name) })
	if err := opts.validate(); err != nil {
		return err
	}
	bound, err := k.bindArgs(args, opts.Defines)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return notLaunched(k.Name(), ctx)
	}
	opts.Div16 = div16Of(bound)
	return dev.launch(ctx, k, opts, grid, bound)
}

// isNilArg reports an argument that is nil: Triton's None, an optional
// tensor left out.
func isNilArg(a any) bool {
	switch a := a.(type) {
	case nil:
		return true
	case *Tensor:
		return a == nil
	case *DeviceBuffer:
		return a == nil
	}
	return false
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// noneDefines binds to None (-D p=None) each pointer parameter p whose
// argument is nil (isNil(name, index among the runtime parameters)), as
// Triton specialises on a None argument: p == None is then a compile-time
// true, the branches using p are pruned, and the binding keys the caches.
func (k *Kernel) noneDefines(opts CompileOptions, isNil func(name string, i int) bool) CompileOptions {
	var defs map[string]string
	for i, p := range k.hostParams(opts.Defines) {
		if p.kind != pointerParam || p.none || !isNil(p.name, i) {
			continue
		}
		if _, bound := opts.Defines[p.name]; bound {
			continue
		}
		if defs == nil {
			defs = maps.Clone(opts.Defines)
			if defs == nil {
				defs = map[string]string{}
			}
		}
		defs[p.name] = "None"
	}
	if defs != nil {
		opts.Defines = defs
	}
	return opts
}

// compiled caches the IR per binding set. A compile asked for dumps
// (DumpAfter) runs the passes again, since they write the dumps as they
// run.
func (k *Kernel) compiled(opts CompileOptions) (*ir.Module, error) {
	if opts.DumpAfter != "" {
		return k.IR(opts)
	}
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

// bindArgs checks args against the kernel's runtime parameters (as
// declared: nothing is compiled): every parameter needs one argument of
// the right kind, and no argument may name something else.
func (k *Kernel) bindArgs(args map[string]any, defines map[string]string) ([]*boundArg, error) {
	params := k.hostParams(defines)
	var out []*boundArg
	for _, p := range params {
		a, ok := args[p.name]
		if !ok {
			return nil, fmt.Errorf("argument %s (%s) is missing", p.name, p.typ)
		}
		b := &boundArg{param: p, arg: a}
		if p.none {
			if !isNilArg(a) {
				return nil, fmt.Errorf("argument %s (%s) is bound to None (-D %s=None): pass nil, not %T", p.name, p.typ, p.name, a)
			}
			// never read (the branches using it are pruned): one element
			// stands for the null pointer
			b.tensor, b.n = &Tensor{Shape: []int{1}, Data: []float64{0}}, 1
			out = append(out, b)
			continue
		}
		if pv, ok := a.(PointerTable); ok {
			a = &pv // a table passed by value
		}
		if pt, ok := a.(*PointerTable); ok && p.kind == pointerParam {
			if err := bindTable(p, pt, b); err != nil {
				return nil, err
			}
			out = append(out, b)
			continue
		}
		if t, ok := asTyped(a); ok && (p.kind == pointerParam || p.kind == descParam) {
			if err := bindTyped(p, a, t, b); err != nil {
				return nil, err
			}
			out = append(out, b)
			continue
		}
		switch p.kind {
		case descParam:
			if st, ok := a.(*StridedTensor); ok {
				if st == nil {
					return nil, fmt.Errorf("argument %s (%s) is a nil *tle.StridedTensor", p.name, p.typ)
				}
				l := descLayout{shape: st.Shape, strides: st.Strides}
				if err := l.check(p.name, p.typ, p.dt, p.rank, len(st.Data)); err != nil {
					return nil, err
				}
				if err := checkIntElems(p, st.Data); err != nil {
					return nil, err
				}
				b.tensor, b.desc, b.n = &Tensor{Shape: []int{len(st.Data)}, Data: st.Data}, &l, len(st.Data)
				break
			}
			fallthrough
		case pointerParam:
			ten, ok := a.(*Tensor)
			if !ok || ten == nil {
				return nil, fmt.Errorf("argument %s (%s) needs a tensor, got %T (it takes a *tle.Tensor, or a *tle.Array or bare slice of type %s)", p.name, p.typ, a, interp.SliceType(p.dt))
			}
			n, err := numel(ten.Shape)
			if err != nil {
				return nil, fmt.Errorf("argument %s (%s): %v", p.name, p.typ, err)
			}
			if n != len(ten.Data) {
				return nil, fmt.Errorf("argument %s: shape %v holds %d elements but the data has %d", p.name, ten.Shape, n, len(ten.Data))
			}
			if p.kind == descParam && len(ten.Shape) != p.rank {
				return nil, fmt.Errorf("argument %s (%s) needs a rank-%d tensor, got shape %v", p.name, p.typ, p.rank, ten.Shape)
			}
			if p.kind == descParam {
				b.desc = &descLayout{shape: ten.Shape, strides: rowMajorStrides(ten.Shape)}
			}
			if err := checkIntElems(p, ten.Data); err != nil {
				return nil, err
			}
			b.tensor, b.n = ten, len(ten.Data)
		case scalarParam:
			s, err := p.checkScalar(a)
			if err != nil {
				return nil, err
			}
			b.scalar = s
		default:
			return nil, fmt.Errorf("argument %s: parameters of type %s cannot be passed from the host", p.name, p.typ)
		}
		out = append(out, b)
	}
	if len(args) > len(params) {
		var extra []string
		for n := range args {
			if !slices.ContainsFunc(params, func(p hostParam) bool { return p.name == n }) {
				extra = append(extra, n)
			}
		}
		sort.Strings(extra)
		n := extra[0]
		for _, p := range k.Params() {
			if p.Name == n && p.Const {
				return nil, fmt.Errorf("argument %s: %s is a compile-time parameter of %s: bind it with CompileOptions.Defines", n, n, k.Name())
			}
		}
		return nil, fmt.Errorf("argument %s: the kernel %s has no runtime parameter named so", n, k.Name())
	}
	return out, nil
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

func (cpuDevice) launch(ctx context.Context, k *Kernel, opts CompileOptions, grid [3]int, args []*boundArg) error {
	m, err := k.compiled(opts)
	if err != nil {
		return err
	}
	iargs, bufs, err := interpArgs(args)
	if err != nil {
		return err
	}
	progress, _ := ctx.Value(progressKey{}).(func(done, total int))
	if err := interp.Launch(m, k.Name(), grid, iargs, interp.Options{Context: ctx, Progress: progress}); err != nil {
		return err
	}
	return k.copyBack(opts, args, bufs)
}

// interpArgs makes the interpreter's arguments of bound ones: the buffers
// of the pointer and desc parameters (bufs, nil for scalars).
func interpArgs(args []*boundArg) (iargs []interp.Arg, bufs []*interp.Buffer, err error) {
	iargs = make([]interp.Arg, len(args))
	bufs = make([]*interp.Buffer, len(args))
	for i, a := range args {
		if a.param.kind != pointerParam && a.param.kind != descParam {
			iargs[i] = a.arg // checked again by the same interp.CheckScalar
			continue
		}
		if a.table != nil {
			if iargs[i], err = interpTable(a); err != nil {
				return nil, nil, err
			}
			continue
		}
		if a.typed != nil { // in place: the kernel reads and writes the caller's slice
			if bufs[i], err = interp.FromSlice(a.param.dt, a.typed); err != nil {
				return nil, nil, fmt.Errorf("argument %s (%s): %w", a.param.name, a.param.typ, err) // bindTyped checked the type
			}
		} else {
			bufs[i] = interp.FromFloat64(a.param.dt, a.tensor.Data)
		}
		iargs[i] = bufs[i]
		if a.param.kind == descParam {
			iargs[i] = &interp.Desc{Buf: bufs[i], Shape: a.desc.shape, Strides: a.desc.strides}
		}
	}
	return iargs, bufs, nil
}

// copyBack copies the buffers of the tensors the kernel may write back
// into them.
func (k *Kernel) copyBack(opts CompileOptions, args []*boundArg, bufs []*interp.Buffer) error {
	written, err := k.written(opts)
	if err != nil {
		return err
	}
	for i, b := range bufs {
		if b != nil && args[i].tensor != nil && written[args[i].param.name] {
			b.CopyToFloat64(args[i].tensor.Data, 0)
		}
		copyTableBack(args[i])
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

// div16Of lists the integer scalar arguments (i1 aside) that are
// multiples of 16, in parameter order: the divisibility specialisation
// key.
func div16Of(args []*boundArg) []string {
	var out []string
	for _, a := range args {
		if a.param.kind == scalarParam && a.param.dt.IsInt() && a.param.dt != ir.I1 && a.scalar.Int%16 == 0 {
			out = append(out, a.param.name)
		}
	}
	return out
}

// Writes names the pointer and descriptor parameters the kernel, compiled
// with opts, may write (ir.Func.WrittenParams): a store, an atomic or a
// TMA store through an address derived from them. After a launch Run
// copies back into those tensors only, so that a tensor the kernel only
// reads may be shared by concurrent Runs.
func (k *Kernel) Writes(opts CompileOptions) ([]string, error) {
	if k == nil {
		return nil, errors.New("tle: Writes of a nil *tle.Kernel")
	}
	w, err := k.written(opts)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range k.hostParams(opts.Defines) {
		if w[p.name] {
			out = append(out, p.name)
		}
	}
	return out, nil
}

// written is Writes as a set, from the IR the interpreter runs.
func (k *Kernel) written(opts CompileOptions) (map[string]bool, error) {
	opts.DumpAfter = "" // the same IR; its dumps were written by the launch's compile
	m, err := k.compiled(opts)
	if err != nil {
		return nil, err
	}
	fn := m.Func(k.Name())
	out := map[string]bool{}
	for i, w := range fn.WrittenParams() {
		if w {
			out[fn.Params[i].Name] = true
		}
	}
	return out, nil
}

// progressKey is the context key of WithProgress's callback.
type progressKey struct{}

// WithProgress returns a context that makes RunContext on the interpreter
// report its progress to fn: after each program of the grid (each cluster,
// with clusters) finishes, how many of the grid's programs are done. fn is
// called from the interpreter's workers, concurrently: it must be safe for
// that, and quick. A GPU launch, which the host cannot watch, reports
// nothing.
func WithProgress(ctx context.Context, fn func(done, total int)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

package tle

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle/ir"
)

// DeviceBuffer is GPU memory holding N elements of DType.
type DeviceBuffer struct {
	Ptr   cuda.DevicePtr
	DType ir.DType
	N     int
}

// Bytes is the buffer's size in bytes.
func (b *DeviceBuffer) Bytes() int { return b.N * b.DType.Bytes() }

// Alloc allocates an uninitialised buffer (the driver aligns it to at least
// 256 bytes).
func (g *GPU) Alloc(dt ir.DType, n int) (*DeviceBuffer, error) {
	p, err := g.ctx.Alloc(max(n*dt.Bytes(), 16))
	if err != nil {
		return nil, err
	}
	return &DeviceBuffer{Ptr: p, DType: dt, N: n}, nil
}

// Upload allocates a buffer holding data converted to dt.
func (g *GPU) Upload(dt ir.DType, data []float64) (*DeviceBuffer, error) {
	raw, err := npy.Encode(npy.DType(dt.String()), data)
	if err != nil {
		return nil, err
	}
	b, err := g.Alloc(dt, len(data))
	if err != nil {
		return nil, err
	}
	if err := g.ctx.CopyHtoD(b.Ptr, raw); err != nil {
		g.Free(b)
		return nil, err
	}
	return b, nil
}

// Download copies a buffer back as float64 values.
func (g *GPU) Download(b *DeviceBuffer) ([]float64, error) {
	raw := make([]byte, b.Bytes())
	if err := g.ctx.CopyDtoH(raw, b.Ptr); err != nil {
		return nil, err
	}
	return npy.Decode(npy.DType(b.DType.String()), raw)
}

// Free releases a buffer.
func (g *GPU) Free(b *DeviceBuffer) error {
	if b == nil || b.Ptr == 0 {
		return nil
	}
	err := g.ctx.Free(b.Ptr)
	b.Ptr = 0
	return err
}

// Prepared is a kernel launch with its arguments set, ready to be launched
// again and again with no allocation: the host-side cost of one launch is
// the driver call and little else.
type Prepared struct {
	g   *GPU
	gk  *gpuKernel
	l   *cuda.Launcher
	cfg cuda.LaunchConfig
}

// Prepare compiles (through the JIT cache) and loads the kernel, checks the
// arguments against its signature (by position: a *DeviceBuffer per
// pointer parameter, a Go number per scalar) and sets them.
func (g *GPU) Prepare(k *Kernel, opts CompileOptions, grid [3]int, args ...any) (*Prepared, error) {
	named := map[string]any{}
	i := 0
	for _, p := range k.Params() {
		if !p.Const && i < len(args) {
			named[p.Name] = args[i]
			i++
		}
	}
	opts.Div16 = div16Of(k, named)
	// Check every argument against the signature before anything reaches
	// the GPU.
	m, err := k.compiled(opts)
	if err != nil {
		return nil, err
	}
	vals, err := deviceArgs(m.Func(k.Name()), args)
	if err != nil {
		return nil, err
	}
	gk, err := g.load(k, opts)
	if err != nil {
		return nil, err
	}
	params := make([]cuda.Param, len(vals))
	for i, v := range vals {
		params[i], _ = cuda.ParamOf(v)
	}
	l, err := gk.fn.NewLauncher(params...)
	if err != nil {
		return nil, err
	}
	for i, v := range vals {
		if err := l.Set(i, v); err != nil {
			return nil, err
		}
	}
	pr := &Prepared{g: g, gk: gk, l: l}
	pr.cfg = cuda.LaunchConfig{
		Grid:      cuda.Dim3{X: uint32(grid[0]), Y: uint32(grid[1]), Z: uint32(grid[2])},
		Block:     cuda.Dim3{X: uint32(32 * gk.bin.NumWarps), Y: 1, Z: 1},
		SharedMem: gk.bin.SmemBytes,
	}
	if c := gk.bin.Cluster; c != [3]int{} && c != [3]int{1, 1, 1} {
		pr.cfg.Cluster = cuda.Dim3{X: uint32(c[0]), Y: uint32(c[1]), Z: uint32(c[2])}
	}
	return pr, nil
}

// Launch enqueues the kernel once; it does not wait.
func (p *Prepared) Launch() error { return p.l.Launch(&p.cfg) }

// Binary is what the launch runs.
func (p *Prepared) Binary() *Binary { return p.gk.bin }

// Close frees the launch's argument block.
func (p *Prepared) Close() error { return p.l.Close() }

// Timing is the result of timing a GPU operation with CUDA events.
type Timing struct {
	MedianMs float64
	MinMs    float64
	Reps     int
}

// Time runs fn warmup times, then reps times with a CUDA event pair around
// each run, and returns the median and minimum milliseconds.
func (g *GPU) Time(warmup, reps int, fn func() error) (Timing, error) {
	for range warmup {
		if err := fn(); err != nil {
			return Timing{}, err
		}
	}
	if err := g.ctx.Synchronize(); err != nil {
		return Timing{}, err
	}
	evs := make([]*cuda.Event, 2*reps)
	for i := range evs {
		e, err := g.ctx.NewEvent(0)
		if err != nil {
			return Timing{}, err
		}
		defer e.Destroy()
		evs[i] = e
	}
	for i := 0; i < reps; i++ {
		if err := evs[2*i].Record(nil); err != nil {
			return Timing{}, err
		}
		if err := fn(); err != nil {
			return Timing{}, err
		}
		if err := evs[2*i+1].Record(nil); err != nil {
			return Timing{}, err
		}
	}
	if err := g.ctx.Synchronize(); err != nil {
		return Timing{}, err
	}
	ms := make([]float64, reps)
	for i := range ms {
		d, err := evs[2*i+1].Since(evs[2*i])
		if err != nil {
			return Timing{}, err
		}
		ms[i] = float64(d)
	}
	sort.Float64s(ms)
	return Timing{MedianMs: ms[reps/2], MinMs: ms[0], Reps: reps}, nil
}

// CopyDtoD copies n bytes between device buffers (asynchronously on the
// default stream); the bandwidth peer of memory-bound kernels.
func (g *GPU) CopyDtoD(dst, src *DeviceBuffer, n int) error {
	return g.ctx.CopyDtoDAsync(dst.Ptr, src.Ptr, n, nil)
}

// deviceArgs checks launch arguments against a kernel's runtime parameters
// (by position: a *DeviceBuffer per pointer parameter, a Go number per
// scalar) and converts them to driver argument values.
func deviceArgs(fn *ir.Func, args []any) ([]any, error) {
	if len(args) != len(fn.Params) {
		var sig []string
		for _, p := range fn.Params {
			sig = append(sig, p.Name+" "+p.Type.String())
		}
		return nil, fmt.Errorf("%s takes %d runtime arguments (%s), got %d", fn.Name, len(fn.Params), strings.Join(sig, ", "), len(args))
	}
	vals := make([]any, len(args))
	for i, p := range fn.Params {
		switch t := p.Type.(type) {
		case *ir.Pointer:
			b, ok := args[i].(*DeviceBuffer)
			if !ok {
				return nil, fmt.Errorf("argument %s (%s) needs a *tle.DeviceBuffer, got %T", p.Name, p.Type, args[i])
			}
			if b == nil || b.Ptr == 0 {
				return nil, fmt.Errorf("argument %s (%s) is a nil pointer", p.Name, p.Type)
			}
			if b.DType != t.Elem {
				return nil, fmt.Errorf("argument %s (%s): the buffer holds %s", p.Name, p.Type, b.DType)
			}
			if b.Ptr%16 != 0 {
				return nil, fmt.Errorf("argument %s (%s) is not 16-byte aligned (%#x)", p.Name, p.Type, uint64(b.Ptr))
			}
			vals[i] = b.Ptr
		case ir.DType:
			f, isInt, ok := number(args[i])
			if !ok {
				return nil, fmt.Errorf("argument %s (%s) needs a number, got %T", p.Name, p.Type, args[i])
			}
			if t.IsInt() && !isInt && f != float64(int64(f)) {
				return nil, fmt.Errorf("argument %s (%s) needs an integer, got %v", p.Name, p.Type, f)
			}
			ba := &boundArg{scalar: f, ival: int64(f)}
			if isInt {
				ba.ival = toInt64(args[i])
			}
			vals[i] = scalarArg(t, ba)
		default:
			return nil, fmt.Errorf("argument %s: %s parameters are not supported on the GPU yet", p.Name, p.Type)
		}
	}
	return vals, nil
}

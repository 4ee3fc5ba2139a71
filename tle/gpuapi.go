package tle

import (
	"errors"
	"fmt"
	"math"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/npy"
)

// DeviceBuffer is GPU memory holding N elements of DType.
type DeviceBuffer struct {
	Ptr   DevicePtr
	DType DType
	N     int

	symmetric bool // a part of a GPUMesh's heap: Free leaves it
}

// Bytes is the buffer's size in bytes.
func (b *DeviceBuffer) Bytes() int { return b.N * b.DType.Bytes() }

// Alloc allocates an uninitialised buffer (the driver aligns it to at least
// 256 bytes).
func (g *GPU) Alloc(dt DType, n int) (*DeviceBuffer, error) {
	if err := g.check("Alloc"); err != nil {
		return nil, err
	}
	if err := checkAlloc(dt, n); err != nil {
		return nil, err
	}
	if g.dry != nil {
		return &DeviceBuffer{Ptr: g.dry.alloc(n * dt.Bytes()), DType: dt, N: n}, nil
	}
	p, err := g.ctx.Alloc(max(n*dt.Bytes(), 16))
	if err != nil {
		return nil, err
	}
	return &DeviceBuffer{Ptr: p, DType: dt, N: n}, nil
}

// checkAlloc is Alloc's argument check: a count of elements of a dtype
// whose bytes fit an int.
func checkAlloc(dt DType, n int) error {
	if n < 0 || dt.Bytes() == 0 || n > math.MaxInt/dt.Bytes() {
		return fmt.Errorf("tle: Alloc of %d %s elements", n, dt)
	}
	return nil
}

// Upload allocates a buffer holding data converted to dt.
func (g *GPU) Upload(dt DType, data []float64) (*DeviceBuffer, error) {
	if err := g.check("Upload"); err != nil {
		return nil, err
	}
	if g.dry != nil {
		return g.Alloc(dt, len(data))
	}
	raw, err := npy.Encode(dt, data)
	if err != nil {
		return nil, err
	}
	b, err := g.Alloc(dt, len(data))
	if err != nil {
		return b, err
	}
	if err := g.ctx.CopyHtoD(b.Ptr, raw); err != nil {
		g.Free(b)
		return nil, err
	}
	return b, nil
}

// UploadTo copies data, converted to b's dtype, into the existing buffer b
// (len(data) <= b.N); nothing is allocated on the device.
func (g *GPU) UploadTo(b *DeviceBuffer, data []float64) error {
	if err := g.check("UploadTo"); err != nil {
		return err
	}
	if b == nil || b.Ptr == 0 {
		return fmt.Errorf("upload into a nil or freed buffer")
	}
	if len(data) > b.N {
		return fmt.Errorf("upload of %d elements into a buffer of %d", len(data), b.N)
	}
	if g.dry != nil {
		return nil
	}
	raw, err := npy.Encode(b.DType, data)
	if err != nil {
		return err
	}
	return g.ctx.CopyHtoD(b.Ptr, raw)
}

// Download copies a buffer back as float64 values.
func (g *GPU) Download(b *DeviceBuffer) ([]float64, error) {
	if err := g.check("Download"); err != nil {
		return nil, err
	}
	if b == nil || b.Ptr == 0 {
		return nil, fmt.Errorf("download of a nil or freed buffer")
	}
	if g.dry != nil {
		return make([]float64, b.N), nil
	}
	raw := make([]byte, b.Bytes())
	if err := g.ctx.CopyDtoH(raw, b.Ptr); err != nil {
		return nil, err
	}
	return npy.Decode(b.DType, raw)
}

// Free releases a buffer.
func (g *GPU) Free(b *DeviceBuffer) error {
	if b == nil || b.Ptr == 0 {
		return nil
	}
	if err := g.check("Free"); err != nil {
		return err
	}
	if g.dry != nil || b.symmetric {
		b.Ptr = 0
		return nil
	}
	err := g.ctx.Free(b.Ptr)
	b.Ptr = 0
	return err
}

// DeviceDesc is a tensor in a device buffer, bound to a desc[T, B...]
// parameter: the launcher encodes its CUtensorMap (box and swizzle from the
// kernel's metadata) and passes it by value. Shape and Strides are in
// elements, outermost dimension first; Strides nil means row-major. The
// innermost stride must be 1, the buffer's address 16-byte aligned and the
// other strides multiples of 16 bytes, in any order: a permuted layout
// (an NHD cache [blocks, tokens, heads, dim] bound as [blocks, heads,
// tokens, dim] with strides [T*H*D, D, H*D, 1]) is a tensor map like any
// other.
type DeviceDesc struct {
	Buf     *DeviceBuffer
	Shape   []int
	Strides []int
}

// Prepared is a kernel launch with its arguments set, ready to be launched
// again and again with no allocation: the host-side cost of one launch is
// the driver call and little else.
type Prepared struct {
	g       *GPU
	gk      *gpuKernel
	l       *cuda.Launcher
	cfg     cuda.LaunchConfig
	scratch cuda.DevicePtr // the make_desc maps of its programs (Binary.ScratchBytes), its own
}

// Prepare compiles (through the JIT cache) and loads the kernel, checks the
// arguments against its signature (by position: a *DeviceBuffer per
// pointer parameter, a DeviceDesc per desc parameter, a Go number per
// scalar) and sets them. Before anything is compiled it checks, with the
// same rules as Kernel.Run: g and k are not nil; grid is within the
// limits (every dimension >= 1, x <= MaxGridX, y and z <= MaxGridYZ);
// there is one argument per runtime parameter; each buffer is non-nil,
// of the parameter's element dtype and 16-byte aligned; each DeviceDesc
// suits TMA (checkDesc); each scalar is a Go value its dtype takes
// (interp.CheckScalar).
func (g *GPU) Prepare(k *Kernel, opts CompileOptions, grid [3]int, args ...any) (*Prepared, error) {
	if err := g.check("Prepare"); err != nil {
		return nil, err
	}
	if k == nil {
		return nil, errors.New("tle: Prepare of a nil *tle.Kernel")
	}
	if err := checkGrid(grid); err != nil {
		return nil, err
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	// Check every argument against the signature before anything is
	// compiled or reaches the GPU.
	opts = k.noneDefines(opts, func(_ string, i int) bool { return i < len(args) && isNilArg(args[i]) })
	vals, div16, err := deviceArgs(k.Name(), k.hostParams(opts.Defines), args)
	if err != nil {
		return nil, err
	}
	opts.Div16 = div16
	if g.dry != nil {
		p := g.dryPrepared(k, opts)
		p.cfg.Grid = cuda.Dim3{X: uint32(grid[0]), Y: uint32(grid[1]), Z: uint32(grid[2])}
		p.cfg.Block = cuda.Dim3{X: uint32(32 * max(opts.NumWarps, 4)), Y: 1, Z: 1}
		return p, nil
	}
	gk, err := g.load(k, opts)
	if err != nil {
		return nil, err
	}
	if err := oneDevice(gk.bin); err != nil {
		return nil, err
	}
	if err := g.encodeDescs(gk.bin, vals); err != nil {
		return nil, err
	}
	var scratch cuda.DevicePtr
	if gk.bin.ScratchBytes > 0 {
		n, err := scratchBytes(gk.bin, grid)
		if err != nil {
			return nil, err
		}
		if scratch, err = g.ctx.Alloc(n); err != nil {
			return nil, fmt.Errorf("%s: the scratch of its make_desc maps: %w", k.Name(), err)
		}
		vals = append(vals, scratch)
	}
	pr, err := g.prepare(gk, grid, vals, scratch)
	if err != nil && scratch != 0 {
		g.ctx.Free(scratch)
	}
	return pr, err
}

// prepare sets a launch's argument values (Prepare's, plus the scratch
// when the kernel has one).
func (g *GPU) prepare(gk *gpuKernel, grid [3]int, vals []any, scratch cuda.DevicePtr) (*Prepared, error) {
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
	pr := &Prepared{g: g, gk: gk, l: l, scratch: scratch}
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
func (p *Prepared) Launch() error { return p.LaunchWith(LaunchOptions{}) }

// LaunchWith enqueues the kernel once with the launch's options (PDL); it
// does not wait, and allocates nothing.
func (p *Prepared) LaunchWith(o LaunchOptions) error { return p.launchOn(nil, o) }

// launchOn enqueues the kernel once into stream s (nil: the legacy default
// stream, where every other launch of a GPU goes; Capture's stream while
// it records a graph).
func (p *Prepared) launchOn(s *cuda.Stream, o LaunchOptions) error {
	if p.g.dry != nil {
		return nil
	}
	if err := o.check(p.gk.bin); err != nil {
		return err
	}
	p.cfg.ProgrammaticStreamSerialization = o.PDL
	p.cfg.Stream = s
	err := p.l.Launch(&p.cfg)
	p.cfg.Stream = nil
	return err
}

// Binary is what the launch runs.
func (p *Prepared) Binary() *Binary { return p.gk.bin }

// ResidentPerSM is how many programs of the launch one SM runs at once
// (the driver's occupancy calculator on the loaded kernel: its registers,
// shared memory and threads). A persistent kernel sizes its grid by it.
func (p *Prepared) ResidentPerSM() (int, error) {
	if p.g.dry != nil {
		return p.dryResident(), nil
	}
	return p.gk.fn.ResidentPerSM(int(p.cfg.Block.X), p.cfg.SharedMem)
}

// MaxActiveClusters is how many clusters of the launch (its kernel's
// device_mesh) the device runs at once (the driver's
// cuOccupancyMaxActiveClusters: a cluster's CTAs are placed on one GPC, so
// this may be fewer than ResidentPerSM x SMs / cluster size). It is an
// error for a kernel without a cluster.
func (p *Prepared) MaxActiveClusters() (int, error) {
	if p.g.dry != nil {
		return 0, errDryCluster
	}
	if p.cfg.Cluster.X == 0 {
		return 0, fmt.Errorf("tle: %s has no cluster (device_mesh)", p.gk.bin.Kernel)
	}
	cfg := p.cfg
	return p.l.MaxActiveClusters(&cfg)
}

// SMs is the device's multiprocessor count.
func (g *GPU) SMs() (int, error) {
	if err := g.check("SMs"); err != nil {
		return 0, err
	}
	if g.dry != nil {
		return g.dry.facts.SMs, nil
	}
	return g.ctx.Dev.Attribute(cuda.AttrMultiprocessorCount)
}

// Close frees the launch's argument block (and its make_desc scratch,
// after the GPU has finished with it).
func (p *Prepared) Close() error {
	if p.g.dry != nil {
		return nil
	}
	err := p.l.Close()
	if p.scratch != 0 {
		if e := p.g.ctx.Synchronize(); e != nil && err == nil {
			err = e
		}
		if e := p.g.ctx.Free(p.scratch); e != nil && err == nil {
			err = e
		}
		p.scratch = 0
	}
	return err
}

// Timing is the result of timing an operation with the timing engine
// (GPU.Time, GPU.Bench, BenchKernels).
type Timing struct {
	// Name is the case's name (GPU.Bench, BenchKernels).
	Name     string
	MedianMs float64
	MinMs    float64
	Reps     int
	// LoMs and HiMs bound the median with probability Coverage: the
	// distribution-free interval of order statistics (runtime/timing).
	LoMs, HiMs float64
	Coverage   float64
	// Samples are the timed runs' milliseconds, in round order.
	Samples []float64
	// Clock says what measured the runs: CUDA events, or the host's clock
	// around the interpreter.
	Clock string
}

// Time runs fn warmup times, then reps times with a CUDA event pair around
// each run, and returns the median (with its interval) and minimum
// milliseconds: GPU.Bench with one case.
func (g *GPU) Time(warmup, reps int, fn func() error) (Timing, error) {
	if err := g.check("Time"); err != nil {
		return Timing{}, err
	}
	if reps < 1 {
		return Timing{}, fmt.Errorf("tle: Time needs at least one rep, got %d", reps)
	}
	ts, err := g.Bench(BenchOptions{Warmup: warmup, Reps: reps}, BenchCase{Fn: fn})
	if err != nil {
		return Timing{}, err
	}
	return ts[0], nil
}

// CopyDtoD copies n bytes between device buffers (asynchronously on the
// default stream); the bandwidth peer of memory-bound kernels.
func (g *GPU) CopyDtoD(dst, src *DeviceBuffer, n int) error {
	if err := g.check("CopyDtoD"); err != nil {
		return err
	}
	if dst == nil || src == nil || dst.Ptr == 0 || src.Ptr == 0 {
		return fmt.Errorf("tle: CopyDtoD with a nil or freed buffer")
	}
	if g.dry != nil {
		return nil
	}
	return g.ctx.CopyDtoDAsync(dst.Ptr, src.Ptr, n, nil)
}

// deviceArgs checks launch arguments against a kernel's runtime parameters
// (by position: a *DeviceBuffer per pointer parameter, a DeviceDesc per
// desc parameter, a Go number per scalar) and converts them to driver
// argument values; div16 names the integer scalars that are multiples of
// 16 (CompileOptions.Div16).
func deviceArgs(kernel string, params []hostParam, args []any) (vals []any, div16 []string, err error) {
	if len(args) != len(params) {
		return nil, nil, fmt.Errorf("%s takes %d runtime arguments (%s), got %d", kernel, len(params), signature(params), len(args))
	}
	vals = make([]any, len(args))
	for i, p := range params {
		switch p.kind {
		case pointerParam:
			if p.none {
				if !isNilArg(args[i]) {
					return nil, nil, fmt.Errorf("argument %s (%s) is bound to None (-D %s=None): pass nil, not %T", p.name, p.typ, p.name, args[i])
				}
				vals[i] = DevicePtr(0)
				break
			}
			b, ok := args[i].(*DeviceBuffer)
			if !ok {
				return nil, nil, fmt.Errorf("argument %s (%s) needs a *tle.DeviceBuffer, got %T", p.name, p.typ, args[i])
			}
			if b == nil || b.Ptr == 0 {
				return nil, nil, fmt.Errorf("argument %s (%s) is a nil pointer", p.name, p.typ)
			}
			if b.DType != p.dt {
				return nil, nil, fmt.Errorf("argument %s (%s): the buffer holds %s", p.name, p.typ, b.DType)
			}
			if b.Ptr%16 != 0 {
				return nil, nil, fmt.Errorf("argument %s (%s) is not 16-byte aligned (%#x)", p.name, p.typ, uint64(b.Ptr))
			}
			vals[i] = b.Ptr
		case scalarParam:
			s, err := p.checkScalar(args[i])
			if err != nil {
				return nil, nil, err
			}
			vals[i] = scalarArg(p.dt, s)
			if p.dt.IsInt() && p.dt != ir.I1 && s.Int%16 == 0 {
				div16 = append(div16, p.name)
			}
		case descParam:
			var d DeviceDesc
			switch a := args[i].(type) {
			case DeviceDesc:
				d = a
			case *DeviceDesc:
				if a != nil {
					d = *a
				}
			default:
				return nil, nil, fmt.Errorf("argument %s (%s) needs a tle.DeviceDesc, got %T", p.name, p.typ, args[i])
			}
			if err := checkDesc(p.name, p.typ, p.dt, p.rank, d); err != nil {
				return nil, nil, err
			}
			vals[i] = d
		default:
			return nil, nil, fmt.Errorf("argument %s: %s parameters are not supported on the GPU yet", p.name, p.typ)
		}
	}
	return vals, div16, nil
}

// checkDesc validates a tensor bound to a desc parameter (typ as written,
// its element dtype and block rank): rank, dtype, extent within the
// buffer, and TMA's alignment rules (global address 16 bytes, innermost
// stride 1, other strides multiples of 16 bytes). The outer strides may
// come in any order (a permuted layout, as an NHD cache read as HND):
// TMA addresses each dimension by its own stride.
func checkDesc(name, typ string, elem ir.DType, rank int, d DeviceDesc) error {
	if d.Buf == nil || d.Buf.Ptr == 0 {
		return fmt.Errorf("argument %s (%s) has no buffer", name, typ)
	}
	if d.Buf.DType != elem {
		return fmt.Errorf("argument %s (%s): the buffer holds %s", name, typ, d.Buf.DType)
	}
	if uint64(d.Buf.Ptr)%16 != 0 {
		return fmt.Errorf("argument %s (%s): TMA needs a 16-byte aligned address, have %#x", name, typ, uint64(d.Buf.Ptr))
	}
	l := descLayout{shape: d.Shape, strides: d.Strides}
	if l.strides == nil && len(d.Shape) == rank {
		l.strides = rowMajorStrides(d.Shape)
	}
	return l.check(name, typ, elem, rank, d.Buf.N)
}

// descLayout is the shape and strides (elements, outermost first) of a
// tensor bound to a desc parameter.
type descLayout struct{ shape, strides []int }

// check validates the layout over a buffer of n elements of elem against
// TMA's rules: rank, each dimension 1..2^32, innermost stride 1, the
// others positive multiples of 16 bytes, every element within the buffer.
func (l descLayout) check(name, typ string, elem ir.DType, rank, n int) error {
	if len(l.shape) != rank {
		return fmt.Errorf("argument %s (%s) needs a rank-%d tensor, got shape %v", name, typ, rank, l.shape)
	}
	strides := l.strides
	if len(strides) != rank {
		return fmt.Errorf("argument %s (%s): %d strides for shape %v", name, typ, len(strides), l.shape)
	}
	eb := elem.Bytes()
	if strides[rank-1] != 1 {
		return fmt.Errorf("argument %s (%s): the innermost stride must be 1 for TMA, have strides %v", name, typ, strides)
	}
	last := 0
	for k := range rank {
		if l.shape[k] < 1 || l.shape[k] > 1<<32 {
			return fmt.Errorf("argument %s (%s): shape %v (each dimension 1..2^32 for TMA)", name, typ, l.shape)
		}
		if k < rank-1 && (strides[k] < 1 || strides[k]*eb%16 != 0) {
			return fmt.Errorf("argument %s (%s): TMA needs strides that are multiples of 16 bytes; strides %v of %d-byte elements", name, typ, strides, eb)
		}
		if strides[k] > 0 && l.shape[k]-1 > (math.MaxInt-last)/strides[k] {
			return fmt.Errorf("argument %s (%s): a tensor of shape %v and strides %v reaches past the largest int", name, typ, l.shape, strides)
		}
		last += (l.shape[k] - 1) * strides[k]
	}
	if last >= n {
		return fmt.Errorf("argument %s (%s): a tensor of shape %v and strides %v reaches element %d of a buffer of %d", name, typ, l.shape, strides, last, n)
	}
	return nil
}

// tensorMapTypes maps element dtypes to CUtensorMapDataType (signed 8- and
// 16-bit integers and fp8 move as unsigned bytes: a TMA copy moves bits).
var tensorMapTypes = map[ir.DType]cuda.TensorMapDataType{
	ir.U8: cuda.TensorUint8, ir.I8: cuda.TensorUint8, ir.F8E4M3: cuda.TensorUint8, ir.F8E5M2: cuda.TensorUint8,
	ir.U16: cuda.TensorUint16, ir.I16: cuda.TensorUint16,
	ir.U32: cuda.TensorUint32, ir.I32: cuda.TensorInt32,
	ir.U64: cuda.TensorUint64, ir.I64: cuda.TensorInt64,
	ir.F16: cuda.TensorFloat16, ir.BF16: cuda.TensorBFloat16, ir.F32: cuda.TensorFloat32, ir.F64: cuda.TensorFloat64,
}

// DescSpec is the cuTensorMapEncodeTiled spec for a tensor bound to the
// desc parameter number param of a binary: global dims and byte strides
// innermost first, the box and swizzle the backend chose, element strides
// 1, no interleave, 128-byte L2 promotion, zero fill out of bounds.
func DescSpec(bin *Binary, param int, d DeviceDesc) (TiledSpec, error) {
	name := fmt.Sprintf("%d", param)
	if param < len(bin.Params) {
		name = bin.Params[param]
	}
	var dp *nvptx.DescParam
	for i := range bin.Descs {
		if bin.Descs[i].Param == param {
			dp = &bin.Descs[i]
		}
	}
	if dp == nil {
		return cuda.TiledSpec{}, fmt.Errorf("argument %s: the binary of %s has no tensor-map metadata for it (not a desc parameter, or compiled by an older compiler)", name, bin.Kernel)
	}
	dt, ok := ir.ParseDType(dp.DType)
	if !ok {
		return cuda.TiledSpec{}, fmt.Errorf("argument %s: unknown dtype %q in the binary's metadata", name, dp.DType)
	}
	tt, ok := tensorMapTypes[dt]
	if !ok {
		return cuda.TiledSpec{}, fmt.Errorf("argument %s: TMA does not move %s elements", name, dt)
	}
	if err := checkDesc(name, (&ir.Desc{Elem: dt, Block: dp.Block}).String(), dt, len(dp.Block), d); err != nil {
		return cuda.TiledSpec{}, err
	}
	rank := len(dp.Block)
	if len(dp.Box) != rank {
		return cuda.TiledSpec{}, fmt.Errorf("argument %s: box %v for a rank-%d block in the binary's metadata", name, dp.Box, rank)
	}
	strides := d.Strides
	if strides == nil {
		strides = rowMajorStrides(d.Shape)
	}
	spec := cuda.TiledSpec{DataType: tt, Global: d.Buf.Ptr, L2Promotion: cuda.L2Promotion128B, OOBFill: cuda.OOBFillNone}
	for k := rank - 1; k >= 0; k-- {
		spec.Dims = append(spec.Dims, uint64(d.Shape[k]))
		spec.Box = append(spec.Box, uint32(dp.Box[k]))
		if k < rank-1 {
			spec.Strides = append(spec.Strides, uint64(strides[k]*dt.Bytes()))
		}
	}
	switch dp.Swizzle {
	case 0:
		spec.Swizzle = cuda.SwizzleNone
	case 32:
		spec.Swizzle = cuda.Swizzle32B
	case 64:
		spec.Swizzle = cuda.Swizzle64B
	case 128:
		spec.Swizzle = cuda.Swizzle128B
	default:
		return cuda.TiledSpec{}, fmt.Errorf("argument %s: swizzle %d in the binary's metadata", name, dp.Swizzle)
	}
	if err := spec.Validate(); err != nil {
		return cuda.TiledSpec{}, fmt.Errorf("argument %s: %w", name, err)
	}
	return spec, nil
}

// encodeDescs replaces each DeviceDesc among a launch's values by its
// encoded CUtensorMap.
func (g *GPU) encodeDescs(bin *Binary, vals []any) error {
	for i, v := range vals {
		var d DeviceDesc
		switch a := v.(type) {
		case DeviceDesc:
			d = a
		case *DeviceDesc:
			d = *a
		default:
			continue
		}
		spec, err := DescSpec(bin, i, d)
		if err != nil {
			return err
		}
		m, err := g.ctx.EncodeTiled(spec)
		if err != nil {
			return fmt.Errorf("argument %s: %w", bin.Params[i], err)
		}
		vals[i] = m
	}
	return nil
}

package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"structs"
	"unsafe"
)

// CULaunchConfig is the C layout of CUlaunchConfig (56 bytes).
type CULaunchConfig struct {
	_              structs.HostLayout
	GridDimX       uint32
	GridDimY       uint32
	GridDimZ       uint32
	BlockDimX      uint32
	BlockDimY      uint32
	BlockDimZ      uint32
	SharedMemBytes uint32
	_              uint32
	HStream        uintptr
	Attrs          uintptr // CUlaunchAttribute*
	NumAttrs       uint32
	_              uint32
}

// CULaunchAttribute is the C layout of CUlaunchAttribute (72 bytes): the id,
// padding to 8 bytes, and the 64-byte CUlaunchAttributeValue union.
type CULaunchAttribute struct {
	_     structs.HostLayout
	ID    LaunchAttributeID
	_     [4]byte
	Value [8]uint64
}

// SetClusterDim stores the clusterDim member {x, y, z uint32} of the value.
func (a *CULaunchAttribute) SetClusterDim(x, y, z uint32) {
	a.ID = LaunchAttrClusterDimension
	a.Value = [8]uint64{uint64(x) | uint64(y)<<32, uint64(z)}
}

// SetProgrammaticStreamSerialization stores the
// programmaticStreamSerializationAllowed member (an unsigned char, the
// value's first byte) as 1: the launch may start before the previous kernel
// of the stream completes, which its griddepcontrol.wait then waits for
// (programmatic dependent launch).
func (a *CULaunchAttribute) SetProgrammaticStreamSerialization() {
	a.ID = LaunchAttrProgrammaticStreamSerialization
	a.Value = [8]uint64{1}
}

// Dim3 is a grid, block or cluster shape; Y and Z of 0 mean 1.
type Dim3 struct{ X, Y, Z uint32 }

func (d Dim3) norm() Dim3 {
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

func (d Dim3) isZero() bool { return d == Dim3{} }

// LaunchConfig describes one launch.
type LaunchConfig struct {
	Grid, Block Dim3
	SharedMem   int     // dynamic shared memory in bytes
	Stream      *Stream // nil: the legacy default stream
	Cluster     Dim3    // zero: no cluster; else thread-block cluster shape (cuLaunchKernelEx)
	// ProgrammaticStreamSerialization makes the launch a programmatic
	// dependent launch (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
	// = 1, cuLaunchKernelEx): the kernel may be scheduled once the previous
	// kernel of the stream triggered it (griddepcontrol.launch_dependents in
	// every CTA, or their exit), and must griddepcontrol.wait before it reads
	// what that kernel wrote.
	ProgrammaticStreamSerialization bool
}

// Param is the size and alignment of one kernel parameter.
type Param struct{ Size, Align int }

// Parameter shapes of the kernel parameter types.
var (
	ParamPtr       = Param{8, 8}
	ParamI8        = Param{1, 1}
	ParamI16       = Param{2, 2}
	ParamI32       = Param{4, 4}
	ParamI64       = Param{8, 8}
	ParamF32       = Param{4, 4}
	ParamF64       = Param{8, 8}
	ParamTensorMap = Param{128, 64} // a CUtensorMap passed by value (grid constant)
)

const maxLaunchAttrs = 2 // cluster dimension, programmatic stream serialization

// Launcher launches one function again and again with no allocation: the
// kernelParams array, the argument values, the CUlaunchConfig and its
// attributes live in one block of memory outside the Go heap (see the
// package documentation). Set the arguments with the Set methods, then
// Launch; arguments keep their values between launches. A Launcher is not
// safe for concurrent use: give each goroutine its own.
type Launcher struct {
	f       *Function
	block   []byte
	base    uintptr
	params  []Param
	offs    []int // offset of each argument value in block
	cfg     *CULaunchConfig
	cfgAddr uintptr
	attrs   *[maxLaunchAttrs]CULaunchAttribute
	argv    uintptr     // kernelParams (void**)
	exArgs  [4]uintptr  // cuLaunchKernelEx(config, f, kernelParams, extra)
	kArgs   [11]uintptr // cuLaunchKernel(f, grid, block, smem, stream, kernelParams, extra)
}

func roundUp(n, a int) int { return (n + a - 1) / a * a }

// NewLauncher prepares launches of f with parameters of the given shapes,
// in order.
func (f *Function) NewLauncher(params ...Param) (*Launcher, error) {
	n := len(params)
	off := roundUp(8*n, 64)
	cfgOff := off
	off += roundUp(int(unsafe.Sizeof(CULaunchConfig{})), 64)
	attrOff := off
	off += roundUp(maxLaunchAttrs*int(unsafe.Sizeof(CULaunchAttribute{})), 64)
	offs := make([]int, n)
	for i, p := range params {
		if p.Size <= 0 || p.Align <= 0 || p.Align&(p.Align-1) != 0 || p.Align > 64 {
			return nil, fmt.Errorf("cuda: parameter %d of %s: bad shape %+v", i, f.Name, p)
		}
		off = roundUp(off, p.Align)
		offs[i] = off
		off += p.Size
	}
	block, err := offHeap(roundUp(max(off, 1), 4096))
	if err != nil {
		return nil, fmt.Errorf("cuda: argument block for %s: %w", f.Name, err)
	}
	base := uintptr(unsafe.Pointer(&block[0]))
	for i := range params {
		binary.LittleEndian.PutUint64(block[8*i:], uint64(base)+uint64(offs[i]))
	}
	l := &Launcher{
		f: f, block: block, base: base, params: append([]Param(nil), params...), offs: offs,
		cfg:     (*CULaunchConfig)(unsafe.Pointer(&block[cfgOff])),
		cfgAddr: base + uintptr(cfgOff),
		attrs:   (*[maxLaunchAttrs]CULaunchAttribute)(unsafe.Pointer(&block[attrOff])),
		argv:    base,
	}
	if n == 0 {
		l.argv = 0
	}
	l.cfg.Attrs = base + uintptr(attrOff)
	l.exArgs = [4]uintptr{l.cfgAddr, f.h, l.argv, 0}
	return l, nil
}

// Close frees the argument block.
// Closed reports whether Close has run (its argument block is freed).
func (l *Launcher) Closed() bool { return l.block == nil }

func (l *Launcher) Close() error {
	if l.block == nil {
		return nil
	}
	b := l.block
	l.block = nil
	return freeOffHeap(b)
}

func (l *Launcher) slot(i, size int) []byte {
	if i < 0 || i >= len(l.params) {
		panic(fmt.Sprintf("cuda: %s has %d parameters, argument %d set", l.f.Name, len(l.params), i))
	}
	if l.params[i].Size != size {
		panic(fmt.Sprintf("cuda: parameter %d of %s is %d bytes, a %d-byte value set", i, l.f.Name, l.params[i].Size, size))
	}
	return l.block[l.offs[i] : l.offs[i]+size]
}

// SetPtr sets a pointer parameter.
func (l *Launcher) SetPtr(i int, p DevicePtr) { binary.LittleEndian.PutUint64(l.slot(i, 8), uint64(p)) }

// SetI8 sets an 8-bit integer parameter.
func (l *Launcher) SetI8(i int, v int8) { l.slot(i, 1)[0] = byte(v) }

// SetI16 sets a 16-bit integer parameter.
func (l *Launcher) SetI16(i int, v int16) { binary.LittleEndian.PutUint16(l.slot(i, 2), uint16(v)) }

// SetI32 sets a 32-bit integer parameter.
func (l *Launcher) SetI32(i int, v int32) { binary.LittleEndian.PutUint32(l.slot(i, 4), uint32(v)) }

// SetU32 sets a 32-bit unsigned parameter.
func (l *Launcher) SetU32(i int, v uint32) { binary.LittleEndian.PutUint32(l.slot(i, 4), v) }

// SetI64 sets a 64-bit integer parameter.
func (l *Launcher) SetI64(i int, v int64) { binary.LittleEndian.PutUint64(l.slot(i, 8), uint64(v)) }

// SetU64 sets a 64-bit unsigned parameter.
func (l *Launcher) SetU64(i int, v uint64) { binary.LittleEndian.PutUint64(l.slot(i, 8), v) }

// SetF32 sets a float parameter.
func (l *Launcher) SetF32(i int, v float32) {
	binary.LittleEndian.PutUint32(l.slot(i, 4), math.Float32bits(v))
}

// SetF64 sets a double parameter.
func (l *Launcher) SetF64(i int, v float64) {
	binary.LittleEndian.PutUint64(l.slot(i, 8), math.Float64bits(v))
}

// SetTensorMap sets a CUtensorMap parameter (passed by value, 64-aligned).
func (l *Launcher) SetTensorMap(i int, m *TensorMap) {
	copy(l.slot(i, 128), unsafe.Slice((*byte)(unsafe.Pointer(m)), 128))
}

// SetBytes sets a parameter from its raw little-endian bytes.
func (l *Launcher) SetBytes(i int, b []byte) { copy(l.slot(i, len(b)), b) }

// Arg returns the current bytes of parameter i (a copy).
func (l *Launcher) Arg(i int) []byte {
	return append([]byte(nil), l.slot(i, l.params[i].Size)...)
}

var (
	errClusterNeedsEx = errors.New("cuda: cluster launch needs cuLaunchKernelEx (CUDA 12 driver)")
	errPDLNeedsEx     = errors.New("cuda: programmatic dependent launch needs cuLaunchKernelEx (CUDA 12 driver)")
)

func (l *Launcher) fill(cfg *LaunchConfig) error {
	if l.block == nil {
		return fmt.Errorf("cuda: launcher of %s is closed", l.f.Name)
	}
	g, b := cfg.Grid.norm(), cfg.Block.norm()
	if g.X == 0 || b.X == 0 {
		return fmt.Errorf("cuda: launch of %s with grid %v block %v", l.f.Name, cfg.Grid, cfg.Block)
	}
	if cfg.SharedMem < 0 || cfg.SharedMem > math.MaxUint32 {
		return fmt.Errorf("cuda: launch of %s with %d bytes of shared memory", l.f.Name, cfg.SharedMem)
	}
	c := l.cfg
	c.GridDimX, c.GridDimY, c.GridDimZ = g.X, g.Y, g.Z
	c.BlockDimX, c.BlockDimY, c.BlockDimZ = b.X, b.Y, b.Z
	c.SharedMemBytes = uint32(cfg.SharedMem)
	c.HStream = cfg.Stream.handle()
	c.NumAttrs = 0
	if !cfg.Cluster.isZero() {
		cl := cfg.Cluster.norm()
		l.attrs[c.NumAttrs].SetClusterDim(cl.X, cl.Y, cl.Z)
		c.NumAttrs++
	}
	if cfg.ProgrammaticStreamSerialization {
		l.attrs[c.NumAttrs].SetProgrammaticStreamSerialization()
		c.NumAttrs++
	}
	return nil
}

// Launch launches the function with cuLaunchKernelEx (cluster dimensions
// become a CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION attribute,
// ProgrammaticStreamSerialization a
// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION one). It only queues
// the kernel: errors inside the kernel surface at the next synchronisation.
func (l *Launcher) Launch(cfg *LaunchConfig) error {
	if err := l.fill(cfg); err != nil {
		return err
	}
	f := l.f
	d := f.c.d
	if d.cuLaunchKernelEx == 0 {
		if cfg.ProgrammaticStreamSerialization {
			return errPDLNeedsEx
		}
		if l.cfg.NumAttrs != 0 {
			return errClusterNeedsEx
		}
		return l.launchKernel()
	}
	if err := f.c.enter(); err != nil {
		return err
	}
	r := callArgs(d.cuLaunchKernelEx, l.exArgs[:])
	f.c.leave()
	if r != 0 {
		return l.launchError("cuLaunchKernelEx", r)
	}
	return nil
}

// MaxActiveClusters is cuOccupancyMaxActiveClusters: how many clusters of
// cfg.Cluster CTAs the device runs at once for launches of cfg's block and
// dynamic shared memory (the grid does not count). Clusters are placed
// whole on one GPC, so this can be fewer than the CTAs one SM holds times
// the SMs, divided by the cluster size. cfg.Cluster must be set; the
// function's dynamic shared memory limit must already allow cfg.SharedMem.
func (l *Launcher) MaxActiveClusters(cfg *LaunchConfig) (int, error) {
	f := l.f
	fn := f.c.d.cuOccupancyMaxActiveClusters
	if fn == 0 {
		return 0, fmt.Errorf("cuOccupancyMaxActiveClusters: not exported by %s", f.c.d.Library)
	}
	if cfg.Cluster.isZero() {
		return 0, fmt.Errorf("cuda: MaxActiveClusters of %s without a cluster shape", f.Name)
	}
	if err := l.fill(cfg); err != nil {
		return 0, err
	}
	var n int32
	err := f.c.do("cuOccupancyMaxActiveClusters", fn, uintptr(unsafe.Pointer(&n)), f.h, l.cfgAddr)
	return int(n), err
}

// LaunchKernel launches with the classic cuLaunchKernel (no cluster, no
// programmatic dependent launch).
func (l *Launcher) LaunchKernel(cfg *LaunchConfig) error {
	if !cfg.Cluster.isZero() {
		return errors.New("cuda: cuLaunchKernel cannot launch clusters; use Launch")
	}
	if cfg.ProgrammaticStreamSerialization {
		return errors.New("cuda: cuLaunchKernel cannot make a programmatic dependent launch; use Launch")
	}
	if err := l.fill(cfg); err != nil {
		return err
	}
	return l.launchKernel()
}

func (l *Launcher) launchKernel() error {
	f, c := l.f, l.cfg
	d := f.c.d
	if err := f.c.enter(); err != nil {
		return err
	}
	l.kArgs = [11]uintptr{f.h,
		uintptr(c.GridDimX), uintptr(c.GridDimY), uintptr(c.GridDimZ),
		uintptr(c.BlockDimX), uintptr(c.BlockDimY), uintptr(c.BlockDimZ),
		uintptr(c.SharedMemBytes), c.HStream, l.argv, 0}
	r := callArgs(d.cuLaunchKernel, l.kArgs[:])
	f.c.leave()
	if r != 0 {
		return l.launchError("cuLaunchKernel", r)
	}
	return nil
}

func (l *Launcher) launchError(fn string, r uintptr) error {
	c := l.cfg
	return fmt.Errorf("kernel %s grid (%d,%d,%d) block (%d,%d,%d) smem %d: %w", l.f.Name,
		c.GridDimX, c.GridDimY, c.GridDimZ, c.BlockDimX, c.BlockDimY, c.BlockDimZ, c.SharedMemBytes,
		l.f.c.d.check(fn, r))
}

// ParamOf is the parameter shape of a Go argument value accepted by
// Function.Launch: DevicePtr, int8/16/32/64, uint8/16/32/64, float32,
// float64, TensorMap or *TensorMap.
func ParamOf(arg any) (Param, error) {
	switch a := arg.(type) {
	case DevicePtr:
		return ParamPtr, nil
	case int8, uint8:
		return ParamI8, nil
	case int16, uint16:
		return ParamI16, nil
	case int32, uint32:
		return ParamI32, nil
	case int64, uint64:
		return ParamI64, nil
	case float32:
		return ParamF32, nil
	case float64:
		return ParamF64, nil
	case TensorMap, *TensorMap:
		return ParamTensorMap, nil
	default:
		return Param{}, fmt.Errorf("cuda: kernel argument of type %T (use DevicePtr, a sized integer, float32/64 or TensorMap)", a)
	}
}

// Set stores a Go argument value (see ParamOf) in parameter i.
func (l *Launcher) Set(i int, arg any) error {
	switch a := arg.(type) {
	case DevicePtr:
		l.SetPtr(i, a)
	case int8:
		l.SetI8(i, a)
	case uint8:
		l.SetI8(i, int8(a))
	case int16:
		l.SetI16(i, a)
	case uint16:
		l.SetI16(i, int16(a))
	case int32:
		l.SetI32(i, a)
	case uint32:
		l.SetU32(i, a)
	case int64:
		l.SetI64(i, a)
	case uint64:
		l.SetU64(i, a)
	case float32:
		l.SetF32(i, a)
	case float64:
		l.SetF64(i, a)
	case TensorMap:
		l.SetTensorMap(i, &a)
	case *TensorMap:
		l.SetTensorMap(i, a)
	default:
		_, err := ParamOf(arg)
		return err
	}
	return nil
}

// Launch is the convenient, slower path: it builds a Launcher for these
// arguments, launches once and frees it. Cache a Launcher for hot loops.
func (f *Function) Launch(cfg LaunchConfig, args ...any) error {
	params := make([]Param, len(args))
	for i, a := range args {
		p, err := ParamOf(a)
		if err != nil {
			return fmt.Errorf("%s argument %d: %w", f.Name, i, err)
		}
		params[i] = p
	}
	l, err := f.NewLauncher(params...)
	if err != nil {
		return err
	}
	defer l.Close()
	for i, a := range args {
		if err := l.Set(i, a); err != nil {
			return err
		}
	}
	return l.Launch(&cfg)
}

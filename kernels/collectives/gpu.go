package collectives

import (
	"fmt"
	"sync"

	"github.com/tlego/tle/tle"
)

// The collectives on a mesh of GPUs (tle.GPUMesh): one call per
// collective, each buffer list holding one buffer per rank this process
// drives; the inputs the kernels read remotely are symmetric
// (GPUMesh.AllocSymmetric).

// DefaultBlock is the elements a program moves on the GPU.
const DefaultBlock = 1024

// Options of the GPU collectives.
type Options struct {
	// Block is the elements per program, a power of two from 32 to 8192;
	// 0: DefaultBlock.
	Block int
}

func (o Options) block() (int, error) {
	b := o.Block
	if b == 0 {
		b = DefaultBlock
	}
	if b < 32 || b > 8192 || b&(b-1) != 0 {
		return 0, fmt.Errorf("collectives: block %d: want a power of two from 32 to 8192", o.Block)
	}
	return b, nil
}

// Algorithms of AllReduce.
const (
	OneShot = "oneshot"
	TwoShot = "twoshot"
)

// Launch is one collective's kernel launch: what Plan decides from the
// sizes alone.
type Launch struct {
	File, Kernel string
	Defines      map[string]string
	Grid         [3]int
	N            int // the kernel's n
}

// Plan is the launch of collective op ("allreduce-oneshot",
// "allreduce-twoshot", "allgather", "reducescatter") on world ranks, each
// with n input elements of dtype: which kernel, its bindings and its
// grid. It checks what the kernels need: n >= 1 and fits an i32 (with
// all-gather's world*n), n a multiple of world where the data is split.
func Plan(op string, world, n int, dtype string, o Options) (Launch, error) {
	block, err := o.block()
	if err != nil {
		return Launch{}, err
	}
	if world < 1 {
		return Launch{}, fmt.Errorf("collectives: %d devices", world)
	}
	if n < 1 || n > 1<<31-1 {
		return Launch{}, fmt.Errorf("collectives: %s of %d elements: want 1 to 2^31-1", op, n)
	}
	l := Launch{N: n, Defines: map[string]string{"WORLD": fmt.Sprint(world), "BLOCK": fmt.Sprint(block), "T": dtype}}
	per := n // the elements a rank's programs cover
	switch op {
	case "allreduce-oneshot":
		l.File, l.Kernel = "all_reduce.tle", "all_reduce_oneshot"
	case "allreduce-twoshot", "reducescatter":
		if n%world != 0 {
			return Launch{}, fmt.Errorf("collectives: %s of %d elements on %d devices: n must be a multiple of the devices", op, n, world)
		}
		l.File, l.Kernel = "all_reduce.tle", "all_reduce_twoshot"
		if op == "reducescatter" {
			l.File, l.Kernel = "reduce_scatter.tle", "reduce_scatter"
		}
		per = n / world
	case "allgather":
		if world*n > 1<<31-1 {
			return Launch{}, fmt.Errorf("collectives: all-gather of %d elements on %d devices: the output's %d elements overflow i32", n, world, world*n)
		}
		l.File, l.Kernel = "all_gather.tle", "all_gather"
	default:
		return Launch{}, fmt.Errorf("collectives: no collective %q (allreduce-oneshot, allreduce-twoshot, allgather, reducescatter)", op)
	}
	l.Grid = [3]int{(per + block - 1) / block, 1, 1}
	return l, nil
}

var (
	kernelsMu sync.Mutex
	kernels   = map[string]*tle.Kernel{}
)

func kernelOf(file, name string) (*tle.Kernel, error) {
	kernelsMu.Lock()
	defer kernelsMu.Unlock()
	if k, ok := kernels[name]; ok {
		return k, nil
	}
	p, err := tle.Load(FS, file)
	if err != nil {
		return nil, err
	}
	k, err := p.Kernel(name)
	if err != nil {
		return nil, err
	}
	kernels[name] = k
	return k, nil
}

func dtypeOf(bufs ...[]*tle.DeviceBuffer) (tle.DType, error) {
	var dt tle.DType
	first := true
	for _, bs := range bufs {
		for _, b := range bs {
			if b == nil {
				return dt, fmt.Errorf("collectives: a nil buffer")
			}
			if first {
				dt, first = b.DType, false
			} else if b.DType != dt {
				return dt, fmt.Errorf("collectives: buffers of %s and %s", dt, b.DType)
			}
		}
	}
	return dt, nil
}

func runGPU(m *tle.GPUMesh, op string, n int, o Options, bufs ...[]*tle.DeviceBuffer) error {
	dt, err := dtypeOf(bufs...)
	if err != nil {
		return err
	}
	l, err := Plan(op, m.World(), n, dt.String(), o)
	if err != nil {
		return err
	}
	k, err := kernelOf(l.File, l.Kernel)
	if err != nil {
		return err
	}
	args := make([][]any, len(m.Ranks()))
	for i := range args {
		for _, b := range bufs {
			if len(b) != len(args) {
				return fmt.Errorf("collectives: %s: %d buffers for %d local ranks", op, len(b), len(args))
			}
			args[i] = append(args[i], b[i])
		}
		args[i] = append(args[i], int32(l.N))
	}
	return m.Launch(k, tle.CompileOptions{Defines: l.Defines}, l.Grid, args)
}

// AllReduce sums every rank's x (symmetric, n elements) into out (n
// elements) on every rank, with algo OneShot (each rank reads every
// peer's x) or TwoShot (reduce-scatter into the symmetric scratch, then
// all-gather; n a multiple of World). It does not wait.
func AllReduce(m *tle.GPUMesh, algo string, x, scratch, out []*tle.DeviceBuffer, o Options) error {
	if len(x) == 0 || x[0] == nil {
		return fmt.Errorf("collectives: AllReduce of no buffers")
	}
	switch algo {
	case OneShot:
		return runGPU(m, "allreduce-oneshot", x[0].N, o, x, out)
	case TwoShot:
		return runGPU(m, "allreduce-twoshot", x[0].N, o, x, scratch, out)
	}
	return fmt.Errorf("collectives: all-reduce algorithm %q: want %s or %s", algo, OneShot, TwoShot)
}

// AllGather gathers every rank's x (symmetric, n elements) into out
// (World*n elements, rank order) on every rank.
func AllGather(m *tle.GPUMesh, x, out []*tle.DeviceBuffer, o Options) error {
	if len(x) == 0 || x[0] == nil {
		return fmt.Errorf("collectives: AllGather of no buffers")
	}
	return runGPU(m, "allgather", x[0].N, o, x, out)
}

// ReduceScatter gives rank r the sum over ranks of block r of x
// (symmetric, n elements, n a multiple of World) in out (n/World
// elements).
func ReduceScatter(m *tle.GPUMesh, x, out []*tle.DeviceBuffer, o Options) error {
	if len(x) == 0 || x[0] == nil {
		return fmt.Errorf("collectives: ReduceScatter of no buffers")
	}
	return runGPU(m, "reducescatter", x[0].N, o, x, out)
}

package tle

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tlego/tle/runtime/interp"
)

// SimMesh is n simulated devices on the interpreter, for kernels of a mesh
// across devices (device_mesh(device: n); docs/distributed.md): Kernel.
// RunDevices runs the grid on every one of them at once, in one process.
type SimMesh struct{ n int }

// SimDevices is a mesh of n simulated devices (n >= 1).
func SimDevices(n int) SimMesh { return SimMesh{n: n} }

// Len is the number of devices.
func (s SimMesh) Len() int { return s.n }

// Name says what the devices are.
func (s SimMesh) Name() string { return fmt.Sprintf("%d simulated devices (interpreter)", s.n) }

// RunDevices compiles the kernel with opts and runs it over grid on every
// device of mesh at once: args[d] is device d's arguments, as RunContext
// takes them (each device its own tensors). The pointer parameters named
// in symmetric are symmetric allocations: device d's tensor for one is its
// part, and every device's must have one length; remote(ptr, rank, mesh)
// reaches rank's part, and signal flags live in them. Written tensors are
// copied back on every device. A race between devices, a deadlock across
// them (a barrier or a signal_wait some rank never satisfies) and every
// error Run reports are errors naming the device and the .tle line.
func (k *Kernel) RunDevices(ctx context.Context, mesh SimMesh, grid [3]int, opts CompileOptions, args []map[string]any, symmetric ...string) error {
	if k == nil {
		return errors.New("tle: RunDevices on a nil *tle.Kernel")
	}
	if ctx == nil {
		return fmt.Errorf("tle: running %s: the context is nil (use context.Background())", k.Name())
	}
	if mesh.n < 1 || len(args) != mesh.n {
		return fmt.Errorf("tle: running %s on %d devices with %d argument maps (one per device)", k.Name(), mesh.n, len(args))
	}
	if err := checkGrid(grid); err != nil {
		return err
	}
	if err := opts.validate(); err != nil {
		return err
	}
	bound := make([][]*boundArg, mesh.n)
	var div16 []string
	owner := map[*Tensor]int{}
	for d := range args {
		b, err := k.bindArgs(args[d], opts.Defines)
		if err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
		if name, ok := hasTable(b); ok {
			return fmt.Errorf("tle: running %s on a mesh: argument %s: a PointerTable is for one device (Run)", k.Name(), name)
		}
		for _, a := range b {
			if o, ok := owner[a.tensor]; ok && a.tensor != nil && o != d {
				return fmt.Errorf("tle: running %s: argument %s of device %d is device %d's tensor too; each device needs its own buffer (or a symmetric allocation)", k.Name(), a.param.name, d, o)
			}
			owner[a.tensor] = d
		}
		bound[d] = b
		if d == 0 {
			div16 = div16Of(b)
		} else { // a specialisation every device's arguments satisfy
			div16 = slices.DeleteFunc(div16, func(n string) bool { return !slices.Contains(div16Of(b), n) })
		}
	}
	opts.Div16 = div16
	m, err := k.compiled(opts)
	if err != nil {
		return err
	}
	iargs := make([][]interp.Arg, mesh.n)
	bufs := make([][]*interp.Buffer, mesh.n)
	for d := range bound {
		if iargs[d], bufs[d], err = interpArgs(bound[d]); err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
	}
	if err := symmetricArgs(bound[0], bufs, symmetric); err != nil {
		return fmt.Errorf("tle: running %s: %w", k.Name(), err)
	}
	if ctx.Err() != nil {
		return notLaunched(k.Name(), ctx)
	}
	if err := interp.LaunchDevices(m, k.Name(), grid, iargs, interp.Options{Context: ctx}); err != nil {
		return err
	}
	for d := range bound {
		if err := k.copyBack(opts, bound[d], bufs[d]); err != nil {
			return err
		}
	}
	return nil
}

// symmetricArgs makes the devices' buffers of each parameter named in
// names one symmetric allocation.
func symmetricArgs(params []*boundArg, bufs [][]*interp.Buffer, names []string) error {
	for _, name := range names {
		i := slices.IndexFunc(params, func(a *boundArg) bool { return a.param.name == name })
		if i < 0 || params[i].param.kind != pointerParam {
			return fmt.Errorf("symmetric %q is not a pointer parameter", name)
		}
		parts := make([]*interp.Buffer, len(bufs))
		for d := range bufs {
			parts[d] = bufs[d][i]
		}
		if _, err := interp.NewSymmetric(parts...); err != nil {
			return fmt.Errorf("symmetric %s: %w", name, err)
		}
	}
	return nil
}

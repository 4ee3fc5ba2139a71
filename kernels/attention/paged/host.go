package paged

import (
	"fmt"
	"io/fs"
	"sync"

	"github.com/tlego/tle/tle"
)

// Kernels is one .tle file of an embedded file system, parsed and checked
// once per process on first use, and its kernels by name (each kernel
// parsed once, so that its compiled forms are cached once).
type Kernels struct {
	fsys    fs.FS
	name    string
	once    sync.Once
	err     error
	kernels map[string]*tle.Kernel
}

// NewKernels is the file name of fsys, loaded on first use.
func NewKernels(fsys fs.FS, name string) *Kernels { return &Kernels{fsys: fsys, name: name} }

// Kernel is the file's kernel name.
func (f *Kernels) Kernel(name string) (*tle.Kernel, error) {
	f.once.Do(func() {
		prog, err := tle.Load(f.fsys, f.name)
		if err != nil {
			f.err = err
			return
		}
		f.kernels = map[string]*tle.Kernel{}
		for _, n := range prog.Kernels() {
			k, err := prog.Kernel(n)
			if err != nil {
				f.err = err
				return
			}
			f.kernels[n] = k
		}
	})
	if f.err != nil {
		return nil, f.err
	}
	k, ok := f.kernels[name]
	if !ok {
		return nil, fmt.Errorf("attention: no kernel %s in %s", name, f.name)
	}
	return k, nil
}

// Floats is v as float64s, the form a tle.Tensor holds.
func Floats(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// Clone is a copy of t (a launch may write its arguments).
func Clone(t *tle.Tensor) *tle.Tensor {
	return &tle.Tensor{Shape: append([]int(nil), t.Shape...), Data: append([]float64(nil), t.Data...)}
}

// Package registry is the table of ops: named kernels with a host side that
// take tensors (npy arrays) and scalar parameters and return tensors, so
// that `tlec op` can run any of them on saved data. Op packages register
// themselves in init; package kernels imports every one of them.
package registry

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// ArgError is a bad argument of an op or of the Go API behind it: Arg
// names it (a tensor, a parameter, a params.json key), Msg says what is
// wrong. Op packages return it for every validation error, so `tlec op`
// and callers can tell which argument to fix.
type ArgError struct {
	Arg string
	Msg string
}

func (e *ArgError) Error() string { return e.Arg + ": " + e.Msg }

// ArgErr is an *ArgError for arg with a formatted message.
func ArgErr(arg, format string, args ...any) error {
	return &ArgError{Arg: arg, Msg: fmt.Sprintf(format, args...)}
}

// Arg describes one input, parameter or output of an op.
type Arg struct {
	Name     string
	Optional bool
	Doc      string
}

// Op is a registered operation.
type Op interface {
	// Name is the op's name, as `tlec op NAME` takes it.
	Name() string
	// Doc is a one-line summary.
	Doc() string
	// Inputs are the tensors Run reads (as NAME.npy on the command line).
	Inputs() []Arg
	// Params are the scalars Run reads (params.json on the command line).
	Params() []Arg
	// Outputs are the tensors Run returns.
	Outputs() []Arg
	// Run validates every input and parameter first (an error names the
	// argument), then runs on dev and returns the outputs by name.
	Run(dev tle.Device, in map[string]*npy.Array, params map[string]any) (map[string]*npy.Array, error)
}

var (
	mu  sync.RWMutex
	ops = map[string]Op{}
)

// Register adds an op; a second op of the same name panics.
func Register(op Op) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := ops[op.Name()]; dup {
		panic(fmt.Sprintf("registry: op %s registered twice", op.Name()))
	}
	ops[op.Name()] = op
}

// Lookup finds an op by name.
func Lookup(name string) (Op, bool) {
	mu.RLock()
	defer mu.RUnlock()
	op, ok := ops[name]
	return op, ok
}

// List returns every op, sorted by name.
func List() []Op {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Op, 0, len(ops))
	for _, op := range ops {
		out = append(out, op)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// F32 is a tensor as the f32 .npy array an op returns.
func F32(t *tle.Tensor) *npy.Array {
	f := make([]float32, len(t.Data))
	for i, x := range t.Data {
		f[i] = float32(x)
	}
	return npy.Float32(t.Shape, f)
}

// CheckValues checks that every value of the tensor name is finite and
// stays finite in dt, the dtype the kernel reads it as (1e39 is finite in
// an .npy file and +Inf in bf16): a NaN or an infinity in an input would
// come out as NaN outputs with no error. The error names the tensor and
// the first bad index.
func CheckValues(name string, data []float64, dt tle.DType) error {
	for i, x := range data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ArgErr(name, "element %d is %v; inputs must be finite", i, x)
		}
		if r := dt.Round(x); math.IsInf(r, 0) || math.IsNaN(r) {
			return ArgErr(name, "element %d = %g does not fit %s (it would be %v there); inputs must be finite in the dtype the kernel reads", i, x, dt, r)
		}
	}
	return nil
}

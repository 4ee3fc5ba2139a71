package kda_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/tlego/tle/kernels/kda"
	"github.com/tlego/tle/tle"
)

// tensor is a tensor of the given shape with values from gen.
func tensor(gen func() float64, shape ...int) *tle.Tensor {
	t := tle.NewTensor(shape...)
	for i := range t.Data {
		t.Data[i] = gen()
	}
	return t
}

// Two sequences of 20 and 13 tokens (varlen), 2 heads, K = V = 32, an
// initial state, on the CPU interpreter (a *tle.GPU runs the same kernels).
func ExampleForward() {
	r := rand.New(rand.NewPCG(1, 2))
	randn, unit := r.NormFloat64, r.Float64
	const T, H, K, V = 33, 2, 32, 32
	in := &kda.Inputs{
		Q: tensor(randn, 1, T, H, K), K: tensor(randn, 1, T, H, K), V: tensor(randn, 1, T, H, V),
		G: tensor(randn, 1, T, H, K), Beta: tensor(randn, 1, T, H),
		ALog: tensor(unit, H), DtBias: tensor(unit, H, K),
		H0:        tensor(randn, 2, H, V, K),
		CuSeqlens: []int64{0, 20, 33},
	}
	p := kda.Params{Scale: kda.DefaultScale(K), LowerBound: -5, StateDType: kda.StateF32, FinalState: true}
	out, err := kda.Forward(tle.CPU(), in, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("o", out.O.Shape, "final state", out.HT.Shape)
	// Output: o [1 33 2 32] final state [2 2 32 32]
}

// Bad arguments are reported by name before anything runs.
func ExampleValidate() {
	q := tle.NewTensor(1, 16, 2, 32)
	in := &kda.Inputs{Q: q, K: q, V: q, G: q, Beta: tle.NewTensor(1, 16, 2), ALog: tle.NewTensor(2), DtBias: tle.NewTensor(2, 32),
		CuSeqlens: []int64{0, 9, 4, 16}}
	_, err := kda.Validate(in, kda.Params{LowerBound: -5, StateDType: kda.StateF32})
	fmt.Println(err)
	// Output: cu_seqlens: must be non-decreasing: cu_seqlens[2] = 4 < cu_seqlens[1] = 9
}

// On a GPU, a Runner keeps the workspace and launches between calls: after
// the first call of a size, Forward (host tensors in and out) and Launch
// (tensors already in device memory, see DeviceTensors) allocate no device
// memory. (Compiled here, run only where there is a GPU.)
func ExampleRunner() {
	g, err := tle.OpenGPU()
	if err != nil {
		fmt.Println("no GPU:", err)
		return
	}
	r := kda.NewRunner(g)
	defer r.Close()
	gen := rand.New(rand.NewPCG(3, 4)).NormFloat64
	const T, H, K, V = 4096, 8, 128, 128
	in := &kda.Inputs{
		Q: tensor(gen, 1, T, H, K), K: tensor(gen, 1, T, H, K), V: tensor(gen, 1, T, H, V),
		G: tensor(gen, 1, T, H, K), Beta: tensor(gen, 1, T, H),
		ALog: tensor(gen, H), DtBias: tensor(gen, H, K),
	}
	p := kda.Params{Scale: kda.DefaultScale(K), LowerBound: -5, StateDType: kda.StateF32, FinalState: true}
	for range 3 {
		if _, err := r.Forward(in, p); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("device allocations:", r.Allocs)
}

package tle_test

import (
	"context"
	"fmt"

	"github.com/tlego/tle/tle"
)

// A kernel compiled from source and run on the interpreter; tle.CUDA()
// would run it on the GPU instead.
func ExampleKernel_Run() {
	prog, err := tle.Parse("scale.tle", []byte(`
kernel scale(x *f32, out *f32, n i32, s f32, BLOCK const i32) {
    offs := program_id(0)*BLOCK + arange(0, BLOCK)
    m := offs < n
    store(out + offs, load(x + offs, mask: m, other: 0) * s, mask: m)
}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	k, _ := prog.Kernel("scale")
	x := &tle.Tensor{Shape: []int{5}, Data: []float64{1, 2, 3, 4, 5}}
	out := tle.NewTensor(5)
	err = k.Run(tle.CPU(), [3]int{2, 1, 1}, tle.CompileOptions{Defines: map[string]string{"BLOCK": "4"}},
		map[string]any{"x": x, "out": out, "n": 5, "s": 0.5})
	fmt.Println(out.Data, err)
	// Output: [0.5 1 1.5 2 2.5] <nil>
}

// Errors name the file, line and column, with the source line and a caret.
func ExampleParse_errors() {
	_, err := tle.Parse("bad.tle", []byte(`kernel k(x *f32) {
    store(x, undefined_name)
}
`))
	fmt.Println(err)
	// Output: bad.tle:2:14: error: undefined: undefined_name
}

// A kernel's tune block (docs/language.md, "Tuning spaces"): on the
// interpreter the tuner chooses the default, says so, and the kernel runs
// with it.
func ExampleKernel_Tune() {
	prog, err := tle.Parse("scale.tle", []byte(`
kernel scale(x *f32, out *f32, n i32, B const i32, U const i32) {
    offs := program_id(0)*B + arange(0, B)
    m := offs < n
    v := load(x + offs, mask: m, other: 0)
    store(out + offs, v*2.0 + cast(U, f32), mask: m)
}

tune scale {
    key(n: pow2)
    grid(cdiv(n, B))
    config wide(B: 1024, warps: 8)
    space(B: [128, 256, 512], warps: [2, 4])
    where B/32 >= warps
    default(B: 256, U: 0)
}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	k, _ := prog.Kernel("scale")
	n := 1000
	x, out := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	args := map[string]any{"x": x, "out": out, "n": n}
	res, err := k.Tune(context.Background(), tle.CPU(), args, tle.TuneOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	space, _ := k.TuneSpace()
	grid, _ := space.Grid(map[string]int64{"n": int64(n)}, res.Winner)
	err = k.Run(tle.CPU(), grid, res.Winner.Options(tle.CompileOptions{}), args)
	fmt.Println(len(space.Configs), "configurations; bucket", res.Bucket)
	fmt.Println(res.Winner.ID(), "-", res.Source)
	fmt.Println(grid, out[999], err)
	// Output:
	// 8 configurations; bucket n=1024
	// B=256,U=0 - default: the interpreter is not tuned (its times say nothing of a GPU's)
	// [4 1 1] 1998 <nil>
}

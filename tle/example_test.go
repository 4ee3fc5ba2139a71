package tle_test

import (
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

// Command plainloops is the plain-Go side of the interpreter's whole-process
// comparison (docs/perf.md, "The interpreter (this machine)"): the work of
// `tlec run kernels/tutorials/vector_add.tle` and `layer_norm.tle` with
// zeros: inputs, as single-threaded Go loops over float32 slices, so that
// `/usr/bin/time -v` can set the interpreter's time and peak memory beside
// a Go program's doing the same.
//
//	go run ./tools/plainloops vector_add 16777216
//	go run ./tools/plainloops layer_norm 2048 4096
//
// The inputs are zeros, made as tlec run's zeros: makes them; every output
// element is computed and stored, and a checksum is printed so that the
// loops cannot be optimised away.
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: plainloops vector_add N | layer_norm ROWS COLS")
		os.Exit(2)
	}
	arg := func(i int) int {
		n, err := strconv.Atoi(os.Args[i])
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "plainloops: %q is not a positive integer\n", os.Args[i])
			os.Exit(2)
		}
		return n
	}
	var out []float32
	switch os.Args[1] {
	case "vector_add":
		n := arg(2)
		x, y := make([]float32, n), make([]float32, n)
		out = make([]float32, n)
		for i := range out {
			out[i] = x[i] + y[i]
		}
	case "layer_norm":
		if len(os.Args) < 4 {
			fmt.Fprintln(os.Stderr, "usage: plainloops layer_norm ROWS COLS")
			os.Exit(2)
		}
		rows, cols := arg(2), arg(3)
		x, w, b := make([]float32, rows*cols), make([]float32, cols), make([]float32, cols)
		out = make([]float32, rows*cols)
		const eps = 1e-5
		for r := 0; r < rows; r++ {
			xr, or := x[r*cols:(r+1)*cols], out[r*cols:(r+1)*cols]
			var sum float32
			for _, v := range xr {
				sum += v
			}
			mean := sum / float32(cols)
			var ss float32
			for _, v := range xr {
				d := v - mean
				ss += d * d
			}
			rstd := float32(1 / math.Sqrt(float64(ss/float32(cols)+eps)))
			for c, v := range xr {
				or[c] = (v-mean)*rstd*w[c] + b[c]
			}
		}
	default:
		fmt.Fprintf(os.Stderr, "plainloops: unknown workload %q (vector_add, layer_norm)\n", os.Args[1])
		os.Exit(2)
	}
	var sum float64
	for _, v := range out {
		sum += float64(v)
	}
	fmt.Printf("%s: %d elements, sum %g\n", os.Args[1], len(out), sum)
}

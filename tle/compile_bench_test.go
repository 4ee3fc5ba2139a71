package tle_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/kernels/tutorials"
	. "github.com/tlego/tle/tle"
)

// BenchmarkCompileMatmulToLLVM measures the Go part of compiling the
// tutorial matmul: parse, check, specialise, lower, the pass pipeline, the
// GPU passes (layouts, shared memory) and LLVM IR text. llc / libNVVM are
// not included. Goal: under 20 ms.
func BenchmarkCompileMatmulToLLVM(b *testing.B) {
	src, err := tutorials.FS.ReadFile("matmul.tle")
	if err != nil {
		b.Fatal(err)
	}
	opts := CompileOptions{Defines: map[string]string{"BM": "128", "BN": "128", "BK": "32"}}
	for b.Loop() {
		prog, err := Parse("matmul.tle", src)
		if err != nil {
			b.Fatal(err)
		}
		k, _ := prog.Kernel("matmul")
		m, err := k.IR(opts)
		if err != nil {
			b.Fatal(err)
		}
		if err := nvptx.Prepare(m, 4); err != nil {
			b.Fatal(err)
		}
		res, err := nvptx.EmitLLVM(m, nvptx.Options{NumWarps: 4})
		if err != nil || len(res.LLVMIR) == 0 {
			b.Fatal(err)
		}
	}
}

// generatedKernel is a kernel of n straight-line statements between a load
// and a store, cycling through five element-wise forms (two with a
// reduction): the compiler's size scaling, which layout assignment and
// shared-memory allocation must keep linear.
func generatedKernel(n int) string {
	forms := []string{"a = a*1.5 + 0.25", "a = exp(a - max(a, axis: 0))", "a = where(m, a - sum(a, axis: 0) / 128.0, 0.0)",
		"a = a / (1.0 + abs(a))", "a = rsqrt(a*a + 1.0) * b"}
	var s strings.Builder
	s.WriteString("kernel gen(x *f32, y *f32) {\n    offs := arange(0, 128)\n    m := offs < 100\n    a := load(x + offs)\n    b := a\n")
	for i := range n {
		s.WriteString("    " + forms[i%len(forms)] + "\n")
	}
	s.WriteString("    store(y + offs, a)\n}\n")
	return s.String()
}

// BenchmarkCompileGenerated compiles generatedKernel to LLVM IR (the GPU
// passes included, no toolchain) at 500, 2,000 and 5,000 statements:
//
//	go test -run XXX -bench CompileGenerated -benchtime 3x ./tle
func BenchmarkCompileGenerated(b *testing.B) {
	for _, n := range []int{500, 2000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			prog, err := Parse("gen.tle", []byte(generatedKernel(n)))
			if err != nil {
				b.Fatal(err)
			}
			k, _ := prog.Kernel("gen")
			for b.Loop() {
				if _, err := k.Build(CompileOptions{}, GPUOptions{}, "ll"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The generated kernel compiles at 5,000 statements (2,000 reductions,
// more scratch than the target holds apart).
func TestGeneratedKernelCompiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("about a second")
	}
	prog, err := Parse("gen.tle", []byte(generatedKernel(5000)))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := prog.Kernel("gen")
	if _, err := k.Build(CompileOptions{}, GPUOptions{}, "ll"); err != nil {
		t.Fatal(err)
	}
}

package tle_test

import (
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

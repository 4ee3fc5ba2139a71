package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tlego/tle/tle"
)

// buildWithin builds every kernel of src for the GPU down to LLVM IR and
// fails t unless each build ends (with a result or a user error, not an
// internal one) within limit.
func buildWithin(t *testing.T, src string, defines map[string]string, limit time.Duration) {
	t.Helper()
	prog, err := tle.Parse("regress.tle", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range prog.Kernels() {
		k, err := prog.Kernel(name)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := k.Build(tle.CompileOptions{Defines: defines}, tle.GPUOptions{}, "ll")
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				noInternal(t, name, err.Error())
			}
		case <-time.After(limit):
			t.Fatalf("building %s took more than %v", name, limit)
		}
	}
}

// A nest of 64 loops, each carrying a tile, used to take the layout pass
// 2^64 walks of the innermost body (each for walked its body twice): found
// by the mutation driver, a hang of tlec build on a 30-deep nest.
func TestDeepLoopNestCompiles(t *testing.T) {
	const depth = 64
	var b strings.Builder
	b.WriteString("kernel nest(x *f32) {\n    acc := zeros([16], f32)\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&b, "for i%d := range 2 {\n", i)
	}
	b.WriteString("acc = acc + load(x + arange(0, 16))\n")
	b.WriteString(strings.Repeat("}\n", depth))
	b.WriteString("store(x + arange(0, 16), acc)\n}\n")
	buildWithin(t, b.String(), nil, 20*time.Second)
}

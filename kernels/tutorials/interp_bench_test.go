package tutorials

import (
	"testing"

	"github.com/tlego/tle/tle"
)

// BenchmarkLayerNormInterp: layer_norm.tle over 2048 x 4096 f32 (BLOCK
// 4096) on the interpreter, the arrays as tlec run's zeros: makes them.
func BenchmarkLayerNormInterp(b *testing.B) {
	const rows, cols = 2048, 4096
	prog, err := tle.Load(FS, "layer_norm.tle")
	if err != nil {
		b.Fatal(err)
	}
	k, err := prog.Kernel("layer_norm")
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"x": tle.NewArray[float32](rows, cols), "w": tle.NewArray[float32](cols),
		"b": tle.NewArray[float32](cols), "out": tle.NewArray[float32](rows, cols), "n_cols": cols, "eps": 1e-5}
	opts := tle.CompileOptions{Defines: map[string]string{"BLOCK": "4096"}}
	if err := k.Run(tle.CPU(), [3]int{rows, 1, 1}, opts, args); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := k.Run(tle.CPU(), [3]int{rows, 1, 1}, opts, args); err != nil {
			b.Fatal(err)
		}
	}
}

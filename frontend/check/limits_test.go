package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTutorialTileLimit: the tutorial kernels with a BLOCK parameter are
// refused by the checker, before any lowering, at BLOCK = 2^24 (which used
// to build for minutes with no message), and still check at 2^20.
func TestTutorialTileLimit(t *testing.T) {
	for _, name := range []string{"vector_add.tle", "softmax.tle", "layer_norm.tle"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "..", "kernels", "tutorials", name))
			require.NoError(t, err)
			f := parse(t, name, src)
			_, errs := Check(f, Config{Defines: map[string]string{"BLOCK": "16777216"}})
			require.Len(t, errs, 1, "%s", format(errs))
			assert.Equal(t, "tile [16777216]i32 of 16777216 elements (arange(0, BLOCK) with BLOCK = 16777216) is larger than the limit of 1048576 (2^20)", errs[0].Msg)
			assert.Equal(t, "arange(0, BLOCK)", string(src[errs[0].Pos:errs[0].End]))

			_, errs = Check(f, Config{Defines: map[string]string{"BLOCK": "1048576"}})
			assert.Empty(t, errs, "%s", format(errs))
		})
	}
}

func TestKnownElements(t *testing.T) {
	n, all := knownElements(Shape{ConstDim(1024), ConstDim(1024)})
	assert.True(t, all)
	assert.Equal(t, "1048576", n.String())
	n, all = knownElements(Shape{SymDim("K"), ConstDim(1 << 21)})
	assert.False(t, all)
	assert.Equal(t, "2097152", n.String())
	n, _ = knownElements(Shape{ConstDim(1 << 32), ConstDim(1 << 32), ConstDim(1 << 32)})
	assert.Equal(t, "79228162514264337593543950336", n.String())
}

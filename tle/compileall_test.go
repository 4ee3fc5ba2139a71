package tle

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/backend/nvptx"
)

// CompileAll gives each specialisation the Binary Compile gives it, with
// PTX equal but for comments, over kernels that exercise what the merge
// renames: shared memory, inline assembly, atomics, TMA, tensor maps built
// on the device (PTX 8.3, its own llc run), two bindings of one kernel and
// two kernels of one file.
func TestCompileAllMatchesCompile(t *testing.T) {
	llcOrSkip(t)
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	cases := []struct {
		file, kernel string
		defs         map[string]string
		warps        int
	}{
		{"softmax", "softmax", map[string]string{"BLOCK": "128"}, 0},
		{"softmax", "softmax", map[string]string{"BLOCK": "512"}, 0},
		{"matmul", "matmul", map[string]string{"BM": "64", "BN": "32", "BK": "32"}, 0},
		{"matmul_tma", "matmul_tma", map[string]string{"BM": "128", "BN": "256", "BK": "64", "S": "3", "LAG": "1"}, 0},
		{"matmul_make_desc", "matmul_make_desc", map[string]string{"BM": "128", "BN": "128", "BK": "64", "S": "3", "LAG": "1"}, 0},
		{"compact", "compact", map[string]string{"N": "256"}, 0},
		{"compact", "compact_bits", map[string]string{"N": "256"}, 0},
		{"seeded_dropout", "seeded_dropout", map[string]string{"BLOCK": "1024"}, 0},
		{"pipe_scale", "pipe_scale", map[string]string{"ROWS": "8", "ROW": "256", "CAP": "2"}, 0},
	}
	var specs []Spec
	for _, c := range cases {
		prog, err := LoadFile("../kernels/tutorials/" + c.file + ".tle")
		require.NoError(t, err)
		k, err := prog.Kernel(c.kernel)
		require.NoError(t, err)
		specs = append(specs, Spec{k, CompileOptions{Defines: c.defs, NumWarps: c.warps}})
	}
	// "auto" picks the llc that "llc" names, under another cache key, so
	// neither call finds the other's Binary in the cache
	all, err := CompileAll(specs, GPUOptions{Toolchain: "auto"})
	require.NoError(t, err)
	require.Len(t, all, len(specs))
	for i, s := range specs {
		one, err := s.Kernel.Compile(s.Options, GPUOptions{Toolchain: "llc"})
		require.NoError(t, err)
		what := cases[i].kernel + " " + bindingKey(s.Options)
		require.Equal(t, nvptx.WithoutComments(one.PTX), nvptx.WithoutComments(all[i].PTX), what)
		require.Equal(t, one.LLVMIR, all[i].LLVMIR, what)
		require.Equal(t, one.NumWarps, all[i].NumWarps, what)
		require.Equal(t, one.SmemBytes, all[i].SmemBytes, what)
		require.Equal(t, one.Params, all[i].Params, what)
		require.Equal(t, one.Descs, all[i].Descs, what)
		require.Equal(t, one.ScratchBytes, all[i].ScratchBytes, what)
		require.Contains(t, all[i].Toolchain, "llc", what)
	}
	// a second call finds them all in the cache
	again, err := CompileAll(specs, GPUOptions{Toolchain: "auto"})
	require.NoError(t, err)
	for i := range specs {
		require.Same(t, all[i], again[i])
	}
}

// A specialisation that does not compile is named in CompileAll's error.
func TestCompileAllNamesTheFailingSpec(t *testing.T) {
	k := tutorialKernel(t, "softmax")
	_, err := CompileAll([]Spec{{k, CompileOptions{Defines: map[string]string{"BLOCK": "128"}}}, {k, CompileOptions{}}}, GPUOptions{Toolchain: "llc"})
	require.ErrorContains(t, err, "spec 1 (softmax")
	_, err = CompileAll([]Spec{{Kernel: nil}}, GPUOptions{})
	require.ErrorContains(t, err, "spec 0")
	require.ErrorContains(t, err, "nil *tle.Kernel")
}

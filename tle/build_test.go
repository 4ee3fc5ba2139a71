package tle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/passes"
)

// A GPU build dumps after every row of the pass table, the GPU rows
// included, numbered by their place in it; the last dump is the tile IR
// the backend gets. The interpreter's pipeline stops at the tile rows.
func TestBuildDumpsEveryPass(t *testing.T) {
	k := tutorialKernel(t, "matmul")
	defines := map[string]string{"BM": "128", "BN": "128", "BK": "64"}
	dir := t.TempDir()
	art, err := k.Build(CompileOptions{Defines: defines, VerifyEach: true, DumpAfter: "all", DumpDir: dir}, GPUOptions{}, "tir")
	require.NoError(t, err)
	want := []string{passes.DumpName("matmul", 0, "input")}
	for i, p := range passes.Table {
		want = append(want, passes.DumpName("matmul", i+1, p.Name))
	}
	var got []string
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		got = append(got, e.Name())
	}
	require.Equal(t, want, got)
	last, err := os.ReadFile(filepath.Join(dir, want[len(want)-1]))
	require.NoError(t, err)
	require.Equal(t, art.TIR, string(last))

	dir = t.TempDir()
	_, err = k.IR(CompileOptions{Defines: defines, DumpAfter: "all", DumpDir: dir})
	require.NoError(t, err)
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1+indexOfPhase(passes.PhaseGPU))
}

func indexOfPhase(ph passes.Phase) int {
	for i, p := range passes.Table {
		if p.Phase == ph {
			return i
		}
	}
	return len(passes.Table)
}

// A kernel of more sequential reductions than the target's shared memory
// holds apart compiles: their scratch then shares bytes, and the backend
// orders each reduction after the last with barriers.
func TestManyReductionsCompile(t *testing.T) {
	var src strings.Builder
	src.WriteString("kernel sums(x *f32, y *f32) {\n    offs := arange(0, 128)\n    a := load(x + offs)\n")
	const n = 900 // 900 x 128 bytes of scratch: more than sm_86's 99 KiB
	for range n {
		src.WriteString("    a = a - sum(a, axis: 0) / 128.0\n")
	}
	src.WriteString("    store(y + offs, a)\n}\n")
	prog, err := Parse("sums.tle", []byte(src.String()))
	require.NoError(t, err)
	k, err := prog.Kernel("sums")
	require.NoError(t, err)
	shared, err := k.Build(CompileOptions{}, GPUOptions{Arch: "sm_86"}, "ll")
	require.NoError(t, err)
	apart, err := k.Build(CompileOptions{}, GPUOptions{Arch: "sm_90a"}, "ll")
	require.NoError(t, err)
	// apart (sm_90a holds them all), a reduction waits for its partials
	// only; sharing bytes, also for the previous reduction's reads
	nShared, nApart := strings.Count(shared.LLVMIR, "barrier"), strings.Count(apart.LLVMIR, "barrier")
	require.GreaterOrEqual(t, nApart, n)
	require.Greater(t, nShared, nApart+n/2, "shared scratch: a barrier between back-to-back reductions")
	// the launch parameters come with the LLVM IR, the PTX only at "ptx"
	require.NotNil(t, apart.Binary)
	require.Empty(t, apart.Binary.PTX)
	require.LessOrEqual(t, shared.Binary.SmemBytes, 99*1024, "sm_86's budget")
	require.Greater(t, apart.Binary.SmemBytes, shared.Binary.SmemBytes, "scratch apart takes more")
}

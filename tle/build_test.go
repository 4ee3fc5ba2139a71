package tle

import (
	"os"
	"path/filepath"
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

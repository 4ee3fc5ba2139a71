package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// TestTuneDryRunMatmulTMA is the figure: matmul_tma's space of at
// least 12 configurations, with what does not fit in shared memory pruned
// and why, without a GPU.
func TestTuneDryRunMatmulTMA(t *testing.T) {
	code, out, errOut := tlecRun("tune", "../../kernels/tutorials/matmul_tma.tle", "--kernel", "matmul_tma",
		"--arg", "M=4096", "--arg", "N=4096", "--arg", "K=4096", "--dry-run", "--json")
	require.Equal(t, 0, code, errOut)
	var res struct {
		Bucket string
		Winner struct{ Name string }
		Rows   []struct {
			Config struct{ Name string }
			Pruned string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, "M=4096,N=4096,K=4096", res.Bucket)
	assert.Equal(t, "hand", res.Winner.Name)
	assert.GreaterOrEqual(t, len(res.Rows), 12)
	pruned := 0
	for _, r := range res.Rows {
		if r.Pruned != "" {
			pruned++
			assert.Contains(t, r.Pruned, "shared memory", r.Config.Name)
		}
	}
	assert.Greater(t, pruned, 0)
	assert.Greater(t, len(res.Rows)-pruned, 12)
}

func TestTuneInterpreterSaysDefault(t *testing.T) {
	code, out, errOut := tlecRun("tune", "testdata/tune_scale.tle", "--device", "cpu",
		"--arg", "x=rand:1000", "--arg", "out=zeros:1000", "--arg", "n=1000")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "scale [n=1024] on cpu")
	assert.Contains(t, out, "chosen: default (B=256,U=0): default: the interpreter is not tuned")
	code, out, _ = tlecRun("tune", "testdata/tune_scale.tle", "--arg", "n=1000", "--dry-run")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "B=512,warps=4")
	assert.Equal(t, 1, strings.Count(out, "chosen:"))
}

func TestTunePlot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tune.svg")
	tm := func(ms float64) *tle.Timing {
		return &tle.Timing{MedianMs: ms, LoMs: ms * 0.98, HiMs: ms * 1.02, MinMs: ms * 0.97}
	}
	res := &tle.TuneResult{Kernel: "k", Bucket: "n=1024", Device: "fake", Rows: []tle.TuneRow{
		{Config: tle.TuneConfig{Name: "a"}, Timing: tm(1)},
		{Config: tle.TuneConfig{Name: "b"}, Timing: tm(0.5), IsWinner: true},
		{Config: tle.TuneConfig{Name: "c"}, Pruned: "build: too big"},
	}}
	f := &tuneFlags{plot: out}
	require.NoError(t, f.draw(res))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(b), "* b")
	assert.Error(t, (&tuneFlags{plot: out}).draw(&tle.TuneResult{}))
}

package main

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// tlec bench plot draws saved --json reports (the fixture of perfplot and
// a GPU run's tutorials report) as an SVG with the suite's title and case
// labels and as a PNG that decodes; a dry run, a report that is not one and
// a format that is neither are refused; --plot of a suite checks its file
// before anything runs.
func TestBenchPlot(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "decode.svg")
	code, _, errs := tlecRun("bench", "plot", "../../kernels/registry/perfplot/testdata/decode.json", "-o", svg)
	require.Equal(t, 0, code, errs)
	raw, err := os.ReadFile(svg)
	require.NoError(t, err)
	require.Contains(t, string(raw), "<svg")
	require.Contains(t, string(raw), "attn_decode on cuda:0 (NVIDIA H200)")
	require.Contains(t, string(raw), "skewed_mix  fp8q1 sq2 hnd")

	pngPath := filepath.Join(dir, "tut.png")
	code, _, errs = tlecRun("bench", "plot", "../../docs/runs/62/tutorials.json", "-o", pngPath)
	require.Equal(t, 0, code, errs)
	f, err := os.Open(pngPath)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	require.Greater(t, img.Bounds().Dy(), 500)

	code, _, errs = tlecRun("bench", "plot", "../../kernels/registry/perfplot/testdata/decode.json", "-o", filepath.Join(dir, "x.pdf"))
	require.Equal(t, 2, code)
	require.Contains(t, errs, "a plot is .svg or .png")
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"rows": 3}`), 0o644))
	code, _, errs = tlecRun("bench", "plot", bad, "-o", svg)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "not a bench report")
	code, _, errs = tlecRun("bench", "tutorials", "--dry-run", "--plot", svg)
	require.Equal(t, 2, code)
	require.Contains(t, errs, "a dry run times nothing to draw")
}

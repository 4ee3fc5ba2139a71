package perfplot

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
)

func readReport(t *testing.T, path string) registry.Report {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var r registry.Report
	require.NoError(t, json.Unmarshal(raw, &r))
	return r
}

// A plot of a fixture of suite JSON (a decode report with a floor and a
// peer, intervals on some rows): a valid SVG with the title, axis labels,
// case labels and legend; and a PNG that decodes, of the size asked for.
// TLE_PLOT_DIR keeps the pictures of the GPU runs in docs/runs to look at.
func TestPlotFixture(t *testing.T) {
	rep := readReport(t, "testdata/decode.json")
	var svg bytes.Buffer
	require.NoError(t, Write(&svg, "svg", Input{Name: "TLE-Go", Report: rep}))
	s := svg.String()
	require.True(t, strings.HasPrefix(s, "<?xml") && strings.Contains(s, "<svg") && strings.HasSuffix(strings.TrimSpace(s), "</svg>"))
	for _, want := range []string{"attn_decode on cuda:0 (NVIDIA H200)", "median time, us (log scale)", "uniform_512  bf16 sq1 nhd",
		"TLE-Go median (bars: its 95% interval)", "floor", "HPC-Ops median", "HPC-Ops / TLE-Go (geometric mean", "time ratio, log scale (above 1: TLE-Go faster)", "10 us", "1.5x"} {
		require.True(t, strings.Contains(s, want), "the SVG has no %q", want)
	}
	var pngb bytes.Buffer
	require.NoError(t, Write(&pngb, "png", Input{Name: "TLE-Go", Report: rep}, Input{Name: "rerun", Report: rep}))
	img, err := png.Decode(&pngb)
	require.NoError(t, err)
	require.Greater(t, img.Bounds().Dx(), 900)

	dry := rep
	dry.DryRun = true
	for i := range dry.Rows {
		dry.Rows[i].MedianUs = 0
	}
	require.ErrorContains(t, Write(&svg, "svg", Input{Name: "dry", Report: dry}), "dry run")
	_, err = Format("x.pdf")
	require.Error(t, err)

	if dir := os.Getenv("TLE_PLOT_DIR"); dir != "" {
		for _, f := range []string{"61/attn_decode.json", "62/tutorials.json", "61/attn_prefill.json", "62/kda_fwd.json"} {
			r := readReport(t, filepath.Join("../../../docs/runs", f))
			var b bytes.Buffer
			require.NoError(t, Write(&b, "png", Input{Name: "TLE-Go", Report: r}))
			require.NoError(t, os.WriteFile(filepath.Join(dir, strings.ReplaceAll(f, "/", "_")+".png"), b.Bytes(), 0o644))
		}
	}
}

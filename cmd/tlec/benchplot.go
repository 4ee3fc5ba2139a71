package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/kernels/registry/perfplot"
)

// maxReportBytes bounds a report read by tlec bench plot.
const maxReportBytes = 64 << 20

// writePlot draws the inputs into path (.svg or .png, written atomically).
func writePlot(path string, in ...perfplot.Input) error {
	format, err := perfplot.Format(path)
	if err != nil {
		return err
	}
	return fileio.WriteAtomic(path, 0o644, func(w io.Writer) error { return perfplot.Write(w, format, in...) })
}

// runBenchPlot is tlec bench plot REPORT.json... -o OUT: the reports
// (tlec bench SUITE --json, from this machine or a GPU host) drawn as one
// picture; the first report's rows are the x axis, each further report a
// series beside it (an A/B run).
func runBenchPlot(e *env, files []string, out string) int {
	if len(files) == 0 {
		return usageError(e, "bench plot: name one or more reports (tlec bench SUITE --json output)")
	}
	if out == "" {
		return usageError(e, "bench plot: -o OUT.svg or -o OUT.png is required")
	}
	if _, err := perfplot.Format(out); err != nil {
		return usageError(e, "bench plot: -o "+err.Error())
	}
	var in []perfplot.Input
	for _, f := range files {
		raw, err := fileio.ReadFile(f, maxReportBytes)
		if err != nil {
			fmt.Fprintf(e.stderr, "tlec bench plot: %v\n", err)
			return 1
		}
		var rep registry.Report
		if err := json.Unmarshal(raw, &rep); err != nil {
			fmt.Fprintf(e.stderr, "tlec bench plot: %s: not a bench report (tlec bench SUITE --json): %v\n", f, err)
			return 1
		}
		if rep.Suite == "" || len(rep.Rows) == 0 {
			fmt.Fprintf(e.stderr, "tlec bench plot: %s: not a bench report with rows (tlec bench SUITE --json)\n", f)
			return 1
		}
		in = append(in, perfplot.Input{Name: plotName(f, files), Report: rep})
	}
	if err := writePlot(out, in...); err != nil {
		fmt.Fprintf(e.stderr, "tlec bench plot: %v\n", err)
		return 1
	}
	fmt.Fprintf(e.stderr, "tlec bench plot: %s drawn from %s\n", out, strings.Join(files, ", "))
	return 0
}

// plotName names a report's series: TLE-Go for one report, else its
// path (its base name when those differ).
func plotName(f string, files []string) string {
	if len(files) == 1 {
		return "TLE-Go"
	}
	seen := map[string]bool{}
	for _, g := range files {
		seen[filepath.Base(g)] = true
	}
	if len(seen) == len(files) {
		return filepath.Base(f)
	}
	return f
}

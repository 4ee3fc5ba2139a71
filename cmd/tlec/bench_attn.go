package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tlego/tle/kernels/attention/decode"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/tle"
)

// attnWorkloads are the workloads --cases names (comma-separated names of
// decode.Workloads; all when empty).
func attnWorkloads(s string) ([]decode.Workload, error) {
	if s == "" {
		return decode.Workloads, nil
	}
	var out []decode.Workload
	known := append(append([]decode.Workload(nil), decode.Workloads...), decode.ExtraWorkloads...)
	for _, name := range strings.Split(s, ",") {
		found := false
		for _, w := range known {
			if w.Name == strings.TrimSpace(name) {
				out = append(out, w)
				found = true
			}
		}
		if !found {
			var all []string
			for _, w := range known {
				all = append(all, w.Name)
			}
			return nil, fmt.Errorf("--cases: no workload %q (workloads: %s)", name, strings.Join(all, ", "))
		}
	}
	return out, nil
}

func benchAttn(e *env, g *tle.GPU, b *benchFlags, wls []decode.Workload) int {
	bar := newProgressBar(e.stderr)
	res, err := decode.Bench(g, decode.BenchOptions{Warmup: b.warmup, Reps: b.reps, Workloads: wls, CTAs: b.ctas, Cluster: b.cluster, Schedule: b.schedule, Launches: b.launches, Progress: bar.update})
	bar.done()
	if err != nil {
		printError(e.stderr, "bench", err)
		return 1
	}
	if b.json {
		return printJSON(e, res)
	}
	printAttn(e.stdout, res)
	return 0
}

// printAttn prints the rows as a table.
func printAttn(out io.Writer, rows []decode.BenchResult) {
	if len(rows) == 0 {
		return
	}
	how := "a CUDA graph replay a call"
	if rows[0].Timing == "launches" {
		how = "back-to-back launches"
	}
	fmt.Fprintf(out, "attn_decode: Hkv 1, Hq 8, page 64; the whole call (decode + combine), median of %s; copy rate %.3f TB/s\n", how, rows[0].CopyTBps)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "case\tdtype\tsq\tlayout\tB\tschedule\tsplits\tcluster\tmedian us\tmin us\tK+V TB/s\tfloor us\t")
	for _, r := range rows {
		dt := r.DType
		if dt == paged.DTypeFP8 {
			dt = fmt.Sprintf("fp8 q%d", r.Quant)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%d\t%s\t%d\t%d\t%.1f\t%.1f\t%.3f\t%.1f\t\n", r.Case, dt, r.Sq, r.Layout, r.B, r.Schedule, r.Splits, r.Cluster, r.Us, r.MinUs, r.TBps, r.FloorUs)
	}
	w.Flush()
}

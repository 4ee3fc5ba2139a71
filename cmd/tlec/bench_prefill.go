package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/tlego/tle/kernels/attention"
	"github.com/tlego/tle/tle"
)

// benchPrefill runs the attn_prefill suite: issue 16's three shapes x BF16
// and FP8 (quant 0 and 1) x NHD/HND, dense causal (no block mask yet).
func benchPrefill(e *env, g *tle.GPU, b *benchFlags) int {
	bar := newProgressBar(e.stderr)
	res, err := attention.PrefillBench(g, attention.PrefillBenchOptions{Warmup: b.warmup, Reps: b.reps, Progress: bar.update})
	bar.done()
	if err != nil {
		printError(e.stderr, "bench", err)
		return 1
	}
	if b.json {
		return printJSON(e, res)
	}
	printPrefill(e.stdout, res)
	return 0
}

// printPrefill prints the rows as a table.
func printPrefill(out io.Writer, rows []attention.PrefillBenchResult) {
	fmt.Fprintln(out, "attn_prefill: B 1, Hq 32, Hkv 4, page 64, dense causal; median of back-to-back launches (CUDA events); TFLOP/s of the visible causal work")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "case\tdtype\tlayout\tmedian us\tmin us\tTFLOP/s\t")
	for _, r := range rows {
		dt := r.DType
		if dt == attention.DTypeFP8 {
			dt = fmt.Sprintf("fp8 q%d", r.Quant)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t\n", r.Case, dt, r.Layout, r.Us, r.MinUs, r.TFLOPs)
	}
	w.Flush()
}

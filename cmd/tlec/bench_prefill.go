package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tlego/tle/kernels/attention/prefill"
	"github.com/tlego/tle/tle"
)

// prefillRows are the attn_prefill rows --cases picks: those whose name
// contains one of its comma-separated parts (all when empty); a part that
// matches no row is an error.
func prefillRows(s string) ([]prefill.BenchRow, error) {
	all := prefill.BenchRows()
	if s == "" {
		return all, nil
	}
	parts := strings.Split(s, ",")
	hit := make([]bool, len(parts))
	var out []prefill.BenchRow
	for _, r := range all {
		take := false
		for i, p := range parts {
			if p = strings.TrimSpace(p); p != "" && strings.Contains(r.Name, p) {
				hit[i], take = true, true
			}
		}
		if take {
			out = append(out, r)
		}
	}
	for i, p := range parts {
		if !hit[i] {
			return nil, fmt.Errorf("--cases: no attn_prefill row's name contains %q (names like prefill_fp8_q0_masked_nhd/512x4096, prefill_kvcache_bf16_hnd/127x127, prefill_bf16_nocache/8192x8192)", p)
		}
	}
	return out, nil
}

// benchPrefill runs the attn_prefill suite on g (nil with --dry-run: the
// rows' names, mask densities and FLOP counts, nothing timed).
func benchPrefill(e *env, g *tle.GPU, b *benchFlags, rows []prefill.BenchRow) int {
	var res []prefill.BenchResult
	code := 0
	if g == nil {
		res = prefill.BenchDry(rows, b.masks)
	} else {
		bar := newProgressBar(e.stderr)
		var err error
		res, err = prefill.Bench(g, prefill.BenchOptions{Warmup: b.warmup, Reps: b.reps, Rows: rows, KeyStep: b.keyStep, Masks: b.masks, Progress: bar.update})
		bar.done()
		if err != nil { // the other rows are still printed
			printError(e.stderr, "bench", err)
			code = 1
		}
	}
	if b.json {
		return max(printJSON(e, res), code)
	}
	printPrefill(e.stdout, res)
	return code
}

// printPrefill prints the rows as a table (times of 0, a dry run's or a
// failed row's, as -; a row's error last).
func printPrefill(out io.Writer, rows []prefill.BenchResult) {
	fmt.Fprintln(out, "attn_prefill: B 1, Hq 32, Hkv 4, page 64; median of back-to-back launches (CUDA events); TFLOP/s of the visible work (causal, mask tile on)")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "name\tmedian us\tmin us\tTFLOP/s\tmask density\tmax tiles\tGFLOP\tdense GFLOP\t\t")
	for _, r := range rows {
		us, min, tf := "-", "-", "-"
		if r.Us > 0 {
			us, min, tf = fmt.Sprintf("%.1f", r.Us), fmt.Sprintf("%.1f", r.MinUs), fmt.Sprintf("%.1f", r.TFLOPs)
		}
		dens, most := "-", "-"
		if r.Masked {
			dens, most = fmt.Sprintf("%.3f", r.MaskDensity), fmt.Sprint(r.MaxTiles)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t\n", r.Name, us, min, tf, dens, most, r.FLOPs/1e9, r.DenseFLOPs/1e9, r.Error)
	}
	w.Flush()
}

package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tlego/tle/kernels/kda"
	"github.com/tlego/tle/tle"
)

// kdaPlan is what bench kda_fwd runs, checked before a GPU is looked for:
// the configurations, the kernel parameters, and the peers' figures of
// each configuration when --peer names a file.
type kdaPlan struct {
	configs  []kda.BenchConfig
	params   kda.Params
	peerFile string
	peers    []kda.PeerFigures // one per configuration, or nil
}

// planKDA checks the kda_fwd flags and reads the peer file; nil and the
// exit code after an error (2: a bad flag, 1: a bad peer file).
func planKDA(e *env, b *benchFlags) (*kdaPlan, int) {
	if b.variant != "" {
		fmt.Fprintf(e.stderr, "tlec bench: --variant %q: kda_fwd has one pair of kernels (--prep-warps and --prep-block-k tune its preparation)\n", b.variant)
		return nil, 2
	}
	configs, err := kdaConfigs(b.configs)
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec bench: %v\n", err)
		return nil, 2
	}
	if b.state != kda.StateF32 && b.state != kda.StateBF16 {
		fmt.Fprintf(e.stderr, "tlec bench: --state %q: want f32 or bf16\n", b.state)
		return nil, 2
	}
	p := &kdaPlan{configs: configs, peerFile: b.peer, params: kda.Params{BlockV: b.blockV, Fast: b.fast, PrepWarps: b.prepWarps,
		PrepBlockK: b.prepBlockK, StateDType: b.state}}
	var ae *kda.ArgError
	if err := kda.CheckBenchParams(p.params); errors.As(err, &ae) {
		flag := map[string]string{"block_v": "--block-v", "prep_warps": "--prep-warps", "prep_block_k": "--prep-block-k"}[ae.Arg]
		fmt.Fprintf(e.stderr, "tlec bench: %s: %s\n", flag, ae.Msg)
		return nil, 2
	} else if err != nil {
		fmt.Fprintf(e.stderr, "tlec bench: %v\n", err)
		return nil, 2
	}
	if b.peer != "" {
		peers, err := kda.ReadPeers(b.peer)
		if err == nil {
			p.peers, err = peers.PeersFor(configs, b.state)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "tlec bench: --peer: %v\n", err)
			return nil, 1
		}
	}
	return p, 0
}

// kdaConfigs are the configurations --configs names (1-based indices into
// kda.BenchConfigs, comma-separated; all when empty).
func kdaConfigs(s string) ([]kda.BenchConfig, error) {
	if s == "" {
		return kda.BenchConfigs, nil
	}
	var out []kda.BenchConfig
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 1 || i > len(kda.BenchConfigs) {
			return nil, fmt.Errorf("--configs %q: want 1-based indices in [1, %d], comma-separated", s, len(kda.BenchConfigs))
		}
		out = append(out, kda.BenchConfigs[i-1])
	}
	return out, nil
}

func benchKDA(e *env, g *tle.GPU, b *benchFlags, p *kdaPlan) int {
	bar := newProgressBar(e.stderr)
	res, err := kda.Bench(g, p.configs, kda.BenchOptions{Warmup: b.warmup, Reps: b.reps, Params: p.params, Progress: bar.update})
	bar.done()
	if err != nil {
		printError(e.stderr, "bench", err)
		return 1
	}
	rows := kdaRows(res, p.peers)
	if b.json {
		return printJSON(e, rows)
	}
	printKDA(e.stdout, rows, p.peerFile)
	return 0
}

// kdaRow is one configuration's result with the peers' figures of the
// same session and the speed-ups over them (peer ms / TLE-Go ms).
type kdaRow struct {
	kda.BenchResult
	Peer       *kda.PeerFigures `json:"peer,omitempty"`
	VsFlashKDA float64          `json:"speedup_vs_flashkda,omitempty"`
	VsFLA      float64          `json:"speedup_vs_fla,omitempty"`
}

// kdaRows pairs results with peers (nil, or one per result).
func kdaRows(res []kda.BenchResult, peers []kda.PeerFigures) []kdaRow {
	rows := make([]kdaRow, len(res))
	for i, r := range res {
		rows[i].BenchResult = r
		if peers == nil {
			continue
		}
		pf := peers[i]
		rows[i].Peer = &pf
		rows[i].VsFlashKDA = pf.FlashKDAMs / r.Ms
		if pf.FLAMs > 0 {
			rows[i].VsFLA = pf.FLAMs / r.Ms
		}
	}
	return rows
}

// printKDA prints the rows as a table and, with peers, the geometric means
// of the speed-ups.
func printKDA(out io.Writer, rows []kdaRow, peerFile string) {
	if len(rows) == 0 {
		return
	}
	r0 := rows[0]
	fmt.Fprintf(out, "kda_fwd block_v %d (%d recurrence warps), %d preparation warps, prep K block %d, %s state\n",
		r0.BlockV, r0.RecWarps, r0.PrepWarps, r0.PrepBlockK, r0.State)
	peers := r0.Peer != nil
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	head := "H\tconfig\tT\tN\tmedian ms\tmin ms\tTB/s\tkernels ms\t"
	if peers {
		head += "FlashKDA ms\tFlashKDA kernels ms\tFLA ms\tvs FlashKDA\tvs FLA\t"
	}
	fmt.Fprintln(w, head)
	var flaErrs []string
	for _, r := range rows {
		var parts []string
		for _, p := range r.PartsMs {
			parts = append(parts, fmt.Sprintf("%.4f", p))
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%.4f\t%.4f\t%.3f\t%s\t", r.H, r.Tag, r.T, r.N, r.Ms, r.MinMs, r.TBps, dash(strings.Join(parts, " + ")))
		if peers {
			pf := r.Peer
			kern := "-"
			if pf.FlashKDAPrepareMs > 0 && pf.FlashKDARecurrenceMs > 0 {
				kern = fmt.Sprintf("%.4f + %.4f", pf.FlashKDAPrepareMs, pf.FlashKDARecurrenceMs)
			}
			fla, vsFLA := "failed", "-"
			if pf.FLAErr != "" {
				flaErrs = append(flaErrs, fmt.Sprintf("H%d %s: %s", r.H, r.Tag, pf.FLAErr))
			} else {
				fla, vsFLA = fmt.Sprintf("%.4f", pf.FLAMs), fmt.Sprintf("%.3fx", r.VsFLA)
			}
			fmt.Fprintf(w, "%.4f\t%s\t%s\t%.3fx\t%s\t", pf.FlashKDAMs, kern, fla, r.VsFlashKDA, vsFLA)
		}
		fmt.Fprintln(w)
	}
	w.Flush()
	if !peers {
		fmt.Fprintln(out, "no peer figures: --peer FILE adds FlashKDA's and FLA's of the same session (kda_peers.py, tools/gpu-kda-peers.sh)")
		return
	}
	fk, nfk := geomean(rows, func(r kdaRow) float64 { return r.VsFlashKDA })
	fla, nfla := geomean(rows, func(r kdaRow) float64 { return r.VsFLA })
	fmt.Fprintf(out, "peers from %s (FlashKDA with the %s state, its kernels profiled with the f32 state; FLA with an f32 state)\n", peerFile, r0.State)
	fmt.Fprintf(out, "geometric-mean speed-up over %d configurations: %.3fx FlashKDA", nfk, fk)
	if nfla > 0 {
		fmt.Fprintf(out, ", %.3fx FLA", fla)
		if nfla < nfk {
			fmt.Fprintf(out, " (over the %d with an FLA figure)", nfla)
		}
	}
	fmt.Fprintln(out)
	for _, s := range flaErrs {
		fmt.Fprintf(out, "FLA failed on %s\n", s)
	}
}

// geomean is the geometric mean of the positive f(row), and their count.
func geomean(rows []kdaRow, f func(kdaRow) float64) (float64, int) {
	sum, n := 0.0, 0
	for _, r := range rows {
		if x := f(r); x > 0 {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Exp(sum / float64(n)), n
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

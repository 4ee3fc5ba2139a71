package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tlego/tle/kernels/attention/decode"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/attention/prefill"
	"github.com/tlego/tle/kernels/kda"
	"github.com/tlego/tle/kernels/tutorials"
	"github.com/tlego/tle/tle"
)

type benchFlags struct {
	reps     int
	warmup   int
	json     bool
	blockV   int
	fast     bool
	variant  string
	configs  string
	parts    string
	peer     string
	state    string
	pdl      bool
	cases    string
	ctas     int
	cluster  int
	schedule string
	launches bool
	dryRun   bool
	keyStep  int
	masksDir string
	masks    prefill.BenchMasks
}

func init() {
	register(&command{
		name:    "bench",
		usage:   "SUITE [--reps N] [--json]",
		summary: "time kernels on the GPU (suites: tutorials, kda_fwd, attn_decode, attn_prefill)",
		help: `Bench times a suite of kernels on the GPU with CUDA events and prints the
median of --reps launches after warm-up, with the achieved rate. The
tutorials suite measures a device-to-device copy in the same run as the
bandwidth ceiling, vector add at 1 GiB per operand, row softmax on
4096x8192 f32, matmul with mma.sync at several sizes, and the host-side
cost of one launch of a cached kernel; --parts runs some of its parts
(copy, softmax, matmul, tma, fp8, attention, compile, launch). Progress goes to
standard error.

The kda_fwd suite runs KDA forward (K = V = 128, lower_bound -5, initial
and final state) on FlashKDA's six configurations and the peer script's two
more, named as kda_peers.py names them; --configs picks some by their
1-based index (1,7):

  1 H96 fixed    T = 8192 (B = 1)
  2 H96 varlen6  varlen [1300,547,2048,963,271,3063]
  3 H96 1024x8   varlen 1024 x 8
  4-6 H64        the same three at H 64
  7 H96 T1024    T = 1024
  8 H64 T32768   T = 32768

and prints the median ms of --reps launches after --warmup, the bytes
moved per second and, for v3, each kernel's median timed alone; a progress
bar is drawn on standard error. --state f32|bf16 is the state dtype.
--pdl launches v3's recurrence as a programmatic dependent launch of the
preparation (kernels built with griddepcontrol) instead of plainly after
it, the default, which measured faster on the H200 (docs/perf.md run 22):
both can be timed in one session.

--peer FILE reads the JSON that the peer script kda_peers.py wrote in the
same session (tools/gpu-kda-peers.sh runs both) and prints, next to each
configuration, FlashKDA's median (with the --state dtype) and its two
kernels' times, FLA's median (FLA is timed with an f32 state only), the
speed-ups over both and their geometric means. Every configuration run
needs its keys in the file (flashkda_<state>state_H<H>_<tag>_ms and
fla_H<H>_<tag>_ms or _err): a missing one is an error naming it, checked
before anything runs. Without --peer no peer figure and no speed-up is
printed: there are no built-in figures (those of other days are in
docs/perf.md).

--block-v and --fast choose the kernel's V block and precision variant;
--variant v3|v1|v2[:WARPS] the kernels (the default v3: kda_v3.tle's
preparation and recurrence; v1, v2: the fused kda_fwd.tle, kda_fwd_v2.tle)
and, after a colon, their warps per program (4 or 8; for v3 those of the
preparation kernel, 1 to 8, the recurrence running one warp per 16 V
columns); v3:WARPS:KBLOCK also sets the preparation kernel's K block (head
columns per step, a power of two in [16, 128]; kda.Params.PrepBlockK).

The attn_decode suite times paged decode attention (kernels/attention/decode) on
the spec's nine workloads (Hkv 1, Hq 8, page 64: uniform_512 ...
two_32k_30x4k; --cases picks some by name, and names large_mix_512, 512
requests of 64 to 4096 tokens, which runs only when named) for BF16 and FP8 (quant type 1),
Sq 1 and 2, NHD and HND, with the splits of the package's policy: the
median microseconds of --reps back-to-back calls (decode and combine
kernels) after --warmup, the K+V bytes per second and the floor (K+V bytes
at the device-to-device copy rate measured in the same run). --ctas sets
the decode programs per SM, --cluster the decode kernel's cluster size (the
pieces of a request in one cluster merged in distributed shared memory,
opt-in; 0 and 1 send every partial through the combine, -1 is the
package's policy), --schedule the decode programs' share of the tiles (fixed
pieces of one length or the dynamic schedule's even deal over a
persistent grid; default the package's policy, ChooseSchedule), so that
each can be compared in one session. HPC-Ops is timed by
tools/gpu-attn-decode.sh in the same session.

The attn_prefill suite times paged prefill attention (kernels/attention/prefill),
issue 16's bench, at (q_len, kv_len) = (127, 127), (512, 4096), (512, 32768),
B 1, Hq 32, Hkv 4, page 64: FP8 quant types 0 and 1, dense and masked, NHD
and HND (the 24 configurations), BF16 paged NHD and HND, dense and masked;
then BF16 causal self-attention at 4096, 8192 and 32768 tokens through
identity page tables. Masked rows use HPC-Ops' block mask (each 128 x 128
tile on with probability 0.25, clipped to causal, each q tile's first-row
and frontier tiles on; one fixed seed). Each row is named as HPC-Ops'
bench names it (prefill_fp8_q0_masked_nhd/512x4096,
prefill_kvcache_bf16_hnd/127x127, prefill_bf16_nocache/32768x32768) and
carries the median microseconds of --reps back-to-back launches after
--warmup, the TFLOP/s of the visible work (causal keys in tiles that are
on), the mask density and the dense causal FLOPs; a progress bar is drawn
on standard error. --cases picks the rows whose names contain one of its
comma-separated parts (--cases nocache,127x127); --dry-run builds the
rows' masks and FLOP counts on the CPU and prints them untimed, without a
GPU. --key-step 64 runs the rows one page (64 keys) a step
(attn_prefill_fp8, attn_prefill_bf16), --key-step 128 (the default) 128
keys a step over two pages (attn_prefill_fp8_k128, attn_prefill_bf16_k128),
so the two can be compared.
tools/gpu-attn-decode.sh (PREFILL=1) compares the rows with HPC-Ops and
torch SDPA in the same session (KEYSTEP64=1: both key steps).`,
		flags: func(fs *flag.FlagSet) any {
			b := &benchFlags{}
			fs.IntVar(&b.reps, "reps", 50, "timed launches per configuration")
			fs.BoolVar(&b.json, "json", false, "print the results as JSON")
			fs.IntVar(&b.warmup, "warmup", 10, "untimed launches before timing (kda_fwd)")
			fs.IntVar(&b.blockV, "block-v", 0, "V columns per program (kda_fwd; 0: the default)")
			fs.BoolVar(&b.fast, "fast", false, "kda_fwd without the hi/lo split of the intra-chunk products")
			fs.StringVar(&b.variant, "variant", "", "kda_fwd kernel variant, v3 (default), v1 or v2, and optionally :WARPS (v2:8; for v3 the preparation kernel's warps) and, for v3, :KBLOCK (v3:2:64)")
			fs.StringVar(&b.configs, "configs", "", "kda_fwd configurations to run, as 1-based indices into the table (1,4); default all")
			fs.StringVar(&b.peer, "peer", "", "kda_fwd: the peers' JSON of the same session (kda_peers.py), for their figures and the speed-ups")
			fs.StringVar(&b.state, "state", kda.StateF32, "kda_fwd: the state dtype, f32 or bf16")
			fs.BoolVar(&b.pdl, "pdl", false, "kda_fwd v3: launch the recurrence as a programmatic dependent launch of the preparation (default: a plain launch, measured faster)")
			fs.IntVar(&b.ctas, "ctas", 0, "attn_decode: decode programs per SM, 1 to 4 (0: the package's default; fewer when their shared memory does not fit)")
			fs.BoolVar(&b.launches, "launches", false, "attn_decode: time each call as its two launches back to back instead of a CUDA graph replay (HPC-Ops' timing)")
			fs.IntVar(&b.cluster, "cluster", 0, "attn_decode: the decode kernel's cluster size, 1, 2, 4 or 8 (0 and 1: no cluster merge, every partial through the combine; -1: the package's policy)")
			fs.StringVar(&b.schedule, "schedule", "", "attn_decode: how the decode programs share the tiles, fixed (pieces of one length) or dynamic (all requests' tiles dealt evenly over a persistent grid); default the package's policy")
			fs.StringVar(&b.cases, "cases", "", "attn_decode workloads to run, comma-separated names (uniform_512,skewed_extreme); attn_prefill: the rows whose names contain one of the comma-separated parts (nocache,127x127); default all")
			fs.IntVar(&b.keyStep, "key-step", 0, "attn_prefill: keys a step of the KV walk, 128 or 64 (one page); 0: 128")
			fs.StringVar(&b.masksDir, "masks", "", "attn_prefill: a directory of block masks, mask_127x127.npy, mask_512x4096.npy, mask_512x32768.npy ([1, 32, q tiles, key tiles], 0 or 1: tools/hpc_masks.py saves HPC-Ops' draw) for the masked rows instead of the bench's own draw")
			fs.BoolVar(&b.dryRun, "dry-run", false, "attn_prefill: build the rows' masks and FLOP counts on the CPU and print them untimed (no GPU needed)")
			fs.StringVar(&b.parts, "parts", "", "tutorials parts to run, comma-separated (copy,softmax,matmul,tma,fp8,attention,compile,launch); default all")
			return b
		},
		run: runBench,
	})
}

func runBench(e *env, cfg any, args []string) int {
	b := cfg.(*benchFlags)
	if len(args) != 1 || (args[0] != "tutorials" && args[0] != "kda_fwd" && args[0] != "attn_decode" && args[0] != "attn_prefill") {
		fmt.Fprintln(e.stderr, "tlec bench: name one suite: tutorials, kda_fwd, attn_decode or attn_prefill")
		return 2
	}
	if b.reps < 1 {
		fmt.Fprintln(e.stderr, "tlec bench: --reps must be at least 1")
		return 2
	}
	if b.warmup < 0 {
		fmt.Fprintln(e.stderr, "tlec bench: --warmup must not be negative")
		return 2
	}
	for _, p := range strings.Split(b.parts, ",") {
		if b.parts != "" && !slices.Contains(tutorials.BenchParts, p) {
			fmt.Fprintf(e.stderr, "tlec bench: --parts: no part %q (the tutorials parts: %s)\n", p, strings.Join(tutorials.BenchParts, ", "))
			return 2
		}
	}
	var kp *kdaPlan
	if args[0] == "kda_fwd" {
		var code int
		if kp, code = planKDA(e, b); kp == nil {
			return code
		}
	}
	var wls []decode.Workload
	if args[0] == "attn_decode" {
		var err error
		if wls, err = attnWorkloads(b.cases); err != nil {
			fmt.Fprintf(e.stderr, "tlec bench: %v\n", err)
			return 2
		}
		if b.ctas < 0 || b.ctas > decode.MaxCTAs {
			fmt.Fprintf(e.stderr, "tlec bench: --ctas %d: want 1 to %d (0: the default)\n", b.ctas, decode.MaxCTAs)
			return 2
		}
		var ae *paged.ArgError
		if errors.As(decode.CheckCluster(b.cluster), &ae) {
			fmt.Fprintf(e.stderr, "tlec bench: --cluster %d: %s\n", b.cluster, ae.Msg)
			return 2
		}
		if errors.As(decode.CheckSchedule(b.schedule, b.cluster), &ae) {
			fmt.Fprintf(e.stderr, "tlec bench: --schedule %q: %s\n", b.schedule, ae.Msg)
			return 2
		}
	}
	var prows []prefill.BenchRow
	if args[0] == "attn_prefill" {
		var err error
		if prows, err = prefillRows(b.cases); err != nil {
			fmt.Fprintf(e.stderr, "tlec bench: %v\n", err)
			return 2
		}
		if b.keyStep != 0 && b.keyStep != 64 && b.keyStep != 128 {
			fmt.Fprintf(e.stderr, "tlec bench: --key-step %d: want 128 or 64 (0: 128)\n", b.keyStep)
			return 2
		}
		if b.masksDir != "" {
			var ae *paged.ArgError
			m, err := prefill.LoadBenchMasks(b.masksDir)
			if errors.As(err, &ae) {
				fmt.Fprintf(e.stderr, "tlec bench: --masks %s: %s\n", b.masksDir, ae.Msg)
				return 2
			}
			if err != nil {
				fmt.Fprintf(e.stderr, "tlec bench: --masks %s: %v\n", b.masksDir, err)
				return 2
			}
			b.masks = m
		}
		if b.dryRun {
			return benchPrefill(e, nil, b, prows)
		}
	}
	if b.dryRun {
		fmt.Fprintln(e.stderr, "tlec bench: --dry-run is for attn_prefill only")
		return 2
	}
	g, err := tle.OpenGPU()
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec bench: %s needs a GPU, and there is none: %v\n", args[0], err)
		return 1
	}
	if wls != nil {
		return benchAttn(e, g, b, wls)
	}
	if args[0] == "attn_prefill" {
		return benchPrefill(e, g, b, prows)
	}
	if kp != nil {
		return benchKDA(e, g, b, kp)
	}
	var parts []string
	if b.parts != "" {
		parts = strings.Split(b.parts, ",")
	}
	res, err := tutorials.Bench(g, b.reps, parts, func(s string) { fmt.Fprintf(e.stderr, "tlec bench: %s\n", s) })
	if err != nil {
		printError(e.stderr, "bench", err)
		return 1
	}
	if b.json {
		return printJSON(e, res)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "kernel\tconfig\tmedian ms\trate\t")
	for _, r := range res {
		fmt.Fprintf(w, "%s\t%s\t%.4f\t%.3f %s\t\n", r.Name, r.Config, r.Ms, r.Rate, r.Unit)
	}
	w.Flush()
	return 0
}

// printJSON writes v indented to standard output.
func printJSON(e *env, v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(e.stderr, "tlec bench: %v\n", err)
		return 1
	}
	return 0
}

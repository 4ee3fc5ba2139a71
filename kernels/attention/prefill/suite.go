package prefill

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/tlego/tle/kernels/attention/decode"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

func init() {
	registry.RegisterSuite(&registry.Suite{
		Name: "attn_prefill",
		Doc:  "paged prefill attention (FP8, BF16 paged, BF16 self-attention) against HPC-Ops and torch SDPA",
		Help: `The attn_prefill suite times paged prefill attention at (q_len, kv_len) =
(127, 127), (512, 4096), (512, 32768), B 1, Hq 32, Hkv 4, page 64: FP8
quant types 0 and 1, dense and masked, NHD and HND (the 24
configurations), BF16 paged NHD and HND, dense and masked; then BF16
causal self-attention at 4096, 8192 and 32768 tokens through identity
page tables. Masked rows use HPC-Ops' block mask (each 128 x 128 tile on
with probability 0.25, clipped to causal, each q tile's first-row and
frontier tiles on; one fixed seed). Each row is named as HPC-Ops' bench
names it (prefill_fp8_q0_masked_nhd/512x4096,
prefill_kvcache_bf16_hnd/127x127, prefill_bf16_nocache/32768x32768) and
carries the median of back-to-back launches, the FLOPs of the visible
work (causal keys in tiles that are on), and as facts the mask's density
and the dense causal FLOPs. A row that fails keeps its place with its
error, and the others still run.

--cases picks the rows whose names contain one of its comma-separated
parts (nocache,127x127). --key-step 64 walks one page (64 keys) a step
(attn_prefill_fp8, attn_prefill_bf16) instead of the default 128 keys
over two pages (the _k128 kernels). --masks DIR takes the masked rows'
block masks from DIR/mask_127x127.npy, mask_512x4096.npy and
mask_512x32768.npy ([1, 32, q tiles, key tiles], 0 or 1; as
tools/hpc_masks.py saves HPC-Ops' draw, so that both benches walk one
mask).

--peer FILE takes HPC-Ops' hpc_attn.json (each row's figure of the same
name) and torch SDPA's sdpa_prefill.json (cuDNN and FA2 on the
self-attention rows), both of the same session.`,
		Flags: func(fs *flag.FlagSet) func() (registry.Bench, error) {
			cases := fs.String("cases", "", "the rows whose names contain one of the comma-separated parts (nocache,127x127); default all")
			keyStep := fs.Int("key-step", 0, "keys a step of the KV walk: 128, or 64 (one page); 0: 128")
			masks := fs.String("masks", "", "a `DIR` of block masks (mask_127x127.npy, mask_512x4096.npy, mask_512x32768.npy) for the masked rows instead of the bench's own draw")
			return func() (registry.Bench, error) {
				rows, err := RowsOf(*cases)
				if err != nil {
					return nil, registry.ArgErr("--cases", "%v", err)
				}
				if *keyStep != 0 && *keyStep != 64 && *keyStep != 128 {
					return nil, registry.ArgErr("--key-step", "%d: want 128 or 64 (0: 128)", *keyStep)
				}
				opts := BenchOptions{Rows: rows, KeyStep: *keyStep}
				if *masks != "" {
					m, err := LoadBenchMasks(*masks)
					var ae *paged.ArgError
					if errors.As(err, &ae) {
						return nil, registry.ArgErr("--masks", "%s: %s", *masks, ae.Msg)
					}
					if err != nil {
						return nil, registry.ArgErr("--masks", "%s: %v", *masks, err)
					}
					opts.Masks = m
				}
				return registry.BenchOf[BenchResult]{Row: BenchResult.row, Bench: func(g *tle.GPU, o registry.RunOptions) ([]BenchResult, error) {
					opts.RunOptions = o
					return Bench(g, opts)
				}}, nil
			}
		},
		Peers: addPeers,
	})
}

// row is the result as the suite's row: its visible FLOPs; the mask, the
// dense FLOPs and a failed row's error in its facts.
func (r BenchResult) row() registry.Row {
	cfg, mask := r.DType, "dense"
	if r.DType == paged.DTypeFP8 {
		cfg = fmt.Sprintf("fp8 q%d", r.Quant)
	}
	facts := map[string]any{"pages": r.Pages, "dense_flops": r.DenseFLOPs}
	if r.Masked {
		mask = "masked"
		facts["mask_density"], facts["max_tiles"] = r.MaskDensity, r.MaxTiles
	}
	if r.Error != "" {
		facts["error"] = r.Error
	}
	return registry.Row{Suite: "attn_prefill", Case: r.Name, Config: fmt.Sprintf("%s %s %s, %s pages", cfg, mask, r.Layout, r.Pages),
		Kernel: r.Kernel, FLOPs: r.FLOPs, Facts: facts}.Timed(tle.Timing{MedianMs: r.Us / 1e3, MinMs: r.MinUs / 1e3, LoMs: r.LoUs / 1e3, HiMs: r.HiUs / 1e3})
}

// RowsOf is the bench rows whose names contain one of the comma-separated
// parts of s (all when s is empty); a part that matches no row is an
// error.
func RowsOf(s string) ([]BenchRow, error) {
	all := BenchRows()
	if s == "" {
		return all, nil
	}
	parts := strings.Split(s, ",")
	hit := make([]bool, len(parts))
	var out []BenchRow
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
			return nil, fmt.Errorf("no row's name contains %q (names like prefill_fp8_q0_masked_nhd/512x4096, prefill_kvcache_bf16_hnd/127x127, prefill_bf16_nocache/8192x8192)", p)
		}
	}
	return out, nil
}

// sdpaFigure is one of sdpa_prefill.json's entries.
type sdpaFigure struct {
	Ms  float64 `json:"ms"`
	Err string  `json:"err"`
}

// addPeers adds HPC-Ops' figure of each row's name (hpc_attn.json), or
// torch SDPA's cuDNN and FA2 on the GQA self-attention rows
// (sdpa_prefill.json).
func addPeers(file []byte, rows []registry.Row) error {
	hpc, isHPC, err := decode.ParseHPC(file)
	if err != nil {
		return err
	}
	n := 0
	if isHPC {
		for i := range rows {
			if us, ok := hpc[rows[i].Case]; ok {
				rows[i].AddPeer("HPC-Ops", us)
				n++
			}
		}
		if n == 0 {
			return errors.New("hpc_attn.json has no prefill figure for these rows (run its bench without --only decode)")
		}
		return nil
	}
	var sdpa map[string]sdpaFigure
	if err := json.Unmarshal(file, &sdpa); err != nil {
		return fmt.Errorf("neither HPC-Ops' hpc_attn.json nor torch SDPA's sdpa_prefill.json: %v", err)
	}
	for i := range rows {
		r := &rows[i]
		size, ok := strings.CutPrefix(r.Case, "prefill_bf16_nocache/")
		if !ok {
			continue
		}
		s, _, _ := strings.Cut(size, "x")
		for _, be := range []struct{ key, name string }{{"cudnn", "cuDNN"}, {"flash2", "FA2"}} {
			if f, ok := sdpa[be.key+"_gqa32_4_causal_S"+s]; ok && f.Ms > 0 {
				r.AddPeer(be.name, f.Ms*1e3)
				n++
			}
		}
	}
	if n == 0 {
		return errors.New("sdpa_prefill.json has no GQA 32/4 figure for these rows")
	}
	return nil
}

package kda

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

func init() {
	registry.RegisterSuite(&registry.Suite{
		Name: "kda_fwd",
		Doc:  "KDA forward on FlashKDA's six configurations and two more, against FlashKDA and FLA",
		Help: `The kda_fwd suite runs KDA forward (K = V = 128, lower_bound -5,
initial and final state) on FlashKDA's six configurations and the peer
script's two more, each a case named as kda_peers.py names it
(H96_fixed); --configs picks some by their 1-based index (1,7):

  1 H96 fixed    T = 8192 (B = 1)
  2 H96 varlen6  varlen [1300,547,2048,963,271,3063]
  3 H96 1024x8   varlen 1024 x 8
  4-6 H64        the same three at H 64
  7 H96 T1024    T = 1024
  8 H64 T32768   T = 32768

A row is the whole forward pass (preparation and recurrence) with the
bytes it must move; its facts hold each kernel's median timed alone
(parts_us). --state f32|bf16 is the state dtype; --block-v, --fast,
--prep-warps and --prep-block-k set the kernels' parameters (0: the
defaults).

--peer FILE reads the JSON that ../shared/peers/kda_peers.py wrote in the
same session and adds FlashKDA's median (with the --state dtype) and
FLA's (f32 state) to each row, FlashKDA's two kernels in its facts. Every
case run needs its keys in the file (flashkda_<state>state_<case>_ms and
fla_<case>_ms or _err): a missing one is an error naming it, checked
before anything runs.`,
		Flags: func(fs *flag.FlagSet) func() (registry.Bench, error) {
			configs := fs.String("configs", "", "the configurations to run, 1-based indices into the table (1,7); default all")
			state := fs.String("state", StateF32, "the state dtype: f32 or bf16")
			blockV := fs.Int("block-v", 0, "V columns per recurrence program (0: the default)")
			fast := fs.Bool("fast", false, "without the hi/lo split of the intra-chunk products")
			prepWarps := fs.Int("prep-warps", 0, "warps of the preparation kernel, 1 to 8 (0: the default)")
			prepBlockK := fs.Int("prep-block-k", 0, "the preparation kernel's K block, a power of two in [16, 128] (0: the default)")
			return func() (registry.Bench, error) {
				cs, err := ConfigsOf(*configs)
				if err != nil {
					return nil, registry.ArgErr("--configs", "%v", err)
				}
				p := Params{BlockV: *blockV, Fast: *fast, PrepWarps: *prepWarps, PrepBlockK: *prepBlockK, StateDType: *state}
				if err := CheckBenchParams(p); err != nil {
					if ae, ok := err.(*ArgError); ok {
						flag := map[string]string{"block_v": "--block-v", "prep_warps": "--prep-warps", "prep_block_k": "--prep-block-k", "state_dtype": "--state"}[ae.Arg]
						return nil, registry.ArgErr(flag, "%s", ae.Msg)
					}
					return nil, err
				}
				return registry.BenchOf[BenchResult]{Row: BenchResult.row, Bench: func(g *tle.GPU, o registry.RunOptions) ([]BenchResult, error) {
					return Bench(g, cs, BenchOptions{RunOptions: o, Params: p})
				}}, nil
			}
		},
		Peers: addPeers,
	})
}

// row is the result as the suite's row: the whole forward pass and the
// bytes it must move; each kernel timed alone and the parameters in its
// facts.
func (r BenchResult) row() registry.Row {
	var parts []float64
	for _, ms := range r.PartsMs {
		parts = append(parts, ms*1e3)
	}
	return registry.Row{Suite: "kda_fwd", Case: fmt.Sprintf("H%d_%s", r.H, r.Tag),
		Config: fmt.Sprintf("%s state, block_v %d, prep %d warps, prep K block %d", r.State, r.BlockV, r.PrepWarps, r.PrepBlockK),
		Kernel: "kda_prep + kda_rec", Bytes: float64(r.Bytes),
		Facts: map[string]any{"T": r.T, "N": r.N, "state": r.State, "block_v": r.BlockV, "rec_warps": r.RecWarps,
			"prep_warps": r.PrepWarps, "prep_block_k": r.PrepBlockK, "parts_us": parts}}.Timed(tle.Timing{MedianMs: r.Ms, MinMs: r.MinMs, LoMs: r.LoMs, HiMs: r.HiMs})
}

// ConfigsOf is the configurations s names: 1-based indices into
// BenchConfigs, comma-separated; all when s is empty.
func ConfigsOf(s string) ([]BenchConfig, error) {
	if s == "" {
		return BenchConfigs, nil
	}
	var out []BenchConfig
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 1 || i > len(BenchConfigs) {
			return nil, fmt.Errorf("%q: want 1-based indices in [1, %d], comma-separated", s, len(BenchConfigs))
		}
		out = append(out, BenchConfigs[i-1])
	}
	return out, nil
}

// addPeers adds the peer file's FlashKDA and FLA medians to each row.
func addPeers(file []byte, rows []registry.Row) error {
	p, err := ParsePeers("kda_peers.json", file)
	if err != nil {
		return err
	}
	byKey := map[string]BenchConfig{}
	for _, c := range BenchConfigs {
		byKey[c.PeerKey()] = c
	}
	for i := range rows {
		r := &rows[i]
		c, ok := byKey[r.Case]
		state, _ := r.Facts["state"].(string)
		if !ok || state == "" {
			return fmt.Errorf("row %s is not a kda_fwd configuration", r.Case)
		}
		f, err := p.For(c, state)
		if err != nil {
			return err
		}
		r.AddPeer("FlashKDA", f.FlashKDAMs*1e3)
		if f.FlashKDAPrepareMs > 0 && f.FlashKDARecurrenceMs > 0 {
			r.Facts["flashkda_parts_us"] = []float64{f.FlashKDAPrepareMs * 1e3, f.FlashKDARecurrenceMs * 1e3}
		}
		if f.FLAErr != "" {
			r.Facts["fla_error"] = f.FLAErr
		} else {
			r.AddPeer("FLA", f.FLAMs*1e3)
		}
	}
	return nil
}

package decode

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

func init() {
	registry.RegisterSuite(&registry.Suite{
		Name: "attn_decode",
		Doc:  "paged decode attention on the spec's nine workloads, BF16 and FP8, against HPC-Ops and the copy-rate floor",
		Help: `The attn_decode suite times paged decode attention on the spec's nine
workloads (Hkv 1, Hq 8, page 64: uniform_512 ... two_32k_30x4k) for BF16
and FP8 (quant type 1), Sq 1 and 2, NHD and HND, with the splits of the
package's policy planned for the GPU's SMs. A row is the whole call
(decode and combine, a CUDA graph replay, as HPC-Ops' bench times its
calls; --launches: the two launches back to back), its K+V bytes, and the
floor: those bytes at the device-to-device copy rate measured in the same
run. --cases picks workloads by name, and names large_mix_512 (512
requests of 64 to 4096 tokens), which runs only when named. --ctas sets
the decode programs per SM, --cluster the decode kernel's cluster size
(the pieces of a request in one cluster merged in distributed shared
memory, opt-in; 0 and 1 send every partial through the combine, -1 is
the policy's), --schedule the programs' share of the tiles (fixed pieces
of one length, or the dynamic schedule's even deal over a persistent
grid; default the policy's).

--peer FILE takes HPC-Ops' hpc_attn.json of the same session (the kit's
bench.py): each NHD row gets HPC-Ops' dynamic-split call (its compute and
combine) on the same workload, dtype and Sq.`,
		Flags: func(fs *flag.FlagSet) func() (registry.Bench, error) {
			cases := fs.String("cases", "", "the workloads to run, comma-separated names (uniform_512,skewed_extreme); default the nine")
			ctas := fs.Int("ctas", 0, fmt.Sprintf("decode programs per SM, 1 to %d (0: the default; fewer when their shared memory does not fit)", MaxCTAs))
			cluster := fs.Int("cluster", 0, "the decode kernel's cluster size, 1, 2, 4 or 8 (0 and 1: no cluster merge; -1: the policy's)")
			schedule := fs.String("schedule", "", "how the decode programs share the tiles: fixed or dynamic (default the policy's)")
			launches := fs.Bool("launches", false, "time each call as its two launches back to back instead of a CUDA graph replay")
			return func() (registry.Bench, error) {
				wls, err := WorkloadsOf(*cases)
				if err != nil {
					return nil, registry.ArgErr("--cases", "%v", err)
				}
				if *ctas < 0 || *ctas > MaxCTAs {
					return nil, registry.ArgErr("--ctas", "%d: want 1 to %d (0: the default)", *ctas, MaxCTAs)
				}
				var ae *paged.ArgError
				if err := CheckCluster(*cluster); errors.As(err, &ae) {
					return nil, registry.ArgErr("--cluster", "%d: %s", *cluster, ae.Msg)
				}
				if err := CheckSchedule(*schedule, *cluster); errors.As(err, &ae) {
					return nil, registry.ArgErr("--schedule", "%q: %s", *schedule, ae.Msg)
				}
				opts := BenchOptions{Workloads: wls, CTAs: *ctas, Cluster: *cluster, Schedule: *schedule, Launches: *launches}
				return registry.BenchOf[BenchResult]{Row: BenchResult.row, Bench: func(g *tle.GPU, o registry.RunOptions) ([]BenchResult, error) {
					opts.RunOptions = o
					return Bench(g, opts)
				}}, nil
			}
		},
		Peers: addPeers,
	})
}

// row is the result as the suite's row: the whole call, its K+V bytes and
// the copy-rate floor; the plan in its facts.
func (r BenchResult) row() registry.Row {
	return registry.Row{Suite: "attn_decode", Case: r.Case, Config: fmt.Sprintf("%s sq%d %s", dtypeName(r.DType, r.Quant), r.Sq, r.Layout),
		Kernel: r.Kernel + " + attn_combine", Bytes: float64(r.KVBytes), FloorUs: r.FloorUs,
		Facts: map[string]any{"B": r.B, "splits": r.Splits, "ctas": r.CTAs, "cluster": r.Cluster, "schedule": r.Schedule,
			"stages": r.Stages, "programs": r.Programs, "chunk": r.Chunk, "timing": r.Timing, "copy_tb_per_s": r.CopyTBps}}.
		Timed(tle.Timing{MedianMs: r.Us / 1e3, MinMs: r.MinUs / 1e3, LoMs: r.LoUs / 1e3, HiMs: r.HiUs / 1e3})
}

// dtypeName is the dtype as HPC-Ops' bench names it: bf16, fp8q1.
func dtypeName(dt string, quant int) string {
	if dt == paged.DTypeFP8 {
		return fmt.Sprintf("fp8q%d", quant)
	}
	return dt
}

// WorkloadsOf is the workloads s names, comma-separated (Workloads when s
// is empty; ExtraWorkloads only by name).
func WorkloadsOf(s string) ([]Workload, error) {
	if s == "" {
		return Workloads, nil
	}
	known := append(append([]Workload(nil), Workloads...), ExtraWorkloads...)
	var out []Workload
	for _, name := range strings.Split(s, ",") {
		found := false
		for _, w := range known {
			if w.Name == strings.TrimSpace(name) {
				out, found = append(out, w), true
			}
		}
		if !found {
			var all []string
			for _, w := range known {
				all = append(all, w.Name)
			}
			return nil, fmt.Errorf("no workload %q (workloads: %s)", name, strings.Join(all, ", "))
		}
	}
	return out, nil
}

// HPCResults are the figures of HPC-Ops' bench (hpc_attn.json): each
// result's name and median microseconds (none when it failed).
type HPCResults struct {
	Results []struct {
		Name  string   `json:"name"`
		Us    *float64 `json:"us"`
		Error string   `json:"error"`
	} `json:"results"`
}

// ParseHPC reads hpc_attn.json; ok is false for a file of another kind
// (a JSON object without "results").
func ParseHPC(file []byte) (us map[string]float64, ok bool, err error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(file, &probe); err != nil {
		return nil, false, fmt.Errorf("not a JSON object: %v", err)
	}
	if _, ok := probe["results"]; !ok {
		return nil, false, nil
	}
	var h HPCResults
	if err := json.Unmarshal(file, &h); err != nil {
		return nil, true, fmt.Errorf("HPC-Ops results: %v", err)
	}
	us = map[string]float64{}
	for _, r := range h.Results {
		if r.Us != nil && *r.Us > 0 {
			us[r.Name] = *r.Us
		}
	}
	return us, true, nil
}

// addPeers adds HPC-Ops' dynamic-split call (compute and combine, its
// NHD figure) to each NHD row of the same workload, dtype and Sq.
func addPeers(file []byte, rows []registry.Row) error {
	hpc, ok, err := ParseHPC(file)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("not HPC-Ops' hpc_attn.json (no \"results\")")
	}
	n := 0
	for i := range rows {
		r := &rows[i]
		f := strings.Fields(r.Config) // dtype sqN layout
		if len(f) != 3 || f[2] != paged.LayoutNHD {
			continue
		}
		if us, ok := hpc[fmt.Sprintf("decode_%s_dynamic_%s_nhd/%s [compute+combine]", f[0], f[1], r.Case)]; ok {
			r.AddPeer("HPC-Ops", us)
			n++
		}
	}
	if n == 0 {
		return errors.New("hpc_attn.json has no decode figure for these rows (run its bench without --only prefill)")
	}
	return nil
}

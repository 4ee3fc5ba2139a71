package registry

import (
	"flag"
	"fmt"
	"sort"

	"github.com/tlego/tle/tle"
)

// A Suite is a named benchmark of a kernel family: the cases it times,
// its own flags, and rows of one schema (Row). `tlec bench SUITE` runs any
// registered suite the same way: it declares the common flags (--reps,
// --warmup, --json, --dry-run, --peer, the compile flags) and asks the
// suite for its own.
//
// A suite is run on a *tle.GPU. With --dry-run that GPU is tle.DryGPU: it
// records every kernel build the suite would compile and times nothing,
// so the same code path lists the cases, their FLOPs and bytes, and the
// exact builds the timed run compiles, without a GPU.
type Suite struct {
	// Name is the suite's name, as `tlec bench NAME` takes it.
	Name string
	// Doc is a one-line summary; Help is the long description printed by
	// `tlec help bench NAME`.
	Doc, Help string
	// Flags declares the suite's own flags on fs and returns the function
	// that, once fs is parsed, checks their values and makes the bench.
	// Every value is checked there, before anything runs.
	Flags func(fs *flag.FlagSet) func() (Bench, error)
	// Peers, when not nil, reads a peer's JSON written in the same session
	// (the --peer file) and adds its figures to rows. Suites without one
	// refuse --peer.
	Peers func(file []byte, rows []Row) error
	// Mesh marks a suite that runs on a mesh of GPUs (tle.GPUMesh) and
	// opens it itself. `tlec bench builds` without suite names (what
	// tools/gpu.sh ir_same compares against older revisions) leaves such
	// suites out, so that the set it compares stays the single-GPU timed
	// builds; named, they are built.
	// TODO(integrator): include them by default once ir_same's reference
	// revision has these suites (its count of builds then grows by theirs).
	Mesh bool
}

// Bench is a suite with its flags set.
type Bench interface {
	// Run times every case on g (tle.DryGPU for a dry run: rows carry
	// their FLOPs and bytes, no time) and returns one row per case.
	Run(g *tle.GPU, o RunOptions) ([]Row, error)
}

// RunOptions are the settings every suite takes.
type RunOptions struct {
	Warmup, Reps int
	// Progress, when not nil, is told after each step how many of total
	// are done.
	Progress func(done, total int, what string)
}

// Step reports progress when o.Progress is set.
func (o RunOptions) Step(done, total int, what string) {
	if o.Progress != nil {
		o.Progress(done, total, what)
	}
}

// Row is one timed case: the schema of every suite's --json.
type Row struct {
	Suite string `json:"suite"`
	// Case names the workload (uniform_512,
	// prefill_fp8_q1_dense_nhd/512x4096, H96_fixed).
	Case string `json:"case"`
	// Config is the kernel configuration of the row (bf16 sq1 nhd).
	Config string `json:"config"`
	// Kernel names the kernels the row times.
	Kernel   string  `json:"kernel"`
	MedianUs float64 `json:"median_us"`
	MinUs    float64 `json:"min_us"`
	// LoUs and HiUs bound the median: the timing engine's
	// distribution-free interval (runtime/timing; 95% or more), absent in
	// reports from before the engine and in dry runs.
	LoUs float64 `json:"lo_us,omitempty"`
	HiUs float64 `json:"hi_us,omitempty"`
	// Rate is the work over the median time, in Unit (TB/s, TFLOP/s).
	Rate float64 `json:"rate"`
	Unit string  `json:"unit"`
	// FLOPs and Bytes are the case's work: what Rate divides.
	FLOPs float64 `json:"flops,omitempty"`
	Bytes float64 `json:"bytes,omitempty"`
	// FloorUs is the time bound where the suite has one (decode: its bytes
	// at the device-to-device copy rate of the same run).
	FloorUs float64 `json:"floor_us,omitempty"`
	// Peers are other implementations' figures for the same case, from
	// --peer files of the same session.
	Peers []Peer `json:"peers,omitempty"`
	// Facts are what else the suite reports of the row (splits, schedule,
	// mask density), by name.
	Facts map[string]any `json:"facts,omitempty"`
}

// Peer is another implementation's median on a row's case.
type Peer struct {
	Name     string  `json:"name"`
	MedianUs float64 `json:"median_us"`
	// Speedup is the peer's median over the row's: above 1, ours is
	// faster.
	Speedup float64 `json:"speedup"`
}

// AddPeer adds a peer's median to r (with its speed-up when r was timed).
func (r *Row) AddPeer(name string, us float64) {
	p := Peer{Name: name, MedianUs: us}
	if r.MedianUs > 0 {
		p.Speedup = us / r.MedianUs
	}
	r.Peers = append(r.Peers, p)
}

// Report is what `tlec bench SUITE --json` prints.
type Report struct {
	Suite  string `json:"suite"`
	Device string `json:"device"`
	// DryRun marks a report of a dry run: no time was measured.
	DryRun bool  `json:"dry_run,omitempty"`
	Rows   []Row `json:"rows"`
	// Builds are, for a dry run, the kernel builds the timed run
	// compiles (tle.Build.Key).
	Builds []string `json:"builds,omitempty"`
}

var suites = map[string]*Suite{}

// RegisterSuite adds a suite; a second suite of the same name panics.
func RegisterSuite(s *Suite) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := suites[s.Name]; dup {
		panic(fmt.Sprintf("registry: suite %s registered twice", s.Name))
	}
	suites[s.Name] = s
}

// LookupSuite finds a suite by name.
func LookupSuite(name string) (*Suite, bool) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := suites[name]
	return s, ok
}

// Suites returns every suite, sorted by name.
func Suites() []*Suite {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Suite, 0, len(suites))
	for _, s := range suites {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Timed is r with its times from t and its rate from its work: FLOPs as
// TFLOP/s, else Bytes as TB/s (no rate for an untimed row, as on a dry
// GPU).
func (r Row) Timed(t tle.Timing) Row {
	r.MedianUs, r.MinUs, r.LoUs, r.HiUs = t.MedianMs*1e3, t.MinMs*1e3, t.LoMs*1e3, t.HiMs*1e3
	switch {
	case r.FLOPs > 0:
		r.Unit = "TFLOP/s"
	case r.Bytes > 0:
		r.Unit = "TB/s"
	}
	if t.MedianMs > 0 && r.Unit != "" {
		work := r.Bytes
		if r.FLOPs > 0 {
			work = r.FLOPs
		}
		r.Rate = work / t.MedianMs / 1e9
	}
	return r
}

// BenchOf is the Bench of a kernel family whose benchmark returns its own
// results: Bench times the cases with the run options, Row makes each
// result a row.
type BenchOf[R any] struct {
	Bench func(g *tle.GPU, o RunOptions) ([]R, error)
	Row   func(R) Row
}

// Run times the cases and returns a row per result (and the results'
// rows when some failed, with the error).
func (b BenchOf[R]) Run(g *tle.GPU, o RunOptions) ([]Row, error) {
	res, err := b.Bench(g, o)
	return RowsOf(res, b.Row), err
}

// RowsOf is a bench's results as rows, each by row.
func RowsOf[R any](res []R, row func(R) Row) []Row {
	out := make([]Row, len(res))
	for i, r := range res {
		out[i] = row(r)
	}
	return out
}

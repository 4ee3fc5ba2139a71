// Command perftable writes the markdown tables of docs/perf.md from the
// reports of `tlec bench SUITE --json`:
//
//	go run ./cmd/perftable [--run N] [--commit C] REPORT.json...
//
// Each file holds one registry.Report, the schema every suite's --json
// prints. For each suite, in the order the files give them, it writes a
// table of the rows (case, config, our median in µs, and each peer's median
// and speed-up), then the geometric mean of each peer's speed-ups over the
// rows that have one: one per config when the rows have several (decode's
// BF16 and FP8 groups), then the suite's. --run and --commit name the GPU
// run and the commit
// the figures come from, so that each table says what it measured.
//
// The reports are checked before anything is written: a file that is not
// one report (bad JSON, a field the schema does not have, trailing data),
// a dry-run report (no timings), a report without a suite or rows, a row
// of another suite than its report's, a row without a positive median, a
// peer without a name or with a negative median or speed-up, and a case
// and config given twice for a suite are errors that name the file. Reports
// of one suite from several files are merged into one table, and must
// name the same device.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/kernels/registry"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usage is printed for -h and for bad arguments.
const usage = `usage: perftable [--run N] [--commit C] REPORT.json...

Writes a markdown table per suite from the JSON reports of
'tlec bench SUITE --json' (one report a file): each row's case, config,
our median in µs, each peer's median and speed-up (the peer's median over
ours: above 1, ours is faster), and each peer's geometric-mean speed-up
(per config when the rows have several, then over all rows).
--run and --commit name the GPU run and the commit the figures come from.
`

// commitRE is what --commit accepts: an abbreviated or full commit hash.
var commitRE = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// options are the command's flags.
type options struct {
	run    int
	commit string
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("perftable", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	fs.IntVar(&o.run, "run", 0, "the GPU run the figures come from (0: not named)")
	fs.StringVar(&o.commit, "commit", "", "the commit the figures were measured at")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "perftable: %v\n%s", err, usage)
		return 2
	}
	if o.run < 0 {
		fmt.Fprintf(stderr, "perftable: --run %d: a run number is positive\n", o.run)
		return 2
	}
	if o.commit != "" && !commitRE.MatchString(o.commit) {
		fmt.Fprintf(stderr, "perftable: --commit %q: want a commit hash (7 to 40 lower-case hex digits)\n", o.commit)
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "perftable: no report files\n%s", usage)
		return 2
	}
	tables, err := readAll(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "perftable: %v\n", err)
		return 1
	}
	var b bytes.Buffer
	write(&b, tables, o)
	if _, err := stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "perftable: %v\n", err)
		return 1
	}
	return 0
}

// A table is one suite's rows, gathered from one or more reports.
type table struct {
	suite, device string
	files         []string // base names of the files, in order
	rows          []registry.Row
	firstFile     string            // the file that named the device
	seen          map[string]string // case and config -> the file that gave them
}

// readAll reads and checks every report, merging them by suite in the
// order the suites first appear.
func readAll(paths []string) ([]*table, error) {
	var tables []*table
	bySuite := map[string]*table{}
	for _, path := range paths {
		rep, err := readReport(path)
		if err != nil {
			return nil, err
		}
		t := bySuite[rep.Suite]
		if t == nil {
			t = &table{suite: rep.Suite, device: rep.Device, firstFile: path, seen: map[string]string{}}
			bySuite[rep.Suite] = t
			tables = append(tables, t)
		} else if rep.Device != t.device {
			return nil, fmt.Errorf("%s: suite %s on device %q, but %s gave it on %q: one table is one device", path, rep.Suite, rep.Device, t.firstFile, t.device)
		}
		for i, r := range rep.Rows {
			key := r.Case + "\x00" + r.Config
			if prev, dup := t.seen[key]; dup {
				return nil, fmt.Errorf("%s: row %d: case %q with config %q is already in %s", path, i+1, r.Case, r.Config, prev)
			}
			t.seen[key] = path
			t.rows = append(t.rows, r)
		}
		t.files = append(t.files, filepath.Base(path))
	}
	return tables, nil
}

// readReport reads one file as exactly one registry.Report and checks it.
func readReport(path string) (*registry.Report, error) {
	data, err := fileio.ReadFile(path, 64<<20) // a regular file: a FIFO would block
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rep registry.Report
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("%s: not a suite report (tlec bench SUITE --json): %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: data after the report: one report a file", path)
	}
	if err := checkReport(&rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rep, nil
}

// checkReport checks what the schema cannot: a timed report of one suite
// with timed rows and well-formed peers.
func checkReport(rep *registry.Report) error {
	if rep.Suite == "" {
		return errors.New("the report names no suite")
	}
	if rep.DryRun {
		return fmt.Errorf("a dry-run report of suite %s: it has no timings (run the bench without --dry-run on a GPU)", rep.Suite)
	}
	if len(rep.Rows) == 0 {
		return fmt.Errorf("the report of suite %s has no rows", rep.Suite)
	}
	for i, r := range rep.Rows {
		at := fmt.Sprintf("row %d (%s)", i+1, r.Case)
		switch {
		case r.Suite != rep.Suite:
			return fmt.Errorf("%s is of suite %q, not of the report's suite %s", at, r.Suite, rep.Suite)
		case r.Case == "":
			return fmt.Errorf("row %d names no case", i+1)
		case !(r.MedianUs > 0) || math.IsInf(r.MedianUs, 0):
			return fmt.Errorf("%s: median_us %v: a timed row has a positive median", at, r.MedianUs)
		}
		names := map[string]bool{}
		for _, p := range r.Peers {
			switch {
			case p.Name == "":
				return fmt.Errorf("%s: a peer without a name", at)
			case names[p.Name]:
				return fmt.Errorf("%s: peer %s given twice", at, p.Name)
			case !(p.MedianUs >= 0) || math.IsInf(p.MedianUs, 0):
				return fmt.Errorf("%s: peer %s: median_us %v", at, p.Name, p.MedianUs)
			case !(p.Speedup >= 0) || math.IsInf(p.Speedup, 0):
				return fmt.Errorf("%s: peer %s: speedup %v", at, p.Name, p.Speedup)
			}
			names[p.Name] = true
		}
	}
	return nil
}

// speedup is a peer's speed-up on row r: the report's, or the peer's
// median over ours when the report left it out; 0 when there is none.
func speedup(r registry.Row, p registry.Peer) float64 {
	if p.Speedup > 0 {
		return p.Speedup
	}
	if p.MedianUs > 0 && r.MedianUs > 0 {
		return p.MedianUs / r.MedianUs
	}
	return 0
}

// write prints every table.
func write(w io.Writer, tables []*table, o options) {
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeTable(w, t, o)
	}
}

// writeTable prints one suite's table and its geometric means.
func writeTable(w io.Writer, t *table, o options) {
	var peers []string
	known := map[string]bool{}
	for _, r := range t.rows {
		for _, p := range r.Peers {
			if !known[p.Name] {
				known[p.Name] = true
				peers = append(peers, p.Name)
			}
		}
	}
	fmt.Fprintf(w, "## %s\n\n", cell(t.suite))
	var from []string
	if t.device != "" {
		from = append(from, cell(t.device))
	}
	if o.run > 0 {
		from = append(from, fmt.Sprintf("run %d", o.run))
	}
	if o.commit != "" {
		from = append(from, "commit "+o.commit)
	}
	from = append(from, "from "+strings.Join(t.files, ", "))
	fmt.Fprintf(w, "%s. Medians in µs; a speed-up is the peer's median over ours (above 1, ours is faster).\n\n", strings.Join(from, "; "))

	head := []string{"case", "config", "ours µs"}
	for _, p := range peers {
		head = append(head, cell(p)+" µs", cell(p)+" speed-up")
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))

	for _, r := range t.rows {
		line := []string{cell(r.Case), cell(r.Config), us(r.MedianUs)}
		for _, name := range peers {
			p, ok := peerOf(r, name)
			if !ok {
				line = append(line, "-", "-")
				continue
			}
			pu, ps := "-", "-"
			if p.MedianUs > 0 {
				pu = us(p.MedianUs)
			}
			if s := speedup(r, p); s > 0 {
				ps = fmt.Sprintf("%.3fx", s)
			}
			line = append(line, pu, ps)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(line, " | "))
	}
	if len(peers) == 0 {
		return
	}
	// One mean per config when the rows have several (decode's dtypes
	// and query lengths are separate targets), then the suite's.
	var configs []string
	seen := map[string]bool{}
	for _, r := range t.rows {
		if !seen[r.Config] {
			seen[r.Config] = true
			configs = append(configs, r.Config)
		}
	}
	if len(configs) > 1 {
		for _, c := range configs {
			writeMean(w, "geometric mean, "+cell(c), t.rows, peers, func(r registry.Row) bool { return r.Config == c })
		}
	}
	writeMean(w, "geometric mean", t.rows, peers, func(registry.Row) bool { return true })
}

// writeMean prints the row of each peer's geometric-mean speed-up over the
// rows that in selects and that have one; "-" for a peer with none, and
// the count where fewer rows than selected have one.
func writeMean(w io.Writer, label string, rows []registry.Row, peers []string, in func(registry.Row) bool) {
	line := []string{label, "", ""}
	for _, name := range peers {
		sum, n, of := 0.0, 0, 0
		for _, r := range rows {
			if !in(r) {
				continue
			}
			of++
			if p, ok := peerOf(r, name); ok {
				if s := speedup(r, p); s > 0 {
					sum += math.Log(s)
					n++
				}
			}
		}
		g := "-"
		if n > 0 {
			g = fmt.Sprintf("**%.3fx**", math.Exp(sum/float64(n)))
			if n < of {
				g += fmt.Sprintf(" (%d of %d rows)", n, of)
			}
		}
		line = append(line, "", g)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(line, " | "))
}

// peerOf finds the peer called name on row r.
func peerOf(r registry.Row, name string) (registry.Peer, bool) {
	for _, p := range r.Peers {
		if p.Name == name {
			return p, true
		}
	}
	return registry.Peer{}, false
}

// us formats a median in µs to about four significant digits.
func us(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.1f", v)
	case v >= 10:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

// cell makes s safe inside a markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

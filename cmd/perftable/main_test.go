package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.md")

// runCmd runs the command on args and returns its exit code and outputs.
func runCmd(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(args, &out, &errs)
	return code, out.String(), errs.String()
}

func td(name string) string { return filepath.Join("testdata", name) }

// TestGolden writes the tables of four reports of three suites (two of
// attn_decode, merged, with a mean per config; kda_fwd with a peer missing
// on one row; tutorials with a row without peers and a config holding a
// '|') and compares them
// with testdata/golden.md; `go test ./cmd/perftable -update` rewrites it.
func TestGolden(t *testing.T) {
	code, out, errs := runCmd("--run", "61", "--commit", "c72e118",
		td("tutorials.json"), td("decode_bf16.json"), td("kda.json"), td("decode_fp8.json"))
	require.Equal(t, 0, code, errs)
	require.Empty(t, errs)
	path := td("golden.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	require.Equal(t, string(want), out, "tables changed; rerun with -update if intended")
}

// TestGeomean checks the figures the golden file shows: the geometric mean
// of the speed-ups, a speed-up the report left out computed from the
// medians, and a peer's mean over only the rows that have it.
func TestGeomean(t *testing.T) {
	code, out, errs := runCmd(td("decode_bf16.json"))
	require.Equal(t, 0, code, errs)
	// 15.8/10.9, 42.8/41.2, 28.4/26.2 (left out: from the medians), 15.2/11.0
	require.Contains(t, out, "| skewed_mix | bf16 sq1 nhd | 26.20 | 28.40 | 1.084x |\n")
	require.Contains(t, out, "| geometric mean |  |  |  | **1.225x** |\n")
	require.Contains(t, out, "NVIDIA H200; from decode_bf16.json.")
	require.NotContains(t, out, "geometric mean, ", "one config: no mean per config")

	code, out, errs = runCmd(td("decode_bf16.json"), td("decode_fp8.json"))
	require.Equal(t, 0, code, errs)
	// 12.6/10.2, 27.6/26.9
	require.Contains(t, out, "| geometric mean, fp8 q1 sq1 nhd |  |  |  | **1.126x** |\n")

	code, out, errs = runCmd(td("kda.json"))
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "| H64_varlen6 | f32 state | 655.0 | 1011 | 1.544x | - | - |\n")
	require.Contains(t, out, "(4 of 5 rows)")
}

// TestErrors checks that every bad input is refused with an error naming
// the file and what is wrong, and that nothing is written then.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rep registry.Report) string {
		data, err := json.Marshal(rep)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	timed := func(c string) registry.Row {
		return registry.Row{Suite: "attn_decode", Case: c, Config: "bf16 sq1 nhd", MedianUs: 10}
	}
	otherDevice := write("a100.json", registry.Report{Suite: "attn_decode", Device: "NVIDIA A100", Rows: []registry.Row{timed("x")}})
	again := write("again.json", registry.Report{Suite: "attn_decode", Device: "NVIDIA H200", Rows: []registry.Row{timed("uniform_512")}})
	noSuite := write("nosuite.json", registry.Report{Rows: []registry.Row{timed("x")}})
	noRows := write("norows.json", registry.Report{Suite: "attn_decode"})
	peerless := timed("x")
	peerless.Peers = []registry.Peer{{MedianUs: 3}}
	noPeerName := write("nopeername.json", registry.Report{Suite: "attn_decode", Rows: []registry.Row{peerless}})
	twice := timed("x")
	twice.Peers = []registry.Peer{{Name: "HPC-Ops", MedianUs: 3}, {Name: "HPC-Ops", MedianUs: 4}}
	peerTwice := write("peertwice.json", registry.Report{Suite: "attn_decode", Rows: []registry.Row{twice}})
	negative := timed("x")
	negative.Peers = []registry.Peer{{Name: "HPC-Ops", MedianUs: -3}}
	negPeer := write("negpeer.json", registry.Report{Suite: "attn_decode", Rows: []registry.Row{negative}})

	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"dry run", []string{td("dry.json")}, 1, []string{"dry.json", "a dry-run report of suite attn_decode", "no timings"}},
		{"bad JSON", []string{td("badjson.json")}, 1, []string{"badjson.json", "not a suite report"}},
		{"unknown field", []string{td("unknown.json")}, 1, []string{"unknown.json", `unknown field "speedup_vs_hpc"`}},
		{"row of another suite", []string{td("othersuite.json")}, 1, []string{"othersuite.json", `row 2 (H96_fixed) is of suite "kda_fwd", not of the report's suite attn_decode`}},
		{"two reports in a file", []string{td("two.json")}, 1, []string{"two.json", "data after the report"}},
		{"no median", []string{td("nomedian.json")}, 1, []string{"nomedian.json", "row 1 (uniform_512): median_us 0"}},
		{"missing file", []string{td("nope.json")}, 1, []string{"nope.json", "no such file"}},
		{"a good file then a bad one", []string{td("decode_bf16.json"), td("dry.json")}, 1, []string{"dry.json"}},
		{"another device", []string{td("decode_bf16.json"), otherDevice}, 1, []string{"a100.json", `"NVIDIA A100"`, "decode_bf16.json", `"NVIDIA H200"`}},
		{"a case given twice", []string{td("decode_bf16.json"), again}, 1, []string{"again.json", `case "uniform_512" with config "bf16 sq1 nhd" is already in`, "decode_bf16.json"}},
		{"no suite", []string{noSuite}, 1, []string{"nosuite.json", "names no suite"}},
		{"no rows", []string{noRows}, 1, []string{"norows.json", "has no rows"}},
		{"a peer without a name", []string{noPeerName}, 1, []string{"nopeername.json", "a peer without a name"}},
		{"a peer twice", []string{peerTwice}, 1, []string{"peertwice.json", "peer HPC-Ops given twice"}},
		{"a negative peer median", []string{negPeer}, 1, []string{"negpeer.json", "peer HPC-Ops: median_us -3"}},
		{"no files", nil, 2, []string{"no report files", "usage:"}},
		{"bad --run", []string{"--run", "-1", td("kda.json")}, 2, []string{"--run -1"}},
		{"bad --commit", []string{"--commit", "main", td("kda.json")}, 2, []string{`--commit "main"`}},
		{"unknown flag", []string{"--runs", "3", td("kda.json")}, 2, []string{"-runs", "usage:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCmd(c.args...)
			require.Equal(t, c.code, code)
			require.Empty(t, out, "nothing is written when an input is bad")
			require.True(t, strings.HasPrefix(errs, "perftable: "), errs)
			for _, w := range c.want {
				require.Contains(t, errs, w)
			}
		})
	}
}

// TestHelp prints the usage on standard output and succeeds.
func TestHelp(t *testing.T) {
	code, out, errs := runCmd("-h")
	require.Equal(t, 0, code)
	require.Empty(t, errs)
	require.Contains(t, out, "usage: perftable [--run N] [--commit C] REPORT.json...")
}

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// Every registered suite's dry run prints the one schema: rows of that
// suite, each with its work (FLOPs or bytes, except the host-side rows),
// and the builds the timed run compiles.
func TestSuitesDryRunSchema(t *testing.T) {
	t.Parallel()
	suites := registry.Suites()
	require.NotEmpty(t, suites)
	for _, s := range suites {
		t.Run(s.Name, func(t *testing.T) {
			code, out, errs := runCLI("bench", s.Name, "--dry-run", "--json")
			require.Equal(t, 0, code, errs)
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			var rep registry.Report
			require.NoError(t, dec.Decode(&rep))
			require.Equal(t, s.Name, rep.Suite)
			require.True(t, rep.DryRun)
			require.NotEmpty(t, rep.Rows)
			require.NotEmpty(t, rep.Builds)
			work := 0
			for _, r := range rep.Rows {
				require.Equal(t, s.Name, r.Suite)
				require.NotEmpty(t, r.Case)
				require.NotEmpty(t, r.Kernel, r.Case)
				require.Zero(t, r.MedianUs, "a dry run times nothing")
				if r.FLOPs > 0 || r.Bytes > 0 {
					work++
				}
			}
			require.Greater(t, work, len(rep.Rows)/2, "most rows carry their work")
			code, text, _ := runCLI("bench", s.Name, "--dry-run")
			require.Equal(t, 0, code)
			require.Contains(t, text, s.Name+" on NVIDIA H200 (dry run)")
		})
	}
}

func TestBenchListAndHelp(t *testing.T) {
	code, out, _ := runCLI("bench", "list")
	require.Equal(t, 0, code)
	for _, s := range registry.Suites() {
		require.Contains(t, out, s.Name)
	}
	code, out, _ = runCLI("help", "bench")
	require.Equal(t, 0, code)
	require.Contains(t, out, "--dry-run")
	require.Contains(t, out, "tutorials")
	code, out, _ = runCLI("bench", "tutorials", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "-parts")
	require.Contains(t, out, "bandwidth ceiling")
}

func TestBenchSuiteUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "tutorials", "--reps", "0"}, "--reps 0"},
		{[]string{"bench", "tutorials", "--parts", "fp8,fp9"}, `no part "fp9"`},
		{[]string{"bench", "tutorials", "--peer", "x.json"}, "--peer x.json: open x.json: no such file"},
		{[]string{"bench", "builds", "nosuch"}, `no suite "nosuch"`},
		{[]string{"bench", "list", "--parts", "x"}, "flag provided but not defined"},
	} {
		code, _, errs := runCLI(c.args...)
		require.Equal(t, 2, code, c.args)
		require.Contains(t, errs, c.want, c.args)
	}
}

// The one text printer: peers in columns, their geometric means after.
func TestPrintTable(t *testing.T) {
	rows := []registry.Row{
		registry.Row{Suite: "s", Case: "a", Config: "c", Kernel: "k", FLOPs: 2e9}.Timed(timing(1)),
		registry.Row{Suite: "s", Case: "b", Config: "c", Kernel: "k", Bytes: 1e9, FloorUs: 400}.Timed(timing(0.5)),
	}
	rows[0].AddPeer("peer", 2000)
	rows[1].AddPeer("peer", 250)
	var b bytes.Buffer
	printTable(&b, registry.Report{Suite: "s", Device: "gpu", Rows: rows})
	out := b.String()
	require.Contains(t, out, "2.000 TFLOP/s")
	require.Contains(t, out, "2.000 TB/s")
	require.Contains(t, out, "peer us")
	require.Contains(t, out, "speed-up over peer: geometric mean 1.000x over 2 cases")
}

func timing(ms float64) tle.Timing { return tle.Timing{MedianMs: ms, MinMs: ms, Reps: 1} }

// The mesh suites: their flags are checked before anything runs, and
// without a GPU (or NCCL) the error says what is missing.
func TestCollectiveSuites(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "allreduce", "--devices", "0"}, "--devices: 0: want at least 1"},
		{[]string{"bench", "allgather", "--dtype", "f16"}, `--dtype: "f16": want bf16 or f32`},
		{[]string{"bench", "reducescatter", "--min", "1G", "--max", "4K"}, "--min: 1G is above --max 4K"},
		{[]string{"bench", "allreduce", "--max", "lots"}, `--max: "lots" is not a size`},
		{[]string{"bench", "allreduce", "--block", "100"}, "--block: collectives: block 100"},
		{[]string{"bench", "allgather", "--devices", "8", "--dtype", "f32", "--min", "16", "--max", "16"}, "fewer than one element per device"},
	} {
		code, _, errs := runCLI(c.args...)
		require.Equal(t, 2, code, c.args)
		require.Contains(t, errs, c.want, c.args)
	}
	code, out, errs := runCLI("bench", "allgather", "--devices", "4", "--dtype", "f32", "--max", "8K", "--dry-run")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "8KiB  f32, 4 devices  all_gather")
	require.Contains(t, out, "8KiB  f32, 4 devices  nccl")
	if _, err := tle.OpenGPU(); err == nil {
		return // a GPU host: the suite would run
	}
	code, _, errs = runCLI("bench", "allreduce", "--devices", "2", "--max", "4K")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "allreduce needs a GPU")
}

// bench builds without names leaves the mesh suites out (ir_same compares
// the single-GPU timed builds); named, they are built.
func TestBenchBuildsLeavesMeshSuitesOut(t *testing.T) {
	names := func(ss []*registry.Suite) (out []string) {
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	all, err := buildSuites(nil)
	require.NoError(t, err)
	require.NotEmpty(t, all)
	require.Len(t, all, len(registry.Suites())-3)
	for _, n := range []string{"allreduce", "allgather", "reducescatter"} {
		require.NotContains(t, names(all), n)
	}
	named, err := buildSuites([]string{"allgather", "tutorials"})
	require.NoError(t, err)
	require.Equal(t, []string{"allgather", "tutorials"}, names(named))
	_, err = buildSuites([]string{"nosuch"})
	require.ErrorContains(t, err, `no suite "nosuch"`)
}

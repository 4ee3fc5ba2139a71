package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// Every command that compiles declares the compile flags alike: each of
// them, with compileFlags' usage and default, is a flag of build and run.
func TestCompileFlagsShared(t *testing.T) {
	want := flag.NewFlagSet("want", flag.ContinueOnError)
	(&compileFlags{}).register(want)
	n := 0
	want.VisitAll(func(*flag.Flag) { n++ })
	require.Equal(t, 11, n, "-D, --arch, --toolchain and eight more")
	for _, name := range []string{"build", "run"} {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		commands[name].flags(fs)
		want.VisitAll(func(w *flag.Flag) {
			f := fs.Lookup(w.Name)
			require.NotNil(t, f, "tlec %s has no --%s", name, w.Name)
			require.Equal(t, w.Usage, f.Usage, "tlec %s --%s", name, w.Name)
			require.Equal(t, w.DefValue, f.DefValue, "tlec %s --%s", name, w.Name)
		})
	}
}

// The flags become the API's options field by field; their defaults are
// the API's zero values (sm_90a and auto aside, which the API also takes
// for empty ones).
func TestCompileFlagsOptions(t *testing.T) {
	parse := func(args ...string) *compileFlags {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c := &compileFlags{}
		c.register(fs)
		require.NoError(t, fs.Parse(args))
		return c
	}
	opts, err := parse().options()
	require.NoError(t, err)
	require.Equal(t, tle.CompileOptions{Defines: map[string]string{}, DumpDir: "."}, opts)
	g, err := parse().gpuOptions()
	require.NoError(t, err)
	require.Equal(t, tle.GPUOptions{Arch: "sm_90a"}, g, "the toolchain: $TLE_TOOLCHAIN, else auto")

	c := parse("-D", "BLOCK=128", "--num-warps", "8", "--num-stages", "2", "--min-ctas", "3", "--loop-addresses",
		"--dot-wgmma=false", "--verify-each", "--dump-after", "all", "--dump-dir", "/tmp/d", "--arch", "sm_80", "--toolchain", "llc")
	opts, err = c.options()
	require.NoError(t, err)
	require.Equal(t, tle.CompileOptions{Defines: map[string]string{"BLOCK": "128"}, NumWarps: 8, NumStages: 2, MinCTAsPerSM: 3,
		LoopAddresses: true, DotMMASync: true, VerifyEach: true, DumpAfter: "all", DumpDir: "/tmp/d"}, opts)
	g, err = c.gpuOptions()
	require.NoError(t, err)
	require.Equal(t, tle.GPUOptions{Arch: "sm_80", Toolchain: "llc"}, g)

	_, err = parse("-D", "B=1", "-D", "B=2").options()
	require.ErrorContains(t, err, "bound twice")
	_, err = parse("--arch", "sm_70").gpuOptions()
	require.ErrorContains(t, err, "sm_70")
}

// tlec run takes the build's --loop-addresses (it had none) and --arch,
// checked before the file is read.
func TestRunCompileFlags(t *testing.T) {
	x := "x=" + abs(t, "../../examples/x_4x100.npy")
	dir := t.TempDir()
	r := tlec(t, dir, softmaxRun(t, "--arg", x, "--arg", "n_cols=100", "--loop-addresses", "--save", "out=o.npy")...)
	require.Equal(t, 0, r.code, r.stderr)
	r = tlec(t, dir, softmaxRun(t, "--arg", x, "--arg", "n_cols=100", "--arch", "sm_70")...)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "tlec run: --arch \"sm_70\": not a target")
}

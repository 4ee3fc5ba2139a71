package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A single-valued flag given twice is a usage error everywhere (--grid 4
// --grid 1 ran one program: a wrong result with exit 0); -D, --arg and
// --save stay repeatable.
func TestRepeatedFlags(t *testing.T) {
	sm := "../../kernels/tutorials/softmax.tle"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", sm, "--kernel", "softmax", "--grid", "4", "--grid", "1"}, "--grid is given twice (4, then 1): give it once"},
		{[]string{"build", sm, "--kernel", "softmax", "--emit", "tir", "--emit", "ll"}, "--emit is given twice (tir, then ll)"},
		{[]string{"build", sm, "--kernel", "softmax", "--kernel", "other"}, "--kernel is given twice"},
		{[]string{"op", "kda_fwd", "--in", "a", "--in", "b"}, "--in is given twice"},
		{[]string{"bench", "tutorials", "--dry-run", "--json", "--json"}, "--json is given twice"},
		{[]string{"check", sm, "--arch", "sm_90a", "--arch", "sm_80"}, "--arch is given twice"},
	} {
		code, _, errs := runCLI(c.args...)
		require.Equal(t, 2, code, "%v: %s", c.args, errs)
		require.Contains(t, errs, c.want, c.args)
	}
	code, _, errs := runCLI("check", "-D", "BLOCK=128", "-D", "N=4", sm)
	require.NotContains(t, errs, "given twice")
	require.NotEqual(t, 2, code, errs)
}

// Every flag's value is checked, whether or not this run uses it
// (--toolchain bogus passed with --emit tir or --device cpu).
func TestUnusedFlagValuesChecked(t *testing.T) {
	sm := "../../kernels/tutorials/softmax.tle"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"build", sm, "--kernel", "softmax", "-D", "BLOCK=128", "--emit", "tir", "--toolchain", "bogus"}, `--toolchain "bogus": want auto, llc or nvvm`},
		{[]string{"run", sm, "--kernel", "softmax", "-D", "BLOCK=128", "--grid", "1", "--device", "cpu", "--toolchain", "bogus"}, `--toolchain "bogus"`},
		{[]string{"build", sm, "--kernel", "softmax", "-D", "BLOCK=128", "--emit", "tir", "--dump-after", "nopass"}, `--dump-after "nopass": no such pass`},
		{[]string{"run", sm, "--kernel", "softmax", "-D", "BLOCK=128", "--grid", "1", "--device", "cpu", "--num-warps", "3"}, "--num-warps 3: want a power of two"},
		{[]string{"run", sm, "--kernel", "softmax", "-D", "BLOCK=128", "--grid", "1", "--device", "gpu0"}, `--device "gpu0": want auto, cpu or cuda`},
	} {
		code, _, errs := runCLI(c.args...)
		require.Equal(t, 2, code, "%v: %s", c.args, errs)
		require.Contains(t, errs, c.want, c.args)
	}
}

// --help shows each flag's own type and default: the repeat guard's
// wrappers are gone by then.
func TestHelpFlagsAfterGuard(t *testing.T) {
	for _, cmd := range [][]string{{"build", "--help"}, {"run", "-h"}, {"bench", "kda_fwd", "--help"}, {"op", "--help"}} {
		code, out, errs := runCLI(cmd...)
		require.Equal(t, 0, code, "%v: %s", cmd, errs)
		require.NotContains(t, out+errs, "panic", cmd)
		require.NotContains(t, out, " value\n", "%v: a flag lost its type", cmd)
	}
	_, out, _ := runCLI("build", "--help")
	require.Contains(t, out, "-num-warps int")
	require.Contains(t, out, `(default "sm_90a")`)
}

// A dry run plans for the --arch it is given, as the timed run compiles.
func TestBenchDryRunArch(t *testing.T) {
	code, out, errs := runCLI("bench", "tutorials", "--dry-run", "--json", "--parts", "matmul", "--arch", "sm_80")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "mmasync=true")
	require.NotContains(t, out, "mmasync=false")
}

package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/prefill"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// The attention suites' flags are refused (exit 2) before a GPU is looked
// for; without a GPU a suite exits 1 saying so.
func TestBenchAttnFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"attn_decode", "--cases", "uniform_512,nope"}, `--cases: no workload "nope"`},
		{[]string{"attn_decode", "--cluster", "3"}, `--cluster: 3: want 1, 2, 4 or 8`},
		{[]string{"attn_decode", "--schedule", "dynamic", "--cluster", "4"}, `--schedule: "dynamic": the dynamic schedule runs without the cluster merge`},
		{[]string{"attn_decode", "--ctas", "9"}, "--ctas: 9: want 1 to"},
		{[]string{"attn_prefill", "--cases", "nocache,nope"}, `--cases: no row's name contains "nope"`},
		{[]string{"attn_prefill", "--key-step", "32"}, "--key-step: 32: want 128 or 64"},
		{[]string{"attn_prefill", "--masks", filepath.Join(t.TempDir(), "nope")}, "no such file or directory"},
		{[]string{"attn_prefill", "--block-m", "64"}, "flag provided but not defined: -block-m"},
		{[]string{"attn_prefill", "--v-stages", "3"}, "flag provided but not defined: -v-stages"},
		{[]string{"attn_decode", "--toolchain", "bogus"}, `--toolchain "bogus"`},
	} {
		code, _, errs := runCLI(append([]string{"bench"}, c.args...)...)
		require.Equal(t, 2, code, "%v: %s", c.args, errs)
		require.Contains(t, errs, c.want, c.args)
	}
	if _, err := tle.OpenGPU(); err != nil {
		code, _, errs := runCLI("bench", "attn_decode", "--cases", "uniform_512")
		require.Equal(t, 1, code)
		require.Contains(t, errs, "attn_decode needs a GPU")
	}
}

// The prefill dry run plans every row on the CPU: names, masks, FLOPs.
func TestBenchPrefillDryRun(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI("bench", "attn_prefill", "--dry-run", "--json", "--cases", "512x4096")
	require.Equal(t, 0, code, errs)
	var rep registry.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Rows, 12) // 8 FP8, 4 BF16
	dense := prefill.FLOPs(prefill.Shapes[1])
	for _, r := range rep.Rows {
		require.Contains(t, r.Case, "512x4096")
		require.Zero(t, r.MedianUs)
		require.Equal(t, dense, r.Facts["dense_flops"])
		if d, ok := r.Facts["mask_density"]; ok {
			require.InDelta(t, 0.25, d, 0.03, r.Case)
			require.Less(t, r.FLOPs, dense/3)
			require.EqualValues(t, 16, r.Facts["max_tiles"])
		} else {
			require.Equal(t, dense, r.FLOPs)
		}
	}
	code, out, _ = runCLI("bench", "attn_prefill", "--dry-run", "--cases", "nocache/32768")
	require.Equal(t, 0, code)
	require.Regexp(t, `prefill_bf16_nocache/32768x32768\s+bf16 dense nhd, identity pages\s+attn_prefill_bf16_k128\s+8796\.36`, out)
	// 127 x 127: query i sees i + 1 keys, 127*128/2 = 8128 in all
	require.Equal(t, 4.0*128*32*8128, prefill.FLOPs(prefill.Shapes[0]))
	// 512 x 4096: query i sees 3585 + i keys
	require.Equal(t, 4.0*128*32*(512*3585+511*512/2), dense)
}

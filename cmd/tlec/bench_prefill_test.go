package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/prefill"
	"github.com/tlego/tle/tle"
)

// TestBenchPrefill: without a GPU the suite exits 1 saying so; the table
// prints each row by its HPC-Ops name; the FLOP count is the visible causal
// work.
func TestBenchPrefill(t *testing.T) {
	if _, err := tle.OpenGPU(); err != nil {
		code, _, errs := runCLI("bench", "attn_prefill")
		require.Equal(t, 1, code)
		require.Contains(t, errs, "attn_prefill needs a GPU")
	}
	var b bytes.Buffer
	printPrefill(&b, []prefill.BenchResult{
		{Name: "prefill_fp8_q0_masked_nhd/512x4096", Masked: true, MaskDensity: 0.2537, MaxTiles: 16, Us: 120.25, MinUs: 119.5, TFLOPs: 512.3, FLOPs: 8.18e9, DenseFLOPs: 32.22e9},
		{Name: "prefill_bf16_nocache/8192x8192", FLOPs: 549.8e9, DenseFLOPs: 549.8e9},
		{Name: "prefill_fp8_q1_dense_hnd/127x127", FLOPs: 0.13e9, DenseFLOPs: 0.13e9, Error: "ptxas: out of registers"},
	})
	require.Regexp(t, `prefill_fp8_q1_dense_hnd/127x127\s+-\s+-\s+-\s+-\s+-\s+0\.13\s+0\.13\s+ptxas: out of registers`, b.String())
	require.Regexp(t, `prefill_fp8_q0_masked_nhd/512x4096\s+120\.2\s+119\.5\s+512\.3\s+0\.254\s+16\s+8\.18\s+32\.22`, b.String())
	require.Regexp(t, `prefill_bf16_nocache/8192x8192\s+-\s+-\s+-\s+-\s+-\s+549\.80\s+549\.80`, b.String())
	// 127 x 127: query i sees i + 1 keys, 127*128/2 = 8128 in all
	require.Equal(t, 4.0*128*32*8128, prefill.FLOPs(prefill.Shapes[0]))
	// 512 x 4096: query i sees 3585 + i keys
	require.Equal(t, 4.0*128*32*(512*3585+511*512/2), prefill.FLOPs(prefill.Shapes[1]))
}

// TestBenchPrefillFlags: --cases picks rows by part of their names (a part
// matching none is refused, exit 2, before a GPU is looked for);
// --dry-run prints the rows untimed without a GPU, and is refused for
// another suite.
func TestBenchPrefillFlags(t *testing.T) {
	code, _, errs := runCLI("bench", "attn_prefill", "--cases", "nocache,nope")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `no attn_prefill row's name contains "nope"`)
	code, _, errs = runCLI("bench", "attn_decode", "--dry-run")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "--dry-run is for attn_prefill only")
	code, _, errs = runCLI("bench", "attn_prefill", "--key-step", "32")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "--key-step 32: want 128 or 64")
	code, _, errs = runCLI("bench", "attn_prefill", "--dry-run", "--masks", filepath.Join(t.TempDir(), "nope"))
	require.Equal(t, 2, code)
	require.Contains(t, errs, "--masks ")
	require.Contains(t, errs, "no such file or directory")

	rows, err := prefillRows("nocache, _q1_masked_hnd/512x4096")
	require.NoError(t, err)
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
	}
	require.Equal(t, []string{"prefill_fp8_q1_masked_hnd/512x4096", "prefill_bf16_nocache/4096x4096", "prefill_bf16_nocache/8192x8192", "prefill_bf16_nocache/32768x32768"}, names)
	all, err := prefillRows("")
	require.NoError(t, err)
	require.Len(t, all, 39)

	code, out, errs := runCLI("bench", "attn_prefill", "--dry-run", "--json", "--cases", "512x4096")
	require.Equal(t, 0, code, errs)
	var res []prefill.BenchResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res, 12) // 8 FP8, 4 BF16
	for _, r := range res {
		require.Equal(t, "512x4096", r.Case)
		require.Equal(t, "shuffled", r.Pages)
		require.Zero(t, r.Us)
		require.Equal(t, prefill.FLOPs(prefill.Shapes[1]), r.DenseFLOPs)
		if r.Masked {
			require.InDelta(t, 0.25, r.MaskDensity, 0.03, r.Name)
			require.Less(t, r.FLOPs, r.DenseFLOPs/3)
		} else {
			require.Equal(t, r.DenseFLOPs, r.FLOPs)
		}
	}
	require.Contains(t, out, `"name": "prefill_fp8_q0_dense_nhd/512x4096"`)
	require.Contains(t, out, `"mask_density"`)
	require.Contains(t, out, `"max_tiles": 16`)

	code, out, _ = runCLI("bench", "attn_prefill", "--dry-run", "--cases", "nocache/32768")
	require.Equal(t, 0, code)
	require.Regexp(t, `prefill_bf16_nocache/32768x32768\s+-\s+-\s+-\s+-\s+-\s+8796\.36\s+8796\.36`, out)
}

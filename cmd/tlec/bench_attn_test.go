package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention/decode"
	"github.com/tlego/tle/tle"
)

// TestBenchAttnFlags: a bad --cases, --cluster or --schedule is refused (exit 2) before a GPU is
// looked for; without a GPU the suite exits 1 saying so.
func TestBenchAttnFlags(t *testing.T) {
	code, _, errs := runCLI("bench", "attn_decode", "--cases", "uniform_512,nope")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `no workload "nope"`)
	code, _, errs = runCLI("bench", "attn_decode", "--cluster", "3")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `--cluster 3: want 1, 2, 4 or 8`)
	code, _, errs = runCLI("bench", "attn_decode", "--schedule", "dynamic", "--cluster", "4")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `--schedule "dynamic": the dynamic schedule runs without the cluster merge`)
	wls, err := attnWorkloads("skewed_extreme, uniform_512")
	require.NoError(t, err)
	require.Equal(t, "skewed_extreme", wls[0].Name)
	require.Equal(t, []int64{64}, wls[0].Lens[:1])
	require.Len(t, wls[0].Lens, 16)
	wls, err = attnWorkloads("large_mix_512") // beyond the spec's nine: named only
	require.NoError(t, err)
	require.Len(t, wls[0].Lens, 512)
	if _, err := tle.OpenGPU(); err != nil {
		code, _, errs = runCLI("bench", "attn_decode", "--cases", "uniform_512")
		require.Equal(t, 1, code)
		require.Contains(t, errs, "attn_decode needs a GPU")
	}
}

func TestPrintAttn(t *testing.T) {
	var b bytes.Buffer
	printAttn(&b, []decode.BenchResult{{Case: "uniform_4096", DType: "fp8", Quant: 1, Sq: 2, Layout: "hnd", B: 64, Schedule: "dynamic", Splits: 4, Cluster: 8,
		Us: 40.25, MinUs: 39.5, KVBytes: 67108864, TBps: 1.667, CopyTBps: 3.9, FloorUs: 17.2}})
	require.Contains(t, b.String(), "copy rate 3.900 TB/s")
	require.Regexp(t, `uniform_4096\s+fp8 q1\s+2\s+hnd\s+64\s+dynamic\s+4\s+8\s+40\.2\s+39\.5\s+1\.667\s+17\.2`, b.String())
}

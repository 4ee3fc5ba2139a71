package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/attention"
	"github.com/tlego/tle/tle"
)

// TestBenchPrefill: without a GPU the suite exits 1 saying so; the table
// prints each row; the FLOP count is the visible causal work.
func TestBenchPrefill(t *testing.T) {
	if _, err := tle.OpenGPU(); err != nil {
		code, _, errs := runCLI("bench", "attn_prefill")
		require.Equal(t, 1, code)
		require.Contains(t, errs, "attn_prefill needs a GPU")
	}
	var b bytes.Buffer
	printPrefill(&b, []attention.PrefillBenchResult{{Case: "512x4096", DType: "fp8", Quant: 0, Layout: "nhd", Us: 120.25, MinUs: 119.5, TFLOPs: 512.3}})
	require.Regexp(t, `512x4096\s+fp8 q0\s+nhd\s+120\.2\s+119\.5\s+512\.3`, b.String())
	// 127 x 127: query i sees i + 1 keys, 127*128/2 = 8128 in all
	require.Equal(t, 4.0*128*32*8128, attention.PrefillFLOPs(attention.PrefillShapes[0]))
	// 512 x 4096: query i sees 3585 + i keys
	require.Equal(t, 4.0*128*32*(512*3585+511*512/2), attention.PrefillFLOPs(attention.PrefillShapes[1]))
}

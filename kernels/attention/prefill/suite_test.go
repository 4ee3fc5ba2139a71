package prefill

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// HPC-Ops' figure of the row's name, and torch SDPA's cuDNN and FA2 on
// the self-attention rows, are the rows' peers.
func TestSuitePeers(t *testing.T) {
	row := func(name string, us float64) registry.Row {
		return registry.Row{Case: name, FLOPs: 1e9}.Timed(tle.Timing{MedianMs: us / 1e3, MinMs: us / 1e3})
	}
	rows := []registry.Row{row("prefill_fp8_q1_dense_nhd/512x4096", 100), row("prefill_bf16_nocache/4096x4096", 200)}
	require.NoError(t, addPeers([]byte(`{"results": [{"name": "prefill_fp8_q1_dense_nhd/512x4096", "us": 120}]}`), rows))
	require.Equal(t, []registry.Peer{{Name: "HPC-Ops", MedianUs: 120, Speedup: 1.2}}, rows[0].Peers)
	require.NoError(t, addPeers([]byte(`{"cudnn_gqa32_4_causal_S4096": {"ms": 0.25}, "flash2_gqa32_4_causal_S4096": {"ms": 0.4},
		"cudnn_mha_causal_S4096": {"ms": 9}, "flash2_gqa32_4_causal_S8192": {"err": "oom"}}`), rows))
	require.Equal(t, []registry.Peer{{Name: "cuDNN", MedianUs: 250, Speedup: 1.25}, {Name: "FA2", MedianUs: 400, Speedup: 2}}, rows[1].Peers)
	require.Len(t, rows[0].Peers, 1, "SDPA times no paged row")
	require.ErrorContains(t, addPeers([]byte(`{"results": []}`), rows), "no prefill figure")
	require.ErrorContains(t, addPeers([]byte(`{"x": 1}`), rows), "neither HPC-Ops' hpc_attn.json nor torch SDPA's sdpa_prefill.json")
}

func TestRowsOf(t *testing.T) {
	rows, err := RowsOf("nocache, _q1_masked_hnd/512x4096")
	require.NoError(t, err)
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
	}
	require.Equal(t, []string{"prefill_fp8_q1_masked_hnd/512x4096", "prefill_bf16_nocache/4096x4096", "prefill_bf16_nocache/8192x8192", "prefill_bf16_nocache/32768x32768"}, names)
	all, err := RowsOf("")
	require.NoError(t, err)
	require.Len(t, all, 39)
	_, err = RowsOf("nope")
	require.ErrorContains(t, err, `no row's name contains "nope"`)
}

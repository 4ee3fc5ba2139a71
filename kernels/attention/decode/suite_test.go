package decode

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// HPC-Ops' dynamic-split call is each NHD row's peer; an HND row gets
// none, a file of another kind is refused.
func TestSuitePeers(t *testing.T) {
	hpc := []byte(`{"meta": {}, "results": [
	 {"name": "decode_bf16_dynamic_sq1_nhd/uniform_512 [compute+combine]", "us": 30.0},
	 {"name": "decode_bf16_dynamic_sq1_nhd/uniform_512 [assign+compute+combine]", "us": 40.0},
	 {"name": "decode_fp8q1_dynamic_sq1_nhd/uniform_512 [compute+combine]", "us": 20.0},
	 {"name": "decode_bf16_dynamic_sq2_nhd/uniform_512", "error": "boom"}]}`)
	row := func(cfg string, us float64) registry.Row {
		return registry.Row{Case: "uniform_512", Config: cfg, Bytes: 1e6}.Timed(tle.Timing{MedianMs: us / 1e3, MinMs: us / 1e3})
	}
	rows := []registry.Row{row("bf16 sq1 nhd", 25), row("bf16 sq1 hnd", 25), row("fp8q1 sq1 nhd", 10), row("bf16 sq2 nhd", 25)}
	require.NoError(t, addPeers(hpc, rows))
	require.Equal(t, []registry.Peer{{Name: "HPC-Ops", MedianUs: 30, Speedup: 1.2}}, rows[0].Peers)
	require.Empty(t, rows[1].Peers)
	require.Equal(t, 2.0, rows[2].Peers[0].Speedup)
	require.Empty(t, rows[3].Peers, "HPC-Ops failed there")
	require.ErrorContains(t, addPeers([]byte(`{"cudnn_x": {"ms": 1}}`), rows), "not HPC-Ops' hpc_attn.json")
	require.ErrorContains(t, addPeers([]byte(`{"results": []}`), rows), "no decode figure")
	require.ErrorContains(t, addPeers([]byte(`[`), rows), "not a JSON object")
}

func TestWorkloadsOf(t *testing.T) {
	wls, err := WorkloadsOf("skewed_extreme, uniform_512")
	require.NoError(t, err)
	require.Equal(t, "skewed_extreme", wls[0].Name)
	require.Len(t, wls[0].Lens, 16)
	wls, err = WorkloadsOf("large_mix_512") // beyond the spec's nine: named only
	require.NoError(t, err)
	require.Len(t, wls[0].Lens, 512)
	_, err = WorkloadsOf("nope")
	require.ErrorContains(t, err, `no workload "nope"`)
}

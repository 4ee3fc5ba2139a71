package kda

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// The peer file's medians become each row's peers, with the speed-ups
// over ours; FLA's failure is a fact of the row, not a figure.
func TestSuitePeers(t *testing.T) {
	raw, err := os.ReadFile("testdata/kda_peers.json")
	require.NoError(t, err)
	row := func(c BenchConfig, ms float64) registry.Row {
		return registry.Row{Suite: "kda_fwd", Case: c.PeerKey(), Bytes: 1e9, Facts: map[string]any{"state": StateF32}}.Timed(tle.Timing{MedianMs: ms, MinMs: ms})
	}
	// FlashKDA 1.0 and 1.75 ms, FLA 2.0 and 3.5 ms in the file
	rows := []registry.Row{row(BenchConfigs[0], 0.5), row(BenchConfigs[6], 1.0)}
	require.NoError(t, addPeers(raw, rows))
	require.Equal(t, []registry.Peer{{Name: "FlashKDA", MedianUs: 1000, Speedup: 2}, {Name: "FLA", MedianUs: 2000, Speedup: 4}}, rows[0].Peers)
	require.InDelta(t, 1.75, rows[1].Peers[0].Speedup, 1e-12)
	require.Equal(t, []float64{500, 500}, rows[0].Facts["flashkda_parts_us"])

	partial, err := os.ReadFile("testdata/kda_peers_partial.json")
	require.NoError(t, err)
	rows = []registry.Row{row(BenchConfigs[5], 1.0)}
	require.NoError(t, addPeers(partial, rows))
	require.Len(t, rows[0].Peers, 1, "FLA failed on this configuration")
	require.Equal(t, "CUDA out of memory", rows[0].Facts["fla_error"])
	require.ErrorContains(t, addPeers(partial, []registry.Row{row(BenchConfigs[6], 1)}), `no key "flashkda_f32state_H96_T1024_ms"`)
	require.ErrorContains(t, addPeers(raw, []registry.Row{{Case: "H1_x", Facts: map[string]any{"state": "f32"}}}), "not a kda_fwd configuration")
}

func TestConfigsOf(t *testing.T) {
	all, err := ConfigsOf("")
	require.NoError(t, err)
	require.Len(t, all, 8)
	cs, err := ConfigsOf("7, 8,1")
	require.NoError(t, err)
	require.Equal(t, []string{"H96_T1024", "H64_T32768", "H96_fixed"}, []string{cs[0].PeerKey(), cs[1].PeerKey(), cs[2].PeerKey()})
	for _, bad := range []string{"9", "0", "x", "1,", "-1"} {
		_, err := ConfigsOf(bad)
		require.ErrorContains(t, err, "want 1-based indices in [1, 8]", bad)
	}
}

package tutorials

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

func TestSuitePeers(t *testing.T) {
	row := func(c string, ms float64) registry.Row {
		return registry.Row{Case: c, FLOPs: 1e12}.Timed(tle.Timing{MedianMs: ms, MinMs: ms})
	}
	rows := []registry.Row{row("matmul_tma 8192^3 bf16", 1.0), row("matmul_fp8 4096^3 f8e4m3", 0.2),
		row("attention causal B1 H32 S4096 D128", 0.5), row("softmax 4096x8192 f32", 0.1)}
	require.NoError(t, addPeers([]byte(`{"cublas_bf16_8192": {"ms": 1.1}, "cublaslt_fp8_4096": {"ms": 0.25}, "cublaslt_fp8_8192": {"err": "x"}}`), rows))
	require.Equal(t, []registry.Peer{{Name: "cuBLAS", MedianUs: 1100, Speedup: 1.1}}, rows[0].Peers)
	require.InDelta(t, 1.25, rows[1].Peers[0].Speedup, 1e-9)
	require.NoError(t, addPeers([]byte(`{"cudnn_mha_causal_S4096": {"ms": 0.4}, "flash2_mha_causal_S4096": {"ms": 0.8}, "cudnn_gqa32_4_causal_S4096": {"ms": 9}}`), rows))
	require.Equal(t, []string{"cuDNN", "FA2"}, []string{rows[2].Peers[0].Name, rows[2].Peers[1].Name})
	require.Empty(t, rows[3].Peers)
	require.ErrorContains(t, addPeers([]byte(`{"x": {"ms": 1}}`), rows), "no figure for these rows")
	require.ErrorContains(t, addPeers([]byte(`[`), rows), "neither")
}

package tutorials

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// cuBLAS and cuBLASLt join the matmuls of their size and dtype, cuDNN and
// FA2 (MHA) the attention tutorial's rows; other rows get no peer.
func TestSuitePeers(t *testing.T) {
	var rows []registry.Row
	for c, ms := range map[string]float64{"matmul_tma 8192^3 bf16": 1.0, "matmul_fp8 4096^3 f8e4m3": 0.2,
		"attention causal B1 H32 S4096 D128": 0.5, "softmax 4096x8192 f32": 0.1} {
		rows = append(rows, registry.Row{Case: c, FLOPs: 1e12}.Timed(tle.Timing{MedianMs: ms, MinMs: ms}))
	}
	byCase := func(c string) *registry.Row {
		for i := range rows {
			if rows[i].Case == c {
				return &rows[i]
			}
		}
		t.Fatalf("no row %s", c)
		return nil
	}
	require.NoError(t, addPeers([]byte(`{"cublas_bf16_8192": {"ms": 1.1}, "cublaslt_fp8_4096": {"ms": 0.25}, "cublaslt_fp8_8192": {"err": "x"}}`), rows))
	require.Equal(t, []registry.Peer{{Name: "cuBLAS", MedianUs: 1100, Speedup: 1.1}}, byCase("matmul_tma 8192^3 bf16").Peers)
	require.InDelta(t, 1.25, byCase("matmul_fp8 4096^3 f8e4m3").Peers[0].Speedup, 1e-9)
	require.NoError(t, addPeers([]byte(`{"cudnn_mha_causal_S4096": {"ms": 0.4}, "flash2_mha_causal_S4096": {"ms": 0.8}, "cudnn_gqa32_4_causal_S4096": {"ms": 9}}`), rows))
	att := byCase("attention causal B1 H32 S4096 D128").Peers
	require.Equal(t, []string{"cuDNN", "FA2"}, []string{att[0].Name, att[1].Name})
	require.Empty(t, byCase("softmax 4096x8192 f32").Peers)
	require.ErrorContains(t, addPeers([]byte(`{"x": {"ms": 1}}`), rows), "no figure for these rows")
	require.ErrorContains(t, addPeers([]byte(`[`), rows), "neither")
}

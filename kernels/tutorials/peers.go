package tutorials

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/tlego/tle/kernels/registry"
)

// peerFigure is one entry of the peer scripts' JSON (matmul_peers.py,
// sdpa_prefill.py in ../shared/peers): a median in ms, or why there is
// none.
type peerFigure struct {
	Ms  float64 `json:"ms"`
	Err string  `json:"err"`
}

var (
	matmulCase    = regexp.MustCompile(`^\S.* (\d+)\^3 (bf16|f8e4m3)$`)
	attentionCase = regexp.MustCompile(`^attention causal B1 H32 S(\d+) D128$`)
)

// addPeers adds the peers of the same session to the tutorials' rows:
// cuBLAS (bf16) and cuBLASLt (FP8) of matmul_peers.py to the matmuls of
// their size and dtype, torch SDPA's cuDNN and FA2 (32 heads, MHA) of
// sdpa_prefill.py to the attention tutorial's rows.
func addPeers(file []byte, rows []registry.Row) error {
	var figs map[string]peerFigure
	if err := json.Unmarshal(file, &figs); err != nil {
		return fmt.Errorf("neither matmul_peers.json nor sdpa_prefill.json: %v", err)
	}
	n := 0
	add := func(r *registry.Row, key, name string) {
		if f, ok := figs[key]; ok && f.Ms > 0 {
			r.AddPeer(name, f.Ms*1e3)
			n++
		}
	}
	for i := range rows {
		r := &rows[i]
		if m := matmulCase.FindStringSubmatch(r.Case); m != nil {
			if m[2] == "bf16" {
				add(r, "cublas_bf16_"+m[1], "cuBLAS")
			} else {
				add(r, "cublaslt_fp8_"+m[1], "cuBLASLt")
			}
		}
		if m := attentionCase.FindStringSubmatch(r.Case); m != nil {
			add(r, "cudnn_mha_causal_S"+m[1], "cuDNN")
			add(r, "flash2_mha_causal_S"+m[1], "FA2")
		}
	}
	if n == 0 {
		return errors.New("the file has no figure for these rows (matmul_peers.json: cublas_bf16_N, cublaslt_fp8_N; sdpa_prefill.json: cudnn_mha_causal_SN)")
	}
	return nil
}

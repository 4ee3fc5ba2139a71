package nvptx

import (
	"strings"
	"testing"

	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
)

// backendKinds are the op kinds the layout and pipelining passes add; the
// verifier of ir does not know them yet (they need registering there).
var backendKinds = []ir.Kind{gpu.OpConvertLayout, gpu.OpAsyncCopy, gpu.OpAsyncCommit, gpu.OpAsyncWait}

// TestVerifyAfterPasses checks that the passes leave valid IR (apart from
// the backend op kinds the verifier does not know) that prints and parses
// back.
func TestVerifyAfterPasses(t *testing.T) {
	for name, m := range map[string]*ir.Module{
		"vector_add": vectorAddIR(1024, false), "softmax": softmaxIR(8192, 16), "layer_norm": layerNormIR(1024),
		"matmul": matmulIR(128, 128, 32, 8, 8, ir.BF16), "attention": attentionIR(64, 64, 64, 4, 0.1),
		"cumsum": cumsumIR(1024, 4), "transpose": transIR(64, 32),
	} {
		if err := ir.Verify(m); err != nil {
			t.Fatalf("%s before the passes: %v", name, err)
		}
		if err := Prepare(m, 4); err != nil {
			t.Fatal(err)
		}
		if err := ir.Verify(m); err != nil {
			for _, line := range strings.Split(err.Error(), "\n")[1:] {
				known := false
				for _, k := range backendKinds {
					if strings.Contains(line, `unknown op kind "`+string(k)+`"`) {
						known = true
					}
				}
				if !known {
					t.Errorf("%s after the passes: %s", name, line)
				}
			}
		}
		txt := ir.Print(m)
		back, err := ir.Parse(name+".tir", []byte(txt))
		if err != nil {
			t.Errorf("%s: the text form does not parse back: %v", name, err)
			continue
		}
		if got := ir.Print(back); got != txt {
			t.Errorf("%s: print(parse(print)) differs", name)
		}
	}
}

package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/frontend/parser/parsertest"
)

// FuzzCheck runs the front end, parser then checker, on any byte string:
// it must give diagnostics or a checked file, never a panic, an internal
// error or a hang. Seeded with every .tle file of the repository and the
// language sketch's programs.
//
//	go test -run XXX -fuzz FuzzCheck -fuzztime 5m ./tests
func FuzzCheck(f *testing.F) {
	configs := []check.Config{
		{},
		{Defines: map[string]string{"BLOCK": "64", "BM": "128", "BN": "64", "BK": "32", "N": "3", "CAP": "2", "ROWS": "4", "ROW": "32"}},
	}
	parsertest.Fuzz(f, 64<<10, func(t *testing.T, src []byte) {
		start := time.Now()
		file, err := parser.ParseFile("fuzz.tle", src)
		if err != nil {
			if _, ok := err.(diag.List); !ok {
				t.Fatalf("parse error is a %T: %v", err, err)
			}
			return
		}
		for _, conf := range configs {
			_, errs := check.Check(file, conf)
			for _, d := range errs {
				if d.File == nil || d.Pos < 0 || int(d.Pos) > len(src) {
					t.Fatalf("diagnostic without a position in the source: %v", d)
				}
				if strings.Contains(d.Msg, "internal error") {
					t.Fatalf("%s", d.Error())
				}
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("front end took %v on %d bytes", d, len(src))
		}
	})
}

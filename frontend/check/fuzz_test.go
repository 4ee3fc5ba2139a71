package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlego/tle/frontend/parser"
)

// FuzzCheck feeds arbitrary sources through the parser and, when they parse,
// the checker: it must never panic nor report an internal error.
// Seeded with every testdata file; run with go test -fuzz=FuzzCheck.
func FuzzCheck(f *testing.F) {
	for _, dir := range []string{"ok", "errors"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.tle"))
		for _, p := range files {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := parser.ParseFile("fuzz.tle", src)
		if err != nil {
			return
		}
		for _, conf := range []Config{{}, {Defines: map[string]string{"BLOCK": "64", "BM": "128", "N": "3"}}} {
			_, errs := Check(file, conf)
			for _, d := range errs {
				if strings.Contains(d.Msg, "internal error") {
					t.Fatalf("%s", d.Error())
				}
			}
		}
	})
}

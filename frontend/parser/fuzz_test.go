package parser

import (
	"testing"
	"time"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/parser/parsertest"
)

// maxFuzzInput bounds the inputs the fuzz targets try; larger ones are
// skipped (participle parses some 100 KB/s, so a bound keeps each call short).
const maxFuzzInput = 64 << 10

// FuzzParse: any byte string yields a tree or a diag.List with positions
// inside the source, never a panic, and quickly.
//
//	go test -run XXX -fuzz FuzzParse -fuzztime 3m ./frontend/parser
func FuzzParse(f *testing.F) {
	parsertest.Fuzz(f, maxFuzzInput, func(t *testing.T, src []byte) {
		start := time.Now()
		file, err := ParseFile("fuzz.tle", src)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("parsing %d bytes took %v", len(src), d)
		}
		checkResult(t, src, file, err)
	})
}

// checkResult checks one ParseFile result: a tree whose nodes lie inside the
// source in order, or a non-empty diag.List of positioned errors.
func checkResult(t *testing.T, src []byte, file *ast.File, err error) {
	t.Helper()
	if err != nil {
		if file != nil {
			t.Fatalf("both a tree and an error: %v", err)
		}
		list, ok := err.(diag.List)
		if !ok || len(list) == 0 {
			t.Fatalf("error is not a non-empty diag.List: %T %v", err, err)
		}
		for _, d := range list {
			if d.File == nil || d.Pos < 0 || int(d.Pos) > len(src) || d.Msg == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
			if len(d.Msg) > 300 {
				t.Fatalf("overlong message: %s", d.Msg)
			}
		}
		return
	}
	if file == nil {
		t.Fatal("no tree and no error")
	}
	ast.Inspect(file, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if n.Pos() < 0 || n.End() < n.Pos() || int(n.End()) > len(src) {
			t.Fatalf("%T spans [%d, %d) outside the %d-byte source", n, n.Pos(), n.End(), len(src))
		}
		return true
	})
	prev := diag.Pos(-1)
	for _, c := range file.Comments {
		if c.Start <= prev || int(c.End()) > len(src) || string(src[c.Start:c.End()]) != c.Text {
			t.Fatalf("bad comment %+v", c)
		}
		prev = c.Start
	}
}

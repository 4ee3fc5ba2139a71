package format

import (
	"testing"

	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/frontend/parser/parsertest"
)

// FuzzFormat: when the input parses, Source succeeds, its output parses to
// the same tree with the same comments, and formats to itself.
//
//	go test -run XXX -fuzz FuzzFormat -fuzztime 3m ./frontend/format
func FuzzFormat(f *testing.F) {
	parsertest.Fuzz(f, 64<<10, func(t *testing.T, src []byte) {
		f1, err := parser.ParseFile("fuzz.tle", src)
		if err != nil {
			if _, ferr := Source("fuzz.tle", src); ferr == nil {
				t.Fatalf("Source succeeded on input that does not parse: %v", err)
			}
			return
		}
		out := Node(f1) // Source is ParseFile then Node: parse once
		f2, err := parser.ParseFile("fuzz.tle", out)
		if err != nil {
			t.Fatalf("output does not parse: %v\n--- input\n%s\n--- output\n%s", err, src, out)
		}
		if s1, s2 := parsertest.Shape(f1), parsertest.Shape(f2); s1 != s2 {
			t.Fatalf("formatting changed the tree\n--- input\n%s\n--- output\n%s\n--- shape before\n%s\n--- shape after\n%s", src, out, s1, s2)
		}
		if again := Node(f2); string(again) != string(out) {
			t.Fatalf("not idempotent\n--- input\n%q\n--- once\n%q\n--- twice\n%q", src, out, again)
		}
	})
}

package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/format"
	"github.com/tlego/tle/frontend/parser"
)

// The documentation's programs are tests: every ```tle block of
// docs/language.md and README.md, and every .tle file under docs/examples/
// (among them the language sketch's programs, copied verbatim into
// docs/examples/sketch.tle), must parse, check with no errors (no -D
// bindings: const parameters are checked symbolically), and be a fixed point
// of the canonical formatter. ```text blocks are not checked.

// docSource is one program taken from the documentation.
type docSource struct {
	name string // where it is, for messages: docs/language.md:123
	src  []byte
	// verbatim marks text copied from elsewhere whose spacing is not ours to
	// change: it must format to itself up to horizontal white space.
	verbatim bool
}

var fenceRE = regexp.MustCompile("^\\s*```\\s*([A-Za-z0-9_+-]*)")

// tleBlocks extracts the ```tle fenced blocks of a Markdown file. Each block
// is named by the .md line of its first program line.
func tleBlocks(t *testing.T, rel string, md []byte) []docSource {
	t.Helper()
	var out []docSource
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	inFence, isTLE := false, false
	start := 0
	var body strings.Builder
	for sc.Scan() {
		line++
		text := sc.Text()
		m := fenceRE.FindStringSubmatch(text)
		switch {
		case m != nil && !inFence:
			inFence, isTLE = true, m[1] == "tle"
			start = line + 1
			body.Reset()
		case m != nil && inFence && m[1] == "":
			if isTLE {
				out = append(out, docSource{name: fmt.Sprintf("%s:%d", rel, start), src: []byte(body.String())})
			}
			inFence = false
		case inFence:
			body.WriteString(text)
			body.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if inFence {
		t.Errorf("%s:%d: code block not closed", rel, start-1)
	}
	return out
}

// docSources gathers every program the documentation shows.
func docSources(t *testing.T) []docSource {
	t.Helper()
	root := repoRoot(t)
	var all []docSource
	for _, rel := range []string{"docs/language.md", "README.md"} {
		md, err := os.ReadFile(filepath.Join(root, rel))
		if os.IsNotExist(err) && rel == "README.md" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		blocks := tleBlocks(t, rel, md)
		if rel == "docs/language.md" && len(blocks) < 20 {
			t.Errorf("%s has only %d ```tle blocks; the reference shows many examples", rel, len(blocks))
		}
		all = append(all, blocks...)
	}
	examples, err := filepath.Glob(filepath.Join(root, "docs", "examples", "*.tle"))
	if err != nil {
		t.Fatal(err)
	}
	sawSketch := false
	for _, path := range examples {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		verbatim := filepath.Base(path) == "sketch.tle"
		sawSketch = sawSketch || verbatim
		all = append(all, docSource{name: rel + ":1", src: src, verbatim: verbatim})
	}
	if !sawSketch {
		t.Error("docs/examples/sketch.tle (the language sketch's programs) is missing")
	}
	return all
}

// collapseBlanks squeezes every run of spaces and tabs to one space.
var blanksRE = regexp.MustCompile(`[ \t]+`)

func collapseBlanks(b []byte) []byte { return blanksRE.ReplaceAll(b, []byte(" ")) }

// firstDiff returns the 1-based line where a and b first differ, with both lines.
func firstDiff(a, b []byte) (int, string, string) {
	al := strings.Split(string(a), "\n")
	bl := strings.Split(string(b), "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return i + 1, x, y
		}
	}
	return 0, "", ""
}

// lineAt turns a block name (file:line) and a 1-based line inside the block
// into the documentation line.
func lineAt(name string, blockLine int) string {
	i := strings.LastIndexByte(name, ':')
	var first int
	if _, err := fmt.Sscanf(name[i+1:], "%d", &first); err != nil {
		return name
	}
	return fmt.Sprintf("%s:%d", name[:i], first+blockLine-1)
}

func TestDocExamples(t *testing.T) {
	srcs := docSources(t)
	for _, d := range srcs {
		t.Run(d.name, func(t *testing.T) {
			// Imports resolve from the document's folder ("docs/language.md:123"
			// imports "examples/x.tle" as docs/examples/x.tle).
			read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(repoRoot(t), name)) }
			f, err := parser.Load(d.name, d.src, read)
			if err != nil {
				t.Fatalf("%s: the example does not parse:\n%v", d.name, err)
			}
			if _, errs := check.Check(f, check.Config{}); len(errs) > 0 {
				t.Errorf("%s: the example does not check:\n%v", d.name, errs)
			}
			got, err := format.Source(d.name, d.src)
			if err != nil {
				t.Fatalf("%s: format: %v", d.name, err)
			}
			if d.verbatim {
				// Copied text: formatting may only change horizontal white
				// space, and what it gives must itself be a fixed point.
				if !bytes.Equal(collapseBlanks(got), collapseBlanks(d.src)) {
					n, want, have := firstDiff(collapseBlanks(d.src), collapseBlanks(got))
					t.Errorf("%s: formatting changes more than spacing; first difference:\n  source: %q\n  fmt:    %q", lineAt(d.name, n), want, have)
				}
				again, err := format.Source(d.name, got)
				if err != nil || !bytes.Equal(again, got) {
					t.Errorf("%s: the formatted sketch is not a fixed point of the formatter", d.name)
				}
				return
			}
			if !bytes.Equal(got, d.src) {
				n, want, have := firstDiff(d.src, got)
				t.Errorf("%s: not in canonical format (tlec fmt changes it); first difference:\n  doc: %q\n  fmt: %q", lineAt(d.name, n), want, have)
			}
		})
	}
}

// TestDocBlocksExtracted guards the extractor: fences of other languages
// and ```text blocks are skipped, and block names carry the .md line.
func TestDocBlocksExtracted(t *testing.T) {
	md := "# x\n\n```tle\nconst A = 1\n```\n\n```text\nnot checked\n```\n\n  ```tle\nconst B = 2\n  ```\n"
	got := tleBlocks(t, "x.md", []byte(md))
	if len(got) != 2 {
		t.Fatalf("got %d blocks, want 2", len(got))
	}
	if got[0].name != "x.md:4" || string(got[0].src) != "const A = 1\n" {
		t.Errorf("block 0 = %q %q", got[0].name, got[0].src)
	}
	if got[1].name != "x.md:12" || string(got[1].src) != "const B = 2\n" {
		t.Errorf("block 1 = %q %q", got[1].name, got[1].src)
	}
}

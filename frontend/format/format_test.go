package format

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/frontend/parser/parsertest"
)

var (
	update      = flag.Bool("update", false, "rewrite the golden files in testdata")
	injectIters = flag.Int("inject", 4, "comment-injection rounds per seed in TestInjectedComments")
	injectSeed  = flag.Int64("injectseed", 2, "random seed of TestInjectedComments")
)

// TestGolden formats every testdata/NAME.input.tle and compares the result
// with testdata/NAME.golden.tle; -update rewrites the goldens.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.input.tle")
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.tle")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			require.NoError(t, err)
			got, err := Source(in, src)
			require.NoError(t, err)
			golden := strings.TrimSuffix(in, ".input.tle") + ".golden.tle"
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))
			checkFixedPoint(t, in, src, got)
		})
	}
}

// checkFixedPoint checks that out, the formatting of src, formats to itself,
// has src's shape and keeps its comments.
func checkFixedPoint(t *testing.T, name string, src, out []byte) {
	t.Helper()
	f1, err := parser.ParseFile(name, src)
	require.NoError(t, err)
	checkFixedPointOf(t, name, f1, out)
}

// checkFixedPointOf is checkFixedPoint given src's tree f1: out, the
// formatting of f1, parses to a tree of the same shape and formats to
// itself (each text parsed once).
func checkFixedPointOf(t *testing.T, name string, f1 *ast.File, out []byte) {
	t.Helper()
	f2, err := parser.ParseFile(name, out)
	require.NoError(t, err, "formatted output does not parse:\n%s", out)
	require.Equal(t, parsertest.Shape(f1), parsertest.Shape(f2), "formatting changed the tree")
	require.Equal(t, string(out), string(Node(f2)), "formatting is not idempotent")
}

// TestRepoFiles checks every .tle file in the repository: formatting is a
// fixed point and keeps the tree. Files with // ERROR markers that do not
// parse are skipped.
func TestRepoFiles(t *testing.T) {
	t.Parallel()
	files, err := parsertest.TLEFiles()
	require.NoError(t, err)
	for _, path := range files {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := parser.ParseFile(path, src)
		if err != nil {
			if bytes.Contains(src, []byte("// ERROR")) {
				continue
			}
			t.Errorf("%s: %v", path, err)
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) { checkFixedPointOf(t, path, f, Node(f)) })
	}
}

// TestSketch: the language sketch's programs are already canonical, except
// that a trailing comment is separated by one space.
func TestSketch(t *testing.T) {
	for name, src := range parsertest.SketchPrograms {
		out, err := Source(name, []byte(src))
		require.NoError(t, err)
		want := strings.ReplaceAll(src, "}   // helpers", "} // helpers")
		require.Equal(t, want, string(out), name)
	}
}

// TestScrambled: any horizontal spacing and indentation of a program formats
// to the same bytes.
func TestScrambled(t *testing.T) {
	t.Parallel()
	seeds, err := parsertest.Seeds()
	require.NoError(t, err)
	inputs, _ := filepath.Glob("testdata/*.tle")
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		require.NoError(t, err)
		seeds = append(seeds, b)
	}
	var next atomic.Int64
	for shard := range 4 {
		t.Run(fmt.Sprintf("shard %d", shard), func(t *testing.T) {
			t.Parallel()
			for i := int(next.Add(1) - 1); i < len(seeds); i = int(next.Add(1) - 1) {
				src := seeds[i]
				want, err := Source("a.tle", src)
				if err != nil {
					continue
				}
				rng := rand.New(rand.NewSource(1<<20 + int64(i)))
				for k := 0; k < 5; k++ {
					s := parsertest.Scramble(src, rng)
					got, err := Source("b.tle", s)
					require.NoError(t, err, "seed %d scrambled:\n%s", i, s)
					require.Equal(t, string(want), string(got), "seed %d scrambled:\n%s", i, s)
				}
			}
		})
	}
}

func expectFormatted(t *testing.T, in, want string) {
	t.Helper()
	got, err := Source("t.tle", []byte(in))
	require.NoError(t, err)
	require.Equal(t, want, string(got))
	checkFixedPoint(t, "t.tle", []byte(in), got)
}

func TestBinarySpacing(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a+b", "a + b"},
		{"offs<n", "offs < n"},
		{"pid * BLOCK+arange(0,BLOCK)", "pid*BLOCK + arange(0, BLOCK)"},
		{"a*b", "a * b"},
		{"a*b*c", "a * b * c"},
		{"(a+b)*c", "(a + b) * c"},
		{"a+(b+c)*d", "a + (b+c)*d"},
		{"a&&b||c", "a && b || c"},
		{"a < b && c < d", "a < b && c < d"},
		{"a-(-b)", "a - (-b)"},
		{"a - -b", "a - -b"},
		{"a & ^b", "a & ^b"},
		{"x[i+1]", "x[i+1]"},
		{"x[i + 1 : n]", "x[i+1 : n]"},
		{"x[:, None]", "x[:, None]"},
		{"x [ None , : ]", "x[None, :]"},
		{"f(a+b, c*d, k: e+f)", "f(a + b, c * d, k: e + f)"},
		{"- - x", "- -x"},
		{"!m", "!m"},
		{"x.T", "x.T"},
		{"(k + rk)[None, :]", "(k + rk)[None, :]"},
		{"((a))", "((a))"},
		{"1 .T", "1 .T"},
		{"x.to( f16 )", "x.to(f16)"},
		{"[16,128]bf16", "[16, 128]bf16"},
		{"a<<2|b", "a<<2 | b"},
	} {
		expectFormatted(t, "kernel k() {\n    y := "+c.in+"\n}\n", "kernel k() {\n    y := "+c.want+"\n}\n")
	}
}

func TestLayout(t *testing.T) {
	// empty bodies, one-line bodies, blank lines
	expectFormatted(t, "kernel k() {\n}\n", "kernel k() {}\n")
	expectFormatted(t, "func f(x f32) f32 {return x}", "func f(x f32) f32 { return x }\n")
	expectFormatted(t, "func f(x f32) f32 {\nreturn x}", "func f(x f32) f32 {\n    return x\n}\n")
	expectFormatted(t, "func f() { a := 1; b := 2 }\n", "func f() { a := 1; b := 2 }\n")
	expectFormatted(t, "func f() { if a { b() } }\n", "func f() {\n    if a {\n        b()\n    }\n}\n")
	expectFormatted(t, "kernel a() {}\nkernel b() {}\n\n\n\nkernel c() {}\n", "kernel a() {}\n\nkernel b() {}\n\nkernel c() {}\n")
	expectFormatted(t, "const A = 1\nconst B = 2\n\n\nconst C = 3\nkernel k() {}\n", "const A = 1\nconst B = 2\n\nconst C = 3\n\nkernel k() {}\n")
	expectFormatted(t, "kernel k() {\n\n\n    a()\n\n\n\n    b()\n\n}\n", "kernel k() {\n    a()\n\n    b()\n}\n")
	expectFormatted(t, "kernel k() { a(); b() }\n", "kernel k() { a(); b() }\n")
	// long one-line bodies are expanded
	long := "func f() { return aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa + bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb }\n"
	expectFormatted(t, long, "func f() {\n    return aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa + bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n}\n")
	// } else {
	expectFormatted(t, "kernel k() {\nif a {\nb()\n} else if c {\nd()\n}   else {\ne()\n}\n}\n",
		"kernel k() {\n    if a {\n        b()\n    } else if c {\n        d()\n    } else {\n        e()\n    }\n}\n")
}

func TestComments(t *testing.T) {
	expectFormatted(t, "// a\n\n\n// b\nkernel k() { // c\n    x := 1   // d\n    yyy := 2 // e\n\n    // f\n    z() /* g */\n    // h\n} // i\n// j\n",
		"// a\n\n// b\nkernel k() { // c\n    x := 1   // d\n    yyy := 2 // e\n\n    // f\n    z() /* g */\n    // h\n} // i\n// j\n")
	// comments inside expressions and lists
	expectFormatted(t, "kernel k() {\n    x := f(a, /* b */ c)\n    y := f(a, // first\n        b, // second\n    )\n}\n",
		"kernel k() {\n    x := f(a, /* b */ c)\n    y := f(a, // first\n        b, // second\n    )\n}\n")
	// a comment in a one-line body expands it
	expectFormatted(t, "func f() { /* c */ return 1 }\n", "func f() { /* c */\n    return 1\n}\n")
	// an empty block holding only a comment
	expectFormatted(t, "kernel k() {\n    // nothing yet\n}\n", "kernel k() {\n    // nothing yet\n}\n")
	// a file of comments only
	expectFormatted(t, "// only\n", "// only\n")
	expectFormatted(t, "", "")
}

func TestSyntaxErrorIsReturned(t *testing.T) {
	_, err := Source("bad.tle", []byte("kernel k( {\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "bad.tle:1:11: error: syntax error")
}

// TestInjectedComments: comments added anywhere a program allows them are
// all kept, the tree is unchanged, and formatting is a fixed point. Seed i
// draws from its own source (-injectseed and i), so that parallel shards
// (the test is the package's longest) can take the seeds in any order.
func TestInjectedComments(t *testing.T) {
	t.Parallel()
	seeds, err := parsertest.Seeds()
	require.NoError(t, err)
	var next atomic.Int64
	for shard := range 4 {
		t.Run(fmt.Sprintf("shard %d", shard), func(t *testing.T) {
			t.Parallel()
			for i := int(next.Add(1) - 1); i < len(seeds); i = int(next.Add(1) - 1) {
				src := seeds[i]
				if _, err := parser.ParseFile("a.tle", src); err != nil {
					continue
				}
				rng := rand.New(rand.NewSource(*injectSeed<<20 + int64(i)))
				for k := 0; k < *injectIters; k++ {
					s := parsertest.InjectComments(src, rng)
					f, err := parser.ParseFile("b.tle", s)
					if err != nil {
						t.Fatalf("seed %d: injecting comments broke the program: %v\n%s", i, err, s)
					}
					checkFixedPointOf(t, "b.tle", f, Node(f))
				}
			}
		})
	}
}

// TestFMAFormats: fma prints like any call, its arguments positional or by
// name.
func TestFMAFormats(t *testing.T) {
	expectFormatted(t, "kernel k(p *f32, s f32) {\n    t:=load(p)\n    store(p,exp2(fma( t,s ,  -t*s )))\n    store(p, fma(c:1.0,a: s,b :2))\n}\n",
		"kernel k(p *f32, s f32) {\n    t := load(p)\n    store(p, exp2(fma(t, s, -t * s)))\n    store(p, fma(c: 1.0, a: s, b: 2))\n}\n")
}

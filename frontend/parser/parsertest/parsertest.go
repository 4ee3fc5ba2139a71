// Package parsertest holds helpers shared by the tests of the parser, the
// formatter, tlec and the fuzz targets: a position-free dump of a syntax
// tree, the seed programs (every .tle file of the repository and the
// language sketch's programs), a whitespace scrambler, and a subtest per
// testdata file.
package parsertest

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// Shape prints a tree without positions: node types, names, operators and
// literal values, and the comments' text (without trailing white space on
// its lines, which the formatter drops). Two files with one Shape differ only
// in layout.
func Shape(f *ast.File) string {
	var b strings.Builder
	for _, d := range f.Decls {
		shape(&b, reflect.ValueOf(d), 0)
		b.WriteByte('\n')
	}
	for _, c := range f.Comments {
		lines := strings.Split(c.Text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " \t\r")
		}
		fmt.Fprintf(&b, "comment %q\n", strings.Join(lines, "\n"))
	}
	return b.String()
}

var (
	posType  = reflect.TypeOf(diag.Pos(0))
	fileType = reflect.TypeOf((*diag.File)(nil))
)

func shape(b *strings.Builder, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		shape(b, v.Elem(), depth)
	case reflect.Struct:
		b.WriteString(v.Type().Name())
		b.WriteByte('{')
		first := true
		for i := 0; i < v.NumField(); i++ {
			ft := v.Type().Field(i)
			if ft.Type == posType || ft.Type == fileType {
				continue
			}
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(ft.Name)
			b.WriteByte(':')
			shape(b, v.Field(i), depth+1)
		}
		b.WriteByte('}')
	case reflect.Slice:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			shape(b, v.Index(i), depth+1)
		}
		b.WriteByte(']')
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		fmt.Fprint(b, v.Interface())
	}
}

// SketchPrograms are the programs of docs/language-sketch.md, verbatim.
var SketchPrograms = map[string]string{
	"sketch_vector_add.tle": `// kernels/tutorials/vector_add.tle
kernel vector_add(x *f32, y *f32, out *f32, n i32, BLOCK const i32) {
    pid := program_id(0)
    offs := pid*BLOCK + arange(0, BLOCK)
    m := offs < n
    a := load(x + offs, mask: m, other: 0)
    b := load(y + offs, mask: m, other: 0)
    store(out + offs, a + b, mask: m)
}

func softplus(x f32) f32 { return log(1 + exp(x)) }   // helpers are inlined; they may take tiles
`,
	"sketch_tle.tle": `kernel tle_table(d desc[bf16, 64, 64], x *bf16, n i32, BLOCK const i32) {
    buf := alloc([3, 64, 64], bf16)
    v := buf.slot(1)
    t := buf.T
    u := permute(buf, 1, 0)
    p := local_ptr(buf, arange(0, 3)[:, None, None], arange(0, 64)[None, :, None], arange(0, 64)[None, None, :])
    a := load(x + arange(0, BLOCK), async: true)
    b := barrier(count: 1)
    expect(b, 8192)
    copy(d, buf.slot(0), 0, 0, barrier: b)
    wait(b, 0)
    arrive(b)
    pp := pipe(capacity: 4, w: [16, 128]bf16, v: [16, 128]bf16)
    warp_specialize {
        role load(warps: 4, regs: 40) {
            for i := range n {
                s := pp.acquire(i)
                pp.commit(i)
            }
            pp.close(n)
        }
        role mma(warps: 4, regs: 232) {
            acc := zeros([16, 16], f32)
            for i := 0; i < n; i += 1 {
                s := pp.wait(i)
                if s.closed {
                    return
                }
                acc = wgmma(s.w, s.v.T, acc, trans_b: true)
                wgmma_wait(0)
                pp.release(i)
            }
        }
        role store(warps: 1) {}
    }
    mesh := device_mesh(cluster_x: 2)
    r := shard_id(mesh, "cluster_x")
    peer := remote(buf, r, mesh)
    distributed_barrier(mesh)
    y := asm("ptx {$0} ...", a, out: f32)
}
`,
}

// ModuleRoot walks up from the working directory to the directory holding
// go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// TLEFiles lists every .tle file under the module root, skipping hidden
// directories, sorted.
func TLEFiles() ([]string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".tle") {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// Seeds returns the seed inputs for the fuzz targets: every .tle file of the
// repository and the sketch programs.
func Seeds() ([][]byte, error) {
	files, err := TLEFiles()
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	names := make([]string, 0, len(SketchPrograms))
	for n := range SketchPrograms {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, []byte(SketchPrograms[n]))
	}
	return out, nil
}

// EachFile runs test as a subtest, named by the file's base name, on each
// file matching pattern (there must be one), with its contents.
func EachFile(t *testing.T, pattern string, test func(t *testing.T, path string, src []byte)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no file matches %s", pattern)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			test(t, path, src)
		})
	}
}

// Fuzz is a fuzz target: f seeded by AddSeeds, fuzzing test on the inputs
// of at most limit bytes (a longer one only makes each call slow).
func Fuzz(f *testing.F, limit int, test func(t *testing.T, src []byte)) {
	f.Helper()
	AddSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > limit {
			return
		}
		test(t, src)
	})
}

// AddSeeds adds Seeds to the corpus of the fuzz target f.
func AddSeeds(f *testing.F) {
	f.Helper()
	seeds, err := Seeds()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add(s)
	}
}

var tokenRe = regexp.MustCompile(`^(//[^\n]*|/\*(?s:.*?)\*/|"(\\.|[^"\\\n])*"|0[xXbBoO][0-9a-fA-F_]+|[0-9][0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]+)?|\.[0-9][0-9_]*([eE][+-]?[0-9_]+)?|[a-zA-Z_][a-zA-Z0-9_]*|<<=|>>=|:=|&\^|[-+*/%&|^<>=!]=|<<|>>|&&|\|\||\S)`)

// Scramble rewrites the horizontal white space of a valid program: every
// line gets a random indentation, and tokens on a line are separated by
// random runs of blanks and tabs. Line structure, and therefore the program,
// is unchanged.
func Scramble(src []byte, rng *rand.Rand) []byte {
	var b strings.Builder
	s := string(src)
	blank := func(n int) {
		for i := 0; i < n; i++ {
			if rng.Intn(4) == 0 {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
	}
	atLineStart := true
	for len(s) > 0 {
		switch s[0] {
		case ' ', '\t', '\r':
			s = s[1:]
			continue
		case '\n':
			b.WriteByte('\n')
			s = s[1:]
			atLineStart = true
			continue
		}
		m := tokenRe.FindString(s)
		if atLineStart {
			blank(rng.Intn(9))
		} else {
			blank(1 + rng.Intn(3))
		}
		atLineStart = false
		b.WriteString(m)
		s = s[len(m):]
		if strings.Contains(m, "\n") {
			atLineStart = false
		}
	}
	return []byte(b.String())
}

// InjectComments adds comments to a valid program without changing its
// meaning: block comments between tokens of a line, line comments at line
// ends, and line comments that break a line after a token that cannot end a
// statement (an operator, a comma, an open bracket).
func InjectComments(src []byte, rng *rand.Rand) []byte {
	var b strings.Builder
	s := string(src)
	n := 0
	comment := func(line bool) string {
		n++
		if line {
			return fmt.Sprintf("// c%d", n)
		}
		if rng.Intn(5) == 0 {
			return fmt.Sprintf("/* c%d\n */", n) // holds a line end: only where one may go
		}
		return fmt.Sprintf("/* c%d */", n)
	}
	last := ""
	for len(s) > 0 {
		switch s[0] {
		case ' ', '\t', '\r':
			b.WriteByte(s[0])
			s = s[1:]
			continue
		case '\n':
			if rng.Intn(3) == 0 {
				b.WriteString(" " + comment(true))
			}
			b.WriteByte('\n')
			s = s[1:]
			continue
		}
		m := tokenRe.FindString(s)
		if last != "" && rng.Intn(4) == 0 {
			c := comment(false)
			if strings.Contains(c, "\n") && !continues(last) {
				c = fmt.Sprintf("/* c%d */", n)
			}
			b.WriteString(" " + c + " ")
		}
		b.WriteString(m)
		s = s[len(m):]
		last = m
		if continues(m) && rng.Intn(4) == 0 {
			b.WriteString(" " + comment(true) + "\n")
		}
	}
	return []byte(b.String())
}

// continues reports whether a line may end after token t without ending the
// statement.
func continues(t string) bool {
	if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") {
		return false
	}
	switch t {
	case ")", "]", "}", "return":
		return false
	}
	c := t[0]
	if c == '_' || c == '"' || c == '.' && len(t) > 1 || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		return keywordsThatContinue[t]
	}
	return true
}

var keywordsThatContinue = map[string]bool{
	"kernel": true, "func": true, "const": true, "if": true, "else": true,
	"for": true, "range": true, "warp_specialize": true, "role": true,
}

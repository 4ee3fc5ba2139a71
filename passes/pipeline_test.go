package passes

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes/internal/filecheck"
)

var (
	runRE   = regexp.MustCompile(`(?m)^//\s*RUN:\s*(.*)$`)
	errorRE = regexp.MustCompile(`(?m)^//\s*ERROR:\s*(.*)$`)
)

// readTIR reads a .tir test file and the pass names of its `// RUN: a,b`
// line (untrimmed), or def where it has none.
func readTIR(t *testing.T, file, def string) (src []byte, names []string) {
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	names = []string{def}
	if m := runRE.FindSubmatch(src); m != nil {
		names = strings.Split(strings.TrimSpace(string(m[1])), ",")
	}
	return src, names
}

// TestPassFiles runs every testdata/<dir>/*.tir: the passes of its
// `// RUN: a,b` line (default: the pass named like the directory) run with
// VerifyEach, then the printed module is matched against its CHECK lines, or
// the error against its `// ERROR: text` line.
func TestPassFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.tir")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(file, "testdata/"), ".tir"), func(t *testing.T) {
			src, names := readTIR(t, file, filepath.Base(filepath.Dir(file)))
			var list []Pass
			for _, n := range names {
				p := Lookup(strings.TrimSpace(n))
				require.NotNil(t, p, "%s: no pass %q in Table (name the passes with a `// RUN: a,b` line)", file, n)
				list = append(list, *p)
			}
			m, err := ir.Parse(file, src)
			require.NoError(t, err)
			require.NoError(t, ir.Verify(m), "the input of %s does not verify", file)
			err = (&Pipeline{Passes: list, Options: Options{VerifyEach: true}}).Run(m)
			if want := errorRE.FindSubmatch(src); want != nil {
				require.Error(t, err)
				require.Contains(t, err.Error(), strings.TrimSpace(string(want[1])))
				return
			}
			require.NoError(t, err)
			out := ir.Print(m)
			if err := filecheck.Check(out, string(src)); err != nil {
				t.Fatalf("%s after %v:\n%v\n--- output:\n%s", file, names, err, out)
			}
			// the output parses back to itself
			m2, err := ir.Parse("out.tir", []byte(out))
			require.NoError(t, err)
			require.Equal(t, out, ir.Print(m2))
		})
	}
}

func TestOrderConstraints(t *testing.T) {
	require.NoError(t, CheckOrder(Table, Constraints))
	for _, p := range Table {
		require.NotEmpty(t, p.Doc, "pass %s has no Doc", p.Name)
	}
	// a table that breaks a constraint is reported with its reason
	swapped := append([]Pass(nil), Table...)
	i, j := indexOf(swapped, "cse"), indexOf(swapped, "dce")
	swapped[i], swapped[j] = swapped[j], swapped[i]
	err := CheckOrder(swapped, Constraints)
	require.ErrorContains(t, err, "cse must run before dce (CSE leaves the duplicates it replaced unused)")
	require.ErrorContains(t, CheckOrder(Table, []Constraint{{"inline", "nope", "x"}}), `unknown pass "nope"`)
	require.ErrorContains(t, CheckOrder(append(Table[:1:1], Table[0]), nil), "listed twice")
}

func indexOf(ps []Pass, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}

const sample = `module "s.tle"

kernel @k(%p: *i32, %n: i32) loc(0) {
  %c = constant() {value = 2} : i32 loc(5)
  %a = call(%c) {callee = "h"} : i32 loc(6)
  %b = add(%a, %n) : i32 loc(7)
  store(%p, %b) loc(8)
  return() loc(9)
}

func @h(%x: i32) -> (i32) {
  %y = mul(%x, %x) : i32 loc(20)
  return(%y) loc(21)
}
`

func parseSample(t *testing.T) *ir.Module {
	m, err := ir.Parse("s.tir", []byte(sample))
	require.NoError(t, err)
	return m
}

func TestRunDefaultPipeline(t *testing.T) {
	m := parseSample(t)
	require.NoError(t, Run(m, Options{VerifyEach: true}))
	require.NoError(t, filecheck.Check(ir.Print(m), `
// CHECK: [[C:%[0-9]+]] = constant() {value = 4} : i32 loc(20)
// CHECK-NEXT: [[B:%[0-9]+]] = add([[C]], %n) : i32 loc(7)
// CHECK-NEXT: store(%p, [[B]])
// CHECK-NOT: func @h`))
}

func TestVerifyEachNamesTheBreakingPass(t *testing.T) {
	breaker := Pass{Name: "breaker", Doc: "drops the function's return", Run: func(m *ir.Module, _ *Context) error {
		b := m.Funcs[0].Body
		b.Ops = b.Ops[:len(b.Ops)-1]
		return nil
	}}
	p := &Pipeline{Passes: []Pass{*Lookup("inline"), breaker, *Lookup("dce")}, Options: Options{VerifyEach: true}}
	err := p.Run(parseSample(t))
	var pe *PassError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "breaker", pe.Pass)
	require.True(t, pe.Broke)
	require.ErrorContains(t, err, "pass breaker broke the IR: invalid IR:")
	require.ErrorContains(t, err, "s.tle@8: func @k: op store: function body does not end in return")
	var verrs ir.VerifyErrors
	require.True(t, errors.As(err, &verrs))

	// without VerifyEach the pipeline does not notice
	p.Options.VerifyEach = false
	require.NoError(t, p.Run(parseSample(t)))

	// an invalid input is reported as such, before any pass
	m := parseSample(t)
	m.Funcs[0].Body.Ops = nil
	require.ErrorContains(t, Run(m, Options{VerifyEach: true}), "input IR is invalid")
}

func TestPassErrorsAndDiagnostics(t *testing.T) {
	failing := Pass{Name: "fails", Run: func(*ir.Module, *Context) error { return errors.New("boom") }}
	err := (&Pipeline{Passes: []Pass{failing}}).Run(parseSample(t))
	require.EqualError(t, err, "pass fails: boom")

	diagnosing := Pass{Name: "diag", Run: func(m *ir.Module, ctx *Context) error {
		ctx.Errorf(7, "this op is not supported")
		return nil
	}}
	later := Pass{Name: "later", Run: func(*ir.Module, *Context) error { t.Fatal("ran after an error"); return nil }}
	err = (&Pipeline{Passes: []Pass{diagnosing, later}}).Run(parseSample(t))
	require.ErrorContains(t, err, "s.tle@7: error: this op is not supported")
}

func TestDumpAfter(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, Run(parseSample(t), Options{DumpAfter: "all", DumpDir: dir}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	require.Equal(t, []string{"k_00__input.tir", "k_01__inline.tir", "k_02__constfold.tir", "k_03__cse.tir", "k_04__dce.tir", "k_05__elide-transpose.tir"}, names)
	// every dump parses and verifies on its own; the input keeps its helper
	for _, n := range names {
		src, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		m, err := ir.Parse(n, src)
		require.NoError(t, err)
		require.NoError(t, ir.Verify(m), n)
		require.Equal(t, n == "k_00__input.tir", m.Func("h") != nil, n)
	}

	dir = t.TempDir()
	require.NoError(t, Run(parseSample(t), Options{DumpAfter: "cse", DumpDir: dir}))
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, "k_03__cse.tir", entries[0].Name())

	require.ErrorContains(t, Run(parseSample(t), Options{DumpAfter: "nope"}), `unknown pass "nope"`)
}

func TestDisable(t *testing.T) {
	m := parseSample(t)
	require.NoError(t, Run(m, Options{Disable: []string{"constfold", "dce"}, VerifyEach: true}))
	require.Contains(t, ir.Print(m), "mul(")
	require.ErrorContains(t, Run(parseSample(t), Options{Disable: []string{"inline"}}), `pass "inline" is required`)
	require.ErrorContains(t, Run(parseSample(t), Options{Disable: []string{"nope"}}), `unknown pass "nope"`)
}

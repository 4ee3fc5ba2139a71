package parser

import (
	"flag"
	"fmt"
	goast "go/ast"
	goparser "go/parser"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/parser/parsertest"
)

var update = flag.Bool("update", false, "rewrite docs/grammar.ebnf")

// sketch is the sketch's vector_add followed by a program using the rest
// of the syntax.
var sketch = parsertest.SketchPrograms["sketch_vector_add.tle"] + "\n" + `const N = 4 * 2
kernel k2(d desc[bf16, 64, 128], p *bf16) {
    buf := alloc([3, 64, 128], bf16)
    pp := pipe(capacity: 4, w: [16, 128]bf16, v: [16, 128]bf16)
    x := (k + rk)[None, :]
    y := x[:, None].T
    for i := range 10 {
        acc = wgmma(a, b, acc, trans_b: true)
    }
    for i := 0; i < n; i += 2 {
        s := pp.acquire(i)
    }
    if a < b && c {
        print(1)
    } else if d {
        print(2.5e-3)
    } else {
        print("x")
    }
    warp_specialize {
        role load(warps: 4, regs: 40) {
            copy(d, buf.slot(0), 0, 0, barrier: b)
        }
        role mma(warps: 4, regs: 232) { wgmma_wait(0) }
    }
    a, b := 1, -2
}
`

func TestParseSketch(t *testing.T) {
	f, err := ParseFile("s.tle", []byte(sketch))
	require.NoError(t, err)
	require.Len(t, f.Decls, 4)
	require.Len(t, f.Comments, 2)
	for name, src := range parsertest.SketchPrograms {
		_, err := ParseFile(name, []byte(src))
		require.NoError(t, err, name)
	}
}

// TestGrammarGolden keeps docs/grammar.ebnf equal to EBNF(); -update
// rewrites it.
func TestGrammarGolden(t *testing.T) {
	root, err := parsertest.ModuleRoot()
	require.NoError(t, err)
	path := filepath.Join(root, "docs", "grammar.ebnf")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(EBNF()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./frontend/parser -update")
	require.Equal(t, string(want), EBNF(), "docs/grammar.ebnf is stale: run go test ./frontend/parser -update")
}

// ------------------------------------------------------------------ positions

func TestPositions(t *testing.T) {
	src := "// c\nkernel k(x *f32, d desc[bf16, 64], B const i32) {\n    y := load(x + 1, mask: m)[:, None].T\n    for i := range B { s := (a)-b }\n    warp_specialize {\n        role r(warps: 1) { f() }\n    }\n    return\n}\n"
	f, err := ParseFile("p.tle", []byte(src))
	require.NoError(t, err)
	at := func(sub string, nth int) diag.Pos {
		i := -1
		for k := 0; k <= nth; k++ {
			j := strings.Index(src[i+1:], sub)
			require.GreaterOrEqual(t, j, 0, sub)
			i += 1 + j
		}
		return diag.Pos(i)
	}
	span := func(n ast.Node, from, to diag.Pos) {
		t.Helper()
		require.Equal(t, [2]diag.Pos{from, to}, [2]diag.Pos{n.Pos(), n.End()}, "%T %q", n, src[max(0, int(n.Pos())):max(0, int(n.End()))])
	}
	require.Equal(t, []*ast.Comment{{Start: 0, Text: "// c"}}, f.Comments)
	k := f.Decls[0].(*ast.KernelDecl)
	span(k, at("kernel", 0), diag.Pos(len(src)-1))
	span(k.Name, at("k(", 0), at("k(", 0)+1)
	span(k.Params[0], at("x *f32", 0), at("x *f32", 0)+6)
	span(k.Params[0].Type, at("*f32", 0), at("*f32", 0)+4)
	span(k.Params[1].Type, at("desc", 0), at("], B", 0)+1)
	span(k.Params[2], at("B const", 0), at("i32)", 0)+3)
	span(k.Body, at("{", 0), diag.Pos(len(src)-1))

	assign := k.Body.Stmts[0].(*ast.AssignStmt)
	span(assign, at("y :=", 0), at(".T", 0)+2)
	require.Equal(t, at(":=", 0), assign.TokAt)
	sel := assign.RHS[0].(*ast.SelectorExpr)
	span(sel.Sel, at("T\n", 0), at("T\n", 0)+1)
	ix := sel.X.(*ast.IndexExpr)
	span(ix, at("load", 0), at("].T", 0)+1)
	require.Equal(t, at("[:", 0), ix.Lbrack)
	span(ix.Indices[0], at(":, None", 0), at(":, None", 0)+1)
	span(ix.Indices[1], at("None", 0), at("None", 0)+4)
	call := ix.X.(*ast.CallExpr)
	span(call, at("load", 0), at(")[", 0)+1)
	require.Equal(t, at("(x + 1", 0), call.Lparen)
	bin := call.Args[0].Value.(*ast.BinaryExpr)
	span(bin, at("x + 1", 0), at("x + 1", 0)+5)
	require.Equal(t, at("+ 1", 0), bin.OpPos)
	span(call.Args[1], at("mask", 0), at("m)", 0)+1)

	loop := k.Body.Stmts[1].(*ast.ForStmt)
	span(loop, at("for", 0), at("}\n    warp", 0)+1)
	span(loop.Var, at("i :=", 0), at("i :=", 0)+1)
	s := loop.Body.Stmts[0].(*ast.AssignStmt)
	sub := s.RHS[0].(*ast.BinaryExpr)
	span(sub.X, at("(a)", 0), at("(a)", 0)+3)
	span(sub.Y, at("b }", 0), at("b }", 0)+1)

	ws := k.Body.Stmts[2].(*ast.WarpSpecializeStmt)
	span(ws, at("warp_specialize", 0), at("}\n    return", 0)+1)
	span(ws.Roles[0], at("role", 0), at("f() }", 0)+5)
	ret := k.Body.Stmts[3].(*ast.ReturnStmt)
	span(ret, at("return", 0), at("return", 0)+6)
}

func TestLiteralsAndKeywords(t *testing.T) {
	src := `kernel k() { x := f(0x1F, 0b101, 0o17, 017, 1_000, 1.5, .5, 1., 1e-3, 2E+8, "a\tb\"c\x41\u00e9\U0001F600\101") }`
	f, err := ParseFile("l.tle", []byte(src))
	require.NoError(t, err)
	call := f.Decls[0].(*ast.KernelDecl).Body.Stmts[0].(*ast.AssignStmt).RHS[0].(*ast.CallExpr)
	var kinds []ast.LitKind
	var vals []string
	for _, a := range call.Args {
		l := a.Value.(*ast.BasicLit)
		kinds = append(kinds, l.Kind)
		vals = append(vals, l.Value)
	}
	I, F, S := ast.Int, ast.Float, ast.String
	require.Equal(t, []ast.LitKind{I, I, I, I, I, F, F, F, F, F, S}, kinds)
	require.Equal(t, `"a\tb\"c\x41\u00e9\U0001F600\101"`, vals[10])
	// desc is not reserved; keywords are
	_, err = ParseFile("d.tle", []byte("kernel k(desc *f32) { desc := make_desc(desc, shape: [1], strides: [1], block: [1]) }"))
	require.NoError(t, err)
	_, err = ParseFile("d.tle", []byte("kernel k() { range := 1 }"))
	require.ErrorContains(t, err, "unexpected keyword range")
}

// ------------------------------------------------------------------ precedence

// paren prints an expression fully parenthesised.
func paren(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.BasicLit:
		return x.Value
	case *ast.UnaryExpr:
		return "(" + x.Op + paren(x.X) + ")"
	case *ast.BinaryExpr:
		return "(" + paren(x.X) + " " + x.Op + " " + paren(x.Y) + ")"
	case *ast.ParenExpr:
		return paren(x.X)
	case *ast.CallExpr:
		var args []string
		for _, a := range x.Args {
			args = append(args, paren(a.Value))
		}
		return paren(x.Fun) + "(" + strings.Join(args, ", ") + ")"
	case *ast.IndexExpr:
		return paren(x.X) + "[" + paren(x.Indices[0]) + "]"
	case *ast.SelectorExpr:
		return paren(x.X) + "." + x.Sel.Name
	}
	return fmt.Sprintf("?%T", x)
}

func goParen(x goast.Expr) string {
	switch x := x.(type) {
	case *goast.Ident:
		return x.Name
	case *goast.BasicLit:
		return x.Value
	case *goast.UnaryExpr:
		return "(" + x.Op.String() + goParen(x.X) + ")"
	case *goast.BinaryExpr:
		return "(" + goParen(x.X) + " " + x.Op.String() + " " + goParen(x.Y) + ")"
	case *goast.ParenExpr:
		return goParen(x.X)
	case *goast.CallExpr:
		var args []string
		for _, a := range x.Args {
			args = append(args, goParen(a))
		}
		return goParen(x.Fun) + "(" + strings.Join(args, ", ") + ")"
	case *goast.IndexExpr:
		return goParen(x.X) + "[" + goParen(x.Index) + "]"
	case *goast.SelectorExpr:
		return goParen(x.X) + "." + x.Sel.Name
	}
	return fmt.Sprintf("?%T", x)
}

func parseExpr(t *testing.T, src string) ast.Expr {
	t.Helper()
	f, err := ParseFile("e.tle", []byte("kernel k() {\n    v := "+src+"\n}\n"))
	require.NoError(t, err, src)
	return f.Decls[0].(*ast.KernelDecl).Body.Stmts[0].(*ast.AssignStmt).RHS[0]
}

// TestPrecedence checks operator binding against go/parser, on fixed and on
// random expressions.
func TestPrecedence(t *testing.T) {
	exprs := []string{
		"a + b * c", "a * b + c", "a - b - c", "a / b / c", "a || b && c", "a && b || c",
		"a == b && c != d", "a < b == c", "a | b ^ c & d", "a << b + c", "a &^ b | c",
		"-a * b", "!a && b", "^a + b", "- -a", "a - -b", "a * (b + c)", "f(a + b, c)[i + 1].T * 2",
		"a % b * c << d >> e & f &^ g", "a + b | c - d ^ e", "a <= b || c >= d && e > f",
	}
	ops := []string{"||", "&&", "==", "!=", "<", "<=", ">", ">=", "+", "-", "|", "^", "*", "/", "%", "<<", ">>", "&", "&^"}
	unary := []string{"-", "+", "!", "^"}
	rng := rand.New(rand.NewSource(7))
	var gen func(d int) string
	gen = func(d int) string {
		if d == 0 || rng.Intn(4) == 0 {
			switch rng.Intn(4) {
			case 0:
				return strconv.Itoa(rng.Intn(100))
			case 1:
				return "f(" + gen(d/2) + ")"
			case 2:
				return "x[" + gen(d/2) + "].T"
			}
			return string(rune('a' + rng.Intn(6)))
		}
		switch rng.Intn(6) {
		case 0:
			return unary[rng.Intn(len(unary))] + " " + gen(d-1)
		case 1:
			return "(" + gen(d-1) + ")"
		}
		return gen(d-1) + " " + ops[rng.Intn(len(ops))] + " " + gen(d-1)
	}
	for i := 0; i < 500; i++ {
		exprs = append(exprs, gen(5))
	}
	for _, e := range exprs {
		g, err := goparser.ParseExpr(e)
		require.NoError(t, err, e)
		require.Equal(t, goParen(g), paren(parseExpr(t, e)), e)
	}
}

// ------------------------------------------------------------------ semicolons

func TestSemicolons(t *testing.T) {
	ok := []string{
		"kernel k() {\n    x := a +\n        b\n}",                       // an operator continues the line
		"kernel k() {\n    x := f(a,\n        b,\n    )\n}",              // so does a comma
		"kernel k() {\n    x := f(\n        a)\n}",                       // and an open paren
		"kernel k() {\n    x := a.\n        T\n}",                        // and a dot
		"kernel k() { x := 1; y := 2; }",                                 // explicit semicolons
		"kernel k() {\n    return\n}",                                    // return ends a line
		"kernel k() { if a { return } else { return } }",                 // no separator needed before }
		"kernel k() {}\nfunc f() {}; const C = 1",                        // ";" between declarations
		"kernel k() {\n    x := 1 /* a\n b */ y := 2\n}",                 // a block comment holding a line end ends the line
		"kernel k() {\n    x := [1,\n        2]\n}",                      // a list over lines
		"kernel k(\n    x *f32,\n    n i32,\n) {}",                       // parameters over lines
		"\n\n;;\nkernel k() {\n;\n;x := 1;;\n}\n;\n",                     // empty statements
		"kernel k() {\n    for i := 0; i < n; i += 1 {\n    }\n}",        // semicolons in a for clause
		"func f() f32 { return 1 }\nfunc g() (f32, f32) { return 1, 2 }", // results
		"kernel k() { x := 1 } // no newline at end of file",
	}
	for _, src := range ok {
		_, err := ParseFile("s.tle", []byte(src))
		require.NoError(t, err, src)
	}
	bad := map[string]string{
		"kernel k() {\n    x := a\n        + b\n    y := f(a\n        , b)\n}": "unexpected end of line, expected )",
		"kernel k() { x := 1 y := 2 }":                                         "unexpected name y at end of statement",
		"kernel k() {} kernel j() {}":                                          "unexpected keyword kernel after top level declaration",
		"kernel k()\n{\n}":                                                     "unexpected end of line before {",
		"kernel k() {\n    if a {\n    }\n    else {\n    }\n}":                "else must be on the same line",
		"kernel k() {\n    x := f(a\n    )\n}":                                 "unexpected end of line, expected )",
	}
	for src, msg := range bad {
		_, err := ParseFile("s.tle", []byte(src))
		require.ErrorContains(t, err, msg, src)
	}
}

// ------------------------------------------------------------------ errors

var errorRe = regexp.MustCompile(`// ERROR "((?:[^"\\]|\\.)*)"`)

// TestErrors runs testdata/errors/*.tle: each line carrying // ERROR "text"
// must get a diagnostic containing text on that line, and every diagnostic
// must be expected.
func TestErrors(t *testing.T) {
	parsertest.EachFile(t, "testdata/errors/*.tle", func(t *testing.T, path string, src []byte) {
		want := map[int][]string{}
		for i, line := range strings.Split(string(src), "\n") {
			for _, m := range errorRe.FindAllStringSubmatch(line, -1) {
				s, err := strconv.Unquote(`"` + m[1] + `"`)
				require.NoError(t, err)
				want[i+1] = append(want[i+1], s)
			}
		}
		require.NotEmpty(t, want, "no // ERROR marker")
		_, err := ParseFile(path, src)
		require.Error(t, err)
		list, ok := err.(diag.List)
		require.True(t, ok, "%T: %v", err, err)
		for _, d := range list {
			line := d.Position().Line
			found := false
			for i, w := range want[line] {
				if strings.Contains(d.Msg, w) {
					want[line] = append(want[line][:i], want[line][i+1:]...)
					found = true
					break
				}
			}
			if !found {
				t.Errorf("unexpected diagnostic: %v", d)
			}
		}
		for line, ws := range want {
			for _, w := range ws {
				t.Errorf("%s:%d: no diagnostic containing %q (got %v)", path, line, w, err)
			}
		}
	})
}

// ------------------------------------------------------------------ robustness

func TestDeepNesting(t *testing.T) {
	for _, src := range []string{
		"kernel k() { x := " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + " }",
		"kernel k() { x := " + strings.Repeat("(", 100000),
		"kernel k() { x := " + strings.Repeat("-", 100000) + "1 }",
		"kernel k() { x := " + strings.Repeat("[", 100000),
		"kernel k() " + strings.Repeat("{", 100000),
		"kernel k() { x := " + strings.Repeat("f(-", 50000),
	} {
		start := time.Now()
		_, err := ParseFile("deep.tle", []byte(src))
		require.ErrorContains(t, err, "nested too deeply")
		require.Less(t, time.Since(start), 2*time.Second)
	}
	// nesting up to the limit is fine
	n := MaxNesting - 10
	_, err := ParseFile("ok.tle", []byte("kernel k() { x := "+strings.Repeat("(", n)+"1"+strings.Repeat(")", n)+" }"))
	require.NoError(t, err)
}

func TestLongInputs(t *testing.T) {
	for _, src := range []string{
		"kernel k() { x := 1" + strings.Repeat(" + 1", 5000) + " }",
		"kernel k() { x := a" + strings.Repeat(".T", 5000) + " }",
		"kernel k() { x := a" + strings.Repeat("[0]", 5000) + " }",
		"kernel k() {\n" + strings.Repeat("    x := f(a, b, mask: m)\n", 1000) + "}",
		strings.Repeat("const A = 1\n", 2000),
	} {
		start := time.Now()
		_, err := ParseFile("long.tle", []byte(src))
		require.NoError(t, err)
		require.Less(t, time.Since(start), 5*time.Second)
	}
}

func TestFileTooLarge(t *testing.T) {
	_, err := ParseFile("big.tle", make([]byte, MaxSize+1))
	require.ErrorContains(t, err, "file too large")
}

func TestPrintEBNF(t *testing.T) { t.Log("\n" + EBNF()) }

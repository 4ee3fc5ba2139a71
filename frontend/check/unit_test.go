package check

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/parser"
)

func TestPromote(t *testing.T) {
	cases := []struct{ a, b, want DType }{
		{F32, F32, F32},
		{I32, F16, F16},
		{F16, I64, F16},
		{F16, F32, F32},
		{BF16, F16, F32},
		{F16, BF16, F32},
		{F8E4M3, F8E5M2, F16},
		{F8E4M3, BF16, BF16},
		{F32, F64, F64},
		{I8, I32, I32},
		{I32, U32, U32},
		{U8, I16, I16},
		{I1, I32, I32},
		{UntypedInt, F16, F16},
		{UntypedInt, I8, I8},
		{UntypedFloat, I32, F32},
		{UntypedFloat, BF16, BF16},
		{UntypedInt, UntypedFloat, UntypedFloat},
		{UntypedInt, UntypedInt, UntypedInt},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, promote(c.a, c.b), "%s + %s", c.a, c.b)
		assert.Equal(t, c.want, promote(c.b, c.a), "%s + %s", c.b, c.a)
	}
}

func TestDims(t *testing.T) {
	B, N := SymDim("BLOCK"), SymDim("N")
	two := ConstDim(2)
	assert.Equal(t, "2*BLOCK", B.Mul(two).String())
	assert.True(t, B.Mul(two).Equal(two.Mul(B)))
	assert.True(t, B.Add(B).Equal(two.Mul(B)))
	assert.Equal(t, "BLOCK*BLOCK", B.Mul(B).String())
	assert.Equal(t, "BLOCK*N+BLOCK-1", B.Mul(N).Add(B).Sub(ConstDim(1)).String())
	assert.Equal(t, "BLOCK", B.Mul(two).Div(two).String())
	assert.Equal(t, "BLOCK/2", B.Div(two).String())
	assert.Equal(t, "(BLOCK+1)/2", B.Add(ConstDim(1)).Div(two).String())
	assert.Equal(t, "2*(BLOCK/2)", B.Div(two).Mul(two).String())
	assert.Equal(t, "0", B.Sub(B).String())
	assert.Equal(t, "-BLOCK", B.Neg().String())
	n, ok := ConstDim(6).Mul(ConstDim(7)).Const()
	assert.True(t, ok)
	assert.Equal(t, int64(42), n)
	_, ok = B.Const()
	assert.False(t, ok)
	assert.Equal(t, []string{"BLOCK", "N"}, B.Mul(N).Symbols())
	assert.Equal(t, "1", B.Div(B).String())
	assert.Equal(t, "0", B.Mul(two).Mod(two).String())
}

// A coefficient that overflows int64 makes an atom rather than wrapping:
// 2^64*BLOCK wrapped to 0, so [BLOCK] and [2^64*BLOCK^3+BLOCK] broadcast
// (found by fuzzing; testdata/errors/shapes.tle has the program). A
// product of sums of distinct symbols, whose terms double with each
// factor, becomes an atom past maxTerms (24 such factors took the checker
// minutes and gigabytes).
func TestDimsOverflow(t *testing.T) {
	B := SymDim("BLOCK")
	big := ConstDim(1 << 32)
	d := big.Mul(B).Mul(big)
	assert.False(t, d.Equal(ConstDim(0)), "%s", d)
	assert.False(t, d.Mul(B).Mul(B).Add(B).Equal(B))
	max := ConstDim(math.MaxInt64)
	assert.False(t, max.Mul(B).Add(B).Equal(ConstDim(math.MinInt64).Mul(B)))
	assert.Equal(t, "-2*BLOCK", ConstDim(math.MaxInt64).Mul(B).Add(ConstDim(math.MinInt64+1).Mul(B)).Add(B.Mul(ConstDim(-2))).String())

	start := time.Now()
	p := ConstDim(1)
	for i := 0; i < 40; i++ {
		p = p.Mul(SymDim(fmt.Sprintf("A%d", i)).Add(SymDim(fmt.Sprintf("B%d", i))))
		assert.LessOrEqual(t, len(p.terms), maxTerms)
	}
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.False(t, p.IsConst())
}

func TestBroadcast(t *testing.T) {
	B := SymDim("BLOCK")
	one, four := ConstDim(1), ConstDim(4)
	cases := []struct {
		a, b, want Shape
		ok         bool
	}{
		{Shape{B}, Shape{B}, Shape{B}, true},
		{Shape{B, one}, Shape{one, four}, Shape{B, four}, true},
		{Shape{B}, nil, Shape{B}, true},
		{Shape{four}, Shape{B, four}, Shape{B, four}, true},
		{Shape{B}, Shape{four}, nil, false},
		{Shape{B}, Shape{B.Mul(ConstDim(2))}, nil, false},
		{Shape{ConstDim(2), B}, Shape{ConstDim(3), B}, nil, false},
	}
	for _, c := range cases {
		got, ok := Broadcast(c.a, c.b)
		assert.Equal(t, c.ok, ok, "%s with %s", c.a, c.b)
		if ok {
			assert.Equal(t, c.want.String(), got.String())
		}
	}
}

func TestTypeStrings(t *testing.T) {
	B := SymDim("BLOCK")
	assert.Equal(t, "[16,128]bf16", (&Tile{Shape: Shape{ConstDim(16), ConstDim(128)}, Elem: BF16}).String())
	assert.Equal(t, "*f32", (&Pointer{Elem: F32}).String())
	assert.Equal(t, "*shared f16", (&Pointer{Elem: F16, Space: Shared}).String())
	assert.Equal(t, "[BLOCK]*f32", (&Tile{Shape: Shape{B}, Elem: &Pointer{Elem: F32}}).String())
	assert.Equal(t, "desc[bf16,64,64]", (&Desc{Elem: BF16, Block: Shape{ConstDim(64), ConstDim(64)}}).String())
	assert.Equal(t, "memdesc[3,BLOCK]f32", (&MemDesc{Elem: F32, Shape: Shape{ConstDim(3), B}}).String())
	assert.Equal(t, "mesh(cluster_x: 2)", (&Mesh{X: ConstDim(2), Y: ConstDim(1), Z: ConstDim(1)}).String())
	assert.Equal(t, "barrier[4]", (&Barrier{Slots: ptr(ConstDim(4))}).String())
	for _, d := range DTypes {
		got, ok := DTypeByName(d.String())
		assert.True(t, ok)
		assert.Equal(t, d, got)
	}
}

func ptr(d Dim) *Dim { return &d }

func TestParseDefine(t *testing.T) {
	n, v, err := ParseDefine("BLOCK=128")
	require.NoError(t, err)
	assert.Equal(t, "BLOCK", n)
	assert.Equal(t, "128", v)
	for _, bad := range []string{"BLOCK", "=3", "1X=3", "BLOCK=", "A-B=2"} {
		_, _, err := ParseDefine(bad)
		assert.Error(t, err, bad)
	}
	for _, c := range []struct {
		raw string
		t   DType
		ok  bool
	}{
		{"128", I32, true}, {"-3", I32, true}, {"0x10", I32, true}, {"1.5", I32, false},
		{"300", I8, false}, {"255", U8, true}, {"-1", U8, false}, {"true", I1, true},
		{"1e-5", F32, true}, {"abc", F32, false}, {"0", I1, true}, {"2", I1, false},
	} {
		_, err := parseDefineValue(c.raw, c.t)
		assert.Equal(t, c.ok, err == nil, "%s as %s: %v", c.raw, c.t, err)
	}
}

func checkSrc(t *testing.T, src string, conf Config) (*ast.File, *Info, []string) {
	t.Helper()
	f, err := parser.ParseFile("t.tle", []byte(src))
	require.NoError(t, err)
	info, errs := Check(f, conf)
	var msgs []string
	for _, d := range errs {
		msgs = append(msgs, d.Error())
	}
	return f, info, msgs
}

func TestDefinesSpecialise(t *testing.T) {
	src := `kernel k(p *f32, BLOCK const i32) {
    x := load(p + arange(0, BLOCK))
}`
	f, info, msgs := checkSrc(t, src, Config{})
	require.Empty(t, msgs)
	x := f.Decls[0].(*ast.KernelDecl).Body.Stmts[0].(*ast.AssignStmt)
	assert.Equal(t, "[BLOCK]f32", info.Defs[x.LHS[0].(*ast.Ident)].Type.String())

	f, info, msgs = checkSrc(t, src, Config{Defines: map[string]string{"BLOCK": "256"}})
	require.Empty(t, msgs)
	x = f.Decls[0].(*ast.KernelDecl).Body.Stmts[0].(*ast.AssignStmt)
	assert.Equal(t, "[256]f32", info.Defs[x.LHS[0].(*ast.Ident)].Type.String())
	n, ok := info.Kernels[0].Params[1].Value.Int()
	assert.True(t, ok)
	assert.Equal(t, int64(256), n)

	_, _, msgs = checkSrc(t, src, Config{Defines: map[string]string{"BLOCK": "48"}})
	require.Len(t, msgs, 1)
	assert.Contains(t, msgs[0], "arange size must be a power of two, got 48")

	_, _, msgs = checkSrc(t, src, Config{Defines: map[string]string{"BLCK": "64"}})
	require.Len(t, msgs, 1)
	assert.Equal(t, "t.tle:1:1: error: -D BLCK: no kernel has a const parameter named BLCK", msgs[0])
}

func TestInfo(t *testing.T) {
	src := `const N = 4 * 2
func twice(x f32) f32 { return x * 2.0 }
kernel k(p *f32, out *f16, BLOCK const i32) {
    v := load(p + arange(0, BLOCK), other: -1e30)
    w := twice(v).to(f16)
    store(out + arange(0, BLOCK), w)
    pp := pipe(capacity: 2, a: [N]f32)
    s := pp.acquire(0)
    c := cdiv(100, N)
}`
	f, info, msgs := checkSrc(t, src, Config{})
	require.Empty(t, msgs)
	assert.Equal(t, "8", info.Consts["N"].Value.String())
	k := f.Decls[2].(*ast.KernelDecl)
	stmts := k.Body.Stmts

	// load: args in parameter order, defaults filled, other: took f32.
	load := stmts[0].(*ast.AssignStmt).RHS[0].(*ast.CallExpr)
	call := info.Calls[load]
	require.NotNil(t, call)
	assert.Equal(t, "load", call.Builtin.Name)
	var names []string
	for _, a := range call.Args {
		names = append(names, a.Name)
	}
	assert.Equal(t, []string{"ptr", "mask", "other", "async", "boundary_check", "padding_option", "cache_modifier", "eviction_policy", "volatile"}, names)
	assert.Nil(t, call.Args[1].Expr)
	assert.True(t, call.Args[1].Default)
	assert.Equal(t, "f32", call.Args[2].Type.String())
	assert.Equal(t, "f32", info.Types[call.Args[2].Expr].Type.String())
	async, _ := call.Args[3].Value.Bool()
	assert.False(t, async)
	assert.Equal(t, "[BLOCK]f32", call.Result.String())

	// twice(v).to(f16): a method resolving to the "to" builtin, and a helper instance.
	to := stmts[1].(*ast.AssignStmt).RHS[0].(*ast.CallExpr)
	assert.Equal(t, "to", info.Calls[to].Builtin.Name)
	assert.Equal(t, "cast", info.Calls[to].Builtin.Alias)
	inner := to.Fun.(*ast.SelectorExpr).X.(*ast.CallExpr)
	inst := info.Calls[inner].Instance
	require.NotNil(t, inst)
	assert.Equal(t, "[BLOCK]f32", inst.Results[0].String())
	assert.Equal(t, "[BLOCK]f32", inst.Params[0].Type.String())
	ret := inst.Decl.Body.Stmts[0].(*ast.ReturnStmt).Results[0]
	assert.Equal(t, "[BLOCK]f32", inst.Tables.TypeOf(ret).String())
	assert.Len(t, info.Instances[inst.Decl], 1)

	// pipe fields follow capacity in Call.Args.
	pipeCall := info.Calls[stmts[3].(*ast.AssignStmt).RHS[0].(*ast.CallExpr)]
	assert.Equal(t, "capacity", pipeCall.Args[0].Name)
	assert.Equal(t, "a", pipeCall.Args[1].Name)
	assert.Equal(t, "pipe(capacity: 2, a: [8]f32)", pipeCall.Result.String())
	assert.Equal(t, "writer slot(a: [8]f32)", info.Types[stmts[4].(*ast.AssignStmt).RHS[0]].Type.String())

	// cdiv folds.
	cd := info.Types[stmts[5].(*ast.AssignStmt).RHS[0]]
	n, ok := cd.Value.Int()
	assert.True(t, ok)
	assert.Equal(t, int64(13), n)

	// identifiers resolve to objects.
	pid := load.Args[0].Value.(*ast.BinaryExpr).X.(*ast.Ident)
	assert.Equal(t, ParamObj, info.Uses[pid].Kind)
	assert.Equal(t, BuiltinObj, info.Uses[load.Fun.(*ast.Ident)].Kind)
	assert.Equal(t, "*f32", info.Kernels[0].Params[0].Type.String())

	// the smem budget is symbolic-free here: 2 slots of 8 f32 + 4 barriers.
	assert.True(t, info.Kernels[0].Smem.Known)
	assert.Equal(t, int64(2*8*4+4*8), info.Kernels[0].Smem.Total)
}

// TestFMATypes checks fma's result types: the three operands promote and
// broadcast as a binary operator's would, untyped constants take the
// others' dtype (f32 when all are untyped), and the constants are converted.
func TestFMATypes(t *testing.T) {
	src := `kernel k(p *f32, f f32, d f64) {
    x := load(p + arange(0, 16))
    h := cast(x, f16)
    b := cast(x, bf16)
    e := cast(x, f8e4m3)
    r1 := fma(h, h, 1)
    r2 := fma(b, h, f)
    r3 := fma(1, 2, 3)
    r4 := fma(f, f, f)
    r5 := fma(d, x, 1)
    r6 := fma(e, e, h)
    r7 := fma(x[:, None], x[None, :], 0.5)
    r8 := fma(b, 2.5, b)
}`
	f, info, msgs := checkSrc(t, src, Config{})
	require.Empty(t, msgs)
	stmts := f.Decls[0].(*ast.KernelDecl).Body.Stmts
	want := []string{"[16]f16", "[16]f32", "f32", "f32", "[16]f64", "[16]f16", "[16,16]f32", "[16]bf16"}
	for i, w := range want {
		call := stmts[4+i].(*ast.AssignStmt).RHS[0].(*ast.CallExpr)
		assert.Equal(t, w, info.Types[call].Type.String(), "r%d", i+1)
		for _, a := range info.Calls[call].Args {
			if d, ok := info.Types[a.Expr].Type.(DType); ok {
				assert.False(t, d.IsUntyped(), "r%d: argument %s stays %s", i+1, a.Name, d)
			}
		}
	}
}

func TestSmemNotes(t *testing.T) {
	src := `kernel big(p *f32) {
    a := alloc([256, 256], f32)
    pp := pipe(capacity: 2, w: [128, 128]f32)
}`
	f, err := parser.ParseFile("t.tle", []byte(src))
	require.NoError(t, err)
	_, errs := Check(f, Config{})
	require.Len(t, errs, 1)
	d := errs[0]
	assert.Contains(t, d.Msg, "shared memory")
	assert.Equal(t, []string{
		"a: alloc [256,256]f32 = 262144 bytes (line 2)",
		"pp: pipe field w [2,128,128]f32 = 131072 bytes (line 3)",
		"pp: pipe mbarriers (full+empty per slot) x4 = 32 bytes (line 3)",
		"total: 393248 bytes; limit: 232448 bytes",
	}, d.Notes)
}

func TestBuiltinTable(t *testing.T) {
	// Every builtin the language sketch and the issue name is in the table.
	for _, name := range strings.Fields(`program_id num_programs arange zeros full load store atomic_add
		atomic_max atomic_min atomic_cas atomic_xchg dot where cast sum max min cumsum exp exp2 log log2
		sqrt rsqrt sigmoid tanh erf abs minimum maximum fma cdiv reshape broadcast_to trans permute print assert
		make_desc alloc local_ptr copy barrier arrive wait expect pipe wgmma wgmma_wait device_mesh
		shard_id remote distributed_barrier asm`) {
		assert.NotNil(t, LookupBuiltin(name), name)
	}
	for _, m := range []struct {
		t    Type
		name string
	}{{&Pipe{}, "acquire"}, {&Pipe{}, "commit"}, {&Pipe{}, "close"}, {&Pipe{}, "wait"}, {&Pipe{}, "release"},
		{&MemDesc{}, "slot"}, {&Barrier{Slots: ptr(ConstDim(2))}, "slot"}, {F32, "to"}} {
		_, ok := methodFor(m.t, m.name)
		assert.True(t, ok, m.name)
	}
	seen := map[string]bool{}
	for _, b := range Builtins() {
		key := b.Recv + "." + b.Name
		assert.False(t, seen[key], "duplicate builtin %s", key)
		seen[key] = true
		assert.NotEmpty(t, b.Doc, b.Name)
		assert.NotNil(t, b.check, b.Name)
	}
	docs := BuiltinDocs()
	assert.Contains(t, docs, "- `load(ptr, mask:, other:, async: false, boundary_check:, padding_option:, cache_modifier: \"\", eviction_policy: \"\", volatile: false)`: ")
	assert.Contains(t, docs, "- `pp.acquire(i)`: ")
	assert.Contains(t, docs, "- `pipe(capacity:, field: [D0, ...]T...)`: ")
}

// TestNoPanics checks mutilated versions of every testdata file: each with
// one line deleted, when that still parses, must check without an internal
// error. Lines whose deletion cannot make a new program that parses are
// skipped before parsing (see deletable).
func TestNoPanics(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("slow")
	}
	files := append(testFiles(t, "ok"), testFiles(t, "errors")...)
	for _, path := range files {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		lines := strings.Split(string(src), "\n")
		for i := range lines {
			if !deletable(lines[i]) {
				continue
			}
			mut := strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "\n")
			f, err := parser.ParseFile(path, []byte(mut))
			if err != nil {
				continue
			}
			_, errs := Check(f, Config{Defines: map[string]string{"BLOCK": "64"}})
			for _, d := range errs {
				assert.NotContains(t, d.Msg, "internal error", "%s without line %d", path, i+1)
			}
		}
	}
	_, errs := Check(nil, Config{})
	assert.Empty(t, errs)
}

// deletable reports whether deleting line can give a program that parses
// and differs from the original: a blank or comment-only line changes
// nothing, and a line whose brackets do not balance (outside strings and
// comments) leaves a file whose brackets do not, which cannot parse.
func deletable(line string) bool {
	code := strings.TrimSpace(line)
	if code == "" || strings.HasPrefix(code, "//") {
		return false
	}
	depth := map[byte]int{}
	inString := false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '/' && i+1 < len(code) && code[i+1] == '/':
			i = len(code)
		case c == '(' || c == '[' || c == '{':
			depth[c]++
		case c == ')':
			depth['(']--
		case c == ']':
			depth['[']--
		case c == '}':
			depth['{']--
		}
	}
	return depth['('] == 0 && depth['['] == 0 && depth['{'] == 0
}

// TestTypesComplete checks that the checker records a type for every
// expression of the ok programs, except the documented exceptions: a call's
// callee, a selector's name, index markers (None, ':'), keyword names, names
// being declared or assigned, and the dtype of a tile-type list.
func TestTypesComplete(t *testing.T) {
	for _, path := range testFiles(t, "ok") {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		f := parse(t, path, src)
		info, errs := Check(f, Config{})
		require.Empty(t, errs)
		skip := map[ast.Node]bool{}
		var walk func(n ast.Node, tab *Tables)
		walk = func(root ast.Node, tab *Tables) {
			ast.Inspect(root, func(n ast.Node) bool {
				if e, ok := n.(ast.Expr); ok && !skip[n] {
					if _, isSlice := n.(*ast.SliceExpr); !isSlice {
						_, ok := tab.Types[e]
						assert.True(t, ok, "%s: no type for %T at %s", path, n, f.File.Position(n.Pos()))
					}
				}
				if st, ok := n.(ast.Stmt); ok && tab.Pruned[st] {
					return false // a branch pruned at compile time
				}
				switch n := n.(type) {
				case *ast.CallExpr:
					skip[n.Fun] = true
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
						skip[sel.Sel] = true
					}
				case *ast.SelectorExpr:
					skip[n.Sel] = true
				case *ast.IndexExpr:
					for _, ix := range n.Indices {
						if id, ok := ix.(*ast.Ident); ok && id.Name == "None" {
							skip[ix] = true
						}
					}
				case *ast.SliceExpr:
					return false
				case *ast.Arg:
					if n.Name != nil {
						skip[n.Name] = true
					}
				case *ast.AssignStmt:
					if n.Tok == ":=" || n.Tok == "=" {
						for _, l := range n.LHS {
							if _, ok := l.(*ast.Ident); ok {
								skip[l] = true
							}
						}
					}
				case *ast.ForStmt:
					if n.Var != nil {
						skip[n.Var] = true
					}
				case *ast.ConstDecl:
					skip[n.Name] = true
				case *ast.Role:
					skip[n.Name] = true
				case *ast.ListExpr:
					if n.Elem != nil {
						skip[n.Elem] = true
					}
				case *ast.FuncDecl, *ast.Param, ast.TypeExpr:
					return n == root
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.KernelDecl:
				walk(d.Body, info.Tables)
			case *ast.FuncDecl:
				for _, inst := range info.Instances[d] {
					walk(d.Body, inst.Tables)
				}
			}
		}
	}
}

// TestFoldErrorReportedOnce: a constant expression whose fold fails (a
// division by zero, a shift count) is reported once; its const is not
// reported again as "not a compile-time constant" (found by the fuzz pass).
func TestFoldErrorReportedOnce(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"const B = 0\nconst X = 64 / B\nkernel k(out *f32) {\n    store(out + arange(0, X), zeros([X], f32))\n}\n", "division by zero"},
		{"const S = 1 << 2000\nkernel k(out *f32) {\n    store(out, cast(S, f32))\n}\n", "invalid shift count"},
	} {
		_, _, msgs := checkSrc(t, c.src, Config{})
		require.Len(t, msgs, 1, "%q: %q", c.src, msgs)
		require.Contains(t, msgs[0], c.want)
	}
}

package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/ast"
)

// TestConstParams checks the table's Const marks against the rules: in
// every clean program, each written argument of a Const parameter is
// compile-time (a constant, a dtype or type, a scope, a string, or a list
// of constants), as the lowering, which reads them as constants, relies on.
func TestConstParams(t *testing.T) {
	files := testFiles(t, "ok")
	more, err := filepath.Glob("../../kernels/*/*.tle")
	require.NoError(t, err)
	files = append(files, more...)
	seen := map[*Param]bool{}
	for _, path := range files {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		info, errs := Check(parse(t, path, src), fileConfig(t, src))
		require.Empty(t, errs, path)
		tables := []*Tables{info.Tables}
		for _, insts := range info.Instances {
			for _, in := range insts {
				tables = append(tables, in.Tables)
			}
		}
		for _, tab := range tables {
			for call, c := range tab.Calls {
				if c.Builtin == nil {
					continue
				}
				for _, a := range c.Args {
					p := paramNamed(c.Builtin, a.Name)
					if p == nil || !p.Const || a.Default {
						continue
					}
					seen[p] = true
					assert.True(t, compileTime(tab, a), "%s: argument %s of %s at offset %d is not compile-time",
						path, a.Name, c.Builtin.CallName(), call.Pos())
				}
			}
		}
	}
	assert.NotEmpty(t, seen)
}

func paramNamed(b *Builtin, name string) *Param {
	for _, p := range b.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func compileTime(tab *Tables, a *Arg) bool {
	if a.Type == DTypeKind {
		// a kernel's dtype parameter left unbound (x.to(T) with no -D T):
		// the lowering only sees it bound, a dtype
		return true
	}
	switch t := a.Type.(type) {
	case *TypeVal, *ShapeVal:
		return true
	case Basic:
		return t == ScopeType || t == String
	}
	if a.Value != nil {
		return true
	}
	l, ok := unparen(a.Expr).(*ast.ListExpr)
	if !ok {
		return false
	}
	for _, e := range l.Elems {
		if tab.Types[e].Value == nil {
			return false
		}
	}
	return true
}

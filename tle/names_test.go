package tle_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tlego/tle/tle"
)

// A program using the GPU names no package but tle: the dtypes and the
// types the API's signatures take and return are named here.
func TestPublicNames(t *testing.T) {
	var (
		dts = []tle.DType{tle.I1, tle.I8, tle.I16, tle.I32, tle.I64, tle.U8, tle.U16, tle.U32, tle.U64,
			tle.F16, tle.BF16, tle.F32, tle.F64, tle.F8E4M3, tle.F8E5M2}
		_ tle.DevicePtr
		_ *tle.CUDAContext
		_ tle.TiledSpec
		_ tle.TensorMap
		_ tle.DescParam
		_ *tle.LoadedKernel
		_ *tle.IRModule
	)
	var names []string
	for _, d := range dts {
		names = append(names, d.String())
	}
	if got := strings.Join(names, " "); got != "i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 f8e4m3 f8e5m2" {
		t.Errorf("dtypes print %s", got)
	}
	if tle.BF16.Bytes() != 2 {
		t.Errorf("bf16 is %d bytes", tle.BF16.Bytes())
	}
	// (*tle.GPU).Alloc(tle.BF16, n) type-checks with this file's imports.
	var alloc func(tle.DType, int) (*tle.DeviceBuffer, error) = (*tle.GPU)(nil).Alloc
	_ = alloc
}

// No exported function, method or field of package tle has a type from
// another package of the module in its signature: each has a name in tle.
func TestSignaturesNameOnlyTle(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		internal := map[string]bool{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/tlego/tle/") {
				name := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				internal[name] = true
			}
		}
		uses := func(where string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := s.X.(*ast.Ident); ok && internal[x.Name] {
						t.Errorf("%s: %s names %s.%s", path, where, x.Name, s.Sel.Name)
					}
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Recv != nil && !exportedRecv(d.Recv) {
					continue
				}
				uses(d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() || ts.Assign.IsValid() {
						continue // aliases are where the names are given
					}
					var fields *ast.FieldList
					switch tt := ts.Type.(type) {
					case *ast.StructType:
						fields = tt.Fields
					case *ast.InterfaceType:
						fields = tt.Methods
					default:
						uses(ts.Name.Name, ts.Type)
						continue
					}
					for _, fld := range fields.List {
						for _, n := range fld.Names {
							if n.IsExported() {
								uses(ts.Name.Name+"."+n.Name, fld.Type)
							}
						}
					}
				}
			}
		}
	}
}

func exportedRecv(r *ast.FieldList) bool {
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

package parser

import (
	"path"
	"reflect"
	"strconv"
	"strings"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
)

// ReadFunc reads the file at a slash-separated path, as Load resolved it.
type ReadFunc func(name string) ([]byte, error)

// Load parses the file name and every file it imports, directly or not, into
// one tree: the program. An `import "p"` names the file at p relative to the
// importing file's folder (path.Join of the importer's folder and p, so name
// and p are slash-separated); read returns its bytes. A file imported along
// several paths is read once. The tree's File is a composite (diag.Compose):
// name's text first, then each imported file's, so every position names the
// file it is in. Its Decls are name's, then each imported file's funcs and
// consts; an imported file cannot declare a kernel. Errors: a file read fails
// (at the import), an import cycle (at the import that closes it), a kernel
// in an imported file, and any parse error of any file (in that file). Two
// declarations of one name in different files are the checker's error, at
// both. A nil read makes every import an error.
func Load(name string, src []byte, read ReadFunc) (*ast.File, error) {
	root, err := ParseFile(name, src)
	if err != nil {
		return nil, err
	}
	if !hasImports(root) {
		return root, nil
	}
	l := &loader{read: read, state: map[string]int{}, file: map[string]*ast.File{}}
	l.state[path.Clean(name)] = visiting
	l.imports(root, name)
	if len(l.errs) > 0 {
		l.errs.Sort()
		return nil, l.errs
	}
	files := make([]*diag.File, len(l.order))
	for i, f := range l.order {
		files[i] = f.File
	}
	comp, bases := diag.Compose(root.File, files...)
	out := &ast.File{File: comp, Decls: append([]ast.Decl(nil), root.Decls...), Comments: root.Comments}
	for i, f := range l.order {
		for _, d := range f.Decls {
			if _, ok := d.(*ast.ImportDecl); ok {
				continue
			}
			shiftPos(reflect.ValueOf(d), bases[i])
			out.Decls = append(out.Decls, d)
		}
	}
	return out, nil
}

const (
	visiting = 1
	done     = 2
)

type loader struct {
	read  ReadFunc
	state map[string]int       // by cleaned path: visiting (on the stack) or done
	file  map[string]*ast.File // parsed files, by cleaned path
	stack []string             // the import chain, for cycle messages
	order []*ast.File          // imported files, each after the files it imports
	errs  diag.List
}

func hasImports(f *ast.File) bool {
	for _, d := range f.Decls {
		if _, ok := d.(*ast.ImportDecl); ok {
			return true
		}
	}
	return false
}

// imports follows f's imports; f was read from name.
func (l *loader) imports(f *ast.File, name string) {
	l.stack = append(l.stack, path.Clean(name))
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	for _, d := range f.Decls {
		imp, ok := d.(*ast.ImportDecl)
		if !ok {
			continue
		}
		rel, err := strconv.Unquote(imp.Path.Value)
		if err != nil || rel == "" {
			l.errs.Add(f.File, imp.Path.Pos(), imp.Path.End(), "import %s: not a file path", imp.Path.Value)
			continue
		}
		p := path.Join(path.Dir(name), rel)
		switch l.state[p] {
		case done:
			continue
		case visiting:
			chain := append([]string(nil), l.stack...)
			i := 0
			for i < len(chain) && chain[i] != p {
				i++
			}
			chain = append(chain[i:], p)
			l.errs.Add(f.File, imp.Path.Pos(), imp.Path.End(), "import cycle: %s", strings.Join(chain, " imports "))
			continue
		}
		if l.read == nil {
			l.errs.Add(f.File, imp.Path.Pos(), imp.Path.End(), "cannot import %s: this source has no file system to read it from (load it from a file or an fs.FS)", imp.Path.Value)
			continue
		}
		src, err := l.read(p)
		if err != nil {
			l.errs.Add(f.File, imp.Path.Pos(), imp.Path.End(), "cannot import %s: %v", imp.Path.Value, err)
			continue
		}
		g, err := ParseFile(p, src)
		if err != nil {
			if list, ok := err.(diag.List); ok {
				l.errs = append(l.errs, list...)
			} else {
				l.errs.Add(f.File, imp.Path.Pos(), imp.Path.End(), "cannot import %s: %v", imp.Path.Value, err)
			}
			l.state[p] = done
			continue
		}
		for _, gd := range g.Decls {
			switch d := gd.(type) {
			case *ast.KernelDecl:
				l.errs.Add(g.File, d.Name.Pos(), d.Name.End(), "kernel %s in an imported file: a file imported declares funcs and consts only (imported by %s)", d.Name.Name, f.File.Position(imp.Path.Pos()))
			case *ast.TuneDecl:
				l.errs.Add(g.File, d.Name.Pos(), d.Name.End(), "tune %s in an imported file: a kernel's tuning space stands beside the kernel, and a file imported declares funcs and consts only (imported by %s)", d.Name.Name, f.File.Position(imp.Path.Pos()))
			}
		}
		l.state[p] = visiting
		l.imports(g, p)
		l.state[p] = done
		l.order = append(l.order, g)
	}
}

var posType = reflect.TypeOf(diag.NoPos)

// shiftPos adds d to every valid position in the tree below v: an imported
// file is parsed on its own and then moved to its place in the composite.
func shiftPos(v reflect.Value, d diag.Pos) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			shiftPos(v.Elem(), d)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				shiftPos(v.Field(i), d)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			shiftPos(v.Index(i), d)
		}
	case reflect.Int:
		if v.Type() == posType && v.CanSet() && diag.Pos(v.Int()).IsValid() {
			v.SetInt(v.Int() + int64(d))
		}
	}
}

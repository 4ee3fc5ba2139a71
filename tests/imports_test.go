package tests

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tlego/tle/"

// importRules says which project directories each directory must not import:
// data flows one way, source -> syntax -> IR -> passes -> LLVM IR -> device,
// and imports only point backwards along it (docs/architecture.md).
var importRules = []struct {
	dir       string
	forbidden []string
}{
	// the ground: nothing above it
	{"floats", []string{"diag", "ir", "gpu", "frontend", "passes", "backend", "runtime", "tle", "kernels", "cmd"}},
	{"diag", []string{"floats", "ir", "gpu", "frontend", "passes", "backend", "runtime", "tle", "kernels", "cmd"}},
	{"ir", []string{"gpu", "frontend", "passes", "backend", "runtime", "tle", "kernels", "cmd"}},
	// bounded file reads for the facade and the command: no part of the compiler
	{"internal/fileio", []string{"floats", "diag", "ir", "gpu", "frontend", "passes", "backend", "runtime", "tle", "kernels", "cmd"}},
	// views of host slices as other element types, for buffers in their dtype: no part of the compiler
	{"internal/hostmem", []string{"floats", "diag", "ir", "gpu", "frontend", "passes", "backend", "runtime", "tle", "kernels", "cmd"}},
	// the GPU dialect, shared by the passes and the backend
	{"gpu", []string{"frontend", "passes", "backend", "runtime", "tle", "kernels", "cmd"}},
	{"frontend", []string{"gpu", "passes", "backend", "runtime", "tle", "kernels", "cmd"}},
	{"passes", []string{"frontend", "backend", "runtime", "tle", "kernels", "cmd"}},
	{"backend", []string{"frontend", "runtime", "tle", "kernels", "cmd"}},
	{"runtime/cuda", []string{"gpu", "frontend", "passes", "backend", "tle", "kernels", "cmd", "runtime/interp"}},
	{"runtime/interp", []string{"gpu", "frontend", "passes", "backend", "tle", "kernels", "cmd", "runtime/cuda"}},
	// NCCL through purego: it drives GPUs through runtime/cuda and nothing above
	{"runtime/nccl", []string{"gpu", "frontend", "passes", "backend", "tle", "kernels", "cmd", "runtime/interp"}},
	{"runtime/npy", []string{"gpu", "frontend", "passes", "backend", "tle", "kernels", "cmd"}},
	// the timing engine is device-agnostic: its clocks come from above
	{"runtime/timing", []string{"floats", "diag", "ir", "gpu", "frontend", "passes", "backend", "runtime/cuda", "runtime/interp", "runtime/npy", "tle", "kernels", "cmd"}},
	// the facade imports every layer below it, and only kernels and the command import it
	{"tle", []string{"kernels", "cmd"}},
	{"kernels", []string{"cmd"}},
}

func TestImportRules(t *testing.T) {
	root := repoRoot(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/llir/") && !strings.HasPrefix(rel, "backend/nvptx/") {
				t.Errorf("%s imports %s: only backend/nvptx may import llir", rel, p)
			}
			if !strings.HasPrefix(p, module) {
				continue
			}
			target := strings.TrimPrefix(p, module)
			// Tests may wire layers together (a backend test launching on the
			// GPU through runtime/cuda); the rules bind package code.
			if strings.HasSuffix(rel, "_test.go") {
				continue
			}
			for _, r := range importRules {
				if !under(rel, r.dir) {
					continue
				}
				for _, fb := range r.forbidden {
					if under(target, fb) && !under(target, r.dir) {
						t.Errorf("%s imports %s: %s must not import %s", rel, p, r.dir, fb)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

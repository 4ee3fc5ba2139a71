package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/parser/parsertest"
	"github.com/tlego/tle/tle"
)

// Every kernel of the repository's .tle files, its compile-time parameters
// bound to 64 (true for i1), compiles for the GPU down to LLVM IR, with dot as mma.sync and as wgmma,
// or fails with a user-level error: never an internal compiler error.
func TestGPUCompileCorpus(t *testing.T) {
	t.Parallel()
	var files []string
	for _, dir := range []string{"../kernels", "../docs/examples", "../frontend/check/testdata/ok"} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tle") {
				files = append(files, p)
			}
			return err
		})
		require.NoError(t, err)
	}
	compiled := 0
	dump := os.Getenv("TLE_CORPUS_DUMP")
	for _, f := range files {
		prog, err := tle.LoadFile(f)
		if err != nil {
			continue // the checker's own tests cover files that do not check
		}
		for _, name := range prog.Kernels() {
			k, err := prog.Kernel(name)
			require.NoError(t, err)
			defines := bindAll(k)
			for _, wg := range []bool{false, true} {
				art, err := k.Build(tle.CompileOptions{Defines: defines, DotMMASync: !wg}, tle.GPUOptions{}, "ll")
				if err != nil && strings.Contains(err.Error(), "is not bound") {
					continue
				}
				if err != nil {
					require.NotContains(t, err.Error(), "internal compiler error", "%s: %s", f, name)
					t.Logf("%s %s (dot wgmma %v): %v", f, name, wg, err)
					continue
				}
				compiled++
				dumpBuild(t, dump, f, name, wg, art)
			}
		}
	}
	t.Logf("%d kernel builds from %d files", compiled, len(files))
	require.Greater(t, compiled, 10)
}

// dumpBuild writes a build's tile IR and LLVM IR under dir (when set) as
// FILE__KERNEL__wgmma|mmasync.{tir,ll}, so that two compilers' outputs can be
// compared byte for byte: TLE_CORPUS_DUMP=DIR go test -run TestGPUCompileCorpus ./tests,
// then tools/corpus-ptx.sh DIR turns each .ll into PTX with llc-19.
func dumpBuild(t *testing.T, dir, file, kernel string, wgmma bool, art *tle.Artifacts) {
	if dir == "" {
		return
	}
	form := "mmasync"
	if wgmma {
		form = "wgmma"
	}
	base := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(strings.TrimPrefix(file, "../"))+"__"+kernel+"__"+form)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(base+".tir", []byte(art.TIR), 0o644))
	require.NoError(t, os.WriteFile(base+".ll", []byte(art.LLVMIR), 0o644))
}

// bindAll binds every compile-time parameter of k: 64 for integers, true
// for i1 (a binding a kernel refuses is a user error).
func bindAll(k *tle.Kernel) map[string]string {
	defines := map[string]string{}
	for _, p := range k.Params() {
		if p.Const {
			defines[p.Name] = "64"
			if p.Type == "i1" {
				defines[p.Name] = "true"
			}
		}
	}
	return defines
}

// FuzzGPUCompile: a program that checks compiles for the GPU down to LLVM
// IR (compile-time parameters bound to 64 or true, dot as mma.sync and as
// wgmma) or fails with a user-level error; no pass panics and none reports
// an internal compiler error. Seeded with every .tle of the repository:
// go test -run XXX -fuzz FuzzGPUCompile -fuzztime 5m ./tests
func FuzzGPUCompile(f *testing.F) {
	parsertest.Fuzz(f, 16<<10, func(t *testing.T, src []byte) {
		prog, err := tle.Parse("fuzz.tle", src)
		if err != nil {
			return
		}
		for _, name := range prog.Kernels() {
			k, err := prog.Kernel(name)
			if err != nil {
				continue
			}
			defines := bindAll(k)
			for _, wg := range []bool{false, true} {
				_, err := k.Build(tle.CompileOptions{Defines: defines, DotMMASync: !wg}, tle.GPUOptions{}, "ll")
				if err != nil && strings.Contains(err.Error(), "internal compiler error") {
					t.Fatalf("%s (dot wgmma %v): %v", name, wg, err)
				}
			}
		}
	})
}

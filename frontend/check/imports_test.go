package check

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/parser"
)

// TestImports loads testdata/imports/CASE/main.tle with its imports read
// from CASE's folder (an fs.FS, as tle.Load reads them) and checks it: each
// `// ERROR "text"` line of any .tle file of CASE must get an error there
// containing text, and no other line an error.
func TestImports(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "imports", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			fsys := os.DirFS(dir)
			want := map[string][]string{}
			require.NoError(t, fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tle") {
					return err
				}
				src, err := fs.ReadFile(fsys, p)
				if err != nil {
					return err
				}
				for i, line := range strings.Split(string(src), "\n") {
					if m := errorRE.FindStringSubmatch(line); m != nil {
						for _, q := range quotedRE.FindAllString(m[1], -1) {
							s, err := strconv.Unquote(q)
							require.NoError(t, err)
							key := fmt.Sprintf("%s:%d", p, i+1)
							want[key] = append(want[key], s)
						}
					}
				}
				return nil
			}))
			errs := loadImportCase(t, fsys)
			got := map[string][]string{}
			for _, d := range errs {
				p := d.Position()
				key := fmt.Sprintf("%s:%d", p.Filename, p.Line)
				got[key] = append(got[key], d.Msg)
			}
			var keys []string
			for k := range want {
				keys = append(keys, k)
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				for _, w := range want[k] {
					found := false
					for _, g := range got[k] {
						found = found || strings.Contains(g, w)
					}
					assert.True(t, found, "%s: want an error containing %q, got %q", k, w, got[k])
				}
				if len(want[k]) == 0 {
					assert.Fail(t, "unexpected error", "%s: %q", k, got[k])
				}
			}
		})
	}
}

// loadImportCase loads and checks main.tle of fsys with its imports and
// returns the diagnostics.
func loadImportCase(t *testing.T, fsys fs.FS) diag.List {
	src, err := fs.ReadFile(fsys, "main.tle")
	require.NoError(t, err)
	read := func(name string) ([]byte, error) {
		if !fs.ValidPath(name) {
			return nil, fmt.Errorf("%s is outside the file system", name)
		}
		return fs.ReadFile(fsys, name)
	}
	var errs diag.List
	f, err := parser.Load("main.tle", src, read)
	if err != nil {
		require.ErrorAs(t, err, &errs)
	} else {
		_, errs = Check(f, Config{})
	}
	return errs
}

// importMessages is every message of the testdata/imports cases.
func importMessages(t *testing.T) []string {
	dirs, err := filepath.Glob(filepath.Join("testdata", "imports", "*"))
	require.NoError(t, err)
	var msgs []string
	for _, dir := range dirs {
		for _, d := range loadImportCase(t, os.DirFS(dir)) {
			msgs = append(msgs, d.Msg)
		}
	}
	return msgs
}

package check

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/ast"
	"github.com/tlego/tle/frontend/parser"
)

// Directives in testdata files:
//
//	// ERROR "text" ["text"...]   on a line: each text must be a substring of
//	                              an error reported on that line
//	// -D NAME=VALUE              a binding: ok files are checked both
//	                              without and with all their bindings, error
//	                              files with them
//	// SMEMLIMIT n                Config.SmemLimit for the file
//
// Errors without a position (an unknown -D name) are matched on line 1.
var (
	errorRE  = regexp.MustCompile(`// ERROR ((?:"(?:[^"\\]|\\.)*"\s*)+)`)
	quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	defineRE = regexp.MustCompile(`(?m)^// -D (\S+)`)
	limitRE  = regexp.MustCompile(`(?m)^// SMEMLIMIT (\d+)`)
)

func parse(t *testing.T, name string, src []byte) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(name, src)
	require.NoError(t, err, "parse %s", name)
	return f
}

func fileConfig(t *testing.T, src []byte) Config {
	conf := Config{Defines: map[string]string{}}
	for _, m := range defineRE.FindAllSubmatch(src, -1) {
		name, value, err := ParseDefine(string(m[1]))
		require.NoError(t, err)
		conf.Defines[name] = value
	}
	if m := limitRE.FindSubmatch(src); m != nil {
		conf.SmemLimit, _ = strconv.Atoi(string(m[1]))
	}
	return conf
}

func format(errs diag.List) string {
	var b bytes.Buffer
	errs.Format(&b)
	return b.String()
}

func testFiles(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.tle"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// eachFile runs test on every testdata/dir file, a subtest per file.
func eachFile(t *testing.T, dir string, test func(t *testing.T, path string, src []byte, f *ast.File)) {
	for _, path := range testFiles(t, dir) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			test(t, path, src, parse(t, path, src))
		})
	}
}

func TestOK(t *testing.T) {
	eachFile(t, "ok", func(t *testing.T, path string, src []byte, f *ast.File) {
		conf := fileConfig(t, src)
		_, errs := Check(f, Config{})
		assert.Empty(t, errs, "without -D:\n%s", format(errs))
		if len(conf.Defines) > 0 {
			_, errs = Check(f, conf)
			assert.Empty(t, errs, "with -D %v:\n%s", conf.Defines, format(errs))
		}
	})
}

func TestErrors(t *testing.T) {
	eachFile(t, "errors", func(t *testing.T, path string, src []byte, f *ast.File) {
		want := map[int][]string{}
		for i, line := range strings.Split(string(src), "\n") {
			m := errorRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			for _, q := range quotedRE.FindAllString(m[1], -1) {
				s, err := strconv.Unquote(q)
				require.NoError(t, err)
				want[i+1] = append(want[i+1], s)
			}
		}
		require.NotEmpty(t, want, "no // ERROR lines")
		_, errs := Check(f, fileConfig(t, src))
		got := map[int][]string{}
		for _, d := range errs {
			line := d.Position().Line
			if line == 0 {
				line = 1
			}
			got[line] = append(got[line], d.Msg)
		}
		var lines []int
		for l := range want {
			lines = append(lines, l)
		}
		for l := range got {
			if _, ok := want[l]; !ok {
				lines = append(lines, l)
			}
		}
		sort.Ints(lines)
		for _, l := range lines {
			for _, w := range want[l] {
				found := false
				for _, g := range got[l] {
					if strings.Contains(g, w) {
						found = true
					}
				}
				assert.True(t, found, "%s:%d: want error containing %q, got %q", path, l, w, got[l])
			}
			if len(want[l]) == 0 {
				assert.Fail(t, "unexpected error", "%s:%d: %q", path, l, got[l])
			}
		}
	})
}

package check

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	errorfRE = regexp.MustCompile(`c\.error(?:f|At)\(.*?,\s*("(?:[^"\\]|\\.)*")`)
	argErrRE = regexp.MustCompile(`c\.argErr\(cc, [^,]+, ("(?:[^"\\]|\\.)*")\)`)
	verbRE   = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
)

// messageFormats extracts the message formats of every error the checker
// can emit (errorf/errorAt formats, argErr expectations) from its source.
func messageFormats(t *testing.T) (formats, wants []string) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range errorfRE.FindAllStringSubmatch(string(src), -1) {
			s, err := strconv.Unquote(m[1])
			require.NoError(t, err)
			formats = append(formats, s)
		}
		for _, m := range argErrRE.FindAllStringSubmatch(string(src), -1) {
			s, err := strconv.Unquote(m[1])
			require.NoError(t, err)
			wants = append(wants, s)
		}
	}
	return formats, wants
}

// TestEveryMessageTested checks that every error message format in the
// checker's source is produced by at least one testdata/errors file (or,
// for messages about two files, testdata/imports case).
func TestEveryMessageTested(t *testing.T) {
	var msgs []string
	for _, path := range testFiles(t, "errors") {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		_, errs := Check(parse(t, path, src), fileConfig(t, src))
		for _, d := range errs {
			msgs = append(msgs, d.Msg)
		}
	}
	msgs = append(msgs, importMessages(t)...) // testdata/imports
	formats, wants := messageFormats(t)
	require.Greater(t, len(formats), 50)
	for _, f := range formats {
		if strings.HasPrefix(f, "internal error") {
			continue
		}
		parts := verbRE.Split(f, -1)
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
		found := false
		for _, m := range msgs {
			if re.MatchString(m) {
				found = true
				break
			}
		}
		assert.True(t, found, "no testdata/errors file produces %q", f)
	}
	for _, w := range wants {
		found := false
		for _, m := range msgs {
			if strings.Contains(m, "must be "+w+", not ") {
				found = true
				break
			}
		}
		assert.True(t, found, "no testdata/errors file produces an argument error wanting %q", w)
	}
}

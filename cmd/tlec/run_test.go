package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/frontend/parser/parsertest"
)

var (
	runLine   = regexp.MustCompile(`(?m)^// RUN: (.*)$`)
	errorMark = regexp.MustCompile(`// ERROR "([^"]*)"`)
)

// TestRunErrors runs each kernel of testdata/runerrors on the interpreter
// and checks that it stops with the marked error, at the marked line.
func TestRunErrors(t *testing.T) {
	parsertest.EachFile(t, "testdata/runerrors/*.tle", func(t *testing.T, path string, src []byte) {
		m := runLine.FindSubmatch(src)
		require.NotNil(t, m, "no // RUN: line")
		line, want := 0, ""
		for i, l := range strings.Split(string(src), "\n") {
			if e := errorMark.FindStringSubmatch(l); e != nil {
				line, want = i+1, e[1]
			}
		}
		require.NotZero(t, line, "no // ERROR mark")
		var stdout, stderr bytes.Buffer
		args := append([]string{"run", path, "--device", "cpu"}, strings.Fields(string(m[1]))...)
		code := run(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, args)
		require.Equal(t, 1, code, "stderr: %s", stderr.String())
		// The diagnostic's own line, not the excerpt that repeats the
		// source (and with it the ERROR mark).
		prefix := path + ":" + strconv.Itoa(line) + ":"
		first, _, _ := strings.Cut(stderr.String(), "\n")
		require.True(t, strings.HasPrefix(first, prefix), "the error must point at line %d: %s", line, first)
		require.Contains(t, first, want)
	})
}

package diag

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A diagnostic's excerpt never writes raw bytes of a binary file to the
// terminal, and its caret stays under the character it names.
func TestFormatExcerpt(t *testing.T) {
	for _, c := range []struct {
		src       string
		pos, end  Pos
		line, car string
	}{
		{"x := 1 \xff y", 7, NoPos, "x := 1 \ufffd y", "       ^"},
		{"a\x1b[2Jb\x00c", 7, NoPos, "a\ufffd[2Jb\ufffdc", "       ^"},
		{"\ttab", 1, 4, " tab", " ^^^"},
		{"é = 1 \x80", 7, NoPos, "é = 1 \ufffd", "      ^"},
		{"y :=", 4, NoPos, "y :=", "    ^"},
	} {
		var b bytes.Buffer
		f := NewFile("f.tle", []byte(c.src))
		(&Diagnostic{File: f, Pos: c.pos, End: c.end, Msg: "m"}).Format(&b)
		lines := strings.Split(b.String(), "\n")
		require.Equal(t, "    "+c.line, lines[1], "%q", c.src)
		require.Equal(t, "    "+c.car, lines[2], "%q", c.src)
	}
}

// A long line (a binary file often has one) is cut around the error.
func TestFormatLongLine(t *testing.T) {
	src := strings.Repeat("a", 1000) + "X" + strings.Repeat("b", 1000)
	var b bytes.Buffer
	(&Diagnostic{File: NewFile("f", []byte(src)), Pos: 1000, End: NoPos, Msg: "m"}).Format(&b)
	lines := strings.Split(b.String(), "\n")
	require.LessOrEqual(t, len(lines[1]), 4+maxExcerpt+6)
	require.True(t, strings.HasPrefix(lines[1], "    ..."))
	require.True(t, strings.HasSuffix(lines[1], "..."))
	caret := strings.Index(lines[2], "^")
	require.Equal(t, "X", lines[1][caret:caret+1])
}

// Package diag holds source positions and diagnostics shared by every layer of
// TLE-Go. A position is a byte offset into one source file; it is turned into
// line:column only when printed, so that every stage, from the parser to the
// backend, can point at the .tle text that caused a problem.
package diag

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a byte offset into a File's source. NoPos marks a missing position.
type Pos int

// NoPos is the zero-information position.
const NoPos Pos = -1

// IsValid reports whether p names a real offset.
func (p Pos) IsValid() bool { return p >= 0 }

// File is one source file: its name, its bytes and a table of line starts.
type File struct {
	Name  string
	Src   []byte
	lines []int // byte offset at which each line starts
	parts []part
}

// part is one file of a composite File: its bytes are Src[base:base+len].
type part struct {
	base int
	file *File
}

// Compose returns one File made of main and the files it imports: its Src
// is main's bytes and then each other file's, each after a newline, and it
// returns the offset at which each of others starts. A position of the
// composite names the file it falls in, with that file's line and column,
// so a program built from several files keeps one position space.
func Compose(main *File, others ...*File) (*File, []Pos) {
	src := append([]byte(nil), main.Src...)
	parts := []part{{0, main}}
	var bases []Pos
	for _, o := range others {
		src = append(src, '\n')
		parts = append(parts, part{len(src), o})
		bases = append(bases, Pos(len(src)))
		src = append(src, o.Src...)
	}
	f := NewFile(main.Name, src)
	f.parts = parts
	return f, bases
}

// Parts lists the files of a composite (main first); a plain File is its
// own one part.
func (f *File) Parts() []*File {
	if f == nil {
		return nil
	}
	if len(f.parts) == 0 {
		return []*File{f}
	}
	out := make([]*File, len(f.parts))
	for i, p := range f.parts {
		out[i] = p.file
	}
	return out
}

// part returns the file of a composite p falls in and p's offset there.
func (f *File) part(p Pos) (*File, Pos) {
	if len(f.parts) == 0 || !p.IsValid() {
		return f, p
	}
	i := sort.Search(len(f.parts), func(i int) bool { return f.parts[i].base > int(p) }) - 1
	if i < 0 {
		i = 0
	}
	return f.parts[i].file, p - Pos(f.parts[i].base)
}

// NewFile records a source file and indexes its lines.
func NewFile(name string, src []byte) *File {
	f := &File{Name: name, Src: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	return f
}

// Position is a human-readable location: 1-based line and byte column.
type Position struct {
	Filename string
	Offset   int
	Line     int
	Col      int
}

func (p Position) String() string {
	if p.Line == 0 {
		return p.Filename
	}
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Col)
}

// Position converts an offset to line and column. Offsets past the end of the
// source clamp to the end.
func (f *File) Position(p Pos) Position {
	if f == nil {
		return Position{}
	}
	if len(f.parts) > 0 && p.IsValid() {
		pf, pp := f.part(p)
		return pf.Position(pp)
	}
	if !p.IsValid() {
		return Position{Filename: f.Name}
	}
	off := int(p)
	if off > len(f.Src) {
		off = len(f.Src)
	}
	i := sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off }) - 1
	return Position{Filename: f.Name, Offset: off, Line: i + 1, Col: off - f.lines[i] + 1}
}

// Line returns the text of 1-based line n without its newline.
func (f *File) Line(n int) string {
	if f == nil || n < 1 || n > len(f.lines) {
		return ""
	}
	start := f.lines[n-1]
	end := len(f.Src)
	if n < len(f.lines) {
		end = f.lines[n] - 1
	}
	return strings.TrimRight(string(f.Src[start:end]), "\r")
}

// Severity says whether a diagnostic stops compilation.
type Severity int

const (
	Error Severity = iota
	Warning
	Note
)

func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Note:
		return "note"
	}
	return "error"
}

// Diagnostic is one message about one place in one file.
type Diagnostic struct {
	File     *File
	Pos      Pos
	End      Pos // exclusive; NoPos when only a point is known
	Severity Severity
	Msg      string
	// Notes are extra lines printed after the excerpt (for example the list of
	// shared-memory buffers behind a budget error).
	Notes []string
}

// Position is the diagnostic's line and column.
func (d *Diagnostic) Position() Position { return d.File.Position(d.Pos) }

// Error renders the diagnostic on one line: FILE:LINE:COL: error: message.
func (d *Diagnostic) Error() string {
	return fmt.Sprintf("%s: %s: %s", d.Position(), d.Severity, d.Msg)
}

// Format writes the one-line form, the source line and a caret under the
// column, then any notes.
func (d *Diagnostic) Format(w io.Writer) {
	fmt.Fprintln(w, d.Error())
	pos := d.Position()
	if d.File != nil && pos.Line > 0 {
		width := 1
		if d.End.IsValid() && d.End > d.Pos {
			endPos := d.File.Position(d.End)
			if endPos.Line == pos.Line {
				width = endPos.Col - pos.Col
			}
		}
		pf, _ := d.File.part(d.Pos)
		text, col, width := excerpt(pf.Line(pos.Line), pos.Col-1, max(width, 1))
		fmt.Fprintf(w, "    %s\n", text)
		fmt.Fprintf(w, "    %s%s\n", strings.Repeat(" ", col), strings.Repeat("^", width))
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "    %s\n", n)
	}
}

// List collects diagnostics. It is an error value when it holds any error.
type List []*Diagnostic

// Add appends an error at [pos, end).
func (l *List) Add(f *File, pos, end Pos, format string, args ...any) *Diagnostic {
	d := &Diagnostic{File: f, Pos: pos, End: end, Msg: fmt.Sprintf(format, args...)}
	*l = append(*l, d)
	return d
}

// Sort orders diagnostics by file, then offset, and drops exact duplicates.
func (l *List) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		an, bn := "", ""
		if a.File != nil {
			an = a.File.Name
		}
		if b.File != nil {
			bn = b.File.Name
		}
		if an != bn {
			return an < bn
		}
		return a.Pos < b.Pos
	})
	out := s[:0]
	for i, d := range s {
		if i > 0 {
			p := out[len(out)-1]
			if p.File == d.File && p.Pos == d.Pos && p.Msg == d.Msg {
				continue
			}
		}
		out = append(out, d)
	}
	*l = out
}

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Err returns the list as an error when it holds errors, else nil.
func (l List) Err() error {
	if l.HasErrors() {
		return l
	}
	return nil
}

func (l List) Error() string {
	var b bytes.Buffer
	for i, d := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.Error())
	}
	return b.String()
}

// Format writes every diagnostic with its excerpt.
func (l List) Format(w io.Writer) {
	for _, d := range l {
		d.Format(w)
	}
}

// Errorf builds a single-diagnostic error at pos in f.
func Errorf(f *File, pos Pos, format string, args ...any) *Diagnostic {
	return &Diagnostic{File: f, Pos: pos, End: NoPos, Msg: fmt.Sprintf(format, args...)}
}

// maxExcerpt is the most characters of a source line an excerpt shows.
const maxExcerpt = 120

// excerpt is line as a terminal may show it, with the caret's column and
// width (from the byte offset col and byte width) in its characters: a
// tab is a space, an invalid UTF-8 byte or a control character is U+FFFD
// (a binary file given as source must not write raw bytes to the
// terminal), and a long line is cut to maxExcerpt characters around col,
// "..." marking the cuts.
func excerpt(line string, col, width int) (text string, ccol, cwidth int) {
	var out []rune
	ccol, end := -1, -1
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		if ccol < 0 && col < i+size {
			ccol = len(out)
		}
		if end < 0 && col+width <= i {
			end = len(out)
		}
		switch {
		case r == '\t':
			r = ' '
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f, 0x80 <= r && r < 0xa0:
			r = utf8.RuneError
		}
		out = append(out, r)
		i += size
	}
	if ccol < 0 { // past the end of the line (a missing token at its end)
		ccol = len(out) + col - len(line)
	}
	if end < 0 {
		end = max(len(out), ccol+1)
	}
	cwidth = max(end-ccol, 1)
	if len(out) <= maxExcerpt {
		return string(out), ccol, cwidth
	}
	lo := max(0, min(ccol-maxExcerpt/2, len(out)-maxExcerpt))
	hi := lo + maxExcerpt
	text = string(out[lo:hi])
	ccol -= lo
	if lo > 0 {
		text, ccol = "..."+text, ccol+3
	}
	if hi < len(out) {
		text += "..."
	}
	return text, ccol, max(1, min(cwidth, maxExcerpt+3-ccol))
}

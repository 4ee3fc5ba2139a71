package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tlego/tle/ir"

	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/internal/hostmem"
)

const (
	magic = "\x93NUMPY"
	// maxDims is numpy's NPY_MAXDIMS (64 since numpy 2.0, 32 before): no
	// numpy can make an array of more dimensions.
	maxDims = 64
	// maxHeaderLen is numpy.load's default max_header_size: numpy refuses
	// longer headers (unless allow_pickle), and the headers of the dtypes
	// read here are far shorter (64 dimensions of 19 digits fit in 1.5 KB).
	maxHeaderLen = 10000
	// chunk bounds what is allocated ahead of the data actually present
	// when the reader's length is not known.
	chunk = 1 << 20
	// supported ends every unsupported-dtype error.
	supported = "want bool, int8..int64, uint8..uint64, float16/32/64"
)

// header is a parsed .npy header.
type header struct {
	descr   string // as written in the file
	canon   string // the little-endian descr of Array.DType
	kind    ir.DType
	big     bool // data is big-endian
	fortran bool
	shape   []int
	count   int   // number of elements
	nbytes  int   // bytes of data
	offset  int64 // bytes before the data
}

var nativeBig = binary.NativeEndian.Uint16([]byte{0, 1}) == 1

// ReadFile reads a .npy file; every error names the file. Bytes after the
// array's data are ignored, as numpy.load does.
func ReadFile(path string) (*Array, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	a, err := read(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Read reads one .npy array from r: the header, then exactly the bytes of
// data it announces, so r is left after the array (several arrays saved one
// after another into one stream are read by calling Read again). It accepts
// format versions 1.0, 2.0 and 3.0, either byte order and Fortran order, and
// rejects, with an error saying what is wrong, anything numpy.load would not
// read back as an array of a supported dtype, and any file shorter than its
// header says. Memory is allocated as data arrives, not from what the header
// claims.
func Read(r io.Reader) (*Array, error) { return read(r, -1) }

// read reads an array from r, of which size bytes remain (-1: unknown).
func read(r io.Reader, size int64) (*Array, error) {
	h, data, err := readData(r, size)
	if err != nil {
		return nil, err
	}
	return decode(h, data), nil
}

// readData reads the header and the data of an array from r, of which size
// bytes remain (-1: unknown), as the file has them. The data is 8-byte
// aligned (hostmem.Alloc) when the size is known.
func readData(r io.Reader, size int64) (*header, []byte, error) {
	h, err := readHeader(r, size)
	if err != nil {
		return nil, nil, err
	}
	need := h.nbytes
	short := func(have int64) error {
		return fmt.Errorf("npy: %d bytes of data, shape %v of %s needs %d", have, h.shape, h.descr, need)
	}
	var data []byte
	switch {
	case size >= 0 && size-h.offset < int64(need):
		return nil, nil, short(size - h.offset)
	case size >= 0 || need <= chunk:
		data = hostmem.Alloc(need)
		if n, err := io.ReadFull(r, data); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return nil, nil, short(int64(n))
			}
			return nil, nil, fmt.Errorf("npy: reading %d bytes of data: %w", need, err)
		}
	default:
		var buf bytes.Buffer
		buf.Grow(chunk)
		n, err := io.CopyN(&buf, r, int64(need))
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil, short(n)
			}
			return nil, nil, fmt.Errorf("npy: reading %d bytes of data: %w", need, err)
		}
		data = buf.Bytes()
	}
	return h, data, nil
}

// Raw is an array as its file's element type: Data holds the elements'
// little-endian bytes in C order (a big-endian or Fortran-order file is
// converted), 8-byte aligned, so that hostmem.View can see it as the
// []float32, []int32, ... of the element type without a copy; a bool
// array holds bytes 0 and 1 (any nonzero byte reads as True, as numpy
// reads it).
type Raw struct {
	Shape []int
	DType string // numpy descr, little-endian, as Array.DType
	Data  []byte
}

// Kind is the kernel dtype of the array's element type.
func (r *Raw) Kind() ir.DType { return descrs[r.DType] }

// ReadRawFile reads a .npy file as ReadFile does (the same checks and
// errors) but leaves the elements in the file's type: no float64 or
// int64 array is made.
func ReadRawFile(path string) (*Raw, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	h, data, err := readData(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	esize := h.kind.Bytes()
	if !hostmem.Aligned8(data) { // read from a stream of unknown size
		data = append(hostmem.Alloc(len(data))[:0], data...)
	}
	if h.big && esize > 1 {
		swapBytes(data, esize)
	}
	if h.kind == ir.I1 {
		for i, b := range data {
			if b != 0 {
				data[i] = 1
			}
		}
	}
	if h.fortran && len(h.shape) > 1 {
		switch esize {
		case 1:
			data = fromFortran(data, h.shape)
		case 2:
			data = hostmem.Bytes(fromFortran(hostmem.View[uint16](data), h.shape))
		case 4:
			data = hostmem.Bytes(fromFortran(hostmem.View[uint32](data), h.shape))
		default:
			data = hostmem.Bytes(fromFortran(hostmem.View[uint64](data), h.shape))
		}
	}
	return &Raw{Shape: h.shape, DType: h.canon, Data: data}, nil
}

// swapBytes reverses the bytes of each size-byte element of data.
func swapBytes(data []byte, size int) {
	for i := 0; i < len(data); i += size {
		e := data[i : i+size]
		for j, k := 0, size-1; j < k; j, k = j+1, k-1 {
			e[j], e[k] = e[k], e[j]
		}
	}
}

// Array widens the raw array into the float64 or int64 Array that
// ReadFile returns (r is left as it is).
func (r *Raw) Array() *Array {
	return decode(&header{canon: r.DType, kind: r.Kind(), shape: r.Shape}, r.Data) // little-endian C order: decode only reads it
}

// decode turns the data of h into an Array.
func decode(h *header, data []byte) *Array {
	if size := h.kind.Bytes(); h.big && size > 1 {
		swapBytes(data, size)
	}
	a := &Array{Shape: h.shape, DType: h.canon}
	if h.kind.IsFloat() {
		a.F64, _ = Decode(h.kind, data) // cannot fail: known dtype, whole elements
		if h.fortran && len(h.shape) > 1 {
			a.F64 = fromFortran(a.F64, h.shape)
		}
		return a
	}
	a.I64, _ = DecodeInts(h.kind, data)
	if h.kind == ir.I1 { // numpy reads any nonzero byte as True
		for i, v := range a.I64 {
			if v != 0 {
				a.I64[i] = 1
			}
		}
	}
	if h.fortran && len(h.shape) > 1 {
		a.I64 = fromFortran(a.I64, h.shape)
	}
	return a
}

// fromFortran reorders column-major data into row-major.
func fromFortran[T any](v []T, shape []int) []T {
	out := make([]T, len(v))
	nd := len(shape)
	idx := make([]int, nd)
	for f := range v { // f walks the Fortran order: index 0 fastest
		c := 0
		for k := 0; k < nd; k++ {
			c = c*shape[k] + idx[k]
		}
		out[c] = v[f]
		for k := 0; k < nd; k++ {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// readHeader reads the magic, the format version, the header length and the
// header dict; size is what remains of r (-1: unknown).
func readHeader(r io.Reader, size int64) (*header, error) {
	var pre [12]byte
	n, err := io.ReadFull(r, pre[:8])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("npy: reading the magic: %w", err)
	}
	if m := min(n, len(magic)); string(pre[:m]) != magic[:m] {
		return nil, fmt.Errorf("npy: not a .npy file: starts with %q, want the magic %q", pre[:m], magic)
	}
	if n == 0 {
		return nil, fmt.Errorf("npy: empty file, not a .npy file (want the magic %q)", magic)
	}
	if n < 8 {
		return nil, fmt.Errorf("npy: file of %d bytes is too short for a .npy file (at least the magic, a version and a header)", n)
	}
	major, minor := pre[6], pre[7]
	var width int
	switch {
	case major == 1 && minor == 0:
		width = 2
	case (major == 2 || major == 3) && minor == 0:
		width = 4
	default:
		return nil, fmt.Errorf("npy: format version %d.%d is not supported (want 1.0, 2.0 or 3.0)", major, minor)
	}
	if n, err := io.ReadFull(r, pre[8:8+width]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("npy: file ends after %d bytes, inside the %d-byte header length of format %d.0", 8+n, width, major)
		}
		return nil, fmt.Errorf("npy: reading the header length: %w", err)
	}
	hlen := int64(binary.LittleEndian.Uint16(pre[8:]))
	if width == 4 {
		hlen = int64(binary.LittleEndian.Uint32(pre[8:]))
	}
	pos := int64(8 + width)
	if size >= 0 && hlen > size-pos {
		return nil, fmt.Errorf("npy: header length %d runs past the end of the file (%d bytes follow the header length)", hlen, size-pos)
	}
	if hlen > maxHeaderLen {
		return nil, fmt.Errorf("npy: header length %d is more than %d, the most numpy.load reads (max_header_size)", hlen, maxHeaderLen)
	}
	text := make([]byte, hlen)
	if n, err := io.ReadFull(r, text); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("npy: header length %d runs past the end of the file (%d bytes follow the header length)", hlen, n)
		}
		return nil, fmt.Errorf("npy: reading the header: %w", err)
	}
	h, err := parseHeader(text, major)
	if err != nil {
		return nil, err
	}
	h.offset = pos + hlen
	return h, nil
}

// parseHeader parses the header dict numpy writes,
//
//	{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//
// padded with spaces and a newline. It accepts what Python's literal_eval
// (numpy's parser) reads as a dict of exactly these three keys, in any order:
// single or double quotes, any whitespace, an optional trailing comma; the
// shape a tuple of non-negative decimal integers (Python 2's 3L in format
// 1.0 and 2.0, as numpy does).
func parseHeader(text []byte, major byte) (*header, error) {
	p := &dictParser{s: text, major: major}
	h, err := p.parse()
	if err != nil {
		return nil, err
	}
	return h, nil
}

type dictParser struct {
	s     []byte
	i     int
	major byte
}

func (p *dictParser) errorf(format string, args ...any) error {
	const show = 120
	t := strings.TrimRight(string(p.s), " \n")
	if len(t) > show {
		t = t[:show] + "..."
	}
	return fmt.Errorf("npy: header %q is not the dict numpy writes ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }): %s",
		t, fmt.Sprintf(format, args...))
}

func (p *dictParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r\f\v", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *dictParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// at describes the position for an error.
func (p *dictParser) at() string {
	if p.i >= len(p.s) {
		return "the end of the header"
	}
	return fmt.Sprintf("%q at byte %d", p.s[p.i], p.i)
}

func (p *dictParser) expect(c byte, what string) error {
	if p.peek() != c {
		return p.errorf("want %s, found %s", what, p.at())
	}
	p.i++
	return nil
}

// str reads a string literal without escapes.
func (p *dictParser) str(what string) (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("want %s (a quoted string), found %s", what, p.at())
	}
	start := p.i + 1
	for j := start; j < len(p.s); j++ {
		switch p.s[j] {
		case q:
			p.i = j + 1
			return string(p.s[start:j]), nil
		case '\\', '\n':
			p.i = j
			return "", p.errorf("%s: escapes and line breaks in strings are not supported", what)
		}
	}
	p.i = len(p.s)
	return "", p.errorf("%s: unterminated string", what)
}

// token reads a bare word: a number or a name.
func (p *dictParser) token() string {
	p.space()
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '-' && p.i == start || c == '+' || c == '.' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			p.i++
			continue
		}
		break
	}
	return string(p.s[start:p.i])
}

func (p *dictParser) parse() (*header, error) {
	if err := p.expect('{', "'{'"); err != nil {
		return nil, err
	}
	h := &header{}
	seen := map[string]bool{}
	for p.peek() != '}' {
		keyAt := p.i
		key, err := p.str("a key")
		if err != nil {
			return nil, err
		}
		if seen[key] {
			p.i = keyAt
			return nil, p.errorf("key '%s' appears twice", key)
		}
		seen[key] = true
		if err := p.expect(':', "':' after '"+key+"'"); err != nil {
			return nil, err
		}
		switch key {
		case "descr":
			err = p.descr(h)
		case "fortran_order":
			switch w := p.token(); w {
			case "True", "False":
				h.fortran = w == "True"
			case "":
				err = p.errorf("want True or False for 'fortran_order', found %s", p.at())
			default:
				err = p.errorf("'fortran_order' is %s, want True or False", w)
			}
		case "shape":
			err = p.shape(h)
		default:
			p.i = keyAt
			err = p.errorf("unexpected key '%s' (want only 'descr', 'fortran_order' and 'shape')", key)
		}
		if err != nil {
			return nil, err
		}
		if p.peek() != ',' {
			break
		}
		p.i++
	}
	if err := p.expect('}', "',' or '}'"); err != nil {
		return nil, err
	}
	if p.space(); p.i < len(p.s) {
		return nil, p.errorf("%s after the dict", p.at())
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return nil, p.errorf("no '%s' key", k)
		}
	}
	return h, checkShape(h)
}

func (p *dictParser) descr(h *header) error {
	if c := p.peek(); c == '[' || c == '{' {
		// Show the value: up to the bracket that closes the first one.
		end, depth, quote := len(p.s), 0, byte(0)
	scan:
		for j := p.i; j < len(p.s); j++ {
			switch c := p.s[j]; {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"':
				quote = c
			case c == '[' || c == '{' || c == '(':
				depth++
			case c == ']' || c == '}' || c == ')':
				if depth--; depth == 0 {
					end = j + 1
					break scan
				}
			}
		}
		v := string(p.s[p.i:end])
		if len(v) > 80 {
			v = v[:80] + "..."
		}
		return fmt.Errorf("npy: unsupported dtype %s: structured/record dtypes are not supported (%s)", v, supported)
	}
	d, err := p.str("the 'descr' value")
	if err != nil {
		return err
	}
	h.descr = d
	canon, big, ok := parseDescr(d)
	if !ok {
		what := ""
		if k := strings.TrimLeft(d, "<>|="); k != "" {
			what = map[byte]string{'c': "complex ", 'O': "object ", 'U': "unicode string ", 'S': "byte string ", 'a': "byte string ",
				'V': "void/record ", 'M': "datetime ", 'm': "timedelta "}[k[0]]
		}
		return fmt.Errorf("npy: unsupported %sdtype '%s' (%s)", what, d, supported)
	}
	h.canon, h.big, h.kind = canon, big, descrs[canon]
	return nil
}

// parseDescr parses a simple numpy type string: a byte order ('<' little,
// '>' big, '|' or '=' or none: native), a kind (b, i, u, f) and a size in
// bytes. It returns the little-endian form of Array.DType.
func parseDescr(d string) (canon string, big, ok bool) {
	big = nativeBig
	if d != "" && strings.IndexByte("<>|=", d[0]) >= 0 {
		switch d[0] {
		case '<':
			big = false
		case '>':
			big = true
		}
		d = d[1:]
	}
	if len(d) != 2 {
		return "", false, false
	}
	canon = "<" + d
	if d[1] == '1' {
		canon = "|" + d
	}
	_, ok = descrs[canon]
	return canon, big, ok
}

func (p *dictParser) shape(h *header) error {
	if c := p.peek(); c != '(' {
		return p.errorf("'shape' is not a tuple: found %s", p.at())
	}
	p.i++
	h.shape = []int{}
	commas := 0
	for p.peek() != ')' {
		at := p.i
		t := p.token()
		if t == "" {
			return p.errorf("want a dimension or ')' in 'shape', found %s", p.at())
		}
		d, err := p.dim(t)
		if err != nil {
			p.i = at
			return err
		}
		h.shape = append(h.shape, d)
		if p.peek() != ',' {
			break
		}
		p.i++
		commas++
	}
	if err := p.expect(')', "',' or ')' in 'shape'"); err != nil {
		return err
	}
	if len(h.shape) == 1 && commas == 0 {
		return p.errorf("'shape' (%d) is a number, not a tuple (a 1-d shape is written (%d,))", h.shape[0], h.shape[0])
	}
	return nil
}

// dim parses one dimension: a Python decimal integer literal.
func (p *dictParser) dim(t string) (int, error) {
	digits := t
	if p.major < 3 { // Python 2's long, which numpy < 1.? wrote and numpy reads in formats 1.0 and 2.0
		digits = strings.TrimSuffix(digits, "L")
	}
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" ||
		len(digits) > 1 && digits[0] == '0' && strings.Trim(digits, "0") != "" {
		return 0, p.errorf("dimension %s is not a non-negative integer", t)
	}
	if neg && strings.Trim(digits, "0") != "" {
		return 0, p.errorf("negative dimension %s", t)
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || v > math.MaxInt {
		return 0, p.errorf("dimension %s is too large (at most %d)", t, math.MaxInt)
	}
	return int(v), nil
}

// checkShape checks the rank and computes the element count and byte size
// of h, rejecting sizes that overflow as numpy does (the product of the
// nonzero dimensions times the item size must fit in an int64).
func checkShape(h *header) error {
	n, nbytes, err := sizeOf(h.shape, h.kind.Bytes())
	if err != nil {
		return fmt.Errorf("npy: %s array: %w", h.descr, err)
	}
	h.count, h.nbytes = n, nbytes
	return nil
}

// sizeOf is the element count and byte size of a shape, or an error for a
// shape numpy cannot make: more than maxDims dimensions, a negative one, or
// a size that overflows.
func sizeOf(shape []int, itemsize int) (count, nbytes int, err error) {
	if len(shape) > maxDims {
		return 0, 0, fmt.Errorf("shape has %d dimensions, numpy allows at most %d", len(shape), maxDims)
	}
	count, nonzero := 1, itemsize
	for _, d := range shape {
		switch {
		case d < 0:
			return 0, 0, fmt.Errorf("negative dimension %d in shape %v", d, shape)
		case d == 0:
			count = 0
		case nonzero > math.MaxInt/d:
			return 0, 0, fmt.Errorf("shape %v overflows: its size in bytes is more than %d", shape, math.MaxInt)
		default:
			nonzero *= d
		}
	}
	if count != 0 {
		count = nonzero / itemsize
	}
	return count, count * itemsize, nil
}

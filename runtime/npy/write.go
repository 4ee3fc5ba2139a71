package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tlego/tle/internal/fileio"
)

// WriteFile writes a to path as a .npy file, atomically
// (fileio.WriteAtomic): the array goes to a temporary file beside path's
// target, which is synced and renamed over the target, so the target holds
// either its old content or the whole new file, never a part; on any
// failure, an interruption by SIGINT or SIGTERM included, the temporary
// file is removed and the target is untouched. A symbolic link at path is
// written through (its target is replaced, a dangling link's target
// created; the link stays). An existing file keeps its permission bits; a
// new one gets 0666 less the umask. A path that is a directory is an
// error, as is an invalid array, before anything is written. An existing
// path that is not a regular file (a device, a FIFO) is written directly.
func WriteFile(path string, a *Array) error {
	if err := a.Validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return fileio.WriteAtomic(path, 0o666, func(f io.Writer) error {
		w := bufio.NewWriter(f)
		if err := Write(w, a); err != nil {
			return err
		}
		return w.Flush()
	})
}

// WriteRawFile writes data, the little-endian C-order bytes of an array of
// the given descr and shape (Raw's layout), to path as a .npy file,
// atomically as WriteFile does. The bytes are written as they are: no
// Array is made. An unsupported descr, a bad shape or data of another
// length than the shape needs is an error, before anything is written.
func WriteRawFile(path, descr string, shape []int, data []byte) error {
	h, err := Header(descr, shape)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, nbytes, _ := sizeOf(shape, descrs[descr].Bytes()); nbytes != len(data) {
		return fmt.Errorf("%s: npy: shape %v of %s needs %d bytes, have %d", path, shape, descr, nbytes, len(data))
	}
	return fileio.WriteAtomic(path, 0o666, func(f io.Writer) error {
		if _, err := f.Write(h); err != nil {
			return err
		}
		_, err := f.Write(data)
		return err
	})
}

// Write writes a as .npy (format 1.0, header padded to 64 bytes as numpy
// does, C order, little-endian), in a's DType.
func Write(w io.Writer, a *Array) error {
	if err := a.Validate(); err != nil {
		return err
	}
	h, err := Header(a.DType, a.Shape)
	if err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	data, err := a.Bytes(descrs[a.DType])
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// Header is the .npy header numpy.save writes for an array of this descr and
// shape in C order (format 1.0). The descr must be one Array.DType allows
// and the shape one Read accepts (at most 64 dimensions, none negative, a
// size in bytes that fits in an int), else it is an error.
func Header(descr string, shape []int) ([]byte, error) {
	d, ok := descrs[descr]
	if !ok {
		return nil, fmt.Errorf("npy: unsupported dtype %q (%s)", descr, supported)
	}
	if _, _, err := sizeOf(shape, d.Bytes()); err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	var s strings.Builder
	s.WriteString("(")
	for i, d := range shape {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		s.WriteString(",")
	}
	s.WriteString(")")
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, s.String())
	const prefix = 10 // magic (6), version (2), header length (2)
	pad := 64 - (prefix+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	hlen := len(dict) + pad + 1
	if hlen > math.MaxUint16 || hlen > maxHeaderLen { // cannot happen with 64 dimensions of 19 digits
		return nil, fmt.Errorf("npy: header of shape %v is %d bytes, more than %d", shape, hlen, maxHeaderLen)
	}
	var b bytes.Buffer
	b.WriteString(magic + "\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(hlen))
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteString("\n")
	return b.Bytes(), nil
}

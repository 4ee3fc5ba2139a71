package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// rename is os.Rename; tests replace it to make the last step fail.
var rename = os.Rename

// WriteFile writes a to path as a .npy file, atomically: the array goes to
// a new temporary file in path's directory, which is synced and renamed over
// path, so path holds either its old content or the whole new file, never a
// part; on any failure the temporary file is removed and path is untouched.
// The temporary file is named after path: .NAME.tmp followed by random
// letters. A symbolic link at path is followed (its target is replaced, as
// os.Create writes through it; a dangling link is itself replaced). An
// existing file keeps its permission bits; a new one gets 0666 less the
// umask, as with os.Create. A path that is a directory is an error, as is
// an invalid array, before anything is written. An existing path that is
// not a regular file (a device, a FIFO) is written directly, without a
// temporary file.
func WriteFile(path string, a *Array) (err error) {
	if err := a.Validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	target, perm, existed := path, fs.FileMode(0o666), false
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s: npy: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		return writeDirect(path, a)
	case err == nil:
		perm, existed = fi.Mode().Perm(), true
		if t, err := filepath.EvalSymlinks(path); err == nil {
			target = t
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir, base := filepath.Split(target)
	var f *os.File
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 100 {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("%s: npy: creating a temporary file: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	if existed {
		if err := f.Chmod(perm); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(f)
	if err := Write(w, a); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return rename(f.Name(), target)
}

// writeDirect writes a into the existing non-regular file at path.
func writeDirect(path string, a *Array) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = Write(w, a)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
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

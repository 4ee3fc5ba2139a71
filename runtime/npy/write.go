package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// WriteFile writes a to path as a .npy file.
func WriteFile(path string, a *Array) error {
	f, err := os.Create(path)
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
	return err
}

// Write writes a as .npy (format 1.0, header padded to 64 bytes as numpy
// does, C order, little-endian), in a's DType.
func Write(w io.Writer, a *Array) error {
	if err := a.Validate(); err != nil {
		return err
	}
	if _, err := w.Write(Header(a.DType, a.Shape)); err != nil {
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
// shape in C order.
func Header(descr string, shape []int) []byte {
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
	if hlen > math.MaxUint16 {
		panic("npy: header too long") // shapes have at most a few dozen dimensions
	}
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(hlen))
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteString("\n")
	return b.Bytes()
}

// Package fileio reads files whole with a bound on their size, so that a
// wrong path (/dev/zero, a multi-gigabyte file) is an error, not an
// out-of-memory crash. The facade (tle.LoadFile) and the command (tlec)
// read their inputs through it; it is no part of the public API.
package fileio

import (
	"fmt"
	"io"
	"os"
)

// MaxSourceBytes bounds a .tle source: what tle.LoadFile, tlec check and
// tlec fmt read.
const MaxSourceBytes = 16 << 20

// ReadFile reads path whole, refusing one of more than max bytes (it
// reads at most max+1, so an endless file such as /dev/zero is refused
// too).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than the limit of %d bytes for this input", path, max)
	}
	return data, nil
}

// Package fileio is how TLE-Go reads its inputs and writes its outputs:
// inputs are regular files read with a bound on their size, so that a
// wrong path (/dev/zero, a FIFO, a multi-gigabyte file) is an error, never
// a hang or an out-of-memory crash; outputs are written through symbolic
// links to their targets, atomically, and a write interrupted by SIGINT or
// SIGTERM leaves neither a temporary file nor a changed destination. The
// facade (tle.LoadFile), the .npy reader and writer and the command (tlec)
// go through it; it is no part of the public API.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// MaxSourceBytes bounds a .tle source: what tle.LoadFile, tlec check and
// tlec fmt read.
const MaxSourceBytes = 16 << 20

// OpenRegular opens path for reading after checking, with the links
// followed, that it is a regular file: a FIFO or a terminal would block
// the read forever and a device would never end. It opens without
// blocking (a FIFO's open waits for a writer) and checks the file it
// opened, so that nothing can swap the file in between.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is %s, not a regular file", path, kind(st.Mode()))
	}
	return f, nil
}

// kind names a file mode that is not a regular file's.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// ReadFile reads the regular file path whole (OpenRegular), refusing one
// of more than max bytes (it reads at most max+1).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
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

// maxLinks bounds the symbolic links Target follows, as the kernel does.
const maxLinks = 40

// Target is where a write to path lands: path with every symbolic link
// followed, a dangling link's target included, so that a writer replaces
// the link's target and never the link itself.
func Target(path string) (string, error) {
	for i := 0; i < maxLinks; i++ {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && st.Mode()&fs.ModeSymlink == 0) {
			if dir := filepath.Dir(path); dir != path {
				// a link among the directories is followed by the
				// rename as well; resolve it for the messages
				if d, err := filepath.EvalSymlinks(dir); err == nil {
					return filepath.Join(d, filepath.Base(path)), nil
				}
			}
			return path, nil
		}
		if err != nil {
			return "", err
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			// relative to the link's directory as the kernel finds it:
			// through its own links first, so that a ".." in the link
			// climbs from there
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", err
			}
			link = filepath.Join(dir, link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// temps are the temporary files being written, removed by the signal
// handler (CleanupOnSignal) when the process is interrupted.
var temps = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

// CreateTemp creates a new temporary file beside target (named
// .BASE.tmp followed by random digits) with mode perm less the umask,
// registered for removal should the process be interrupted; Forget ends
// that once it is renamed or removed.
func CreateTemp(target string, perm fs.FileMode) (f *os.File, err error) {
	dir, base := filepath.Split(target)
	temps.Lock()
	defer temps.Unlock()
	for try := 0; try < 100; try++ {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	temps.paths[f.Name()] = true
	return f, nil
}

// Forget takes a temporary file off the list CleanupOnSignal removes.
func Forget(tmp string) {
	temps.Lock()
	delete(temps.paths, tmp)
	temps.Unlock()
}

// removeTemps removes every registered temporary file and keeps the list
// locked, so that no write starts a new one before the process exits.
func removeTemps() {
	temps.Lock()
	for p := range temps.paths {
		os.Remove(p)
		delete(temps.paths, p)
	}
}

var cleanupOnce sync.Once

// CleanupOnSignal makes SIGINT and SIGTERM remove the temporary files of
// the writes in progress before the process ends (with 130 or 143, as a
// shell reports those signals): the destinations keep their old content.
// A command calls it once at its start.
func CleanupOnSignal() {
	cleanupOnce.Do(func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt, syscall.SIGTERM)
		go func() {
			sig := <-c
			removeTemps()
			code := 128 + 2
			if sig == syscall.SIGTERM {
				code = 128 + 15
			}
			os.Exit(code)
		}()
	})
}

// WriteAtomic writes path through write, atomically: into a temporary file
// beside path's target (Target: links are written through), synced and
// renamed over the target, so the target holds its old content or the
// whole new one and the links stay links. An existing target keeps its
// permission bits; a new one gets perm less the umask. A target that
// exists and is not a regular file (a device, a FIFO) is written directly.
// On any failure the temporary file is removed and the target is as it
// was.
func WriteAtomic(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	target, err := Target(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		// a FIFO is written as a shell's > writes it: once a reader
		// opens it (the user named it as the output)
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := CreateTemp(target, perm)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: the directory %s does not exist", path, filepath.Dir(target))
	}
	if err != nil {
		return fmt.Errorf("%s: creating a temporary file beside %s: %w", path, target, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
		Forget(f.Name())
	}()
	if st != nil { // an existing target keeps its permission bits
		if err := f.Chmod(st.Mode().Perm()); err != nil {
			return err
		}
	}
	if err := write(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return rename(f.Name(), target)
}

// rename is os.Rename; tests replace it to make the last step fail.
var rename = os.Rename

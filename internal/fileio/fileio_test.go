package fileio

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A file within the limit is read whole; one past it, or an endless one,
// is refused with the limit in the message.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, 5); err != nil || string(data) != "12345" {
		t.Fatalf("ReadFile at the limit: %q, %v", data, err)
	}
	if _, err := ReadFile(path, 4); err == nil || !strings.Contains(err.Error(), "larger than the limit of 4 bytes") {
		t.Fatalf("ReadFile past the limit: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero", 1<<10); err == nil || !strings.Contains(err.Error(), "/dev/zero is a character device, not a regular file") {
			t.Fatalf("ReadFile of /dev/zero: %v", err)
		}
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing"), 4); !os.IsNotExist(err) {
		t.Fatalf("ReadFile of a missing file: %v", err)
	}
}

// A FIFO (and anything else that is not a regular file, links followed)
// is refused at once, naming the path: reading one blocked forever.
func TestReadFileRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink("p", link))
	done := make(chan error, 2)
	go func() {
		_, err := ReadFile(fifo, 10)
		done <- err
		_, err = OpenRegular(link)
		done <- err
	}()
	for _, want := range []string{fifo + " is a named pipe (FIFO), not a regular file", link + " is a named pipe (FIFO)"} {
		select {
		case err := <-done:
			require.ErrorContains(t, err, want)
		case <-time.After(5 * time.Second):
			t.Fatal("reading a FIFO blocked")
		}
	}
	_, err := ReadFile(dir, 10)
	require.ErrorContains(t, err, dir+" is a directory, not a regular file")
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// Every writer writes through symbolic links: the target gets the new
// content and the link stays a link (a dangling one creates its target).
func TestWriteAtomicThroughLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o600))
	link := filepath.Join(dir, "link.txt")
	require.NoError(t, os.Symlink("target.txt", link))
	chain := filepath.Join(dir, "chain.txt")
	require.NoError(t, os.Symlink("link.txt", chain))
	require.NoError(t, WriteAtomic(chain, 0o666, writeString("new")))
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "new", string(b))
	for _, l := range []string{link, chain} {
		st, err := os.Lstat(l)
		require.NoError(t, err)
		require.NotZero(t, st.Mode()&os.ModeSymlink, "%s is no longer a link", l)
	}
	st, err := os.Stat(target)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the target keeps its mode")

	dangling := filepath.Join(dir, "dangling.txt")
	require.NoError(t, os.Symlink("made.txt", dangling))
	require.NoError(t, WriteAtomic(dangling, 0o666, writeString("made")))
	b, err = os.ReadFile(filepath.Join(dir, "made.txt"))
	require.NoError(t, err)
	require.Equal(t, "made", string(b))

	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	require.ErrorContains(t, WriteAtomic(loop, 0o666, writeString("x")), "too many levels of symbolic links")
	require.ErrorContains(t, WriteAtomic(dir, 0o666, writeString("x")), "is a directory")
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range es {
		require.False(t, strings.Contains(e.Name(), ".tmp"), "left behind: %s", e.Name())
	}
}

// A write interrupted by SIGTERM or SIGINT leaves no temporary file and
// the destination as it was. The test runs itself as a child that starts
// a write which never ends, and signals it.
func TestWriteInterrupted(t *testing.T) {
	if dst := os.Getenv("FILEIO_TEST_WRITE"); dst != "" {
		CleanupOnSignal()
		WriteAtomic(dst, 0o666, func(w io.Writer) error {
			io.WriteString(w, "partial")
			os.WriteFile(dst+".started", nil, 0o644)
			select {} // interrupted here
		})
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir := t.TempDir()
		dst := filepath.Join(dir, "out.npy")
		require.NoError(t, os.WriteFile(dst, []byte("old"), 0o644))
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriteInterrupted$")
		cmd.Env = append(os.Environ(), "FILEIO_TEST_WRITE="+dst)
		require.NoError(t, cmd.Start())
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := os.Stat(dst + ".started"); err == nil {
				break
			}
			require.True(t, time.Now().Before(deadline), "the child never started writing")
			time.Sleep(10 * time.Millisecond)
		}
		require.NoError(t, cmd.Process.Signal(sig))
		err := cmd.Wait()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, 128+int(sig), ee.ExitCode())
		b, err := os.ReadFile(dst)
		require.NoError(t, err)
		require.Equal(t, "old", string(b))
		es, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, es, 2, "only out.npy and the marker: %v", es)
	}
}

// A relative link is resolved from its directory as the kernel finds it:
// through a linked directory, ".." climbs from the real one.
func TestTargetThroughLinkedDirectory(t *testing.T) {
	w := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(w, "a", "b", "c"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join("a", "b", "c"), filepath.Join(w, "d")))
	require.NoError(t, os.Symlink(filepath.Join("..", "x"), filepath.Join(w, "a", "b", "c", "out")))
	got, err := Target(filepath.Join(w, "d", "out"))
	require.NoError(t, err)
	want, err := filepath.EvalSymlinks(filepath.Join(w, "a", "b"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(want, "x"), got)
	require.NoError(t, WriteAtomic(filepath.Join(w, "d", "out"), 0o666, writeString("through")))
	b, err := os.ReadFile(filepath.Join(w, "a", "b", "x"))
	require.NoError(t, err)
	require.Equal(t, "through", string(b))
}
